package automium

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
)

// Corpus entries the comparison tests lean on. Two fixtures of one app and a
// second app let every cross-reference rule be exercised.
const (
	cmpApp        = "storefront"
	cmpFixture    = "storefront-guest-catalog"
	cmpFixture2   = "storefront-returning-shopper"
	cmpRefJourney = "storefront-search-add-to-cart" // runs on cmpFixture
	cmpOtherApp   = "helpdesk"
)

func cmpPlanners(n int) []PlannerRef {
	ps := make([]PlannerRef, n)
	for i := range ps {
		ps[i] = PlannerRef{ID: fmt.Sprintf("planner-%02d", i), Vendor: "vendor", Model: fmt.Sprintf("model-%d", i)}
	}
	return ps
}

func validCompareInput() ComparePlannersInput {
	return ComparePlannersInput{Rows: RowSelection{All: true},
		CorpusVersion: CorpusVersion,
		AppIDs:        []string{cmpApp, cmpOtherApp},
		Planners: []PlannerRef{
			{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"},
			{ID: "candidate", Vendor: "anthropic", Model: "claude-sonnet-4"},
		},
		Repetitions: 3,
	}
}

// cmpTrial is a passing trial of journey j by planner p on cmpApp.
func cmpTrial(p, j string, rep int) Trial {
	return Trial{PlannerID: p, AppID: cmpApp, FixtureID: cmpFixture, JourneyID: j, Repetition: rep, Passed: true, LatencyMs: 1000, InputTokens: 100, OutputTokens: 10}
}

func validObservedInput() CompareObservedTrialsInput {
	return CompareObservedTrialsInput{Rows: RowSelection{All: true},
		CorpusVersion: CorpusVersion,
		Planners:      []PlannerRef{{ID: "a", Vendor: "v", Model: "m"}, {ID: "b", Vendor: "v", Model: "m"}},
		Trials:        []Trial{cmpTrial("a", "j1", 1), cmpTrial("b", "j1", 1)},
	}
}

// errShape is the contract part of an *Error: its code and field.
type errShape struct {
	Code  Code
	Field string
}

// checkCompareError checks that err is an *Error with the wanted code, field and
// allowed values, in our words rather than the validator's.
func checkCompareError(t *testing.T, err error, want errShape, allowed []string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T (%v), want *Error", err, err)
	}
	if diff := cmp.Diff(want, errShape{e.Code, e.Field}); diff != "" {
		t.Errorf("error (-want +got):\n%s\n%v", diff, err)
	}
	if diff := cmp.Diff(allowed, e.Allowed); diff != "" {
		t.Errorf("allowed (-want +got):\n%s", diff)
	}
	if strings.Contains(e.Message, "Key:") || strings.Contains(e.Message, "Error:Field") {
		t.Errorf("message leaks validator text: %q", e.Message)
	}
}

func TestWilson95HandComputed(t *testing.T) {
	// Reference values from the closed form evaluated independently (Python,
	// float64), rounded to 6 decimals as reports are.
	tests := []struct {
		x, n         int
		lower, upper float64
	}{
		{0, 10, 0, 0.277533},
		{10, 10, 0.722467, 1},
		{5, 10, 0.236593, 0.763407},
		{1, 1, 0.206549, 1},
		{0, 1, 0, 0.793451},
		{5, 6, 0.436497, 0.969947},
		{1, 2, 0.094531, 0.905469},
		{1, 3, 0.061492, 0.79234},
		{398, 440, 0.873484, 0.928604},
	}
	for _, tt := range tests {
		ci, ok := wilson95(tt.x, tt.n)
		if !ok {
			t.Fatalf("wilson95(%d, %d) not ok", tt.x, tt.n)
		}
		got := Interval{roundReport(ci.Lower), roundReport(ci.Upper)}
		if want := (Interval{tt.lower, tt.upper}); got != want {
			t.Errorf("wilson95(%d, %d) = %+v, want %+v", tt.x, tt.n, got, want)
		}
	}
}

func TestWilson95Properties(t *testing.T) {
	for n := 1; n <= 120; n++ {
		for x := 0; x <= n; x++ {
			ci, ok := wilson95(x, n)
			p := float64(x) / float64(n)
			switch {
			case !ok:
				t.Fatalf("wilson95(%d, %d) not ok", x, n)
			case ci.Lower < 0 || ci.Upper > 1 || ci.Lower > ci.Upper:
				t.Fatalf("wilson95(%d, %d) = %+v, outside [0,1] or inverted", x, n, ci)
			case ci.Lower > p || ci.Upper < p:
				t.Fatalf("wilson95(%d, %d) = %+v does not contain p̂ = %v", x, n, ci, p)
			case x == n && ci.Upper != 1:
				t.Fatalf("wilson95(%d, %d): all pass, upper = %v, want exactly 1", x, n, ci.Upper)
			case x == 0 && ci.Lower != 0:
				t.Fatalf("wilson95(0, %d): none pass, lower = %v, want exactly 0", n, ci.Lower)
			}
		}
	}
	for _, bad := range [][2]int{{0, 0}, {1, 0}, {-1, 5}, {6, 5}} {
		if ci, ok := wilson95(bad[0], bad[1]); ok {
			t.Errorf("wilson95(%d, %d) = %+v, ok; want not ok", bad[0], bad[1], ci)
		}
	}
	if r := optionalRate(0, 0); r != nil {
		t.Errorf("optionalRate(0, 0) = %+v, want nil", r)
	}
}

// exactPassHatK is C(c,k)/C(n,k) computed with exact integers, to check the
// product form against.
func exactPassHatK(c, n, k int) float64 {
	num := new(big.Int).Binomial(int64(c), int64(k))
	den := new(big.Int).Binomial(int64(n), int64(k))
	f, _ := new(big.Rat).SetFrac(num, den).Float64()
	return f
}

func TestPassHatK(t *testing.T) {
	hand := []struct {
		c, n int
		want []float64
	}{
		{2, 3, []float64{2.0 / 3, 1.0 / 3, 0}},
		{3, 3, []float64{1, 1, 1}},
		{0, 3, []float64{0, 0, 0}},
		{4, 5, []float64{0.8, 0.6, 0.4, 0.2, 0}},
		{1, 1, []float64{1}},
	}
	for _, tt := range hand {
		got := make([]float64, tt.n)
		passHatK(got, tt.c, tt.n)
		if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b float64) bool { return math.Abs(a-b) < 1e-15 })); diff != "" {
			t.Errorf("pass^k for c=%d n=%d (-want +got):\n%s", tt.c, tt.n, diff)
		}
	}
	// Every (c, n) up to 30 runs, and the largest n, against exact integers.
	ns := append(make([]int, 0, 32), limit.MaxRepetitions-1, limit.MaxRepetitions)
	for n := 1; n <= 30; n++ {
		ns = append(ns, n)
	}
	for _, n := range ns {
		for c := 0; c <= n; c++ {
			got := make([]float64, n)
			passHatK(got, c, n)
			for k := 1; k <= n; k++ {
				if want := exactPassHatK(c, n, k); math.Abs(got[k-1]-want) > 1e-12 {
					t.Fatalf("pass^%d for c=%d n=%d = %v, want %v", k, c, n, got[k-1], want)
				}
				if k > 1 && got[k-1] > got[k-2] {
					t.Fatalf("pass^k increases at k=%d for c=%d n=%d", k, c, n)
				}
			}
		}
	}
}

func TestCompareObservedHandComputed(t *testing.T) {
	// Planner a: journey j1 passes 2 of 3 runs, j2 passes 3 of 3. Latencies
	// 100..600 ms; two runs trigger recovery and one recovers. Planner b: one
	// failing run, no recovery, so its recovery rate is absent.
	tr := func(p, j string, rep int, passed bool, ms, in, out int, trig, rec bool) Trial {
		return Trial{PlannerID: p, AppID: cmpApp, FixtureID: cmpFixture, JourneyID: j, Repetition: rep,
			Passed: passed, LatencyMs: ms, InputTokens: in, OutputTokens: out, RecoveryTriggered: trig, Recovered: rec}
	}
	in := CompareObservedTrialsInput{Rows: RowSelection{All: true},
		CorpusVersion: CorpusVersion,
		Planners:      []PlannerRef{{ID: "a", Vendor: "va", Model: "ma"}, {ID: "b", Vendor: "vb", Model: "mb"}},
		Trials: []Trial{
			tr("a", "j2", 3, true, 600, 1000, 100, false, false),
			tr("a", "j1", 1, true, 100, 1000, 100, true, true),
			tr("a", "j1", 2, true, 200, 2000, 200, false, false),
			tr("b", "j1", 1, false, 700, 500, 50, false, false),
			tr("a", "j1", 3, false, 300, 3000, 300, true, false),
			tr("a", "j2", 1, true, 400, 1000, 100, false, false),
			tr("a", "j2", 2, true, 500, 1000, 100, false, false),
		},
	}
	got, err := CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := ComparisonReport{
		ReportVersion: ComparisonReportVersion,
		CorpusVersion: CorpusVersion,
		Basis:         BasisObserved,
		Modeled:       false,
		Notice:        ObservedNotice,
		AppIDs:        []string{cmpApp},
		Repetitions:   3,
		Planners: []PlannerReport{
			{
				Planner:  PlannerRef{ID: "a", Vendor: "va", Model: "ma"},
				Trials:   6,
				Journeys: 2,
				// 5/6 with Wilson (0.436497, 0.969947).
				PassRate:             Rate{Value: 0.833333, Successes: 5, N: 6, Wilson95: Interval{0.436497, 0.969947}},
				FirstAttemptPassRate: Rate{Value: 0.833333, Successes: 5, N: 6, Wilson95: Interval{0.436497, 0.969947}},
				Repeatability: Repeatability{
					// pass^1 = (2/3 + 1)/2, pass^2 = (1/3 + 1)/2, pass^3 = (0 + 1)/2.
					PassAtK:               []PassAtK{{1, 0.833333}, {2, 0.666667}, {3, 0.5}},
					AllOutcomesAgreeShare: 0.5, // j2 agrees, j1 does not
				},
				// Sorted 100..600: median (300+400)/2; p90 at h = 5·0.9 = 4.5 is 500 + 0.5·100.
				MedianJourneyLatencyMs: 350,
				P90JourneyLatencyMs:    550,
				TokenSpend: TokenSpend{
					InputTotal: 9000, OutputTotal: 900, Total: 9900,
					MeanPerJourneyRun: 1650, MeanInputPerRun: 1500, MeanOutputPerRun: 150,
					PerPassedRun: new(1980.0), // 9900 tokens over 5 passed runs
				},
				// 1 of 2 triggered runs recovered.
				RecoverySuccessRate: &Rate{Value: 0.5, Successes: 1, N: 2, Wilson95: Interval{0.094531, 0.905469}},
				// b ran j1 only: on it a passed 2 of 3, median of 100, 200, 300, and
				// (1100 + 2200 + 3300)/3 tokens a run.
				SharedWorkload: &WorkloadFigures{Journeys: 1, Runs: 3, FirstAttemptPassRate: 0.666667, MedianJourneyLatencyMs: 200, MeanTokensPerRun: 2200},
				Apps:           []AppRollup{{AppID: cmpApp, Journeys: 2, Runs: 6, Passes: 5, FirstAttemptPasses: 5}},
				JourneyRows: []PlannerJourneyRow{
					{JourneyID: "j1", AppID: cmpApp, Runs: 3, Passes: 2, FirstAttemptPasses: 2, PassAtK: []float64{0.666667, 0.333333, 0},
						MedianLatencyMs: new(200.0), InputTokens: 6000, OutputTokens: 600, RecoveryTriggered: 2, Recovered: 1},
					{JourneyID: "j2", AppID: cmpApp, Runs: 3, Passes: 3, FirstAttemptPasses: 3, PassAtK: []float64{1, 1, 1},
						MedianLatencyMs: new(500.0), InputTokens: 3000, OutputTokens: 300},
				},
			},
			{
				Planner:              PlannerRef{ID: "b", Vendor: "vb", Model: "mb"},
				Trials:               1,
				Journeys:             1,
				PassRate:             Rate{Value: 0, Successes: 0, N: 1, Wilson95: Interval{0, 0.793451}},
				FirstAttemptPassRate: Rate{Value: 0, Successes: 0, N: 1, Wilson95: Interval{0, 0.793451}},
				Repeatability: Repeatability{
					PassAtK:               []PassAtK{{1, 0}},
					AllOutcomesAgreeShare: 1,
				},
				MedianJourneyLatencyMs: 700,
				P90JourneyLatencyMs:    700,
				TokenSpend: TokenSpend{
					InputTotal: 500, OutputTotal: 50, Total: 550,
					MeanPerJourneyRun: 550, MeanInputPerRun: 500, MeanOutputPerRun: 50,
				},
				SharedWorkload: &WorkloadFigures{Journeys: 1, Runs: 1, MedianJourneyLatencyMs: 700, MeanTokensPerRun: 550},
				Apps:           []AppRollup{{AppID: cmpApp, Journeys: 1, Runs: 1}},
				JourneyRows: []PlannerJourneyRow{{JourneyID: "j1", AppID: cmpApp, Runs: 1, PassAtK: []float64{0},
					MedianLatencyMs: new(700.0), InputTokens: 500, OutputTokens: 50}},
			},
		},
		SharedJourneys: 1,
		// One shared journey, j1: a passed 2 of 3, b 0 of 1, d = 2/3. One
		// journey has no spread to test: p = 1, the interval [−1,1], and the
		// standard error is the floor alone, √(0.6·0.4/3 + (1/3)(2/3)/1) =
		// √0.302222 = 0.549747. Fisher: the two tables the margins allow, a
		// passing 1 or 2 of 3, weigh 3 and 3, so p = 1; a's runs are mixed: flaky.
		Pairs: []PairedComparison{{
			PlannerA: "a", PlannerB: "b", Pairing: PairingJourneys, SharedJourneys: 1, JourneysOnlyA: 1,
			MeanDifference: 0.666667, StandardError: 0.549747, P: 1, HolmP: 1,
			Difference95: DifferenceInterval{-1, 1}, MinDetectableEffect80: 1, Verdict: PairIndistinguishable,
			Reason:   "too few shared journeys (1; a verdict about journeys as a sample needs at least 6, since an exact sign-flip test over G journeys cannot go below p = 2^(1−G))",
			Journeys: []PairJourneyRow{{JourneyID: "j1", ARuns: 3, APasses: 2, BRuns: 1, FisherP: 1, Flag: FlagFlaky}},
		}},
		// On j1, a passes more and is faster, b spends fewer tokens per run: neither dominates.
		ParetoPlannerIDs: []string{"a", "b"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(got.Planners[1])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("recoverySuccessRate")) {
		t.Errorf("planner without recovery has a recoverySuccessRate: %s", b)
	}
}

func TestCompareObservedUnevenRuns(t *testing.T) {
	// j1 has 4 runs (3 pass), j2 has 2 runs (1 pass): pass^k stops at k = 2, the
	// smallest run count, and pass^1 is the per-journey mean (0.75+0.5)/2, not the
	// pooled 4/6.
	in := validObservedInput()
	in.Planners = in.Planners[:1]
	in.Trials = []Trial{cmpTrial("a", "j1", 1), cmpTrial("a", "j1", 2), cmpTrial("a", "j1", 3), cmpTrial("a", "j1", 4),
		cmpTrial("a", "j2", 1), cmpTrial("a", "j2", 7)}
	in.Trials[3].Passed = false
	in.Trials[5].Passed = false
	got, err := CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	p := got.Planners[0]
	if diff := cmp.Diff([]PassAtK{{1, 0.625}, {2, 0.25}}, p.Repeatability.PassAtK); diff != "" {
		t.Errorf("passAtK (-want +got):\n%s", diff)
	}
	if p.PassRate.Value != 0.666667 || got.Repetitions != 4 {
		t.Errorf("passRate = %v, repetitions = %d; want 0.666667 and 4", p.PassRate.Value, got.Repetitions)
	}
}

// drawModeledTrials draws the trials ComparePlanners aggregates for a valid in,
// so tests and benchmarks can feed the very same trials through the observed path.
func drawModeledTrials(in ComparePlannersInput) ([]Trial, error) {
	journeys, err := modeledJourneysOf(in.AppIDs)
	if err != nil {
		return nil, err
	}
	seed := in.Seed
	if seed == 0 {
		seed = DefaultComparisonSeed
	}
	var (
		trials []Trial
		d      trialDrawer
		t      trialTally
	)
	reps := max(in.Repetitions, 1)
	for _, p := range in.Planners {
		t.reset(len(journeys), len(journeys)*reps)
		d.drawAll(seed, p, sharedTraits, journeys, reps, &t, func(tr Trial) { trials = append(trials, tr) })
	}
	return trials, nil
}

func modeledTrials(t *testing.T, in ComparePlannersInput) []Trial {
	t.Helper()
	trials, err := drawModeledTrials(in)
	if err != nil {
		t.Fatal(err)
	}
	return trials
}

func TestModeledAndObservedShareAggregation(t *testing.T) {
	in := validCompareInput()
	in.Repetitions = 5
	modeled, err := ComparePlanners(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	trials := modeledTrials(t, in)
	slices.Reverse(trials) // order must not matter
	observed, err := CompareObservedTrials(context.Background(), CompareObservedTrialsInput{Rows: RowSelection{All: true},
		CorpusVersion: CorpusVersion, Planners: in.Planners, Trials: trials,
	})
	if err != nil {
		t.Fatal(err)
	}
	if observed.Basis != BasisObserved || observed.Modeled || observed.Notice != ObservedNotice || observed.Seed != 0 {
		t.Errorf("observed header = %q %v %q %d", observed.Basis, observed.Modeled, observed.Notice, observed.Seed)
	}
	if modeled.Basis != BasisModeled || !modeled.Modeled || modeled.Notice != ModeledComparisonNotice || modeled.Seed != DefaultComparisonSeed {
		t.Errorf("modeled header = %q %v %q %d", modeled.Basis, modeled.Modeled, modeled.Notice, modeled.Seed)
	}
	observed.Basis, observed.Modeled, observed.Notice, observed.Seed = modeled.Basis, modeled.Modeled, modeled.Notice, modeled.Seed
	for i := range observed.Pairs {
		// Only the verdict, its reason and the Pareto set depend on the basis.
		observed.Pairs[i].Verdict, observed.Pairs[i].Reason = PairModeledNotEvidence, modeled.Pairs[i].Reason
	}
	if len(observed.ParetoPlannerIDs) == 0 || len(modeled.ParetoPlannerIDs) != 0 {
		t.Errorf("Pareto: observed %v, modeled %v; want some and none", observed.ParetoPlannerIDs, modeled.ParetoPlannerIDs)
	}
	observed.ParetoPlannerIDs = modeled.ParetoPlannerIDs
	if diff := cmp.Diff(modeled, observed); diff != "" {
		t.Errorf("the same trials aggregate differently (-modeled +observed):\n%s", diff)
	}
}

func TestComparePlannersProperties(t *testing.T) {
	for _, reps := range []int{1, 2, 7, 30} {
		in := ComparePlannersInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, AppIDs: owned().appIDs, Planners: cmpPlanners(6), Repetitions: reps, Seed: uint64(reps)}
		got, err := ComparePlanners(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		journeys := len(owned().ReferenceJourneys)
		for _, p := range got.Planners {
			name := fmt.Sprintf("reps=%d %s", reps, p.Planner.ID)
			pk := p.Repeatability.PassAtK
			switch {
			case p.Trials != journeys*reps || p.Journeys != journeys || p.PassRate.N != p.Trials:
				t.Errorf("%s: trials %d, journeys %d, n %d; want %d, %d", name, p.Trials, p.Journeys, p.PassRate.N, journeys*reps, journeys)
			case len(pk) != reps:
				t.Errorf("%s: %d pass^k entries, want %d", name, len(pk), reps)
			case pk[0].Value != p.PassRate.Value:
				t.Errorf("%s: pass^1 = %v, pass rate = %v; equal runs per journey make them equal", name, pk[0].Value, p.PassRate.Value)
			case p.PassRate.Wilson95.Lower > p.PassRate.Value || p.PassRate.Wilson95.Upper < p.PassRate.Value:
				t.Errorf("%s: Wilson %+v does not contain %v", name, p.PassRate.Wilson95, p.PassRate.Value)
			case p.MedianJourneyLatencyMs <= 0 || p.P90JourneyLatencyMs < p.MedianJourneyLatencyMs:
				t.Errorf("%s: median %v, p90 %v", name, p.MedianJourneyLatencyMs, p.P90JourneyLatencyMs)
			case p.TokenSpend.Total != p.TokenSpend.InputTotal+p.TokenSpend.OutputTotal || p.TokenSpend.InputTotal <= 0:
				t.Errorf("%s: token spend %+v", name, p.TokenSpend)
			case reps == 1 && p.Repeatability.AllOutcomesAgreeShare != 1:
				t.Errorf("%s: one run per journey always agrees, got %v", name, p.Repeatability.AllOutcomesAgreeShare)
			}
			for k := 1; k < len(pk); k++ {
				if pk[k].K != k+1 || pk[k].Value > pk[k-1].Value {
					t.Errorf("%s: pass^k not 1..n or increasing at %+v after %+v", name, pk[k], pk[k-1])
				}
			}
			if r := p.RecoverySuccessRate; r != nil && (r.N == 0 || r.Successes > r.N) {
				t.Errorf("%s: recovery rate %+v", name, r)
			}
		}
	}
}

func TestComparePlannersDeterministic(t *testing.T) {
	marshal := func(in ComparePlannersInput) []byte {
		t.Helper()
		r, err := ComparePlanners(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	in := validCompareInput()
	first := marshal(in)

	// Concurrent calls share the cached journey models and must not interfere.
	var wg sync.WaitGroup
	outs := make([][]byte, 8)
	for i := range outs {
		wg.Go(func() {
			r, err := ComparePlanners(context.Background(), in)
			if err == nil {
				outs[i], _ = json.Marshal(r)
			}
		})
	}
	wg.Wait()
	for i, b := range outs {
		if !bytes.Equal(first, b) {
			t.Fatalf("call %d gave different bytes:\n%s\n%s", i, first, b)
		}
	}

	reordered := validCompareInput()
	slices.Reverse(reordered.AppIDs)
	if b := marshal(reordered); !bytes.Equal(first, b) {
		t.Errorf("app order changed the report:\n%s\n%s", first, b)
	}
	explicit := validCompareInput()
	explicit.Seed = DefaultComparisonSeed
	if b := marshal(explicit); !bytes.Equal(first, b) {
		t.Errorf("seed 0 and the default seed differ")
	}
	other := validCompareInput()
	other.Seed = 7
	if bytes.Equal(first, marshal(other)) {
		t.Errorf("another seed gave the same report")
	}

	// Draws are keyed by (seed, planner, journey, repetition): another seed
	// changes the draws themselves, and adding a planner changes no other's.
	a, b := modeledTrials(t, in), modeledTrials(t, other)
	if slices.Equal(a, b) {
		t.Errorf("seed %d and %d drew identical trials", in.Seed, other.Seed)
	}
	more := validCompareInput()
	more.Planners = append([]PlannerRef{{ID: "extra", Vendor: "v", Model: "m"}}, more.Planners...)
	withExtra := modeledTrials(t, more)
	if !slices.Equal(a, withExtra[len(withExtra)-len(a):]) {
		t.Errorf("adding a planner changed another planner's draws")
	}
}

// TestComparePlannersNormalizesRepetitions: repetitions below 1 mean 1, and
// the report says what was asked; 1 to 100 is used as asked, and says nothing.
func TestComparePlannersNormalizesRepetitions(t *testing.T) {
	for _, reps := range []int{0, -1, -100, math.MinInt, 1, 3} {
		in := validCompareInput()
		in.Repetitions = reps
		got, err := ComparePlanners(context.Background(), in)
		if err != nil {
			t.Fatalf("repetitions %d: %v", reps, err)
		}
		used := max(reps, 1)
		var asked *int
		if reps != used {
			asked = &reps
		}
		if got.Repetitions != used || len(got.Planners[0].Repeatability.PassAtK) != used || !cmp.Equal(asked, got.RepetitionsRequested) {
			t.Errorf("repetitions %d: used %d with %d pass^k entries, requested %v; want %d and %v", reps, got.Repetitions, len(got.Planners[0].Repeatability.PassAtK), got.RepetitionsRequested, used, asked)
		}
	}
}

func TestComparePlannersValidation(t *testing.T) {
	tooMany := func(n int) []string {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = cmpApp
		}
		return ids
	}
	tests := []struct {
		name    string
		mutate  func(*ComparePlannersInput)
		want    errShape
		allowed []string
	}{
		{"corpus version missing", func(in *ComparePlannersInput) { in.CorpusVersion = "" }, errShape{CodeInvalidArgument, "corpusVersion"}, SupportedCorpusVersions()},
		{"corpus version unsupported", func(in *ComparePlannersInput) { in.CorpusVersion = "owned-corpus-1999.01" }, errShape{CodeUnsupportedCorpusVersion, "corpusVersion"}, SupportedCorpusVersions()},
		{"app IDs missing", func(in *ComparePlannersInput) { in.AppIDs = nil }, errShape{CodeInvalidArgument, "appIds"}, owned().appIDs},
		{"app IDs empty", func(in *ComparePlannersInput) { in.AppIDs = []string{} }, errShape{CodeInvalidArgument, "appIds"}, nil},
		{"too many app IDs", func(in *ComparePlannersInput) { in.AppIDs = tooMany(limit.MaxAppIDs + 1) }, errShape{CodeLimitExceeded, "appIds"}, nil},
		{"unauthorized app", func(in *ComparePlannersInput) { in.AppIDs = []string{cmpApp, "example.com"} }, errShape{CodeInvalidAppID, "appIds[1]"}, owned().appIDs},
		{"empty app ID", func(in *ComparePlannersInput) { in.AppIDs = []string{""} }, errShape{CodeInvalidAppID, "appIds[0]"}, owned().appIDs},
		{"duplicate app", func(in *ComparePlannersInput) { in.AppIDs = []string{cmpApp, cmpOtherApp, cmpApp} }, errShape{CodeInvalidArgument, "appIds[2]"}, nil},
		{"planners missing", func(in *ComparePlannersInput) { in.Planners = nil }, errShape{CodeInvalidArgument, "planners"}, nil},
		{"planners empty", func(in *ComparePlannersInput) { in.Planners = []PlannerRef{} }, errShape{CodeInvalidArgument, "planners"}, nil},
		{"too many planners", func(in *ComparePlannersInput) { in.Planners = cmpPlanners(limit.MaxPlanners + 1) }, errShape{CodeLimitExceeded, "planners"}, nil},
		{"planner without vendor", func(in *ComparePlannersInput) { in.Planners[1].Vendor = "" }, errShape{CodeMalformedPlanner, "planners[1].vendor"}, nil},
		{"planner without id", func(in *ComparePlannersInput) { in.Planners[0].ID = "" }, errShape{CodeMalformedPlanner, "planners[0].id"}, nil},
		{"planner without vendor and model", func(in *ComparePlannersInput) { in.Planners[1] = PlannerRef{ID: "x"} }, errShape{CodeMalformedPlanner, "planners[1]"}, nil},
		{"planner of blanks", func(in *ComparePlannersInput) { in.Planners[0].Model = "  " }, errShape{CodeMalformedPlanner, "planners[0].model"}, nil},
		{"planner with control character", func(in *ComparePlannersInput) { in.Planners[1].Model = "gpt\n4" }, errShape{CodeMalformedPlanner, "planners[1].model"}, nil},
		{"planner ID too long", func(in *ComparePlannersInput) { in.Planners[0].ID = strings.Repeat("p", limit.MaxIDLength+1) }, errShape{CodeLimitExceeded, "planners[0].id"}, nil},
		{"duplicate planner ID", func(in *ComparePlannersInput) { in.Planners[1].ID = in.Planners[0].ID }, errShape{CodeInvalidArgument, "planners[1].id"}, nil},
		{"too many repetitions", func(in *ComparePlannersInput) { in.Repetitions = limit.MaxRepetitions + 1 }, errShape{CodeLimitExceeded, "repetitions"}, nil},
		{"seed too large", func(in *ComparePlannersInput) { in.Seed = limit.MaxSeed + 1 }, errShape{CodeLimitExceeded, "seed"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validCompareInput()
			tt.mutate(&in)
			_, err := ComparePlanners(context.Background(), in)
			checkCompareError(t, err, tt.want, tt.allowed)
		})
	}
	t.Run("at the limits", func(t *testing.T) {
		in := validCompareInput()
		in.AppIDs = owned().appIDs
		in.Planners = cmpPlanners(limit.MaxPlanners)
		in.Repetitions = limit.MaxRepetitions
		in.Seed = limit.MaxSeed
		if _, err := ComparePlanners(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	})
}

func TestCompareObservedTrialsValidation(t *testing.T) {
	trial := func(i int, f func(*Trial)) func(*CompareObservedTrialsInput) {
		return func(in *CompareObservedTrialsInput) { f(&in.Trials[i]) }
	}
	tests := []struct {
		name    string
		mutate  func(*CompareObservedTrialsInput)
		want    errShape
		allowed []string
	}{
		{"corpus version missing", func(in *CompareObservedTrialsInput) { in.CorpusVersion = "" }, errShape{CodeInvalidArgument, "corpusVersion"}, SupportedCorpusVersions()},
		{"corpus version unsupported", func(in *CompareObservedTrialsInput) { in.CorpusVersion = "v0" }, errShape{CodeUnsupportedCorpusVersion, "corpusVersion"}, SupportedCorpusVersions()},
		{"planners missing", func(in *CompareObservedTrialsInput) { in.Planners = nil }, errShape{CodeInvalidArgument, "planners"}, nil},
		{"too many planners", func(in *CompareObservedTrialsInput) { in.Planners = cmpPlanners(limit.MaxPlanners + 1) }, errShape{CodeLimitExceeded, "planners"}, nil},
		{"malformed planner", func(in *CompareObservedTrialsInput) { in.Planners[1].Model = "" }, errShape{CodeMalformedPlanner, "planners[1].model"}, nil},
		{"duplicate planner", func(in *CompareObservedTrialsInput) { in.Planners[1] = in.Planners[0] }, errShape{CodeInvalidArgument, "planners[1].id"}, nil},
		{"planner without trials", func(in *CompareObservedTrialsInput) { in.Trials[1].PlannerID = "a"; in.Trials[1].Repetition = 2 }, errShape{CodeInvalidArgument, "planners[1]"}, nil},
		{"trials missing", func(in *CompareObservedTrialsInput) { in.Trials = nil }, errShape{CodeInvalidArgument, "trials"}, nil},
		{"trials empty", func(in *CompareObservedTrialsInput) { in.Trials = []Trial{} }, errShape{CodeInvalidArgument, "trials"}, nil},
		{"too many trials", func(in *CompareObservedTrialsInput) { in.Trials = make([]Trial, limit.MaxObservedTrials+1) }, errShape{CodeLimitExceeded, "trials"}, nil},
		{"planner ID missing", trial(1, func(tr *Trial) { tr.PlannerID = "" }), errShape{CodeInvalidArgument, "trials[1].plannerId"}, nil},
		{"unknown planner", trial(1, func(tr *Trial) { tr.PlannerID = "c" }), errShape{CodeInvalidArgument, "trials[1].plannerId"}, []string{"a", "b"}},
		{"app missing", trial(0, func(tr *Trial) { tr.AppID = "" }), errShape{CodeInvalidArgument, "trials[0].appId"}, owned().appIDs},
		{"unauthorized app", trial(0, func(tr *Trial) { tr.AppID = "prod-site" }), errShape{CodeInvalidAppID, "trials[0].appId"}, owned().appIDs},
		{"unknown fixture", trial(0, func(tr *Trial) { tr.FixtureID = "nope" }), errShape{CodeInvalidFixtureID, "trials[0].fixtureId"}, appFixtureIDs(cmpApp)},
		{"fixture of another app", trial(1, func(tr *Trial) { tr.AppID = cmpOtherApp }), errShape{CodeFixtureAppMismatch, "trials[1].fixtureId"}, appFixtureIDs(cmpOtherApp)},
		{"journey ID missing", trial(0, func(tr *Trial) { tr.JourneyID = "" }), errShape{CodeInvalidArgument, "trials[0].journeyId"}, nil},
		{"journey ID not a slug", trial(0, func(tr *Trial) { tr.JourneyID = "../Journey 1" }), errShape{CodeInvalidArgument, "trials[0].journeyId"}, nil},
		{"reference journey on the wrong fixture", func(in *CompareObservedTrialsInput) {
			in.Trials[0].JourneyID, in.Trials[1].JourneyID = cmpRefJourney, cmpRefJourney
			in.Trials[1].FixtureID = cmpFixture2
		}, errShape{CodeFixtureAppMismatch, "trials[1].journeyId"}, nil},
		{"journey on two fixtures", trial(1, func(tr *Trial) { tr.FixtureID = cmpFixture2 }), errShape{CodeInvalidArgument, "trials[1].journeyId"}, nil},
		{"repetition missing", trial(0, func(tr *Trial) { tr.Repetition = 0 }), errShape{CodeInvalidArgument, "trials[0].repetition"}, nil},
		{"repetition negative", trial(0, func(tr *Trial) { tr.Repetition = -2 }), errShape{CodeInvalidArgument, "trials[0].repetition"}, nil},
		{"repetition too large", trial(0, func(tr *Trial) { tr.Repetition = limit.MaxRepetitions + 1 }), errShape{CodeLimitExceeded, "trials[0].repetition"}, nil},
		{"duplicate run", func(in *CompareObservedTrialsInput) {
			in.Trials[1].PlannerID = "a"
			in.Trials = append(in.Trials, cmpTrial("b", "j1", 1))
		}, errShape{CodeInvalidArgument, "trials[1].repetition"}, nil},
		{"negative latency", trial(0, func(tr *Trial) { tr.LatencyMs = -1 }), errShape{CodeInvalidArgument, "trials[0].latencyMs"}, nil},
		{"latency too large", trial(0, func(tr *Trial) { tr.LatencyMs = limit.MaxTrialLatencyMs + 1 }), errShape{CodeLimitExceeded, "trials[0].latencyMs"}, nil},
		{"negative input tokens", trial(1, func(tr *Trial) { tr.InputTokens = -5 }), errShape{CodeInvalidArgument, "trials[1].inputTokens"}, nil},
		{"too many output tokens", trial(1, func(tr *Trial) { tr.OutputTokens = limit.MaxTrialTokens + 1 }), errShape{CodeLimitExceeded, "trials[1].outputTokens"}, nil},
		{"recovered without recovery", trial(0, func(tr *Trial) { tr.Recovered = true }), errShape{CodeInvalidArgument, "trials[0].recovered"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validObservedInput()
			tt.mutate(&in)
			_, err := CompareObservedTrials(context.Background(), in)
			checkCompareError(t, err, tt.want, tt.allowed)
		})
	}
	t.Run("valid", func(t *testing.T) {
		in := validObservedInput()
		in.Trials[1].RecoveryTriggered, in.Trials[1].Recovered = true, true
		if _, err := CompareObservedTrials(context.Background(), in); err != nil {
			t.Fatal(err)
		}
	})
}

func TestCompareCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ComparePlanners(ctx, validCompareInput()); !errors.Is(err, context.Canceled) {
		t.Errorf("ComparePlanners: got %v, want context.Canceled", err)
	}
	if _, err := CompareObservedTrials(ctx, validObservedInput()); !errors.Is(err, context.Canceled) {
		t.Errorf("CompareObservedTrials: got %v, want context.Canceled", err)
	}
}

// TestModelResponds checks that the model moves the way its documentation says:
// a larger retry budget raises pass and recovery rates, harder intents lower the
// pass rate, and longer journeys cost more time and tokens.
func TestModelResponds(t *testing.T) {
	planner := PlannerRef{ID: "p", Vendor: "v", Model: "m"}
	traits := sharedTraits
	type outcome struct {
		pass, recovered float64
		ms, tokens      float64
	}
	run := func(m *modeledJourney) outcome {
		m.prepare()
		var o stepOdds
		o.set(m, traits)
		var k trialKeyer
		const n = 4000
		var out outcome
		triggered := 0
		stream := fillStream(nil, k.streamBase(1, planner.ID, m.id), n+m.maxDraws)
		var tally trialTally
		tally.reset(1, n)
		m.drawReps(&o, traits, stream, n, 0, &tally, func(_ int, tr trialOutcome) {
			if tr.passed {
				out.pass++
			}
			if tr.recoveryTriggered {
				triggered++
				if tr.recovered {
					out.recovered++
				}
			}
			out.ms += float64(tr.latencyMs)
			out.tokens += float64(tr.inputTokens + tr.outputTokens)
		})
		out.pass /= n
		out.recovered /= float64(max(triggered, 1))
		out.ms /= n
		out.tokens /= n
		return out
	}
	clicks := func(n int) []float64 { return slices.Repeat([]float64{intentWeights["click"]}, n) }
	noRetry := run(&modeledJourney{id: "j", weights: clicks(6), assertions: 1, maxRetries: 0, strategies: 0})
	retries := run(&modeledJourney{id: "j", weights: clicks(6), assertions: 1, maxRetries: 3, strategies: 1})
	hard := run(&modeledJourney{id: "j", weights: slices.Repeat([]float64{intentWeights["drag_drop"]}, 6), assertions: 1, maxRetries: 0})
	long := run(&modeledJourney{id: "j", weights: clicks(12), assertions: 1, maxRetries: 0})
	if retries.pass <= noRetry.pass || retries.recovered <= noRetry.recovered {
		t.Errorf("retries did not help: %+v vs %+v", retries, noRetry)
	}
	if noRetry.recovered != 0 {
		t.Errorf("without a retry budget nothing recovers, got %v", noRetry.recovered)
	}
	if hard.pass >= noRetry.pass {
		t.Errorf("drag_drop journeys pass as often as click journeys: %v vs %v", hard.pass, noRetry.pass)
	}
	if long.ms <= noRetry.ms || long.tokens <= noRetry.tokens {
		t.Errorf("a longer journey is not costlier: %+v vs %+v", long, noRetry)
	}
	for _, w := range intentWeights {
		if w <= 0 {
			t.Errorf("intent weight %v is not positive", w)
		}
	}
	for _, name := range Intents() {
		if _, ok := intentWeights[name]; !ok {
			t.Errorf("intent %s has no weight in the model", name)
		}
	}
}

// TestModeledNamesSeedNothingSystematic: every planner draws with the shared
// traits, and a planner's vendor and model seed nothing at all, so renaming a
// model changes no figure; its ID seeds only the noise.
func TestModeledNamesSeedNothingSystematic(t *testing.T) {
	in := validCompareInput()
	a, err := ComparePlanners(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	in.Planners[0].Vendor, in.Planners[0].Model = "anthropic", "claude-sonnet-4"
	b, err := ComparePlanners(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	b.Planners[0].Planner = a.Planners[0].Planner
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("renaming a model changed the report (-before +after):\n%s", diff)
	}
	if want := (plannerTraits{lambda: 0.15, rho: 0.875, speed: 1, verbosity: 1}); sharedTraits != want {
		t.Errorf("shared traits %+v; documented %+v", sharedTraits, want)
	}
}

// TestCompareTagsMatchLimits keeps the bounds in validate tags (which schemas
// advertise), named or literal, equal to the exported limits (which the code
// checks).
func TestCompareTagsMatchLimits(t *testing.T) {
	tests := []struct {
		typ   any
		field string
		limit int
	}{
		{ComparePlannersInput{}, "AppIDs", limit.MaxAppIDs},
		{ComparePlannersInput{}, "Planners", limit.MaxPlanners},
		{ComparePlannersInput{}, "Repetitions", limit.MaxRepetitions},
		{ComparePlannersInput{}, "Seed", limit.MaxSeed},
		{CompareObservedTrialsInput{}, "Planners", limit.MaxPlanners},
		{CompareObservedTrialsInput{}, "Trials", limit.MaxObservedTrials},
		{Trial{}, "PlannerID", limit.MaxIDLength},
		{Trial{}, "JourneyID", limit.MaxIDLength},
		{Trial{}, "Repetition", limit.MaxRepetitions},
		{Trial{}, "LatencyMs", limit.MaxTrialLatencyMs},
		{Trial{}, "InputTokens", limit.MaxTrialTokens},
		{Trial{}, "OutputTokens", limit.MaxTrialTokens},
	}
	for _, tt := range tests {
		f, ok := reflect.TypeOf(tt.typ).FieldByName(tt.field)
		if !ok {
			t.Fatalf("%T has no field %s", tt.typ, tt.field)
		}
		var got string
		for _, rule := range strings.Split(f.Tag.Get("validate"), ",") {
			if r, ok := limitTag(rule); ok {
				got = r.param
				break
			}
			if v, ok := strings.CutPrefix(rule, "max="); ok {
				got = v
				break
			}
		}
		if got != strconv.Itoa(tt.limit) {
			t.Errorf("%T.%s: validate max=%s, limit is %d", tt.typ, tt.field, got, tt.limit)
		}
	}
}

// TestCompareRequiredMeansTheSame checks that a field is required in JSON (no
// omitempty) exactly when its validate tag requires it.
func TestCompareRequiredMeansTheSame(t *testing.T) {
	for _, v := range []any{ComparePlannersInput{}, CompareObservedTrialsInput{}, Trial{}, PlannerRef{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Tag.Get("json") == "-" {
				continue // Go only, never on the wire
			}
			_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			optional := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
			required := slices.Contains(strings.Split(f.Tag.Get("validate"), ","), "required")
			if optional == required {
				t.Errorf("%s.%s: json optional=%v but validate required=%v", typ.Name(), f.Name, optional, required)
			}
			if f.Tag.Get("jsonschema") == "" {
				t.Errorf("%s.%s has no jsonschema description", typ.Name(), f.Name)
			}
		}
	}
}

// TestCompareSchemas checks what an MCP client is told about the inputs: the
// required fields, that appIds must be distinct, and that repetitions has a cap
// but no minimum (it is normalized instead).
func TestCompareSchemas(t *testing.T) {
	type prop struct {
		Minimum     *float64 `json:"minimum"`
		Maximum     *float64 `json:"maximum"`
		MaxItems    *int     `json:"maxItems"`
		UniqueItems bool     `json:"uniqueItems"`
	}
	type schema struct {
		Required   []string        `json:"required"`
		Properties map[string]prop `json:"properties"`
	}
	load := func(typ reflect.Type) schema {
		t.Helper()
		raw, err := jsonSchema(typ)
		if err != nil {
			t.Fatalf("%v: %v", typ, err)
		}
		var s schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	in := load(reflect.TypeFor[ComparePlannersInput]())
	if diff := cmp.Diff([]string{"corpusVersion", "appIds", "planners"}, in.Required); diff != "" {
		t.Errorf("ComparePlannersInput required (-want +got):\n%s", diff)
	}
	if p := in.Properties["appIds"]; !p.UniqueItems || p.MaxItems == nil || *p.MaxItems != limit.MaxAppIDs {
		t.Errorf("appIds schema = %+v, want uniqueItems and maxItems %d", p, limit.MaxAppIDs)
	}
	// Below 1 is normalized to 1, not refused: the schema has no minimum.
	if p := in.Properties["repetitions"]; p.Minimum != nil || p.Maximum == nil || *p.Maximum != limit.MaxRepetitions {
		t.Errorf("repetitions schema = %+v, want no minimum and maximum %d", p, limit.MaxRepetitions)
	}
	obs := load(reflect.TypeFor[CompareObservedTrialsInput]())
	if diff := cmp.Diff([]string{"corpusVersion", "planners"}, obs.Required); diff != "" {
		t.Errorf("CompareObservedTrialsInput required (-want +got):\n%s", diff)
	}
	load(reflect.TypeFor[ComparisonReport]())
}

// fuzzCompareErr fails unless err is nil or an *Error with a code and a message.
func fuzzCompareErr(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var e *Error
	if !errors.As(err, &e) || e.Code == "" || e.Message == "" {
		t.Fatalf("error %T %v is not a complete *Error", err, err)
	}
	if e.Code == CodeInternal {
		t.Fatalf("internal error for caller input: %v", err)
	}
}

func FuzzComparePlanners(f *testing.F) {
	for _, in := range []ComparePlannersInput{validCompareInput(), {}, {CorpusVersion: CorpusVersion, AppIDs: []string{cmpApp}, Planners: []PlannerRef{{ID: "a"}}, Repetitions: -4}} {
		b, _ := json.Marshal(in)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in ComparePlannersInput
		if json.Unmarshal(data, &in) != nil {
			return
		}
		r, err := ComparePlanners(context.Background(), in)
		fuzzCompareErr(t, err)
		if err == nil && (len(r.Planners) != len(in.Planners) || !r.Modeled) {
			t.Fatalf("report has %d planners for %d inputs", len(r.Planners), len(in.Planners))
		}
	})
}

func FuzzCompareObservedTrials(f *testing.F) {
	for _, in := range []CompareObservedTrialsInput{validObservedInput(), {}} {
		b, _ := json.Marshal(in)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in CompareObservedTrialsInput
		if json.Unmarshal(data, &in) != nil {
			return
		}
		r, err := CompareObservedTrials(context.Background(), in)
		fuzzCompareErr(t, err)
		if err == nil {
			n := 0
			for _, p := range r.Planners {
				n += p.Trials
			}
			if n != len(in.Trials) {
				t.Fatalf("report counts %d trials, input has %d", n, len(in.Trials))
			}
		}
	})
}

// TestAnonymousPlannerHidesNoTrial: a planner without a usable ID (missing,
// blank, or not an object, which the MCP walker leaves zero) may be the one a
// trial or an assumed rate names, so its own problem is the one reported, not
// "not one of the input's planners" with an empty or blank allowed list; a
// trial naming an ID no planner has is still reported while every planner has
// one, with the named IDs allowed.
func TestAnonymousPlannerHidesNoTrial(t *testing.T) {
	raw, err := os.ReadFile("e2e/calls.json")
	if err != nil {
		t.Fatal(err)
	}
	var calls struct {
		Tools map[string]struct {
			Good json.RawMessage `json:"good"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &calls); err != nil {
		t.Fatal(err)
	}
	baseline := PlannerRef{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"}
	type want struct {
		Field   string
		Allowed []string
	}
	fields := func(err error) []want {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("want *Error, got %v", err)
		}
		var out []want
		for _, p := range e.Problems() {
			out = append(out, want{p.Field, p.Allowed})
		}
		return out
	}
	t.Run("observed trials", func(t *testing.T) {
		for _, tt := range []struct {
			name     string
			planners []PlannerRef
			want     []want
		}{
			{"a zero planner (not an object over MCP)", []PlannerRef{{}},
				[]want{{Field: "planners[0]"}}},
			{"a blank ID", []PlannerRef{{ID: "  ", Vendor: "a", Model: "b"}, {ID: "challenger", Vendor: "a", Model: "b"}},
				[]want{{Field: "planners[0].id"}}},
			{"every planner named, one trial's missing", []PlannerRef{baseline},
				[]want{{"trials[2].plannerId", []string{"baseline"}}, {"trials[3].plannerId", []string{"baseline"}}}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				var in CompareObservedTrialsInput
				if err := json.Unmarshal(calls.Tools["automium_compare_observed_trials"].Good, &in); err != nil {
					t.Fatal(err)
				}
				in.Planners = tt.planners
				_, err := CompareObservedTrials(context.Background(), in)
				if diff := cmp.Diff(tt.want, fields(err)); diff != "" {
					t.Errorf("problems (-want +got):\n%s", diff)
				}
			})
		}
	})
	t.Run("assumed rates", func(t *testing.T) {
		for _, tt := range []struct {
			name     string
			planners []PlannerRef
			rate     string
			want     []want
		}{
			{"a zero planner", []PlannerRef{{}}, "baseline", []want{{Field: "planners[0]"}}},
			{"every planner named, the rate's missing", []PlannerRef{baseline}, "nope",
				[]want{{Field: "assumedPassRates"}, {"assumedPassRates[0].plannerId", []string{"baseline"}}}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				var in ComparePlannersInput
				if err := json.Unmarshal(calls.Tools["automium_compare_planners"].Good, &in); err != nil {
					t.Fatal(err)
				}
				in.Planners = tt.planners
				in.AssumedPassRates = []AssumedPassRate{{PlannerID: tt.rate, FirstAttemptPassPercent: 50}}
				_, err := ComparePlanners(context.Background(), in)
				if diff := cmp.Diff(tt.want, fields(err)); diff != "" {
					t.Errorf("problems (-want +got):\n%s", diff)
				}
			})
		}
	})
	t.Run("reports", func(t *testing.T) {
		// compare_reports advertises its planners as the planner of
		// create_run_submission, and checks them as every comparison does.
		type coded struct{ Code, Field string }
		for _, tt := range []struct {
			name     string
			planners []PlannerRef
			want     []coded
		}{
			{"a zero planner", []PlannerRef{{}}, []coded{{"malformed_planner", "planners[0]"}}},
			{"a blank ID", []PlannerRef{{ID: " ", Vendor: "a", Model: "b"}}, []coded{{"malformed_planner", "planners[0].id"}}},
			{"a line break in an ID, before the reports are read",
				[]PlannerRef{{ID: "base\nline", Vendor: "a", Model: "b"}, {ID: "challenger", Vendor: "a", Model: "b"}},
				[]coded{{"malformed_planner", "planners[0].id"}}},
			{"an ID twice", []PlannerRef{baseline, baseline}, []coded{{"invalid_argument", "planners[1].id"}}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				var in CompareReportsInput
				if err := json.Unmarshal(calls.Tools["automium_compare_reports"].Good, &in); err != nil {
					t.Fatal(err)
				}
				in.Planners = tt.planners
				_, err := CompareReports(context.Background(), in)
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("want *Error, got %v", err)
				}
				var got []coded
				for _, p := range e.Problems() {
					got = append(got, coded{string(p.Code), p.Field})
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("problems (-want +got):\n%s", diff)
				}
			})
		}
	})
}

// TestModelPlannersWorkers holds the reports of a comparison spread over any
// number of goroutines to those of one goroutine: the planners' reports are
// independent and land in their own places, whatever the scheduling. Run it
// with -race and -count to shake the scheduling.
func TestModelPlannersWorkers(t *testing.T) {
	journeys, err := modeledJourneysOf(owned().appIDs)
	if err != nil {
		t.Fatal(err)
	}
	planners := cmpPlanners(limit.MaxPlanners)
	model := func(workers int) []PlannerReport {
		t.Helper()
		reports := make([]PlannerReport, len(planners))
		if err := modelPlanners(context.Background(), workers, DefaultComparisonSeed, planners, journeys, 7, modeledJourneyInfo(journeys), reports, nil, nil); err != nil {
			t.Fatal(err)
		}
		return reports
	}
	want := model(1)
	for _, workers := range []int{0, 2, 3, limit.MaxPlanners, limit.MaxPlanners + 5} {
		if diff := cmp.Diff(want, model(workers)); diff != "" {
			t.Errorf("%d workers (-want +got):\n%s", workers, diff)
		}
	}
}

// cancelAfter is a context whose Err turns to Canceled after its first n calls.
type cancelAfter struct {
	context.Context
	n atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestModelPlannersCanceledMidway cancels a comparison while its goroutines
// draw: every goroutine checks the context before each planner, so the call
// stops with the canceled error after a few planners instead of finishing.
func TestModelPlannersCanceledMidway(t *testing.T) {
	journeys, err := modeledJourneysOf(owned().appIDs)
	if err != nil {
		t.Fatal(err)
	}
	planners := cmpPlanners(limit.MaxPlanners)
	for _, workers := range []int{1, 2, 4} {
		ctx := &cancelAfter{Context: context.Background()}
		ctx.n.Store(3)
		reports := make([]PlannerReport, len(planners))
		err := modelPlanners(ctx, workers, DefaultComparisonSeed, planners, journeys, 3, modeledJourneyInfo(journeys), reports, nil, nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%d workers: got %v, want context.Canceled", workers, err)
		}
		done := 0
		for _, r := range reports {
			if r.Trials > 0 {
				done++
			}
		}
		if done != 3 {
			t.Errorf("%d workers: %d planners were drawn after the context was canceled at the fourth check; want 3", workers, done)
		}
	}
}

// TestModelPlannersPanicReachesTheCaller makes every goroutine of a comparison
// panic (a missing journey model) and checks the panic is raised on the calling
// goroutine, where a caller's recovery can catch it, instead of ending the
// process from a helper goroutine.
func TestModelPlannersPanicReachesTheCaller(t *testing.T) {
	planners := cmpPlanners(limit.MaxPlanners)
	for _, workers := range []int{1, 2, 4} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%d workers: no panic reached the caller", workers)
				}
			}()
			reports := make([]PlannerReport, len(planners))
			_ = modelPlanners(context.Background(), workers, DefaultComparisonSeed, planners, []*modeledJourney{nil}, 3, &journeyInfo{}, reports, nil, nil)
		}()
	}
}

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
	t.Parallel() // pure computation: it overlaps the rest
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

// The model as it was drawn trial by trial before the draw was sped up, kept as
// the reference the fast draw must match bit for bit (TestDrawMatchesReference).
// Only the names differ (and the stride is spelled out), it also returns its
// sums after the steps, before any assertion, and every product is rounded
// before it is added (float64(…)), as amd64 computed it: so the reference is
// the same on every platform (TestNoFusedMultiplyAdd).

type splitMix64 struct{ state uint64 }

func (s *splitMix64) float() float64 {
	s.state += 0x9E3779B97F4A7C15
	z := s.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return unitFloat(z ^ (z >> 31))
}

// The step probabilities did not change with the draw, so the reference uses
// stepOdds as the fast draw does.

func referenceDraw(m *modeledJourney, o *stepOdds, id string, p plannerTraits, base uint64, r int) (Trial, trialSums) {
	rng := splitMix64{state: base + uint64(r)*0x9E3779B97F4A7C15}
	jitterTime := 0.8 + float64(0.4*rng.float())
	jitterTokens := 0.9 + float64(0.2*rng.float())
	strategies := float64(m.strategies)
	var ms, in, out float64
	triggered, reached := false, true
	for i, w := range m.weights {
		ms += float64(stepMsPerWeight * w)
		in += stepInputTokens + float64(stepInputPerWeight*w)
		out += stepOutputTokens + float64(stepOutputPerWeight*w)
		if rng.float() < o.step[i] {
			continue
		}
		triggered = true
		ok := false
		for range m.maxRetries {
			ms += float64(recoveryMsPerStrategy*strategies) + float64(stepMsPerWeight*w)
			in += float64(recoveryInputPerStrat*strategies) + stepInputTokens + float64(stepInputPerWeight*w)
			out += recoveryOutputTokens + stepOutputTokens + float64(stepOutputPerWeight*w)
			if rng.float() < o.retry[i] {
				ok = true
				break
			}
		}
		if !ok {
			reached = false
			break
		}
	}
	afterSteps := trialSums{ms: ms, in: in, out: out}
	passed := reached
	if reached {
		for range m.assertions {
			ms += assertionMs
			if rng.float() >= o.assertion {
				passed = false
				break
			}
		}
	}
	return Trial{
		PlannerID:         id,
		AppID:             m.appID,
		FixtureID:         m.fixtureID,
		JourneyID:         m.id,
		Repetition:        r,
		Passed:            passed,
		LatencyMs:         int(math.Round(p.speed * jitterTime * ms)),
		InputTokens:       int(math.Round(p.verbosity * jitterTokens * in)),
		OutputTokens:      int(math.Round(p.verbosity * jitterTokens * out)),
		RecoveryTriggered: triggered,
		Recovered:         triggered && reached,
	}, afterSteps
}

// TestDrawMatchesReference holds the segmented draw to the step-by-step
// reference, bit for bit: every trial's outcome and its raw sums after the steps
// (compared as IEEE bits, not within a tolerance). It covers every reference
// journey under many seeds and planners, and made-up journeys and traits that
// fail often and deeply: long journeys, retry budgets from 0 to 5, planners
// that fail most steps and rarely recover, so that walks below the last level
// of segments, exhausted retries at every step and journeys that recover on
// their last step all occur.
func TestDrawMatchesReference(t *testing.T) {
	journeys, err := modeledJourneysOf(owned().appIDs)
	if err != nil {
		t.Fatal(err)
	}
	intents := slices.Sorted(maps.Keys(intentWeights))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 31, 100} {
		for retries := range 6 {
			m := &modeledJourney{id: fmt.Sprintf("made-up-%d-%d", n, retries), appID: "a", fixtureID: "f",
				assertions: (n + retries) % 4, maxRetries: retries, strategies: (n * retries) % 5}
			for i := range n {
				m.weights = append(m.weights, intentWeights[intents[(7*i+n+retries)%len(intents)]])
			}
			m.prepare()
			journeys = append(journeys, m)
		}
	}
	traits := []plannerTraits{sharedTraits}
	for _, lambda := range []float64{0, 0.05, 0.3, 0.9, 2.5} {
		for _, rho := range []float64{0, 0.3, 0.7, 1} {
			traits = append(traits, plannerTraits{lambda: lambda, rho: rho, speed: 0.7 + lambda/4, verbosity: 1.3 - rho/2})
		}
	}
	var (
		o      stepOdds
		keyer  trialKeyer
		tally  trialTally
		stream []float64
		count  int
	)
	const reps = 60
	stopped := map[string]int{} // how the trials ended, to show the cases occurred
	for _, seed := range []uint64{1, DefaultComparisonSeed, 1<<53 - 1} {
		for pi, p := range traits {
			id := fmt.Sprintf("planner-%d", pi)
			for _, m := range journeys {
				o.set(m, p)
				base := keyer.streamBase(seed, id, m.id)
				stream = fillStream(stream, base, reps+m.maxDraws)
				var got []Trial
				tally.reset(1, reps)
				m.drawReps(&o, p, stream, reps, 0, &tally, func(r int, o trialOutcome) { got = append(got, m.trial(id, r, o)) })
				for r := 1; r <= reps; r++ {
					want, wantSums := referenceDraw(m, &o, id, p, base, r)
					if got[r-1] != want {
						t.Fatalf("seed %d, %s, %s, repetition %d (-want +got):\n%s", seed, id, m.id, r, cmp.Diff(want, got[r-1]))
					}
					gotSums, _, _, _ := m.walk(stream[r+2:], &o)
					if sumBits(gotSums) != sumBits(wantSums) {
						t.Fatalf("seed %d, %s, %s, repetition %d: sums after the steps (-want +got):\n%s",
							seed, id, m.id, r, cmp.Diff(sumBits(wantSums), sumBits(gotSums)))
					}
					count++
					switch {
					case !want.RecoveryTriggered:
						stopped["no failure"]++
					case want.Recovered:
						stopped["recovered"]++
					default:
						stopped["failed"]++
					}
				}
			}
		}
	}
	t.Logf("%d trials: %v", count, stopped)
	for _, c := range []string{"no failure", "recovered", "failed"} {
		if stopped[c] < 1000 {
			t.Errorf("only %d trials ended %s", stopped[c], c)
		}
	}
}

func sumBits(s trialSums) [3]uint64 {
	return [3]uint64{math.Float64bits(s.ms), math.Float64bits(s.in), math.Float64bits(s.out)}
}

// The cost of a comparison grows with the number of trials, planners × journeys ×
// repetitions. These sizes hold planners and apps at the full corpus scale and
// vary repetitions by factors of ten, so ns/trial staying flat shows the growth is
// linear. The largest is the documented goal: 16 planners × all corpus apps × 100
// repetitions in under 50 ms. See docs/benchmarks.md for the figures.
var compareBenchSizes = []struct{ planners, reps int }{
	{16, 1},
	{16, 10},
	{16, 100},
	{2, 100},
}

func BenchmarkComparePlanners(b *testing.B) {
	for _, size := range compareBenchSizes {
		in := ComparePlannersInput{Rows: RowSelection{All: true},
			CorpusVersion: CorpusVersion,
			AppIDs:        owned().appIDs,
			Planners:      cmpPlanners(size.planners),
			Repetitions:   size.reps,
		}
		trials := size.planners * len(owned().ReferenceJourneys) * size.reps
		name := fmt.Sprintf("planners=%d/apps=%d/reps=%d/trials=%d", size.planners, len(owned().appIDs), size.reps, trials)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ComparePlanners(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*trials), "ns/trial")
		})
	}
}

// BenchmarkCompareObservedTrials aggregates the trials of the largest modeled
// comparison through the observed path, where validating every trial dominates.
func BenchmarkCompareObservedTrials(b *testing.B) {
	for _, size := range compareBenchSizes[1:3] {
		in := ComparePlannersInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, AppIDs: owned().appIDs, Planners: cmpPlanners(size.planners), Repetitions: size.reps}
		trials, err := drawModeledTrials(in)
		if err != nil {
			b.Fatal(err)
		}
		obs := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: in.Planners, Trials: trials}
		b.Run(fmt.Sprintf("trials=%d", len(trials)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := CompareObservedTrials(context.Background(), obs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(trials)), "ns/trial")
		})
	}
}

// largestObservedInput is the largest observed comparison the limits allow:
// MaxPlanners planners × 625 journeys × 10 repetitions = MaxObservedTrials
// trials, every planner on every journey, so all 120 pairs share 6,250 runs.
// Outcomes, latencies and tokens are fixed SplitMix64 draws of the trial's
// place, so the input is the same on every run.
func largestObservedInput() CompareObservedTrialsInput {
	const journeys, reps = 625, 10
	in := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: cmpPlanners(limit.MaxPlanners)}
	u := fillStream(nil, 20260414, limit.MaxObservedTrials)
	for p := range in.Planners {
		for j := range journeys {
			for r := 1; r <= reps; r++ {
				x := u[len(in.Trials)]
				in.Trials = append(in.Trials, Trial{
					PlannerID: in.Planners[p].ID, AppID: cmpApp, FixtureID: cmpFixture,
					JourneyID: fmt.Sprintf("journey-%03d", j), Repetition: r,
					Passed: x < 0.5+float64(p)/40, LatencyMs: int(x * 90_000), InputTokens: int(x * 40_000), OutputTokens: int(x * 2_000),
					RecoveryTriggered: x > 0.8, Recovered: x > 0.9,
				})
			}
		}
	}
	return in
}

// BenchmarkCompareObservedLargest is the per-call cost of the largest observed
// comparison allowed (docs/performance.md): 100,000 trials of 16 planners, and
// its 120 paired comparisons alone.
func BenchmarkCompareObservedLargest(b *testing.B) {
	in := largestObservedInput()
	b.Run("call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := CompareObservedTrials(context.Background(), in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pairs", func(b *testing.B) {
		plan, err := observedTrialsPlan(in)
		if err != nil {
			b.Fatal(err)
		}
		runs := make([][]journeyRuns, len(in.Planners))
		var t trialTally
		for p := range in.Planners {
			t.reset(len(plan.journeyIDs), plan.trialsPerPlanner[p])
			for i, tr := range in.Trials {
				if plan.planner[i] == p {
					t.add(plan.journey[i], tr.Repetition, tr.outcome())
				}
			}
			runs[p] = t.journeyRuns()
		}
		b.ReportAllocs()
		for b.Loop() {
			pairComparisons(BasisObserved, false, in.Planners, runs, plan.journeyIDs)
		}
	})
}

// observedAppsInput is an observed comparison of MaxPlanners planners named
// by the costliest IDs (a < is six bytes of JSON) over journeys spread across
// apps distinct apps of the longest IDs, as trials or as counts.
func observedAppsInput(apps, journeys int, counts bool) CompareObservedTrialsInput {
	in := CompareObservedTrialsInput{CorpusVersion: CorpusVersion}
	id := func(p int) string { return fmt.Sprintf("%s%02d", strings.Repeat("<", limit.MaxIDLength-2), p) }
	for p := range limit.MaxPlanners {
		in.Planners = append(in.Planners, PlannerRef{ID: id(p), Vendor: "v", Model: "m"})
	}
	for j := range journeys {
		app := fmt.Sprintf("ext:%s%03d", strings.Repeat("a", limit.MaxIDLength-7), j%apps)
		journey := fmt.Sprintf("j-%06d", j)
		for p := range limit.MaxPlanners {
			passed := (j*p)%3 == 0
			if counts {
				in.Counts = append(in.Counts, JourneyCounts{PlannerID: id(p), AppID: app, JourneyID: journey, Runs: 1, Passes: b2i(passed), FirstAttemptPasses: b2i(passed)})
				continue
			}
			in.Trials = append(in.Trials, Trial{PlannerID: id(p), AppID: app, FixtureID: "ext:f", JourneyID: journey, Repetition: 1, Passed: passed})
		}
	}
	return in
}

// TestObservedAppsBound holds an observed comparison to MaxObservedApps
// distinct apps, on trials and on counts: each planner carries a rollup per
// app in every answer, and 32 apps of the longest IDs made the default answer
// 158,576 bytes (50,000 apps: 13.6 MB) against its 120,832-byte bound, with
// every pair already left out. At the limit the default answer is within
// the bound; one app more is limit_exceeded at trials or counts.
func TestObservedAppsBound(t *testing.T) {
	t.Parallel() // pure computation: it overlaps the rest
	for _, tc := range []struct {
		name     string
		apps     int
		counts   bool
		wantCode Code
	}{
		{"trials at the limit", limit.MaxObservedApps, false, ""},
		{"counts at the limit", limit.MaxObservedApps, true, ""},
		{"trials over", limit.MaxObservedApps + 1, false, CodeLimitExceeded},
		{"counts over", limit.MaxObservedApps + 1, true, CodeLimitExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := CompareObservedTrials(context.Background(), observedAppsInput(tc.apps, 1000, tc.counts))
			var code Code
			var e *Error
			if errors.As(err, &e) {
				code = e.Code
				if !strings.Contains(e.Message, "at most 16") {
					t.Errorf("the problem does not say the limit: %v", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantCode, code); diff != "" {
				t.Fatalf("code (-want +got):\n%s\n%v", diff, err)
			}
			if err != nil {
				return
			}
			if n := jsonSize(&r); n > maxReportJSONBytes {
				t.Errorf("%d apps: the default answer is %d bytes, over %d", tc.apps, n, maxReportJSONBytes)
			}
			if n := len(markdownOf(t, &r)); n > limit.MaxMarkdownBytes {
				t.Errorf("the summary is %d bytes, over %d", n, limit.MaxMarkdownBytes)
			}
		})
	}
}
