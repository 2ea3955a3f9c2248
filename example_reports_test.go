package automium_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/automium/automium"
)

// The Examples of this file read the files real test runners wrote, as a
// team's CI job reads them: testdata/playwright (Playwright's JSON and junit
// reporters over testdata/playwright/tests and team/) and
// testdata/agent-evals (files Inspect AI and τ²-bench wrote; its README.md
// says where each comes from).

// readFixture reads one of those files.
func readFixture(path string) []byte {
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
// and the member journey names (Inspect's sample "id", τ²'s "task_id") is the
// journey. Those tasks are no reference journeys, so the mapping names the
// app and fixture they count under.
func agentEvalMapping(journey string) automium.ReportMapping {
	return automium.ReportMapping{
		Planner: automium.ReportSource{From: automium.FromProject},
		Journey: automium.ReportSource{From: automium.FromAnnotation, Name: journey},
		AppID:   "helpdesk", FixtureID: "helpdesk-agent-queue",
	}
}

func printImport(read automium.ImportedTrials) {
	fmt.Printf("%d tests: %d trials, %d skipped, %d flaky, %d retried, %d not evaluable\n",
		read.Tests, len(read.Trials), read.Skipped, read.Flaky, read.Retried, read.NotEvaluable)
}

// A Playwright JSON report read into trials: two projects (planners), three
// journeys, three runs each; challenger skips one journey. The triage lists
// the failed runs and the one a retry rescued, at the place in the report
// where each test is.
func ExampleTrialsFromPlaywrightReport() {
	read, err := automium.TrialsFromPlaywrightReport(context.Background(),
		bytes.NewReader(readFixture("testdata/playwright/report.json")), playwrightMapping)
	if err != nil {
		panic(err)
	}
	printImport(read)
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
		bytes.NewReader(readFixture("testdata/playwright/team-junit.xml")), playwrightMapping)
	if err != nil {
		panic(err)
	}
	printImport(read)
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
		bytes.NewReader(readFixture("testdata/agent-evals/inspect/log_streaming.eval")), agentEvalMapping("id"))
	if err != nil {
		panic(err)
	}
	printImport(read)
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
		bytes.NewReader(readFixture("testdata/agent-evals/tau2/gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json")),
		agentEvalMapping("task_id"))
	if err != nil {
		panic(err)
	}
	printImport(read)
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
		automium.ReportReader{Format: automium.FormatPlaywrightJSON, R: bytes.NewReader(readFixture("testdata/playwright/report.json"))},
		automium.ReportReader{Format: automium.FormatJUnit, R: bytes.NewReader(readFixture("testdata/playwright/team-junit.xml"))},
	)
	if err != nil {
		panic(err)
	}
	printImport(read)
	runs := map[string]int{}
	for _, t := range read.Trials {
		runs[t.PlannerID]++
	}
	fmt.Println("runs by planner:", runs)

	_, err = automium.ReadReports(ctx, playwrightMapping,
		automium.ReportReader{Format: automium.FormatPlaywrightJSON, R: bytes.NewReader(readFixture("testdata/playwright/report.json"))},
		automium.ReportReader{Format: automium.FormatJUnit, R: bytes.NewReader(readFixture("testdata/playwright/junit.xml"))},
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
		Reports: []automium.ReportContent{{Format: automium.FormatPlaywrightJSON, Content: string(readFixture("testdata/playwright/team-report.json"))}},
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
			{Format: automium.FormatTau2, Content: string(readFixture("testdata/agent-evals/tau2/gpt-4.1_telecom_default_gpt-4.1_1trials.subset-7tasks.json"))},
			{Format: automium.FormatTau2, Content: string(readFixture("testdata/agent-evals/tau2/ft-gpt-4.1-2025-04-14-sierra-tau2-full-sft-BzrYdMNm_telecom_default_gpt-4.1_1trials.subset-7tasks.json"))},
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
			{Format: automium.FormatInspectAI, Encoding: "base64", Content: base64.StdEncoding.EncodeToString(readFixture("testdata/agent-evals/inspect/log_streaming.eval"))},
			{Format: automium.FormatInspectAI, Content: string(readFixture("testdata/agent-evals/inspect/2025-05-12T20-28-13-04-00_popularity.json"))},
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
		Report:  string(readFixture("testdata/playwright/report.json")),
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
		head := readFixture(name)
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
