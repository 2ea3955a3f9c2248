package schemacompact

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"

	// The root package fills adapter.Schema, which derives the schemas
	// of the test types as the adapter derives its tools'.
	_ "github.com/automium/automium"
	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/schemaref"
	"github.com/google/go-cmp/cmp"
)

type ptrBig struct {
	Alpha string `json:"alpha" jsonschema:"the first long member of the shared object" validate:"required,max=64"`
	Beta  string `json:"beta" jsonschema:"the second long member of the shared object" validate:"required,max=64"`
	Gamma string `json:"gamma" jsonschema:"the third long member of the shared object" validate:"required,max=64"`
	Delta string `json:"delta" jsonschema:"the fourth long member of the shared object" validate:"required,max=64"`
}

type ptrSmall struct {
	Other int `json:"other" validate:"max=3"`
}

// t1 has a root object x (small, different) and a nested a.x (the big one).
type ptrT1Shadow struct {
	X ptrSmall `json:"x"`
	A struct {
		X ptrBig `json:"x"`
	} `json:"a"`
}

// t1 has the big object only as the items of a list.
type ptrT1List struct {
	Bigs []ptrBig `json:"bigs" validate:"max=4"`
}

// t1 has the big object as the values of a map, under a nested list.
type ptrT1Map struct {
	Groups []struct {
		ByName map[string]ptrBig `json:"byName" validate:"max=4"`
	} `json:"groups" validate:"max=4"`
}

type ptrT2 struct {
	Y ptrBig `json:"y"`
}

// t2 whose own description of the object names t1, not as the pointer does.
type ptrT2Named struct {
	Y ptrBig `json:"y" jsonschema:"the object t1 returned last"`
}

// t1 lists the object as its property big.
type ptrT1Prop struct {
	Big ptrBig `json:"big"`
}

// TestSaidObjectPointerResolvesToSameObject: the object a pointer ("as PATH in
// TOOL") names is the object the later tool's server enforces, wherever the
// earlier tool listed it: a bare property name once named a shadowing root
// property, or nothing InlineCatalog could find for the items of a list.
func TestSaidObjectPointerResolvesToSameObject(t *testing.T) {
	for _, tt := range []struct {
		name   string
		t1, t2 reflect.Type
	}{
		{"a root property of the same name shadows the nested one", reflect.TypeFor[ptrT1Shadow](), reflect.TypeFor[ptrT2]()},
		{"the object is first listed as the items of a list", reflect.TypeFor[ptrT1List](), reflect.TypeFor[ptrT2]()},
		{"the object is first listed as a map's values in a list", reflect.TypeFor[ptrT1Map](), reflect.TypeFor[ptrT2]()},
		{"the object's own description names the earlier tool otherwise", reflect.TypeFor[ptrT1Prop](), reflect.TypeFor[ptrT2Named]()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			catalog := NewCatalog(nil)
			inputs := map[string]any{}
			for _, tl := range []struct {
				name string
				typ  reflect.Type
			}{{"t1", tt.t1}, {"t2", tt.t2}} {
				s, err := adapter.Schema(tl.typ)
				if err != nil {
					t.Fatal(err)
				}
				raw, err := catalog.Compact(tl.name, s, false)
				if err != nil {
					t.Fatal(err)
				}
				inputs[tl.name] = raw
			}
			t.Logf("t2 advertised: %s", inputs["t2"])
			cat, err := schemaref.InlineCatalog(inputs)
			if err != nil {
				t.Fatalf("InlineCatalog: %v", err)
			}
			big, err := adapter.Schema(reflect.TypeFor[ptrBig]())
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(big)
			var want map[string]any
			_ = json.Unmarshal(raw, &want)
			got := cat["t2"]["properties"].(map[string]any)["y"].(map[string]any)
			if diff := cmp.Diff(memberNames(want), memberNames(got)); diff != "" {
				t.Errorf("t2.y, pointer followed, is not the object the server enforces (-enforced +resolved):\n%s", diff)
			}
		})
	}
}

// memberNames lists the property names of an object schema, sorted.
func memberNames(s map[string]any) []string {
	props, _ := s["properties"].(map[string]any)
	return slices.Sorted(maps.Keys(props))
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
	raw, err := NewCatalog(nil).Compact("t", s, false)
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
