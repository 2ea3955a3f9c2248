package automium

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/automium/automium/canonicaljson"
)

// digestPrefix starts every digest the root computes: the algorithm and a colon,
// then 64 lowercase hex digits.
const digestPrefix = "sha256:"

// digestOf returns digestPrefix and the lowercase hex SHA-256 of the RFC 8785
// canonical form of v's JSON (see [canonicaljson.Marshal]): the JSON an answer
// carries, with members sorted by UTF-16 code units, numbers in ECMAScript's
// form and no HTML escaping. Another language reproduces a digest from the
// answer alone, with any RFC 8785 implementation (docs/digests.md).
//
// The error is not for the caller's input: every string the root hashes was
// checked as UTF-8 and every integer is bounded far below 2^53 before it gets
// here. It is returned rather than panicked on, so a missed check costs one
// internal error, never a process.
func digestOf(v any) (string, error) {
	canonical, err := canonicaljson.Marshal(v)
	if err != nil {
		return "", err
	}
	return digestOfCanonical(canonical), nil
}

// digestOfCanonical hashes bytes that are already in canonical form.
func digestOfCanonical(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return digestPrefix + hex.EncodeToString(sum[:])
}
