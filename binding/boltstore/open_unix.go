//go:build unix

package boltstore

import "syscall"

// openNonBlock is added to the flags bbolt opens the file with: opening a
// FIFO waits for its other end, and POSIX leaves O_RDWR on a FIFO undefined.
// Reads and writes of a regular file ignore it.
const openNonBlock = syscall.O_NONBLOCK
