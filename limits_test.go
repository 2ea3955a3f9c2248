package automium

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/automium/automium/internal/closedset"
	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
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

// TestRepeatedValuesEachChecked: the walk skips a string that already passed
// the same rules (ruleWalk.passed), so it must still refuse each bad repeat
// at its own path, and refuse a string under other rules that it passed
// under one.
func TestRepeatedValuesEachChecked(t *testing.T) {
	type name string
	type item struct {
		ID   string `json:"id" validate:"required,automium_slug"`
		Note string `json:"note" validate:"max=3"`
		Kind name   `json:"kind" validate:"max=3"`
	}
	type input struct {
		Items []item `json:"items" validate:"dive"`
	}
	fields := func(ps []Problem) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Field)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		in   input
		want []string
	}{
		{"good repeats pass", input{Items: []item{{ID: "a", Note: "abc"}, {ID: "a", Note: "abc"}, {ID: "a", Note: "abc"}}}, nil},
		{"bad repeats each refused", input{Items: []item{{ID: "A!"}, {ID: "a"}, {ID: "A!"}}}, []string{"items[0].id", "items[2].id"}},
		{"passed under one rule, refused under another", input{Items: []item{{ID: "abcd"}, {ID: "a", Note: "abcd"}}}, []string{"items[1].note"}},
		{"a named string type under the same rules", input{Items: []item{{ID: "a", Note: "abcd"}, {ID: "a", Kind: "abcd"}}}, []string{"items[0].note", "items[1].kind"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, fields(validateStruct(tc.in))); diff != "" {
				t.Errorf("problems at (-want +got):\n%s", diff)
			}
		})
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

// TestLengthLimitsCountCharacters checks that length limits count characters, as
// the schemas' maxLength does, so that a value the schema allows is never refused
// for its bytes: "é" is one character and two bytes.
func TestLengthLimitsCountCharacters(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		call  func(n int) error
		limit int
		field string
	}{
		{"planner id", func(n int) error {
			in := validRunSubmission()
			in.Planner.ID = strings.Repeat("é", n)
			_, err := CreateRunSubmission(ctx, in)
			return err
		}, limit.MaxIDLength, "planner.id"},
		{"artifact root", func(n int) error {
			in := validManifestInput()
			// Segments of 99 two-byte characters: a file system stores a
			// segment of at most 255 bytes, so one of 512 characters is
			// refused for that reason before the length limit is reached.
			var b strings.Builder
			for i := range n {
				if (i+1)%100 == 0 {
					b.WriteByte('/')
				} else {
					b.WriteString("é")
				}
			}
			in.Root = b.String()
			_, err := GetArtifactManifest(ctx, in)
			return err
		}, limit.MaxPathLength, "root"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(tt.limit); err != nil {
				t.Errorf("%d two-byte characters: %v, want accepted", tt.limit, err)
			}
			var e *Error
			if err := tt.call(tt.limit + 1); !errors.As(err, &e) || e.Code != CodeLimitExceeded || e.Field != tt.field {
				t.Errorf("%d two-byte characters: %v, want limit_exceeded at %s", tt.limit+1, err, tt.field)
			}
		})
	}
}

// TestMissingClosedSetFieldNamesAllowedValues checks that a missing field whose
// values come from a closed set says which values it takes.
func TestMissingClosedSetFieldNamesAllowedValues(t *testing.T) {
	in := validJourney()
	in.AppID = ""
	in.Steps[1].Intent = ""
	res, err := CompileJourney(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, e := range res.Errors {
		got[e.Field] = e.Allowed
	}
	for field, want := range map[string][]string{"appId": owned().appIDs, "steps[1].intent": closedset.Strings(Intents())} {
		if len(got[field]) == 0 || strings.Join(got[field], ",") != strings.Join(want, ",") {
			t.Errorf("%s: allowed = %v, want %v", field, got[field], want)
		}
	}
}
