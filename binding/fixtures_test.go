package binding_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/automium/automium/binding"
)

// The fixtures model SYS-REQ-032's setting: a test-only synthetic-UI MCP server
// whose tools act on a VM's desktop, planned for one run.

var (
	uiServer   = binding.ServerIdentity{Name: "synthetic-ui", Version: "v1.4.0"}
	otherUI    = binding.ServerIdentity{Name: "other-ui", Version: "v0.9.0"}
	issuedAt   = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	expiresAt  = issuedAt.Add(10 * time.Minute)
	runID      = "run_4f1c2a"
	vmUUID     = "5c0f5b2e-8a43-4c1b-9a55-2f6e1d7c9b10"
	host       = "vm-host-7.lab.internal"
	testSecret = []byte("0123456789abcdef0123456789abcdef") // 32 bytes, a test key only
)

// clickSchema is the closed input schema of the click tool.
const clickSchema = `{"type":"object","properties":{"target":{"type":"string","minLength":1,"maxLength":200},` +
	`"button":{"type":"string","enum":["left","right"]},"count":{"type":"integer","minimum":1,"maximum":3}},` +
	`"required":["target"],"additionalProperties":false}`

// typeSchema is the closed input schema of the type_text tool.
const typeSchema = `{"type":"object","properties":{"target":{"type":"string"},"text":{"type":"string","maxLength":1000}},` +
	`"required":["target","text"],"additionalProperties":false}`

func tool(name, schema string) json.RawMessage {
	return json.RawMessage(`{"name":"` + name + `","description":"synthetic UI action","inputSchema":` + schema +
		`,"annotations":{"readOnlyHint":false,"destructiveHint":false}}`)
}

// uiCatalog is the synthetic-UI server's catalog; changed gives the click tool a
// looser schema, as a server that changed its tools would.
func uiCatalog(changed bool) binding.Catalog {
	click := clickSchema
	if changed {
		click = `{"type":"object","properties":{"target":{"type":"string"},"button":{"type":"string"}},"additionalProperties":false}`
	}
	return binding.Catalog{
		ProtocolVersion: "2025-11-25",
		Tools:           []json.RawMessage{tool("click", click), tool("type_text", typeSchema)},
		Resources:       []json.RawMessage{json.RawMessage(`{"uri":"ui://screen","name":"screen","mimeType":"image/png"}`)},
	}
}

func mustDigest(t testing.TB, c binding.Catalog) string {
	t.Helper()
	d, err := c.DigestV2()
	if err != nil {
		t.Fatalf("DigestV2: %v", err)
	}
	return d
}

func policyDigest(t testing.TB, name string) string {
	t.Helper()
	d, err := binding.Digest(map[string]any{"policy": name, "servers": []string{"synthetic-ui"}, "maxCalls": 3})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// plan returns a three-step plan for the run on the VM, one candidate a step,
// all for the synthetic-UI server.
func plan(t testing.TB) binding.Plan {
	return binding.Plan{
		Servers: []binding.PinnedServer{{Identity: uiServer, Catalog: uiCatalog(false)}},
		RunID:   runID, PolicyDigest: policyDigest(t, "default"), Host: host, VMUUID: vmUUID,
		IssuedAt: issuedAt, ExpiresAt: expiresAt,
		Steps: steps(
			binding.Call{Tool: "click", Arguments: json.RawMessage(`{"target":"button:Sign in"}`)},
			binding.Call{Tool: "type_text", Arguments: json.RawMessage(`{"text":"ada","target":"textbox:User name"}`)},
			binding.Call{Tool: "click", Arguments: json.RawMessage(`{ "button": "left", "target": "button:Submit", "count": 1.0 }`)},
		),
	}
}

// steps makes a plan's steps of one candidate each.
func steps(calls ...binding.Call) [][]binding.Call {
	out := make([][]binding.Call, len(calls))
	for i, c := range calls {
		out[i] = []binding.Call{c}
	}
	return out
}

func issue(t testing.TB, p binding.Plan, key *binding.SealKey) []binding.Grant {
	t.Helper()
	grants, err := binding.IssuePlan(p, key)
	if err != nil {
		t.Fatalf("IssuePlan: %v", err)
	}
	return grants
}

// brokerAt returns a broker for the fixture run whose clock reads now.
func brokerAt(t testing.TB, now time.Time, keys ...binding.SealKey) *binding.Broker {
	t.Helper()
	b, err := binding.NewBroker(binding.BrokerOptions{
		RunID: runID, PolicyDigest: policyDigest(t, "default"), Host: host, VMUUID: vmUUID,
		Keys: keys, Now: func() time.Time { return now },
	})
	if err != nil {
		t.Fatalf("NewBroker: %v", err)
	}
	return b
}

// live returns the call a dispatcher would present for g's first candidate
// against the unchanged synthetic-UI server.
func live(t testing.TB, g binding.Grant) binding.LiveCall {
	c := uiCatalog(false)
	cand := g.Candidates[0]
	schema, _ := c.InputSchema(cand.Tool)
	return binding.LiveCall{Server: uiServer, CatalogDigest: mustDigest(t, c), InputSchema: schema, Tool: cand.Tool, Arguments: cand.Arguments}
}

// brokerWith returns a broker for the fixture run at issuedAt with options
// changed by change.
func brokerWith(t testing.TB, change func(*binding.BrokerOptions)) *binding.Broker {
	t.Helper()
	o := binding.BrokerOptions{RunID: runID, PolicyDigest: policyDigest(t, "default"), Host: host, VMUUID: vmUUID,
		Now: func() time.Time { return issuedAt }}
	change(&o)
	b, err := binding.NewBroker(o)
	if err != nil {
		t.Fatalf("NewBroker: %v", err)
	}
	return b
}

// failingStore is a step store whose backend is down.
type failingStore struct{}

func (failingStore) Position(string) (binding.Position, error) {
	return binding.Position{}, errors.New("store unreachable")
}

func (failingStore) Advance(string, binding.Position, string) (bool, error) {
	return false, errors.New("store unreachable")
}

func mustID(t testing.TB, g binding.Grant) string {
	t.Helper()
	id, err := g.ComputeID()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// respell writes the same JSON object with its members in reverse order,
// whole numbers as 1.0E0-style exponents and spaces between tokens: the same
// value under RFC 8785, other bytes.
func respell(t testing.TB, canonical json.RawMessage) json.RawMessage {
	t.Helper()
	var members map[string]any
	if err := json.Unmarshal(canonical, &members); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	slices.Reverse(keys)
	var b strings.Builder
	b.WriteString("{ ")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" , ")
		}
		v, _ := json.Marshal(members[k])
		if f, ok := members[k].(float64); ok && f == float64(int64(f)) {
			v = []byte(fmt.Sprintf("%d.0E0", int64(f)))
		}
		fmt.Fprintf(&b, "%q : %s", k, v)
	}
	b.WriteString(" }")
	return json.RawMessage(b.String())
}

// readOnlyStore reads positions but cannot record one, as a store whose
// backend refuses writes.
type readOnlyStore struct{ binding.StepStore }

func (readOnlyStore) Advance(string, binding.Position, string) (bool, error) {
	return false, errors.New("store is read-only")
}

// mustDigest1 is the catalog's tool-catalog-v1 digest, for the tests of that rule.
func mustDigest1(t testing.TB, c binding.Catalog) string {
	t.Helper()
	d, err := c.Digest()
	if err != nil {
		t.Fatalf("Digest: %v", err)
	}
	return d
}
