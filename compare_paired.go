package automium

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// PairVerdict is the conclusion a comparison report draws about one pair of planners.
type PairVerdict string

// The verdicts of a pair.
const (
	// PairABetter: over the shared journeys, taken as a sample of journeys, A's
	// mean first-attempt pass rate is significantly higher than B's.
	PairABetter PairVerdict = "A better"
	// PairBBetter: the same with B higher.
	PairBBetter PairVerdict = "B better"
	// PairIndistinguishable: the shared journeys do not show a difference at
	// α = 0.05 after the Holm correction, or are too few to show one (the
	// pair's reason says which). It does not mean the planners are equal: read
	// minDetectableEffect80 for what these journeys could have shown.
	PairIndistinguishable PairVerdict = "indistinguishable"
	// PairModeledNotEvidence is the verdict of every pair of a modeled report:
	// modeled draws say nothing about the real planners, however small p is.
	PairModeledNotEvidence PairVerdict = "not evidence: modeled draws"
)

// JourneyFlag is how one journey reads between the two planners of a pair,
// B against A, for a reader scanning rows. It is a screening flag from a
// within-journey test at 0.05 with no multiplicity correction, not a verdict.
type JourneyFlag string

// The flags of a pair's journey row.
const (
	// FlagRegressed: B passed significantly fewer first attempts than A (Fisher p ≤ 0.05).
	FlagRegressed JourneyFlag = "regressed"
	// FlagImproved: B passed significantly more first attempts than A.
	FlagImproved JourneyFlag = "improved"
	// FlagFlaky: no significant difference, and a planner's runs of the journey
	// were mixed (some first attempts passed and some failed, or a retry rescued one).
	FlagFlaky JourneyFlag = "flaky"
	// FlagUnchanged: both planners passed every first attempt, or both failed every one.
	FlagUnchanged JourneyFlag = "unchanged"
	// FlagInconclusive: each planner was consistent but they differ, on too few
	// runs for the within-journey test to say so.
	FlagInconclusive JourneyFlag = "inconclusive"
)

// Pairing is how a pair comparison pairs the runs of two planners; its string
// is the wire form, as in pairing.
type Pairing string

// The pairings of a pair comparison.
const (
	// PairingJourneys: per-journey pass rates of independent runs.
	PairingJourneys Pairing = "journeys"
	// PairingMatchedRounds: runs paired by repetition within each journey, as
	// the caller declared (CompareObservedTrialsInput.MatchedRounds).
	PairingMatchedRounds Pairing = "matched rounds"
)

// PairedComparison compares two planners of a report over the journeys both ran
// evaluably, the journeys taken as a sample from the journeys one could have
// run. Per shared journey j, dⱼ is A's first-attempt pass rate minus B's (with
// matched rounds, the mean difference of its matched runs); the estimate is their
// mean, each journey weighted equally, and its test and interval come from that
// one estimand: a t test with G − 1 degrees of freedom on the dⱼ, whose standard
// error is floored by within-journey binomial noise. See docs/benchmarks.md.
type PairedComparison struct {
	PlannerA              string             `json:"plannerA" jsonschema:"planner A, the earlier in the input"`
	PlannerB              string             `json:"plannerB" jsonschema:"planner B, the later in the input"`
	Pairing               Pairing            `json:"pairing" jsonschema:"journeys, or matched rounds when the caller declared them"`
	SharedJourneys        int                `json:"sharedJourneys" jsonschema:"G: journeys both ran evaluably"`
	JourneysOnlyA         int                `json:"journeysOnlyA" jsonschema:"journeys only A ran, left out"`
	JourneysOnlyB         int                `json:"journeysOnlyB" jsonschema:"journeys only B ran, left out"`
	JourneysUnmatched     int                `json:"journeysUnmatched,omitempty" jsonschema:"matched rounds: journeys both ran but in no common repetition, left out"`
	MeanDifference        float64            `json:"meanDifference" jsonschema:"mean over shared journeys of A's first-attempt pass rate minus B's"`
	StandardError         float64            `json:"standardError" jsonschema:"max(s/√G, within-journey floor) (docs/benchmarks.md)"`
	DegreesOfFreedom      int                `json:"degreesOfFreedom" jsonschema:"G − 1"`
	P                     float64            `json:"p" jsonschema:"two-sided t-test p-value, G − 1 df; 1 with G < 2"`
	HolmP                 float64            `json:"holmP" jsonschema:"p after the Holm correction across pairs"`
	Difference95          DifferenceInterval `json:"difference95" jsonschema:"meanDifference ± t(0.975, G−1)·standardError within [−1,1]"`
	MinDetectableEffect80 float64            `json:"minDetectableEffect80" jsonschema:"(t(0.975) + t(0.80))·standardError, at most 1"`
	Verdict               PairVerdict        `json:"verdict" jsonschema:"A better, B better or indistinguishable; modeled: not evidence: modeled draws"`
	Reason                string             `json:"reason" jsonschema:"why the verdict is what it is"`
	Power                 *PairPower         `json:"power,omitempty" jsonschema:"with assumed rates: power and the design for 80%"`
	Journeys              []PairJourneyRow   `json:"journeys" jsonschema:"one row per shared journey; the figures above recompute from them"`
}

// PairJourneyRow is one shared journey of a pair. Its passes are first
// attempts, the one estimand of a pair (a run a retry rescued is a
// first-attempt failure), where a planner's journey row gives both its final
// passes and its first-attempt passes; the wire names say which (until
// December 2026 they were aPasses and bPasses, read as final passes).
// APasses and BPasses keep their Go names.
type PairJourneyRow struct {
	JourneyID   string      `json:"journeyId" jsonschema:"journey ID"`
	ARuns       int         `json:"aRuns" jsonschema:"A's evaluable runs"`
	APasses     int         `json:"aFirstAttemptPasses" jsonschema:"A's runs passed on the first attempt (not the final outcome: a rescued run is not one)"`
	BRuns       int         `json:"bRuns" jsonschema:"B's evaluable runs"`
	BPasses     int         `json:"bFirstAttemptPasses" jsonschema:"B's runs passed on the first attempt"`
	MatchedRuns int         `json:"matchedRuns,omitempty" jsonschema:"matched runs (matched rounds only)"`
	APassedOnly int         `json:"aPassedOnly,omitempty" jsonschema:"matched runs A alone passed"`
	BPassedOnly int         `json:"bPassedOnly,omitempty" jsonschema:"matched runs B alone passed"`
	FisherP     float64     `json:"fisherP" jsonschema:"two-sided Fisher exact p of the journey's first attempts"`
	Flag        JourneyFlag `json:"flag" jsonschema:"B against A: regressed, improved, flaky, unchanged or inconclusive"`
}

// DifferenceInterval is a closed interval within [−1,1].
type DifferenceInterval struct {
	Lower float64 `json:"lower" jsonschema:"lower bound"`
	Upper float64 `json:"upper" jsonschema:"upper bound"`
}

// journeyRuns is what pairing needs of one planner's runs of one journey: its
// evaluable runs and first-attempt passes, whether they were mixed, and, for
// matched rounds, bit r−1 of ran set when the planner made repetition r
// evaluably and of passed when its first attempt passed. Repetitions are at
// most MaxRepetitions (100 < 128), so two words hold them.
type journeyRuns struct {
	journey           int
	runs, firstPasses int
	mixed             bool
	ran, passed       [2]uint64
}

// pairScratch is what a report's pairs reuse: t quantiles by degrees of
// freedom and Fisher's weights.
type pairScratch struct {
	t      tQuantiles
	fisher fisherWeights
}

// pairStats are a pair's unrounded statistics, as the oracle test reads them.
type pairStats struct {
	g                   int
	diffs, floors       []float64 // per shared journey: dⱼ and its floor variance vⱼ
	mean, se, p, lo, hi float64
	mde                 float64
	tq975, tq80         float64
}

// pairComparisons compares every pair of planners (i < j, input order) over
// their shared journeys. runs[p] are planner p's journeys, by journey index. The
// verdicts use the Holm correction across all pairs; a modeled report's
// verdicts are all PairModeledNotEvidence, with the same statistics.
func pairComparisons(basis Basis, matched bool, planners []PlannerRef, runs [][]journeyRuns, journeyIDs []string) []PairedComparison {
	pairs := make([]PairedComparison, 0, len(planners)*(len(planners)-1)/2)
	exact := make([]float64, 0, cap(pairs)) // unrounded p-values, for Holm
	var q pairScratch
	for a := range planners {
		for b := a + 1; b < len(planners); b++ {
			pc, st := pairRuns(runs[a], runs[b], matched, journeyIDs, &q)
			pc.PlannerA, pc.PlannerB = planners[a].ID, planners[b].ID
			pairs = append(pairs, pc)
			exact = append(exact, st.p)
		}
	}
	holm := holmAdjust(exact)
	for i := range pairs {
		pc := &pairs[i]
		pc.HolmP = roundReport(holm[i])
		pc.Verdict, pc.Reason = verdictOf(basis, pc, holm[i])
	}
	return pairs
}

// verdictOf decides a pair. A decisive verdict needs an observed report, at
// least MinDecisiveJourneys shared journeys, a Holm-adjusted p at most α and a
// reported interval that excludes 0 (which p ≤ α implies, checked on the
// rounded bounds so that no reader ever sees "better" beside a bound of 0).
func verdictOf(basis Basis, pc *PairedComparison, holm float64) (PairVerdict, string) {
	switch {
	case basis == BasisModeled:
		return PairModeledNotEvidence, "modeled draws are not measurements of any planner; read the figures as what chance gives at this design"
	case pc.SharedJourneys < MinDecisiveJourneys:
		return PairIndistinguishable, fmt.Sprintf("too few shared journeys (%d; a verdict about journeys as a sample needs at least %d, since an exact sign-flip test over G journeys cannot go below p = 2^(1−G))", pc.SharedJourneys, MinDecisiveJourneys)
	case holm > PairedAlpha:
		return PairIndistinguishable, fmt.Sprintf("Holm-adjusted p %.6g is above %.2g over %d shared journeys", holm, PairedAlpha, pc.SharedJourneys)
	case pc.Difference95.Lower > 0:
		return PairABetter, fmt.Sprintf("Holm-adjusted p %.6g ≤ %.2g over %d shared journeys, and the interval lies above 0", holm, PairedAlpha, pc.SharedJourneys)
	case pc.Difference95.Upper < 0:
		return PairBBetter, fmt.Sprintf("Holm-adjusted p %.6g ≤ %.2g over %d shared journeys, and the interval lies below 0", holm, PairedAlpha, pc.SharedJourneys)
	}
	return PairIndistinguishable, "p is at the 0.05 boundary: the rounded interval touches 0"
}

// pairRuns merges two planners' journeys and computes the pair's statistics
// and rows (all but the names, Holm and the verdict).
func pairRuns(a, b []journeyRuns, matched bool, journeyIDs []string, q *pairScratch) (PairedComparison, pairStats) {
	most := min(len(a), len(b))
	pc := PairedComparison{Pairing: PairingJourneys, Journeys: make([]PairJourneyRow, 0, most)}
	if matched {
		pc.Pairing = PairingMatchedRounds
	}
	st := pairStats{diffs: make([]float64, 0, most), floors: make([]float64, 0, most)}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].journey < b[j].journey):
			pc.JourneysOnlyA++
			i++
			continue
		case i == len(a) || a[i].journey > b[j].journey:
			pc.JourneysOnlyB++
			j++
			continue
		}
		x, y := &a[i], &b[j]
		i, j = i+1, j+1
		row := PairJourneyRow{JourneyID: journeyIDs[x.journey], ARuns: x.runs, APasses: x.firstPasses, BRuns: y.runs, BPasses: y.firstPasses}
		var d, v float64
		if matched {
			var m, bj, cj int
			for w := range 2 {
				shared := x.ran[w] & y.ran[w]
				pa, pb := x.passed[w]&shared, y.passed[w]&shared
				m += bits.OnesCount64(shared)
				bj += bits.OnesCount64(pa &^ pb)
				cj += bits.OnesCount64(pb &^ pa)
			}
			if m == 0 {
				// Both ran it, but in no common round: nothing pairs, so it
				// is left out, counted apart from the journeys one planner
				// alone ran (sharedJourneys + journeysOnlyA +
				// journeysUnmatched is the journeys A ran).
				pc.JourneysUnmatched++
				continue
			}
			row.MatchedRuns, row.APassedOnly, row.BPassedOnly = m, bj, cj
			d = float64(bj-cj) / float64(m)
			v = float64(bj+cj+1) / float64(m+2) / float64(m)
		} else {
			d = float64(x.firstPasses)/float64(x.runs) - float64(y.firstPasses)/float64(y.runs)
			v = binomialFloor(x.firstPasses, x.runs) + binomialFloor(y.firstPasses, y.runs)
		}
		fp := q.fisher.p(x.firstPasses, x.runs, y.firstPasses, y.runs)
		row.FisherP = roundReport(fp)
		row.Flag = flagOf(x, y, fp)
		pc.Journeys = append(pc.Journeys, row)
		st.diffs = append(st.diffs, d)
		st.floors = append(st.floors, v)
	}
	st.compute(&q.t)
	pc.SharedJourneys = st.g
	pc.MeanDifference = roundReport(st.mean)
	pc.StandardError = roundReport(st.se)
	pc.DegreesOfFreedom = max(st.g-1, 0)
	pc.P = roundReport(st.p)
	pc.Difference95 = DifferenceInterval{Lower: roundReport(st.lo), Upper: roundReport(st.hi)}
	pc.MinDetectableEffect80 = roundReport(st.mde)
	return pc, st
}

// binomialFloor is the variance of a pass rate over n runs with c passes, the
// rate smoothed by add-one, p̃ = (c+1)/(n+2), so that it is never 0: p̃(1−p̃)/n.
func binomialFloor(c, n int) float64 {
	p := float64(c+1) / float64(n+2)
	return float64(p*(1-p)) / float64(n)
}

// flagOf reads one shared journey, B against A.
func flagOf(x, y *journeyRuns, fisherP float64) JourneyFlag {
	ra := float64(x.firstPasses) / float64(x.runs)
	rb := float64(y.firstPasses) / float64(y.runs)
	switch {
	case fisherP <= PairedAlpha && rb < ra:
		return FlagRegressed
	case fisherP <= PairedAlpha && rb > ra:
		return FlagImproved
	case x.mixed || y.mixed:
		return FlagFlaky
	case ra == rb:
		return FlagUnchanged
	}
	return FlagInconclusive
}

// compute derives the pair's estimate, standard error, t test, interval and
// minimum detectable effect from the per-journey differences:
//
//	d̄  = Σ dⱼ / G
//	s² = Σ (dⱼ − d̄)² / (G − 1)
//	SE = max( s/√G, √(Σ vⱼ)/G )
//	t  = d̄ / SE,  p = P(|T_{G−1}| ≥ |t|)
//	interval d̄ ± t_{0.975,G−1}·SE, MDE (t_{0.975,G−1} + t_{0.80,G−1})·SE
//
// The floor √(Σvⱼ)/G is the standard error the within-journey binomial noise
// alone gives (vⱼ from add-one smoothed rates): journeys that all agree by
// chance cannot make the spread, and so the interval, vanish. With G < 2 there
// is no spread to test: p = 1 and the interval is [−1,1].
func (st *pairStats) compute(q *tQuantiles) {
	st.g = len(st.diffs)
	st.p, st.lo, st.hi, st.mde = 1, -1, 1, 1
	if st.g == 0 {
		st.se = 1 // nothing shared, nothing known
		return
	}
	g := float64(st.g)
	sum, floor := 0.0, 0.0
	for k, d := range st.diffs {
		sum += d
		floor += st.floors[k]
	}
	st.mean = sum / g
	floorSE := math.Sqrt(floor) / g
	st.se = floorSE
	if st.g < 2 {
		return
	}
	ss := 0.0
	for _, d := range st.diffs {
		e := d - st.mean
		ss += float64(e * e)
	}
	st.se = max(math.Sqrt(ss/(g-1))/math.Sqrt(g), floorSE)
	df := st.g - 1
	t := st.mean / st.se
	st.p = tTwoSided(t, float64(df))
	st.tq975, st.tq80 = q.at(df)
	half := float64(st.tq975 * st.se)
	st.lo, st.hi = max(-1, st.mean-half), min(1, st.mean+half)
	st.mde = min(1, float64((st.tq975+st.tq80)*st.se))
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
// dominates on the shared workload: none has a first-attempt pass rate at least
// as high, a median latency at least as low and tokens per run at least as low,
// and is strictly better in one. It reads the report's own rounded figures, so a
// reader can check it from the report. Every planner has shared-workload figures
// when it is called.
func paretoPlannerIDs(reports []PlannerReport) []string {
	ids := []string{}
	dominates := func(x, y *WorkloadFigures) bool {
		geq := x.FirstAttemptPassRate >= y.FirstAttemptPassRate && x.MedianJourneyLatencyMs <= y.MedianJourneyLatencyMs &&
			x.MeanTokensPerRun <= y.MeanTokensPerRun
		gt := x.FirstAttemptPassRate > y.FirstAttemptPassRate || x.MedianJourneyLatencyMs < y.MedianJourneyLatencyMs ||
			x.MeanTokensPerRun < y.MeanTokensPerRun
		return geq && gt
	}
	for i := range reports {
		dominated := false
		for j := range reports {
			if j != i && dominates(reports[j].SharedWorkload, reports[i].SharedWorkload) {
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
