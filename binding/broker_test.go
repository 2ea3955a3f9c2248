package binding_test

import (
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/google/go-cmp/cmp"
)

// refusal is one way of bending a granted call, set up so that everything else
// about the call is right and only this one check can refuse it.
type refusal struct {
	name string
	code automium.Code
	// run prepares the broker and the call and returns Authorize's error.
	run func(t *testing.T) error
}

// refusals has one row per failure mode SYS-REQ-032 names, and the integrity
// checks beneath them.
func refusals() []refusal {
	key := binding.SealKey{ID: "k1", Secret: testSecret}
	// at authorizes step 0 and returns the broker, ready for step 1.
	afterFirst := func(t *testing.T, grants []binding.Grant) *binding.Broker {
		b := brokerAt(t, issuedAt.Add(time.Minute))
		if _, err := b.Authorize(grants[0], live(t, grants[0])); err != nil {
			t.Fatalf("step 0: %v", err)
		}
		return b
	}
	return []refusal{
		{"server substitution: same tool name on another server", binding.CodeServerSubstituted, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			call := live(t, g)
			call.Server = otherUI
			_, err := brokerAt(t, issuedAt).Authorize(g, call)
			return err
		}},
		{"server substitution: same name, another version", binding.CodeServerSubstituted, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			call := live(t, g)
			call.Server.Version = "v1.4.1"
			_, err := brokerAt(t, issuedAt).Authorize(g, call)
			return err
		}},
		{"contract drift: the server's tools changed", binding.CodeContractDrift, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			call := live(t, g)
			changed := uiCatalog(true)
			call.CatalogDigest = mustDigest(t, changed)
			call.InputSchema, _ = changed.InputSchema("click")
			_, err := brokerAt(t, issuedAt).Authorize(g, call)
			return err
		}},
		{"contract drift: another protocol version", binding.CodeContractDrift, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			call := live(t, g)
			c := uiCatalog(false)
			c.ProtocolVersion = "2025-06-18"
			call.CatalogDigest = mustDigest(t, c)
			_, err := brokerAt(t, issuedAt).Authorize(g, call)
			return err
		}},
		{"altered call: another tool", binding.CodeCallAltered, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			call := live(t, g)
			call.Tool = "type_text"
			_, err := brokerAt(t, issuedAt).Authorize(g, call)
			return err
		}},
		{"altered arguments", binding.CodeArgumentsAltered, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			call := live(t, g)
			call.Arguments = json.RawMessage(`{"target":"button:Delete account"}`)
			_, err := brokerAt(t, issuedAt).Authorize(g, call)
			return err
		}},
		{"altered arguments: an extra property", binding.CodeArgumentsAltered, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			call := live(t, g)
			call.Arguments = json.RawMessage(`{"target":"button:Sign in","button":"right"}`)
			_, err := brokerAt(t, issuedAt).Authorize(g, call)
			return err
		}},
		{"arguments outside the closed schema", binding.CodeArgumentsOutsideSchema, func(t *testing.T) error {
			// A grant no issuer would make (IssuePlan refuses these arguments),
			// with a correct ID, reaching an unkeyed broker.
			g := issue(t, plan(t), nil)[0]
			g.Candidates[0].Arguments = json.RawMessage(`{"target":"button:Sign in","x":1}`)
			var err error
			if g.ID, err = g.ComputeID(); err != nil {
				t.Fatal(err)
			}
			_, err = brokerAt(t, issuedAt).Authorize(g, live(t, g))
			return err
		}},
		{"reordered: step 1 before step 0", binding.CodeOutOfOrder, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[1]
			_, err := brokerAt(t, issuedAt).Authorize(g, live(t, g))
			return err
		}},
		{"skipped: step 2 right after step 0", binding.CodeOutOfOrder, func(t *testing.T) error {
			grants := issue(t, plan(t), nil)
			_, err := afterFirst(t, grants).Authorize(grants[2], live(t, grants[2]))
			return err
		}},
		{"spliced: step 1 of another plan of the same run", binding.CodeOtherPlan, func(t *testing.T) error {
			grants := issue(t, plan(t), nil)
			other := plan(t)
			other.Steps[0] = []binding.Call{{Tool: "click", Arguments: json.RawMessage(`{"target":"link:Help"}`)}}
			_, err := afterFirst(t, grants).Authorize(issue(t, other, nil)[1], live(t, issue(t, other, nil)[1]))
			return err
		}},
		{"spliced: step 1 of a plan that shares step 0", binding.CodeOtherPlan, func(t *testing.T) error {
			grants := issue(t, plan(t), nil)
			other := plan(t)
			other.Steps[2] = []binding.Call{{Tool: "click", Arguments: json.RawMessage(`{"target":"button:Delete account"}`)}}
			g := issue(t, other, nil)[1]
			_, err := afterFirst(t, grants).Authorize(g, live(t, g))
			return err
		}},
		{"other plan: the broker is pinned to another plan", binding.CodeOtherPlan, func(t *testing.T) error {
			other := plan(t)
			other.Steps[2] = []binding.Call{{Tool: "click", Arguments: json.RawMessage(`{"target":"button:Delete account"}`)}}
			g := issue(t, other, nil)[0]
			b := brokerWith(t, func(o *binding.BrokerOptions) { o.PlanID = issue(t, plan(t), nil)[0].PlanID })
			_, err := b.Authorize(g, live(t, g))
			return err
		}},
		{"lifetime beyond the broker's maximum", binding.CodeLifetimeExceeded, func(t *testing.T) error {
			p := plan(t)
			p.ExpiresAt = p.IssuedAt.Add(binding.DefaultMaxLifetime + time.Nanosecond)
			g := issue(t, p, nil)[0]
			_, err := brokerAt(t, issuedAt).Authorize(g, live(t, g))
			return err
		}},
		{"state unavailable: the step store fails", binding.CodeStateUnavailable, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			b := brokerWith(t, func(o *binding.BrokerOptions) { o.Steps = failingStore{} })
			_, err := b.Authorize(g, live(t, g))
			return err
		}},
		{"state unavailable: the step store cannot record the step", binding.CodeStateUnavailable, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			b := brokerWith(t, func(o *binding.BrokerOptions) { o.Steps = readOnlyStore{binding.NewMemoryStepStore()} })
			_, err := b.Authorize(g, live(t, g))
			return err
		}},
		{"malformed grant with a correct ID: no candidates", binding.CodeInvalidGrant, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			g.Candidates = nil
			g.ID = mustID(t, g)
			_, err := brokerAt(t, issuedAt).Authorize(g, live(t, issue(t, plan(t), nil)[0]))
			return err
		}},
		{"malformed grant with a correct ID: plan ID not a digest", binding.CodeInvalidGrant, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			g.PlanID = ""
			g.ID = mustID(t, g)
			_, err := brokerAt(t, issuedAt).Authorize(g, live(t, g))
			return err
		}},
		{"live schema not closed", binding.CodeSchemaNotClosed, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			call := live(t, g)
			call.InputSchema = json.RawMessage(`{"type":"object","properties":{"target":{"type":"string"}}}`)
			_, err := brokerAt(t, issuedAt).Authorize(g, call)
			return err
		}},
		{"duplicate: step 0 twice", binding.CodeGrantConsumed, func(t *testing.T) error {
			grants := issue(t, plan(t), nil)
			_, err := afterFirst(t, grants).Authorize(grants[0], live(t, grants[0]))
			return err
		}},
		{"wrong target: another host", binding.CodeWrongTarget, func(t *testing.T) error {
			p := plan(t)
			p.Host = "vm-host-8.lab.internal"
			g := issue(t, p, nil)[0]
			_, err := brokerAt(t, issuedAt).Authorize(g, live(t, g))
			return err
		}},
		{"wrong target: another VM", binding.CodeWrongTarget, func(t *testing.T) error {
			p := plan(t)
			p.VMUUID = "0d4a1f6e-2b7c-4e8a-9f3d-6c5b4a392817"
			g := issue(t, p, nil)[0]
			_, err := brokerAt(t, issuedAt).Authorize(g, live(t, g))
			return err
		}},
		{"stale: at the expiry", binding.CodeGrantStale, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			_, err := brokerAt(t, expiresAt).Authorize(g, live(t, g))
			return err
		}},
		{"not yet valid: issued in the broker's future", binding.CodeGrantNotYetValid, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			_, err := brokerAt(t, issuedAt.Add(-time.Second)).Authorize(g, live(t, g))
			return err
		}},
		{"cross-run: a grant of another run", binding.CodeCrossRun, func(t *testing.T) error {
			p := plan(t)
			p.RunID = "run_other"
			g := issue(t, p, nil)[0]
			_, err := brokerAt(t, issuedAt).Authorize(g, live(t, g))
			return err
		}},
		{"cross-run: a grant under another policy", binding.CodeCrossRun, func(t *testing.T) error {
			p := plan(t)
			p.PolicyDigest = policyDigest(t, "permissive")
			g := issue(t, p, nil)[0]
			_, err := brokerAt(t, issuedAt).Authorize(g, live(t, g))
			return err
		}},
		{"altered grant: arguments changed after issue", binding.CodeGrantAltered, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			g.Candidates[0].Arguments = json.RawMessage(`{"target":"button:Delete account"}`)
			_, err := brokerAt(t, issuedAt).Authorize(g, live(t, g))
			return err
		}},
		{"altered grant: expiry extended after issue", binding.CodeGrantAltered, func(t *testing.T) error {
			g := issue(t, plan(t), &key)[0]
			g.ExpiresAt = g.ExpiresAt.Add(time.Hour)
			_, err := brokerAt(t, expiresAt, key).Authorize(g, live(t, g))
			return err
		}},
		{"unsealed grant at a keyed broker", binding.CodeGrantUnsealed, func(t *testing.T) error {
			g := issue(t, plan(t), nil)[0]
			_, err := brokerAt(t, issuedAt, key).Authorize(g, live(t, g))
			return err
		}},
		{"forged: fields changed, ID recomputed, seal kept", binding.CodeGrantUnsealed, func(t *testing.T) error {
			g := issue(t, plan(t), &key)[0]
			g.Candidates[0].Arguments = json.RawMessage(`{"target":"button:Delete account"}`)
			var err error
			if g.ID, err = g.ComputeID(); err != nil {
				t.Fatal(err)
			}
			_, err = brokerAt(t, issuedAt, key).Authorize(g, live(t, g))
			return err
		}},
		{"forged: sealed with a key the broker does not hold", binding.CodeGrantUnsealed, func(t *testing.T) error {
			other := binding.SealKey{ID: "k1", Secret: []byte("a different 32-byte secret......")}
			g := issue(t, plan(t), &other)[0]
			_, err := brokerAt(t, issuedAt, key).Authorize(g, live(t, g))
			return err
		}},
	}
}

// TestBrokerRefusals runs every failure mode; each is refused with its own code
// before anything is dispatched.
func TestBrokerRefusals(t *testing.T) {
	for _, r := range refusals() {
		t.Run(r.name, func(t *testing.T) {
			err := r.run(t)
			var aerr *automium.Error
			if !errors.As(err, &aerr) {
				t.Fatalf("Authorize error = %v, want an *automium.Error with code %s", err, r.code)
			}
			if aerr.Code != r.code {
				t.Errorf("code = %s, want %s (%s)", aerr.Code, r.code, aerr.Message)
			}
			if aerr.Message == "" || aerr.Field == "" {
				t.Errorf("refusal %+v lacks a message or field", aerr)
			}
		})
	}
}

// TestEveryCheckCanFail shows that no check of Authorize is dead: every refusal
// code it documents is produced by some row of the table, each row on a call
// that is otherwise exactly the granted one.
func TestEveryCheckCanFail(t *testing.T) {
	want := []automium.Code{
		binding.CodeGrantAltered, binding.CodeGrantUnsealed, binding.CodeGrantConsumed, binding.CodeCrossRun,
		binding.CodeWrongTarget, binding.CodeGrantNotYetValid, binding.CodeGrantStale, binding.CodeOutOfOrder,
		binding.CodeServerSubstituted, binding.CodeContractDrift, binding.CodeCallAltered, binding.CodeArgumentsAltered,
		binding.CodeArgumentsOutsideSchema, binding.CodeOtherPlan, binding.CodeLifetimeExceeded, binding.CodeStateUnavailable,
		binding.CodeInvalidGrant, binding.CodeSchemaNotClosed,
	}
	var got []automium.Code
	for _, r := range refusals() {
		if !slices.Contains(got, r.code) {
			got = append(got, r.code)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("codes covered by the refusal table (-want +got):\n%s", diff)
	}
}

// TestBrokerPlanRunsInOrder authorizes a whole plan, sealed, and checks that the
// broker sends the granted canonical arguments, not the caller's spelling.
func TestBrokerPlanRunsInOrder(t *testing.T) {
	key := binding.SealKey{ID: "k1", Secret: testSecret}
	grants := issue(t, plan(t), &key)
	b := brokerAt(t, issuedAt.Add(9*time.Minute), binding.SealKey{ID: "k0", Secret: []byte("an older 32-byte key in rotation")}, key)
	var sent []string
	for _, g := range grants {
		call := live(t, g)
		call.Arguments = respell(t, g.Candidates[0].Arguments) // same value, other spelling
		auth, err := b.Authorize(g, call)
		if err != nil {
			t.Fatalf("step %d: %v", g.Step, err)
		}
		sent = append(sent, string(auth.Candidate.Arguments))
	}
	want := []string{
		`{"target":"button:Sign in"}`,
		`{"target":"textbox:User name","text":"ada"}`,
		`{"button":"left","count":1,"target":"button:Submit"}`,
	}
	if diff := cmp.Diff(want, sent); diff != "" {
		t.Errorf("arguments sent (-want +got):\n%s", diff)
	}
}

// TestRefusalChangesNothing shows that a refused call leaves its grant usable:
// nothing reached the server, so the plan neither advances nor loses the grant.
func TestRefusalChangesNothing(t *testing.T) {
	g := issue(t, plan(t), nil)[0]
	b := brokerAt(t, issuedAt)
	call := live(t, g)
	call.Arguments = json.RawMessage(`{"target":"button:Delete account"}`)
	if _, err := b.Authorize(g, call); err == nil {
		t.Fatal("altered call authorized")
	}
	if _, err := b.Authorize(g, live(t, g)); err != nil {
		t.Errorf("the granted call after a refused one: %v", err)
	}
}

// TestConcurrentUseOfOneGrant races many authorizations of one grant: exactly
// one wins.
func TestConcurrentUseOfOneGrant(t *testing.T) {
	g := issue(t, plan(t), nil)[0]
	b := brokerAt(t, issuedAt)
	var wg sync.WaitGroup
	results := make([]error, 16)
	for i := range results {
		wg.Go(func() { _, results[i] = b.Authorize(g, live(t, g)) })
	}
	wg.Wait()
	ok := 0
	for _, err := range results {
		var aerr *automium.Error
		switch {
		case err == nil:
			ok++
		case errors.As(err, &aerr) && aerr.Code == binding.CodeGrantConsumed:
		default:
			t.Errorf("unexpected error %v", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d authorizations of one grant succeeded, want 1", ok)
	}
}

func TestNewBrokerRefusesBadOptions(t *testing.T) {
	good := binding.BrokerOptions{RunID: runID, PolicyDigest: policyDigest(t, "default"), Host: host, VMUUID: vmUUID, Now: time.Now}
	tests := []struct {
		name   string
		change func(*binding.BrokerOptions)
	}{
		{"no clock", func(o *binding.BrokerOptions) { o.Now = nil }},
		{"no run", func(o *binding.BrokerOptions) { o.RunID = "" }},
		{"policy not a digest", func(o *binding.BrokerOptions) { o.PolicyDigest = "default" }},
		{"VM not a UUID", func(o *binding.BrokerOptions) { o.VMUUID = "vm-1" }},
		{"short key", func(o *binding.BrokerOptions) { o.Keys = []binding.SealKey{{ID: "k", Secret: []byte("short")}} }},
		{"key without ID", func(o *binding.BrokerOptions) { o.Keys = []binding.SealKey{{Secret: testSecret}} }},
		{"key ID with a NUL", func(o *binding.BrokerOptions) { o.Keys = []binding.SealKey{{ID: "k\x00", Secret: testSecret}} }},
		{"two keys with one ID", func(o *binding.BrokerOptions) {
			o.Keys = []binding.SealKey{{ID: "k1", Secret: testSecret}, {ID: "k1", Secret: []byte("another 32-byte secret, same ID!")}}
		}},
		{"skew too large", func(o *binding.BrokerOptions) { o.Skew = time.Hour }},
		{"lifetime too large", func(o *binding.BrokerOptions) { o.MaxLifetime = binding.MaxGrantLifetime + time.Nanosecond }},
		{"negative lifetime", func(o *binding.BrokerOptions) { o.MaxLifetime = -time.Second }},
		{"plan ID not a digest", func(o *binding.BrokerOptions) { o.PlanID = "plan-1" }},
	}
	for _, tt := range tests {
		o := good
		tt.change(&o)
		if _, err := binding.NewBroker(o); err == nil {
			t.Errorf("%s: NewBroker = nil error, want one", tt.name)
		}
	}
	if _, err := binding.NewBroker(good); err != nil {
		t.Errorf("good options: %v", err)
	}
}

// TestSkewToleratesAnEarlyIssuerOnly: skew admits a grant issued slightly in the
// broker's future, and never extends an expiry.
func TestSkewToleratesAnEarlyIssuerOnly(t *testing.T) {
	g := issue(t, plan(t), nil)[0]
	opts := func(now time.Time) binding.BrokerOptions {
		return binding.BrokerOptions{RunID: runID, PolicyDigest: policyDigest(t, "default"), Host: host, VMUUID: vmUUID,
			Skew: 30 * time.Second, Now: func() time.Time { return now }}
	}
	early, _ := binding.NewBroker(opts(issuedAt.Add(-20 * time.Second)))
	if _, err := early.Authorize(g, live(t, g)); err != nil {
		t.Errorf("20 s early with 30 s skew: %v", err)
	}
	late, _ := binding.NewBroker(opts(expiresAt.Add(time.Nanosecond)))
	if _, err := late.Authorize(g, live(t, g)); err == nil {
		t.Error("past expiry with skew: authorized")
	}
}

// choicePlan is a one-step plan over two servers whose step offers three
// candidates, followed by a plain step.
func choicePlan(t testing.TB) binding.Plan {
	p := plan(t)
	p.Servers = append(p.Servers, binding.PinnedServer{Identity: otherUI, Catalog: uiCatalog(false)})
	p.Steps = [][]binding.Call{
		{
			{Server: uiServer, Tool: "click", Arguments: json.RawMessage(`{"target":"button:Sign in"}`)},
			{Server: otherUI, Tool: "click", Arguments: json.RawMessage(`{"target":"button:Sign in"}`)},
			{Server: uiServer, Tool: "type_text", Arguments: json.RawMessage(`{"target":"textbox:User name","text":"ada"}`)},
		},
		{{Server: uiServer, Tool: "click", Arguments: json.RawMessage(`{"target":"button:Submit"}`)}},
	}
	return p
}

// liveOn is the live call for candidate i of g on an unchanged server.
func liveOn(t testing.TB, g binding.Grant, i int) binding.LiveCall {
	c := uiCatalog(false)
	cand := g.Candidates[i]
	schema, _ := c.InputSchema(cand.Tool)
	return binding.LiveCall{Server: cand.Server, CatalogDigest: mustDigest(t, c), InputSchema: schema, Tool: cand.Tool, Arguments: cand.Arguments}
}

// TestExactChoiceAuthorizesTheChosenCandidate: each candidate, chosen,
// authorizes exactly itself and consumes the step for all of them.
func TestExactChoiceAuthorizesTheChosenCandidate(t *testing.T) {
	g := issue(t, choicePlan(t), nil)[0]
	for i, cand := range g.Candidates {
		b := brokerAt(t, issuedAt)
		auth, err := b.Authorize(g, liveOn(t, g, i))
		if err != nil {
			t.Fatalf("candidate %d: %v", i, err)
		}
		if diff := cmp.Diff(binding.Authorized{Step: 0, Index: i, Candidate: cand}, auth); diff != "" {
			t.Errorf("candidate %d authorized (-want +got):\n%s", i, diff)
		}
		for j := range g.Candidates {
			if _, err := b.Authorize(g, liveOn(t, g, j)); codeOf(err) != binding.CodeGrantConsumed {
				t.Errorf("candidate %d after candidate %d: error %v, want %s", j, i, err, binding.CodeGrantConsumed)
			}
		}
	}
}

// TestReorderedCandidatesAreAltered: the candidates' order is bound; a grant
// whose candidates were reordered (or one dropped) after issue is refused.
func TestReorderedCandidatesAreAltered(t *testing.T) {
	key := binding.SealKey{ID: "k1", Secret: testSecret}
	for name, change := range map[string]func(*binding.Grant){
		"swapped": func(g *binding.Grant) { g.Candidates[0], g.Candidates[1] = g.Candidates[1], g.Candidates[0] },
		"dropped": func(g *binding.Grant) { g.Candidates = g.Candidates[1:] },
		"added": func(g *binding.Grant) {
			g.Candidates = append(g.Candidates, binding.Candidate{Server: otherUI, CatalogDigest: g.Candidates[0].CatalogDigest, Tool: "click",
				Arguments: json.RawMessage(`{"target":"button:Delete account"}`)})
		},
	} {
		g := issue(t, choicePlan(t), &key)[0]
		g.Candidates = slices.Clone(g.Candidates)
		change(&g)
		if _, err := brokerAt(t, issuedAt, key).Authorize(g, liveOn(t, g, 0)); codeOf(err) != binding.CodeGrantAltered {
			t.Errorf("%s: error %v, want %s", name, err, binding.CodeGrantAltered)
		}
	}
}

func codeOf(err error) automium.Code {
	var aerr *automium.Error
	if errors.As(err, &aerr) {
		return aerr.Code
	}
	return ""
}
