//go:build !unix

package main

import "errors"

// mkfifo: no FIFO outside Unix.
func mkfifo(string) error { return errors.ErrUnsupported }
