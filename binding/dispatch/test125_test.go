package dispatch_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/google/go-cmp/cmp"
)

// The fixture cases of TEST-125 (SYS-REQ-032): server identity, exact choice,
// no retry, contract drift, and wrong run or VM, for a step that offers a
// choice of candidate calls on two servers that both expose "click".

// choiceStep is a step of three candidates: click "Sign in" on synthetic-ui,
// click "Sign in" on other-ui, and click "Help" on synthetic-ui.
func choiceStep(t *testing.T, ui, other *fixture) []binding.Grant {
	servers := []binding.PinnedServer{{Identity: uiIdentity, Catalog: pinnedOf(t, ui)}, {Identity: otherIdentity, Catalog: pinnedOf(t, other)}}
	onOther := click("button:Sign in")
	onOther.Server = otherIdentity
	return choices(t, servers, []binding.Call{click("button:Sign in"), onOther, click("link:Help")}, []binding.Call{click("button:Submit")})
}

// TestExactChoice: whichever candidate the model chooses, exactly that call
// goes to exactly its server, with the granted bytes; nothing else is sent.
func TestExactChoice(t *testing.T) {
	onOther := click("button:Sign in")
	onOther.Server = otherIdentity
	tests := []struct {
		name          string
		choice        binding.Call
		toUI, toOther []string
	}{
		{"synthetic-ui's Sign in", click("button:Sign in"), []string{`click {"target":"button:Sign in"}`}, nil},
		{"other-ui's Sign in", onOther, nil, []string{`click {"target":"button:Sign in"}`}},
		{"synthetic-ui's Help, spelled otherwise", binding.Call{Server: uiIdentity, Tool: "click", Arguments: json.RawMessage(`{ "target" : "link:\u0048elp" }`)},
			[]string{`click {"target":"link:Help"}`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ui, other := newFixture(uiIdentity, clickSchema), newFixture(otherIdentity, clickSchema)
			g := choiceStep(t, ui, other)
			d := dispatch.New(newBroker(t, issuedAt), nil)
			connect(t, d, ui)
			connect(t, d, other)
			if _, err := d.Dispatch(context.Background(), g[0], tt.choice); err != nil {
				t.Fatalf("Dispatch: %v", err)
			}
			if diff := cmp.Diff(tt.toUI, ui.received()); diff != "" {
				t.Errorf("synthetic-ui received (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.toOther, other.received()); diff != "" {
				t.Errorf("other-ui received (-want +got):\n%s", diff)
			}
		})
	}
}

// TestChoiceOutsideTheCandidates: a choice that mixes the parts of two
// candidates, or names anything else, is refused before dispatch, and the
// step stays usable.
func TestChoiceOutsideTheCandidates(t *testing.T) {
	helpOnOther := click("link:Help") // Help is a candidate on synthetic-ui only
	helpOnOther.Server = otherIdentity
	tests := []struct {
		name   string
		choice binding.Call
		want   string
	}{
		{"a candidate's arguments on the other candidate's server", helpOnOther, string(binding.CodeArgumentsAltered)},
		{"another tool on a candidate's server", binding.Call{Server: uiIdentity, Tool: "fail", Arguments: json.RawMessage(`{"target":"button:Sign in"}`)}, string(binding.CodeCallAltered)},
		{"arguments no candidate has", click("button:Delete account"), string(binding.CodeArgumentsAltered)},
		{"an extra property", binding.Call{Server: uiIdentity, Tool: "click", Arguments: json.RawMessage(`{"target":"button:Sign in","button":"right"}`)}, string(binding.CodeArgumentsAltered)},
		{"a server with a case-variant name", binding.Call{Server: binding.ServerIdentity{Name: "Synthetic-UI", Version: "v1.4.0"}, Tool: "click",
			Arguments: json.RawMessage(`{"target":"button:Sign in"}`)}, string(binding.CodeServerUnknown)},
		{"a tool name with a NUL", binding.Call{Server: uiIdentity, Tool: "click\x00", Arguments: json.RawMessage(`{"target":"button:Sign in"}`)}, string(binding.CodeCallAltered)},
		{"the next step's call", click("button:Submit"), string(binding.CodeArgumentsAltered)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ui, other := newFixture(uiIdentity, clickSchema), newFixture(otherIdentity, clickSchema)
			g := choiceStep(t, ui, other)
			d := dispatch.New(newBroker(t, issuedAt), nil)
			connect(t, d, ui)
			connect(t, d, other)
			if _, err := d.Dispatch(context.Background(), g[0], tt.choice); string(codeOf(err)) != tt.want {
				t.Errorf("error %v, want %s", err, tt.want)
			}
			if got := append(ui.received(), other.received()...); len(got) != 0 {
				t.Fatalf("servers received %q, want nothing", got)
			}
			if _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); err != nil {
				t.Errorf("a candidate after the refused choice: %v", err)
			}
		})
	}
}

// TestNoRetryAcrossCandidates: once one candidate of a step was dispatched,
// successfully or not, no candidate of that step is dispatched again.
func TestNoRetryAcrossCandidates(t *testing.T) {
	ui, other := newFixture(uiIdentity, clickSchema), newFixture(otherIdentity, clickSchema)
	servers := []binding.PinnedServer{{Identity: uiIdentity, Catalog: pinnedOf(t, ui)}, {Identity: otherIdentity, Catalog: pinnedOf(t, other)}}
	failing := binding.Call{Server: uiIdentity, Tool: "fail", Arguments: json.RawMessage(`{"target":"button:Gone"}`)}
	onOther := click("button:Sign in")
	onOther.Server = otherIdentity
	g := choices(t, servers, []binding.Call{failing, onOther}, []binding.Call{click("button:Sign in"), onOther})
	d := dispatch.New(newBroker(t, issuedAt), nil)
	connect(t, d, ui)
	connect(t, d, other)
	ctx := context.Background()

	res, err := d.Dispatch(ctx, g[0], failing)
	if err != nil || !res.IsError {
		t.Fatalf("failing candidate: result %+v, error %v; want a tool error result", res, err)
	}
	if _, err := d.Dispatch(ctx, g[0], onOther); codeOf(err) != binding.CodeGrantConsumed {
		t.Errorf("the other candidate after a failure: error %v, want %s", err, binding.CodeGrantConsumed)
	}
	if _, err := d.Dispatch(ctx, g[1], onOther); err != nil {
		t.Fatalf("step 1: %v", err)
	}
	if _, err := d.Dispatch(ctx, g[1], click("button:Sign in")); codeOf(err) != binding.CodeGrantConsumed {
		t.Errorf("the other candidate after a success: error %v, want %s", err, binding.CodeGrantConsumed)
	}
	if diff := cmp.Diff([]string{`fail {"target":"button:Gone"}`}, ui.received()); diff != "" {
		t.Errorf("synthetic-ui received (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`click {"target":"button:Sign in"}`}, other.received()); diff != "" {
		t.Errorf("other-ui received (-want +got):\n%s", diff)
	}
}

// TestContractDriftOfOneCandidate: the server of one candidate changed its
// contract. Choosing that candidate is refused before dispatch; the step is
// still usable through a candidate whose server did not drift.
func TestContractDriftOfOneCandidate(t *testing.T) {
	ui, other := newFixture(uiIdentity, clickSchema), newFixture(otherIdentity, clickSchema)
	g := choiceStep(t, ui, other) // pinned while other-ui had the strict schema
	changed := newFixture(otherIdentity, looserClickSchema)
	d := dispatch.New(newBroker(t, issuedAt), nil)
	connect(t, d, ui)
	connect(t, d, changed)
	onOther := click("button:Sign in")
	onOther.Server = otherIdentity
	if _, err := d.Dispatch(context.Background(), g[0], onOther); codeOf(err) != binding.CodeContractDrift {
		t.Errorf("the drifted server's candidate: error %v, want %s", err, binding.CodeContractDrift)
	}
	if got := changed.received(); len(got) != 0 {
		t.Errorf("the drifted server received %q", got)
	}
	if _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); err != nil {
		t.Errorf("the other candidate: %v", err)
	}
}

// TestChoiceForWrongRunOrVM: a broker of another run, VM or host refuses
// every candidate, and nothing is sent.
func TestChoiceForWrongRunOrVM(t *testing.T) {
	for name, change := range map[string]func(*binding.BrokerOptions){
		"wrong run":  func(o *binding.BrokerOptions) { o.RunID = "run_other" },
		"wrong VM":   func(o *binding.BrokerOptions) { o.VMUUID = "0d4a1f6e-2b7c-4e8a-9f3d-6c5b4a392817" },
		"wrong host": func(o *binding.BrokerOptions) { o.Host = "vm-host-8" },
	} {
		t.Run(name, func(t *testing.T) {
			ui, other := newFixture(uiIdentity, clickSchema), newFixture(otherIdentity, clickSchema)
			g := choiceStep(t, ui, other)
			o := binding.BrokerOptions{RunID: runID, PolicyDigest: policy(t), Host: host, VMUUID: vmUUID, Now: func() time.Time { return issuedAt }}
			change(&o)
			b, err := binding.NewBroker(o)
			if err != nil {
				t.Fatal(err)
			}
			d := dispatch.New(b, nil)
			connect(t, d, ui)
			connect(t, d, other)
			onOther := click("button:Sign in")
			onOther.Server = otherIdentity
			for _, choice := range []binding.Call{click("button:Sign in"), onOther, click("link:Help")} {
				if code := codeOf(must(d.Dispatch(context.Background(), g[0], choice))); code != binding.CodeCrossRun && code != binding.CodeWrongTarget {
					t.Errorf("choice %s: code %q, want %s or %s", choice.Server, code, binding.CodeCrossRun, binding.CodeWrongTarget)
				}
			}
			if got := append(ui.received(), other.received()...); len(got) != 0 {
				t.Errorf("servers received %q", got)
			}
		})
	}
}

func must[T any](_ T, err error) error { return err }

// TestDispatchSendsGrantedBytes: the caller's arguments select a candidate,
// but the bytes on the wire are the granted canonical ones. go-sdk compacts
// what it sends but keeps member order and number spelling, so a dispatcher
// that forwarded the caller's bytes would show here.
func TestDispatchSendsGrantedBytes(t *testing.T) {
	ui := newFixture(uiIdentity, clickSchema)
	g := grants(t, binding.Call{Server: uiIdentity, Tool: "click", Arguments: json.RawMessage(`{"button":"left","target":"button:Sign in"}`)})
	d := dispatch.New(newBroker(t, issuedAt), nil)
	connect(t, d, ui)
	caller := binding.Call{Server: uiIdentity, Tool: "click", Arguments: json.RawMessage(`{"target":"button:Sign\u0020in", "button":"left"}`)}
	if _, err := d.Dispatch(context.Background(), g[0], caller); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`click {"button":"left","target":"button:Sign in"}`}, ui.received()); diff != "" {
		t.Errorf("server received (-want +got):\n%s", diff)
	}
}
