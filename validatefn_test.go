package automium_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// validateFnUses returns "file:line: field" for each struct field of src
// whose validate tag uses go-playground/validator's validateFn rule.
func validateFnUses(fset *token.FileSet, name string, src any) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var uses []string
	ast.Inspect(f, func(n ast.Node) bool {
		field, ok := n.(*ast.Field)
		if !ok || field.Tag == nil {
			return true
		}
		tag, err := strconv.Unquote(field.Tag.Value)
		if err != nil {
			return true
		}
		for term := range strings.FieldsFuncSeq(reflect.StructTag(tag).Get("validate"), func(r rune) bool { return r == ',' || r == '|' }) {
			if rule, _, _ := strings.Cut(term, "="); rule == "validateFn" {
				uses = append(uses, fmt.Sprintf("%s: %s", fset.Position(field.Pos()), tag))
			}
		}
		return true
	})
	return uses, nil
}

// TestNoValidateFnRule: automium-mcp is built with -tags
// validator_novalidatefn (testsupport.ServerBuildTags), under which the
// validator panics on a validateFn rule, while the tests, built without the
// tag, would run it. schema.go refuses the rule (TestJSONSchemaRejectsUntranslatableRules),
// but only on the types whose schemas some test derives, and a type can be
// validated without one (the counts rows are not on the wire). So every
// struct tag of the module's non-test code is read here, whatever its type.
func TestNoValidateFnRule(t *testing.T) {
	fset := token.NewFileSet()
	probe := "package p\n\ntype T struct {\n\tA string `json:\"a\" validate:\"omitempty,max=3,validateFn=IsValid\"`\n\tB string `json:\"b\" validate:\"max=3|validateFn\"`\n\tC string `json:\"c\" validate:\"max=3\"`\n}\n"
	got, err := validateFnUses(fset, "probe.go", probe)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"probe.go:4:2: json:\"a\" validate:\"omitempty,max=3,validateFn=IsValid\"",
		"probe.go:5:2: json:\"b\" validate:\"max=3|validateFn\"",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the scan of a probe (-want +got):\n%s", diff)
	}
	files := nonTestGoFiles(t)
	if len(files) < 10 {
		t.Fatalf("found only %d non-test Go files; the walk is broken", len(files))
	}
	var uses []string
	for _, path := range files {
		u, err := validateFnUses(fset, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		uses = append(uses, u...)
	}
	if len(uses) > 0 {
		t.Errorf("a validate tag uses validateFn, which panics in automium-mcp (built with -tags %s); check the value in code, or with a rule of validate.go:\n%s",
			"validator_novalidatefn", strings.Join(uses, "\n"))
	}
}
