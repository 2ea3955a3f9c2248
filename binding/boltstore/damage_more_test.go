package boltstore_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/automium/automium/binding/boltstore"
)

// history writes truth into a new store, step by step as brokers would, and
// returns the file's bytes after every step: the older, intact states a
// damage can put back in part.
func history(t *testing.T) [][]byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "steps.db")
	s := create(t, path)
	defer s.Close()
	var out [][]byte
	for _, run := range []string{"run-1", "run-2", "run-3", "run-1", "run-3", "run-1"} {
		p, err := s.Position(run)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := s.Advance(run, p, truth[run].PlanID); !ok || err != nil {
			t.Fatalf("Advance(%s) = %v, %v", run, ok, err)
		}
		d, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

// TestDamageRearranged: damage no earlier test lists, each a whole page or
// more: two pages swapped, a page copied over another, a data page of an
// older state of the same file put back (the records and the manifest of
// that state, consistent with each other: found by the manifest's
// transaction), the file extended with garbage. Each is refused or harmless,
// never a crash, never a consumed step authorized again (judge).
func TestDamageRearranged(t *testing.T) {
	states := history(t)
	clean := states[len(states)-1]
	ps := pageSize(t, clean)
	pages := len(clean) / ps
	page := func(d []byte, i int) []byte { return d[i*ps : (i+1)*ps] }
	tests := map[string]func() [][]byte{
		"two pages swapped": func() [][]byte {
			var out [][]byte
			for i := 0; i < pages; i++ {
				for j := i + 1; j < pages; j++ {
					c := bytes.Clone(clean)
					copy(page(c, i), page(clean, j))
					copy(page(c, j), page(clean, i))
					out = append(out, c)
				}
			}
			return out
		},
		"a page copied over another": func() [][]byte {
			var out [][]byte
			for i := 0; i < pages; i++ {
				for j := 0; j < pages; j++ {
					if i != j && !bytes.Equal(page(clean, i), page(clean, j)) {
						c := bytes.Clone(clean)
						copy(page(c, j), page(clean, i))
						out = append(out, c)
					}
				}
			}
			return out
		},
		"a page of an older state put back": func() [][]byte {
			var out [][]byte
			for _, old := range states[:len(states)-1] {
				for i := 2; i < min(pages, len(old)/ps); i++ {
					if !bytes.Equal(page(old, i), page(clean, i)) {
						c := bytes.Clone(clean)
						copy(page(c, i), page(old, i))
						out = append(out, c)
					}
				}
			}
			return out
		},
		"extended with garbage": func() [][]byte {
			garbage := bytes.Repeat([]byte{0xa5, 0x5a, 0x00, 0xff}, ps)
			return [][]byte{
				append(bytes.Clone(clean), garbage[:ps]...),
				append(bytes.Clone(clean), garbage...),
				append(bytes.Clone(clean), garbage[:ps/2]...),
				append(bytes.Clone(clean), make([]byte, 3*ps)...),
				append(bytes.Clone(clean), page(clean, 0)...),
				append(append(bytes.Clone(clean), page(clean, 0)...), page(clean, 1)...),
			}
		},
	}
	// An older meta page put back is an older state of the whole store,
	// intact (bbolt's pages are copy-on-write): the file cannot tell it from
	// the store one transaction earlier. The runtime's own count of steps
	// (MinSteps) can, and Open refuses it.
	t.Run("a meta page of an older state put back", func(t *testing.T) {
		n := 0
		for _, old := range states[:len(states)-1] {
			for i := range 2 {
				if bytes.Equal(page(old, i), page(clean, i)) {
					continue
				}
				c := bytes.Clone(clean)
				copy(page(c, i), page(old, i))
				n++
				path := write(t, c)
				s, err := boltstore.Open(path, &boltstore.Options{MinSteps: uint64(len(states))})
				if err != nil {
					if p := refusal(err); p != "" {
						t.Error(p)
					}
					continue
				}
				// Opened: the older meta page is not the one bbolt reads,
				// so nothing was rolled back.
				s.Close()
				if p := judge(path); p != "" {
					t.Errorf("meta page %d of an older state put back, opened with MinSteps %d: %s", i, len(states), p)
				}
			}
		}
		if n == 0 {
			t.Fatal("no meta page differs from an older state's")
		}
	})
	for name, damage := range tests {
		t.Run(name, func(t *testing.T) {
			copies := damage()
			if len(copies) == 0 {
				t.Fatal("the damage found nothing to damage")
			}
			for i, c := range copies {
				if p := judge(write(t, c)); p != "" {
					t.Errorf("copy %d of %d: %s", i+1, len(copies), p)
				}
			}
		})
	}
}

// TestStaleManifestRefused: a manifest that names an earlier transaction
// than the file's last (a leaf page of an older state put back, its records
// and counts agreeing) is refused at the next read, at the next write and at
// Open, saying part of the file is an older copy.
func TestStaleManifestRefused(t *testing.T) {
	path := write(t, built(t))
	s := open(t, path)
	if err := boltstore.Stale(s); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Position("run-1"); err == nil || refusal(err) != "" || !strings.Contains(err.Error(), "older copy") {
		t.Errorf("Position over a stale manifest = %v; want it refused as an older copy", err)
	}
	if ok, err := s.Advance("run-1", truth["run-1"], truth["run-1"].PlanID); ok || err == nil || !strings.Contains(err.Error(), "older copy") {
		t.Errorf("Advance over a stale manifest = %v, %v; want it refused as an older copy", ok, err)
	}
	s.Close()
	if s, err := boltstore.Open(path, nil); err == nil {
		s.Close()
		t.Fatal("a store with a stale manifest opened")
	} else if p := refusal(err); p != "" || !strings.Contains(err.Error(), "older copy") {
		t.Errorf("Open = %v; want it refused as an older copy", err)
	}
}
