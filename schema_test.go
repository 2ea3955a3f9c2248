package automium

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestJSONSchemaReturnsCopies guards the shipped schemas against callers that
// modify what they get.
func TestJSONSchemaReturnsCopies(t *testing.T) {
	typ := precomputedSchemaTypes[0]
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
