package automium

import (
	"math"
	"math/bits"
	"slices"
)

// PairVerdict is the conclusion a comparison report draws about one pair of planners.
type PairVerdict string

// The verdicts of a pair; [PairVerdicts] lists them.
const (
	// PairABetter: planner A passed significantly more of the shared runs.
	PairABetter PairVerdict = "A better"
	// PairBBetter: planner B passed significantly more of the shared runs.
	PairBBetter PairVerdict = "B better"
	// PairIndistinguishable: the shared runs do not show a difference at
	// α = 0.05 after the Holm correction. It does not mean the planners are
	// equal: read minDetectableEffect80 for what this n could have shown.
	PairIndistinguishable PairVerdict = "indistinguishable"
	// PairModeledNotEvidence is the verdict of every pair of a modeled report:
	// modeled draws say nothing about the real planners, however small p is.
	PairModeledNotEvidence PairVerdict = "not evidence: modeled draws"
)

// PairVerdicts returns every verdict of a pair, sorted.
func PairVerdicts() []PairVerdict {
	return typedSet[PairVerdict]([]string{string(PairABetter), string(PairBBetter), string(PairIndistinguishable), string(PairModeledNotEvidence)})
}

// PairedAlpha is the family-wise significance level of a report's verdicts: the
// chance that any pair of a report is called different when no pair is, under
// the Holm correction.
const PairedAlpha = 0.05

// power80Z is Φ⁻¹(0.80), the normal quantile of 80% power.
const power80Z = 0.8416212335729143

// PairedComparison compares two planners of a report on the runs they share: a
// run of planner A and a run of planner B are paired when they have the same
// journey and repetition number. Runs without a partner are left out of the pair
// (they still count in each planner's own metrics). See docs/benchmarks.md for
// every formula and a worked example.
type PairedComparison struct {
	// ID of planner A, the earlier of the two in the input's planners.
	PlannerA string `json:"plannerA" jsonschema:"ID of planner A, the earlier of the two in the input's planners"`
	// ID of planner B, the later of the two in the input's planners.
	PlannerB string `json:"plannerB" jsonschema:"ID of planner B, the later of the two in the input's planners"`
	// Journeys both planners ran with at least one shared repetition number.
	SharedJourneys int `json:"sharedJourneys" jsonschema:"journeys both planners ran with at least one shared repetition number"`
	// Paired runs: (journey, repetition) pairs both planners ran.
	SharedRuns int `json:"sharedRuns" jsonschema:"paired runs: (journey, repetition) pairs both planners ran"`
	// Paired runs that A passed and B failed.
	APassedBFailed int `json:"aPassedBFailed" jsonschema:"paired runs that A passed and B failed"`
	// Paired runs that A failed and B passed.
	AFailedBPassed int `json:"aFailedBPassed" jsonschema:"paired runs that A failed and B passed"`
	// Two-sided exact McNemar p-value: 2·P(X ≤ min(b,c)) for X ~ Binomial(b+c,
	// 1/2), at most 1; 1 when no paired run disagrees.
	McNemarP float64 `json:"mcnemarP" jsonschema:"two-sided exact McNemar p-value: 2·P(X ≤ min(b,c)) for X ~ Binomial(b+c, 1/2), at most 1; 1 when no paired run disagrees"`
	// McNemar p-value after the Holm correction across the report's pairs.
	HolmP float64 `json:"holmP" jsonschema:"McNemar p-value after the Holm correction across the report's pairs"`
	// A's pass rate minus B's over the paired runs: (b − c)/sharedRuns; 0 without
	// paired runs.
	PassRateDifference float64 `json:"passRateDifference" jsonschema:"A's pass rate minus B's over the paired runs: (b − c)/sharedRuns; 0 without paired runs"`
	// Standard error of the difference, clustered by journey, never below the McNemar
	// null standard error with add-one smoothing (see docs/benchmarks.md).
	StandardError float64 `json:"standardError" jsonschema:"standard error of the difference, clustered by journey, never below the McNemar null standard error with add-one smoothing (see docs/benchmarks.md)"`
	// 95% interval for the difference: difference ± 1.96·standardError, within
	// [−1,1].
	Difference95 DifferenceInterval `json:"difference95" jsonschema:"95% interval for the difference: difference ± 1.96·standardError, within [−1,1]"`
	// Smallest difference in pass rate this many paired runs detect with 80% power at
	// α = 0.05: (1.96 + 0.84)·standardError, at most 1.
	MinDetectableEffect80 float64 `json:"minDetectableEffect80" jsonschema:"smallest difference in pass rate this many paired runs detect with 80% power at α = 0.05: (1.96 + 0.84)·standardError, at most 1"`
	// A better, B better or indistinguishable at α = 0.05 after the Holm correction;
	// for modeled reports always not evidence: modeled draws.
	Verdict PairVerdict `json:"verdict" jsonschema:"A better, B better or indistinguishable at α = 0.05 after the Holm correction; for modeled reports always not evidence: modeled draws"`
}

// DifferenceInterval is a closed interval within [−1,1].
type DifferenceInterval struct {
	// Lower bound.
	Lower float64 `json:"lower" jsonschema:"lower bound"`
	// Upper bound.
	Upper float64 `json:"upper" jsonschema:"upper bound"`
}

// journeyRuns is one planner's runs of one journey, for pairing: bit r−1 of
// ran is set when the planner made repetition r, and of passed when that run
// passed. Repetitions are at most MaxRepetitions (100 < 128), so two words
// hold them, and pairing two planners on a journey is a few bitwise operations
// however many repetitions it had: no list of runs is kept or sorted.
type journeyRuns struct {
	journey     int
	ran, passed [2]uint64
}

// set records repetition rep. Repetitions past 128, which no input may have
// (tests of the model draw thousands), are not recorded.
func (jr *journeyRuns) set(rep int, passed bool) {
	if uint(rep-1) >= 128 {
		return
	}
	w, bit := (rep-1)>>6, uint(rep-1)&63
	jr.ran[w] |= 1 << bit
	jr.passed[w] |= uint64(b2i(passed)) << bit
}

// pairedComparisons compares every pair of planners (i < j, input order) over
// their shared runs. runs[p] are planner p's journeys, by journey index. The
// verdicts use the Holm correction across all pairs; a modeled report's
// verdicts are all PairModeledNotEvidence, with the same statistics.
func pairedComparisons(basis Basis, planners []PlannerRef, runs [][]journeyRuns) []PairedComparison {
	pairs := make([]PairedComparison, 0, len(planners)*(len(planners)-1)/2)
	exact := make([]float64, 0, cap(pairs)) // unrounded p-values, for Holm
	for a := range planners {
		for b := a + 1; b < len(planners); b++ {
			pc, p := pairRuns(runs[a], runs[b])
			pc.PlannerA, pc.PlannerB = planners[a].ID, planners[b].ID
			pairs = append(pairs, pc)
			exact = append(exact, p)
		}
	}
	holm := holmAdjust(exact)
	for i := range pairs {
		pc := &pairs[i]
		pc.HolmP = roundReport(holm[i])
		switch {
		case basis == BasisModeled:
			pc.Verdict = PairModeledNotEvidence
		case holm[i] > PairedAlpha:
			pc.Verdict = PairIndistinguishable
		case pc.APassedBFailed > pc.AFailedBPassed:
			pc.Verdict = PairABetter
		default:
			pc.Verdict = PairBBetter
		}
	}
	return pairs
}

// pairRuns merges two planners' journeys and computes the pair's statistics
// (all but the names, Holm and the verdict), returning the unrounded McNemar p.
//
// The clustered variance needs d̂ before the per-journey residuals; expanding
// Σⱼ(Dⱼ − d̂·mⱼ)² into sums of Dⱼ², Dⱼ·mⱼ and mⱼ² lets one pass gather them, as
// integers, so the only rounding is in the final few operations.
func pairRuns(a, b []journeyRuns) (PairedComparison, float64) {
	var (
		pc                        PairedComparison
		sumD, sumDD, sumDm, sumMM int64 // Σ Dⱼ, Σ Dⱼ², Σ Dⱼ·mⱼ, Σ mⱼ²
	)
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].journey < b[j].journey:
			i++
			continue
		case a[i].journey > b[j].journey:
			j++
			continue
		}
		var m, bj, cj int
		for w := range 2 {
			shared := a[i].ran[w] & b[j].ran[w]
			pa, pb := a[i].passed[w]&shared, b[j].passed[w]&shared
			m += bits.OnesCount64(shared)
			bj += bits.OnesCount64(pa &^ pb)
			cj += bits.OnesCount64(pb &^ pa)
		}
		i, j = i+1, j+1
		if m == 0 {
			continue
		}
		pc.SharedJourneys++
		pc.SharedRuns += m
		pc.APassedBFailed += bj
		pc.AFailedBPassed += cj
		d, m64 := int64(bj-cj), int64(m)
		sumD += d
		sumDD += d * d
		sumDm += d * m64
		sumMM += m64 * m64
	}

	p := mcnemarExact(pc.APassedBFailed, pc.AFailedBPassed)
	pc.McNemarP = roundReport(p)
	n := float64(pc.SharedRuns)
	diff, se := 0.0, 1.0 // without paired runs nothing is known: the widest interval
	if pc.SharedRuns > 0 {
		diff = float64(sumD) / n
		se = pairedStandardError(pc.SharedJourneys, pc.SharedRuns, pc.APassedBFailed+pc.AFailedBPassed, sumD, sumDD, sumDm, sumMM)
	}
	half := float64(wilsonZ * se)
	pc.PassRateDifference = roundReport(diff)
	pc.StandardError = roundReport(se)
	pc.Difference95 = DifferenceInterval{Lower: roundReport(max(-1, diff-half)), Upper: roundReport(min(1, diff+half))}
	pc.MinDetectableEffect80 = roundReport(min(1, float64((wilsonZ+power80Z)*se)))
	return pc, p
}

// pairedStandardError is the standard error of the paired difference d̂ = ΣDⱼ/n
// over G journeys: the larger of
//
//	clustered  √( G/(G−1) · Σⱼ(Dⱼ − d̂·mⱼ)² ) / n      (G ≥ 2; 0 otherwise)
//	null       √( p̃ / n ),  p̃ = (b + c + 1)/(n + 2)
//
// The first is the cluster-robust (CR1) standard error of a ratio estimator, the
// "clustered standard errors" of Miller (2024): repetitions of one journey are
// not independent. The second is the standard error McNemar's test assumes under
// no difference, with the discordance rate smoothed by add-one so that it is
// never 0: without it, zero discordant runs would report a zero-width interval
// and a zero minimum detectable effect, claiming a certainty 20 agreeing runs
// do not give.
func pairedStandardError(journeys, n, discordant int, sumD, sumDD, sumDm, sumMM int64) float64 {
	nf := float64(n)
	null := math.Sqrt(float64(discordant+1) / float64(n+2) / nf)
	if journeys < 2 {
		return null
	}
	// n²·Σⱼ(Dⱼ − d̂·mⱼ)² = n²·ΣD² − 2n·ΣD·ΣDm + (ΣD)²·Σm², exact in int64
	// while n ≤ 2²⁰ (every term ≤ n⁴·… is far below 2⁶³ for the inputs allowed:
	// |Dⱼ| ≤ mⱼ ≤ 100 and n ≤ MaxObservedTrials).
	n64 := int64(n)
	num := float64(n64*n64*sumDD-2*n64*sumD*sumDm) + float64(float64(sumD*sumD)*float64(sumMM))
	if num < 0 {
		num = 0 // a rounding below zero of a sum of squares
	}
	g := float64(journeys)
	clustered := math.Sqrt(g/(g-1)*num) / (nf * nf)
	return max(clustered, null)
}

// mcnemarExact is the two-sided exact (conditional) McNemar p-value for b and c
// discordant pairs: 2·P(X ≤ min(b,c)) with X ~ Binomial(b+c, 1/2), capped at 1,
// and 1 when b+c = 0.
//
// The tail is summed from its largest term, k = min(b,c), downwards, each term
// the one above times i/(N−i+1); the first is exp(ln C(N,k) − N·ln 2) through
// math.Lgamma, so no factorial or 2^N overflows for any N. Terms fall at least
// geometrically below the mode, and the sum stops once a term no longer changes
// it, so it costs O(√N) terms however large N is.
func mcnemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	if 2*k >= n {
		return 1 // b = c: the tail holds at least half the mass
	}
	lgN, _ := math.Lgamma(float64(n + 1))
	lgK, _ := math.Lgamma(float64(k + 1))
	lgNK, _ := math.Lgamma(float64(n - k + 1))
	term := math.Exp(lgN - lgK - lgNK - float64(float64(n)*math.Ln2))
	sum := 0.0
	for i := k; i >= 0; i-- {
		next := sum + term
		if next == sum {
			break
		}
		sum = next
		term = float64(term * (float64(i) / float64(n-i+1)))
	}
	return min(1, 2*sum)
}

// holmAdjust returns Holm's step-down adjusted p-values, in the order of p: the
// i-th smallest pᵢ (1-based) becomes max over j ≤ i of min(1, (m−j+1)·pⱼ). A pair
// is significant at α exactly when its adjusted p is at most α, which is Holm's
// procedure: it keeps the chance of any false "better" at α across all pairs.
// Ties keep their input order, so the result is deterministic.
func holmAdjust(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		switch {
		case p[x] < p[y]:
			return -1
		case p[x] > p[y]:
			return 1
		}
		return 0
	})
	out := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		running = max(running, min(1, float64(float64(m-rank)*p[i])))
		out[i] = running
	}
	return out
}

// paretoPlannerIDs returns, in report order, the planners that no other planner
// dominates: none has a pass rate at least as high, a median latency at least as
// low and tokens per run at least as low, and is strictly better in one. It reads
// the report's own rounded figures, so a reader can check it from the report.
func paretoPlannerIDs(reports []PlannerReport) []string {
	ids := []string{}
	dominates := func(x, y *PlannerReport) bool {
		geq := x.PassRate.Value >= y.PassRate.Value && x.MedianJourneyLatencyMs <= y.MedianJourneyLatencyMs &&
			x.TokenSpend.MeanPerJourneyRun <= y.TokenSpend.MeanPerJourneyRun
		gt := x.PassRate.Value > y.PassRate.Value || x.MedianJourneyLatencyMs < y.MedianJourneyLatencyMs ||
			x.TokenSpend.MeanPerJourneyRun < y.TokenSpend.MeanPerJourneyRun
		return geq && gt
	}
	for i := range reports {
		dominated := false
		for j := range reports {
			if j != i && dominates(&reports[j], &reports[i]) {
				dominated = true
				break
			}
		}
		if !dominated {
			ids = append(ids, reports[i].Planner.ID)
		}
	}
	return ids
}
