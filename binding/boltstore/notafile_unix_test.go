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

// TestSwappedAfterStat: a file put at the store's path after Open's Stat
// and before bbolt opens it (the hook stands in for a race no test can time)
// is checked as the file bbolt maps: a FIFO, a symlink to a FIFO, a
// directory, an empty file or a truncated copy is refused, coded, saying
// what was found, and Open does not block. An intact store swapped in opens.
func TestSwappedAfterStat(t *testing.T) {
	clean := built(t)
	tests := []struct {
		name string
		put  func(t *testing.T, path string) // what to put at path
		want string                          // "" to open
	}{
		{"a FIFO", func(t *testing.T, path string) { fifoAt(t, path) }, "no longer a regular file but a named pipe (FIFO)"},
		{"a symlink to a FIFO", func(t *testing.T, path string) {
			fifo := filepath.Join(t.TempDir(), "fifo")
			fifoAt(t, fifo)
			if err := os.Symlink(fifo, path); err != nil {
				t.Fatal(err)
			}
		}, "no longer a regular file but a named pipe (FIFO)"},
		{"a directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, "is a directory; check that the path names the store file"},
		{"an empty file", func(t *testing.T, path string) { fileAt(t, path, nil) }, "the file is empty"},
		{"a truncated copy", func(t *testing.T, path string) { fileAt(t, path, clean[:len(clean)/2]) }, "damaged"},
		{"an intact store", func(t *testing.T, path string) { fileAt(t, path, clean) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := write(t, clean)
			boltstore.SetBeforeOpen(func() {
				if err := os.Remove(path); err != nil {
					t.Error(err)
				}
				tt.put(t, path)
			})
			defer boltstore.SetBeforeOpen(nil)
			s, err := boltstore.Open(path, nil)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Open = %v", err)
				}
				s.Close()
				return
			}
			if err == nil {
				s.Close()
				t.Fatal("Open opened")
			}
			var aerr *automium.Error
			if !errors.As(err, &aerr) || aerr.Code != binding.CodeStateUnavailable || !strings.Contains(aerr.Message, tt.want) {
				t.Errorf("Open = %v; want state_unavailable saying %q", err, tt.want)
			}
		})
	}
}

func fifoAt(t *testing.T, path string) {
	t.Helper()
	if err := mkfifo(path); err != nil {
		t.Skip("no FIFOs here:", err)
	}
}

func fileAt(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
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
