package binding_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/automium/automium/canonicaljson"
	"github.com/google/go-cmp/cmp"
)

// TestCatalogCanonical pins the tool-catalog-v1 document of a small catalog, so
// the rule itself cannot change unnoticed.
func TestCatalogCanonical(t *testing.T) {
	c := binding.Catalog{
		ProtocolVersion: "2025-11-25",
		Tools: []json.RawMessage{
			json.RawMessage(`{"name":"zoom","inputSchema":{"type":"object","additionalProperties":false},"_meta":{"x":1},"icons":[]}`),
			json.RawMessage(`{"name":"click","title":"","description":"Click","inputSchema":{"type":"object","properties":{"n":{"type":"integer","maximum":1E2}},"additionalProperties":false},` +
				`"annotations":{"readOnlyHint":true,"custom":7}}`),
		},
		Resources: []json.RawMessage{json.RawMessage(`{"uri":"ui://screen","name":"screen","size":12345,"mimeType":"image/png"}`)},
		Prompts:   []json.RawMessage{json.RawMessage(`{"name":"plan","arguments":[{"name":"goal","required":true},{"name":"app"}]}`)},
	}
	got, err := c.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"catalog":"tool-catalog-v1","prompts":[{"arguments":[{"name":"app","required":false},{"name":"goal","required":true}],"name":"plan"}],` +
		`"protocolVersion":"2025-11-25","resources":[{"mimeType":"image/png","name":"screen","uri":"ui://screen"}],` +
		`"tools":[{"annotations":{"destructiveHint":true,"idempotentHint":false,"openWorldHint":true,"readOnlyHint":true},"description":"Click",` +
		`"inputSchema":{"additionalProperties":false,"properties":{"n":{"maximum":100,"type":"integer"}},"type":"object"},"name":"click"},` +
		`{"annotations":{"destructiveHint":true,"idempotentHint":false,"openWorldHint":true,"readOnlyHint":false},` +
		`"inputSchema":{"additionalProperties":false,"type":"object"},"name":"zoom"}]}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Canonical (-want +got):\n%s", diff)
	}
	if again, err := canonicaljson.Canonicalize(got); err != nil || string(again) != string(got) {
		t.Errorf("the assembled document is not canonical: %s, %v", again, err)
	}
	digests, err := c.Digests("2025-11-25", "2025-06-18")
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := c.Digest(); digests["2025-11-25"] != d || digests["2025-06-18"] == d {
		t.Errorf("Digests = %v, Digest = %s; want the 2025-11-25 entry equal and the other different", digests, d)
	}
}

// TestCatalogDigestIgnoresSerialization: the digest depends on what the
// catalog means, not on item order, key order, whitespace, number spelling,
// empty optional strings or explicit default hints.
func TestCatalogDigestIgnoresSerialization(t *testing.T) {
	a := binding.Catalog{ProtocolVersion: "2025-11-25", Tools: []json.RawMessage{
		json.RawMessage(`{"name":"a","inputSchema":{"type":"object","maximum":10}}`),
		json.RawMessage(`{"name":"b","description":"B"}`),
	}}
	b := binding.Catalog{ProtocolVersion: "2025-11-25", Tools: []json.RawMessage{
		json.RawMessage(`{ "description" : "B", "name":"b", "title": "", "annotations": {"destructiveHint": true, "readOnlyHint": false} }`),
		json.RawMessage(`{"inputSchema":{"maximum":1.0e1,"type":"object"},"name":"a","outputSchema":null}`),
	}}
	if da, db := mustDigest1(t, a), mustDigest1(t, b); da != db {
		t.Errorf("digests differ for one meaning: %s vs %s", da, db)
	}
	for name, change := range map[string]func(*binding.Catalog){
		"protocol version": func(c *binding.Catalog) { c.ProtocolVersion = "2025-06-18" },
		"description":      func(c *binding.Catalog) { c.Tools[1] = json.RawMessage(`{"name":"b","description":"B!"}`) },
		"schema bound": func(c *binding.Catalog) {
			c.Tools[0] = json.RawMessage(`{"name":"a","inputSchema":{"type":"object","maximum":11}}`)
		},
		"hint": func(c *binding.Catalog) {
			c.Tools[1] = json.RawMessage(`{"name":"b","description":"B","annotations":{"readOnlyHint":true}}`)
		},
		"added resource": func(c *binding.Catalog) { c.Resources = []json.RawMessage{json.RawMessage(`{"uri":"x://y"}`)} },
		"added prompt":   func(c *binding.Catalog) { c.Prompts = []json.RawMessage{json.RawMessage(`{"name":"p"}`)} },
	} {
		c := a
		c.Tools = append([]json.RawMessage(nil), a.Tools...)
		change(&c)
		if mustDigest1(t, c) == mustDigest1(t, a) {
			t.Errorf("changing the %s kept the digest", name)
		}
	}
}

func TestCatalogRefusesAmbiguity(t *testing.T) {
	tests := []struct {
		name    string
		catalog binding.Catalog
		field   string
	}{
		{"no protocol version", binding.Catalog{}, "protocolVersion"},
		{"two tools with one name", binding.Catalog{ProtocolVersion: "v", Tools: []json.RawMessage{json.RawMessage(`{"name":"a"}`), json.RawMessage(`{"name":"a","title":"x"}`)}}, "tools"},
		{"tool without a name", binding.Catalog{ProtocolVersion: "v", Tools: []json.RawMessage{json.RawMessage(`{"title":"x"}`)}}, "tools[0].name"},
		{"duplicate key in an item", binding.Catalog{ProtocolVersion: "v", Tools: []json.RawMessage{json.RawMessage(`{"name":"a","name":"b"}`)}}, "tools[0]"},
		{"hint not a boolean", binding.Catalog{ProtocolVersion: "v", Tools: []json.RawMessage{json.RawMessage(`{"name":"a","annotations":{"readOnlyHint":"yes"}}`)}}, "tools[0].annotations.readOnlyHint"},
		{"resource without a URI", binding.Catalog{ProtocolVersion: "v", Resources: []json.RawMessage{json.RawMessage(`{"name":"r"}`)}}, "resources[0].uri"},
		{"two prompt arguments with one name", binding.Catalog{ProtocolVersion: "v", Prompts: []json.RawMessage{json.RawMessage(`{"name":"p","arguments":[{"name":"x"},{"name":"x"}]}`)}}, "prompts[0].arguments"},
	}
	for _, tt := range tests {
		_, err := tt.catalog.Digest()
		var aerr *automium.Error
		if !errors.As(err, &aerr) || aerr.Code != binding.CodeInvalidCatalog || aerr.Field != tt.field {
			t.Errorf("%s: Digest error = %v, want %s at %s", tt.name, err, binding.CodeInvalidCatalog, tt.field)
		}
	}
}

// TestIssuePlanRefuses: a grant that could not be honoured is never made.
func TestIssuePlanRefuses(t *testing.T) {
	tests := []struct {
		name   string
		change func(*binding.Plan)
		code   automium.Code
		field  string
	}{
		{"arguments outside the schema: unknown property", func(p *binding.Plan) {
			p.Steps[0][0].Arguments = json.RawMessage(`{"target":"button:OK","x":1}`)
		}, binding.CodeArgumentsOutsideSchema, "steps[0][0].arguments"},
		{"arguments outside the schema: enum", func(p *binding.Plan) {
			p.Steps[0][0].Arguments = json.RawMessage(`{"target":"button:OK","button":"middle"}`)
		}, binding.CodeArgumentsOutsideSchema, "steps[0][0].arguments"},
		{"arguments outside the schema: maximum", func(p *binding.Plan) {
			p.Steps[0][0].Arguments = json.RawMessage(`{"target":"button:OK","count":4}`)
		}, binding.CodeArgumentsOutsideSchema, "steps[0][0].arguments"},
		{"arguments outside the schema: required", func(p *binding.Plan) {
			p.Steps[1][0].Arguments = json.RawMessage(`{"target":"textbox:Name"}`)
		}, binding.CodeArgumentsOutsideSchema, "steps[1][0].arguments"},
		{"arguments not an object", func(p *binding.Plan) { p.Steps[0][0].Arguments = json.RawMessage(`["button:OK"]`) }, binding.CodeArgumentsOutsideSchema, "steps[0][0].arguments"},
		{"arguments with a duplicate key", func(p *binding.Plan) {
			p.Steps[0][0].Arguments = json.RawMessage(`{"target":"button:OK","target":"button:Delete"}`)
		}, binding.CodeArgumentsOutsideSchema, "steps[0][0].arguments"},
		{"tool not in the pinned catalog", func(p *binding.Plan) { p.Steps[0][0].Tool = "run_shell" }, binding.CodeCallAltered, "steps[0][0].tool"},
		{"tool name with a NUL", func(p *binding.Plan) { p.Steps[0][0].Tool = "click\x00" }, binding.CodeCallAltered, "steps[0][0].tool"},
		{"open schema", func(p *binding.Plan) {
			p.Servers[0].Catalog.Tools = append(p.Servers[0].Catalog.Tools, tool("scroll", `{"type":"object","properties":{"dy":{"type":"integer"}}}`))
			p.Steps[0][0] = binding.Call{Tool: "scroll", Arguments: json.RawMessage(`{"dy":3}`)}
		}, binding.CodeSchemaNotClosed, "steps[0][0].tool"},
		{"schema open at depth", func(p *binding.Plan) {
			p.Servers[0].Catalog.Tools = append(p.Servers[0].Catalog.Tools, tool("drag", `{"type":"object","properties":{"to":{"type":"object","properties":{"x":{"type":"number"}}}},"additionalProperties":false}`))
			p.Steps[0][0] = binding.Call{Tool: "drag", Arguments: json.RawMessage(`{"to":{"x":1}}`)}
		}, binding.CodeSchemaNotClosed, "steps[0][0].tool"},
		{"remote $ref", func(p *binding.Plan) {
			p.Servers[0].Catalog.Tools = append(p.Servers[0].Catalog.Tools, tool("fetchy", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}},"additionalProperties":false}`))
			p.Steps[0][0] = binding.Call{Tool: "fetchy", Arguments: json.RawMessage(`{"a":1}`)}
		}, binding.CodeSchemaNotClosed, "steps[0][0].tool"},
		{"call for a server the plan does not pin", func(p *binding.Plan) { p.Steps[1][0].Server = otherUI }, binding.CodeServerUnknown, "steps[1][0].server"},
		{"confusable server name (Cyrillic s)", func(p *binding.Plan) {
			p.Servers = append(p.Servers, binding.PinnedServer{Identity: binding.ServerIdentity{Name: "\u0455ynthetic-ui", Version: "v1.4.0"}, Catalog: uiCatalog(false)})
		}, binding.CodeInvalidGrant, "servers[1].identity"},
		{"server name with a NUL", func(p *binding.Plan) {
			p.Servers[0].Identity.Name = "synthetic-ui\x00"
		}, binding.CodeInvalidGrant, "servers[0].identity"},
		{"server name with a trailing space", func(p *binding.Plan) { p.Servers[0].Identity.Name = "synthetic-ui " }, binding.CodeInvalidGrant, "servers[0].identity"},
		{"expiry past the year 9999", func(p *binding.Plan) {
			p.IssuedAt = time.Date(9999, 12, 31, 23, 30, 0, 0, time.UTC)
			p.ExpiresAt = p.IssuedAt.Add(time.Hour)
		}, binding.CodeInvalidGrant, "expiresAt"},
		{"server pinned twice", func(p *binding.Plan) { p.Servers = append(p.Servers, p.Servers[0]) }, binding.CodeInvalidGrant, "servers[1]"},
		{"two servers and a call that names none", func(p *binding.Plan) {
			p.Servers = append(p.Servers, binding.PinnedServer{Identity: otherUI, Catalog: uiCatalog(false)})
		}, binding.CodeInvalidGrant, "steps[0][0].server"},
		{"one candidate twice, spelled differently", func(p *binding.Plan) {
			p.Steps[0] = append(p.Steps[0], binding.Call{Tool: "click", Arguments: json.RawMessage(` { "target" : "button:Sign in" } `)})
		}, binding.CodeInvalidGrant, "steps[0][1]"},
		{"a step without candidates", func(p *binding.Plan) { p.Steps[1] = nil }, binding.CodeInvalidGrant, "steps[1]"},
		{"lifetime beyond the maximum", func(p *binding.Plan) { p.ExpiresAt = p.IssuedAt.Add(binding.MaxGrantLifetime + 1) }, binding.CodeInvalidGrant, "expiresAt"},
		{"no steps", func(p *binding.Plan) { p.Steps = nil }, binding.CodeInvalidGrant, "steps"},
		{"VM not a UUID", func(p *binding.Plan) { p.VMUUID = "vm-7" }, binding.CodeInvalidGrant, "vmUuid"},
		{"policy not a digest", func(p *binding.Plan) { p.PolicyDigest = "permissive" }, binding.CodeInvalidGrant, "policyDigest"},
		{"no run", func(p *binding.Plan) { p.RunID = "" }, binding.CodeInvalidGrant, "runId"},
		{"expiry before issue", func(p *binding.Plan) { p.ExpiresAt = p.IssuedAt }, binding.CodeInvalidGrant, "expiresAt"},
		{"no server version", func(p *binding.Plan) { p.Servers[0].Identity.Version = "" }, binding.CodeInvalidGrant, "servers[0].identity"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := plan(t)
			tt.change(&p)
			_, err := binding.IssuePlan(p, nil)
			var aerr *automium.Error
			if !errors.As(err, &aerr) || aerr.Code != tt.code || aerr.Field != tt.field {
				t.Fatalf("IssuePlan error = %v, want %s at %s", err, tt.code, tt.field)
			}
		})
	}
	if _, err := binding.IssuePlan(plan(t), &binding.SealKey{ID: "k", Secret: []byte("too short")}); err == nil {
		t.Error("IssuePlan with a short key: nil error")
	}
}

// TestGrantIsDeterministic: the same plan gives the same grants, IDs and seals,
// and a grant survives a JSON round trip intact.
func TestGrantIsDeterministic(t *testing.T) {
	key := binding.SealKey{ID: "k1", Secret: testSecret}
	a, b := issue(t, plan(t), &key), issue(t, plan(t), &key)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two issues of one plan differ (-a +b):\n%s", diff)
	}
	data, err := json.Marshal(a[2])
	if err != nil {
		t.Fatal(err)
	}
	var back binding.Grant
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if err := back.Verify(key); err != nil {
		t.Errorf("grant after a JSON round trip: %v", err)
	}
	for i, g := range a {
		if g.Step != i || g.PlanID != a[0].PlanID || !binding.IsDigest(g.PlanID) {
			t.Errorf("grant %d: step %d of plan %q; want step %d of one plan", i, g.Step, g.PlanID, i)
		}
	}
	if !strings.HasPrefix(a[0].Seal.MAC, "hmac-sha256:") || !binding.IsDigest(a[0].ID) {
		t.Errorf("grant ID %q or seal %q not in the documented form", a[0].ID, a[0].Seal.MAC)
	}
	// The VM UUID has one spelling.
	p := plan(t)
	p.VMUUID = strings.ToUpper(vmUUID)
	if got := issue(t, p, &key)[0].ID; got != a[0].ID {
		t.Errorf("upper-case VM UUID gave another grant ID")
	}
}

// TestCatalogRulesHold holds the rules CatalogRules states, one row each, to
// what Digest does: spellings the rules call equal have one digest, items
// they call invalid have none, and names sort as UTF-16 code units.
func TestCatalogRulesHold(t *testing.T) {
	tool := func(item string) binding.Catalog {
		return binding.Catalog{ProtocolVersion: "v", Tools: []json.RawMessage{json.RawMessage(item)}}
	}
	prompt := func(item string) binding.Catalog {
		return binding.Catalog{ProtocolVersion: "v", Prompts: []json.RawMessage{json.RawMessage(item)}}
	}
	same := []struct {
		name     string
		spelling []binding.Catalog
	}{
		{"inputSchema null is no inputSchema", []binding.Catalog{tool(`{"name":"a"}`), tool(`{"name":"a","inputSchema":null}`)}},
		{"outputSchema null is no outputSchema", []binding.Catalog{tool(`{"name":"a"}`), tool(`{"name":"a","outputSchema":null}`)}},
		{"annotations absent, null and {}", []binding.Catalog{tool(`{"name":"a"}`), tool(`{"name":"a","annotations":null}`), tool(`{"name":"a","annotations":{}}`)}},
		{"hints absent, null and MCP's defaults", []binding.Catalog{tool(`{"name":"a","annotations":{"readOnlyHint":null}}`),
			tool(`{"name":"a","annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false,"openWorldHint":true}}`)}},
		{"optional strings absent, null and empty", []binding.Catalog{tool(`{"name":"a"}`), tool(`{"name":"a","title":null,"description":""}`)}},
		{"other members left out", []binding.Catalog{tool(`{"name":"a"}`), tool(`{"name":"a","_meta":{"k":1},"icons":[{"src":"x"}],"x-vendor":true}`)}},
		{"prompt arguments absent, null and []", []binding.Catalog{prompt(`{"name":"p"}`), prompt(`{"name":"p","arguments":null}`), prompt(`{"name":"p","arguments":[]}`)}},
		{"required absent, null and false", []binding.Catalog{prompt(`{"name":"p","arguments":[{"name":"x"}]}`),
			prompt(`{"name":"p","arguments":[{"name":"x","required":null}]}`), prompt(`{"name":"p","arguments":[{"name":"x","required":false}]}`)}},
		{"no list and an empty list", []binding.Catalog{{ProtocolVersion: "v"}, {ProtocolVersion: "v", Tools: []json.RawMessage{}}}},
	}
	for _, tt := range same {
		want := mustDigest1(t, tt.spelling[0])
		for i, c := range tt.spelling[1:] {
			if got := mustDigest1(t, c); got != want {
				t.Errorf("%s: spelling %d has digest %s, want %s", tt.name, i+1, got, want)
			}
		}
	}

	invalid := []struct {
		name    string
		catalog binding.Catalog
		field   string
	}{
		{"prompt arguments as {}", prompt(`{"name":"p","arguments":{}}`), "prompts[0].arguments"},
		{"prompt arguments as a string", prompt(`{"name":"p","arguments":"goal"}`), "prompts[0].arguments"},
		{"prompt argument without a name", prompt(`{"name":"p","arguments":[{"description":"d"}]}`), "prompts[0].arguments[0].name"},
		{"required not a boolean", prompt(`{"name":"p","arguments":[{"name":"x","required":"yes"}]}`), "prompts[0].arguments[0].required"},
		{"annotations not an object", tool(`{"name":"a","annotations":[]}`), "tools[0].annotations"},
		{"name not a string", tool(`{"name":7}`), "tools[0].name"},
		{"title not a string", tool(`{"name":"a","title":false}`), "tools[0].title"},
		{"case-variant names deep in a schema", tool(`{"name":"a","inputSchema":{"type":"object","properties":{"k":{},"\u212a":{}}}}`), "tools[0]"},
		{"case-variant member names of the item", tool(`{"name":"a","inputSchema":null,"INPUTSCHEMA":{"type":"object"}}`), "tools[0]"},
		{"invalid UTF-8", tool("{\"name\":\"a\xff\"}"), "tools[0]"},
		{"a lone surrogate", tool(`{"name":"a\ud800"}`), "tools[0]"},
		{"a number beyond a double", tool(`{"name":"a","inputSchema":{"maximum":1e400}}`), "tools[0]"},
		{"nesting past the bound", tool(`{"name":"a","inputSchema":` + strings.Repeat("[", canonicaljson.MaxDepth) + strings.Repeat("]", canonicaljson.MaxDepth) + `}`), "tools[0]"},
		{"two resources with one uri", binding.Catalog{ProtocolVersion: "v", Resources: []json.RawMessage{json.RawMessage(`{"uri":"x://a"}`), json.RawMessage(`{"uri":"x://a","name":"b"}`)}}, "resources"},
		{"two prompts with one name", binding.Catalog{ProtocolVersion: "v", Prompts: []json.RawMessage{json.RawMessage(`{"name":"p"}`), json.RawMessage(`{"name":"p"}`)}}, "prompts"},
	}
	for _, tt := range invalid {
		_, err := tt.catalog.Digest()
		aerr, ok := errors.AsType[*automium.Error](err)
		if !ok || aerr.Code != binding.CodeInvalidCatalog || aerr.Field != tt.field {
			t.Errorf("%s: Digest error = %v, want %s at %s", tt.name, err, binding.CodeInvalidCatalog, tt.field)
		}
	}

	// U+FB33 is one UTF-16 code unit, 0xFB33; U+1F600 is the pair 0xD83D
	// 0xDE00, so it sorts first, although its code point is larger. Code
	// point or UTF-8 byte order would put it last.
	c := binding.Catalog{ProtocolVersion: "v",
		Tools:   []json.RawMessage{json.RawMessage(`{"name":"\ufb33"}`), json.RawMessage(`{"name":"\ud83d\ude00"}`)},
		Prompts: []json.RawMessage{json.RawMessage(`{"name":"p","arguments":[{"name":"\ufb33"},{"name":"\ud83d\ude00"},{"name":"Z"}]}`)}}
	doc, err := c.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tools   []struct{ Name string }
		Prompts []struct{ Arguments []struct{ Name string } }
	}
	if err := json.Unmarshal(doc, &got); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, tl := range got.Tools {
		order = append(order, tl.Name)
	}
	for _, a := range got.Prompts[0].Arguments {
		order = append(order, a.Name)
	}
	if diff := cmp.Diff([]string{"\U0001F600", "\uFB33", "Z", "\U0001F600", "\uFB33"}, order); diff != "" {
		t.Errorf("names not in UTF-16 code unit order (-want +got):\n%s", diff)
	}
}
