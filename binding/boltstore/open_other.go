//go:build !unix

package boltstore

// openNonBlock is added to the flags bbolt opens the file with; only Unix
// has FIFOs that block an open.
const openNonBlock = 0
