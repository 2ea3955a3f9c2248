//go:build unix

package main

import "syscall"

// mkfifo makes a FIFO at path, where the system has them.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
