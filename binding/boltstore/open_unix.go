//go:build unix

package boltstore

import (
	"os"
	"syscall"
)

// checkOpenFlags opens the file checkFile reads without blocking: opening a
// FIFO for reading waits for a writer. Reads of a regular file ignore the
// flag.
const checkOpenFlags = os.O_RDONLY | syscall.O_NONBLOCK
