package mcpserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/schemaref"
	"github.com/google/go-cmp/cmp"
)

// TestCatalogPointersFollowTableOrder compacts the real table in its order,
// reversed, and rotated, and reads each catalog as a model does (pointers
// followed, schemaref.InlineCatalog): whichever tool lists an object first,
// every object of every tool then has the members of the Go type the server
// enforces there, at every path. The rules depend on the order only for which
// tool says a thing first, never for what a pointer resolves to.
func TestCatalogPointersFollowTableOrder(t *testing.T) {
	table := tools()
	reversed := slices.Clone(table)
	slices.Reverse(reversed)
	orders := map[string][]tool{
		"table":    table,
		"reversed": reversed,
		"rotated":  append(slices.Clone(table[len(table)/2:]), table[:len(table)/2]...),
	}
	for _, name := range slices.Sorted(maps.Keys(orders)) {
		t.Run(name, func(t *testing.T) {
			catalog := newCatalog()
			inputs := map[string]any{}
			want := map[string]map[string]any{}
			for _, tl := range orders[name] {
				in, _, err := deriveSchemas(tl, catalog)
				if err != nil {
					t.Fatal(err)
				}
				inputs[tl.def.Name] = in
				s, err := adapter.Schema(tl.in)
				if err != nil {
					t.Fatal(err)
				}
				raw, err := json.Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]any
				if err := json.Unmarshal(raw, &m); err != nil {
					t.Fatal(err)
				}
				want[tl.def.Name] = m
			}
			got, err := schemaref.InlineCatalog(inputs)
			if err != nil {
				t.Fatalf("InlineCatalog: %v", err)
			}
			for _, tn := range slices.Sorted(maps.Keys(want)) {
				if diff := cmp.Diff(membersAt(want[tn], ""), membersAt(got[tn], "")); diff != "" {
					t.Errorf("%s, pointers followed, differs from the enforced type (-enforced +read):\n%s", tn, diff)
				}
			}
		})
	}
}

// membersAt maps every path under s to the sorted property names of the
// object there.
func membersAt(s map[string]any, path string) map[string]string {
	out := map[string]string{}
	var walk func(n map[string]any, path string)
	walk = func(n map[string]any, path string) {
		if n == nil {
			return
		}
		if props, ok := n["properties"].(map[string]any); ok {
			out[path] = fmt.Sprint(slices.Sorted(maps.Keys(props)))
			for _, p := range slices.Sorted(maps.Keys(props)) {
				m, _ := props[p].(map[string]any)
				walk(m, path+"."+p)
			}
		}
		if items, ok := n["items"].(map[string]any); ok {
			walk(items, path+"[]")
		}
		if ap, ok := n["additionalProperties"].(map[string]any); ok {
			walk(ap, path+".*")
		}
	}
	walk(s, path)
	return out
}
