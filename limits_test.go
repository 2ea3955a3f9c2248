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

	"github.com/automium/automium/internal/limit"
)

// TestLimitsRegistry holds the registry to the constants: every Max* constant
// of internal/limit is listed once, each row's value is the constant its name
// names (checked in the source of limits.go, since constants do not
// exist at run time), and tags are unique, so a new bound cannot go unlisted
// (docs/limits.md lists the registry) and no tag names two bounds.
func TestLimitsRegistry(t *testing.T) {
	declared, rows := maxConstants(t)
	listed := map[string]bool{}
	tags := map[string]string{}
	for i, l := range Limits() {
		if listed[l.Name] {
			t.Errorf("%s is listed twice", l.Name)
		}
		listed[l.Name] = true
		if !declared[l.Name] {
			t.Errorf("%s is listed but internal/limit declares no constant of that name", l.Name)
		}
		if i >= len(rows) || rows[i] != l.Name {
			t.Errorf("row %d of limits is named %s; its value must be the constant %s itself", i, l.Name, l.Name)
		}
		if l.Value <= 0 || l.Bounds == "" {
			t.Errorf("%s: value %d, bounds %q; want a positive value and what it bounds", l.Name, l.Value, l.Bounds)
		}
		if l.Tag == "" {
			continue
		}
		if other, dup := tags[l.Tag]; dup {
			t.Errorf("tag %s names both %s and %s", l.Tag, other, l.Name)
		}
		tags[l.Tag] = l.Name
		if r, ok := limitTag(l.Tag); !ok || r != (rule{"max", strconv.FormatInt(l.Value, 10)}) {
			t.Errorf("tag %s stands for %v, want max=%d", l.Tag, r, l.Value)
		}
	}
	for name := range declared {
		if !listed[name] {
			t.Errorf("limit.%s is declared but not in the registry (limits.go); add a row", name)
		}
	}
}

// TestLimitTagsValidate: a bound's tag is enforced by the validator exactly
// as max=<value> would be, with the same message, which names the value.
func TestLimitTagsValidate(t *testing.T) {
	type named struct {
		Goal  string   `json:"goal" validate:"max_text_length"`
		Steps []string `json:"steps" validate:"max_steps"`
		Count int      `json:"count" validate:"max_retry_count"`
	}
	type literal struct {
		Goal  string   `json:"goal" validate:"max=2000"`
		Steps []string `json:"steps" validate:"max=200"`
		Count int      `json:"count" validate:"max=10"`
	}
	long, many := strings.Repeat("x", limit.MaxTextLength+1), make([]string, limit.MaxSteps+1)
	got := validateStruct(named{Goal: long, Steps: many, Count: limit.MaxRetryCount + 1})
	want := validateStruct(literal{Goal: long, Steps: many, Count: limit.MaxRetryCount + 1})
	if len(got) != 3 || !reflect.DeepEqual(got, want) {
		t.Errorf("named bounds gave %v, want %v as the literal bounds give", got, want)
	}
	if ok := validateStruct(named{Goal: strings.Repeat("x", limit.MaxTextLength), Steps: make([]string, limit.MaxSteps), Count: limit.MaxRetryCount}); ok != nil {
		t.Errorf("values at the bounds were refused: %v", ok)
	}
}

// maxConstants returns the Max* constants internal/limit's non-test files
// declare, and for each row of the limits table in limits.go, in order,
// the name of the constant its value is, when its name and value agree ("" when
// they do not).
func maxConstants(t *testing.T) (declared map[string]bool, rows []string) {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	lim, err := filepath.Glob(filepath.Join("internal", "limit", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, lim...)
	declared = map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, id := range vs.Names {
					if gd.Tok == token.CONST && strings.HasPrefix(id.Name, "Max") && id.IsExported() {
						declared[id.Name] = true
					}
					if gd.Tok == token.VAR && id.Name == "limits" && i < len(vs.Values) {
						rows = registryRows(vs.Values[i])
					}
				}
			}
		}
	}
	if len(rows) == 0 {
		t.Fatal("no limits table in limits.go")
	}
	return declared, rows
}

// registryRows reads the {"Name", limit.Name, ...} rows of the limits table.
func registryRows(e ast.Expr) []string {
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil
	}
	var rows []string
	for _, elt := range lit.Elts {
		row, ok := elt.(*ast.CompositeLit)
		name := ""
		if ok && len(row.Elts) >= 2 {
			str, isStr := row.Elts[0].(*ast.BasicLit)
			sel, isSel := row.Elts[1].(*ast.SelectorExpr)
			if isStr && isSel && str.Value == strconv.Quote(sel.Sel.Name) {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "limit" {
					name = sel.Sel.Name
				}
			}
		}
		rows = append(rows, name)
	}
	return rows
}
