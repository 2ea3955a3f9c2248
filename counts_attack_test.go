package automium

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestCountsOfExternalApps holds the trials of apps outside the corpus (ext:)
// to the counts path as well: their report has a snapshot, which compares as
// their trials do. Counts once took corpus app IDs only, so a report of ext:
// trials could not be kept as a baseline.
func TestCountsOfExternalApps(t *testing.T) {
	planners := []PlannerRef{{ID: "a", Vendor: "v", Model: "m"}, {ID: "b", Vendor: "v", Model: "m"}}
	var trials []Trial
	for j := range 12 {
		for _, p := range planners {
			trials = append(trials, Trial{PlannerID: p.ID, AppID: "ext:acme-notes", FixtureID: "ext:acme-notes-empty", JourneyID: fmt.Sprintf("notes-%d", j), Repetition: 1, Passed: p.ID == "a" || j%3 == 0})
		}
	}
	countsEquivalence(t, "ext: apps", CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: planners, Trials: trials, Rows: RowSelection{All: true}})
	for _, bad := range []string{"EXT:acme-notes", "ext:storefront", "ext:" + strings.Repeat("a", 125), "ext:a--b"} {
		_, err := CompareObservedTrials(context.Background(), CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: planners,
			Counts: []JourneyCounts{{PlannerID: "a", AppID: bad, JourneyID: "j", Runs: 1}, {PlannerID: "b", AppID: bad, JourneyID: "j", Runs: 1}}})
		if err == nil || !strings.Contains(err.Error(), "counts[0].appId") {
			t.Errorf("counts of app %q: %v, want a problem at counts[0].appId", bad, err)
		}
	}
}

// TestCountsPlannerTwins names a snapshot's or a counts row's planner in
// another case or character form: refused, naming the planner meant, as a
// trial naming one is.
func TestCountsPlannerTwins(t *testing.T) {
	planners := []PlannerRef{{ID: "base", Vendor: "v", Model: "m"}, {ID: "Cand", Vendor: "v", Model: "m"}}
	var trials []Trial
	for j := range 12 {
		for _, p := range planners {
			trials = append(trials, Trial{PlannerID: p.ID, AppID: "storefront", FixtureID: "storefront-guest-catalog", JourneyID: fmt.Sprintf("j%d", j), Repetition: 1, Passed: p.ID == "base"})
		}
	}
	ctx := context.Background()
	r, err := CompareObservedTrials(ctx, CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: planners, Trials: trials, Rows: RowSelection{All: true}})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := SnapshotOf(r)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := WriteCountsSnapshot(&text, snap); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		planners []PlannerRef
		want     string
	}{
		{"upper case", []PlannerRef{{ID: "BASE", Vendor: "v", Model: "m"}, {ID: "Cand", Vendor: "v", Model: "m"}}, `planners[0].id: "BASE" is not one of the snapshot's planners: it differs from the snapshot's planner "base" only in case`},
		{"fullwidth", []PlannerRef{{ID: "base", Vendor: "v", Model: "m"}, {ID: "ｃａｎｄ", Vendor: "v", Model: "m"}}, `planners[1].id: "ｃａｎｄ" is not one of the snapshot's planners: it differs from the snapshot's planner "Cand" only in case`},
		{"twins among the planners", []PlannerRef{{ID: "base", Vendor: "v", Model: "m"}, {ID: "Base", Vendor: "v", Model: "m"}}, `planners[1].id: planner ID "Base" differs from "base" (planners[0])`},
	}
	for _, tt := range tests {
		_, err := CompareObservedTrials(ctx, CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: tt.planners, Snapshot: text.String()})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v\nwant it to say %s", tt.name, err, tt.want)
		}
	}
	counts := append([]JourneyCounts(nil), snap.Counts...)
	counts[0].PlannerID = "BASE"
	_, err = CompareObservedTrials(ctx, CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: planners, Counts: counts})
	if want := `counts[0].plannerId: "BASE" is not one of the input's planners: it differs from planner "base" only in case`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a counts row naming a case variant: %v\nwant it to say %s", err, want)
	}
}
