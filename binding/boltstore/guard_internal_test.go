package boltstore

import (
	"errors"
	"testing"
)

// TestGuard: a panic inside bbolt is a refusal, not the end of the process.
func TestGuard(t *testing.T) {
	err := guard(func() error { panic("page 7: invalid page type: 0") })
	var perr panicError
	if !errors.As(err, &perr) || perr.what != "page 7: invalid page type: 0" {
		t.Errorf("guard of a panic = %v", err)
	}
	if err := guard(func() error { return nil }); err != nil {
		t.Errorf("guard of nothing = %v", err)
	}
}
