package binding_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/canonicaljson"
	"github.com/google/go-cmp/cmp"
)

// TestGrantIDCoversEveryField changes each bound field of a grant, one at a
// time, and requires another ID and a refusal; a grant ID that stopped
// covering any field would fail its row. ID and Seal are not bound.
func TestGrantIDCoversEveryField(t *testing.T) {
	other := "sha256:" + hex.EncodeToString(make([]byte, 32))
	tests := []struct {
		name   string
		change func(*binding.Grant)
	}{
		{"planId", func(g *binding.Grant) { g.PlanID = other }},
		{"step", func(g *binding.Grant) { g.Step++ }},
		{"candidates[0].server.name", func(g *binding.Grant) { g.Candidates[0].Server.Name = "other-ui" }},
		{"candidates[0].server.version", func(g *binding.Grant) { g.Candidates[0].Server.Version = "v1.4.1" }},
		{"candidates[0].catalogDigest", func(g *binding.Grant) { g.Candidates[0].CatalogDigest = other }},
		{"candidates[0].tool", func(g *binding.Grant) { g.Candidates[0].Tool = "type_text" }},
		{"candidates[0].arguments", func(g *binding.Grant) {
			g.Candidates[0].Arguments = json.RawMessage(`{"target":"button:Delete account"}`)
		}},
		{"candidates[1]", func(g *binding.Grant) { g.Candidates[1].Arguments = json.RawMessage(`{"target":"button:Help"}`) }},
		{"candidates order", func(g *binding.Grant) { g.Candidates[0], g.Candidates[1] = g.Candidates[1], g.Candidates[0] }},
		{"candidates count", func(g *binding.Grant) { g.Candidates = g.Candidates[:1] }},
		{"runId", func(g *binding.Grant) { g.RunID = "run_other" }},
		{"policyDigest", func(g *binding.Grant) { g.PolicyDigest = other }},
		{"host", func(g *binding.Grant) { g.Host = "vm-host-8.lab.internal" }},
		{"vmUuid", func(g *binding.Grant) { g.VMUUID = "0d4a1f6e-2b7c-4e8a-9f3d-6c5b4a392817" }},
		{"issuedAt", func(g *binding.Grant) { g.IssuedAt = g.IssuedAt.Add(time.Nanosecond) }},
		{"expiresAt", func(g *binding.Grant) { g.ExpiresAt = g.ExpiresAt.Add(time.Second) }},
	}
	base := issue(t, choicePlan(t), nil)[0]
	seen := map[string]string{base.ID: "the issued grant"}
	for _, tt := range tests {
		g := base
		g.Candidates = slices.Clone(base.Candidates)
		tt.change(&g)
		id, err := g.ComputeID()
		if err != nil {
			t.Errorf("%s: ComputeID: %v", tt.name, err)
			continue
		}
		if prev, dup := seen[id]; dup {
			t.Errorf("changing %s gives the ID of %s", tt.name, prev)
		}
		seen[id] = tt.name
		if err := g.Verify(); codeOf(err) != binding.CodeGrantAltered {
			t.Errorf("%s changed: Verify error %v, want %s", tt.name, err, binding.CodeGrantAltered)
		}
	}
	unbound := base
	unbound.ID, unbound.Seal = "", &binding.Seal{KeyID: "k", MAC: "x"}
	if id, _ := unbound.ComputeID(); id != base.ID {
		t.Error("ID or Seal changed the computed ID; they are not bound fields")
	}
}

// TestSealCoversKeyID: a broker holds two keys with one secret under two
// IDs. A seal made by one, relabelled as the other's, must not verify; it
// would if the MAC left the key ID out.
func TestSealCoversKeyID(t *testing.T) {
	k1 := binding.SealKey{ID: "k1", Secret: testSecret}
	k2 := binding.SealKey{ID: "k2", Secret: testSecret}
	g := issue(t, plan(t), &k1)[0]
	if err := g.Verify(k1, k2); err != nil {
		t.Fatalf("the seal as made: %v", err)
	}
	g.Seal = &binding.Seal{KeyID: "k2", MAC: g.Seal.MAC}
	if _, err := brokerAt(t, issuedAt, k1, k2).Authorize(g, live(t, g)); codeOf(err) != binding.CodeGrantUnsealed {
		t.Errorf("relabelled seal: error %v, want %s", err, binding.CodeGrantUnsealed)
	}
}

// TestDocumentedVectors recomputes a grant ID, its seal and its plan ID from
// the documented rules alone, the way a program in another language would:
// the canonical form of a document written here by hand, then SHA-256 and
// HMAC-SHA256. A change to any rule fails here.
func TestDocumentedVectors(t *testing.T) {
	key := binding.SealKey{ID: "2026-11", Secret: testSecret}
	p := plan(t)
	p.IssuedAt = issuedAt.Add(500 * time.Millisecond)
	p.Steps = [][]binding.Call{{
		{Tool: "click", Arguments: json.RawMessage(`{"target":"button:Sign in","count":1.0}`)},
		{Tool: "type_text", Arguments: json.RawMessage(`{"text":"<ada & \u00e9>","target":"textbox:User name"}`)},
	}}
	g := issue(t, p, &key)[0]
	catalog := mustDigest(t, uiCatalog(false))
	candidates := `[{"server":{"name":"synthetic-ui","version":"v1.4.0"},"catalogDigest":"` + catalog + `","tool":"click","arguments":{"count":1,"target":"button:Sign in"}},` +
		`{"server":{"name":"synthetic-ui","version":"v1.4.0"},"catalogDigest":"` + catalog + `","tool":"type_text","arguments":{"text":"<ada & é>","target":"textbox:User name"}}]`
	scope := `"runId":"run_4f1c2a","policyDigest":"` + policyDigest(t, "default") + `","host":"vm-host-7.lab.internal",` +
		`"vmUuid":"5c0f5b2e-8a43-4c1b-9a55-2f6e1d7c9b10","issuedAt":"2026-11-30T09:00:00.5Z","expiresAt":"2026-11-30T09:10:00Z"`
	planID := sha(t, `{"plan":"action-plan-v1",`+scope+`,"steps":[`+candidates+`]}`)
	grantID := sha(t, `{"grant":"action-grant-v2","planId":"`+planID+`","step":0,"candidates":`+candidates+`,`+scope+`}`)
	mac := hmac.New(sha256.New, testSecret)
	mac.Write([]byte("action-grant-v2 seal\x00" + "2026-11" + "\x00" + grantID))
	want := binding.Seal{KeyID: "2026-11", MAC: "hmac-sha256:" + hex.EncodeToString(mac.Sum(nil))}
	if diff := cmp.Diff([]string{planID, grantID}, []string{g.PlanID, g.ID}); diff != "" {
		t.Errorf("plan and grant IDs (-documented +computed):\n%s", diff)
	}
	if diff := cmp.Diff(want, *g.Seal); diff != "" {
		t.Errorf("seal (-documented +computed):\n%s", diff)
	}
}

// sha is the digest form of the canonical form of a hand-written document.
func sha(t *testing.T, doc string) string {
	t.Helper()
	c, err := canonicaljson.Canonicalize([]byte(doc))
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	sum := sha256.Sum256(c)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestInvalidUTF8NeverShareAnID: two grants whose fields differ only in
// invalid bytes do not get one ID; they get none (encoding/json would write
// both as U+FFFD).
func TestInvalidUTF8NeverShareAnID(t *testing.T) {
	g := issue(t, plan(t), nil)[0]
	for _, change := range []func(*binding.Grant){
		func(g *binding.Grant) { g.RunID = "run-A\xff" },
		func(g *binding.Grant) { g.Host = "host\xfe" },
		func(g *binding.Grant) { g.Candidates[0].Tool = "click\xff" },
	} {
		bad := g
		bad.Candidates = slices.Clone(g.Candidates)
		change(&bad)
		if id, err := bad.ComputeID(); err == nil {
			t.Errorf("ComputeID of a grant with invalid UTF-8 = %s, want an error", id)
		}
	}
}

// TestLifetime: IssuePlan grants at most MaxGrantLifetime; a broker accepts
// at most its MaxLifetime, 15 minutes by default, exactly that much included.
func TestLifetime(t *testing.T) {
	p := plan(t)
	p.ExpiresAt = p.IssuedAt.Add(100 * 365 * 24 * time.Hour)
	if _, err := binding.IssuePlan(p, nil); codeOf(err) != binding.CodeInvalidGrant {
		t.Errorf("a 100-year plan: error %v, want %s", err, binding.CodeInvalidGrant)
	}
	p.ExpiresAt = p.IssuedAt.Add(binding.DefaultMaxLifetime)
	g := issue(t, p, nil)[0]
	if _, err := brokerAt(t, issuedAt).Authorize(g, live(t, g)); err != nil {
		t.Errorf("a grant of exactly the default lifetime: %v", err)
	}
	p.ExpiresAt = p.IssuedAt.Add(binding.DefaultMaxLifetime + time.Millisecond)
	g = issue(t, p, nil)[0]
	if _, err := brokerAt(t, issuedAt).Authorize(g, live(t, g)); codeOf(err) != binding.CodeLifetimeExceeded {
		t.Errorf("a grant 1 ms longer than the default lifetime: error %v, want %s", err, binding.CodeLifetimeExceeded)
	}
	p.ExpiresAt = p.IssuedAt.Add(time.Hour)
	g = issue(t, p, nil)[0]
	if _, err := brokerAt(t, issuedAt).Authorize(g, live(t, g)); codeOf(err) != binding.CodeLifetimeExceeded {
		t.Errorf("a 1-hour grant at a default broker: error %v, want %s", err, binding.CodeLifetimeExceeded)
	}
	long := brokerWith(t, func(o *binding.BrokerOptions) { o.MaxLifetime = time.Hour })
	if _, err := long.Authorize(g, live(t, g)); err != nil {
		t.Errorf("a 1-hour grant at a broker configured for 1 hour: %v", err)
	}
}

// TestExpiryBoundaries: valid from IssuedAt (less the skew) up to, not
// including, ExpiresAt.
func TestExpiryBoundaries(t *testing.T) {
	g := issue(t, plan(t), nil)[0]
	for _, tt := range []struct {
		name string
		now  time.Time
		skew time.Duration
		want string
	}{
		{"at issue", issuedAt, 0, ""},
		{"1 ns before issue", issuedAt.Add(-time.Nanosecond), 0, string(binding.CodeGrantNotYetValid)},
		{"exactly the skew before issue", issuedAt.Add(-time.Second), time.Second, ""},
		{"1 ns before expiry", expiresAt.Add(-time.Nanosecond), 0, ""},
		{"at expiry", expiresAt, 0, string(binding.CodeGrantStale)},
		{"at expiry with skew", expiresAt, time.Minute, string(binding.CodeGrantStale)},
		{"at expiry in another zone", expiresAt.In(time.FixedZone("UTC+5", 5*3600)), 0, string(binding.CodeGrantStale)},
	} {
		b := brokerWith(t, func(o *binding.BrokerOptions) { o.Now = func() time.Time { return tt.now }; o.Skew = tt.skew })
		if _, err := b.Authorize(g, live(t, g)); string(codeOf(err)) != tt.want {
			t.Errorf("%s: error %v, want code %q", tt.name, err, tt.want)
		}
	}
}

// TestStepStoreSurvivesTheBroker: brokers that share a step store share the
// run's position: a broker started again does not accept a used step, and
// of two brokers racing for one step exactly one wins.
func TestStepStoreSurvivesTheBroker(t *testing.T) {
	store := binding.NewMemoryStepStore()
	grants := issue(t, plan(t), nil)
	first := brokerWith(t, func(o *binding.BrokerOptions) { o.Steps = store })
	if _, err := first.Authorize(grants[0], live(t, grants[0])); err != nil {
		t.Fatal(err)
	}
	restarted := brokerWith(t, func(o *binding.BrokerOptions) { o.Steps = store })
	if _, err := restarted.Authorize(grants[0], live(t, grants[0])); codeOf(err) != binding.CodeGrantConsumed {
		t.Errorf("step 0 at the restarted broker: error %v, want %s", err, binding.CodeGrantConsumed)
	}
	var wg sync.WaitGroup
	results := make([]error, 8)
	for i := range results {
		b := brokerWith(t, func(o *binding.BrokerOptions) { o.Steps = store })
		wg.Go(func() { _, results[i] = b.Authorize(grants[1], live(t, grants[1])) })
	}
	wg.Wait()
	won := 0
	for _, err := range results {
		switch codeOf(err) {
		case "":
			won++
		case binding.CodeGrantConsumed:
		default:
			t.Errorf("racing broker: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d brokers sharing a store authorized one step, want 1", won)
	}
	if pos, _ := store.Position(runID); pos != (binding.Position{PlanID: grants[0].PlanID, Next: 2}) {
		t.Errorf("position = %+v, want step 2 of the plan", pos)
	}
}

// TestKeyRotationMidPlan: a plan sealed with the old key runs at a broker
// holding both keys; once the old key is dropped its remaining grants are
// refused, and the same grants re-sealed with the new key (same IDs, since
// the seal is not bound) continue the plan where it was.
func TestKeyRotationMidPlan(t *testing.T) {
	old := binding.SealKey{ID: "2026-10", Secret: testSecret}
	next := binding.SealKey{ID: "2026-11", Secret: []byte("the next 32-byte secret in turn.")}
	store := binding.NewMemoryStepStore()
	grants := issue(t, plan(t), &old)
	both := brokerWith(t, func(o *binding.BrokerOptions) { o.Keys = []binding.SealKey{next, old}; o.Steps = store })
	if _, err := both.Authorize(grants[0], live(t, grants[0])); err != nil {
		t.Fatalf("step 0 sealed with the old key during the rotation: %v", err)
	}
	rotated := brokerWith(t, func(o *binding.BrokerOptions) { o.Keys = []binding.SealKey{next}; o.Steps = store })
	if _, err := rotated.Authorize(grants[1], live(t, grants[1])); codeOf(err) != binding.CodeGrantUnsealed {
		t.Errorf("step 1 sealed with the dropped key: error %v, want %s", err, binding.CodeGrantUnsealed)
	}
	resealed := issue(t, plan(t), &next)
	if resealed[1].ID != grants[1].ID {
		t.Fatal("re-sealing changed the grant ID")
	}
	if _, err := rotated.Authorize(resealed[0], live(t, resealed[0])); codeOf(err) != binding.CodeGrantConsumed {
		t.Errorf("step 0 re-sealed: error %v, want %s", err, binding.CodeGrantConsumed)
	}
	if _, err := rotated.Authorize(resealed[1], live(t, resealed[1])); err != nil {
		t.Errorf("step 1 re-sealed with the new key: %v", err)
	}
}

// TestParseGrant: a grant survives JSON, and what a lax decoder would read
// differently is refused.
func TestParseGrant(t *testing.T) {
	key := binding.SealKey{ID: "k1", Secret: testSecret}
	g := issue(t, choicePlan(t), &key)[0]
	data, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	back, err := binding.ParseGrant(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Verify(key); err != nil {
		t.Errorf("parsed grant: %v", err)
	}
	s := string(data)
	for name, bad := range map[string]string{
		"case-variant member": s[:len(s)-1] + `,"RUNID":"run_other"}`,
		"duplicate member":    s[:len(s)-1] + `,"runId":"run_other"}`,
		"unknown member":      s[:len(s)-1] + `,"previous":""}`,
		"invalid UTF-8":       s[:len(s)-1] + `,"x":"` + "\xff" + `"}`,
		"trailing bytes":      s + `x`,
	} {
		if _, err := binding.ParseGrant([]byte(bad)); codeOf(err) != binding.CodeInvalidGrant {
			t.Errorf("%s: error %v, want %s", name, err, binding.CodeInvalidGrant)
		}
	}
}

// TestDigestRefusesInvalidUTF8: two policies that differ only in invalid
// bytes get no digest, rather than one shared digest; valid documents digest
// as encoding/json would encode them (tags, omitempty).
func TestDigestRefusesInvalidUTF8(t *testing.T) {
	for _, v := range []any{map[string]any{"servers": []string{"ui\xff"}}, map[string]any{"servers": []string{"ui\xfe"}}, struct{ Name string }{"\xff"}} {
		if d, err := binding.Digest(v); err == nil {
			t.Errorf("Digest(%q) = %s, want an error", v, d)
		}
	}
	type policy struct {
		Servers []string `json:"servers"`
		Max     int      `json:"maxCalls,omitempty"`
		Note    string   `json:"-"`
		HTML    string
	}
	got, err := binding.Digest(policy{Servers: []string{"synthetic-ui"}, Note: "x", HTML: "<a&b>"})
	if err != nil {
		t.Fatal(err)
	}
	if want := sha(t, `{"servers":["synthetic-ui"],"HTML":"<a&b>"}`); got != want {
		t.Errorf("Digest = %s, want %s (the encoding/json shape)", got, want)
	}
}
