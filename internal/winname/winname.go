// Package winname knows the file names Windows resolves to devices, so that
// a name harmless on Linux is refused before it opens a device elsewhere.
package winname

import "strings"

// reservedNames are the names Windows resolves to devices in any
// directory, with any extension and in any case: aux.txt opens the AUX device,
// not a file. The list is Windows' whole list, old and new: CON, PRN, AUX,
// NUL, CLOCK$, CONIN$, CONOUT$, and COM and LPT followed by a digit 0 to 9 or
// a superscript ¹, ² or ³ (which Windows reads as the digit).
var reservedNames = func() map[string]bool {
	names := map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true, "CLOCK$": true, "CONIN$": true, "CONOUT$": true}
	for _, d := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "\u00b9", "\u00b2", "\u00b3"} {
		names["COM"+d] = true
		names["LPT"+d] = true
	}
	return names
}()

// Reserved reports whether Windows resolves the path segment seg to a
// device: its name before the first dot, with trailing spaces removed, is a
// reserved name in any case.
func Reserved(seg string) bool {
	name, _, _ := strings.Cut(seg, ".")
	return reservedNames[strings.ToUpper(strings.TrimRight(name, " "))]
}
