package automium_test

import (
	"context"
	"os"

	"github.com/automium/automium"
)

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
