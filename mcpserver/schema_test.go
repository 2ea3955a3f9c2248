package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/schemaref"
	"github.com/automium/automium/internal/testsupport"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// specTools are the tools the spec names. They are the spec's, not a copy of
// the tool table: the table may grow, but it must serve every one of these.
var specTools = []string{
	"automium_compare_planners",
	"automium_compile_journey",
	"automium_create_run_submission",
	"automium_get_artifact_manifest",
	"automium_get_replay_summary",
	"automium_list_apps",
	"automium_list_fixtures",
}

// listedTools returns the tools as a client receives them, in wire form.
func listedTools(t *testing.T) []map[string]any {
	t.Helper()
	list, err := connect(t, New(nil), "2025-11-25").ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(list.Tools)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestToolInventory guards properties every tool must have, as listed on the wire:
// the spec's names, a title, a description a model can act on, explicit hints,
// and schemas every model provider accepts.
func TestToolInventory(t *testing.T) {
	var names []string
	for _, tool := range listedTools(t) {
		name, _ := tool["name"].(string)
		names = append(names, name)
		if title, _ := tool["title"].(string); title == "" {
			t.Errorf("%s: no title", name)
		}
		// What the tool does, in a sentence a model can choose by; the
		// catalog's budget (internal/schemacompact) keeps it short.
		if desc, _ := tool["description"].(string); len(desc) < 60 || !strings.HasSuffix(desc, ".") {
			t.Errorf("%s: description %q is too thin to tell a model what the tool does and when to call it", name, desc)
		}
		ann, ok := tool["annotations"].(map[string]any)
		if !ok {
			t.Errorf("%s: no annotations", name)
			continue
		}
		want := map[string]any{"readOnlyHint": true, "idempotentHint": true, "destructiveHint": false, "openWorldHint": false, "title": tool["title"]}
		if diff := cmp.Diff(want, ann); diff != "" {
			t.Errorf("%s: annotations must set every hint explicitly (-want +got):\n%s", name, diff)
		}
		for _, which := range []string{"inputSchema", "outputSchema"} {
			s, ok := tool[which].(map[string]any)
			if !ok {
				t.Errorf("%s: no %s", name, which)
				continue
			}
			if s["type"] != "object" {
				t.Errorf("%s: %s type is %v, want object", name, which, s["type"])
			}
			for _, k := range []string{"anyOf", "oneOf", "allOf", "not", "if", "$ref"} {
				if _, found := s[k]; found {
					t.Errorf("%s: %s has top-level %s, which some model providers reject", name, which, k)
				}
			}
			inlined, err := schemaref.Inline(s)
			if err != nil {
				t.Errorf("%s: %s: %v", name, which, err)
				continue
			}
			for _, path := range typeUnions(inlined, which) {
				t.Errorf("%s: %s has a type union, which single-type schema dialects reject", name, path)
			}
		}
	}
	for _, name := range specTools {
		if !slices.Contains(names, name) {
			t.Errorf("the spec's tool %s is not served", name)
		}
	}
}

// validateLevels splits a validate tag into the rules of the value and of its
// items (one level per dive). It is deliberately independent of the code under
// test.
func validateLevels(tag string) [][]string {
	levels := [][]string{nil}
	for _, term := range strings.Split(tag, ",") {
		switch {
		case term == "":
		case term == "dive":
			levels = append(levels, nil)
		default:
			levels[len(levels)-1] = append(levels[len(levels)-1], term)
		}
	}
	return levels
}

// expectedEnum returns the closed set a validate level promises, if any. The
// root package's own closed-set tags (automium_*) are translated, and tested, in
// the root package (its TestGenerated derives every schema from them);
// here their enums are only held to what validation accepts (see
// TestEnumsAndRequiredBehave), so known is false for them.
func expectedEnum(rules []string) (values []string, hasEnum, known bool) {
	for _, r := range rules {
		tag, param, _ := strings.Cut(r, "=")
		if tag == "oneof" {
			return strings.Fields(param), true, true
		}
		if strings.HasPrefix(tag, "automium_") {
			return nil, false, false
		}
	}
	return nil, false, true
}

// TestInputSchemasMatchValidation holds every tool's input schema against the Go
// type's tags: a property is required in the schema exactly when its validate tag
// says required and its json tag lacks omitempty, and every enum is exactly the
// closed set of its oneof or custom validate rule.
func TestInputSchemasMatchValidation(t *testing.T) {
	// An object an earlier tool lists whole is advertised as an object that
	// says where (internal/schemacompact); followed there, it must agree too.
	inputs := map[string]any{}
	for _, tool := range tools() {
		inputs[tool.def.Name] = tool.def.InputSchema
	}
	inlined, err := schemaref.InlineCatalog(inputs)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools() {
		compareType(t, tool.def.Name, tool.in, inlined[tool.def.Name])
	}
}

func compareType(t *testing.T, where string, typ reflect.Type, schema map[string]any) {
	t.Helper()
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ.Kind() {
	case reflect.Slice, reflect.Array:
		if items, ok := schema["items"].(map[string]any); ok {
			compareType(t, where+"[]", typ.Elem(), items)
		}
		return
	case reflect.Struct:
	default:
		return
	}
	props, _ := schema["properties"].(map[string]any)
	var required []string
	req, _ := schema["required"].([]any)
	for _, r := range req {
		required = append(required, r.(string))
	}
	for _, f := range reflect.VisibleFields(typ) {
		name := wireName(f)
		if name == "" {
			continue
		}
		_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		optional := slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool { return o == "omitempty" || o == "omitzero" })
		at := where + "." + name
		prop, _ := props[name].(map[string]any)
		if prop == nil {
			t.Errorf("%s: no schema property", at)
			continue
		}
		levels := validateLevels(f.Tag.Get("validate"))
		validateRequired := slices.Contains(levels[0], "required")
		schemaRequired := slices.Contains(required, name)
		if schemaRequired != validateRequired || schemaRequired == optional {
			t.Errorf("%s: required in schema %v, validate required %v, json omitempty %v; all three must agree", at, schemaRequired, validateRequired, optional)
		}
		s := prop
		for i, rules := range levels {
			if i > 0 {
				s, _ = s["items"].(map[string]any)
				if s == nil {
					t.Errorf("%s: dive without items in the schema", at)
					break
				}
			}
			want, hasEnum, known := expectedEnum(rules)
			if !known {
				continue
			}
			got, _ := s["enum"].([]any)
			var gotStrings []string
			for _, v := range got {
				gotStrings = append(gotStrings, fmt.Sprint(v))
			}
			switch {
			case hasEnum && !slices.Equal(want, gotStrings):
				t.Errorf("%s (level %d): enum %v, want the validator's closed set %v", at, i, gotStrings, want)
			case !hasEnum && got != nil:
				t.Errorf("%s (level %d): enum %v without a closed-set validate rule", at, i, gotStrings)
			}
		}
		compareType(t, at, f.Type, prop)
	}
}

// TestEnumsAndRequiredBehave checks the same agreement by behaviour, starting
// from each tool's valid arguments: every advertised enum value passes the
// validator's closed-set check at its path, a value outside the enum is rejected
// there, and dropping any required property is reported at its path.
func TestEnumsAndRequiredBehave(t *testing.T) {
	args := validArgs(t)
	enums, requireds := 0, 0
	for _, tool := range tools() {
		schema, err := schemaref.Inline(tool.def.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(args[tool.def.Name]), &doc); err != nil {
			t.Fatal(err)
		}
		walkSchema(schema, nil, func(path []any, s map[string]any, required bool) {
			field := fieldPath(path)
			if !present(doc, path[:len(path)-1]) {
				return // the valid arguments do not reach here
			}
			if enum, ok := s["enum"].([]any); ok {
				enums++
				for _, v := range enum {
					for _, p := range problems(t, tool, withValue(doc, path, v)) {
						if p.Field == field && slices.Equal(p.Allowed, anyStrings(enum)) {
							t.Errorf("%s: advertised value %v rejected: %s", tool.def.Name, v, readable(&p))
						}
					}
				}
				if !hasProblemAt(problems(t, tool, withValue(doc, path, "zz-not-allowed")), field) {
					t.Errorf("%s: %s accepts a value outside its enum", tool.def.Name, field)
				}
			}
			if required {
				requireds++
				if !hasProblemAt(problems(t, tool, withValue(doc, path, nil)), field) {
					t.Errorf("%s: dropping required %s is not reported at its path", tool.def.Name, field)
				}
			}
		})
	}
	t.Logf("checked %d enums and %d required properties", enums, requireds)
	if enums < 10 || requireds < 20 {
		t.Errorf("only %d enums and %d required properties reached; the valid arguments no longer cover the schemas", enums, requireds)
	}
}

// walkSchema calls f for every property of every object in s, descending into the
// first item of arrays, with the JSON path (names and indexes) of the property.
func walkSchema(s map[string]any, path []any, f func(path []any, s map[string]any, required bool)) {
	if items, ok := s["items"].(map[string]any); ok {
		walkSchema(items, append(slices.Clone(path), 0), f)
	}
	props, _ := s["properties"].(map[string]any)
	req, _ := s["required"].([]any)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range props {
			if !yield(k) {
				return
			}
		}
	}) {
		p := append(slices.Clone(path), name)
		ps := props[name].(map[string]any)
		f(p, ps, slices.Contains(req, any(name)))
		walkSchema(ps, p, f)
	}
}

func fieldPath(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch p := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		}
	}
	return b.String()
}

func present(doc any, path []any) bool {
	for _, p := range path {
		switch p := p.(type) {
		case int:
			a, ok := doc.([]any)
			if !ok || p >= len(a) {
				return false
			}
			doc = a[p]
		case string:
			m, ok := doc.(map[string]any)
			if !ok {
				return false
			}
			if doc, ok = m[p]; !ok {
				return false
			}
		}
	}
	_, isObject := doc.(map[string]any)
	_, isArray := doc.([]any)
	return isObject || isArray
}

// withValue returns a deep copy of doc with the value at path set to v, or
// removed when v is nil.
func withValue(doc map[string]any, path []any, v any) json.RawMessage {
	var c any
	raw, _ := json.Marshal(doc)
	_ = json.Unmarshal(raw, &c)
	parent := c
	for _, p := range path[:len(path)-1] {
		switch p := p.(type) {
		case int:
			parent = parent.([]any)[p]
		case string:
			parent = parent.(map[string]any)[p]
		}
	}
	last := path[len(path)-1]
	if v == nil {
		delete(parent.(map[string]any), last.(string))
	} else {
		parent.(map[string]any)[last.(string)] = v
	}
	out, _ := json.Marshal(c)
	return out
}

// problems runs a tool directly and returns every problem it reports: those of
// its error, or those listed in a compile result.
func problems(t *testing.T, tool tool, args json.RawMessage) []automium.Error {
	t.Helper()
	out, err := tool.call(context.Background(), args)
	if err != nil {
		e, ok := err.(*automium.Error)
		if !ok {
			t.Fatalf("%s: non-domain error %v", tool.def.Name, err)
		}
		all := e.Problems()
		errs := make([]automium.Error, len(all))
		for i, p := range all {
			errs[i] = automium.Error{Problem: p}
		}
		return errs
	}
	if r, ok := out.(automium.CompileJourneyResult); ok {
		errs := make([]automium.Error, len(r.Errors))
		for i, p := range r.Errors {
			errs[i] = automium.Error{Problem: p}
		}
		return errs
	}
	return nil
}

func hasProblemAt(ps []automium.Error, field string) bool {
	return slices.ContainsFunc(ps, func(p automium.Error) bool { return p.Field == field })
}

func anyStrings(vs []any) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = fmt.Sprint(v)
	}
	return out
}

// typeUnions returns the paths of every schema under s whose "type" is an array,
// such as ["null","array"].
func typeUnions(s map[string]any, path string) []string {
	var found []string
	if _, union := s["type"].([]any); union {
		found = append(found, path)
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if p, ok := props[name].(map[string]any); ok {
				found = append(found, typeUnions(p, path+".properties."+name)...)
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if sub, ok := s[k].(map[string]any); ok {
			found = append(found, typeUnions(sub, path+"."+k)...)
		}
	}
	return found
}

// TestListedSchemasAreShipped holds what New's tools/list serves against the
// schema files, for New (whose tools skip go-sdk's schema checks,
// addShippedTool) and for Register (whose tools do not): every tool lists
// exactly its shipped input and output schema, not the placeholder. It also
// makes the checks addShippedTool leaves to it: each input schema is an
// object, each schema is JSON, and none has an x-mcp-header annotation (which
// AddTool would check over HTTP).
func TestListedSchemasAreShipped(t *testing.T) {
	want := map[string][2]any{}
	for _, row := range tools() {
		var pair [2]any
		for i, raw := range []json.RawMessage{row.def.InputSchema.(json.RawMessage), row.def.OutputSchema.(json.RawMessage)} {
			side := [...]string{"input", "output"}[i]
			if err := json.Unmarshal(raw, &pair[i]); err != nil {
				t.Fatalf("%s %s schema: not JSON: %v", row.def.Name, side, err)
			}
			if strings.Contains(string(raw), "x-mcp-header") {
				t.Errorf("%s %s schema: has an x-mcp-header annotation, which AddTool would check", row.def.Name, side)
			}
		}
		if typ := pair[0].(map[string]any)["type"]; typ != "object" {
			t.Errorf("%s input schema: type %v, want object", row.def.Name, typ)
		}
		want[row.def.Name] = pair
	}
	registered := mcp.NewServer(&mcp.Implementation{Name: "host", Version: "v0.0.0"}, nil)
	Register(registered, nil)
	for _, tc := range []struct {
		name   string
		server *mcp.Server
	}{{"New", New(nil)}, {"Register", registered}} {
		t.Run(tc.name, func(t *testing.T) {
			list, err := connect(t, tc.server, "2025-11-25").ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][2]any{}
			for _, tool := range list.Tools {
				got[tool.Name] = [2]any{tool.InputSchema, tool.OutputSchema}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("listed schemas differ from the shipped ones (-shipped +listed):\n%s", diff)
			}
		})
	}
}

// TestClosedSetsTyped: every closed set of a tool's input or result
// has a named type with a constant per value, so a Go caller's typo does not
// compile. The values exempt are the corpus's, which it lists (ListApps,
// ListFixtures, SupportedCorpusVersions) and which change with it: every
// field a corpus rule validates, so a new tool owes no entry here. A field
// that also takes an app of the caller's own (ext:…) is no closed set.
func TestClosedSetsTyped(t *testing.T) {
	// Beside the tools' types: the specs the vocabulary lists, and the input
	// of ComparePlaywrightReport, a capability Go callers have and agents do not.
	roots := []reflect.Type{reflect.TypeFor[automium.IntentSpec](), reflect.TypeFor[automium.AssertionSpec](), reflect.TypeFor[automium.ArtifactSpec](),
		reflect.TypeFor[automium.ComparePlaywrightReportInput]()}
	for _, r := range toolTable() {
		roots = append(roots, r.in, r.out)
	}
	exempt := map[string]string{
		// Found when the roots became the table's: the one encoding there is.
		// Typing it changes the Go API, so it is left to a commit of its own.
		"ReportContent.encoding": "not typed yet: its one value is base64",
	}
	const corpus = "corpus data: the corpus lists it, and it changes with the corpus"
	corpusRules := map[string]string{"automium_app": corpus, "automium_fixture": corpus, "automium_profile": corpus, "automium_corpus_version": corpus}
	testsupport.ClosedSetsTyped(t, roots, adapter.Schema, exempt, corpusRules)
}
