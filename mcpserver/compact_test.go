package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/schemaref"
	"github.com/google/go-cmp/cmp"
)

// TestCompactSchemasInlineToDerived holds every advertised schema to the root
// package's schema of its type: inlining its $refs gives back the derived
// schema less only its prose (see internal/schemacompact), so the $defs change how a
// schema is written, never what it accepts.
func TestCompactSchemasInlineToDerived(t *testing.T) {
	catalog := newCatalog()
	for _, tl := range tools() {
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
			catalog.Prune(tl.def.Name, s, side.output)
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
