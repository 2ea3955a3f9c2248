package automium

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

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
