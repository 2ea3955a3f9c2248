package automium

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/automium/automium/internal/testsupport"
	"github.com/google/go-cmp/cmp"
)

// TestJSONSchemaReturnsCopies guards the shipped schemas against callers that
// modify what they get.
func TestJSONSchemaReturnsCopies(t *testing.T) {
	typ := reflect.TypeFor[CompileJourneyInput]()
	first, err := jsonSchema(typ)
	if err != nil {
		t.Fatal(err)
	}
	clear(first)
	second, err := jsonSchema(typ)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(second) {
		t.Errorf("JSONSchema(%s) returned shared memory: a caller's change shows in the next call", typ)
	}
}

// BenchmarkJSONSchema compares what a server pays for a schema at start-up, a
// precomputed one, with deriving it, for the largest tool types.
func BenchmarkJSONSchema(b *testing.B) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[CompileJourneyInput](),
		reflect.TypeFor[CompileJourneyResult](),
		reflect.TypeFor[ComparisonReport](),
	} {
		for _, way := range []struct {
			name   string
			schema func(reflect.Type) (json.RawMessage, error)
		}{{"precomputed", jsonSchema}, {"derived", deriveSchema}} {
			b.Run(typ.Name()+"/"+way.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := way.schema(typ); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestRequiredMeansTheSame enforces the tag rule on the run inputs (the
// contract package's test of the same name does on the contract types): a field that the schema lists as required (no omitempty or
// omitzero) carries validate:"required", and a field with validate:"required" is
// required on the wire.
func TestRequiredMeansTheSame(t *testing.T) {
	roots := []reflect.Type{
		reflect.TypeFor[CreateRunSubmissionInput](),
		reflect.TypeFor[GetReplaySummaryInput](),
		reflect.TypeFor[GetArtifactManifestInput](),
	}
	testsupport.RequiredMeansTheSame(t, roots...)
}

// A validate rule with no JSON Schema translation is an error, not a silently
// looser schema.
func TestJSONSchemaRejectsUntranslatableRules(t *testing.T) {
	type bad struct {
		A string `json:"a" validate:"required,email"`
	}
	if _, err := jsonSchema(reflect.TypeFor[bad]()); err == nil {
		t.Error("JSONSchema accepted a validate rule it cannot translate")
	}
	// automium-mcp is built without validator's validateFn (TestNoValidateFnRule).
	type method struct {
		A string `json:"a" validate:"omitempty,validateFn"`
	}
	if _, err := jsonSchema(reflect.TypeFor[method]()); err == nil {
		t.Error("JSONSchema accepted validateFn, a rule automium-mcp is built without")
	}
	type twoPatterns struct {
		A string `json:"a" validate:"required,automium_slug,automium_run_id"`
	}
	if _, err := jsonSchema(reflect.TypeFor[twoPatterns]()); err == nil {
		t.Error("JSONSchema accepted two patterns on one value, which one schema pattern cannot express")
	}
}

// TestSchemasAdvertiseLimits keeps the literal bounds in validate tags equal to the
// exported constants that documentation and callers rely on.
func TestSchemasAdvertiseLimits(t *testing.T) {
	type bounds struct {
		Maximum   *float64 `json:"maximum"`
		MaxItems  *int     `json:"maxItems"`
		MaxLength *int     `json:"maxLength"`
	}
	props := func(typ reflect.Type) map[string]bounds {
		raw, err := jsonSchema(typ)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Properties map[string]bounds `json:"properties"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		return s.Properties
	}
	num := func(f *float64) int {
		if f == nil {
			return -1
		}
		return int(*f)
	}
	deref := func(n *int) int {
		if n == nil {
			return -1
		}
		return *n
	}
	replay := props(reflect.TypeFor[GetReplaySummaryInput]())
	manifest := props(reflect.TypeFor[GetArtifactManifestInput]())
	entry := props(reflect.TypeFor[ArtifactEntry]())
	planner := props(reflect.TypeFor[PlannerRef]())
	got := map[string]int{
		"retryCount":          num(replay["retryCount"].Maximum),
		"entries":             deref(manifest["entries"].MaxItems),
		"root":                deref(manifest["root"].MaxLength),
		"entry.path":          deref(entry["path"].MaxLength),
		"entry.size":          num(entry["size"].Maximum),
		"planner.id":          deref(planner["id"].MaxLength),
		"planner.vendor":      deref(planner["vendor"].MaxLength),
		"planner.model":       deref(planner["model"].MaxLength),
		"artifactManifestRef": deref(replay["artifactManifestRef"].MaxLength),
	}
	want := map[string]int{
		"retryCount":          limit.MaxRetryCount,
		"entries":             limit.MaxArtifactEntries,
		"root":                limit.MaxPathLength,
		"entry.path":          limit.MaxPathLength,
		"entry.size":          limit.MaxArtifactSizeBytes,
		"planner.id":          limit.MaxIDLength,
		"planner.vendor":      limit.MaxIDLength,
		"planner.model":       limit.MaxIDLength,
		"artifactManifestRef": maxRefLength,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema bounds differ from the constants (-want +got):\n%s", diff)
	}
}
