package automium

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/automium/automium/canonicaljson"
)

// digestOfAnswer computes a digest the way docs/digests.md tells an outside
// verifier to: from the JSON of the answer, through RFC 8785, hashed with
// SHA-256. It shares no code with digestOf beyond canonicaljson's
// Canonicalize, which the JavaScript check of testdata/digests holds to an
// independent implementation.
func digestOfAnswer(t *testing.T, answer any) string {
	t.Helper()
	data, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := canonicaljson.Canonicalize(data)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}
