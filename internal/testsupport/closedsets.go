package testsupport

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/automium/automium/internal/gen/apply"
	"github.com/google/jsonschema-go/jsonschema"
)

// modulePath is the module's import path; a package's directory is its
// import path below it.
const modulePath = "github.com/automium/automium"

// ClosedSetsTyped fails t for every closed set, under the types of roots,
// that a Go caller could get wrong without the compiler saying so: every
// string value whose schema (as schemaOf derives it) lists an enum must have
// a named Go type, not string, with a constant of that type for every value
// of the enum, declared in the type's package. exempt names the values,
// as Type.member, that are not Go's closed sets, each with why; exemptRules
// names validate rules whose fields are not (corpus data such as app IDs,
// which the corpus lists and which change with it), so that a new field
// checked by such a rule needs no entry in a list.
func ClosedSetsTyped(t *testing.T, roots []reflect.Type, schemaOf func(reflect.Type) (*jsonschema.Schema, error), exempt, exemptRules map[string]string) {
	t.Helper()
	root, err := apply.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]map[string]map[string]bool{} // package path -> type -> values
	constsOf := func(typ reflect.Type) map[string]bool {
		pkg := typ.PkgPath()
		if consts[pkg] == nil {
			consts[pkg] = typedStringConsts(t, filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(pkg, modulePath), "/"))))
		}
		return consts[pkg][typ.Name()]
	}
	used := map[string]bool{}
	seen := map[reflect.Type]bool{}
	// ruleOf is the exempt rule a field's validate tag names, or "".
	ruleOf := func(f reflect.StructField) string {
		for _, r := range strings.Split(f.Tag.Get("validate"), ",") {
			if exemptRules[r] != "" {
				return r
			}
		}
		return ""
	}
	// rule is the exempt rule of the field the value is (or is an item of).
	var walk func(s *jsonschema.Schema, typ reflect.Type, where, rule string)
	walk = func(s *jsonschema.Schema, typ reflect.Type, where, rule string) {
		if s == nil {
			return
		}
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if len(s.Enum) > 0 && typ.Kind() == reflect.String {
			switch {
			case exempt[where] != "":
				used[where] = true
			case rule != "":
				used[rule] = true
			case typ.PkgPath() == "":
				t.Errorf("%s is a closed set of %d values, but a plain %s: give it a named type with a constant per value", where, len(s.Enum), typ)
			default:
				have := constsOf(typ)
				for _, v := range s.Enum {
					if str, ok := v.(string); ok && !have[str] {
						t.Errorf("%s: %s has no constant for its value %q", where, typ, str)
					}
				}
			}
		}
		switch typ.Kind() {
		case reflect.Slice, reflect.Array:
			walk(s.Items, typ.Elem(), where+"[]", rule)
		case reflect.Map:
			walk(s.AdditionalProperties, typ.Elem(), where+"{}", rule)
		case reflect.Struct:
			if seen[typ] {
				return
			}
			seen[typ] = true
			for _, f := range reflect.VisibleFields(typ) {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if !f.IsExported() || f.Anonymous || name == "-" {
					continue
				}
				if name == "" {
					name = f.Name
				}
				walk(s.Properties[name], f.Type, typ.Name()+"."+name, ruleOf(f))
			}
		}
	}
	for _, typ := range roots {
		s, err := schemaOf(typ)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		walk(s, typ, typ.Name(), "")
	}
	for where := range exempt {
		if !used[where] {
			t.Errorf("%s is exempt, but no closed set is there any longer; drop it from the list", where)
		}
	}
	for rule := range exemptRules {
		if !used[rule] {
			t.Errorf("the rule %s is exempt, but it checks no closed set any longer; drop it from the list", rule)
		}
	}
}

// typedStringConsts returns, per type name, the string values of the
// constants declared with that type (const X T = "v") in the package in dir.
func typedStringConsts(t *testing.T, dir string) map[string]map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				id, ok := vs.Type.(*ast.Ident)
				if !ok {
					continue
				}
				for i, n := range vs.Names {
					if !n.IsExported() || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					if out[id.Name] == nil {
						out[id.Name] = map[string]bool{}
					}
					out[id.Name][v] = true
				}
			}
		}
	}
	return out
}
