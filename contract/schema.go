package contract

import (
	"bytes"
	"embed"
	"encoding/json"
	"reflect"

	"github.com/automium/automium/internal/adapter"
)

// The JSON Schemas of the contract message types ship precomputed in
// schemas/, one file per type, as the root package's capability schemas do,
// so that a server serving contract://<name> derives nothing. go generate
// ./... writes the files from the struct tags (generate.go lists them), and
// TestGenerated fails when one no longer matches.
//
//go:embed schemas/*.json
var precomputedSchemaFiles embed.FS

// precomputedSchemaFile is where, from the module root, the schema of t is kept.
func precomputedSchemaFile(t reflect.Type) string { return "contract/schemas/" + t.Name() + ".json" }

// packagePath is this package's import path, for telling its types apart.
var packagePath = reflect.TypeFor[Document]().PkgPath()

// jsonSchema returns the JSON Schema of t, precomputed for this package's
// message types and derived (by the root package's translator of validate
// tags) for any other. The result is the caller's to keep.
func jsonSchema(t reflect.Type) (json.RawMessage, error) {
	if t.PkgPath() == packagePath {
		if data, err := precomputedSchemaFiles.ReadFile("schemas/" + t.Name() + ".json"); err == nil {
			// The file ends with a newline, which the derived schema does not.
			return bytes.TrimSuffix(data, []byte("\n")), nil
		}
	}
	return adapter.JSONSchema(t)
}
