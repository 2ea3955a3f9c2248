//go:build unix

package boltstore_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/boltstore"
)

// TestOpenNotAFile: a path that names no regular file, directly or through a
// symlink, is refused at once with state_unavailable, without blocking.
func TestOpenNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for name, target := range map[string]string{"/dev/zero": "/dev/zero", "a FIFO": fifo, "a directory": dir} {
		t.Run(name, func(t *testing.T) {
			link := filepath.Join(t.TempDir(), "steps.db")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{target, link} {
				s, err := boltstore.Open(path, nil)
				if err == nil {
					s.Close()
					t.Fatalf("Open(%s) opened", path)
				}
				if p := refusalCode(err); p != "" {
					t.Errorf("Open(%s): %s", path, p)
				}
			}
		})
	}
}

// TestCheckFileDoesNotBlock: a FIFO put in the store's place after Open's
// Stat (a race no test can time) is refused by the check's own open, which
// does not wait for a writer.
func TestCheckFileDoesNotBlock(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "steps.db")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { done <- boltstore.CheckFile(fifo) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no longer a regular file") {
			t.Errorf("CheckFile(a FIFO) = %v; want it refused as no regular file", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("CheckFile(a FIFO) blocked for a minute")
	}
}

// refusalCode is "" for a state_unavailable refusal that names the path
// as no regular file.
func refusalCode(err error) string {
	var aerr *automium.Error
	if !errors.As(err, &aerr) || aerr.Code != binding.CodeStateUnavailable || !strings.Contains(aerr.Message, "not a regular file") {
		return fmt.Sprintf("want a state_unavailable refusal saying it is not a regular file: %v", err)
	}
	return ""
}

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
