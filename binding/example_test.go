package binding_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
)

// Example shows a grant's round trip: a planner issues sealed grants for a
// plan, they travel as JSON, and the broker on the executor's side refuses an
// altered call, authorizes the granted call once, and refuses a repeat.
func Example() {
	// The catalog the plan was reviewed against, as the server's tools/list
	// answered it.
	catalog := binding.Catalog{
		ProtocolVersion: "2025-11-25",
		Tools: []json.RawMessage{json.RawMessage(`{"name":"click","inputSchema":{"type":"object",` +
			`"properties":{"target":{"type":"string"}},"required":["target"],"additionalProperties":false}}`)},
	}
	policy, _ := binding.Digest(map[string]any{"servers": []string{"synthetic-ui"}})
	// The key comes from the caller's secret store; this one is for the example.
	key := binding.SealKey{ID: "2026-11", Secret: []byte("example key: 32 bytes or more!!!")}
	issued := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

	server := binding.ServerIdentity{Name: "synthetic-ui", Version: "v1.4.0"}
	grants, err := binding.IssuePlan(binding.Plan{
		Servers: []binding.PinnedServer{{Identity: server, Catalog: catalog}},
		RunID:   "run_4f1c2a", PolicyDigest: policy,
		Host: "vm-host-7", VMUUID: "5c0f5b2e-8a43-4c1b-9a55-2f6e1d7c9b10",
		IssuedAt: issued, ExpiresAt: issued.Add(10 * time.Minute),
		// One step; the model may choose either candidate.
		Steps: [][]binding.Call{{
			{Tool: "click", Arguments: json.RawMessage(`{ "target": "button:Sign in" }`)},
			{Tool: "click", Arguments: json.RawMessage(`{"target":"link:Forgot password"}`)},
		}},
	}, &key)
	if err != nil {
		panic(err)
	}
	wire, _ := json.Marshal(grants[0])
	var grant binding.Grant
	_ = json.Unmarshal(wire, &grant)

	broker, _ := binding.NewBroker(binding.BrokerOptions{
		RunID: "run_4f1c2a", PolicyDigest: policy, Host: "vm-host-7", VMUUID: "5c0f5b2e-8a43-4c1b-9a55-2f6e1d7c9b10",
		Keys: []binding.SealKey{key}, Now: func() time.Time { return issued.Add(time.Minute) },
	})
	digest, _ := catalog.DigestV2()
	schema, _ := catalog.InputSchema("click")
	call := binding.LiveCall{Server: server, CatalogDigest: digest, InputSchema: schema, Tool: "click",
		Arguments: json.RawMessage(`{"target":"button:Sign in"}`)}

	altered := call
	altered.Arguments = json.RawMessage(`{"target":"button:Delete account"}`)
	_, err = broker.Authorize(grant, altered)
	fmt.Println("altered:", code(err))
	auth, err := broker.Authorize(grant, call)
	fmt.Println("granted:", auth.Index, string(auth.Candidate.Arguments), err)
	other := call
	other.Arguments = json.RawMessage(`{"target":"link:Forgot password"}`)
	_, err = broker.Authorize(grant, other)
	fmt.Println("the other candidate:", code(err))
	// Output:
	// altered: arguments_altered
	// granted: 0 {"target":"button:Sign in"} <nil>
	// the other candidate: grant_consumed
}

func code(err error) automium.Code {
	var aerr *automium.Error
	if errors.As(err, &aerr) {
		return aerr.Code
	}
	return ""
}
