package automium

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the precomputed schemas in schemas/")

// precomputedSchemaTypes lists the types whose schemas ship in schemas/: every
// capability's input and output, and the contract message types, which a server
// needs as soon as it starts.
var precomputedSchemaTypes = []reflect.Type{
	reflect.TypeFor[ListAppsInput](), reflect.TypeFor[ListAppsResult](),
	reflect.TypeFor[ListFixturesInput](), reflect.TypeFor[ListFixturesResult](),
	reflect.TypeFor[CompileJourneyInput](), reflect.TypeFor[CompileJourneyResult](),
	reflect.TypeFor[CreateRunSubmissionInput](), reflect.TypeFor[CreateRunSubmissionResult](),
	reflect.TypeFor[GetReplaySummaryInput](), reflect.TypeFor[GetReplaySummaryResult](),
	reflect.TypeFor[GetArtifactManifestInput](), reflect.TypeFor[GetArtifactManifestResult](),
	reflect.TypeFor[ComparePlannersInput](), reflect.TypeFor[ComparisonReport](),
	reflect.TypeFor[PlannerRequest](), reflect.TypeFor[PlannerDecision](),
	reflect.TypeFor[ReplayEvent](), reflect.TypeFor[SemanticSnapshot](),
}

// TestPrecomputedSchemas keeps the shipped schemas equal to what the struct tags
// and the corpus give today, and the directory free of schemas nothing uses.
func TestPrecomputedSchemas(t *testing.T) {
	const fix = "go test -run TestPrecomputedSchemas -update ."
	var want []string
	for _, typ := range precomputedSchemaTypes {
		derived, err := deriveSchema(typ)
		if err != nil {
			t.Fatalf("deriving the schema of %s: %v", typ, err)
		}
		path := precomputedSchemaFile(typ)
		want = append(want, filepath.Base(path))
		if *update {
			if err := os.WriteFile(path, append(derived, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		shipped, ok := precomputedSchema(typ)
		switch {
		case !ok:
			t.Errorf("%s is missing; generate it with: %s", path, fix)
		case !bytes.Equal(shipped, derived):
			t.Errorf("%s is stale: the struct tags of %s or the corpus changed since it was generated; regenerate it with: %s", path, typ, fix)
		}
	}
	files, err := filepath.Glob("schemas/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !slices.Contains(want, filepath.Base(f)) {
			t.Errorf("%s is the schema of no type in precomputedSchemaTypes; delete it", f)
		}
	}
}

// TestJSONSchemaReturnsCopies guards the shipped schemas against callers that
// modify what they get.
func TestJSONSchemaReturnsCopies(t *testing.T) {
	typ := precomputedSchemaTypes[0]
	first, err := JSONSchema(typ)
	if err != nil {
		t.Fatal(err)
	}
	clear(first)
	second, err := JSONSchema(typ)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(second) {
		t.Errorf("JSONSchema(%s) returned shared memory: a caller's change shows in the next call", typ)
	}
}

// BenchmarkJSONSchema compares what a server pays for a schema at start-up, a
// precomputed one, with deriving it, for the largest tool and contract types.
func BenchmarkJSONSchema(b *testing.B) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[CompileJourneyInput](),
		reflect.TypeFor[CompileJourneyResult](),
		reflect.TypeFor[ComparisonReport](),
		reflect.TypeFor[ReplayEvent](),
	} {
		for _, way := range []struct {
			name   string
			schema func(reflect.Type) (json.RawMessage, error)
		}{{"precomputed", JSONSchema}, {"derived", deriveSchema}} {
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
