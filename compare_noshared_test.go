package automium

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNoSharedJourneySummary holds what the Markdown and the HTML say of a
// pair that shares no journey with an evaluable run (disjoint journeys, or
// every run of one side not evaluable): no estimate, rather than a
// difference of 0.00 that reads as a measured tie, and no claim that shared
// journeys read unchanged.
func TestNoSharedJourneySummary(t *testing.T) {
	tr := func(p, j string, passed, notEvaluable bool) Trial {
		return Trial{PlannerID: p, AppID: cmpApp, FixtureID: cmpFixture, JourneyID: j, Repetition: 1, Passed: passed, NotEvaluable: notEvaluable, LatencyMs: 5}
	}
	planners := []PlannerRef{{ID: "a", Vendor: "v", Model: "m"}, {ID: "b", Vendor: "v", Model: "m"}}
	const (
		mdPair = "- `a` vs `b`: no verdict; no estimate: the two share no journey with an evaluable run.\n"
		mdNone = "\nNo journey is flagged: no pair shares a journey with an evaluable run.\n"
		html   = "No estimate: the two share no journey with an evaluable run."
	)
	for _, tc := range []struct {
		name   string
		trials []Trial
		want   []bool // holds mdPair, mdNone, html
	}{
		{"disjoint journeys", []Trial{tr("a", "j1", true, false), tr("b", "j2", true, false)}, []bool{true, true, true}},
		{"one side not evaluable", []Trial{tr("a", "j1", true, false), tr("b", "j1", false, true)}, []bool{true, true, true}},
		{"all not evaluable", []Trial{tr("a", "j1", false, true), tr("b", "j1", false, true)}, []bool{true, true, true}},
		{"one shared journey", []Trial{tr("a", "j1", true, false), tr("b", "j1", true, false)}, []bool{false, false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := CompareObservedTrials(context.Background(), CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: planners, Trials: tc.trials})
			if err != nil {
				t.Fatal(err)
			}
			md := markdownOf(t, &r)
			var h1, h2 bytes.Buffer
			if err := WriteHTML(&h1, &r); err != nil {
				t.Fatal(err)
			}
			if err := WriteHTML(&h2, &r); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(h1.Bytes(), h2.Bytes()) {
				t.Error("two renderings of one report differ")
			}
			got := []bool{strings.Contains(md, mdPair), strings.Contains(md, mdNone), strings.Contains(h1.String(), html)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("holds (pair line, no-flag line, HTML line) (-want +got):\n%s\nMarkdown:\n%s", diff, md)
			}
			if strings.Contains(md, "over 0 shared journeys") || strings.Contains(h1.String(), "over 0 shared") {
				t.Errorf("an estimate over 0 shared journeys:\n%s", md)
			}
		})
	}
}
