package automium

import (
	"errors"
	"strings"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
)

func TestJoin(t *testing.T) {
	a := NewProblem(CodeInvalidAppID, PathOf("appId"), nil, "a %s", ClientValue("x"))
	b := NewProblem(CodeInvalidArgument, PathOf("goal"), nil, "b")
	tests := []struct {
		name string
		in   []Problem
		want []Problem
	}{
		{"one", []Problem{a}, []Problem{a}},
		{"several lead with the first and list all", []Problem{a, b}, []Problem{a, b}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := errors.AsType[*Error](Join(tt.in...))
			if !ok {
				t.Fatalf("Join gave no *Error")
			}
			if diff := cmp.Diff(tt.want, e.Problems()); diff != "" {
				t.Errorf("Join (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want[0], e.Problem); diff != "" {
				t.Errorf("leading problem (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJoinNothingIsNil is the typed-nil trap: no problems must be a nil error,
// not a nil *Error inside a non-nil error.
func TestJoinNothingIsNil(t *testing.T) {
	var err error = Join()
	if err != nil {
		t.Fatalf("Join() = %#v, want a nil error", err)
	}
	if err := (&problems{}).err(); err != nil {
		t.Fatalf("no problems gave %#v, want a nil error", err)
	}
}

// TestJoinCapsAtMaxProblems: one cap for every list of problems.
func TestJoinCapsAtMaxProblems(t *testing.T) {
	in := make([]Problem, limit.MaxProblems+7)
	for i := range in {
		in[i] = NewProblem(CodeInvalidArgument, PathOf("steps").Index(i), nil, "bad")
	}
	e, _ := errors.AsType[*Error](Join(in...))
	got := e.Problems()
	if len(got) != limit.MaxProblems {
		t.Fatalf("Join of %d problems listed %d, want %d", len(in), len(got), limit.MaxProblems)
	}
	if last := got[len(got)-1]; last.Code != CodeLimitExceeded || !strings.Contains(last.Message, "8 more problems") {
		t.Errorf("last problem = %v, want limit_exceeded naming 8 more", last)
	}
}

// TestMessageWords: one problem renders in Go words for Go callers and in a
// reader's words when asked, from the same data; nothing rewrites the text.
func TestMessageWords(t *testing.T) {
	p := fieldProblem(PathOf("runId"), 0, "automium_run_id", "", "run-x", "required,automium_run_id")
	if want := `"run-x" is not valid; use a run ID from CreateRunSubmission: run- followed by 20 lowercase hex digits`; p.Message != want {
		t.Errorf("Message = %q, want %q", p.Message, want)
	}
	tool := p.MessageIn(func(name string) string { return "tool_" + strings.ToLower(name) })
	if want := `"run-x" is not valid; use a run ID from tool_createrunsubmission: run- followed by 20 lowercase hex digits`; tool != want {
		t.Errorf("MessageIn = %q, want %q", tool, want)
	}
}
