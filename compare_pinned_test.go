package automium

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"
)

// TestModeledBytesPinned pins the bytes of 135 outputs of the model: modeled
// reports of every size up to the largest under five seeds, the trials behind
// the smaller ones and the observed reports built from those trials.
//
// Two digests. The first is of the outputs as planner-comparison-v1 read
// them: the v2 additions (pairs, paretoPlannerIds, perPassedRun) cut out and
// the version put back. It was taken before the draw was sped up (segments, a
// shared stream per journey, quantiles by counting, planners in parallel), so
// it proves those, and v2, changed no draw and no v1 figure. A change that
// moves it is a new model version, not a speed-up, and must be documented as
// one. The second is of the v2 bytes whole, taken when v2 added the paired
// comparisons.
func TestModeledBytesPinned(t *testing.T) {
	h, v2 := sha256.New(), sha256.New()
	n := 0
	add := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		v2.Write(b)
		h.Write(asV1(b))
		n++
	}
	apps := owned().appIDs
	inputs := []ComparePlannersInput{}
	for _, seed := range []uint64{0, 1, 7, 12345, 1<<53 - 1} {
		for _, reps := range []int{0, 1, 2, 3, 10, 37, 100} {
			inputs = append(inputs, ComparePlannersInput{CorpusVersion: CorpusVersion, AppIDs: apps, Planners: cmpPlanners(16), Repetitions: reps, Seed: seed})
		}
		for i, app := range apps {
			inputs = append(inputs, ComparePlannersInput{CorpusVersion: CorpusVersion, AppIDs: []string{app}, Planners: cmpPlanners(1 + i%16), Repetitions: 1 + 13*i, Seed: seed})
		}
		inputs = append(inputs, ComparePlannersInput{CorpusVersion: CorpusVersion, AppIDs: apps, Planners: []PlannerRef{
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
			o, err := CompareObservedTrials(context.Background(), CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: in.Planners, Trials: trials})
			if err != nil {
				t.Fatal(err)
			}
			add(o)
		}
	}
	const want = "23073327c4ca7f26f2d09294c89e5e6acf9a707f4387b0d68d3f4ae2219e5e27"
	if got := fmt.Sprintf("%x", h.Sum(nil)); n != 135 || got != want {
		t.Errorf("%d outputs read as v1 hash to %s; want 135 hashing to %s", n, got, want)
	}
	const wantV2 = "c352c8d314dcdba39b20813f06990f41821fcc15b5bbd94594be9bca65936304"
	if got := fmt.Sprintf("%x", v2.Sum(nil)); got != wantV2 {
		t.Errorf("%d outputs hash to %s; want %s", n, got, wantV2)
	}
}

// perPassedRun matches the v2 token figure inside a planner's tokenSpend.
var perPassedRun = regexp.MustCompile(`,"perPassedRun":[0-9.e+-]+`)

// asV1 is a report's JSON as planner-comparison-v1 wrote it: without the
// fields v2 added, which are its last two and one in tokenSpend. Trials pass
// through unchanged.
func asV1(b []byte) []byte {
	if !bytes.HasPrefix(b, []byte(`{"reportVersion":"planner-comparison-v2"`)) {
		return b
	}
	b = bytes.Replace(b, []byte("planner-comparison-v2"), []byte("planner-comparison-v1"), 1)
	b = perPassedRun.ReplaceAll(b, nil)
	cut := bytes.LastIndex(b, []byte(`,"pairs":`))
	return append(b[:cut:cut], '}')
}
