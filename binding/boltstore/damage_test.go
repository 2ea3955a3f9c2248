package boltstore_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/boltstore"
	"github.com/automium/automium/binding/steptest"
	bolt "go.etcd.io/bbolt"
)

// truth is what the damage tests' store holds: run-1 three steps into plan
// A (the issue's store), run-2 one step into plan B, run-3 two into plan A.
var truth = map[string]binding.Position{
	"run-1": {PlanID: steptest.PlanA, Next: 3},
	"run-2": {PlanID: steptest.PlanB, Next: 1},
	"run-3": {PlanID: steptest.PlanA, Next: 2},
}

// built writes truth into a new store, step by step as brokers would, and
// returns the file's bytes.
func built(t *testing.T) []byte {
	t.Helper()
	states := history(t)
	return states[len(states)-1]
}

// judge opens the store at path, as a fresh process would, and returns what
// is wrong with how it handled the damage: "" when it refused with
// state_unavailable (at Open or at a read), or answered every run's true
// position and refused every consumed step. A panic is caught and reported.
func judge(path string) (problem string) {
	return judgeWith(path, truth, nil)
}

// judgeWith is judge for a store whose truth is the given positions,
// opened with opts (its LockTimeout set).
func judgeWith(path string, truth map[string]binding.Position, opts *boltstore.Options) (problem string) {
	defer func() {
		if r := recover(); r != nil {
			problem = fmt.Sprintf("panicked: %v", r)
		}
	}()
	o := boltstore.Options{}
	if opts != nil {
		o = *opts
	}
	o.LockTimeout = 5e9
	s, err := boltstore.Open(path, &o)
	if err != nil {
		return refusal(err)
	}
	defer s.Close()
	for _, run := range slices.Sorted(maps.Keys(truth)) {
		want := truth[run]
		got, err := s.Position(run)
		if err != nil {
			if p := refusal(err); p != "" {
				return p
			}
		} else if got != want {
			return fmt.Sprintf("Position(%s) = %+v, want %+v", run, got, want)
		}
		for k := range want.Next {
			from := binding.Position{PlanID: want.PlanID, Next: k}
			if k == 0 {
				from = binding.Position{}
			}
			ok, err := s.Advance(run, from, want.PlanID)
			if ok {
				return fmt.Sprintf("consumed step %d of %s authorized again", k, run)
			}
			if err != nil {
				if p := refusal(err); p != "" {
					return p
				}
			}
		}
	}
	return ""
}

// refusal is "" for a state_unavailable *automium.Error that says what to
// do, and what is wrong otherwise.
func refusal(err error) string {
	var aerr *automium.Error
	switch {
	case !errors.As(err, &aerr):
		return fmt.Sprintf("uncoded error: %v", err)
	case aerr.Code != binding.CodeStateUnavailable:
		return fmt.Sprintf("code %s, want %s: %v", aerr.Code, binding.CodeStateUnavailable, err)
	case !strings.Contains(aerr.Message, "damaged") && !strings.Contains(aerr.Message, "fewer than") && !strings.Contains(aerr.Message, "Options.StoreID"):
		return fmt.Sprintf("the refusal does not say the store is damaged: %v", err)
	}
	return ""
}

func write(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "steps.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// pageSize is the page size the store was written with (its meta page 0).
func pageSize(t *testing.T, data []byte) int {
	t.Helper()
	ps := int(data[24]) | int(data[25])<<8 | int(data[26])<<16 | int(data[27])<<24
	if ps < 512 || len(data)%ps != 0 {
		t.Fatalf("page size %d of a %d-byte file", ps, len(data))
	}
	return ps
}

// newestMeta is the offset of the meta page bbolt reads: the one with the
// higher transaction ID.
func newestMeta(t *testing.T, data []byte) int {
	ps := pageSize(t, data)
	txid := func(off int) uint64 {
		var v uint64
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(data[off+64+i])
		}
		return v
	}
	if txid(ps) > txid(0) {
		return ps
	}
	return 0
}

// TestDamageNamedInTheIssue: each damage the audit found to fail open, or to
// crash the process, is refused.
func TestDamageNamedInTheIssue(t *testing.T) {
	clean := built(t)
	if p := judge(write(t, clean)); p != "" {
		t.Fatalf("the undamaged store: %s", p)
	}
	ps := pageSize(t, clean)
	flip := func(pattern string, bit byte, at int) func([]byte) [][]byte {
		// Every occurrence, one copy each: the live record is one of them.
		return func(d []byte) [][]byte {
			var out [][]byte
			for i := 0; ; {
				j := bytes.Index(d[i:], []byte(pattern))
				if j < 0 {
					return out
				}
				c := bytes.Clone(d)
				c[i+j+at] ^= bit
				out = append(out, c)
				i += j + 1
			}
		}
	}
	one := func(f func([]byte) []byte) func([]byte) [][]byte {
		return func(d []byte) [][]byte { return [][]byte{f(bytes.Clone(d))} }
	}
	tests := map[string]func([]byte) [][]byte{
		"truncated to 0 bytes":         one(func(d []byte) []byte { return d[:0] }),
		"truncated to its meta pages":  one(func(d []byte) []byte { return d[:2*ps] }),
		"truncated to half":            one(func(d []byte) []byte { return d[:len(d)/2] }),
		"truncated by one byte":        one(func(d []byte) []byte { return d[:len(d)-1] }),
		"newest meta page corrupted":   one(func(d []byte) []byte { d[newestMeta(t, d)+40] ^= 0x01; return d }),
		"both meta pages corrupted":    one(func(d []byte) []byte { d[40] ^= 1; d[ps+40] ^= 1; return d }),
		"position 3 flipped to 1":      flip(`"next":3`, 0x02, 7),
		"one bit of the run-ID key":    flip("run-1", 0x01, 4),
		"one bit of the plan":          flip("sha256:aaaa", 0x01, 9),
		"one bit of a record checksum": flip(`"sum":"sha256:`, 0x01, 16),
		"one bit of the manifest":      flip(`"runs":3`, 0x01, 7),
		"a value that is not JSON":     flip(`{"next":3`, 0x20, 0),
		"every page zeroed in turn": func(d []byte) [][]byte {
			var out [][]byte
			for p := 2; p < len(d)/ps; p++ {
				c := bytes.Clone(d)
				clear(c[p*ps : (p+1)*ps])
				out = append(out, c)
			}
			return out
		},
		"the file replaced by a new store": func([]byte) [][]byte {
			path := filepath.Join(t.TempDir(), "fresh.db")
			create(t, path).Close()
			d, _ := os.ReadFile(path)
			return [][]byte{d}
		},
	}
	for name, damage := range tests {
		t.Run(name, func(t *testing.T) {
			copies := damage(clean)
			if len(copies) == 0 {
				t.Fatal("the damage found nothing to damage")
			}
			for i, c := range copies {
				if name == "the file replaced by a new store" {
					// A new, intact store forgets everything: only the
					// runtime's own count (MinSteps) can tell.
					s, err := boltstore.Open(write(t, c), &boltstore.Options{MinSteps: 6})
					if err == nil {
						s.Close()
						t.Errorf("a new store opened with MinSteps 6")
					} else if p := refusal(err); p != "" {
						t.Error(p)
					}
					continue
				}
				if p := judge(write(t, c)); p != "" {
					t.Errorf("copy %d of %d: %s", i+1, len(copies), p)
				}
			}
		})
	}
}

// allDamage runs every single-byte flip, not a sample: about a minute.
var allDamage = flag.Bool("damage", false, "flip every byte of the store, not a sample")

// TestEveryByteFlipAndTruncation: single-byte flips of the store, and every
// truncation point on a 64-byte grid (page boundaries among them), are each
// refused or harmless, and none crashes the process. Every byte with
// -damage (.ci/run does, about two minutes), one in 29 by default, one in
// 97 with -short. Each damaged copy is a file of its own.
func TestEveryByteFlipAndTruncation(t *testing.T) {
	clean := built(t)
	stride := 29
	switch {
	case *allDamage:
		stride = 1
	case testing.Short():
		stride = 97
	}
	dir := t.TempDir()
	try := func(what string, data []byte) {
		path := filepath.Join(dir, "steps.db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if p := judge(path); p != "" {
			t.Errorf("%s: %s", what, p)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
	}
	c := bytes.Clone(clean)
	for i := 0; i < len(clean); i += stride {
		// A different bit pattern per offset, so that flag fields, counts
		// and pointers see both small and large changes.
		c[i] ^= byte(1<<(i%8)) | byte(0x80>>(i%5))
		try(fmt.Sprintf("byte %d flipped", i), c)
		c[i] = clean[i]
	}
	for n := 0; n < len(clean); n += 64 {
		try(fmt.Sprintf("truncated to %d bytes", n), clean[:n])
	}
}

// TestDamageAfterOpen: a record damaged while the store is open (a disk
// that returns other bytes) is found at the next read of it, as
// state_unavailable from the broker, and never read as step 0.
func TestDamageAfterOpen(t *testing.T) {
	path := write(t, built(t))
	s := open(t, path)
	defer s.Close()
	// Another handle cannot write while s holds the lock; reach the
	// record through s's own bbolt handle, as damage on disk would.
	if err := boltstore.Poke(s, "run-1", []byte(`{"next":1,"planId":"`+steptest.PlanA+`","sum":"sha256:00"}`)); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Position("run-1"); err == nil {
		t.Fatalf("Position of a damaged record = %+v, no error", p)
	} else if p := refusal(err); p != "" {
		t.Error(p)
	}
	if ok, err := s.Advance("run-1", binding.Position{}, steptest.PlanA); ok || err == nil {
		t.Errorf("Advance over a damaged record = %v, %v", ok, err)
	}
}

// TestOpenRefusals: Open never creates, and says why it refuses.
func TestOpenRefusals(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	if _, err := boltstore.Open(missing, nil); err == nil || !strings.Contains(err.Error(), "no step store") {
		t.Errorf("Open of a missing file = %v", err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("Open created the missing file")
	}
	if _, err := boltstore.Open(dir, nil); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Open of a directory = %v", err)
	}
	existing := write(t, built(t))
	if _, err := boltstore.Create(existing, nil); err == nil || !strings.Contains(err.Error(), "already there") {
		t.Errorf("Create over an existing store = %v", err)
	}
	if p := judge(existing); p != "" {
		t.Errorf("a refused Create changed the store: %s", p)
	}
	// A bbolt file that is not a step store (no manifest).
	other := filepath.Join(dir, "other.db")
	db, err := bolt.Open(other, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := boltstore.Open(other, nil); err == nil || refusal(err) != "" {
		t.Errorf("Open of a bbolt file that is no step store = %v", err)
	}
	for _, opts := range []*boltstore.Options{{LockTimeout: -1}, {Key: []byte("short")}, {Key: bytes.Repeat([]byte{1}, boltstore.MinKeyBytes-1)}} {
		if _, err := boltstore.Open(existing, opts); err == nil || codeOf(err) != binding.CodeInvalidGrant {
			t.Errorf("Open with %+v = %v, want invalid_grant", opts, err)
		}
	}
}

// TestKeyedRecords: a store created with a key opens only with it: a party
// without the key cannot write a record it accepts.
func TestKeyedRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "steps.db")
	key := bytes.Repeat([]byte{7}, 32)
	s, err := boltstore.Create(path, &boltstore.Options{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Advance("run-1", binding.Position{}, steptest.PlanA); !ok || err != nil {
		t.Fatal(ok, err)
	}
	s.Close()
	for _, opts := range []*boltstore.Options{nil, {Key: bytes.Repeat([]byte{8}, 32)}} {
		if s, err := boltstore.Open(path, opts); err == nil {
			s.Close()
			t.Errorf("Open with key %v succeeded", opts)
		} else if p := refusal(err); p != "" {
			t.Error(p)
		}
	}
	s, err = boltstore.Open(path, &boltstore.Options{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := s.Steps(); n != 1 || err != nil {
		t.Errorf("Steps = %d, %v", n, err)
	}
}

func codeOf(err error) automium.Code {
	var aerr *automium.Error
	if errors.As(err, &aerr) {
		return aerr.Code
	}
	return ""
}

// TestDroppedRecordRefused: a run's record lost while the rest of the file
// is intact (its manifest still counts it) is refused at the next Open: the
// run would otherwise read as step 0, every consumed step usable again.
func TestDroppedRecordRefused(t *testing.T) {
	path := write(t, built(t))
	s := open(t, path)
	if err := boltstore.Drop(s, "run-1"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if s, err := boltstore.Open(path, nil); err == nil {
		s.Close()
		t.Fatal("a store missing a record opened")
	} else if p := refusal(err); p != "" {
		t.Error(p)
	}
}
