package automium

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

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

// TestContextRule holds every capability to the one rule the package doc states:
// a nil context is an invalid_argument *Error, never a panic; a done context is
// an *Error with code canceled or deadline_exceeded that errors.Is matches with
// the context's own error.
func TestContextRule(t *testing.T) {
	calls := map[string]func(context.Context) error{
		"ListApps":            func(ctx context.Context) error { _, err := ListApps(ctx, ListAppsInput{}); return err },
		"ListFixtures":        func(ctx context.Context) error { _, err := ListFixtures(ctx, ListFixturesInput{}); return err },
		"CompileJourney":      func(ctx context.Context) error { _, err := CompileJourney(ctx, validJourney()); return err },
		"CreateRunSubmission": func(ctx context.Context) error { _, err := CreateRunSubmission(ctx, validRunSubmission()); return err },
		"GetReplaySummary":    func(ctx context.Context) error { _, err := GetReplaySummary(ctx, validReplayInput()); return err },
		"GetArtifactManifest": func(ctx context.Context) error { _, err := GetArtifactManifest(ctx, validManifestInput()); return err },
		"ComparePlanners":     func(ctx context.Context) error { _, err := ComparePlanners(ctx, validCompareInput()); return err },
		"CompareObservedTrials": func(ctx context.Context) error {
			_, err := CompareObservedTrials(ctx, validObservedInput())
			return err
		},
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancelExpired := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancelExpired()
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			if err := call(context.Background()); err != nil {
				t.Fatalf("with a live context: %v", err)
			}
			for _, tt := range []struct {
				ctx      context.Context
				code     Code
				sentinel error
			}{
				{nil, CodeInvalidArgument, nil},
				{canceled, CodeCanceled, context.Canceled},
				{expired, CodeDeadlineExceeded, context.DeadlineExceeded},
			} {
				err := call(tt.ctx)
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("ctx %v: got %v, want *Error", tt.ctx, err)
				}
				if diff := cmp.Diff(tt.code, e.Code); diff != "" {
					t.Errorf("ctx %v: code (-want +got):\n%s", tt.ctx, diff)
				}
				if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
					t.Errorf("ctx %v: errors.Is(err, %v) is false", tt.ctx, tt.sentinel)
				}
			}
		})
	}
}
