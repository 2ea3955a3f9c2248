package boltstore_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/boltstore"
	"github.com/automium/automium/binding/steptest"
)

// another builds a store of its own (its own ID) that advanced runs, in
// order, and returns its bytes and what it holds.
func another(t *testing.T, runs ...string) ([]byte, map[string]binding.Position) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "other.db")
	s := create(t, path)
	holds := map[string]binding.Position{}
	for _, run := range runs {
		p := holds[run]
		if ok, err := s.Advance(run, p, steptest.PlanB); !ok || err != nil {
			t.Fatalf("Advance(%s) = %v, %v", run, ok, err)
		}
		holds[run] = binding.Position{PlanID: steptest.PlanB, Next: p.Next + 1}
	}
	s.Close()
	d, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return d, holds
}

// idAndSteps opens the store at path and returns its ID and steps.
func idAndSteps(t *testing.T, path string) (string, uint64) {
	t.Helper()
	s := open(t, path)
	defer s.Close()
	n, err := s.Steps()
	if err != nil {
		t.Fatal(err)
	}
	return s.ID(), n
}

// TestAnotherStoreCopiedIn: another store's intact file put in place of
// this one. Options.MinSteps refuses it only when it recorded fewer steps;
// Options.StoreID refuses it whatever it holds, and names both IDs.
func TestAnotherStoreCopiedIn(t *testing.T) {
	mine := built(t)
	path := write(t, mine)
	id, steps := idAndSteps(t, path)
	fewer, _ := another(t, "run-9")
	more, _ := another(t, "run-1", "run-1", "run-1", "run-1", "run-1", "run-1", "run-1", "run-2")
	for _, tt := range []struct {
		name   string
		file   []byte
		opts   boltstore.Options
		opens  bool
		saying string
	}{
		{"this store, both checks", mine, boltstore.Options{MinSteps: steps, StoreID: id}, true, ""},
		{"fewer steps, MinSteps", fewer, boltstore.Options{MinSteps: steps}, false, "fewer than"},
		{"more steps, MinSteps alone cannot tell", more, boltstore.Options{MinSteps: steps}, true, ""},
		{"fewer steps, StoreID", fewer, boltstore.Options{StoreID: id}, false, "not the expected " + id},
		{"more steps, StoreID", more, boltstore.Options{MinSteps: steps, StoreID: id}, false, "not the expected " + id},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, tt.file)
			s, err := boltstore.Open(p, &tt.opts)
			if tt.opens {
				if err != nil {
					t.Fatalf("Open = %v", err)
				}
				s.Close()
				return
			}
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if pr := refusal(err); pr != "" || !strings.Contains(err.Error(), tt.saying) {
				t.Errorf("Open = %v, want state_unavailable saying %q %s", err, tt.saying, pr)
			}
		})
	}
	if _, err := boltstore.Open(path, &boltstore.Options{StoreID: "not-an-id"}); codeOf(err) != binding.CodeInvalidGrant {
		t.Errorf("Open with a malformed StoreID = %v, want invalid_grant", err)
	}
}

// manifestAt returns where the manifest's JSON starts in a store's bytes.
func manifestAt(t *testing.T, data []byte) (int, int) {
	t.Helper()
	i := bytes.LastIndex(data, []byte(`{"tx":`))
	if i < 0 {
		t.Fatal("no manifest in the file")
	}
	n := bytes.IndexByte(data[i:], '}')
	return i, i + n + 1
}

// TestManifestOfAnotherStore: the manifest of another store that recorded
// the same history (so the same counts, the same transaction, the same
// length) written over this store's manifest in its page, the way damage
// on disk would: bbolt cannot see it. The record checksums cover the store
// ID, so the records no longer match. And this store's records under the
// other store's manifest likewise.
func TestManifestOfAnotherStore(t *testing.T) {
	states := history(t)
	mine := states[len(states)-1]
	others := history(t)
	theirs := others[len(others)-1]
	i, j := manifestAt(t, mine)
	k, l := manifestAt(t, theirs)
	if j-i != l-k || bytes.Equal(mine[i:j], theirs[k:l]) {
		t.Fatalf("the two manifests are %q and %q: want the same length, other bytes", mine[i:j], theirs[k:l])
	}
	c := bytes.Clone(mine)
	copy(c[i:j], theirs[k:l])
	if p := judge(write(t, c)); p != "" {
		t.Errorf("this store with another's manifest: %s", p)
	}
	c = bytes.Clone(theirs)
	copy(c[k:l], mine[i:j])
	if p := judge(write(t, c)); p != "" {
		t.Errorf("another store with this one's manifest: %s", p)
	}
}

// TestPagesOfTwoStoresInterleaved: a file made of the pages of two stores,
// one of the same history (the same layout, other IDs and checksums) and
// one of another: each page of this store replaced by the other's, and the
// two alternating page by page. Each is refused or harmless.
//
// A page put back can make bbolt read an older, intact state of this store
// (its pages are copy-on-write, and two stores of the same history
// allocate alike): only the runtime's MinSteps tells that from the
// current state, so each file is judged as Open with MinSteps and StoreID
// sees it.
func TestPagesOfTwoStoresInterleaved(t *testing.T) {
	mine := built(t)
	ps := pageSize(t, mine)
	id, steps := idAndSteps(t, write(t, mine))
	judge := func(path string) string {
		return judgeWith(path, truth, &boltstore.Options{MinSteps: steps, StoreID: id})
	}
	same := history(t)
	other, _ := another(t, "run-1", "run-2", "run-4", "run-1")
	for name, theirs := range map[string][]byte{"the same history": same[len(same)-1], "another history": other} {
		n := min(len(mine), len(theirs)) / ps
		for i := range n {
			c := bytes.Clone(mine)
			copy(c[i*ps:(i+1)*ps], theirs[i*ps:(i+1)*ps])
			if p := judge(write(t, c)); p != "" {
				t.Errorf("%s, page %d: %s", name, i, p)
			}
		}
		for first := range 2 {
			c := bytes.Clone(mine)
			for i := first; i < n; i += 2 {
				copy(c[i*ps:(i+1)*ps], theirs[i*ps:(i+1)*ps])
			}
			if p := judge(write(t, c)); p != "" {
				t.Errorf("%s, every other page from %d: %s", name, first, p)
			}
		}
	}
}

// TestMetaPageOfAnotherStore: the newest meta page replaced by the meta
// page of a store with fewer transactions. bbolt would read the other meta
// page, one transaction older: the file alone refuses it, since bbolt's two
// meta pages always name two consecutive transactions, each on its page.
func TestMetaPageOfAnotherStore(t *testing.T) {
	mine := built(t)
	ps := pageSize(t, mine)
	theirs, _ := another(t, "run-9")
	m := newestMeta(t, mine)
	c := bytes.Clone(mine)
	copy(c[m:m+ps], theirs[m:m+ps])
	path := write(t, c)
	if p := judgeWith(path, truth, nil); p != "" {
		t.Errorf("the newest meta page from another store: %s", p)
	}
	if _, err := boltstore.Open(path, nil); err == nil || !strings.Contains(err.Error(), "not two consecutive ones") {
		t.Errorf("Open = %v, want a refusal naming the meta pages' transactions", err)
	}
}

// TestOtherPageSizes: the same store written with another page size opens
// and holds the truth; a file whose meta pages come from stores of two
// page sizes is refused; and each such store truncated at every page
// boundary, and flipped at seeded bits, is refused or harmless.
func TestOtherPageSizes(t *testing.T) {
	src := open(t, write(t, built(t)))
	defer src.Close()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(40, 2))
	for _, ps := range []int{1024, 16384, 65536} {
		path := filepath.Join(dir, fmt.Sprintf("ps%d.db", ps))
		if err := boltstore.CopyWithPageSize(src, path, ps); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := pageSize(t, data); got != ps {
			t.Fatalf("page size %d, want %d", got, ps)
		}
		if p := judge(path); p != "" {
			t.Errorf("page size %d, intact: %s", ps, p)
		}
		mixed := bytes.Clone(data)
		copy(mixed[:ps], built(t)[:min(ps, 4096)])
		if p := judge(write(t, mixed)); p != "" {
			t.Errorf("page size %d, meta page 0 of a 4096-byte-page store: %s", ps, p)
		}
		for n := 0; n < len(data); n += ps {
			if p := judge(write(t, data[:n])); p != "" {
				t.Errorf("page size %d, truncated to %d pages: %s", ps, n/ps, p)
			}
		}
		for range 64 {
			c := bytes.Clone(data)
			i := rng.IntN(len(c))
			c[i] ^= 1 << rng.IntN(8)
			if p := judge(write(t, c)); p != "" {
				t.Errorf("page size %d, a bit of byte %d flipped: %s", ps, i, p)
			}
		}
	}
}

// TestSeededTruncationsAndBitFlips: the store truncated at every page
// boundary and at 256 seeded offsets, and one seeded bit flipped in every
// byte of the pages the store uses (up to its high-water mark; the rest of
// the file is never read): with -damage (.ci/run), about a minute; one byte
// in 7 by default; with -short, 64 offsets and one byte in 101. Every byte
// of the two meta pages' fields is flipped in each mode. Each is refused
// or harmless, never a crash. The seed is fixed: a failure names its
// offset and bit, and runs again the same.
func TestSeededTruncationsAndBitFlips(t *testing.T) {
	clean := built(t)
	ps := pageSize(t, clean)
	rng := rand.New(rand.NewPCG(40, 1))
	path := filepath.Join(t.TempDir(), "steps.db")
	try := func(what string, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if p := judge(path); p != "" {
			t.Errorf("%s: %s", what, p)
		}
	}
	for n := 0; n <= len(clean); n += ps {
		try(fmt.Sprintf("truncated to %d pages", n/ps), clean[:n])
	}
	truncations, stride := 256, 7
	switch {
	case *allDamage:
		stride = 1
	case testing.Short():
		truncations, stride = 64, 101
	}
	for range truncations {
		n := rng.IntN(len(clean))
		try(fmt.Sprintf("truncated to %d bytes", n), clean[:n])
	}
	used := int(highWater(clean)) * ps
	c := bytes.Clone(clean)
	for i := 0; i < used; i++ {
		// The meta pages' fields (their first 80 bytes) name the tree bbolt
		// reads: a flip there that goes unseen rolls the store back. They
		// are flipped whatever the stride; one byte in 101 missed them all.
		if i%stride != 0 && (i >= 2*ps || i%ps >= 80) {
			continue
		}
		bit := rand.New(rand.NewPCG(40, uint64(i))).IntN(8) // per byte: any byte's flip runs alone the same
		c[i] ^= 1 << bit
		try(fmt.Sprintf("bit %d of byte %d flipped", bit, i), c[:used])
		c[i] = clean[i]
	}
}

// highWater is the number of pages the newest meta page says the store
// uses.
func highWater(data []byte) uint64 {
	le := func(off int) uint64 {
		var v uint64
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(data[off+i])
		}
		return v
	}
	ps := int(le(24) & 0xFFFFFFFF)
	m := 0
	if le(ps+64) > le(64) {
		m = ps
	}
	return le(m + 56)
}

// TestNoLockLeftBehind: a freelist page whose kind holds one bit more
// than bbolt's exact kind is refused before bbolt maps the file (bbolt
// panics on it after mapping, and its mapping would keep the file's lock
// until the process ends): the same file, mended, opens at once in the
// same process.
func TestNoLockLeftBehind(t *testing.T) {
	clean := built(t)
	ps := pageSize(t, clean)
	le := func(b []byte) uint64 {
		var v uint64
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v
	}
	m := 0
	if le(clean[ps+64:]) > le(clean[64:]) {
		m = ps
	}
	free := int(le(clean[m+48:]))
	for _, bit := range []byte{0x01, 0x02, 0x04, 0x20} {
		c := bytes.Clone(clean)
		c[free*ps+8] |= bit
		path := write(t, c)
		if s, err := boltstore.Open(path, &boltstore.Options{LockTimeout: 1e6}); err == nil {
			s.Close()
			t.Errorf("flags %#x more: a freelist page of another kind opened", bit)
		} else if p := refusal(err); p != "" {
			t.Errorf("flags %#x more: %s", bit, p)
		}
		if err := os.WriteFile(path, clean, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := boltstore.Open(path, &boltstore.Options{LockTimeout: 1e6})
		if err != nil {
			t.Fatalf("flags %#x more, then mended: %v (the refused Open left its lock)", bit, err)
		}
		s.Close()
	}
}
