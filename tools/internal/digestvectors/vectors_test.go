package digestvectors_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/automium/automium/canonicaljson"
	"github.com/automium/automium/internal/testsupport"
	"github.com/automium/automium/tools/internal/digestvectors"
)

// vectorsFile holds the digest test vectors: inputs, the exact bytes each
// digest hashes, and the digests. go generate ./... writes it
// (tools/internal/digestvectors); .ci/run checks it again with an independent RFC 8785
// implementation in JavaScript (testdata/digests/check.mjs). The rules are in
// docs/digests.md.
var vectorsFile = filepath.Join("..", "..", "..", filepath.FromSlash(digestvectors.File))

// TestDigestVectors keeps testdata/digests/vectors.json in step with the code
// and checks every vector in it by the rules of docs/digests.md, from the
// vector's own bytes: what the JavaScript check does, in Go, with helpers of
// its own rather than the builder's.
func TestDigestVectors(t *testing.T) {
	testsupport.Generated(t, digestvectors.GeneratedFiles)
	shipped, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}

	var v digestvectors.DigestVectors
	if err := json.Unmarshal(shipped, &v); err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Canonical {
		got, err := canonicaljson.Canonicalize([]byte(c.JSON))
		if err != nil || string(got) != c.Canonical || sha([]byte(c.Canonical)) != c.Digest {
			t.Errorf("canonical %q: got %s, %v", c.Name, got, err)
		}
	}
	for _, r := range v.Refused {
		in, _ := base64.StdEncoding.DecodeString(r.Base64)
		if got, err := canonicaljson.Canonicalize(in); err == nil {
			t.Errorf("refused %q: got %s, want an error", r.Name, got)
		}
	}
	for _, j := range v.Journeys {
		var g map[string]any
		_ = json.Unmarshal(j.Journey, &g)
		if c := canonicalOf(t, g, "digest", ""); string(c) != j.Canonical || sha(c) != g["digest"] {
			t.Errorf("journey %q: canonical %s hashes to %s; the answer says %v", j.Name, c, sha(c), g["digest"])
		}
	}
	for _, m := range v.Manifests {
		var g map[string]any
		_ = json.Unmarshal(m.Manifest, &g)
		if c := canonicalOf(t, g, "digest", ""); string(c) != m.Canonical || sha(c) != g["digest"] {
			t.Errorf("manifest %q: canonical %s hashes to %s; the answer says %v", m.Name, c, sha(c), g["digest"])
		}
	}
	for _, r := range v.Runs {
		var g map[string]any
		_ = json.Unmarshal(r.Run, &g)
		picked := map[string]any{}
		for _, m := range r.Members {
			picked[m] = g[m]
		}
		c := canonicalOf(t, picked, "", nil)
		if string(c) != r.Canonical || "run-"+sha(c)[len("sha256:"):][:20] != g["runId"] {
			t.Errorf("run %q: canonical %s gives %s; the answer says %v", r.Name, c, sha(c), g["runId"])
		}
	}
	for _, c := range v.Catalogs {
		if got, err := canonicaljson.Canonicalize([]byte(c.Canonical)); err != nil || string(got) != c.Canonical || sha(got) != c.Digest {
			t.Errorf("catalog %q is not canonical or does not hash to its digest: %v", c.Name, err)
		}
	}
	for _, p := range v.Policies {
		if got, err := canonicaljson.Canonicalize(p.Value); err != nil || sha(got) != p.Digest {
			t.Errorf("policy %q: %v", p.Name, err)
		}
	}
	for _, gv := range v.Grants {
		checkGrantVector(t, gv)
	}
}

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonicalOf canonicalizes v's encoding/json form with one member replaced.
func canonicalOf(t *testing.T, v any, member string, value any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	if member != "" {
		raw, _ := json.Marshal(value)
		obj[member] = raw
	}
	data, _ = json.Marshal(obj)
	c, err := canonicaljson.Canonicalize(data)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkGrantVector recomputes every grant ID, the plan ID and every seal of gv
// from the grants as sent, by the rules of docs/binding.md.
func checkGrantVector(t *testing.T, gv digestvectors.GrantVector) {
	t.Helper()
	secret, _ := hex.DecodeString(gv.SecretHex)
	var steps []any
	var scope map[string]any
	for i, raw := range gv.Grants {
		var g map[string]any
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatal(err)
		}
		id, seal, planID := g["id"], g["seal"].(map[string]any), g["planId"]
		delete(g, "id")
		delete(g, "seal")
		g["grant"] = "action-grant-v2"
		if got := sha(canonicalOf(t, g, "", nil)); got != id {
			t.Errorf("grant %d of %q: ID %s, recomputed %s", i, gv.Name, id, got)
		}
		mac := hmac.New(sha256.New, secret)
		mac.Write([]byte("action-grant-v2 seal\x00" + gv.KeyID + "\x00" + id.(string)))
		if want := "hmac-sha256:" + hex.EncodeToString(mac.Sum(nil)); seal["keyId"] != gv.KeyID || seal["mac"] != want {
			t.Errorf("grant %d of %q: seal %v, recomputed %s", i, gv.Name, seal, want)
		}
		steps = append(steps, g["candidates"])
		scope = map[string]any{"plan": "action-plan-v1", "planId": planID}
		for _, m := range []string{"runId", "policyDigest", "host", "vmUuid", "issuedAt", "expiresAt"} {
			scope[m] = g[m]
		}
	}
	planID := scope["planId"]
	delete(scope, "planId")
	scope["steps"] = steps
	if got := sha(canonicalOf(t, scope, "", nil)); got != planID {
		t.Errorf("%q: plan ID %s, recomputed %s", gv.Name, planID, got)
	}
}
