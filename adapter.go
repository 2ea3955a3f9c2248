package automium

import (
	"context"

	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/check"
)

// The MCP adapter's hooks (see internal/adapter) and the contract package's
// (see internal/check): what they need of this package that a Go user does
// not, supplied here rather than exported.
func init() {
	adapter.Register(adapter.Hooks[Problem, Path]{
		Schema:       schemaOf,
		JSONSchema:   jsonSchema,
		SortProblems: sortProblems,
		LineProblem:  lineProblemAt,
		AppendJSON: func(dst []byte, v any) ([]byte, bool) {
			switch r := v.(type) {
			case CompileJourneyResult:
				return appendResultJSON(dst, &r)
			case *CompileJourneyResult:
				return appendResultJSON(dst, r)
			}
			return dst, false
		},
	})
	check.Register(check.Hooks[Problem, Path]{
		Validate: func(in any) []Problem {
			ps := newProblems(in)
			ps.validate(in)
			return ps.found
		},
		Decision: func(at Path, intent string, hasTarget, hasDestination bool, value string) []Problem {
			ps := &problems{}
			decisionProblems(ps, at, Intent(intent), hasTarget, hasDestination, value)
			return ps.found
		},
		Route:   routeProblem,
		Context: func(ctx context.Context) error { return checkContext(ctx) },
		RegisterTag: func(tag, code, noun string, values func() []string) {
			registerTag(tag, Code(code), noun, values)
		},
	})
}

// decisionProblems records what intent requires of a planner decision with
// (or without) a target, a destination and a value, under at: the rules of
// the vocabulary that the contract package's PlannerDecision.Validate applies.
func decisionProblems(ps *problems, at Path, name Intent, hasTarget, hasDestination bool, value string) {
	intent := intentByName[name]
	if intent == nil {
		return
	}
	for _, r := range [...]requirement{
		{"target", "a target", intent.Target, hasTarget},
		{"destination", "a destination", intent.Destination, hasDestination},
		{"value", "a value", intent.Value, value != ""},
	} {
		ps.addError(at.dot(r.member), r.problem("intent", string(intent.Name)))
	}
	if value != "" && intent.Value != Forbidden && intent.ValueKind != valueFixtureFile {
		ps.addError(at.dot("value"), valueProblem(intent.ValueKind, value, nil))
	}
}
