package binding_test

import (
	"encoding/json"
	"testing"

	"github.com/automium/automium/binding"
)

func v2(t *testing.T, c binding.Catalog) string {
	t.Helper()
	d, err := c.DigestV2()
	if err != nil {
		t.Fatalf("DigestV2: %v", err)
	}
	return d
}

func raws(items ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(items))
	for i, s := range items {
		out[i] = json.RawMessage(s)
	}
	return out
}

const v2Tool = `{"name":"click","inputSchema":{"type":"object","properties":{},"additionalProperties":false}`

// TestCatalogV2CoversWhatAServerExposes: every change to what a server
// advertises changes the tool-catalog-v2 digest, the members tool-catalog-v1
// leaves out included; tool-catalog-v1's digest stays what it was, for the
// server that advertises it.
func TestCatalogV2CoversWhatAServerExposes(t *testing.T) {
	base := binding.Catalog{ProtocolVersion: "2025-11-25",
		Tools:     raws(v2Tool + `}`),
		Resources: raws(`{"uri":"ui://screen","name":"screen"}`),
		Prompts:   raws(`{"name":"describe","arguments":[{"name":"detail"}]}`),
	}
	baseV1, baseV2 := mustDigest1(t, base), v2(t, base)
	for name, change := range map[string]func(*binding.Catalog){
		"a template added": func(c *binding.Catalog) {
			c.ResourceTemplates = raws(`{"uriTemplate":"ui://oracle/{key}","name":"oracle"}`)
		},
		"a tool's _meta": func(c *binding.Catalog) { c.Tools = raws(v2Tool + `,"_meta":{"oracle":"the answer is 42"}}`) },
		"a tool's icons": func(c *binding.Catalog) { c.Tools = raws(v2Tool + `,"icons":[{"src":"https://x.example/a.png"}]}`) },
		"a tool's execution": func(c *binding.Catalog) {
			c.Tools = raws(v2Tool + `,"execution":{"taskSupport":"optional"}}`)
		},
		"an annotation beyond the hints": func(c *binding.Catalog) { c.Tools = raws(v2Tool + `,"annotations":{"x-oracle":"42"}}`) },
		"a resource's _meta":             func(c *binding.Catalog) { c.Resources = raws(`{"uri":"ui://screen","name":"screen","_meta":{"k":1}}`) },
		"a resource's annotations": func(c *binding.Catalog) {
			c.Resources = raws(`{"uri":"ui://screen","name":"screen","annotations":{"audience":["assistant"]}}`)
		},
		"a prompt's _meta": func(c *binding.Catalog) {
			c.Prompts = raws(`{"name":"describe","arguments":[{"name":"detail"}],"_meta":{"k":1}}`)
		},
		"a prompt argument's member": func(c *binding.Catalog) {
			c.Prompts = raws(`{"name":"describe","arguments":[{"name":"detail","x":1}]}`)
		},
		"a member a later protocol adds": func(c *binding.Catalog) { c.Tools = raws(v2Tool + `,"futureMember":true}`) },
	} {
		c := base
		change(&c)
		if got := v2(t, c); got == baseV2 {
			t.Errorf("%s: the tool-catalog-v2 digest did not change", name)
		}
		if got := mustDigest1(t, c); got != baseV1 {
			t.Errorf("%s: the tool-catalog-v1 digest changed; v1 leaves it out", name)
		}
	}
	for name, same := range map[string]func(*binding.Catalog){
		"_meta null, {}; icons []; description \"\"": func(c *binding.Catalog) {
			c.Tools = raws(v2Tool + `,"_meta":{},"icons":[],"description":"","title":null}`)
		},
		"a resource's size": func(c *binding.Catalog) { c.Resources = raws(`{"uri":"ui://screen","name":"screen","size":1234}`) },
		"hints at their defaults": func(c *binding.Catalog) {
			c.Tools = raws(v2Tool + `,"annotations":{"readOnlyHint":false,"destructiveHint":true}}`)
		},
		"member order and spacing": func(c *binding.Catalog) {
			c.Tools = raws(`{ "inputSchema" : {"additionalProperties":false,"properties":{},"type":"object"}, "name":"click"}`)
		},
	} {
		c := base
		same(&c)
		if got := v2(t, c); got != baseV2 {
			t.Errorf("%s: the tool-catalog-v2 digest changed, but the catalog means the same", name)
		}
	}
	if baseV1 == baseV2 {
		t.Error("the v1 and v2 digests of one catalog are equal; the rule name is part of the document")
	}
}

// TestCatalogV2Refuses: a catalog that could be read two ways has no digest.
func TestCatalogV2Refuses(t *testing.T) {
	for name, c := range map[string]binding.Catalog{
		"two templates with one uriTemplate": {ProtocolVersion: "v", ResourceTemplates: raws(`{"uriTemplate":"ui://a/{k}"}`, `{"uriTemplate":"ui://a/{k}"}`)},
		"a template without uriTemplate":     {ProtocolVersion: "v", ResourceTemplates: raws(`{"name":"x"}`)},
		"case-variant _meta members":         {ProtocolVersion: "v", Tools: raws(v2Tool + `,"_meta":{"k":1,"K":2}}`)},
		"a template whose name is a number":  {ProtocolVersion: "v", ResourceTemplates: raws(`{"uriTemplate":"ui://a/{k}","name":7}`)},
		"no protocol version":                {Tools: raws(v2Tool + `}`)},
	} {
		if _, err := c.DigestV2(); codeOf(err) != binding.CodeInvalidCatalog {
			t.Errorf("%s: error %v, want %s", name, err, binding.CodeInvalidCatalog)
		}
	}
}

// TestCatalogV2Document: the canonical document, written by hand from the
// rule, for one catalog with every list.
func TestCatalogV2Document(t *testing.T) {
	c := binding.Catalog{ProtocolVersion: "2025-11-25",
		Tools:             raws(`{"name":"click","_meta":{"b":1,"a":[true]},"annotations":{"readOnlyHint":true}}`),
		Resources:         raws(`{"uri":"ui://screen","size":9,"annotations":{"priority":0.5}}`),
		ResourceTemplates: raws(`{"uriTemplate":"ui://item/{id}","mimeType":"text/plain"}`),
		Prompts:           raws(`{"name":"p","arguments":[{"name":"z"},{"name":"a","required":true}]}`),
	}
	got, err := c.CanonicalV2()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"catalog":"tool-catalog-v2","prompts":[{"arguments":[{"name":"a","required":true},{"name":"z","required":false}],"name":"p"}],` +
		`"protocolVersion":"2025-11-25","resourceTemplates":[{"mimeType":"text/plain","uriTemplate":"ui://item/{id}"}],` +
		`"resources":[{"annotations":{"priority":0.5},"uri":"ui://screen"}],` +
		`"tools":[{"_meta":{"a":[true],"b":1},"annotations":{"destructiveHint":true,"idempotentHint":false,"openWorldHint":true,"readOnlyHint":true},"name":"click"}]}`
	if string(got) != want {
		t.Errorf("CanonicalV2 =\n%s\nwant\n%s", got, want)
	}
}

// TestPlanPinsV2: the catalog digest a grant pins is tool-catalog-v2's.
func TestPlanPinsV2(t *testing.T) {
	p := plan(t)
	g := issue(t, p, nil)[0]
	if want := v2(t, p.Servers[0].Catalog); g.Candidates[0].CatalogDigest != want {
		t.Errorf("the grant pins %s, want the tool-catalog-v2 digest %s", g.Candidates[0].CatalogDigest, want)
	}
}
