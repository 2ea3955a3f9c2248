package adapter_test

import (
	"reflect"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/adapter"
)

// TestHooksAreFilled: importing the root package fills every hook, and the
// problem hooks answer for the root package's own types.
func TestHooksAreFilled(t *testing.T) {
	typ := reflect.TypeFor[automium.CompileJourneyInput]()
	s, err := adapter.Schema(typ)
	if err != nil || s == nil || s.Properties["steps"] == nil {
		t.Fatalf("Schema = %v, %v; want the schema of CompileJourneyInput", s, err)
	}
	raw, err := adapter.JSONSchema(typ)
	if err != nil || len(raw) == 0 {
		t.Fatalf("JSONSchema = %d bytes, %v", len(raw), err)
	}
	ps := []automium.Problem{
		automium.NewProblem(automium.CodeInvalidArgument, automium.PathOf("steps"), nil, "second"),
		automium.NewProblem(automium.CodeInvalidArgument, automium.PathOf("id"), nil, "first"),
	}
	adapter.SortProblems(typ, ps)
	if ps[0].Field != "id" || ps[1].Field != "steps" {
		t.Errorf("sorted fields %q, %q; want id before steps, as the type declares them", ps[0].Field, ps[1].Field)
	}
	if _, bad := adapter.LineProblem[automium.Problem](automium.PathOf("goal"), "one line"); bad {
		t.Error("one line of text was refused")
	}
	p, bad := adapter.LineProblem[automium.Problem](automium.PathOf("goal"), "two\nlines")
	if !bad || p.Field != "goal" || p.Code != automium.CodeInvalidArgument {
		t.Errorf("two lines gave %+v, %v; want an invalid_argument problem at goal", p, bad)
	}
	in, _ := automium.ReferenceJourney(automium.ReferenceJourneyIDs()[0])
	res, err := automium.CompileJourney(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if body, ok := adapter.AppendJSON(nil, res); !ok || len(body) == 0 {
		t.Errorf("AppendJSON of a valid compile = %d bytes, %v; want the root package to write it", len(body), ok)
	}
}

// TestHooksRefuseOtherTypes: a hook called with types the root package did
// not register for fails loudly, not silently.
func TestHooksRefuseOtherTypes(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("SortProblems on []string did not panic")
		}
	}()
	adapter.SortProblems(reflect.TypeFor[automium.CompileJourneyInput](), []string{"b", "a"})
}
