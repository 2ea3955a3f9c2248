//go:build !linux

package main

import "os"

// isTerminal reports whether f may be a terminal: outside Linux, where device
// numbers differ, any character device counts.
func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
