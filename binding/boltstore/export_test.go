package boltstore

import (
	"time"

	bolt "go.etcd.io/bbolt"
)

// Poke writes value under runID through s's own handle, bypassing its
// checksums: damage on disk while the store is open.
func Poke(s *Store, runID string, value []byte) error {
	return s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(recordsBucket).Put([]byte(runID), value) })
}

// SetBeforeWrite sets the hook Advance runs before its write transaction.
func SetBeforeWrite(f func()) { beforeWrite = f }

// Durability returns the bbolt settings s's handle runs with.
func Durability(s *Store) (noSync, noGrowSync, noFreelistSync bool) {
	return s.db.NoSync, s.db.NoGrowSync, s.db.NoFreelistSync
}

// LockTimeout returns the lock timeout Open gives bbolt for opts.
func LockTimeout(opts *Options) time.Duration {
	timeout, _, _, _ := settings(opts)
	return boltOptions(timeout, nil).Timeout
}

// Drop deletes runID's record through s's own handle, leaving the manifest:
// a record lost on disk.
func Drop(s *Store, runID string) error {
	return s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(recordsBucket).Delete([]byte(runID)) })
}

// CheckFile is the check Open runs on the file before bbolt maps it.
func CheckFile(path string) error { return checkFile(path) }
