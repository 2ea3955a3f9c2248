package boltstore_test

import (
	"encoding/binary"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/boltstore"
)

// TestSparseFileClaimsHugePage: a store file extended to 1 TiB (or 256 MiB,
// past the bound on one page, cheap to run without it) without
// writing it (a sparse file: a truncate costs no disk), its newest meta page
// re-checksummed to name every page of it, and one page's header claiming
// the rest as overflow pages. The damage is a few bytes; the check before
// bbolt maps the file must not read or allocate what the header claims (a
// 1 TiB buffer is a fatal out-of-memory, which no recover catches).
func TestSparseFileClaimsHugePage(t *testing.T) {
	clean := built(t)
	ps := pageSize(t, clean)
	mo := newestMeta(t, clean)
	e := binary.NativeEndian
	root := func(m []byte) uint64 { return e.Uint64(m[32:]) }
	freelist := func(m []byte) uint64 { return e.Uint64(m[48:]) }
	for _, tt := range []struct {
		name string
		size int64
		page func(meta []byte) uint64 // the page whose header lies
	}{
		{"1 TiB root page", 1 << 40, root},
		{"1 TiB freelist page", 1 << 40, freelist},
		{"256 MiB root page", 256 << 20, root},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := write(t, clean)
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(tt.size); err != nil {
				t.Skipf("the file system cannot hold a sparse file: %v", err)
			}
			pages := uint64(tt.size / int64(ps))
			meta := clean[mo : mo+80 : mo+80]
			meta = append([]byte(nil), meta...)
			id := tt.page(meta)
			if id == ^uint64(0) {
				t.Skip("the store has no freelist page")
			}
			e.PutUint64(meta[56:], pages)
			h := fnv.New64a()
			h.Write(meta[16:72])
			e.PutUint64(meta[72:], h.Sum64())
			var overflow [4]byte
			e.PutUint32(overflow[:], uint32(min(pages-id-1, 1<<32-1)))
			for _, w := range []struct {
				b   []byte
				off int64
			}{{meta, int64(mo)}, {overflow[:], int64(id)*int64(ps) + 12}} {
				if _, err := f.WriteAt(w.b, w.off); err != nil {
					t.Fatal(err)
				}
			}
			if p := judge(path); p != "" {
				t.Fatal(p)
			}
			_, err = boltstore.Open(path, nil)
			if err == nil || !strings.Contains(err.Error(), "overflow") {
				t.Errorf("Open: %v, want a refusal that names the page's overflow", err)
			}
		})
	}
}

// TestHardLinkSharesTheLock: a hard link is another path to the same file,
// and bbolt's lock is on the file, not the path: a store opened through
// one link cannot be opened through the other at once (as two brokers in
// two processes could otherwise each hold the run's position).
func TestHardLinkSharesTheLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "steps.db")
	s := create(t, path)
	defer s.Close()
	link := filepath.Join(dir, "link.db")
	if err := os.Link(path, link); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	other, err := boltstore.Open(link, &boltstore.Options{LockTimeout: 50 * time.Millisecond})
	if err == nil {
		other.Close()
		t.Fatal("Open through a hard link succeeded while the store is open")
	}
	if p := codeOf(err); p != binding.CodeStateUnavailable || !strings.Contains(err.Error(), "lock") {
		t.Errorf("Open through a hard link: %v, want a state_unavailable lock refusal", err)
	}
}
