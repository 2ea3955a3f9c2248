package automium_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
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

// ExampleWriteHTML writes a comparison as one self-contained page: inline
// style, inline SVG charts, no script, and a Content-Security-Policy that
// lets the browser fetch nothing.
func ExampleWriteHTML() {
	trial := func(planner string, rep int, passed bool) automium.Trial {
		return automium.Trial{PlannerID: planner, AppID: "storefront", FixtureID: "storefront-guest-catalog",
			JourneyID: "storefront-search-add-to-cart", Repetition: rep, Passed: passed, LatencyMs: 900}
	}
	report, err := automium.CompareObservedTrials(context.Background(), automium.CompareObservedTrialsInput{
		CorpusVersion: automium.CorpusVersion,
		Planners:      []automium.PlannerRef{{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"}, {ID: "challenger", Vendor: "anthropic", Model: "claude-sonnet-4"}},
		Trials:        []automium.Trial{trial("baseline", 1, true), trial("baseline", 2, false), trial("challenger", 1, true), trial("challenger", 2, true)},
	})
	if err != nil {
		log.Fatal(err)
	}
	var page bytes.Buffer
	if err := automium.WriteHTML(&page, &report); err != nil {
		log.Fatal(err)
	}
	html := page.String()
	fmt.Println(strings.HasPrefix(html, "<!DOCTYPE html>"))
	fmt.Println(strings.Contains(html, `content="default-src 'none'; style-src 'sha256-`))
	fmt.Println("charts:", strings.Count(html, `<svg class="chart"`), "scripts:", strings.Count(html, "<script"))
	// Output:
	// true
	// true
	// charts: 3 scripts: 0
}

// The summary a person or a model reads first, here of the checkout's
// Playwright fixture: two projects (planners) over three journeys, three
// runs each; challenger skipped the third journey. Two shared journeys are too
// few for a verdict; both are flagged flaky, since a first attempt of each
// failed.
func ExampleWriteMarkdown() {
	report, err := os.ReadFile("testdata/playwright/report.json")
	if err != nil {
		panic(err)
	}
	out, err := automium.CompareReports(context.Background(), automium.CompareReportsInput{
		CorpusVersion: automium.CorpusVersion,
		Planners: []automium.PlannerRef{
			{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"},
			{ID: "challenger", Vendor: "anthropic", Model: "claude-sonnet-4"},
		},
		Reports: []automium.ReportContent{{Format: automium.FormatPlaywrightJSON, Content: string(report)}},
		Mapping: automium.ReportMapping{
			Planner: automium.ReportSource{From: automium.FromProject},
			Journey: automium.ReportSource{From: automium.FromAnnotation, Name: "journey"},
		},
	})
	if err != nil {
		panic(err)
	}
	if err := automium.WriteMarkdown(os.Stdout, &out.Comparison); err != nil {
		panic(err)
	}
	// Output:
	// ## Observed comparison of 2 planners
	//
	// Observed: trials recorded elsewhere and supplied by the caller; Automium ran and verified none of them.
	//
	// 2 journeys shared by every planner, 1 app, up to 3 runs of a journey per planner.
	//
	// | planner | pass rate [95% CI] | first attempt | pass^k | latency p50 / p90 | tokens/run |
	// |---|---|---|---|---|---|
	// | `baseline` | 7/9 = 0.78 [0.45, 0.94] | 0.78 | k=1: 0.78, k=3: 0.33 | 56 ms / 155 ms | unknown |
	// | `challenger` | 6/6 = 1.00 [0.61, 1.00] | 0.83 | k=1: 0.83, k=3: 0.50 | 50 ms / 92 ms | unknown |
	//
	// ### Pairs (A − B: A's first-attempt pass rate minus B's, over the journeys both ran)
	//
	// - `baseline` vs `challenger`: indistinguishable; A − B = −0.17 [−1.00, +1.00] over 2 shared journeys; too few shared journeys for a verdict (it needs 6).
	//
	// ### Flagged journeys (first-attempt passes, B against A; Fisher p uncorrected: a screen, not a verdict)
	//
	// - `storefront-remove-cart-item` flaky: `baseline` 2/3, `challenger` 2/3 (Fisher p 1)
	// - `storefront-search-add-to-cart` flaky: `baseline` 2/3, `challenger` 3/3 (Fisher p 1)
	//
	// The full report is the structured content (JSON): every planner's and pair's figures and the flagged rows that fit; name journeys (journeys) for their rows.
}

// The Examples of this file read files that real test runners wrote, as a
// team's CI job reads them. testdata/playwright holds the output of
// Playwright's JSON and junit reporters (run.sh and run-team.sh write them).
// testdata/agent-evals holds files Inspect AI and τ²-bench wrote; its
// README.md says where each comes from.

// reportFile reads one of those files.
func reportFile(path string) []byte {
	data, err := os.ReadFile(filepath.FromSlash(path))
	if err != nil {
		panic(err)
	}
	return data
}

// playwrightMapping is how the Playwright fixtures name things: a project
// is a planner, and a test's "journey" annotation (a JUnit property of that
// name) is its journey, here a reference journey that brings its own app.
var playwrightMapping = automium.ReportMapping{
	Planner: automium.ReportSource{From: automium.FromProject},
	Journey: automium.ReportSource{From: automium.FromAnnotation, Name: "journey"},
}

// agentEvalMapping maps an agent-evaluation file: its model is the planner,
// and the member named journey (Inspect's sample "id", τ²'s "task_id") holds
// the journey. Those tasks are no reference journeys, so the mapping names
// the app and fixture they count under.
func agentEvalMapping(journey string) automium.ReportMapping {
	return automium.ReportMapping{
		Planner: automium.ReportSource{From: automium.FromProject},
		Journey: automium.ReportSource{From: automium.FromAnnotation, Name: journey},
		AppID:   "helpdesk", FixtureID: "helpdesk-agent-queue",
	}
}

// printImported prints the counts a CI job logs after reading a report.
func printImported(read automium.ImportedTrials) {
	fmt.Printf("%d tests: %d trials, %d skipped, %d flaky, %d retried, %d not evaluable\n",
		read.Tests, len(read.Trials), read.Skipped, read.Flaky, read.Retried, read.NotEvaluable)
}

// A Playwright JSON report read into trials: two projects (planners), three
// journeys, three runs each; challenger skips one journey. The triage lists
// the failed runs and the one a retry rescued, at the place in the report
// where each test is.
func ExampleTrialsFromPlaywrightReport() {
	read, err := automium.TrialsFromPlaywrightReport(context.Background(),
		bytes.NewReader(reportFile("testdata/playwright/report.json")), playwrightMapping)
	if err != nil {
		panic(err)
	}
	printImported(read)
	for _, t := range read.Triage {
		fmt.Printf("%s %s run %d at %s, rescued %v\n", t.PlannerID, t.JourneyID, t.Repetition, t.Source, t.Rescued)
	}
	// Output:
	// 18 tests: 15 trials, 3 skipped, 1 flaky, 3 retried, 0 not evaluable
	// baseline storefront-search-add-to-cart run 2 at report.suites[0].specs[0].tests[1], rescued false
	// baseline storefront-remove-cart-item run 3 at report.suites[0].specs[1].tests[2], rescued false
	// challenger storefront-remove-cart-item run 1 at report.suites[0].specs[1].tests[3], rescued true
}

// A JUnit report read into trials: Playwright's junit reporter over the team
// run, in which the candidate build throws in the search journey on every
// run. Each failure keeps its first error message for triage.
func ExampleTrialsFromJUnitReport() {
	read, err := automium.TrialsFromJUnitReport(context.Background(),
		bytes.NewReader(reportFile("testdata/playwright/team-junit.xml")), playwrightMapping)
	if err != nil {
		panic(err)
	}
	printImported(read)
	failed := map[string]int{}
	for _, t := range read.Trials {
		if !t.Passed {
			failed[t.PlannerID+" "+t.JourneyID]++
		}
	}
	fmt.Println("failed runs:", failed)
	fmt.Printf("first triage: %s run %d: %q\n", read.Triage[0].JourneyID, read.Triage[0].Repetition, read.Triage[0].Error)
	// Output:
	// 36 tests: 36 trials, 0 skipped, 1 flaky, 7 retried, 0 not evaluable
	// failed runs: map[candidate storefront-search-add-to-cart:6]
	// first triage: storefront-search-add-to-cart run 1: "search results did not load"
}

// An Inspect AI log (.eval, the zip archive Inspect writes by default) read
// into trials: one model, two samples, two epochs each; an epoch is a
// repetition, a sample scored C passes.
func ExampleTrialsFromInspectLog() {
	read, err := automium.TrialsFromInspectLog(context.Background(),
		bytes.NewReader(reportFile("testdata/agent-evals/inspect/log_streaming.eval")), agentEvalMapping("id"))
	if err != nil {
		panic(err)
	}
	printImported(read)
	for _, t := range read.Trials {
		fmt.Printf("%s sample %s epoch %d: passed %v, %d tokens\n", t.PlannerID, t.JourneyID, t.Repetition, t.Passed, t.InputTokens+t.OutputTokens)
	}
	// Output:
	// 4 tests: 4 trials, 0 skipped, 0 flaky, 0 retried, 0 not evaluable
	// azureai/Meta-Llama-3-1-405B-Instruct-jqf sample 2 epoch 2: passed true, 61 tokens
	// azureai/Meta-Llama-3-1-405B-Instruct-jqf sample 2 epoch 1: passed true, 62 tokens
	// azureai/Meta-Llama-3-1-405B-Instruct-jqf sample 1 epoch 1: passed false, 67 tokens
	// azureai/Meta-Llama-3-1-405B-Instruct-jqf sample 1 epoch 2: passed true, 68 tokens
}

// A τ²-bench results file read into trials: gpt-4.1 on five telecom tasks,
// four trials each; a simulation passes when its reward is 1. The run's
// published pass^k is 0.80, 16 passes of 20.
func ExampleTrialsFromTau2Results() {
	read, err := automium.TrialsFromTau2Results(context.Background(),
		bytes.NewReader(reportFile("testdata/agent-evals/tau2/gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json")),
		agentEvalMapping("task_id"))
	if err != nil {
		panic(err)
	}
	printImported(read)
	passed, tasks := 0, map[string]bool{}
	for _, t := range read.Trials {
		tasks[t.JourneyID] = true
		if t.Passed {
			passed++
		}
	}
	fmt.Printf("%s: %d tasks, %d of %d passed\n", read.Trials[0].PlannerID, len(tasks), passed, len(read.Trials))
	// Output:
	// 20 tests: 20 trials, 0 skipped, 0 flaky, 0 retried, 0 not evaluable
	// gpt-4.1-2025-04-14: 5 tasks, 16 of 20 passed
}

// Several reports read as one set of trials, streamed: here two nights'
// Playwright runs, one written by the JSON reporter, the other by the junit
// reporter. One run passed twice (both reporters of the same night) is
// refused, naming both reports.
func ExampleReadReports() {
	ctx := context.Background()
	read, err := automium.ReadReports(ctx, playwrightMapping,
		automium.ReportReader{Format: automium.FormatPlaywrightJSON, R: bytes.NewReader(reportFile("testdata/playwright/report.json"))},
		automium.ReportReader{Format: automium.FormatJUnit, R: bytes.NewReader(reportFile("testdata/playwright/team-junit.xml"))},
	)
	if err != nil {
		panic(err)
	}
	printImported(read)
	runs := map[string]int{}
	for _, t := range read.Trials {
		runs[t.PlannerID]++
	}
	fmt.Println("runs by planner:", runs)

	_, err = automium.ReadReports(ctx, playwrightMapping,
		automium.ReportReader{Format: automium.FormatPlaywrightJSON, R: bytes.NewReader(reportFile("testdata/playwright/report.json"))},
		automium.ReportReader{Format: automium.FormatJUnit, R: bytes.NewReader(reportFile("testdata/playwright/junit.xml"))},
	)
	var ae *automium.Error
	if errors.As(err, &ae) {
		fmt.Println("same run twice:", ae.Code, "at", ae.Field)
	}
	// Output:
	// 54 tests: 51 trials, 3 skipped, 2 flaky, 10 retried, 0 not evaluable
	// runs by planner: map[baseline:27 candidate:18 challenger:6]
	// same run twice: invalid_argument at reports[1].content
}

// The planners of a Playwright report compared: the team run, in which the
// candidate build fails the search journey on every run. Three journeys are
// too few for a verdict about journeys in general, but the search journey's
// row is flagged regressed (0 of 6 first attempts against 6 of 6). The
// answer is the summary: the flagged rows, the others counted.
func ExampleCompareReports() {
	out, err := automium.CompareReports(context.Background(), automium.CompareReportsInput{
		CorpusVersion: automium.CorpusVersion,
		Planners: []automium.PlannerRef{
			{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"},
			{ID: "candidate", Vendor: "anthropic", Model: "claude-sonnet-4"},
		},
		Reports: []automium.ReportContent{{Format: automium.FormatPlaywrightJSON, Content: string(reportFile("testdata/playwright/team-report.json"))}},
		Mapping: playwrightMapping,
	})
	if err != nil {
		panic(err)
	}
	im := out.Import
	fmt.Printf("read %d trials, %d flaky, %d in triage\n", im.TrialCount, im.Flaky, len(im.Triage))
	for _, p := range out.Comparison.Planners {
		fmt.Printf("%s: %d of %d first attempts passed\n", p.Planner.ID, p.FirstAttemptPassRate.Successes, p.FirstAttemptPassRate.N)
	}
	pc := out.Comparison.Pairs[0]
	fmt.Printf("%s vs %s over %d journeys: %s\n", pc.PlannerA, pc.PlannerB, pc.SharedJourneys, pc.Verdict)
	for _, row := range pc.Journeys {
		fmt.Printf("  %s %s: %d/%d vs %d/%d, Fisher p %.4f\n", row.JourneyID, row.Flag, row.APasses, row.ARuns, row.BPasses, row.BRuns, row.FisherP)
	}
	fmt.Println("rows omitted:", out.Comparison.RowsOmitted)
	// Output:
	// read 36 trials, 1 flaky, 7 in triage
	// baseline: 18 of 18 first attempts passed
	// candidate: 11 of 18 first attempts passed
	// baseline vs candidate over 3 journeys: indistinguishable
	//   storefront-search-add-to-cart regressed: 6/6 vs 0/6, Fisher p 0.0022
	//   storefront-remove-cart-item flaky: 6/6 vs 5/6, Fisher p 1.0000
	// rows omitted: 7
}

// The Markdown a person or a model reads of a comparison of reports: one
// sentence of what was read, then the comparison's summary, within
// MaxMarkdownBytes in all.
func ExampleWriteReportsMarkdown() {
	out, err := automium.CompareReports(context.Background(), automium.CompareReportsInput{
		CorpusVersion: automium.CorpusVersion,
		Planners: []automium.PlannerRef{
			{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"},
			{ID: "candidate", Vendor: "anthropic", Model: "claude-sonnet-4"},
		},
		Reports: []automium.ReportContent{{Format: automium.FormatPlaywrightJSON, Content: string(reportFile("testdata/playwright/team-report.json"))}},
		Mapping: playwrightMapping,
	})
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	if err := automium.WriteReportsMarkdown(&b, &out); err != nil {
		panic(err)
	}
	lines := strings.Split(b.String(), "\n")
	fmt.Println(lines[0])
	fmt.Println("within 6,000 bytes:", b.Len() <= 6000)
	// Output:
	// Read 36 tests: 36 trials, 0 skipped, 1 flaky, 7 retried, 0 not evaluable. 7 failed or not-evaluable trials; the first 7 are under import.triage in the structured content.
	// within 6,000 bytes: true
}

// Agent evaluations compared: τ²-bench's gpt-4.1 against its fine-tuned
// version on the same seven telecom tasks, one file each. The fine-tuned
// model passes 5 tasks to the base model's 2.
func ExampleCompareReports_tau2() {
	out, err := automium.CompareReports(context.Background(), automium.CompareReportsInput{
		CorpusVersion: automium.CorpusVersion,
		Planners: []automium.PlannerRef{
			{ID: "gpt-4.1", Vendor: "openai", Model: "gpt-4.1"},
			{ID: "ft:gpt-4.1-2025-04-14:sierra:tau2-full-sft:BzrYdMNm", Vendor: "openai", Model: "gpt-4.1 fine-tuned"},
		},
		Reports: []automium.ReportContent{
			{Format: automium.FormatTau2, Content: string(reportFile("testdata/agent-evals/tau2/gpt-4.1_telecom_default_gpt-4.1_1trials.subset-7tasks.json"))},
			{Format: automium.FormatTau2, Content: string(reportFile("testdata/agent-evals/tau2/ft-gpt-4.1-2025-04-14-sierra-tau2-full-sft-BzrYdMNm_telecom_default_gpt-4.1_1trials.subset-7tasks.json"))},
		},
		Mapping: agentEvalMapping("task_id"),
	})
	if err != nil {
		panic(err)
	}
	for _, p := range out.Comparison.Planners {
		fmt.Printf("%s: %d of %d passed\n", p.Planner.Model, p.PassRate.Successes, p.PassRate.N)
	}
	pc := out.Comparison.Pairs[0]
	fmt.Printf("base − fine-tuned = %+.2f over %d tasks, p %.3f: %s\n", pc.MeanDifference, pc.SharedJourneys, pc.P, pc.Verdict)
	// Output:
	// gpt-4.1: 2 of 7 passed
	// gpt-4.1 fine-tuned: 5 of 7 passed
	// base − fine-tuned = -0.43 over 7 tasks, p 0.140: indistinguishable
}

// Inspect AI logs compared, one of each form Inspect writes: a .eval
// archive (binary, so base64 in ReportContent) and a JSON log.
func ExampleCompareReports_inspect() {
	out, err := automium.CompareReports(context.Background(), automium.CompareReportsInput{
		CorpusVersion: automium.CorpusVersion,
		Planners: []automium.PlannerRef{
			{ID: "azureai/Meta-Llama-3-1-405B-Instruct-jqf", Vendor: "azureai", Model: "Meta-Llama-3-1-405B-Instruct"},
			{ID: "openai/gpt-4o-mini", Vendor: "openai", Model: "gpt-4o-mini"},
		},
		Reports: []automium.ReportContent{
			{Format: automium.FormatInspectAI, Encoding: "base64", Content: base64.StdEncoding.EncodeToString(reportFile("testdata/agent-evals/inspect/log_streaming.eval"))},
			{Format: automium.FormatInspectAI, Content: string(reportFile("testdata/agent-evals/inspect/2025-05-12T20-28-13-04-00_popularity.json"))},
		},
		Mapping: agentEvalMapping("id"),
	})
	if err != nil {
		panic(err)
	}
	for _, p := range out.Comparison.Planners {
		fmt.Printf("%s: %d of %d first attempts passed\n", p.Planner.Model, p.FirstAttemptPassRate.Successes, p.FirstAttemptPassRate.N)
	}
	pc := out.Comparison.Pairs[0]
	fmt.Printf("%d shared samples, %d only gpt-4o-mini ran; A − B = %+.2f: %s\n", pc.SharedJourneys, pc.JourneysOnlyB, pc.MeanDifference, pc.Verdict)
	// Output:
	// Meta-Llama-3-1-405B-Instruct: 3 of 4 first attempts passed
	// gpt-4o-mini: 2 of 3 first attempts passed
	// 2 shared samples, 1 only gpt-4o-mini ran; A − B = -0.25: indistinguishable
}

// ComparePlaywrightReport is CompareReports for one Playwright JSON report.
func ExampleComparePlaywrightReport() {
	out, err := automium.ComparePlaywrightReport(context.Background(), automium.ComparePlaywrightReportInput{
		CorpusVersion: automium.CorpusVersion,
		Planners: []automium.PlannerRef{
			{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"},
			{ID: "challenger", Vendor: "anthropic", Model: "claude-sonnet-4"},
		},
		Report:  string(reportFile("testdata/playwright/report.json")),
		Mapping: playwrightMapping,
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d trials, %d skipped; basis %s\n", out.Import.TrialCount, out.Import.Skipped, out.Comparison.Basis)
	pc := out.Comparison.Pairs[0]
	fmt.Printf("%d shared journeys, %d only baseline ran: %s\n", pc.SharedJourneys, pc.JourneysOnlyA, pc.Verdict)
	// Output:
	// 15 trials, 3 skipped; basis observed
	// 2 shared journeys, 1 only baseline ran: indistinguishable
}

// A command line that reads the files a user names asks DetectReportFormat
// for each file's format from its first bytes, and asks the user when it
// answers false.
func ExampleDetectReportFormat() {
	for _, name := range []string{
		"testdata/playwright/report.json",
		"testdata/playwright/junit.xml",
		"testdata/agent-evals/inspect/log_streaming.eval",
		"testdata/agent-evals/inspect/2025-05-12T20-28-13-04-00_popularity.json",
		"testdata/agent-evals/tau2/gpt-4.1_telecom_default_gpt-4.1_1trials.subset-7tasks.json",
	} {
		head := reportFile(name)
		head = head[:min(len(head), automium.DetectBytes)]
		format, ok := automium.DetectReportFormat(head)
		fmt.Println(filepath.Base(name), format, ok)
	}
	format, ok := automium.DetectReportFormat([]byte("journey,passed\n"))
	fmt.Printf("a CSV file: %q %v\n", format, ok)
	// Output:
	// report.json playwright-json true
	// junit.xml junit true
	// log_streaming.eval inspect-ai true
	// 2025-05-12T20-28-13-04-00_popularity.json inspect-ai true
	// gpt-4.1_telecom_default_gpt-4.1_1trials.subset-7tasks.json tau2 true
	// a CSV file: "" false
}

// The formats a comparison reads, as reports[].format spells them.
func ExampleReportFormats() {
	fmt.Println(automium.ReportFormats())
	// Output:
	// [junit playwright-json inspect-ai tau2]
}

// nightlyRun compares the planners of one night's Playwright JSON report with
// every row (a snapshot needs them all) and keeps its counts as a snapshot.
func nightlyRun(path string, planners ...automium.PlannerRef) (automium.ComparisonReport, automium.CountsSnapshot) {
	out, err := automium.CompareReports(context.Background(), automium.CompareReportsInput{
		CorpusVersion: automium.CorpusVersion,
		Planners:      planners,
		Reports:       []automium.ReportContent{{Format: automium.FormatPlaywrightJSON, Content: string(reportFile(path))}},
		Mapping:       playwrightMapping,
		Rows:          automium.RowSelection{All: true},
	})
	if err != nil {
		panic(err)
	}
	snapshot, err := automium.SnapshotOf(out.Comparison)
	if err != nil {
		panic(err)
	}
	return out.Comparison, snapshot
}

var (
	baselineBuild   = automium.PlannerRef{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"}
	challengerBuild = automium.PlannerRef{ID: "challenger", Vendor: "anthropic", Model: "claude-sonnet-4"}
	candidateBuild  = automium.PlannerRef{ID: "candidate", Vendor: "anthropic", Model: "claude-sonnet-4"}
)

// A CI job's gate from two nights' Playwright reports: each planner of
// tonight's run against its own run of the earlier night, kept as a
// snapshot. The baseline build holds, and candidate runs for the first time,
// so it is not gated; but challenger did not run tonight, which fails the gate:
// a run that drops a planner or a journey is not evidence that nothing got
// worse. The Markdown is what the job writes to its summary.
func ExampleWriteBaselineMarkdown() {
	_, earlier := nightlyRun("testdata/playwright/report.json", baselineBuild, challengerBuild)
	_, tonight := nightlyRun("testdata/playwright/team-report.json", baselineBuild, candidateBuild)
	gate, err := automium.CompareBaseline(context.Background(), automium.BaselineInput{Baseline: earlier, Current: tonight})
	if err != nil {
		panic(err)
	}
	if err := automium.WriteBaselineMarkdown(os.Stdout, &gate); err != nil {
		panic(err)
	}
	// Output:
	// ## Gate **failed**: not decisively worse
	//
	// Each planner against its own earlier run (the baseline snapshot), by first-attempt pass rate over the journeys both runs have.
	//
	// | planner | gate | verdict | this run − baseline [95% CI] | regressed | fixed | newly flaky |
	// |---|---|---|---|---|---|---|
	// | `baseline` | pass | indistinguishable | +0.22 [−0.52, +0.96] over 3 | 0 | 0 | 0 |
	//
	// 1 planner of the baseline did not run this time (`challenger`), which fails the gate (run it, or write a new baseline); 1 planner of this run has no baseline (`candidate`) and is not gated.
	//
	// Flags are per-journey Fisher tests at 0.05 without correction: a screen, not a verdict. The gate decides on the mean over journeys.
}

// The same gate as a page: WriteHTML's page of tonight's report, headed by
// the gate's decision.
func ExampleWriteBaselineHTML() {
	_, earlier := nightlyRun("testdata/playwright/report.json", baselineBuild, challengerBuild)
	report, tonight := nightlyRun("testdata/playwright/team-report.json", baselineBuild, candidateBuild)
	gate, err := automium.CompareBaseline(context.Background(), automium.BaselineInput{Baseline: earlier, Current: tonight})
	if err != nil {
		panic(err)
	}
	var page bytes.Buffer
	if err := automium.WriteBaselineHTML(&page, &report, &gate); err != nil {
		panic(err)
	}
	html := page.String()
	fmt.Println(strings.HasPrefix(html, "<!DOCTYPE html>"), strings.Contains(html, "Gate failed"), strings.Contains(html, "did not run"), "scripts:", strings.Count(html, "<script"))
	// Output:
	// true true true scripts: 0
}

// Counts gathered elsewhere (say, rows of the SQL in docs/scale.md) made a
// snapshot: sorted by planner, then journey, so rows in any order give the
// same snapshot and digest.
func ExampleNewCountsSnapshot() {
	search := automium.JourneyCounts{PlannerID: "agent", AppID: "storefront", JourneyID: "storefront-search-add-to-cart", Runs: 10, Passes: 9, FirstAttemptPasses: 8}
	remove := automium.JourneyCounts{PlannerID: "agent", AppID: "storefront", JourneyID: "storefront-remove-cart-item", Runs: 10, Passes: 10, FirstAttemptPasses: 10}
	planners := []automium.PlannerRef{{ID: "agent", Vendor: "acme", Model: "m1"}}
	a, err := automium.NewCountsSnapshot(automium.CorpusVersion, planners, []automium.JourneyCounts{search, remove})
	if err != nil {
		panic(err)
	}
	b, err := automium.NewCountsSnapshot(automium.CorpusVersion, planners, []automium.JourneyCounts{remove, search})
	if err != nil {
		panic(err)
	}
	fmt.Println(a.Counts[0].JourneyID, a.Counts[1].JourneyID)
	fmt.Println("same digest:", a.Digest == b.Digest)
	// Output:
	// storefront-remove-cart-item storefront-search-add-to-cart
	// same digest: true
}

// The snapshot file a CI job keeps: one line per row, so a diff reads.
func ExampleWriteCountsSnapshot() {
	s, err := automium.NewCountsSnapshot(automium.CorpusVersion, []automium.PlannerRef{{ID: "agent", Vendor: "acme", Model: "m1"}},
		[]automium.JourneyCounts{{PlannerID: "agent", AppID: "storefront", JourneyID: "storefront-search-add-to-cart", Runs: 10, Passes: 9, FirstAttemptPasses: 8}})
	if err != nil {
		panic(err)
	}
	if err := automium.WriteCountsSnapshot(os.Stdout, s); err != nil {
		panic(err)
	}
	// Output:
	// {
	//   "format": "automium-counts-v1",
	//   "corpusVersion": "owned-corpus-2026.11",
	//   "planners": [
	//     {"id":"agent","vendor":"acme","model":"m1"}
	//   ],
	//   "counts": [
	//     {"plannerId":"agent","appId":"storefront","journeyId":"storefront-search-add-to-cart","runs":10,"passes":9,"firstAttemptPasses":8}
	//   ],
	//   "digest": "sha256:7731f2669195d4ef2554d1144ac67785cf85d7e967872dff99787c7d48083e9e"
	// }
}

// A snapshot edited by hand no longer matches its digest and is refused,
// not read as another run.
func ExampleReadCountsSnapshot() {
	_, tonight := nightlyRun("testdata/playwright/team-report.json", baselineBuild, candidateBuild)
	var file bytes.Buffer
	if err := automium.WriteCountsSnapshot(&file, tonight); err != nil {
		panic(err)
	}
	back, err := automium.ReadCountsSnapshot(context.Background(), bytes.NewReader(file.Bytes()))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(back.Counts), "rows, digest matches:", back.Digest == tonight.Digest)

	// Someone hides the candidate's failures of the search journey.
	edited := strings.Replace(file.String(),
		`"plannerId":"candidate","appId":"storefront","journeyId":"storefront-search-add-to-cart","runs":6,`,
		`"plannerId":"candidate","appId":"storefront","journeyId":"storefront-search-add-to-cart","runs":6,"passes":6,"firstAttemptPasses":6,`, 1)
	_, err = automium.ReadCountsSnapshot(context.Background(), strings.NewReader(edited))
	var ae *automium.Error
	if errors.As(err, &ae) {
		fmt.Println("edited:", ae.Code, "at", ae.Field)
	}
	// Output:
	// 6 rows, digest matches: true
	// edited: invalid_argument at digest
}

// An adapter checks an app and fixture pair as the capabilities do.
func ExampleFixtureOfApp() {
	f, err := automium.FixtureOfApp("storefront", "storefront-guest-catalog")
	if err != nil {
		panic(err)
	}
	fmt.Println(f.ID, f.EnvironmentProfileIDs, f.ReferenceJourneyIDs)
	_, err = automium.FixtureOfApp("storefront", "helpdesk-agent-queue")
	var ae *automium.Error
	if errors.As(err, &ae) {
		fmt.Println(ae.Code, ae.Field, ae.Allowed)
	}
	// Output:
	// storefront-guest-catalog [desktop-1440-en-us mobile-390-en-gb] [storefront-search-add-to-cart]
	// fixture_app_mismatch fixtureId [storefront-guest-catalog storefront-returning-shopper]
}

func ExampleReferenceJourneyIDs() {
	ids := automium.ReferenceJourneyIDs()
	fmt.Println(len(ids), "reference journeys, from", ids[0], "to", ids[len(ids)-1])
	// Output:
	// 22 reference journeys, from admin-console-audit-log-second-page to storefront-search-add-to-cart
}

func ExampleIntents() {
	fmt.Println(automium.Intents())
	// Output:
	// [click drag_drop extract fill finish go_back handle_dialog hover navigate press_key scroll select_option set_checked switch_tab upload_file wait_for]
}

func ExampleRoles() {
	roles := automium.Roles()
	fmt.Println(len(roles), "roles:", roles[:6], "…")
	// Output:
	// 40 roles: [alert alertdialog article banner button cell] …
}

func ExampleRecoveryStrategies() {
	fmt.Println(automium.RecoveryStrategies())
	// Output:
	// [dismiss_dialog go_back re_snapshot reload_route replan retry_step]
}

// What each assertion kind needs, as a prompt or a form lists it.
func ExampleAssertionSpecs() {
	for _, a := range automium.AssertionSpecs() {
		value := string(a.Value)
		if a.ValueKind != "" {
			value += " (" + a.ValueKind + ")"
		}
		fmt.Printf("%s: target %s, value %s\n", a.Kind, a.Target, value)
	}
	// Output:
	// element_checked: target required, value forbidden
	// element_hidden: target required, value forbidden
	// element_text: target required, value required (text)
	// element_value: target required, value required (text)
	// element_visible: target required, value forbidden
	// text_visible: target forbidden, value required (text)
	// title_contains: target forbidden, value required (text)
	// url_matches: target forbidden, value required (route)
}

// A failed run that was retried must record more than a passed one.
func ExampleRequiredReplayArtifactKinds() {
	fmt.Println(automium.RequiredReplayArtifactKinds(automium.VerdictPassed, 0))
	fmt.Println(automium.RequiredReplayArtifactKinds(automium.VerdictFailed, 1))
	// Output:
	// [replay_events report]
	// [console_log dom_snapshot network_har replay_events report screenshot semantic_snapshot trace video]
}

// A Go caller reads a bound by its name, here to refuse a report before
// sending it.
func ExampleLimits() {
	for _, l := range automium.Limits() {
		switch l.Name {
		case "MaxPlaywrightReportBytes", "MaxReports", "MaxObservedTrials":
			fmt.Println(l.Name, l.Value)
		}
	}
	// Output:
	// MaxObservedTrials 100000
	// MaxPlaywrightReportBytes 8388608
	// MaxReports 64
}

// An adapter's own problem, reported the way the capabilities report
// theirs: coded, at a path, with the client's value quoted and bounded.
func ExampleNewProblem() {
	p := automium.NewProblem(automium.CodeInvalidArgument, automium.PathOf("journeyId"), nil,
		"%s is not a journey ID; use lower-case words joined by hyphens", automium.ClientValue("Bad ID"))
	fmt.Println(p.Code, p.Field)
	fmt.Println(automium.Join(p))
	// Output:
	// invalid_argument journeyId
	// automium: invalid_argument: journeyId: "Bad ID" is not a journey ID; use lower-case words joined by hyphens
}

// A path is built from its parts, never parsed back from its text.
func ExamplePathOf() {
	fmt.Println(automium.PathOf("steps").Index(3).Field("target").Field("role"))
	// Output:
	// steps[3].target.role
}
