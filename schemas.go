package automium

import (
	"bytes"
	"embed"
	"encoding/json"
	"reflect"
)

// The JSON Schemas of the types a server needs as soon as it starts (every
// capability's input and output, and the contract message types) ship
// precomputed in schemas/, one file per type, so that [JSONSchema] returns them
// without deriving them. Deriving costs milliseconds per type, mostly in
// jsonschema-go's encoder, which re-encodes every nested schema once per level of
// nesting; precomputed, the schemas cost a server nothing at start-up, and
// spawn → initialized stays near the Go runtime's own start-up time.
//
// The struct tags stay the one source of truth: TestPrecomputedSchemas derives
// every schema again and fails, naming the command that regenerates the files,
// when one no longer matches, for instance after a change to a validate tag or to
// the corpus behind an enum.
//
//go:embed schemas/*.json
var precomputedSchemaFiles embed.FS

// precomputedSchemaTypes lists the types whose schemas are in schemas/. A type
// that is not listed is derived on each call, which is correct, only slower.
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

// precomputedSchemaFile is where the schema of t is kept.
func precomputedSchemaFile(t reflect.Type) string { return "schemas/" + t.Name() + ".json" }

// precomputedSchema returns a copy of the precomputed schema of t, if t has one.
func precomputedSchema(t reflect.Type) (json.RawMessage, bool) {
	for _, p := range precomputedSchemaTypes {
		if p != t {
			continue
		}
		data, err := precomputedSchemaFiles.ReadFile(precomputedSchemaFile(t))
		if err != nil {
			return nil, false
		}
		// The file ends with a newline, which the derived schema does not.
		return bytes.TrimSuffix(data, []byte("\n")), true
	}
	return nil, false
}
