package automium

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAnonymousPlannerHidesNoTrial: a planner without a usable ID (missing,
// blank, or not an object, which the MCP walker leaves zero) may be the one a
// trial or an assumed rate names, so its own problem is the one reported, not
// "not one of the input's planners" with an empty or blank allowed list; a
// trial naming an ID no planner has is still reported while every planner has
// one, with the named IDs allowed.
func TestAnonymousPlannerHidesNoTrial(t *testing.T) {
	raw, err := os.ReadFile("e2e/calls.json")
	if err != nil {
		t.Fatal(err)
	}
	var calls struct {
		Tools map[string]struct {
			Good json.RawMessage `json:"good"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &calls); err != nil {
		t.Fatal(err)
	}
	baseline := PlannerRef{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"}
	type want struct {
		Field   string
		Allowed []string
	}
	fields := func(err error) []want {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("want *Error, got %v", err)
		}
		var out []want
		for _, p := range e.Problems() {
			out = append(out, want{p.Field, p.Allowed})
		}
		return out
	}
	t.Run("observed trials", func(t *testing.T) {
		for _, tt := range []struct {
			name     string
			planners []PlannerRef
			want     []want
		}{
			{"a zero planner (not an object over MCP)", []PlannerRef{{}},
				[]want{{Field: "planners[0]"}}},
			{"a blank ID", []PlannerRef{{ID: "  ", Vendor: "a", Model: "b"}, {ID: "challenger", Vendor: "a", Model: "b"}},
				[]want{{Field: "planners[0].id"}}},
			{"every planner named, one trial's missing", []PlannerRef{baseline},
				[]want{{"trials[2].plannerId", []string{"baseline"}}, {"trials[3].plannerId", []string{"baseline"}}}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				var in CompareObservedTrialsInput
				if err := json.Unmarshal(calls.Tools["automium_compare_observed_trials"].Good, &in); err != nil {
					t.Fatal(err)
				}
				in.Planners = tt.planners
				_, err := CompareObservedTrials(context.Background(), in)
				if diff := cmp.Diff(tt.want, fields(err)); diff != "" {
					t.Errorf("problems (-want +got):\n%s", diff)
				}
			})
		}
	})
	t.Run("assumed rates", func(t *testing.T) {
		for _, tt := range []struct {
			name     string
			planners []PlannerRef
			rate     string
			want     []want
		}{
			{"a zero planner", []PlannerRef{{}}, "baseline", []want{{Field: "planners[0]"}}},
			{"every planner named, the rate's missing", []PlannerRef{baseline}, "nope",
				[]want{{Field: "assumedPassRates"}, {"assumedPassRates[0].plannerId", []string{"baseline"}}}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				var in ComparePlannersInput
				if err := json.Unmarshal(calls.Tools["automium_compare_planners"].Good, &in); err != nil {
					t.Fatal(err)
				}
				in.Planners = tt.planners
				in.AssumedPassRates = []AssumedPassRate{{PlannerID: tt.rate, FirstAttemptPassPercent: 50}}
				_, err := ComparePlanners(context.Background(), in)
				if diff := cmp.Diff(tt.want, fields(err)); diff != "" {
					t.Errorf("problems (-want +got):\n%s", diff)
				}
			})
		}
	})
	t.Run("reports", func(t *testing.T) {
		// compare_reports advertises its planners as the planner of
		// create_run_submission, and checks them as every comparison does.
		type coded struct{ Code, Field string }
		for _, tt := range []struct {
			name     string
			planners []PlannerRef
			want     []coded
		}{
			{"a zero planner", []PlannerRef{{}}, []coded{{"malformed_planner", "planners[0]"}}},
			{"a blank ID", []PlannerRef{{ID: " ", Vendor: "a", Model: "b"}}, []coded{{"malformed_planner", "planners[0].id"}}},
			{"a line break in an ID, before the reports are read",
				[]PlannerRef{{ID: "base\nline", Vendor: "a", Model: "b"}, {ID: "challenger", Vendor: "a", Model: "b"}},
				[]coded{{"malformed_planner", "planners[0].id"}}},
			{"an ID twice", []PlannerRef{baseline, baseline}, []coded{{"invalid_argument", "planners[1].id"}}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				var in CompareReportsInput
				if err := json.Unmarshal(calls.Tools["automium_compare_reports"].Good, &in); err != nil {
					t.Fatal(err)
				}
				in.Planners = tt.planners
				_, err := CompareReports(context.Background(), in)
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("want *Error, got %v", err)
				}
				var got []coded
				for _, p := range e.Problems() {
					got = append(got, coded{string(p.Code), p.Field})
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("problems (-want +got):\n%s", diff)
				}
			})
		}
	})
}
