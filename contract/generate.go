package contract

import (
	"fmt"
	"io/fs"
	"reflect"

	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/gen"
)

// precomputedSchemaTypes lists the message types whose schemas ship in
// schemas/: every type a contract document describes.
var precomputedSchemaTypes = []reflect.Type{
	reflect.TypeFor[PlannerRequest](), reflect.TypeFor[PlannerDecision](),
	reflect.TypeFor[ReplayEvent](), reflect.TypeFor[SemanticSnapshot](),
}

// generatedFiles lists this package's generated files, for go generate ./...
// (through generate_register.go, built only with the automiumgen tag) and for
// TestGenerated: the schemas in schemas/, derived from the struct tags.
func generatedFiles(fs.FS) ([]gen.Output, error) {
	outs := []gen.Output{gen.PruneGlob("contract/schemas/*.json")}
	for _, typ := range precomputedSchemaTypes {
		derived, err := adapter.JSONSchema(typ)
		if err != nil {
			return nil, fmt.Errorf("deriving the schema of %s: %w", typ, err)
		}
		outs = append(outs, gen.File(precomputedSchemaFile(typ), append(derived, '\n')))
	}
	return outs, nil
}
