package contract

import (
	"reflect"
	"strings"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/check"
)

// problems collects every problem with one message, each at its path, and
// reports them as the root package's capabilities do: in the one order of
// problems of the message's type, joined into one *automium.Error.
type problems struct {
	typ   reflect.Type
	found []automium.Problem
}

func newProblems(in any) *problems { return &problems{typ: reflect.TypeOf(in)} }

// validate records what the shared validator finds in in.
func (ps *problems) validate(in any) {
	ps.found = append(ps.found, check.Validate[automium.Problem](in)...)
}

// add records a problem at a path. Client values among args must be marked
// echo.Value; the one renderer quotes them.
func (ps *problems) add(at automium.Path, code automium.Code, allowed []string, format string, args ...any) {
	ps.found = append(ps.found, automium.NewProblem(code, at, allowed, format, args...))
}

// decision records what the vocabulary's intent requires of d, under at.
func (ps *problems) decision(at automium.Path, d PlannerDecision) {
	ps.found = append(ps.found, check.Decision[automium.Problem](at, string(d.Intent), d.Target != nil, d.Destination != nil, d.Value)...)
}

// has reports whether a problem was found at at or below it: a check that
// relates fields leaves alone a field that already has its problem.
func (ps *problems) has(at automium.Path) bool {
	s := at.String()
	for _, p := range ps.found {
		if p.Field == s || strings.HasPrefix(p.Field, s+".") || strings.HasPrefix(p.Field, s+"[") {
			return true
		}
	}
	return false
}

// err returns nil when nothing was found, and otherwise one *automium.Error
// holding every problem in the one order.
func (ps *problems) err() error {
	adapter.SortProblems(ps.typ, ps.found)
	return automium.Join(ps.found...)
}

// field is the path of a top-level member.
func field(name string) automium.Path { return automium.PathOf(name) }
