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
		fmt.Printf("%s vs %s: %d shared journeys, mean difference %+.2f [%+.2f, %+.2f], p %.4f, MDE %.2f: %s\n",
			pc.PlannerA, pc.PlannerB, pc.SharedJourneys, pc.MeanDifference, pc.Difference95.Lower, pc.Difference95.Upper,
			pc.P, pc.MinDetectableEffect80, pc.Verdict)
		for _, row := range pc.Journeys {
			fmt.Printf("  %s: %d/%d vs %d/%d first attempts, Fisher p %.4f, %s\n", row.JourneyID, row.APasses, row.ARuns, row.BPasses, row.BRuns, row.FisherP, row.Flag)
		}
	}
	fmt.Println("pareto:", r.ParetoPlannerIDs)
}

// A modeled comparison: every planner runs every reference journey of the chosen
// apps three times, as deterministic draws from the documented model. Every
// planner draws from the same model (an A/A baseline), so the gap between
// these two is chance alone at three repetitions: the interval covers 0, no
// journey row is flagged regressed or improved, and no Pareto winner is named.
// The report is the summary (RowSelection's zero value): the pair's flagged
// rows, inconclusive before flaky, and no unchanged row.
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
	// planner-comparison-v3 basis=modeled modeled=true apps=[helpdesk storefront] repetitions=3
	// baseline: pass 9/18 = 0.50 [0.29, 0.71]  pass^k 0.50 0.28 0.17  agree 0.33  median 7146 ms  13362 tokens/run  recovered 6/12
	// candidate: pass 16/18 = 0.89 [0.67, 0.97]  pass^k 0.89 0.83 0.83  agree 0.83  median 7456 ms  13926 tokens/run  recovered 4/4
	// baseline vs candidate: 6 shared journeys, mean difference -0.39 [-0.90, +0.13], p 0.1099, MDE 0.70: not evidence: modeled draws
	//   storefront-remove-cart-item: 0/3 vs 3/3 first attempts, Fisher p 0.1000, inconclusive
	//   storefront-checkout-saved-address: 1/3 vs 3/3 first attempts, Fisher p 0.4000, flaky
	//   storefront-search-add-to-cart: 1/3 vs 3/3 first attempts, Fisher p 0.4000, flaky
	//   helpdesk-reply-with-attachment: 2/3 vs 1/3 first attempts, Fisher p 1.0000, flaky
	//   helpdesk-submit-request-with-screenshot: 2/3 vs 3/3 first attempts, Fisher p 1.0000, flaky
	// pareto: []
	// seed: 20260414
	// true
}

// Trials recorded by real runs go through the same aggregation. Here planner
// "fast" passes journey checkout twice out of three runs; "careful" passes every
// run and needed one recovery, which succeeded. One journey is no sample of
// journeys: the pair is indistinguishable, its row says checkout is flaky for
// fast, and the minimum detectable effect of 1 says it could not have shown any
// difference. Neither planner beats the other on the shared journey's pass
// rate, latency and tokens at once, so both are in the Pareto set.
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
	// planner-comparison-v3 basis=observed modeled=false apps=[storefront] repetitions=3
	// fast: pass 2/3 = 0.67 [0.21, 0.94]  pass^k 0.67 0.33 0.00  agree 0.00  median 4200 ms  12800 tokens/run  recovered none triggered
	// careful: pass 3/3 = 1.00 [0.44, 1.00]  pass^k 1.00 1.00 1.00  agree 1.00  median 7100 ms  12800 tokens/run  recovered 1/1
	// fast vs careful: 1 shared journeys, mean difference -0.33 [-1.00, +1.00], p 1.0000, MDE 1.00: indistinguishable
	//   checkout: 2/3 vs 3/3 first attempts, Fisher p 1.0000, flaky
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
