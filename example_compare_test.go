package automium_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/automium/automium"
)

// printComparison prints the headline metrics of a report, one planner a line.
func printComparison(r automium.ComparisonReport) {
	fmt.Printf("%s basis=%s modeled=%v apps=%v repetitions=%d\n", r.ReportVersion, r.Basis, r.Modeled, r.AppIDs, r.Repetitions)
	for _, p := range r.Planners {
		var passK []string
		for _, pk := range p.Repeatability.PassAtK {
			passK = append(passK, fmt.Sprintf("%.2f", pk.Value))
		}
		recovery := "none triggered"
		if rs := p.RecoverySuccessRate; rs != nil {
			recovery = fmt.Sprintf("%d/%d", rs.Successes, rs.N)
		}
		fmt.Printf("%s: pass %d/%d = %.2f [%.2f, %.2f]  pass^k %s  agree %.2f  median %.0f ms  %.0f tokens/run  recovered %s\n",
			p.Planner.ID, p.PassRate.Successes, p.PassRate.N, p.PassRate.Value, p.PassRate.Wilson95.Lower, p.PassRate.Wilson95.Upper,
			strings.Join(passK, " "), p.Repeatability.AllOutcomesAgreeShare, p.MedianJourneyLatencyMs, p.TokenSpend.MeanPerJourneyRun, recovery)
	}
	for _, pc := range r.Pairs {
		fmt.Printf("%s vs %s: %d paired runs, %d/%d discordant, McNemar p %.4f, difference %+.2f [%+.2f, %+.2f], MDE %.2f: %s\n",
			pc.PlannerA, pc.PlannerB, pc.SharedRuns, pc.APassedBFailed, pc.AFailedBPassed, pc.McNemarP,
			pc.PassRateDifference, pc.Difference95.Lower, pc.Difference95.Upper, pc.MinDetectableEffect80, pc.Verdict)
	}
	fmt.Println("pareto:", r.ParetoPlannerIDs)
}

// A modeled comparison: every planner runs every reference journey of the chosen
// apps three times, as deterministic draws from the documented model. The numbers
// show how the report reads; they measure no real planner.
func ExampleComparePlanners() {
	report, err := automium.ComparePlanners(context.Background(), automium.ComparePlannersInput{
		CorpusVersion: automium.CorpusVersion,
		AppIDs:        []string{"storefront", "helpdesk"},
		Planners: []automium.PlannerRef{
			{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"},
			{ID: "candidate", Vendor: "anthropic", Model: "claude-sonnet-4"},
		},
		Repetitions: 3,
	})
	if err != nil {
		panic(err)
	}
	printComparison(report)
	fmt.Println("seed:", report.Seed)
	fmt.Println(report.Notice == automium.ModeledComparisonNotice)
	// Output:
	// planner-comparison-v2 basis=modeled modeled=true apps=[helpdesk storefront] repetitions=3
	// baseline: pass 17/18 = 0.94 [0.74, 0.99]  pass^k 0.94 0.89 0.83  agree 0.83  median 6620 ms  11056 tokens/run  recovered 7/8
	// candidate: pass 15/18 = 0.83 [0.61, 0.94]  pass^k 0.83 0.83 0.83  agree 1.00  median 7636 ms  13861 tokens/run  recovered 4/6
	// baseline vs candidate: 18 paired runs, 3/1 discordant, McNemar p 0.6250, difference +0.11 [-0.25, +0.48], MDE 0.52: not evidence: modeled draws
	// pareto: [baseline]
	// seed: 20260414
	// true
}

// Trials recorded by real runs go through the same aggregation. Here planner
// "fast" passes journey checkout twice out of three runs; "careful" passes every
// run and needed one recovery, which succeeded. One discordant run out of three
// is no evidence either way: the pair is indistinguishable, and its minimum
// detectable effect of 1 says three runs could not have shown any difference.
// Neither planner beats the other on pass rate, latency and tokens at once, so
// both are in the Pareto set.
func ExampleCompareObservedTrials() {
	trial := func(planner string, rep int, passed bool, ms int, recovery bool) automium.Trial {
		return automium.Trial{
			PlannerID: planner, AppID: "storefront", FixtureID: "storefront-returning-shopper",
			JourneyID: "checkout", Repetition: rep, Passed: passed, LatencyMs: ms,
			InputTokens: 12000, OutputTokens: 800, RecoveryTriggered: recovery, Recovered: recovery,
		}
	}
	report, err := automium.CompareObservedTrials(context.Background(), automium.CompareObservedTrialsInput{
		CorpusVersion: automium.CorpusVersion,
		Planners: []automium.PlannerRef{
			{ID: "fast", Vendor: "openai", Model: "gpt-4.1-mini"},
			{ID: "careful", Vendor: "anthropic", Model: "claude-sonnet-4"},
		},
		Trials: []automium.Trial{
			trial("fast", 1, true, 4200, false),
			trial("fast", 2, false, 3900, false),
			trial("fast", 3, true, 4500, false),
			trial("careful", 1, true, 7100, false),
			trial("careful", 2, true, 9800, true),
			trial("careful", 3, true, 6900, false),
		},
	})
	if err != nil {
		panic(err)
	}
	printComparison(report)
	fmt.Println(report.Notice == automium.ObservedNotice)
	// Output:
	// planner-comparison-v2 basis=observed modeled=false apps=[storefront] repetitions=3
	// fast: pass 2/3 = 0.67 [0.21, 0.94]  pass^k 0.67 0.33 0.00  agree 0.00  median 4200 ms  12800 tokens/run  recovered none triggered
	// careful: pass 3/3 = 1.00 [0.44, 1.00]  pass^k 1.00 1.00 1.00  agree 1.00  median 7100 ms  12800 tokens/run  recovered 1/1
	// fast vs careful: 3 paired runs, 0/1 discordant, McNemar p 1.0000, difference -0.33 [-1.00, +0.38], MDE 1.00: indistinguishable
	// pareto: [fast careful]
	// true
}

// A planner reference needs an id, a vendor and a model; the error names every
// missing part.
func ExampleComparePlanners_malformedPlanner() {
	_, err := automium.ComparePlanners(context.Background(), automium.ComparePlannersInput{
		CorpusVersion: automium.CorpusVersion,
		AppIDs:        []string{"storefront"},
		Planners:      []automium.PlannerRef{{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"}, {ID: "candidate"}},
	})
	var e *automium.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Field)
	}
	// Output:
	// malformed_planner planners[1]
}
