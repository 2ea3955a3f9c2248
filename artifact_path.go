package automium

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
	"golang.org/x/text/unicode/norm"
)

// An artifact manifest is a contract that other tools resolve on other systems:
// a Linux worker writes the files, a Windows or macOS reviewer downloads them, a
// web viewer links to them. So a path is accepted only when it is a safe relative
// path under the root for all of them at once: a POSIX path, a Windows path and
// a URL path. A name that is harmless on Linux can leave the root, or open a
// device, elsewhere.

// windowsReservedNames are the names Windows resolves to devices in any
// directory, with any extension: aux.txt opens the AUX device, not a file.
var windowsReservedNames = func() map[string]bool {
	names := map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true}
	for _, d := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "\u00b9", "\u00b2", "\u00b3"} {
		names["COM"+d] = true
		names["LPT"+d] = true
	}
	return names
}()

// artifactPathPattern is the part of the path rules a JSON Schema pattern can
// say, in syntax that Go's RE2 and ECMAScript read alike: segments of allowed
// characters, separated by single slashes, each ending in a character that is
// not a dot or a space (which also rules out . and ..). Every path the server
// accepts matches it, and it refuses traversal, absolute paths and unsafe
// characters, so a client that checks the advertised schema catches those
// itself; what it cannot say (device names, Unicode normalization, invisible
// characters) the server checks. FuzzArtifactPath holds the two together.
const artifactPathPattern = `^[^/\\:<>"|?*#%\x00-\x1f\x7f-\x9f]*[^/\\:<>"|?*#%\x00-\x1f\x7f-\x9f. ](/[^/\\:<>"|?*#%\x00-\x1f\x7f-\x9f]*[^/\\:<>"|?*#%\x00-\x1f\x7f-\x9f. ])*$`

var _ = registerPattern("automium_artifact_path", artifactPathPattern, "a relative artifact path such as attempt-1/trace.zip")

// unsafePathChars are characters one of the consumers reads as syntax: Windows
// forbids <>:"|?* in names and reads : as a drive or a stream, a URL ends its
// path at ? or #, and a URL resolver decodes %2e%2e into ..
const unsafePathChars = `<>:"|?*#%`

// artifactPathProblem explains why p is not a safe relative artifact path, or
// returns "". Accepted paths are exactly those equal to their own path.Clean
// that neither start with / nor contain a . or .. segment, and that no Windows,
// macOS or URL resolver can read otherwise: no backslashes, drive letters, URL
// schemes or characters of unsafePathChars; no control or invisible format
// characters (bidi overrides, zero-width spaces); nothing Unicode compatibility
// normalization changes (a fullwidth ．．／ folds into ../); no Windows device
// names (CON, aux.txt, COM1) and no segment ending in a dot or a space, which
// Windows strips.
func artifactPathProblem(p string) string {
	const fix = "; use a relative POSIX path such as attempt-1/trace.zip"
	q := echo.Quote(p)
	switch {
	case p == "":
		return "is empty" + fix
	case !utf8.ValidString(p):
		return fmt.Sprintf("%s is not valid UTF-8%s", q, fix)
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return fmt.Sprintf("%s contains a NUL or other control character%s", q, fix)
	case strings.IndexFunc(p, isFormatChar) >= 0:
		return fmt.Sprintf("%s contains an invisible formatting character (such as a bidi override or a zero-width space), which makes it read as another path%s", q, fix)
	case !norm.NFKC.IsNormalString(p):
		return fmt.Sprintf("%s contains characters that Unicode compatibility normalization changes (such as fullwidth dots or slashes), which another system can fold into . / \\ or :; write the plain characters%s", q, fix)
	case strings.ContainsRune(p, '\\'):
		return fmt.Sprintf("%s contains a backslash; separate segments with /%s", q, fix)
	case len(p) >= 2 && p[1] == ':' && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z'):
		return fmt.Sprintf("%s starts with a drive letter; artifact paths are relative to the root%s", q, fix)
	case hasScheme(p):
		return fmt.Sprintf("%s starts with a URL scheme; artifact paths are file paths under the root, not URLs%s", q, fix)
	case p[0] == '/':
		return fmt.Sprintf("%s is absolute; artifact paths are relative to the root%s", q, fix)
	case strings.ContainsRune(p, ':'):
		return fmt.Sprintf("%s contains a colon, which Windows reads as a drive or an alternate data stream%s", q, fix)
	case strings.ContainsAny(p, unsafePathChars):
		return fmt.Sprintf("%s contains one of %s, which Windows forbids in names or a URL reads as a query, fragment or escape (%%2e%%2e decodes to ..)%s", q, unsafePathChars, fix)
	}
	for seg := range strings.SplitSeq(p, "/") {
		switch {
		case seg == "":
			return fmt.Sprintf("%s has an empty segment (// or a trailing /)%s", q, fix)
		case seg == "..":
			return fmt.Sprintf("%s has a .. segment, which could leave the root%s", q, fix)
		case seg == ".":
			return fmt.Sprintf("%s has a . segment; write the path without it%s", q, fix)
		case strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " "):
			return fmt.Sprintf("%s has a segment ending in a dot or a space, which Windows strips, so it names another file there%s", q, fix)
		case isWindowsReserved(seg):
			return fmt.Sprintf("%s has a segment Windows reserves for a device (CON, PRN, AUX, NUL, COM1-9, LPT1-9, with any extension)%s", q, fix)
		}
	}
	return ""
}

// isFormatChar reports the invisible format characters (Unicode category Cf)
// that change how a path reads without being seen: bidi overrides and isolates,
// zero-width spaces and joiners, the byte order mark.
func isFormatChar(r rune) bool { return unicode.Is(unicode.Cf, r) }

// isWindowsReserved reports whether Windows resolves the path segment seg to a
// device: its name before the first dot, with trailing spaces removed, is a
// reserved name in any case.
func isWindowsReserved(seg string) bool {
	name, _, _ := strings.Cut(seg, ".")
	return windowsReservedNames[strings.ToUpper(strings.TrimRight(name, " "))]
}

// pathKey is what two paths that name one file on a case-insensitive system
// (Windows, macOS) have in common. Accepted paths are already NFKC-normal, so
// only case remains to be folded.
func pathKey(p string) string { return strings.ToLower(strings.ToUpper(p)) }
