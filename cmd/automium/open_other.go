//go:build !unix

package main

import "os"

// openFlags: outside Unix there is no FIFO to open without blocking; the
// Stat before the open refuses anything but a regular file.
const openFlags = os.O_RDONLY
