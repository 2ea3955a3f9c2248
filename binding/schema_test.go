package binding_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
)

// issueWithSchema issues a one-call plan for a tool "t" with the given input
// schema and arguments.
func issueWithSchema(t *testing.T, schema, args string) error {
	t.Helper()
	p := plan(t)
	c := uiCatalog(false)
	c.Tools = append(c.Tools, tool("t", schema))
	p.Servers[0].Catalog = c
	p.Steps = [][]binding.Call{{{Tool: "t", Arguments: json.RawMessage(args)}}}
	_, err := binding.IssuePlan(p, nil)
	return err
}

// TestClosedSchemaAllowList: a schema binds arguments only if every keyword at
// every depth is allow-listed and every object and array is closed. Each row
// is a schema some validator would accept arguments under that no check
// looked at; the first rows are the ones granted before the allow-list.
func TestClosedSchemaAllowList(t *testing.T) {
	refused := []struct{ name, schema, args string }{
		{"patternProperties", `{"type":"object","properties":{},"patternProperties":{".*":{"type":"boolean"}},"additionalProperties":false}`, `{"rm -rf /":true}`},
		{"additionalProperties true, unevaluatedProperties false", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true,"unevaluatedProperties":false}`, `{"a":"x"}`},
		{"nested {}", `{"type":"object","properties":{"a":{}},"additionalProperties":false}`, `{"a":{"rm":1}}`},
		{"nested true", `{"type":"object","properties":{"a":true},"additionalProperties":false}`, `{"a":{"rm":1}}`},
		{"type list with null", `{"type":"object","properties":{"a":{"type":["object","null"],"properties":{},"additionalProperties":false}},"additionalProperties":false}`, `{"a":null}`},
		{"array without items", `{"type":"object","properties":{"a":{"type":"array"}},"additionalProperties":false}`, `{"a":[{"x":1}]}`},
		{"minProperties", `{"type":"object","properties":{"a":{"type":"string"}},"minProperties":1,"additionalProperties":false}`, `{"a":"x"}`},
		{"$ref to {}", `{"type":"object","properties":{"a":{"$ref":"#/$defs/any"}},"$defs":{"any":{}},"additionalProperties":false}`, `{"a":{"x":1}}`},
		// Variants the finding does not list.
		{"root without additionalProperties", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"a":"x"}`},
		{"additionalProperties {}", `{"type":"object","properties":{},"additionalProperties":{}}`, `{}`},
		{"additionalProperties a schema", `{"type":"object","properties":{},"additionalProperties":{"type":"string"}}`, `{}`},
		{"object without properties", `{"type":"object","additionalProperties":false}`, `{}`},
		{"case-variant keyword", `{"type":"object","properties":{"a":{"type":"string"}},"AdditionalProperties":false}`, `{"a":"x"}`},
		{"case-variant type", `{"type":"object","properties":{"a":{"Type":"string"}},"additionalProperties":false}`, `{"a":"x"}`},
		{"anyOf", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"object","properties":{},"additionalProperties":true}]}},"additionalProperties":false}`, `{"a":"x"}`},
		{"allOf at the root", `{"type":"object","properties":{},"additionalProperties":false,"allOf":[{"type":"object"}]}`, `{}`},
		{"not", `{"type":"object","properties":{"a":{"not":{"type":"null"}}},"additionalProperties":false}`, `{"a":1}`},
		{"if/then", `{"type":"object","properties":{},"additionalProperties":false,"if":{"type":"object"},"then":{"type":"object"}}`, `{}`},
		{"propertyNames", `{"type":"object","properties":{},"additionalProperties":false,"propertyNames":{"type":"string"}}`, `{}`},
		{"dependentSchemas", `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false,"dependentSchemas":{"a":{"type":"object"}}}`, `{"a":"x"}`},
		{"tuple items", `{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}},"additionalProperties":false}`, `{"a":["x"]}`},
		{"prefixItems", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"prefixItems":[{"type":"object"}]}},"additionalProperties":false}`, `{"a":["x"]}`},
		{"contains", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"contains":{"type":"string"}}},"additionalProperties":false}`, `{"a":["x"]}`},
		{"array of open objects", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{}}}},"additionalProperties":false}`, `{"a":[{"x":1}]}`},
		{"keyword of another type", `{"type":"object","properties":{"a":{"type":"integer","maxLength":3}},"additionalProperties":false}`, `{"a":1}`},
		{"unknown type", `{"type":"object","properties":{"a":{"type":"any"}},"additionalProperties":false}`, `{"a":1}`},
		{"false schema", `{"type":"object","properties":{"a":false},"additionalProperties":false}`, `{}`},
		{"remote $ref", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}},"additionalProperties":false}`, `{"a":1}`},
		{"$ref with a pointer escape", `{"type":"object","properties":{"a":{"$ref":"#/$defs/a~1b"}},"$defs":{"a/b":{"type":"string"}},"additionalProperties":false}`, `{"a":"x"}`},
		{"$ref to the root", `{"type":"object","properties":{"a":{"$ref":"#"}},"additionalProperties":false}`, `{}`},
		{"$ref to a missing definition", `{"type":"object","properties":{"a":{"$ref":"#/$defs/b"}},"additionalProperties":false}`, `{}`},
		{"$ref beside other keywords", `{"type":"object","properties":{"a":{"$ref":"#/$defs/s","minLength":1}},"$defs":{"s":{"type":"string"}},"additionalProperties":false}`, `{"a":"x"}`},
		{"open definition never referenced", `{"type":"object","properties":{},"$defs":{"o":{"type":"object","properties":{}}},"additionalProperties":false}`, `{}`},
		{"$defs below the root", `{"type":"object","properties":{"a":{"type":"string","$defs":{}}},"additionalProperties":false}`, `{"a":"x"}`},
		{"$id", `{"$id":"https://example.com/s","type":"object","properties":{},"additionalProperties":false}`, `{}`},
		{"$dynamicRef", `{"type":"object","properties":{"a":{"$dynamicRef":"#x"}},"additionalProperties":false}`, `{}`},
		{"unknown $schema", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{},"additionalProperties":false}`, `{}`},
		{"required names an unknown property", `{"type":"object","properties":{},"required":["a"],"additionalProperties":false}`, `{}`},
		{"empty enum", `{"type":"object","properties":{"a":{"enum":[]}},"additionalProperties":false}`, `{}`},
		{"root not an object type", `{"type":"array","items":{"type":"string"}}`, `{}`},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			err := issueWithSchema(t, tt.schema, tt.args)
			var aerr *automium.Error
			if !errors.As(err, &aerr) || aerr.Code != binding.CodeSchemaNotClosed {
				t.Fatalf("IssuePlan error = %v, want %s", err, binding.CodeSchemaNotClosed)
			}
			if len(aerr.Message) > 400 {
				t.Errorf("message of %d bytes, want a bounded one", len(aerr.Message))
			}
		})
	}
	accepted := []struct{ name, schema, args string }{
		{"flat", clickSchema, `{"target":"b"}`},
		{"nested closed object", `{"type":"object","properties":{"to":{"type":"object","properties":{"x":{"type":"number"},"y":{"type":"number"}},"required":["x"],"additionalProperties":false}},"additionalProperties":false}`, `{"to":{"x":1,"y":2}}`},
		{"array of closed objects", `{"type":"object","properties":{"keys":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string","pattern":"^[a-z]$"}},"additionalProperties":false},"maxItems":4,"uniqueItems":true}},"additionalProperties":false}`, `{"keys":[{"k":"a"}]}`},
		{"local $ref", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"p":{"$ref":"#/$defs/point","description":"where"}},"$defs":{"point":{"type":"object","properties":{"x":{"type":"integer"}},"additionalProperties":false}},"additionalProperties":false}`, `{"p":{"x":3}}`},
		{"enum without type", `{"type":"object","properties":{"b":{"enum":["left","right",null]}},"additionalProperties":false,"title":"t"}`, `{"b":null}`},
		{"null type", `{"type":"object","properties":{"n":{"type":"null"}},"additionalProperties":false}`, `{"n":null}`},
	}
	for _, tt := range accepted {
		t.Run("accepted: "+tt.name, func(t *testing.T) {
			if err := issueWithSchema(t, tt.schema, tt.args); err != nil {
				t.Errorf("IssuePlan: %v", err)
			}
		})
	}
}

// TestUnsafeIntegersRefused: an integer beyond 2^53 would be bound as the
// nearest double, another number than the planner wrote; it is refused. The
// same value written as 1.0 or 1 binds once.
func TestUnsafeIntegersRefused(t *testing.T) {
	schema := `{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`
	for _, args := range []string{`{"n":9007199254740993}`, `{"n":-9007199254740993}`, `{"n":12345678901234567890}`} {
		var aerr *automium.Error
		if err := issueWithSchema(t, schema, args); !errors.As(err, &aerr) || aerr.Code != binding.CodeArgumentsOutsideSchema {
			t.Errorf("%s: IssuePlan error = %v, want %s", args, err, binding.CodeArgumentsOutsideSchema)
		}
	}
	for _, args := range []string{`{"n":9007199254740991}`, `{"n":1.0}`, `{"n":1e2}`} {
		if err := issueWithSchema(t, schema, args); err != nil {
			t.Errorf("%s: %v", args, err)
		}
	}
}

// TestCatalogCaseVariantNames: an item whose member names differ only in
// case, at any depth, is refused by the digest and by IssuePlan alike, so the
// two never read different members; a case-insensitive reader (go-sdk's
// encoding/json) would take the last.
func TestCatalogCaseVariantNames(t *testing.T) {
	open := `{"type":"object","properties":{},"patternProperties":{".*":{}}}`
	for name, item := range map[string]string{
		"inputSchema and INPUTSCHEMA": `{"name":"t","inputSchema":` + clickSchema + `,"INPUTSCHEMA":` + open + `}`,
		"name and Name":               `{"name":"t","Name":"click","inputSchema":` + clickSchema + `}`,
		"nested in a schema":          `{"name":"t","inputSchema":{"type":"object","properties":{"a":{"type":"string"},"A":{"type":"integer"}},"additionalProperties":false}}`,
		"k and KELVIN SIGN":           `{"name":"t","inputSchema":` + clickSchema + `,"annotations":{"k":1,"\u212a":2}}`,
		"escaped case variant":        `{"name":"t","inputSchema":` + clickSchema + `,"\u0069nputschema":{}}`,
	} {
		t.Run(name, func(t *testing.T) {
			c := binding.Catalog{ProtocolVersion: "2025-11-25", Tools: []json.RawMessage{json.RawMessage(item)}}
			var aerr *automium.Error
			if _, err := c.Digest(); !errors.As(err, &aerr) || aerr.Code != binding.CodeInvalidCatalog {
				t.Errorf("Digest error = %v, want %s", err, binding.CodeInvalidCatalog)
			}
			if s, ok := c.InputSchema("t"); ok {
				t.Errorf("InputSchema = %s, want none from a refused item", s)
			}
			p := plan(t)
			p.Servers[0].Catalog = c
			p.Steps = [][]binding.Call{{{Tool: "t", Arguments: json.RawMessage(`{"target":"x"}`)}}}
			if _, err := binding.IssuePlan(p, nil); err == nil {
				t.Error("IssuePlan granted a call under the item")
			}
		})
	}
}

// TestInputSchemaIsWhatTheDigestPins: InputSchema returns the member the
// digest hashes, in its canonical form.
func TestInputSchemaIsWhatTheDigestPins(t *testing.T) {
	c := binding.Catalog{ProtocolVersion: "v", Tools: []json.RawMessage{
		json.RawMessage(`{"name":"a","inputSchema":{ "type" : "object", "properties":{}, "additionalProperties":false }}`),
		json.RawMessage(`{"name":"b","inputSchema":null}`),
	}}
	got, ok := c.InputSchema("a")
	if want := `{"additionalProperties":false,"properties":{},"type":"object"}`; !ok || string(got) != want {
		t.Errorf("InputSchema(a) = %s, %v; want %s", got, ok, want)
	}
	if _, ok := c.InputSchema("b"); ok {
		t.Error("InputSchema(b) with inputSchema null: found one")
	}
}

// TestInexactNumbersRefused: a number is bound as the double RFC 8785 reads it
// as, so a literal whose decimal value that double does not keep would bind
// another number than the planner wrote, whatever its form: an integer written
// with a fraction or an exponent beyond 2^53, more digits than a double holds,
// or a value below the smallest double. Each is refused; a literal whose value
// the canonical form keeps exactly binds, however it is spelled.
func TestInexactNumbersRefused(t *testing.T) {
	schema := `{"type":"object","properties":{"n":{"type":"number"}},"additionalProperties":false}`
	for _, args := range []string{
		`{"n":9007199254740993.0}`,
		`{"n":9.007199254740993e15}`,
		`{"n":-9007199254740993E0}`,
		`{"n":90071992547409930e-1}`,
		`{"n":0.10000000000000000000001}`,
		`{"n":1e-400}`,
		`{"n":-4.9e-325}`,
		`{"n":1.00000000000000000000000000000000000000000000000001}`,
	} {
		var aerr *automium.Error
		if err := issueWithSchema(t, schema, args); !errors.As(err, &aerr) || aerr.Code != binding.CodeArgumentsOutsideSchema {
			t.Errorf("%s: IssuePlan error = %v, want %s", args, err, binding.CodeArgumentsOutsideSchema)
		}
	}
	for _, args := range []string{
		`{"n":0.1}`, `{"n":1.50}`, `{"n":1E2}`, `{"n":-0}`, `{"n":0e999}`, `{"n":1e300}`,
		`{"n":9007199254740992.0}`, `{"n":5e-324}`, `{"n":1.7976931348623157e308}`, `{"n":0.000001}`,
	} {
		if err := issueWithSchema(t, schema, args); err != nil {
			t.Errorf("%s: %v", args, err)
		}
	}
}

// TestRefCyclesRefused: a $ref that leads, through $refs alone, back to
// itself names no schema, and the validator follows it until the stack runs
// out: a catalog with one crashed the process (a fatal stack overflow, which
// no recover catches) when a plan was issued, or when a broker resolved the
// live schema a server listed. Such a chain is refused as not closed,
// whatever its length or the definitions it passes through. Recursion through
// an object or an array is bounded by the arguments' depth and still binds.
func TestRefCyclesRefused(t *testing.T) {
	withDefs := func(defs string) string {
		return `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"additionalProperties":false,` + defs + `}`
	}
	refused := []struct{ name, schema string }{
		{"a definition that refers to itself", withDefs(`"$defs":{"x":{"$ref":"#/$defs/x"}}`)},
		{"two definitions that refer to each other", withDefs(`"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}`)},
		{"a loop through definitions and $defs", withDefs(`"$defs":{"x":{"$ref":"#/definitions/y"}},"definitions":{"y":{"$ref":"#/$defs/x"}}`)},
		{"a loop with annotations", withDefs(`"$defs":{"x":{"$ref":"#/$defs/y","title":"x"},"y":{"description":"y","$ref":"#/$defs/x"}}`)},
		{"a loop reached from an array's items", `{"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#/$defs/x"}}},"additionalProperties":false,"$defs":{"x":{"$ref":"#/$defs/x"}}}`},
		{"a loop in an unused definition", `{"type":"object","properties":{},"additionalProperties":false,"$defs":{"x":{"$ref":"#/$defs/y"},"y":{"$ref":"#/$defs/x"}}}`},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			var aerr *automium.Error
			if err := issueWithSchema(t, tt.schema, `{"a":1}`); !errors.As(err, &aerr) || aerr.Code != binding.CodeSchemaNotClosed {
				t.Errorf("IssuePlan error = %v, want %s", err, binding.CodeSchemaNotClosed)
			}
		})
	}
	// A chain without a loop is followed once per validation, as deep as it
	// is long: it is bounded too, so a long one cannot cost quadratic
	// checking or a deep validator stack.
	chain := func(n int) string {
		defs := ""
		for i := range n {
			defs += fmt.Sprintf(`"d%d":{"$ref":"#/$defs/d%d"},`, i, i+1)
		}
		return `{"type":"object","properties":{"a":{"$ref":"#/$defs/d0"}},"additionalProperties":false,"$defs":{` + defs + fmt.Sprintf(`"d%d":{"type":"string"}}}`, n)
	}
	var aerr *automium.Error
	if err := issueWithSchema(t, chain(1000), `{"a":"x"}`); !errors.As(err, &aerr) || aerr.Code != binding.CodeSchemaNotClosed {
		t.Errorf("a chain of 1000 $refs: IssuePlan error = %v, want %s", err, binding.CodeSchemaNotClosed)
	}
	if err := issueWithSchema(t, chain(8), `{"a":"x"}`); err != nil {
		t.Errorf("a chain of 8 $refs: %v", err)
	}
	tree := `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"additionalProperties":false,"$defs":{` +
		`"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/alias"}}},"additionalProperties":false},` +
		`"alias":{"$ref":"#/$defs/node"}}}`
	if err := issueWithSchema(t, tree, `{"root":{"name":"a","children":[{"name":"b","children":[]}]}}`); err != nil {
		t.Errorf("a recursive tree: %v", err)
	}
}

// TestIntegersBeyondTwoTo53Refused: an integer literal beyond 2^53 - 1 is
// refused even when a double holds it exactly (9007199254740994 is one), as
// I-JSON (RFC 7493) asks: a receiver that reads integers as doubles cannot
// tell it from its neighbours, so it does not bind one number. Only the
// integer check catches these; the inexact-number check passes them.
func TestIntegersBeyondTwoTo53Refused(t *testing.T) {
	schema := `{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`
	for _, args := range []string{`{"n":9007199254740992}`, `{"n":9007199254740994}`, `{"n":-9007199254740994}`, `{"n":18014398509481984}`} {
		if err := issueWithSchema(t, schema, args); codeOf(err) != binding.CodeArgumentsOutsideSchema {
			t.Errorf("%s: IssuePlan error = %v, want %s", args, err, binding.CodeArgumentsOutsideSchema)
		}
	}
	if err := issueWithSchema(t, schema, `{"n":-9007199254740991}`); err != nil {
		t.Errorf("-(2^53 - 1): %v", err)
	}
}
