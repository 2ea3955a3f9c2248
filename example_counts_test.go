package automium_test

import (
	"bytes"
	"context"
	"fmt"
	"log"

	"github.com/automium/automium"
)

// runOf records planner "agent" on eight storefront journeys: passes[j] of
// ten runs of journey j passed on their first attempt.
func runOf(passes []int) automium.CompareObservedTrialsInput {
	in := automium.CompareObservedTrialsInput{Rows: automium.RowSelection{All: true},
		CorpusVersion: automium.CorpusVersion,
		Planners:      []automium.PlannerRef{{ID: "agent", Vendor: "acme", Model: "m1"}},
	}
	for j, n := range passes {
		for r := 1; r <= 10; r++ {
			in.Trials = append(in.Trials, automium.Trial{
				PlannerID: "agent", AppID: "storefront", FixtureID: "storefront-guest-catalog",
				JourneyID: fmt.Sprintf("journey-%d", j), Repetition: r, Passed: r <= n,
				LatencyMs: 1200, InputTokens: 900, OutputTokens: 60,
			})
		}
	}
	return in
}

// A run's counts, written as a snapshot file and read back: the snapshot is
// what a CI job keeps as its baseline.
func ExampleSnapshotOf() {
	ctx := context.Background()
	report, err := automium.CompareObservedTrials(ctx, runOf([]int{10, 9, 10, 8, 10, 10, 7, 10}))
	if err != nil {
		log.Fatal(err)
	}
	snap, err := automium.SnapshotOf(report)
	if err != nil {
		log.Fatal(err)
	}
	var file bytes.Buffer
	if err := automium.WriteCountsSnapshot(&file, snap); err != nil {
		log.Fatal(err)
	}
	back, err := automium.ReadCountsSnapshot(ctx, &file)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(back.Format, len(back.Counts), "rows")
	c := back.Counts[1]
	fmt.Printf("%s %s: %d of %d first attempts passed\n", c.PlannerID, c.JourneyID, c.FirstAttemptPasses, c.Runs)
	// The counts are an input: the same verdicts, without the trials.
	again, err := automium.CompareObservedTrials(ctx, automium.CompareObservedTrialsInput{Rows: automium.RowSelection{All: true},
		CorpusVersion: back.CorpusVersion, Planners: back.Planners, Counts: back.Counts,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("first-attempt pass rate", again.Planners[0].FirstAttemptPassRate.Value)
	// Output:
	// automium-counts-v1 8 rows
	// agent journey-1: 9 of 10 first attempts passed
	// first-attempt pass rate 0.925
}

// A Go program as its own CI gate: this run of the agent against its
// baseline snapshot, failing when it is decisively worse.
func ExampleCompareBaseline() {
	ctx := context.Background()
	snapshot := func(passes []int) automium.CountsSnapshot {
		report, err := automium.CompareObservedTrials(ctx, runOf(passes))
		if err != nil {
			log.Fatal(err)
		}
		s, err := automium.SnapshotOf(report)
		if err != nil {
			log.Fatal(err)
		}
		return s
	}
	baseline := snapshot([]int{10, 9, 10, 9, 10, 10, 9, 10})
	current := snapshot([]int{6, 5, 7, 9, 4, 6, 9, 5})
	gate, err := automium.CompareBaseline(ctx, automium.BaselineInput{Baseline: baseline, Current: current})
	if err != nil {
		log.Fatal(err)
	}
	p := gate.Planners[0]
	fmt.Println(p.BaselineID, "vs", p.PlannerID+":", p.Verdict)
	fmt.Println("regressed:", p.Regressed)
	fmt.Println("gate", gate.Gate, "passes:", gate.Pass)

	// With a non-inferiority margin of 15 points, an unchanged run passes only
	// when the interval shows it is within 15 points of its baseline.
	same, err := automium.CompareBaseline(ctx, automium.BaselineInput{Baseline: baseline, Current: baseline, Margin: 0.15})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("gate", same.Gate, "passes:", same.Pass, "("+same.Planners[0].Reason+")")
	// Output:
	// baseline:agent vs agent: worse
	// regressed: [journey-4 journey-7]
	// gate not decisively worse passes: false
	// gate non-inferior within margin passes: true (the 95% interval of this run − baseline starts at -0.118129, above -0.15 over 8 shared journeys: non-inferior within the margin)
}
