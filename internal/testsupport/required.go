package testsupport

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium/internal/jsonname"
)

// RequiredMeansTheSame fails t for every struct field, under the types of
// roots, whose two statements of "required" disagree: a field the schema
// lists as required (its json tag has no omitempty or omitzero) must carry
// validate:"required", and one with validate:"required" must be required on
// the wire. Every field must also have a jsonschema description. The root
// package and package contract hold their wire types to it.
func RequiredMeansTheSame(t *testing.T, roots ...reflect.Type) {
	t.Helper()
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for _, f := range reflect.VisibleFields(typ) {
			name, optional, ok := jsonname.Field(f)
			if !ok {
				continue
			}
			required := slices.Contains(strings.Split(f.Tag.Get("validate"), ","), "required")
			if optional == required {
				t.Errorf("%s.%s: json optional=%v but validate required=%v", typ.Name(), name, optional, required)
			}
			if f.Tag.Get("jsonschema") == "" {
				t.Errorf("%s.%s: no jsonschema description", typ.Name(), name)
			}
			walk(f.Type)
		}
	}
	for _, r := range roots {
		walk(r)
	}
}
