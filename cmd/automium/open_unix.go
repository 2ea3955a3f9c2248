//go:build unix

package main

import (
	"os"
	"syscall"
)

// openFlags opens without blocking: opening a FIFO for reading waits for a
// writer, so a FIFO swapped in after the Stat would hang the command before
// the file is seen not to be regular. Reads of a regular file ignore the flag.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
