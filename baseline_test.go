package automium

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// snapshotOfRuns is the snapshot of planner "agent" whose journey j passed
// passes[j] of 10 first attempts; rescued[j] more runs passed on a retry.
func snapshotOfRuns(t *testing.T, id string, passes, rescued []int) CountsSnapshot {
	t.Helper()
	in := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: []PlannerRef{{ID: id, Vendor: "v", Model: "m"}}}
	for j, n := range passes {
		for r := 1; r <= 10; r++ {
			tr := cmpTrial(id, fmt.Sprintf("j%02d", j), r)
			tr.Passed = r <= n
			if rescued != nil && r > n && r <= n+rescued[j] {
				tr.Passed, tr.Attempts = true, 2
			}
			in.Trials = append(in.Trials, tr)
		}
	}
	return snapshotOfInput(t, in)
}

func TestCompareBaseline(t *testing.T) {
	ctx := context.Background()
	base := snapshotOfRuns(t, "agent", []int{10, 10, 10, 10, 10, 10, 0, 10}, nil)
	same, err := CompareBaseline(ctx, BaselineInput{Baseline: base, Current: base})
	if err != nil {
		t.Fatal(err)
	}
	if !same.Pass || same.Planners[0].Verdict != BaselineIndistinguishable || len(same.Planners[0].Regressed) != 0 {
		t.Errorf("an unchanged run: pass %v, verdict %q, regressed %v; want a pass", same.Pass, same.Planners[0].Verdict, same.Planners[0].Regressed)
	}
	worse := snapshotOfRuns(t, "agent", []int{2, 10, 3, 10, 1, 10, 0, 4}, nil)
	got, err := CompareBaseline(ctx, BaselineInput{Baseline: base, Current: worse})
	if err != nil {
		t.Fatal(err)
	}
	p := got.Planners[0]
	if got.Pass || p.Pass || p.BaselineID != "baseline:agent" || p.Pair.PlannerA != "baseline:agent" || p.Pair.PlannerB != "agent" {
		t.Errorf("gate %v/%v, sides %q %q; want a failing gate with the baseline as A", got.Pass, p.Pass, p.Pair.PlannerA, p.Pair.PlannerB)
	}
	if diff := cmp.Diff([]string{"j00", "j02", "j04", "j07"}, p.Regressed); diff != "" {
		t.Errorf("regressed (-want +got):\n%s", diff)
	}
	fixed := snapshotOfRuns(t, "agent", []int{10, 10, 10, 10, 10, 10, 10, 10}, nil)
	got, err = CompareBaseline(ctx, BaselineInput{Baseline: base, Current: fixed})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"j06"}, got.Planners[0].Fixed); diff != "" || !got.Pass {
		t.Errorf("fixed (-want +got):\n%s; pass %v", diff, got.Pass)
	}
	flaky := snapshotOfRuns(t, "agent", []int{10, 10, 10, 10, 10, 10, 0, 9}, []int{0, 0, 0, 0, 0, 0, 0, 1})
	got, err = CompareBaseline(ctx, BaselineInput{Baseline: base, Current: flaky})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"j07"}, got.Planners[0].NewlyFlaky); diff != "" || !got.Pass {
		t.Errorf("newly flaky (-want +got):\n%s; pass %v", diff, got.Pass)
	}
	// The margin: passes only when the lower bound of (current − baseline)
	// is above −margin.
	for _, m := range []float64{0.01, 0.3, 0.9} {
		got, err := CompareBaseline(ctx, BaselineInput{Baseline: base, Current: base, Margin: m})
		if err != nil {
			t.Fatal(err)
		}
		lower := -got.Planners[0].Pair.Difference95.Upper
		if got.Gate != GateNonInferior || got.Pass != (lower > -m) {
			t.Errorf("margin %v: gate %q pass %v with lower bound %v", m, got.Gate, got.Pass, lower)
		}
	}
}

func TestCompareBaselineProblems(t *testing.T) {
	ctx := context.Background()
	base := snapshotOfRuns(t, "agent", []int{10, 9}, nil)
	other := snapshotOfRuns(t, "other", []int{10, 9}, nil)
	long := snapshotOfRuns(t, strings.Repeat("a", 128), []int{10, 9}, nil)
	// The same planner renamed only in case: neither side would be gated,
	// and the gate would pass having compared nothing of it.
	renamed := snapshotOfRuns(t, "Agent", []int{10, 9}, nil)
	damaged := base
	damaged.Counts = append([]JourneyCounts(nil), base.Counts...)
	damaged.Counts[0].Runs++
	tests := []struct {
		name string
		in   BaselineInput
		want errShape
	}{
		{"negative margin", BaselineInput{Baseline: base, Current: base, Margin: -0.1}, errShape{CodeInvalidArgument, "margin"}},
		{"margin of 1", BaselineInput{Baseline: base, Current: base, Margin: 1}, errShape{CodeInvalidArgument, "margin"}},
		{"NaN margin", BaselineInput{Baseline: base, Current: base, Margin: math.NaN()}, errShape{CodeInvalidArgument, "margin"}},
		{"no planner in common", BaselineInput{Baseline: base, Current: other}, errShape{CodeInvalidArgument, "baseline.planners"}},
		{"damaged baseline", BaselineInput{Baseline: damaged, Current: base}, errShape{CodeInvalidArgument, "baseline.digest"}},
		{"empty current", BaselineInput{Baseline: base}, errShape{CodeInvalidArgument, "current.format"}},
		{"planner renamed only in case", BaselineInput{Baseline: base, Current: renamed}, errShape{CodeInvalidArgument, "current.planners"}},
		{"ID too long", BaselineInput{Baseline: long, Current: long}, errShape{CodeLimitExceeded, "current.planners"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompareBaseline(ctx, tt.in)
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("err = %v; want an *Error", err)
			}
			if diff := cmp.Diff(tt.want, errShape{e.Code, e.Field}); diff != "" {
				t.Errorf("error (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

// snapshotOfCounts is the snapshot of an observed comparison of counts.
func snapshotOfCounts(t *testing.T, planners []string, counts []JourneyCounts) CountsSnapshot {
	t.Helper()
	in := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Counts: counts}
	for _, id := range planners {
		in.Planners = append(in.Planners, PlannerRef{ID: id, Vendor: "v", Model: "m"})
	}
	return snapshotOfInput(t, in)
}

// A run that did not evaluate what its baseline evaluated fails the gate:
// dropping the journeys that fail, or a planner, must not pass a CI job.
func TestBaselineFailsOnWhatDidNotRun(t *testing.T) {
	row := func(planner, journey string, runs, firstPasses, notEvaluable int) JourneyCounts {
		return JourneyCounts{PlannerID: planner, AppID: "storefront", JourneyID: journey,
			Runs: runs, Passes: firstPasses, FirstAttemptPasses: firstPasses, NotEvaluable: notEvaluable}
	}
	agentRows := []JourneyCounts{row("agent", "j00", 10, 10, 0), row("agent", "j01", 10, 10, 0), row("agent", "j02", 10, 0, 0)}
	base := snapshotOfCounts(t, []string{"agent"}, agentRows)
	tests := []struct {
		name        string
		baseline    CountsSnapshot
		current     CountsSnapshot
		wantPass    bool
		wantMissing []string
		wantOnly    []string
	}{
		{"same run", base, base, true, []string{}, []string{}},
		{"the failing journey dropped", base,
			snapshotOfCounts(t, []string{"agent"}, agentRows[:2]), false, []string{"j02"}, []string{}},
		{"a journey not evaluable now", base,
			snapshotOfCounts(t, []string{"agent"}, []JourneyCounts{agentRows[0], agentRows[1], row("agent", "j02", 0, 0, 10)}), false, []string{"j02"}, []string{}},
		{"a journey new in this run", base,
			snapshotOfCounts(t, []string{"agent"}, append(slices.Clone(agentRows), row("agent", "j03", 10, 10, 0))), true, []string{}, []string{}},
		{"a journey the baseline could not evaluate", snapshotOfCounts(t, []string{"agent"}, append(slices.Clone(agentRows), row("agent", "j03", 0, 0, 10))),
			base, true, []string{}, []string{}},
		{"a planner dropped", snapshotOfCounts(t, []string{"agent", "other"}, append(slices.Clone(agentRows), row("other", "j00", 10, 10, 0))),
			base, false, []string{}, []string{"other"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CompareBaseline(context.Background(), BaselineInput{Baseline: tt.baseline, Current: tt.current})
			if err != nil {
				t.Fatal(err)
			}
			if got.Pass != tt.wantPass {
				t.Errorf("pass = %v, want %v (%s)", got.Pass, tt.wantPass, got.Planners[0].Reason)
			}
			if diff := cmp.Diff(tt.wantMissing, got.Planners[0].Missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantOnly, got.OnlyBaseline); diff != "" {
				t.Errorf("only in the baseline (-want +got):\n%s", diff)
			}
			var md strings.Builder
			if err := WriteBaselineMarkdown(&md, &got); err != nil {
				t.Fatal(err)
			}
			if failed := strings.HasPrefix(md.String(), "## Gate **failed**"); failed == tt.wantPass {
				t.Errorf("the Markdown's decision disagrees with pass %v:\n%s", tt.wantPass, md.String())
			}
			for _, id := range tt.wantMissing {
				if !strings.Contains(md.String(), "did not run: `"+id+"`") {
					t.Errorf("the Markdown does not name %s as not run:\n%s", id, md.String())
				}
			}
		})
	}
}

// snapshotOfInput is the snapshot of the observed comparison of in.
func snapshotOfInput(t *testing.T, in CompareObservedTrialsInput) CountsSnapshot {
	t.Helper()
	r, err := CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	s, err := SnapshotOf(r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWriteBaselineMarkdownWorstSize: a baseline report at its worst (16
// planners whose IDs are backticks, which lengthen code spans most, every
// journey regressed or newly flaky, planners on one side only) stays within
// 4,000 bytes, counts what it leaves out, and lets no ID break a line.
func TestWriteBaselineMarkdownWorstSize(t *testing.T) {
	r := BaselineReport{Gate: GateNonInferior, Margin: 0.05}
	for i := range 64 {
		// Planners named in the closing lines: the longest IDs of
		// backticks, which code spans make longest.
		r.OnlyBaseline = append(r.OnlyBaseline, fmt.Sprintf("%02d", i)+strings.Repeat("`", 126))
		r.OnlyCurrent = append(r.OnlyCurrent, fmt.Sprintf("%02d", i)+strings.Repeat("`", 126))
	}
	for i := range 16 {
		id := fmt.Sprintf("%02d", i) + strings.Repeat("`", 117)
		p := BaselinePlanner{PlannerID: id, Verdict: BaselineWorse, Pair: PairedComparison{MeanDifference: 0.123456, SharedJourneys: 100000,
			Difference95: DifferenceInterval{Lower: -1, Upper: 1}}}
		for j := range 1000 {
			jid := fmt.Sprintf("j%04d-", j) + strings.Repeat("x", 122)
			p.Regressed = append(p.Regressed, jid)
			p.NewlyFlaky = append(p.NewlyFlaky, jid)
			p.Fixed = append(p.Fixed, jid)
		}
		r.Planners = append(r.Planners, p)
	}
	var b bytes.Buffer
	if err := WriteBaselineMarkdown(&b, &r); err != nil {
		t.Fatal(err)
	}
	t.Logf("worst baseline summary: %d bytes", b.Len())
	if b.Len() > baselineMarkdownBytes {
		t.Errorf("%d bytes; the bound is %d", b.Len(), baselineMarkdownBytes)
	}
	md := b.String()
	if !utf8.ValidString(md) || !strings.Contains(md, "more planners not shown here") {
		t.Errorf("the summary does not count the planners it left out:\n%s", md)
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasSuffix(line, " |") {
			t.Errorf("a table row is broken: %q", line)
		}
	}
}

// TestWriteBaselineMarkdownNil: a nil report is an error, not a panic.
func TestWriteBaselineMarkdownNil(t *testing.T) {
	if err := WriteBaselineMarkdown(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil report: no error")
	}
	if err := WriteBaselineHTML(&bytes.Buffer{}, nil, &BaselineReport{}); err == nil {
		t.Error("WriteBaselineHTML with a nil report: no error")
	}
}

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
