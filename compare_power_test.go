package automium

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
)

// assumedInput is a modeled comparison of two planners on every corpus app
// with the given assumed rates.
func assumedInput(reps int, rates ...int) ComparePlannersInput {
	in := ComparePlannersInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, AppIDs: owned().appIDs, Planners: cmpPlanners(len(rates)), Repetitions: reps}
	for i, r := range rates {
		in.AssumedPassRates = append(in.AssumedPassRates, AssumedPassRate{PlannerID: in.Planners[i].ID, FirstAttemptPassPercent: r})
	}
	return in
}

// TestAssumedRateValidation: every problem of the assumptions is reported at
// once, each at its path with its code.
func TestAssumedRateValidation(t *testing.T) {
	type shape struct {
		Field string
		Code  Code
	}
	rate := func(id string, r int) AssumedPassRate {
		return AssumedPassRate{PlannerID: id, FirstAttemptPassPercent: r}
	}
	tests := []struct {
		name  string
		rates []AssumedPassRate
		want  []shape
	}{
		{"unknown planner", []AssumedPassRate{rate("baseline", 50), rate("candidate", 60), rate("other", 70)},
			[]shape{{"assumedPassRates[2].plannerId", CodeInvalidArgument}}},
		{"case variant is unknown", []AssumedPassRate{rate("baseline", 50), rate("Candidate", 60)},
			[]shape{{"assumedPassRates", CodeInvalidArgument}, {"assumedPassRates[1].plannerId", CodeInvalidArgument}}},
		{"duplicate", []AssumedPassRate{rate("baseline", 50), rate("candidate", 60), rate("baseline", 70)},
			[]shape{{"assumedPassRates[2].plannerId", CodeInvalidArgument}}},
		{"missing planner", []AssumedPassRate{rate("candidate", 60)},
			[]shape{{"assumedPassRates", CodeInvalidArgument}}},
		{"rates out of range", []AssumedPassRate{rate("baseline", 0), rate("candidate", 100)},
			[]shape{{"assumedPassRates[0].firstAttemptPassPercent", CodeInvalidArgument}, {"assumedPassRates[1].firstAttemptPassPercent", CodeLimitExceeded}}},
		{"huge and negative", []AssumedPassRate{rate("baseline", math.MinInt), rate("candidate", math.MaxInt)},
			[]shape{{"assumedPassRates[0].firstAttemptPassPercent", CodeInvalidArgument}, {"assumedPassRates[1].firstAttemptPassPercent", CodeLimitExceeded}}},
		{"empty planner ID", []AssumedPassRate{rate("baseline", 50), rate("", 60)},
			[]shape{{"assumedPassRates", CodeInvalidArgument}, {"assumedPassRates[1].plannerId", CodeInvalidArgument}}},
		{"everything at once", []AssumedPassRate{rate("baseline", -5), rate("baseline", 50), rate("nobody", 20)},
			[]shape{{"assumedPassRates", CodeInvalidArgument}, {"assumedPassRates[0].firstAttemptPassPercent", CodeInvalidArgument},
				{"assumedPassRates[1].plannerId", CodeInvalidArgument}, {"assumedPassRates[2].plannerId", CodeInvalidArgument}}},
		{"flood", make([]AssumedPassRate, limit.MaxPlanners+1), []shape{{"assumedPassRates", CodeLimitExceeded}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := validCompareInput()
			in.AssumedPassRates = tt.rates
			_, err := ComparePlanners(context.Background(), in)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			var got []shape
			for _, p := range e.Problems() {
				got = append(got, shape{p.Field, p.Code})
				if len(p.Message) > 400 {
					t.Errorf("message of %s is %d bytes", p.Field, len(p.Message))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAssumedRatesDrive: the model's mean per-journey pass probability is the
// assumed rate, and the draws follow it within their binomial noise.
func TestAssumedRatesDrive(t *testing.T) {
	journeys, err := modeledJourneysOf(owned().appIDs)
	if err != nil {
		t.Fatal(err)
	}
	for _, rate := range []float64{MinAssumedPassPercent / 100.0, 0.2, 0.5, 0.8, limit.MaxAssumedPassPercent / 100.0} {
		if got := meanPassProbability(journeys, traitsForRate(journeys, rate)); math.Abs(got-rate) > 1e-12 {
			t.Errorf("rate %g: the model's mean is %.15g", rate, got)
		}
	}
	// The shared traits are what an unstated rate means; their mean is the
	// draws' expectation in the A/A baseline.
	base := meanPassProbability(journeys, sharedTraits)
	if got := traitsForRate(journeys, base).lambda; math.Abs(got-sharedTraits.lambda) > 1e-9 {
		t.Errorf("the baseline's own rate gives λ %g, want %g", got, sharedTraits.lambda)
	}
	r, err := ComparePlanners(context.Background(), assumedInput(limit.MaxRepetitions, 30, 90))
	if err != nil {
		t.Fatal(err)
	}
	runs := float64(len(journeys) * limit.MaxRepetitions)
	for i, want := range []float64{0.3, 0.9} {
		got := r.Planners[i].FirstAttemptPassRate.Value
		if se := math.Sqrt(want * (1 - want) / runs); math.Abs(got-want) > 4*se {
			t.Errorf("planner %d: first-attempt pass rate %g, assumed %g (4 SE = %g)", i, got, want, 4*se)
		}
	}
	if r.Notice != ModeledAssumedNotice || len(r.ParetoPlannerIDs) != 0 || r.Pairs[0].Verdict != PairModeledNotEvidence {
		t.Errorf("notice %q, pareto %v, verdict %q: modeled data must name no winner", r.Notice, r.ParetoPlannerIDs, r.Pairs[0].Verdict)
	}
	want := []AssumedPassRate{{"planner-00", 30}, {"planner-01", 90}}
	if diff := cmp.Diff(want, r.AssumedPassRates); diff != "" {
		t.Errorf("assumedPassRates (-want +got):\n%s", diff)
	}
}

// TestNoAssumptionsNoPower: without assumptions a report has no power and no
// assumptions (its bytes are pinned by TestModeledBytesPinned).
func TestNoAssumptionsNoPower(t *testing.T) {
	r, err := ComparePlanners(context.Background(), validCompareInput())
	if err != nil {
		t.Fatal(err)
	}
	if r.AssumedPassRates != nil || r.Pairs[0].Power != nil || r.Notice != ModeledComparisonNotice {
		t.Errorf("assumptions %v, power %v, notice %q", r.AssumedPassRates, r.Pairs[0].Power, r.Notice)
	}
}

// TestDecideIsTheReportsRule: the simulation's decision equals the report's
// own, pairRuns and verdictOf with one pair's p as Holm's, on random counts,
// with observed basis so that the verdict is decisive where the rule says so.
func TestDecideIsTheReportsRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 80))
	var q pairScratch
	var tq tQuantiles
	decisive := 0
	for n := range 3000 {
		g := 1 + rng.IntN(25)
		reps := 1 + rng.IntN(40)
		shift := rng.Float64() * 0.5
		a, b := make([]journeyRuns, g), make([]journeyRuns, g)
		ids := make([]string, g)
		diffs, floor := []float64{}, 0.0
		for j := range g {
			ids[j] = fmt.Sprintf("j%02d", j)
			p := rng.Float64()
			ca, cb := binomialDraw(rng, reps, min(1, p+shift)), binomialDraw(rng, reps, p)
			if n%2 == 1 {
				ca, cb = cb, ca
			}
			a[j] = journeyRuns{journey: j, runs: reps, firstPasses: ca}
			b[j] = journeyRuns{journey: j, runs: reps, firstPasses: cb}
			diffs = append(diffs, float64(ca)/float64(reps)-float64(cb)/float64(reps))
			floor += binomialFloor(ca, reps) + binomialFloor(cb, reps)
		}
		pc, st := pairRuns(a, b, false, ids, &q)
		verdict, _ := verdictOf(BasisObserved, &pc, st.p)
		want := map[PairVerdict]int{PairABetter: 1, PairBBetter: -1}[verdict]
		got := decide(&pairStats{diffs: diffs}, floor, &tq)
		if got != want {
			t.Fatalf("case %d (G %d, reps %d): decide %d, report %q (p %g, interval %v)", n, g, reps, got, verdict, st.p, pc.Difference95)
		}
		decisive += want * want
	}
	if decisive < 300 {
		t.Errorf("only %d of 3000 cases were decisive; the test needs both kinds", decisive)
	}
}

func binomialDraw(rng *rand.Rand, n int, p float64) int {
	c := 0
	for range n {
		if rng.Float64() < p {
			c++
		}
	}
	return c
}

// TestPowerProperties: power rises with repetitions and with the assumed
// difference (within Monte Carlo error: the figures are simulated), equal
// rates give at most the α-level false-verdict rate, and the plan agrees with
// the power it reports.
func TestPowerProperties(t *testing.T) {
	journeys, err := modeledJourneysOf(owned().appIDs)
	if err != nil {
		t.Fatal(err)
	}
	probs := func(rate float64) []float64 {
		tr := traitsForRate(journeys, rate)
		out := make([]float64, len(journeys))
		for j, m := range journeys {
			out[j] = journeyPassProbability(m, tr)
		}
		return out
	}
	mc := func(p float64) float64 { return math.Sqrt(p*(1-p)/PowerSimulations) + 1e-3 }
	base := probs(0.6)
	for _, rate := range []float64{0.2, 0.6, 0.9} {
		pp := pairPower(DefaultComparisonSeed, probs(rate), probs(rate), rate, rate, 20)
		if pp.Power > PairedAlpha+3*mc(PairedAlpha) || pp.RepetitionsFor80 != nil || pp.JourneysFor80 != nil {
			t.Errorf("equal rates %g: power %g (want ≤ α + 3 MC SE), plan %v %v", rate, pp.Power, pp.RepetitionsFor80, pp.JourneysFor80)
		}
	}
	prev := 0.0
	for _, reps := range []int{1, 2, 5, 10, 20, 50, 100} {
		pp := pairPower(DefaultComparisonSeed, probs(0.7), base, 0.7, 0.6, reps)
		if pp.Power < prev-3*mc(prev) {
			t.Errorf("reps %d: power %g fell from %g", reps, pp.Power, prev)
		}
		prev = pp.Power
		if (pp.Power >= PowerTarget) != (pp.RepetitionsFor80 != nil && *pp.RepetitionsFor80 <= reps) && math.Abs(pp.Power-PowerTarget) > 3*mc(PowerTarget) {
			t.Errorf("reps %d: power %g but repetitionsFor80 %v", reps, pp.Power, pp.RepetitionsFor80)
		}
	}
	prev = 0
	for _, rate := range []float64{0.6, 0.62, 0.65, 0.7, 0.8, 0.95} {
		pp := pairPower(DefaultComparisonSeed, probs(rate), base, rate, 0.6, 10)
		if pp.Power < prev-3*mc(prev) {
			t.Errorf("difference %g: power %g fell from %g", rate-0.6, pp.Power, prev)
		}
		prev = pp.Power
		// B above A is detected as B better, symmetrically.
		back := pairPower(DefaultComparisonSeed, base, probs(rate), 0.6, rate, 10)
		if math.Abs(back.Power-pp.Power) > 4*mc(pp.Power) {
			t.Errorf("difference %g: power %g one way, %g the other", rate-0.6, pp.Power, back.Power)
		}
	}
	if prev < 0.99 {
		t.Errorf("0.95 against 0.6 over 22 journeys × 10: power %g, want near 1", prev)
	}
}

// TestPowerDeterministicAndNameFree: the same input gives the same bytes, and
// renaming the planners changes no power figure.
func TestPowerDeterministicAndNameFree(t *testing.T) {
	in := assumedInput(5, 70, 50, 70)
	a, err := ComparePlanners(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ComparePlanners(context.Background(), in)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Error("two calls gave different bytes")
	}
	renamed := in
	renamed.Planners = []PlannerRef{{ID: "x", Vendor: "v", Model: "gpt"}, {ID: "y", Vendor: "v", Model: "claude"}, {ID: "z", Vendor: "v", Model: "m"}}
	renamed.AssumedPassRates = []AssumedPassRate{{"z", 70}, {"x", 70}, {"y", 50}}
	c, err := ComparePlanners(context.Background(), renamed)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Pairs {
		if diff := cmp.Diff(a.Pairs[i].Power, c.Pairs[i].Power); diff != "" {
			t.Errorf("pair %d after renaming (-before +after):\n%s", i, diff)
		}
	}
	// Pairs 0 (0.7 v 0.5) and 2 (0.5 v 0.7) mirror each other; pair 1 is equal rates.
	if a.Pairs[1].Power.AssumedDifference != 0 || a.Pairs[0].Power.AssumedDifference != 0.2 || a.Pairs[2].Power.AssumedDifference != -0.2 {
		t.Errorf("assumed differences %v %v %v", a.Pairs[0].Power.AssumedDifference, a.Pairs[1].Power.AssumedDifference, a.Pairs[2].Power.AssumedDifference)
	}
}

// TestPowerCanceled: a canceled context stops the planning.
func TestPowerCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ComparePlanners(ctx, assumedInput(5, 70, 50)); err == nil {
		t.Error("a canceled call returned a report")
	}
}

// BenchmarkComparePlannersAssumed measures planning: 2 planners (one pair)
// and the largest input, 16 planners with 16 distinct rates (120 pairs, each
// simulated), on every corpus app. See docs/performance.md.
func BenchmarkComparePlannersAssumed(b *testing.B) {
	for _, size := range []struct{ planners, reps int }{{2, 10}, {2, 100}, {16, 10}, {16, 100}} {
		rates := make([]int, size.planners)
		for i := range rates {
			rates[i] = 50 + 2*i
		}
		in := assumedInput(size.reps, rates...)
		b.Run(fmt.Sprintf("planners=%d/reps=%d", size.planners, size.reps), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ComparePlanners(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPowerIndependentOfWorkers: pairs are planned on GOMAXPROCS goroutines;
// the report's bytes do not depend on how many.
func TestPowerIndependentOfWorkers(t *testing.T) {
	in := assumedInput(3, 60, 70, 80, 60)
	in.AppIDs = owned().appIDs[:3]
	var want []byte
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		r, err := ComparePlanners(context.Background(), in)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(r)
		if want == nil {
			want = got
		} else if string(got) != string(want) {
			t.Errorf("GOMAXPROCS %d changed the report", procs)
		}
	}
}

// powerOracleCase is one power figure for testdata/oracle/check_power.py,
// which recomputes it independently: exactly, by enumerating every outcome,
// where the design is small; otherwise by its own numpy re-simulation of the
// decision rule; and the per-journey probabilities from the model's formula.
type powerOracleCase struct {
	Name  string    `json:"name"`
	Reps  int       `json:"reps"`
	PA    []float64 `json:"pa"` // per journey; a design of g journeys cycles them
	PB    []float64 `json:"pb"`
	RateA float64   `json:"rateA"`
	RateB float64   `json:"rateB"`
	Power PairPower `json:"power"`
	// The model's inputs, for modeled cases: per journey its step weights,
	// assertions and retry budget, and each planner's λ and ρ.
	Journeys [][]float64 `json:"journeys,omitempty"`
	Asserts  []int       `json:"asserts,omitempty"`
	Retries  []int       `json:"retries,omitempty"`
	Lambda   [2]float64  `json:"lambda"`
	Rho      float64     `json:"rho"`
}

// TestPowerOracleCases writes the power oracle's cases to the file
// AUTOMIUM_POWER_ORACLE_OUT names (.ci/run's temporary file) and is skipped
// without it: reports from the model at several rates and designs, and small
// synthetic designs the oracle can enumerate exactly.
func TestPowerOracleCases(t *testing.T) {
	out := os.Getenv("AUTOMIUM_POWER_ORACLE_OUT")
	if out == "" {
		t.Skip("AUTOMIUM_POWER_ORACLE_OUT names no file; .ci/run sets it and runs testdata/oracle/check_power.py on the result")
	}
	var cases []powerOracleCase
	for _, d := range []struct{ apps, reps, a, b int }{
		{7, 5, 80, 70}, {7, 10, 80, 70}, {7, 3, 60, 40}, {7, 20, 75, 75}, {2, 10, 90, 60}, {3, 30, 50, 55}, {7, 1, 95, 50}, {1, 10, 70, 40},
	} {
		in := assumedInput(d.reps, d.a, d.b)
		in.AppIDs = owned().appIDs[:d.apps]
		r, err := ComparePlanners(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		js, _ := modeledJourneysOf(in.AppIDs)
		ta, tb := traitsForRate(js, float64(d.a)/100), traitsForRate(js, float64(d.b)/100)
		c := powerOracleCase{Name: fmt.Sprintf("modeled-%d-apps-%d-reps-%d-v-%d", d.apps, d.reps, d.a, d.b), Reps: d.reps,
			RateA: float64(d.a) / 100, RateB: float64(d.b) / 100, Power: *r.Pairs[0].Power, Lambda: [2]float64{ta.lambda, tb.lambda}, Rho: ta.rho}
		for _, m := range js {
			c.PA = append(c.PA, journeyPassProbability(m, ta))
			c.PB = append(c.PB, journeyPassProbability(m, tb))
			c.Journeys = append(c.Journeys, m.weights)
			c.Asserts = append(c.Asserts, m.assertions)
			c.Retries = append(c.Retries, m.maxRetries)
		}
		cases = append(cases, c)
	}
	// Small designs: G journeys with the same probabilities each, few
	// repetitions, so that every outcome can be enumerated.
	rng := rand.New(rand.NewPCG(26, 2026))
	for n := range 24 {
		reps := 1 + (n/4)%3
		g := 6 + n%4
		if reps == 3 {
			g = 6 // 16 outcomes per journey: the enumeration stays small
		}
		pa, pb := 0.2+0.7*rng.Float64(), 0.1+0.5*rng.Float64()
		if n%6 == 5 {
			pb = pa
		}
		c := powerOracleCase{Name: fmt.Sprintf("exact-%02d", n), Reps: reps, RateA: pa, RateB: pb}
		for range g {
			c.PA, c.PB = append(c.PA, pa), append(c.PB, pb)
		}
		c.Power = *pairPower(uint64(1000+n), c.PA, c.PB, pa, pb, reps)
		cases = append(cases, c)
	}
	b, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
