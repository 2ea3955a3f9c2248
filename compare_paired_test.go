package automium

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMcNemarExactPublished holds mcnemarExact to published values and to
// binomial tails worked by hand.
func TestMcNemarExactPublished(t *testing.T) {
	tests := []struct {
		name string
		b, c int
		want float64
	}{
		// Fagerland, Lydersen and Laake (2013), "The McNemar test for binary
		// matched-pairs data: mid-p and asymptotic are better than exact
		// conditional", BMC Medical Research Methodology 13:91, their example
		// (Bentur et al. 2009, airway hyper-responsiveness before and after
		// treatment): 1 and 7 discordant pairs, exact conditional p = 0.070.
		// By hand: 2·(C(8,0)+C(8,1))/2⁸ = 2·9/256 = 0.0703125.
		{"Fagerland 2013 example", 1, 7, 0.0703125},
		{"Fagerland 2013 example, sides swapped", 7, 1, 0.0703125},
		// 2·(1/2)⁵: five discordant pairs all one way cannot reach 0.05.
		{"5 to 0", 0, 5, 0.0625},
		// 2·(1/2)⁶ = 0.03125: six can.
		{"6 to 0", 6, 0, 0.03125},
		// 2·(1+10+45)/1024.
		{"2 to 8", 2, 8, 0.109375},
		{"tie", 4, 4, 1},
		{"one each", 1, 1, 1},
		{"no discordant pairs", 0, 0, 1},
		{"one discordant pair", 1, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mcnemarExact(tt.b, tt.c); !near(got, tt.want, 1e-12) {
				t.Errorf("mcnemarExact(%d, %d) = %.15g; want %.15g", tt.b, tt.c, got, tt.want)
			}
		})
	}
}

// TestMcNemarExactAgainstRationals checks the summed tail against the exact
// rational 2·Σ_{i≤k} C(N,i)/2^N for splits of every N up to 300 and some large N,
// where the float terms start far below 1.
func TestMcNemarExactAgainstRationals(t *testing.T) {
	check := func(b, c int) {
		n, k := b+c, min(b, c)
		sum, term := new(big.Int), big.NewInt(1) // term = C(n,i), row by row
		for i := 0; i <= k; i++ {
			sum.Add(sum, term)
			term.Mul(term, big.NewInt(int64(n-i)))
			term.Quo(term, big.NewInt(int64(i+1)))
		}
		r := new(big.Rat).SetFrac(new(big.Int).Lsh(sum, 1), new(big.Int).Lsh(big.NewInt(1), uint(n)))
		want, _ := r.Float64()
		want = min(1, want)
		if got := mcnemarExact(b, c); !near(got, want, 1e-11) {
			t.Errorf("mcnemarExact(%d, %d) = %.15g; want %.15g", b, c, got, want)
		}
	}
	for n := 1; n <= 300; n++ {
		for b := 0; b <= n; b += 1 + n/20 {
			check(b, n-b)
		}
	}
	for _, bc := range [][2]int{{4900, 5100}, {10, 5000}, {2400, 2600}} {
		check(bc[0], bc[1])
	}
}

// near reports whether got is within rel of want, relative to want (absolute
// below 1e-300, where the tail underflows anyway).
func near(got, want, rel float64) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	if want < 1e-300 {
		return d < 1e-300
	}
	return d <= rel*want
}

func TestHolmAdjustHandComputed(t *testing.T) {
	tests := []struct {
		p, want []float64
	}{
		// Sorted 0.01, 0.03, 0.04: ×3 = 0.03, ×2 = 0.06, ×1 = 0.04 raised to 0.06.
		{[]float64{0.01, 0.04, 0.03}, []float64{0.03, 0.06, 0.06}},
		{[]float64{0.2, 0.9}, []float64{0.4, 0.9}},
		{[]float64{0.6, 0.7}, []float64{1, 1}},
		{[]float64{0.02}, []float64{0.02}},
		{nil, []float64{}},
	}
	for _, tt := range tests {
		got := holmAdjust(tt.p)
		for i := range got {
			got[i] = roundReport(got[i])
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("holmAdjust(%v) (-want +got):\n%s", tt.p, diff)
		}
	}
}

// pairedTrial is repetition rep of journey j by planner p, passed or not.
func pairedTrial(p, j string, rep int, passed bool) Trial {
	tr := cmpTrial(p, j, rep)
	tr.Passed = passed
	return tr
}

func observedPairs(t *testing.T, planners []string, trials []Trial) ComparisonReport {
	t.Helper()
	in := CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Trials: trials}
	for _, id := range planners {
		in.Planners = append(in.Planners, PlannerRef{ID: id, Vendor: "v", Model: "m"})
	}
	r, err := CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPairedComparisonsHandComputed checks every field of a pair against numbers
// worked out by hand from the formulas in docs/benchmarks.md.
func TestPairedComparisonsHandComputed(t *testing.T) {
	journey := func(i int) string { return fmt.Sprintf("j%02d", i) }
	tests := []struct {
		name     string
		planners []string
		trials   func() []Trial
		want     []PairedComparison
	}{
		{
			// 10 journeys × 2 runs. a passes all 20; b fails both runs of j01..j06.
			// b = 12, c = 0: p = 2·2⁻¹² = 0.000488. d̂ = 12/20 = 0.6.
			// Clustered: Dⱼ − 0.6·2 is 0.8 six times and −1.2 four times, Σ² = 9.6,
			// SE = √(10/9·9.6)/20 = 0.163299. Null: √((12+1)/22/20) = 0.171888,
			// the larger, so the interval is 0.6 ± 1.959964·0.171888 and the MDE
			// 2.801585·0.171888 = 0.481559.
			name: "clear difference", planners: []string{"a", "b"},
			trials: func() []Trial {
				var ts []Trial
				for i := 1; i <= 10; i++ {
					for r := 1; r <= 2; r++ {
						ts = append(ts, pairedTrial("a", journey(i), r, true), pairedTrial("b", journey(i), r, i > 6))
					}
				}
				return ts
			},
			want: []PairedComparison{{
				PlannerA: "a", PlannerB: "b", SharedJourneys: 10, SharedRuns: 20, APassedBFailed: 12, AFailedBPassed: 0,
				McNemarP: 0.000488, HolmP: 0.000488, PassRateDifference: 0.6, StandardError: 0.171888,
				Difference95: DifferenceInterval{0.263106, 0.936894}, MinDetectableEffect80: 0.481559, Verdict: PairABetter,
			}},
		},
		{
			// The same, the other way round: B better, the interval mirrored.
			name: "clear difference, B better", planners: []string{"b", "a"},
			trials: func() []Trial {
				var ts []Trial
				for i := 1; i <= 10; i++ {
					for r := 1; r <= 2; r++ {
						ts = append(ts, pairedTrial("a", journey(i), r, true), pairedTrial("b", journey(i), r, i > 6))
					}
				}
				return ts
			},
			want: []PairedComparison{{
				PlannerA: "b", PlannerB: "a", SharedJourneys: 10, SharedRuns: 20, APassedBFailed: 0, AFailedBPassed: 12,
				McNemarP: 0.000488, HolmP: 0.000488, PassRateDifference: -0.6, StandardError: 0.171888,
				Difference95: DifferenceInterval{-0.936894, -0.263106}, MinDetectableEffect80: 0.481559, Verdict: PairBBetter,
			}},
		},
		{
			// 4 journeys × 2 runs; a wins both runs of j01 and j03, b of j02 and j04.
			// b = c = 4: p = 1, d̂ = 0. Clustered: Σ Dⱼ² = 16, √(4/3·16)/8 = 0.57735,
			// above the null √(9/10/8) = 0.335410: the disagreement is all between
			// journeys, so 8 runs say little. MDE capped at 1.
			name: "tie", planners: []string{"a", "b"},
			trials: func() []Trial {
				var ts []Trial
				for i := 1; i <= 4; i++ {
					for r := 1; r <= 2; r++ {
						ts = append(ts, pairedTrial("a", journey(i), r, i%2 == 1), pairedTrial("b", journey(i), r, i%2 == 0))
					}
				}
				return ts
			},
			want: []PairedComparison{{
				PlannerA: "a", PlannerB: "b", SharedJourneys: 4, SharedRuns: 8, APassedBFailed: 4, AFailedBPassed: 4,
				McNemarP: 1, HolmP: 1, PassRateDifference: 0, StandardError: 0.57735,
				Difference95: DifferenceInterval{-1, 1}, MinDetectableEffect80: 1, Verdict: PairIndistinguishable,
			}},
		},
		{
			// 12 journeys × 1 run, both pass all but j01, which both fail. No
			// discordant run: p = 1, the clustered SE is 0 and the null one
			// √(1/14/12) = 0.077152 keeps the interval and MDE honest.
			name: "zero discordant pairs", planners: []string{"a", "b"},
			trials: func() []Trial {
				var ts []Trial
				for i := 1; i <= 12; i++ {
					ts = append(ts, pairedTrial("a", journey(i), 1, i > 1), pairedTrial("b", journey(i), 1, i > 1))
				}
				return ts
			},
			want: []PairedComparison{{
				PlannerA: "a", PlannerB: "b", SharedJourneys: 12, SharedRuns: 12,
				McNemarP: 1, HolmP: 1, PassRateDifference: 0, StandardError: 0.077152,
				Difference95: DifferenceInterval{-0.151215, 0.151215}, MinDetectableEffect80: 0.216147, Verdict: PairIndistinguishable,
			}},
		},
		{
			name: "one planner", planners: []string{"a"},
			trials: func() []Trial { return []Trial{pairedTrial("a", "j01", 1, true)} },
			want:   []PairedComparison{},
		},
		{
			// a ran j01 (2 runs), j02 (2) and j03 (1); b ran j02 (3), j03 (2) and
			// j04 (1). Paired: j02 runs 1 and 2, j03 run 1. a passes j02 and fails
			// j03; b fails j02 run 1 and passes the rest: b = 1 (j02/1), c = 1
			// (j03/1). Dⱼ = 1 (m = 2) and −1 (m = 1), d̂ = 0; clustered √(2·2)/3.
			name: "unequal journeys", planners: []string{"a", "b"},
			trials: func() []Trial {
				return []Trial{
					pairedTrial("a", "j01", 1, true), pairedTrial("a", "j01", 2, false),
					pairedTrial("a", "j02", 1, true), pairedTrial("a", "j02", 2, true), pairedTrial("a", "j03", 1, false),
					pairedTrial("b", "j02", 1, false), pairedTrial("b", "j02", 2, true), pairedTrial("b", "j02", 3, false),
					pairedTrial("b", "j03", 1, true), pairedTrial("b", "j03", 2, true), pairedTrial("b", "j04", 1, false),
				}
			},
			want: []PairedComparison{{
				PlannerA: "a", PlannerB: "b", SharedJourneys: 2, SharedRuns: 3, APassedBFailed: 1, AFailedBPassed: 1,
				McNemarP: 1, HolmP: 1, PassRateDifference: 0, StandardError: 0.666667,
				Difference95: DifferenceInterval{-1, 1}, MinDetectableEffect80: 1, Verdict: PairIndistinguishable,
			}},
		},
		{
			// No journey in common: nothing is paired, the difference is unknown.
			name: "no shared journey", planners: []string{"a", "b"},
			trials: func() []Trial { return []Trial{pairedTrial("a", "j01", 1, true), pairedTrial("b", "j02", 1, false)} },
			want: []PairedComparison{{
				PlannerA: "a", PlannerB: "b", McNemarP: 1, HolmP: 1, StandardError: 1,
				Difference95: DifferenceInterval{-1, 1}, MinDetectableEffect80: 1, Verdict: PairIndistinguishable,
			}},
		},
		{
			// 12 journeys × 1 run: a and c pass all, b fails j01..j06. a–b and
			// b–c have p = 2·2⁻⁶ = 0.03125 each, below 0.05, but Holm over three
			// pairs multiplies the smallest by 3 (0.09375) and the next by 2
			// (0.0625, raised to 0.09375): no pair is significant.
			name: "Holm across three planners", planners: []string{"a", "b", "c"},
			trials: func() []Trial {
				var ts []Trial
				for i := 1; i <= 12; i++ {
					ts = append(ts, pairedTrial("a", journey(i), 1, true), pairedTrial("b", journey(i), 1, i > 6), pairedTrial("c", journey(i), 1, true))
				}
				return ts
			},
			want: []PairedComparison{
				{
					PlannerA: "a", PlannerB: "b", SharedJourneys: 12, SharedRuns: 12, APassedBFailed: 6,
					McNemarP: 0.03125, HolmP: 0.09375, PassRateDifference: 0.5, StandardError: 0.204124,
					Difference95: DifferenceInterval{0.099924, 0.900076}, MinDetectableEffect80: 0.571871, Verdict: PairIndistinguishable,
				},
				{
					PlannerA: "a", PlannerB: "c", SharedJourneys: 12, SharedRuns: 12,
					McNemarP: 1, HolmP: 1, StandardError: 0.077152,
					Difference95: DifferenceInterval{-0.151215, 0.151215}, MinDetectableEffect80: 0.216147, Verdict: PairIndistinguishable,
				},
				{
					PlannerA: "b", PlannerB: "c", SharedJourneys: 12, SharedRuns: 12, AFailedBPassed: 6,
					McNemarP: 0.03125, HolmP: 0.09375, PassRateDifference: -0.5, StandardError: 0.204124,
					Difference95: DifferenceInterval{-0.900076, -0.099924}, MinDetectableEffect80: 0.571871, Verdict: PairIndistinguishable,
				},
			},
		},
		{
			// The first pair of the case above alone: p = 0.03125 stands.
			name: "two planners, no correction", planners: []string{"a", "b"},
			trials: func() []Trial {
				var ts []Trial
				for i := 1; i <= 12; i++ {
					ts = append(ts, pairedTrial("a", journey(i), 1, true), pairedTrial("b", journey(i), 1, i > 6))
				}
				return ts
			},
			want: []PairedComparison{{
				PlannerA: "a", PlannerB: "b", SharedJourneys: 12, SharedRuns: 12, APassedBFailed: 6,
				McNemarP: 0.03125, HolmP: 0.03125, PassRateDifference: 0.5, StandardError: 0.204124,
				Difference95: DifferenceInterval{0.099924, 0.900076}, MinDetectableEffect80: 0.571871, Verdict: PairABetter,
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := observedPairs(t, tt.planners, tt.trials())
			if diff := cmp.Diff(tt.want, r.Pairs); diff != "" {
				t.Errorf("pairs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestModeledPairsAreNotEvidence: a modeled report has every statistic of an
// observed one, from the same draws, but no pair's verdict says better, even
// where the draws differ beyond any doubt.
func TestModeledPairsAreNotEvidence(t *testing.T) {
	in := validCompareInput()
	in.Planners = cmpPlanners(4)
	in.Repetitions = 100
	modeled, err := ComparePlanners(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	observed, err := CompareObservedTrials(context.Background(), CompareObservedTrialsInput{
		CorpusVersion: CorpusVersion, Planners: in.Planners, Trials: modeledTrials(t, in),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(modeled.Pairs) != 6 {
		t.Fatalf("%d pairs; want 6", len(modeled.Pairs))
	}
	significant := 0
	for i, p := range modeled.Pairs {
		if p.Verdict != PairModeledNotEvidence {
			t.Errorf("modeled pair %s–%s has verdict %q", p.PlannerA, p.PlannerB, p.Verdict)
		}
		o := observed.Pairs[i]
		if o.Verdict != PairIndistinguishable {
			significant++
		}
		o.Verdict = p.Verdict
		if diff := cmp.Diff(o, p); diff != "" {
			t.Errorf("the same draws pair differently (-observed +modeled):\n%s", diff)
		}
	}
	if significant == 0 {
		t.Errorf("no observed pair of 100 repetitions of 4 modeled planners is significant; the test needs one to show the modeled verdict holds back")
	}
}

func TestParetoHandComputed(t *testing.T) {
	rep := func(id string, pass, ms, tokens float64) PlannerReport {
		return PlannerReport{Planner: PlannerRef{ID: id}, PassRate: Rate{Value: pass}, MedianJourneyLatencyMs: ms, TokenSpend: TokenSpend{MeanPerJourneyRun: tokens}}
	}
	tests := []struct {
		name    string
		reports []PlannerReport
		want    []string
	}{
		{"one planner", []PlannerReport{rep("a", 0.5, 100, 10)}, []string{"a"}},
		// b beats a on everything; c trades pass rate for speed; d equals b.
		{"dominated, traded, equal", []PlannerReport{
			rep("a", 0.5, 200, 20), rep("b", 0.8, 100, 10), rep("c", 0.6, 50, 10), rep("d", 0.8, 100, 10),
		}, []string{"b", "c", "d"}},
		// Better on one, equal on the rest, still dominates.
		{"strict on one", []PlannerReport{rep("a", 0.5, 100, 10), rep("b", 0.5, 100, 9)}, []string{"b"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, paretoPlannerIDs(tt.reports)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestPairsAreOrderFree: the pairs of an observed report do not depend on the
// order of the trials, and an empty list is [] on the wire, not null.
func TestPairsAreOrderFree(t *testing.T) {
	in := validCompareInput()
	in.Repetitions = 4
	trials := modeledTrials(t, in)
	a := observedPairs(t, []string{"baseline", "candidate"}, trials)
	for i, j := 0, len(trials)-1; i < j; i, j = i+1, j-1 {
		trials[i], trials[j] = trials[j], trials[i]
	}
	b := observedPairs(t, []string{"baseline", "candidate"}, trials)
	if diff := cmp.Diff(a.Pairs, b.Pairs); diff != "" {
		t.Errorf("trial order changes the pairs (-forward +reversed):\n%s", diff)
	}
	first := trials[0]
	first.PlannerID = "baseline"
	one := observedPairs(t, []string{"baseline"}, []Trial{first})
	raw, err := json.Marshal(one)
	if err != nil {
		t.Fatal(err)
	}
	var wire struct {
		Pairs  json.RawMessage `json:"pairs"`
		Pareto json.RawMessage `json:"paretoPlannerIds"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		t.Fatal(err)
	}
	if string(wire.Pairs) != "[]" || string(wire.Pareto) != `["baseline"]` {
		t.Errorf("one planner: pairs %s, paretoPlannerIds %s; want [] and [\"baseline\"]", wire.Pairs, wire.Pareto)
	}
}
