package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/limit"
)

// TestCountsAnswerBound holds automium_compare_observed_trials with a counts
// snapshot of many rows, and with trials over the most apps, to the tool's
// worst answer (288 KiB) for both kinds of client. Before counts were cut to
// the summary as trials are, a 2.6 MB snapshot of 16 planners × 400 journeys
// answered every row: 7,935,184 B (structured) and 8,943,888 B (2025-03-26).
func TestCountsAnswerBound(t *testing.T) {
	id := func(p int) string { return fmt.Sprintf("%s%02d", strings.Repeat("<", 30), p) }
	in := automium.CompareObservedTrialsInput{CorpusVersion: automium.CorpusVersion, Rows: automium.RowSelection{All: true}}
	for p := range limit.MaxPlanners {
		in.Planners = append(in.Planners, automium.PlannerRef{ID: id(p), Vendor: "v", Model: "m"})
	}
	for j := range 400 {
		app := fmt.Sprintf("ext:%s%03d", strings.Repeat("a", limit.MaxIDLength-7), j%limit.MaxObservedApps)
		for p := range limit.MaxPlanners {
			in.Trials = append(in.Trials, automium.Trial{PlannerID: id(p), AppID: app, FixtureID: "ext:f", JourneyID: fmt.Sprintf("j-%06d", j), Repetition: 1, Passed: (j*p)%3 == 0})
		}
	}
	r, err := automium.CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	s, err := automium.SnapshotOf(r)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := automium.WriteCountsSnapshot(&text, s); err != nil {
		t.Fatal(err)
	}
	const tool = "automium_compare_observed_trials"
	for _, c := range []struct {
		name string
		args any
	}{
		{"a snapshot of 6,400 rows over 16 apps", map[string]any{"corpusVersion": in.CorpusVersion, "planners": in.Planners, "snapshot": text.String()}},
		{"6,400 trials over 16 apps", map[string]any{"corpusVersion": in.CorpusVersion, "planners": in.Planners, "trials": in.Trials}},
	} {
		t.Run(c.name, func(t *testing.T) {
			modern, legacy, _ := answerSizes(t, tool, c.args)
			if worst := answerBounds()[tool].worst(); int64(modern) > worst || int64(legacy) > worst {
				t.Errorf("answers of %d B (structured) and %d B (2025-03-26), over the worst answer of %d B", modern, legacy, worst)
			}
			t.Logf("%d B (structured), %d B (2025-03-26)", modern, legacy)
		})
	}
}
