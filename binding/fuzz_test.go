package binding_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/automium/automium/canonicaljson"
)

// FuzzCanonicalArguments feeds arbitrary argument bytes to a broker holding a
// grant: it must never panic, and it authorizes only arguments whose canonical
// form is exactly the granted one, sending the granted bytes.
func FuzzCanonicalArguments(f *testing.F) {
	for _, s := range []string{
		`{"target":"button:Sign in"}`, ` { "target" : "button:Sign in" } `, `{"target":"button:Sign\u0020in"}`,
		`{"target":"button:Sign in","target":"x"}`, `{"target":"button:Sign in","count":1}`, `{"target":"\ud800"}`,
		`[]`, `null`, `{"target":1e400}`, "{\"target\":\"button:Sign in\"}\x00",
	} {
		f.Add([]byte(s))
	}
	g := issue(f, plan(f), nil)[0]
	granted := live(f, g)
	f.Fuzz(func(t *testing.T, args []byte) {
		b := brokerAt(t, issuedAt)
		call := granted
		call.Arguments = json.RawMessage(args)
		auth, err := b.Authorize(g, call)
		granted := g.Candidates[0].Arguments
		canonical, cerr := canonicaljson.Canonicalize(args)
		same := cerr == nil && bytes.Equal(canonical, granted)
		if (err == nil) != same {
			t.Fatalf("Authorize(%q) error = %v, but canonical form %q equal to granted %q is %v", args, err, canonical, granted, same)
		}
		if err == nil && !bytes.Equal(auth.Candidate.Arguments, granted) {
			t.Fatalf("sent %q, want the granted %q", auth.Candidate.Arguments, granted)
		}
	})
}

// FuzzClosedSchema feeds arbitrary input schemas to IssuePlan: it never
// panics, every refusal is a short coded error, and a schema it accepts as
// closed really refuses an unnamed property, as judged by the validator, not
// by the allow-list.
func FuzzClosedSchema(f *testing.F) {
	for _, s := range []string{
		clickSchema, typeSchema, `{}`, `true`, `{"type":"object"}`,
		`{"type":"object","properties":{},"patternProperties":{".*":{}},"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/d"}},"$defs":{"d":{"type":"array","items":{"enum":[1,"x",null]}}},"additionalProperties":false}`,
		`{"type":"object","properties":{"a":{"type":["string","null"]}},"additionalProperties":false}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		if !json.Valid(schema) || bytes.Contains(schema, []byte(`\u0000zz`)) {
			return
		}
		try := func(args string) error {
			p := plan(t)
			c := uiCatalog(false)
			c.Tools = append(c.Tools, json.RawMessage(`{"name":"t","inputSchema":`+string(schema)+`}`))
			p.Servers[0].Catalog = c
			p.Steps = [][]binding.Call{{{Tool: "t", Arguments: json.RawMessage(args)}}}
			_, err := binding.IssuePlan(p, nil)
			return err
		}
		err := try(`{}`)
		var aerr *automium.Error
		if err != nil && (!errors.As(err, &aerr) || len(aerr.Message) > 600) {
			t.Fatalf("IssuePlan error %v: want a short *automium.Error", err)
		}
		if err != nil && (aerr.Code == binding.CodeSchemaNotClosed || aerr.Code == binding.CodeInvalidCatalog) {
			return
		}
		if err != nil && aerr.Code == binding.CodeCallAltered && aerr.Field == "steps[0][0].tool" {
			// "inputSchema": null is no input schema (docs/binding.md), and a
			// tool without one cannot be granted: nothing was accepted.
			return
		}
		if err := try(`{"\u0000zz":1}`); !errors.As(err, &aerr) || aerr.Code != binding.CodeArgumentsOutsideSchema {
			t.Fatalf("schema %s was accepted as closed, but an unnamed property gave %v", schema, err)
		}
	})
}
