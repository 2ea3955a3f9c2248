package automium

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A journey that moved to another app between the baseline and this run is
// refused at this run's row, naming the baseline's: its runs are not runs of
// one journey.
func TestBaselineJourneyMovedApp(t *testing.T) {
	row := func(app, journey string, firstPasses int) JourneyCounts {
		return JourneyCounts{PlannerID: "agent", AppID: app, JourneyID: journey, Runs: 10, Passes: firstPasses, FirstAttemptPasses: firstPasses}
	}
	base := snapshotOfCounts(t, []string{"agent"}, []JourneyCounts{row("storefront", "j00", 10), row("storefront", "j01", 0)})
	tests := []struct {
		name    string
		current CountsSnapshot
		want    []errShape
	}{
		{"moved", snapshotOfCounts(t, []string{"agent"}, []JourneyCounts{row("storefront", "j00", 10), row("ext:x", "j01", 10)}),
			[]errShape{{CodeInvalidArgument, "current.counts[1].appId"}}},
		{"both moved", snapshotOfCounts(t, []string{"agent"}, []JourneyCounts{row("ext:x", "j00", 10), row("ext:x", "j01", 10)}),
			[]errShape{{CodeInvalidArgument, "current.counts[0].appId"}, {CodeInvalidArgument, "current.counts[1].appId"}}},
		{"same apps", base, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompareBaseline(context.Background(), BaselineInput{Baseline: base, Current: tt.current})
			var got []errShape
			if err != nil {
				e, ok := err.(*Error)
				if !ok {
					t.Fatalf("err = %v; want an *Error", err)
				}
				for _, p := range e.Problems() {
					got = append(got, errShape{p.Code, p.Field})
					if !strings.Contains(p.Message, "in the baseline (counts[") || !strings.Contains(p.Message, "write a new baseline") {
						t.Errorf("message %q does not name the baseline's row and the fix", p.Message)
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// A baseline report whose gate, margin or verdict CompareBaseline never
// makes is refused by both renderers, coded, and nothing is written.
func TestBaselineRenderRefusesUnknown(t *testing.T) {
	base := snapshotOfRuns(t, "agent", []int{10, 9}, nil)
	good, err := CompareBaseline(context.Background(), BaselineInput{Baseline: base, Current: base})
	if err != nil {
		t.Fatal(err)
	}
	run, err := CompareObservedTrials(context.Background(), CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: base.CorpusVersion, Planners: base.Planners, Counts: base.Counts})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(r *BaselineReport)
		want   *errShape
	}{
		{"as returned", func(*BaselineReport) {}, nil},
		{"unknown gate", func(r *BaselineReport) { r.Gate = "<script>always pass</script>" }, &errShape{CodeInvalidArgument, "gate"}},
		{"empty gate", func(r *BaselineReport) { r.Gate = "" }, &errShape{CodeInvalidArgument, "gate"}},
		{"non-inferior without margin", func(r *BaselineReport) { r.Gate = GateNonInferior }, &errShape{CodeInvalidArgument, "gate"}},
		{"margin of 1", func(r *BaselineReport) { r.Gate, r.Margin = GateNonInferior, 1 }, &errShape{CodeInvalidArgument, "gate"}},
		{"default gate with a margin", func(r *BaselineReport) { r.Margin = 0.05 }, &errShape{CodeInvalidArgument, "gate"}},
		{"unknown verdict", func(r *BaselineReport) { r.Planners[0].Verdict = "**great**" }, &errShape{CodeInvalidArgument, "planners[0].verdict"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good
			r.Planners = append([]BaselinePlanner(nil), good.Planners...)
			tt.change(&r)
			for _, render := range []struct {
				name  string
				write func(w *bytes.Buffer) error
			}{
				{"markdown", func(w *bytes.Buffer) error { return WriteBaselineMarkdown(w, &r) }},
				{"html", func(w *bytes.Buffer) error { return WriteBaselineHTML(w, &run, &r) }},
			} {
				var b bytes.Buffer
				err := render.write(&b)
				var got *errShape
				if e, ok := err.(*Error); ok {
					got = &errShape{e.Code, e.Field}
				} else if err != nil {
					t.Fatalf("%s: err = %v; want an *Error", render.name, err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s: error (-want +got):\n%s", render.name, diff)
				}
				if tt.want != nil && b.Len() > 0 {
					t.Errorf("%s: a refused report wrote %d bytes", render.name, b.Len())
				}
			}
		})
	}
}

// The gate's text names the planners that have no baseline and those of the
// baseline that did not run, the first few of each, the rest counted.
func TestBaselineNamesPlanners(t *testing.T) {
	r := BaselineReport{Gate: GateNotWorse, OnlyBaseline: []string{"gone-a", "gone-b", "gone-c", "gone-d"}, OnlyCurrent: []string{"new-a"}}
	var md bytes.Buffer
	if err := WriteBaselineMarkdown(&md, &r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"4 planners of the baseline did not run this time (`gone-a`, `gone-b`, `gone-c`, and 1 more)",
		"1 planner of this run has no baseline (`new-a`) and is not gated",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md.String())
		}
	}
	run := fixtureComparison(t)
	var page bytes.Buffer
	if err := WriteBaselineHTML(&page, &run, &r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"4 planners of the baseline did not run this time (&#34;gone-a&#34;, &#34;gone-b&#34;, &#34;gone-c&#34;, and 1 more)",
		"1 planner of this run has no baseline (&#34;new-a&#34;) and is not gated",
	} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("the HTML lacks %q", want)
		}
	}
}

// Rates and margins never show a bound they are not at.
func TestNoFalseBounds(t *testing.T) {
	tests := []struct {
		x                     float64
		rate, percent, margin string
	}{
		{1, "1.00", "100.0%", "100"},
		{0.999999, ">0.99", ">99.9%", "99.9999"},
		{0.99999999999, ">0.99", ">99.9%", "99.999999999"},
		{0.996, ">0.99", "99.6%", "99.6"},
		{0.5, "0.50", "50.0%", "50"},
		{0.05, "0.05", "5.0%", "5"},
		{0.07, "0.07", "7.0%", "7"},
		{0.000001, "<0.01", "<0.1%", "0.0001"},
		{1e-12, "<0.01", "<0.1%", "1e-10"},
		{5e-324, "<0.01", "<0.1%", "4.94066e-322"},
		{0, "0.00", "0.0%", "0"},
	}
	for _, tt := range tests {
		got := [3]string{rate2(tt.x), htmlRatePercent(tt.x), marginPoints(tt.x)}
		if diff := cmp.Diff([3]string{tt.rate, tt.percent, tt.margin}, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.x, diff)
		}
	}
}

// Runs that became not evaluable cannot hide a regression: the gate is
// decided again with them counted as failures.
func TestBaselineNotEvaluableCannotHide(t *testing.T) {
	rows := func(runs, firstPasses, notEvaluable int) []JourneyCounts {
		var out []JourneyCounts
		for j := range 8 {
			out = append(out, JourneyCounts{PlannerID: "agent", AppID: "storefront", JourneyID: fmt.Sprintf("j%02d", j),
				Runs: runs, Passes: firstPasses, FirstAttemptPasses: firstPasses, NotEvaluable: notEvaluable})
		}
		return out
	}
	mostlyPass := snapshotOfCounts(t, []string{"agent"}, rows(10, 8, 0))
	mostlyFail := snapshotOfCounts(t, []string{"agent"}, rows(10, 2, 0))
	// Every failing run of this run reported as an error: 2 of 2 evaluable
	// runs pass, 8 not evaluable.
	hidden := snapshotOfCounts(t, []string{"agent"}, rows(2, 2, 8))
	oneError := snapshotOfCounts(t, []string{"agent"}, rows(9, 8, 1))
	all := []string{"j00", "j01", "j02", "j03", "j04", "j05", "j06", "j07"}
	tests := []struct {
		name     string
		baseline CountsSnapshot
		current  CountsSnapshot
		margin   float64
		wantPass bool
		wantRose []string
	}{
		{"unchanged", mostlyPass, mostlyPass, 0, true, []string{}},
		{"a regression hidden as errors", mostlyPass, hidden, 0, false, all},
		{"a regression hidden as errors, with a margin", mostlyPass, hidden, 0.1, false, all},
		{"errors over a run as bad", mostlyFail, hidden, 0, true, all},
		{"one error a journey", mostlyPass, oneError, 0, true, all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CompareBaseline(context.Background(), BaselineInput{Baseline: tt.baseline, Current: tt.current, Margin: tt.margin})
			if err != nil {
				t.Fatal(err)
			}
			p := got.Planners[0]
			if got.Pass != tt.wantPass || p.Pass != tt.wantPass {
				t.Errorf("pass = %v/%v, want %v (%s)", got.Pass, p.Pass, tt.wantPass, p.Reason)
			}
			if diff := cmp.Diff(tt.wantRose, p.NotEvaluableRose); diff != "" {
				t.Errorf("not evaluable rose (-want +got):\n%s", diff)
			}
			if !tt.wantPass && !strings.Contains(p.Reason, "counted as failures they fail the gate") {
				t.Errorf("the reason does not say why: %s", p.Reason)
			}
			var md bytes.Buffer
			if err := WriteBaselineMarkdown(&md, &got); err != nil {
				t.Fatal(err)
			}
			if len(tt.wantRose) > 0 && !strings.Contains(md.String(), "had more not-evaluable runs than its baseline (the gate also counts them as failures) on: `j00`") {
				t.Errorf("the Markdown does not name the journeys:\n%s", md.String())
			}
		})
	}
}
