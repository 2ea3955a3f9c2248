package automium

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"
)

// TestModeledBytesPinned pins the bytes of 135 outputs of the model: modeled
// reports of every size up to the largest under five seeds, the trials behind
// the smaller ones and the observed reports built from those trials.
//
// The digest was taken when planner-comparison-v3 made every planner draw
// with the shared traits (an A/A baseline) and added the per-journey rows and
// the journey-level pairs. The walk itself is the one v1 and v2 pinned
// (TestDrawMatchesReference holds it to a step-by-step reference); only the
// traits it walks with changed. A change that moves the digest is a new model
// or report version, not a speed-up, and must be documented as one.
//
// It moved once since, for names only (December 2026): a pair's journey row
// says aFirstAttemptPasses and bFirstAttemptPasses, where it said aPasses and
// bPasses; with those names written back, the bytes hash to the digest
// before (040db1b7...).
func TestModeledBytesPinned(t *testing.T) {
	v3 := sha256.New()
	n := 0
	add := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		v3.Write(b)
		n++
	}
	apps := owned().appIDs
	inputs := []ComparePlannersInput{}
	for _, seed := range []uint64{0, 1, 7, 12345, 1<<53 - 1} {
		for _, reps := range []int{0, 1, 2, 3, 10, 37, 100} {
			inputs = append(inputs, ComparePlannersInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, AppIDs: apps, Planners: cmpPlanners(16), Repetitions: reps, Seed: seed})
		}
		for i, app := range apps {
			inputs = append(inputs, ComparePlannersInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, AppIDs: []string{app}, Planners: cmpPlanners(1 + i%16), Repetitions: 1 + 13*i, Seed: seed})
		}
		inputs = append(inputs, ComparePlannersInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, AppIDs: apps, Planners: []PlannerRef{
			{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"}, {ID: "candidate", Vendor: "anthropic", Model: "claude-sonnet-4"},
			{ID: "x", Vendor: "y", Model: "z"}}, Repetitions: 100, Seed: seed})
	}
	for _, in := range inputs {
		r, err := ComparePlanners(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		add(r)
		if in.Repetitions <= 10 {
			trials, err := drawModeledTrials(in)
			if err != nil {
				t.Fatal(err)
			}
			add(trials)
			o, err := CompareObservedTrials(context.Background(), CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: in.Planners, Trials: trials})
			if err != nil {
				t.Fatal(err)
			}
			add(o)
		}
	}
	const want = "b8f42521663a2a29e3db0f5e3b4162fb02725460bb533751ded65a79671eec23"
	if got := fmt.Sprintf("%x", v3.Sum(nil)); n != 135 || got != want {
		t.Errorf("%d outputs hash to %s; want 135 hashing to %s", n, got, want)
	}
}
