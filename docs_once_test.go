package automium

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestFieldDescriptionsWrittenOnce: a field's description is written once, in
// its jsonschema tag, which the schemas advertise and go doc prints with the
// field; a doc comment beside such a tag may only add what the tag does not
// say (a comment that repeats the tag is what go doc showed twice).
func TestFieldDescriptionsWrittenOnce(t *testing.T) {
	var files []string
	for _, glob := range []string{"*.go", "contract/*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	norm := func(s string) string {
		return strings.ToLower(strings.TrimSuffix(strings.Join(strings.Fields(s), " "), "."))
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fld := range st.Fields.List {
				if fld.Doc == nil || fld.Tag == nil {
					continue
				}
				tag, err := strconv.Unquote(fld.Tag.Value)
				if err != nil {
					t.Fatalf("%s: %v", fset.Position(fld.Pos()), err)
				}
				if desc, ok := reflect.StructTag(tag).Lookup("jsonschema"); ok && norm(fld.Doc.Text()) == norm(desc) {
					t.Errorf("%s: the doc comment repeats the jsonschema tag %q; drop the comment", fset.Position(fld.Pos()), desc)
				}
			}
			return true
		})
	}
}
