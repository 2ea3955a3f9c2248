package contract

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/automium/automium/internal/adapter"
)

// The precomputed schemas are what derivation gives (TestGenerated holds the
// files to it), and each call returns the caller's own copy.
func TestJSONSchemaIsACopy(t *testing.T) {
	for _, typ := range precomputedSchemaTypes {
		first, err := jsonSchema(typ)
		if err != nil {
			t.Fatal(err)
		}
		first[0] = 'X'
		second, err := jsonSchema(typ)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(second) {
			t.Errorf("jsonSchema(%s) returned shared memory: a caller's change shows in the next call", typ)
		}
	}
}

// BenchmarkJSONSchema compares what a server pays for a contract schema, a
// precomputed one, with deriving it, for the largest contract type.
func BenchmarkJSONSchema(b *testing.B) {
	typ := reflect.TypeFor[ReplayEvent]()
	for _, way := range []struct {
		name   string
		schema func(reflect.Type) (json.RawMessage, error)
	}{{"precomputed", jsonSchema}, {"derived", adapter.JSONSchema}} {
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
