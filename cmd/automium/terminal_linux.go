package main

import (
	"os"
	"syscall"
)

// isTerminal reports whether f is a terminal, where a person reads progress.
// A character device is not enough: /dev/null is one. On Linux a terminal is
// a character device of a terminal's major number: 4 (virtual consoles and
// serial ports), 5 (/dev/tty, /dev/console) or 136 to 143 (pseudo-terminals).
// The same rule as automium-mcp's, from one fstat, without x/sys or unsafe.
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	if err != nil || info.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	major := (st.Rdev>>8)&0xfff | (st.Rdev>>32)&^0xfff
	return major == 4 || major == 5 || (major >= 136 && major <= 143)
}
