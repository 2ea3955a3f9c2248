package mcpserver

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/schemaref"
	"github.com/google/go-cmp/cmp"
)

// TestCompactSchemasInlineToDerived holds every advertised schema to the root
// package's schema of its type: inlining its $refs gives back the derived
// schema less only its prose (see compact.go), so the $defs change how a
// schema is written, never what it accepts.
func TestCompactSchemasInlineToDerived(t *testing.T) {
	seen := newSeen("")
	for _, tl := range tools() {
		seen.tool = tl.def.Name
		for _, side := range []struct {
			name       string
			output     bool
			advertised any
		}{{"input", false, tl.def.InputSchema}, {"output", true, tl.def.OutputSchema}} {
			typ := tl.in
			if side.output {
				typ = tl.out
			}
			s, err := adapter.Schema(typ)
			if err != nil {
				t.Fatal(err)
			}
			pruneProse(s, side.output, seen)
			raw, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]any
			if err := json.Unmarshal([]byte(toToolWords(string(raw))), &want); err != nil {
				t.Fatal(err)
			}
			got, err := schemaref.Inline(side.advertised)
			if err != nil {
				t.Fatalf("%s %s: %v", tl.def.Name, side.name, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %s schema, inlined, differs from the derived one (-derived +advertised):\n%s", tl.def.Name, side.name, diff)
			}
		}
	}
}

// TestCompactSchemaHoistsRepeats: a subschema written twice becomes one
// definition, each occurrence keeping its own description; one written once,
// or too small to be worth a name, stays inline.
func TestCompactSchemaHoistsRepeats(t *testing.T) {
	type target struct {
		Role string `json:"role" jsonschema:"the element's ARIA role" validate:"required,max=64"`
		Name string `json:"name" jsonschema:"the element's accessible name" validate:"required,max=200"`
	}
	type step struct {
		Target      target `json:"target" jsonschema:"what the step acts on"`
		Destination target `json:"destination" jsonschema:"where a drag ends"`
		Once        target `json:"once"`
		Small       int    `json:"small" validate:"max=3"`
		Other       int    `json:"other" validate:"max=3"`
	}
	s, err := adapter.Schema(reflect.TypeFor[step]())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := compactSchema(s, false, newSeen("t"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	props := got["properties"].(map[string]any)
	want := map[string]any{
		"target":      map[string]any{"$ref": "#/$defs/target", "description": "what the step acts on"},
		"destination": map[string]any{"$ref": "#/$defs/target", "description": "where a drag ends"},
		"once":        map[string]any{"$ref": "#/$defs/target"},
		"small":       map[string]any{"type": "integer", "maximum": float64(3)},
		"other":       map[string]any{"type": "integer", "maximum": float64(3)},
	}
	if diff := cmp.Diff(want, props); diff != "" {
		t.Errorf("properties (-want +got):\n%s", diff)
	}
	if defs, _ := got["$defs"].(map[string]any); len(defs) != 1 || defs["target"] == nil {
		t.Errorf("$defs = %v, want the one target definition", got["$defs"])
	}
}
