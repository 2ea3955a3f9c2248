// Package boltstore is a durable [binding.StepStore]: each run's [binding.Position]
// kept in one file, an embedded bbolt database (go.etcd.io/bbolt, pure Go), so
// that a broker started again on the same file refuses every step an earlier
// broker consumed.
//
// It is a package of its own so that nothing that does not ask for it links a
// database or touches a file: neither the root package nor the automium-mcp
// server imports it (TestNotLinkedByTheServer proves it with go list -deps).
//
// # Creating is explicit
//
// [Create] makes a new store and refuses a path where a file exists; [Open]
// opens an existing store and refuses a path where none is, or an empty,
// truncated or damaged file. bbolt alone would initialize an empty file as a
// new database, and so make every consumed step of every run usable again: a
// store that was expected and is gone is never silently replaced by a new one.
//
// # Damage fails closed
//
// Every record carries a checksum (SHA-256, or HMAC-SHA256 with
// [Options.Key]) over the store's ID, its run ID, plan and position, checked
// on every read;
// a manifest, itself checksummed, holds how many runs the store has, the sum
// of their positions and the XOR of the records' checksums, so a record
// dropped, added or rolled back alone is found when [Open] reads every record.
// The manifest also names the transaction that wrote it, and every commit
// writes it, so a page of an older state put back is found. Before bbolt
// maps the file, Open checks the very handle bbolt opens (opened without
// blocking, and refused unless a regular file): its size against the page
// size and both meta pages' checksums and bounds (bbolt would fall back one
// transaction over a damaged newest meta page, and would read past the end
// of a truncated file); every bbolt call runs with its panics and memory
// faults recovered into a refusal. A damaged store is [binding.CodeStateUnavailable], with what
// was found and what to do. What a local file cannot prove (an older intact
// copy of the whole file put back, another store's file put in its place, or
// the file deleted) is in docs/binding.md; [Options.MinSteps] and
// [Options.StoreID] close the first two from outside the file.
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
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Options configures [Create] and [Open]. A nil *Options means the defaults.
type Options struct {
	// LockTimeout is how long Open waits for another process to release the
	// file. Default: 1 second. Zero means the default and a negative value
	// is refused: bbolt would wait forever on zero.
	LockTimeout time.Duration
	// Key, when set, makes each record's checksum an HMAC-SHA256 under it,
	// so that a party that can write the file but does not hold the key
	// cannot forge a position. At least 32 bytes. A store is opened with the
	// key it was created with; with another key, or none, every record reads
	// as damaged.
	Key []byte
	// MinSteps, when set, is the fewest steps the store must have recorded
	// in all (see [Store.Steps]): Open refuses a store below it. A runtime
	// that keeps Steps outside the file after each run, and passes it here,
	// detects an older intact copy of the file put back in place, which the
	// file alone cannot.
	MinSteps uint64
	// StoreID, when set, is the ID the store must have (see [Store.ID]):
	// Open refuses a store with another. Every store gets its own ID at
	// Create, so a runtime that keeps it outside the file, and passes it
	// here, detects another store's intact file put in place of this one,
	// which MinSteps alone does not when the other store recorded more
	// steps.
	StoreID string
}

// DefaultLockTimeout is how long Open waits for the file's lock by default.
const DefaultLockTimeout = time.Second

// MinKeyBytes is the shortest [Options.Key].
const MinKeyBytes = 32

// The store's two buckets: one key per run in records (the run ID, and its
// position as a record), and the manifest in meta.
var (
	recordsBucket = []byte("automium/step-positions-v3")
	metaBucket    = []byte("automium/step-store-v3")
	manifestKey   = []byte("manifest")
)

// MaxRunIDBytes bounds a run ID as a key (bbolt's limit is 32 KiB).
const MaxRunIDBytes = 1024

// Store is a [binding.StepStore] in a bbolt file. It is safe for concurrent use.
type Store struct {
	db   *bolt.DB
	file *os.File // the handle bbolt opened, closed directly if bbolt panicked
	path string
	key  []byte
	id   string // the store's ID, from its manifest

	mu     sync.Mutex
	broken error // set when bbolt panicked or faulted; every later call refuses
}

var _ binding.StepStore = (*Store)(nil)

// boltOptions are the options every bbolt handle of a store is opened with:
// the lock timeout, and bbolt's defaults for durability, which the store
// relies on (fsync at every commit, the freelist synced), stated rather than
// assumed. With file set (Open, an existing store), the handle bbolt opens is
// checked (checkFile) before bbolt reads it, and kept in *file.
func boltOptions(timeout time.Duration, file **os.File, check bool) *bolt.Options {
	return &bolt.Options{
		Timeout:        timeout,
		NoSync:         false,
		NoGrowSync:     false,
		NoFreelistSync: false,
		OpenFile: func(name string, flag int, mode os.FileMode) (*os.File, error) {
			// Without blocking: a FIFO put at the path would otherwise hold
			// the open until a writer came. Reads and writes of a regular
			// file ignore the flag.
			f, err := os.OpenFile(name, flag|openNonBlock, mode)
			if err != nil || file == nil {
				return f, err
			}
			if !check {
				*file = f
				return f, nil
			}
			// The check reads the very file bbolt maps, not the path again:
			// a file put at the path after Open's Stat is checked too.
			if err := checkFile(f); err != nil {
				f.Close()
				return nil, checkError{err}
			}
			// Kept, so that a panic inside bbolt's Open can close it (and
			// so release the lock).
			*file = f
			return f, nil
		},
	}
}

// checkError is checkFile's refusal, returned through bbolt's Open.
type checkError struct{ error }

func settings(opts *Options) (time.Duration, []byte, uint64, error) {
	if opts == nil {
		return DefaultLockTimeout, nil, 0, nil
	}
	if opts.StoreID != "" && !isStoreID(opts.StoreID) {
		return 0, nil, 0, invalid("the expected store ID %q is not one Store.ID returns (%d lowercase hex digits)", opts.StoreID, 2*storeIDBytes)
	}
	timeout := opts.LockTimeout
	switch {
	case timeout < 0:
		return 0, nil, 0, invalid("the lock timeout is %v; give a positive duration, or 0 for the default %v", timeout, DefaultLockTimeout)
	case timeout == 0:
		timeout = DefaultLockTimeout
	}
	if opts.Key != nil && len(opts.Key) < MinKeyBytes {
		return 0, nil, 0, invalid("the key is %d bytes; a record key is at least %d", len(opts.Key), MinKeyBytes)
	}
	return timeout, bytes.Clone(opts.Key), opts.MinSteps, nil
}

// Create makes a new, empty store at path with mode 0600. It refuses a path
// where a file already exists, whatever it holds: a store is opened with
// [Open], and a new store where one was expected would forget every step it
// recorded.
func Create(path string, opts *Options) (*Store, error) {
	timeout, key, _, err := settings(opts)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, unavailable("boltstore: cannot create a step store at %q: a file is already there; open an existing store with Open, and create a new one only at a new path", path)
		}
		return nil, unavailable("boltstore: cannot create a step store at %q: %s", path, err)
	}
	f.Close()
	var file *os.File
	db, err := bolt.Open(path, 0o600, boltOptions(timeout, &file, false))
	if err != nil {
		os.Remove(path)
		return nil, openError(path, err)
	}
	id := make([]byte, storeIDBytes)
	rand.Read(id)
	s := &Store{db: db, file: file, path: path, key: key, id: hex.EncodeToString(id)}
	if err := db.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucket(recordsBucket); err != nil {
			return err
		}
		m, err := tx.CreateBucket(metaBucket)
		if err != nil {
			return err
		}
		return m.Put(manifestKey, s.encodeManifest(manifest{Tx: uint64(tx.ID()), Store: s.id}))
	}); err != nil {
		db.Close()
		os.Remove(path)
		return nil, unavailable("boltstore: cannot initialize the step store at %q: %s", path, err)
	}
	return s, nil
}

// Open opens the existing store at path. It refuses a path where no file is
// (a deleted store is not replaced by a new one: [Create] is explicit), an
// empty or truncated file, a file whose meta pages or records are damaged,
// one written with another [Options.Key], and one that recorded fewer steps
// than [Options.MinSteps]. Every refusal is a [binding.CodeStateUnavailable]
// *automium.Error that says what was found and what to do.
func Open(path string, opts *Options) (*Store, error) {
	timeout, key, minSteps, err := settings(opts)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, unavailable("boltstore: no step store at %q; if one was there, it was deleted or moved, and the runs it held must not go on from step 0 (see docs/binding.md); make a new store with Create only for new runs", path)
	case err != nil:
		return nil, unavailable("boltstore: cannot read the step store at %q: %s; check that the path names the store file and that this process may read and write it", path, err)
	case !info.Mode().IsRegular():
		return nil, unavailable("boltstore: %q is not a regular file but a %s, so it is not a step store; give the path of the store file itself", path, kind(info.Mode()))
	}
	if beforeOpen != nil {
		beforeOpen()
	}
	var file *os.File
	var db *bolt.DB
	if err := guard(func() error {
		var err error
		db, err = bolt.Open(path, 0o600, boltOptions(timeout, &file, true))
		return err
	}); err != nil {
		var perr panicError
		if errors.As(err, &perr) {
			// bbolt panicked inside Open: its handle is lost, so close the
			// file it opened. That releases the lock only if bbolt had not
			// mapped the file yet: a mapping holds the file, and its lock,
			// until the process ends. checkFile checks what bbolt reads
			// so that bbolt does not panic here (TestNoLockLeftBehind).
			if file != nil {
				file.Close()
			}
			return nil, damaged(path, perr.Error())
		}
		var cerr checkError
		if errors.As(err, &cerr) {
			return nil, damaged(path, cerr.Error())
		}
		return nil, openError(path, err)
	}
	s := &Store{db: db, file: file, path: path, key: key}
	steps, err := s.verify()
	if err != nil {
		db.Close()
		return nil, err
	}
	if want := opts.expectedID(); want != "" && s.id != want {
		db.Close()
		return nil, unavailable("boltstore: the file at %q is step store %s, not the expected %s (Options.StoreID): another store's file was put in its place, and the runs of this one must not go on from it: find this store's own file, or end its runs and issue their plans again under new run IDs",
			path, s.id, want)
	}
	if steps < minSteps {
		db.Close()
		return nil, unavailable("boltstore: the step store at %q has recorded %d steps, fewer than the %d expected (Options.MinSteps): it is an older copy of the file, or another store; its runs must not go on from it: find the current file, or end its runs and issue their plans again under new run IDs",
			path, steps, minSteps)
	}
	return s, nil
}

// storeIDBytes is the length of a store's ID, in bytes.
const storeIDBytes = 16

func isStoreID(id string) bool {
	b, err := hex.DecodeString(id)
	return err == nil && len(b) == storeIDBytes && hex.EncodeToString(b) == id
}

func (o *Options) expectedID() string {
	if o == nil {
		return ""
	}
	return o.StoreID
}

// ID returns the store's ID: 32 lowercase hex digits, drawn at random when
// the store was created, and kept in its manifest under its checksum. A
// runtime that keeps it outside the file (with [Store.Steps]) and passes it
// as [Options.StoreID] to the next Open detects another store's file put in
// place of this one.
func (s *Store) ID() string { return s.id }

// openError is the refusal of a bbolt Open that returned an error. Only a
// lock timeout says another process may hold the file.
func openError(path string, err error) error {
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return unavailable("boltstore: cannot open the step store at %q: its lock was not released in the lock timeout (another process may hold the file); stop the other process, or give each process its own store", path)
	case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrChecksum), errors.Is(err, bolterrors.ErrVersionMismatch):
		return damaged(path, "bbolt refused it: "+err.Error())
	}
	return unavailable("boltstore: cannot open the step store at %q: %s; check that the path names the store file and that this process may read and write it", path, err)
}

// Close closes the file; the store cannot be used afterwards.
//
// A store bbolt panicked in (see run) is not closed through bbolt: the
// panicked transaction may still hold bbolt's locks, and bbolt's Close
// would wait for them forever. Its file handle is closed instead. bbolt's
// mapping of the file stays until the process ends, and with it the
// file's lock: another Open of the file, in this process or another,
// waits out its LockTimeout and is refused until this process exits.
func (s *Store) Close() error {
	s.mu.Lock()
	broken := s.broken
	s.mu.Unlock()
	if broken != nil && s.file != nil {
		return s.file.Close()
	}
	return s.db.Close()
}

// Steps returns how many steps the store has recorded, all runs together:
// the sum of every run's position, which only grows. A runtime that keeps it
// outside the file, and passes it as [Options.MinSteps] to the next Open,
// detects an older copy of the file put back.
func (s *Store) Steps() (uint64, error) {
	var m manifest
	err := s.run(false, func(tx *bolt.Tx) error {
		var err error
		m, err = s.readManifest(tx)
		return err
	})
	return m.Steps, err
}

// record is a run's position as stored, with its checksum.
type record struct {
	Next   int    `json:"next"`
	PlanID string `json:"planId"`
	Sum    string `json:"sum"`
}

// manifest is what the store holds in all, with its checksum: the runs, the
// sum of their positions and the XOR of their records' checksums, and the
// bbolt transaction that wrote it. Every committed transaction writes the
// manifest, so it is always the current meta page's: a leaf page of an
// older state put back (manifest and records alike, consistent with each
// other) is found by its older transaction.
type manifest struct {
	Tx      uint64 `json:"tx"`
	Store   string `json:"store"`
	Runs    uint64 `json:"runs"`
	Steps   uint64 `json:"steps"`
	Records string `json:"records"`
	Sum     string `json:"sum"`
}

// sum is the checksum of a record or manifest: SHA-256 (or HMAC-SHA256 under
// the store's key) of a domain name and each part with its length before it,
// so no two different sets of parts share an input.
func (s *Store) sum(domain string, parts ...[]byte) []byte {
	var h hash.Hash
	if s.key != nil {
		h = hmac.New(sha256.New, s.key)
	} else {
		h = sha256.New()
	}
	io.WriteString(h, domain)
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	return h.Sum(nil)
}

func (s *Store) label(sum []byte) string {
	if s.key != nil {
		return "hmac-sha256:" + hex.EncodeToString(sum)
	}
	return "sha256:" + hex.EncodeToString(sum)
}

func (s *Store) recordSum(runID []byte, next int, planID string) []byte {
	return s.sum("automium/step-store-v3 record", []byte(s.id), runID, []byte(strconv.Itoa(next)), []byte(planID))
}

func (s *Store) manifestSum(m manifest) []byte {
	return s.sum("automium/step-store-v3 manifest", []byte(m.Store), []byte(strconv.FormatUint(m.Tx, 10)), []byte(strconv.FormatUint(m.Runs, 10)), []byte(strconv.FormatUint(m.Steps, 10)), []byte(m.Records))
}

func (s *Store) encodeRecord(runID []byte, p binding.Position) []byte {
	v, _ := json.Marshal(record{Next: p.Next, PlanID: p.PlanID, Sum: s.label(s.recordSum(runID, p.Next, p.PlanID))})
	return v
}

func (s *Store) encodeManifest(m manifest) []byte {
	if m.Records == "" {
		m.Records = hex.EncodeToString(make([]byte, sha256.Size))
	}
	m.Sum = s.label(s.manifestSum(m))
	v, _ := json.Marshal(m)
	return v
}

// strict decodes v into out and requires v to be exactly what encoding out
// gives back: no other member, spelling, order or space.
func strict(v []byte, out any) bool {
	if json.Unmarshal(v, out) != nil {
		return false
	}
	again, err := json.Marshal(out)
	return err == nil && bytes.Equal(again, v)
}

// decodeRecord reads one stored record and checks its checksum; it returns
// the position and the record's checksum bytes.
func (s *Store) decodeRecord(runID, v []byte) (binding.Position, []byte, error) {
	var r record
	if !strict(v, &r) || r.Next < 1 || !binding.IsDigest(r.PlanID) {
		return binding.Position{}, nil, fmt.Errorf("the stored position of run %s is not a record this store writes", quoteKey(runID))
	}
	want := s.recordSum(runID, r.Next, r.PlanID)
	if r.Sum != s.label(want) {
		return binding.Position{}, nil, fmt.Errorf("the checksum of run %s's position does not match its run ID, plan and step (a damaged record, a record of another store, or a store written with another key)", quoteKey(runID))
	}
	return binding.Position{PlanID: r.PlanID, Next: r.Next}, want, nil
}

func (s *Store) readManifest(tx *bolt.Tx) (manifest, error) {
	b := tx.Bucket(metaBucket)
	if b == nil || tx.Bucket(recordsBucket) == nil {
		return manifest{}, errors.New("the file has no step-store buckets (not a step store, one written by an earlier version, or damaged)")
	}
	var m manifest
	v := b.Get(manifestKey)
	if v == nil || !strict(v, &m) || len(m.Records) != 2*sha256.Size || !isStoreID(m.Store) {
		return manifest{}, errors.New("the store's manifest is missing or malformed")
	}
	if _, err := hex.DecodeString(m.Records); err != nil || m.Sum != s.label(s.manifestSum(m)) {
		return manifest{}, errors.New("the checksum of the store's manifest does not match it (a damaged manifest, or a store written with another key)")
	}
	if s.id != "" && m.Store != s.id {
		return manifest{}, fmt.Errorf("the store's manifest is store %s's, but this store is %s: another store's manifest was put in the file", m.Store, s.id)
	}
	// A read sees the last commit's transaction; a write is the next one.
	current := uint64(tx.ID())
	if tx.Writable() {
		current--
	}
	if m.Tx != current {
		return manifest{}, fmt.Errorf("the store's manifest was written by transaction %d, but the file's last is %d: part of the file is an older copy", m.Tx, current)
	}
	return m, nil
}

// verify reads every record and the manifest, and returns the steps recorded.
func (s *Store) verify() (uint64, error) {
	var m manifest
	err := s.run(false, func(tx *bolt.Tx) error {
		var err error
		if m, err = s.readManifest(tx); err != nil {
			return err
		}
		// Open's first read: the ID every record's checksum covers.
		s.id = m.Store
		if err := tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			if !bytes.Equal(name, recordsBucket) && !bytes.Equal(name, metaBucket) {
				return fmt.Errorf("the file holds a bucket %s that a step store does not write", quoteKey(name))
			}
			return nil
		}); err != nil {
			return err
		}
		if n := tx.Bucket(metaBucket).Stats().KeyN; n != 1 {
			return fmt.Errorf("the store's manifest bucket holds %d keys, not 1", n)
		}
		var runs, steps uint64
		xor := make([]byte, sha256.Size)
		c := tx.Bucket(recordsBucket).Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			if v == nil || len(k) > MaxRunIDBytes {
				return fmt.Errorf("the store holds a key %s that is not a run's record", quoteKey(k))
			}
			p, sum, err := s.decodeRecord(k, v)
			if err != nil {
				return err
			}
			runs++
			steps += uint64(p.Next)
			xorInto(xor, sum)
		}
		if runs != m.Runs || steps != m.Steps || hex.EncodeToString(xor) != m.Records {
			return fmt.Errorf("the records (%d runs, %d steps) are not the ones its manifest counts (%d runs, %d steps): a record was dropped, added or changed", runs, steps, m.Runs, m.Steps)
		}
		return nil
	})
	return m.Steps, err
}

func xorInto(dst, src []byte) {
	for i := range dst {
		dst[i] ^= src[i]
	}
}

func key(runID string) ([]byte, error) {
	if runID == "" || len(runID) > MaxRunIDBytes {
		return nil, invalid("a run ID is 1 to %d bytes, got %d", MaxRunIDBytes, len(runID))
	}
	return []byte(runID), nil
}

// read returns the run's position in tx, its record's checksum (nil for a
// run never seen) and the manifest; a run never seen is at step 0 of no plan.
// A record that does not read back, or whose checksum fails, is an error,
// never step 0: that would make every consumed step of the run usable again.
func (s *Store) read(tx *bolt.Tx, k []byte) (binding.Position, []byte, manifest, error) {
	m, err := s.readManifest(tx)
	if err != nil {
		return binding.Position{}, nil, m, damageError{err}
	}
	v := tx.Bucket(recordsBucket).Get(k)
	if v == nil {
		return binding.Position{}, nil, m, nil
	}
	p, sum, err := s.decodeRecord(k, v)
	if err != nil {
		return p, sum, m, damageError{err}
	}
	return p, sum, m, nil
}

// Position implements [binding.StepStore].
func (s *Store) Position(runID string) (binding.Position, error) {
	k, err := key(runID)
	if err != nil {
		return binding.Position{}, err
	}
	var p binding.Position
	err = s.run(false, func(tx *bolt.Tx) error {
		var err error
		p, _, _, err = s.read(tx, k)
		return err
	})
	return p, err
}

// beforeOpen, when set (by a test), runs after Open's Stat of the path and
// before bbolt opens it: a file put at the path then is the one bbolt maps.
var beforeOpen func()

// beforeWrite, when set (by a test), runs after Advance's arguments are
// checked and before its write transaction starts: a compare-and-swap read
// outside that transaction would happen before it, and be stale after it.
var beforeWrite func()

// Advance implements [binding.StepStore]: a compare-and-swap in one
// transaction, committed to disk before it returns true.
func (s *Store) Advance(runID string, from binding.Position, planID string) (bool, error) {
	k, err := key(runID)
	if err != nil {
		return false, err
	}
	if !binding.IsDigest(planID) {
		return false, invalid("a plan ID is a digest, sha256:<64 lowercase hex>")
	}
	if beforeWrite != nil {
		beforeWrite()
	}
	advanced := false
	err = s.run(true, func(tx *bolt.Tx) error {
		cur, old, m, err := s.read(tx, k)
		if err != nil {
			return err
		}
		if cur != from {
			// Rolled back, not committed: a refused step writes nothing
			// and costs no fsync.
			return errNotAt
		}
		next := binding.Position{PlanID: planID, Next: from.Next + 1}
		records, _ := hex.DecodeString(m.Records)
		if old == nil {
			m.Runs++
		} else {
			xorInto(records, old)
		}
		xorInto(records, s.recordSum(k, next.Next, next.PlanID))
		m.Records, m.Steps, m.Tx = hex.EncodeToString(records), m.Steps+1, uint64(tx.ID())
		if err := tx.Bucket(recordsBucket).Put(k, s.encodeRecord(k, next)); err != nil {
			return err
		}
		if err := tx.Bucket(metaBucket).Put(manifestKey, s.encodeManifest(m)); err != nil {
			return err
		}
		advanced = true
		return nil
	})
	if errors.Is(err, errNotAt) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return advanced, nil
}

// errNotAt ends Advance's transaction when the run is not at the expected
// position.
var errNotAt = errors.New("boltstore: the run is not at the expected position")

// run runs fn in a bbolt transaction (read-write when write), with bbolt's
// panics and memory faults recovered: a damaged page must not end the
// process. A store that panicked once refuses every later call, since bbolt's
// state after a panic is not known.
func (s *Store) run(write bool, fn func(*bolt.Tx) error) error {
	s.mu.Lock()
	broken := s.broken
	s.mu.Unlock()
	if broken != nil {
		return broken
	}
	err := guard(func() error {
		if write {
			return s.db.Update(fn)
		}
		return s.db.View(fn)
	})
	var perr panicError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &perr):
		err = damaged(s.path, perr.Error())
		s.mu.Lock()
		s.broken = err
		s.mu.Unlock()
		return err
	}
	var aerr *automium.Error
	if errors.As(err, &aerr) || errors.Is(err, errNotAt) {
		return err
	}
	if !write || isStoreDamage(err) {
		return damaged(s.path, err.Error())
	}
	return unavailable("boltstore: the step store at %q could not record the step: %s; the step may or may not be usable again, so check the disk before going on", s.path, err)
}

// damageError marks an error of fn's as damage found in the file.
type damageError struct{ error }

func isStoreDamage(err error) bool {
	var d damageError
	return errors.As(err, &d)
}

// panicError is a bbolt panic or memory fault, recovered.
type panicError struct{ what string }

func (p panicError) Error() string { return "bbolt failed reading it: " + p.what }

// guard runs fn with panics and memory faults (a page bbolt reads past the
// end of the mapped file) turned into a panicError.
func guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			what := fmt.Sprint(r)
			if len(what) > 200 {
				what = what[:200] + "…"
			}
			err = panicError{what: what}
		}
	}()
	return fn()
}

// checkFile checks what bbolt trusts before it maps the file: the size, both
// meta pages (magic, version, checksum, page size) and that the pages they
// name lie inside the file. bbolt reads the newer valid meta page, so a
// damaged newest one would silently roll the store back one transaction;
// and a high-water mark past the end of a truncated file would make bbolt
// read unmapped memory.
//
// It reads f, the handle bbolt is about to map, so that what is checked is
// what bbolt reads: a file put at the path after Open's Stat (a FIFO, a
// directory, a truncated copy) is refused here.
func checkFile(f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("it is no longer a regular file but a %s (put at the path while it was opened)", kind(info.Mode()))
	}
	size := info.Size()
	if size == 0 {
		return errors.New("the file is empty (truncated, or created but never initialized)")
	}
	m0, err := readMeta(f, 0, 0)
	if err != nil {
		return fmt.Errorf("meta page 0 is damaged: %w", err)
	}
	ps := int64(m0.pageSize)
	m1, err := readMeta(f, ps, 1)
	if err != nil {
		return fmt.Errorf("meta page 1 is damaged: %w", err)
	}
	// bbolt writes the meta page of transaction T to page T mod 2, so the
	// two hold two consecutive transactions, each on its own page. Another
	// pair is a meta page put back, or one taken from another file.
	if m0.txid%2 != 0 || m1.txid%2 != 1 || max(m0.txid, m1.txid)-min(m0.txid, m1.txid) != 1 {
		return fmt.Errorf("the meta pages name transactions %d and %d, not two consecutive ones each on its own page (a meta page of an older state put back, or one of another file)", m0.txid, m1.txid)
	}
	if m1.pageSize != m0.pageSize {
		return fmt.Errorf("the meta pages disagree on the page size (%d and %d)", m0.pageSize, m1.pageSize)
	}
	if size%ps != 0 {
		return fmt.Errorf("its size, %d bytes, is not a whole number of %d-byte pages (truncated)", size, ps)
	}
	for i, m := range []meta{m0, m1} {
		if m.pgid < 4 || m.pgid > uint64(size/ps) {
			return fmt.Errorf("meta page %d names %d pages, but the file holds %d (truncated)", i, m.pgid, size/ps)
		}
		if m.root < 2 || m.root >= m.pgid || (m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.pgid)) {
			return fmt.Errorf("meta page %d names a page outside the file", i)
		}
	}
	// bbolt reads the tree of the newer meta page; walk it as bbolt will,
	// so that bbolt never follows a page outside the file, a page of the
	// wrong kind, an element past its page's end or a cycle (which it would
	// follow until its stack ran out, a fatal error no recover catches).
	m := m0
	if m1.txid > m0.txid {
		m = m1
	}
	w := walker{f: f, ps: ps, pages: m.pgid, seen: map[uint64]bool{}}
	if m.freelist != noFreelist {
		if err := w.freelist(m.freelist); err != nil {
			return err
		}
	}
	return w.tree(m.root, 0)
}

// walker checks a bbolt page tree by reading the file, never mapping it.
type walker struct {
	f     *os.File
	ps    int64
	pages uint64
	seen  map[uint64]bool
}

const (
	branchPageFlag   = 0x01
	leafPageFlag     = 0x02
	freelistPageFlag = 0x10
	bucketLeafFlag   = 0x01
	pageHeaderSize   = 16
	elementSize      = 16
	maxDepth         = 64
	// maxPageBytes bounds one page with its overflow pages. The store's
	// records are at most a 1 KiB run ID and a short value, so only the
	// freelist grows past a page: 64 MiB of it is 8 million free pages.
	maxPageBytes = 64 << 20
)

// page reads page id, with its overflow pages, checking that it lies in the
// file and was not reached before.
func (w *walker) page(id uint64, flag uint16) ([]byte, error) {
	if id < 2 || id >= w.pages {
		return nil, fmt.Errorf("a page refers to page %d, outside the file's %d pages", id, w.pages)
	}
	head := make([]byte, pageHeaderSize)
	if _, err := w.f.ReadAt(head, int64(id)*w.ps); err != nil {
		return nil, fmt.Errorf("page %d cannot be read: %v", id, err)
	}
	e := binary.NativeEndian
	overflow := uint64(e.Uint32(head[12:]))
	// The kind exactly, as bbolt checks it: a freelist page whose flags
	// hold another bit besides makes bbolt panic inside Open, after it
	// mapped the file, and the mapping then keeps the file's lock.
	k := e.Uint16(head[8:])
	if e.Uint64(head) != id || (k != flag && (flag == freelistPageFlag || (k != branchPageFlag && k != leafPageFlag))) || id+overflow >= w.pages {
		return nil, fmt.Errorf("page %d is not the page its parent names (id %d, kind %#x, %d overflow pages)", id, e.Uint64(head), e.Uint16(head[8:]), overflow)
	}
	if (overflow+1)*uint64(w.ps) > maxPageBytes {
		// A few bytes of a header would otherwise make the check read and
		// allocate the whole file, which a sparse file makes as large as
		// the file system allows: a fatal out-of-memory, or a hang.
		return nil, fmt.Errorf("page %d claims %d overflow pages, %d bytes, more than the %d of any page a store writes", id, overflow, (overflow+1)*uint64(w.ps), maxPageBytes)
	}
	for p := id; p <= id+overflow; p++ {
		if w.seen[p] {
			return nil, fmt.Errorf("page %d is reached twice (a cycle, or two parents)", p)
		}
		w.seen[p] = true
	}
	buf := make([]byte, int64(overflow+1)*w.ps)
	if _, err := w.f.ReadAt(buf, int64(id)*w.ps); err != nil {
		return nil, fmt.Errorf("page %d cannot be read: %v", id, err)
	}
	return buf, nil
}

func (w *walker) freelist(id uint64) error {
	p, err := w.page(id, freelistPageFlag)
	if err != nil {
		return err
	}
	e := binary.NativeEndian
	n, at := uint64(e.Uint16(p[10:])), uint64(pageHeaderSize)
	if n == 0xFFFF {
		if len(p) < pageHeaderSize+8 {
			return errors.New("the freelist page is cut short")
		}
		n, at = e.Uint64(p[pageHeaderSize:]), at+8
	}
	if n > (uint64(len(p))-at)/8 {
		return fmt.Errorf("the freelist page claims %d free pages, more than it holds", n)
	}
	for i := range n {
		if free := e.Uint64(p[at+8*i:]); free < 2 || free >= w.pages {
			return fmt.Errorf("the freelist names page %d, outside the file", free)
		}
	}
	return nil
}

func (w *walker) tree(id uint64, depth int) error {
	if depth > maxDepth {
		return errors.New("the page tree is deeper than any store writes")
	}
	p, err := w.page(id, branchPageFlag|leafPageFlag)
	if err != nil {
		return err
	}
	return w.node(p, depth)
}

// node checks one branch or leaf page, p, whole (inline bucket pages too).
func (w *walker) node(p []byte, depth int) error {
	e := binary.NativeEndian
	flags, n := e.Uint16(p[8:]), int(e.Uint16(p[10:]))
	if flags != branchPageFlag && flags != leafPageFlag {
		return fmt.Errorf("a page of kind %#x stands where a branch or leaf page must", flags)
	}
	if pageHeaderSize+n*elementSize > len(p) {
		return fmt.Errorf("a page claims %d elements, more than it holds", n)
	}
	if flags == branchPageFlag && n == 0 {
		return errors.New("a branch page has no elements")
	}
	for i := range n {
		el := pageHeaderSize + i*elementSize
		if flags == branchPageFlag {
			pos, ksize := int(e.Uint32(p[el:])), int(e.Uint32(p[el+4:]))
			if el+pos+ksize > len(p) || pos < 0 || ksize < 0 {
				return errors.New("a branch element's key lies outside its page")
			}
			if err := w.tree(e.Uint64(p[el+8:]), depth+1); err != nil {
				return err
			}
			continue
		}
		eflags, pos, ksize, vsize := e.Uint32(p[el:]), int64(e.Uint32(p[el+4:])), int64(e.Uint32(p[el+8:])), int64(e.Uint32(p[el+12:]))
		end := int64(el) + pos + ksize + vsize
		if end > int64(len(p)) {
			return errors.New("a leaf element's key or value lies outside its page")
		}
		if eflags&bucketLeafFlag == 0 {
			continue
		}
		v := p[int64(el)+pos+ksize : end]
		if len(v) < 16 {
			return errors.New("a bucket's header is cut short")
		}
		if root := e.Uint64(v); root != 0 {
			if err := w.tree(root, depth+1); err != nil {
				return err
			}
			continue
		}
		if depth >= maxDepth || len(v) < 16+pageHeaderSize {
			return errors.New("an inline bucket is cut short")
		}
		if err := w.node(v[16:], depth+1); err != nil {
			return err
		}
	}
	return nil
}

// meta is what checkFile reads of a bbolt meta page (bbolt 1.x's layout: a
// 16-byte page header, then magic, version, page size, flags, the root
// bucket's page and sequence, the freelist page, the high-water mark, the
// transaction ID and an FNV-1a checksum of everything before it).
type meta struct {
	pageSize       uint32
	root, freelist uint64
	pgid, txid     uint64
}

const (
	boltMagic    = 0xED0CDAED
	boltVersion  = 2
	metaPageFlag = 0x04
	noFreelist   = ^uint64(0)
)

func readMeta(f *os.File, off int64, id uint64) (meta, error) {
	var p [80]byte
	if _, err := f.ReadAt(p[:], off); err != nil {
		return meta{}, errors.New("the file ends inside it (truncated)")
	}
	e := binary.NativeEndian
	if e.Uint64(p[0:]) != id || e.Uint16(p[8:]) != metaPageFlag {
		return meta{}, errors.New("it is not a meta page")
	}
	if e.Uint32(p[16:]) != boltMagic || e.Uint32(p[20:]) != boltVersion {
		return meta{}, errors.New("it is not a bbolt version 2 meta page")
	}
	h := fnv.New64a()
	h.Write(p[16:72])
	if h.Sum64() != e.Uint64(p[72:]) {
		return meta{}, errors.New("its checksum does not match")
	}
	m := meta{pageSize: e.Uint32(p[24:]), root: e.Uint64(p[32:]), freelist: e.Uint64(p[48:]), pgid: e.Uint64(p[56:]), txid: e.Uint64(p[64:])}
	if m.pageSize < 512 || m.pageSize > 1<<20 || m.pageSize&(m.pageSize-1) != 0 {
		return meta{}, fmt.Errorf("its page size %d is not one bbolt writes", m.pageSize)
	}
	return m, nil
}

// kind names what a path that is no regular file is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "file of mode " + m.String()
}

func quoteKey(k []byte) string {
	if len(k) > 64 {
		return strconv.Quote(string(k[:64])) + "…"
	}
	return strconv.Quote(string(k))
}

// damaged is the refusal of a store found damaged: what was found, and what
// to do.
func damaged(path, found string) error {
	return unavailable("boltstore: the step store at %q is damaged: %s; no step is authorized from it. Keep the file for inspection; restore it from the copy the runtime trusts (with Options.MinSteps), or end the runs it held and issue their plans again under new run IDs in a new store (Create)",
		path, found)
}

func unavailable(format string, args ...any) error {
	return automium.NewProblem(binding.CodeStateUnavailable, automium.PathOf("store"), nil, format, args...).Err()
}

func invalid(format string, args ...any) error {
	return automium.NewProblem(binding.CodeInvalidGrant, automium.PathOf("store"), nil, "boltstore: "+format, args...).Err()
}
