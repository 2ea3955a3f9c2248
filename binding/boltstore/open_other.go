//go:build !unix

package boltstore

import "os"

// checkOpenFlags opens the file checkFile reads; only Unix has FIFOs that
// block an open.
const checkOpenFlags = os.O_RDONLY
