package boltstore

import (
	"encoding/json"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Poke writes value under runID through s's own handle, bypassing its
// checksums: damage on disk while the store is open. Damage on disk writes no
// transaction, so the manifest is written again as it was, naming this one
// (stale would be found by the manifest's transaction alone).
func Poke(s *Store, runID string, value []byte) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(recordsBucket).Put([]byte(runID), value); err != nil {
			return err
		}
		return restamp(s, tx)
	})
}

// restamp writes the manifest again unchanged but for its transaction.
func restamp(s *Store, tx *bolt.Tx) error {
	var m manifest
	if err := json.Unmarshal(tx.Bucket(metaBucket).Get(manifestKey), &m); err != nil {
		return err
	}
	m.Tx = uint64(tx.ID())
	return tx.Bucket(metaBucket).Put(manifestKey, s.encodeManifest(m))
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
	return boltOptions(timeout, nil, false).Timeout
}

// Drop deletes runID's record through s's own handle, leaving the manifest
// (but for its transaction, as Poke): a record lost on disk.
func Drop(s *Store, runID string) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(recordsBucket).Delete([]byte(runID)); err != nil {
			return err
		}
		return restamp(s, tx)
	})
}

// Stale writes the manifest again with the transaction before this one: a
// leaf page of the previous state put back in place of the current one, its
// counts and records still agreeing.
func Stale(s *Store) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		if err := restamp(s, tx); err != nil {
			return err
		}
		var m manifest
		if err := json.Unmarshal(tx.Bucket(metaBucket).Get(manifestKey), &m); err != nil {
			return err
		}
		m.Tx--
		return tx.Bucket(metaBucket).Put(manifestKey, s.encodeManifest(m))
	})
}

// SetBeforeOpen sets the hook Open runs between its Stat and bbolt's open.
func SetBeforeOpen(f func()) { beforeOpen = f }

// CopyWithPageSize writes s's buckets into a new bbolt file at dst with
// page size ps, its manifest stamped with the new file's transaction: the
// same store, as a machine with another page size would have written it.
func CopyWithPageSize(s *Store, dst string, ps int) error {
	db, err := bolt.Open(dst, 0o600, &bolt.Options{PageSize: ps})
	if err != nil {
		return err
	}
	defer db.Close()
	return s.db.View(func(src *bolt.Tx) error {
		return db.Update(func(tx *bolt.Tx) error {
			for _, name := range [][]byte{recordsBucket, metaBucket} {
				b, err := tx.CreateBucket(name)
				if err != nil {
					return err
				}
				if err := src.Bucket(name).ForEach(func(k, v []byte) error { return b.Put(k, v) }); err != nil {
					return err
				}
			}
			return restamp(s, tx)
		})
	})
}
