// Package boltstore is a durable [binding.StepStore]: each run's [binding.Position]
// kept in one file, an embedded bbolt database (go.etcd.io/bbolt, pure Go), so
// that a broker started again on the same file refuses every step an earlier
// broker consumed.
//
// It is a package of its own so that nothing that does not ask for it links a
// database or touches a file: neither the root package nor the automium-mcp
// server imports it (TestNotLinkedByTheServer proves it with go list -deps).
//
// # Durability
//
// [Store.Advance] is one bbolt read-write transaction: it reads the run's
// position and, only if it is still the expected one, writes the next, then
// commits, and bbolt's commit writes and fsyncs the data pages and then the
// meta page that makes them current. Advance returns true only after that
// commit returned, so a step the broker authorized, and so may have
// dispatched, is on disk; a process killed before the commit leaves the step
// unused (nothing was sent, since the broker sends only after Advance
// returns). TestCrash kills a real child process at each of those points.
//
// # One process at a time
//
// bbolt locks the file for the process that opened it: brokers of one run in
// several processes cannot share one file at once; [Open] waits up to
// Options.LockTimeout for the lock and then fails. Within one process, one
// Store may serve any number of brokers and goroutines: bbolt serializes
// read-write transactions, and Advance's compare-and-swap runs inside one.
package boltstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/automium/automium/binding"
	bolt "go.etcd.io/bbolt"
)

// Options configures [Open]. A nil *Options means the defaults.
type Options struct {
	// LockTimeout is how long Open waits for another process to release the
	// file. Default: 1 second. It must be positive: bbolt would wait forever
	// on zero.
	LockTimeout time.Duration
}

// bucket holds one key per run: the run ID, and its position as
// {"next": n, "planId": "sha256:..."}.
var bucket = []byte("automium/step-positions-v1")

// MaxRunIDBytes bounds a run ID as a key (bbolt's limit is 32 KiB).
const MaxRunIDBytes = 1024

// Store is a [binding.StepStore] in a bbolt file. It is safe for concurrent use.
type Store struct{ db *bolt.DB }

var _ binding.StepStore = (*Store)(nil)

// Open opens, or creates with mode 0600, the store at path.
func Open(path string, opts *Options) (*Store, error) {
	timeout := time.Second
	if opts != nil && opts.LockTimeout > 0 {
		timeout = opts.LockTimeout
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout})
	if err != nil {
		return nil, fmt.Errorf("boltstore: open %s: %w (another process may hold the file)", path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("boltstore: %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// Close closes the file; the store cannot be used afterwards.
func (s *Store) Close() error { return s.db.Close() }

// position is a Position as stored.
type position struct {
	Next   int    `json:"next"`
	PlanID string `json:"planId"`
}

func key(runID string) ([]byte, error) {
	if runID == "" || len(runID) > MaxRunIDBytes {
		return nil, fmt.Errorf("boltstore: a run ID is 1 to %d bytes, got %d", MaxRunIDBytes, len(runID))
	}
	return []byte(runID), nil
}

// read returns the run's position in tx; a run never seen is at step 0 of no
// plan. A value that does not parse is an error, never step 0: reading it as
// step 0 would make every consumed step of the run usable again.
func read(tx *bolt.Tx, k []byte) (binding.Position, error) {
	b := tx.Bucket(bucket)
	if b == nil {
		return binding.Position{}, errors.New("boltstore: the file has no step bucket")
	}
	v := b.Get(k)
	if v == nil {
		return binding.Position{}, nil
	}
	var p position
	if err := json.Unmarshal(v, &p); err != nil || p.Next < 1 || !binding.IsDigest(p.PlanID) {
		return binding.Position{}, fmt.Errorf("boltstore: the stored position of run %q is damaged; refusing to guess it", k)
	}
	return binding.Position{PlanID: p.PlanID, Next: p.Next}, nil
}

// Position implements [binding.StepStore].
func (s *Store) Position(runID string) (binding.Position, error) {
	k, err := key(runID)
	if err != nil {
		return binding.Position{}, err
	}
	var p binding.Position
	err = s.db.View(func(tx *bolt.Tx) error {
		var err error
		p, err = read(tx, k)
		return err
	})
	return p, err
}

// Advance implements [binding.StepStore]: a compare-and-swap in one
// transaction, committed to disk before it returns true.
func (s *Store) Advance(runID string, from binding.Position, planID string) (bool, error) {
	k, err := key(runID)
	if err != nil {
		return false, err
	}
	if !binding.IsDigest(planID) {
		return false, fmt.Errorf("boltstore: a plan ID is a digest, got %q", planID)
	}
	advanced := false
	err = s.db.Update(func(tx *bolt.Tx) error {
		cur, err := read(tx, k)
		if err != nil {
			return err
		}
		if cur != from {
			return nil
		}
		v, err := json.Marshal(position{Next: from.Next + 1, PlanID: planID})
		if err != nil {
			return err
		}
		if err := tx.Bucket(bucket).Put(k, v); err != nil {
			return err
		}
		advanced = true
		return nil
	})
	if err != nil {
		return false, err
	}
	return advanced, nil
}
