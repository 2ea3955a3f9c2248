package main

import (
	"os"
	"syscall"
)

// isTerminal reports whether f is a terminal, where a person may have started the
// server by hand. A character device is not enough: /dev/null is one, and a
// client may well give it as stdin. On Linux a terminal is a character device of
// a terminal's major number: 4 (virtual consoles and serial ports), 5 (/dev/tty,
// /dev/console) or 136 to 143 (pseudo-terminals, what terminal emulators and ssh
// give). It is read from an fstat, the one call the check made before; the usual
// isatty ioctl would need golang.org/x/sys/unix or unsafe, which the source-level
// safety proof keeps out of the binary.
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
