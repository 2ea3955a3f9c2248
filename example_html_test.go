package automium_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/automium/automium"
)

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
