package automium

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// This file plans experiments on modeled data: with assumed pass rates the
// draws follow them, and each pair reports the power of the report's own
// decision rule at the design in hand and the design that reaches 80% power.
// See docs/benchmarks.md, "Planning an experiment".

// AssumedPassRate is a caller's assumption about one planner: the mean, over
// the compared journeys, of its per-journey first-attempt pass probability, in
// whole percent. Whole percent because every number an input takes is an
// integer (the MCP argument walker reads no fractions), and a design that
// could tell 80.5% from 80% needs far more runs than the corpus offers.
type AssumedPassRate struct {
	PlannerID               string `json:"plannerId" jsonschema:"planner ID" validate:"required,max_id_length"`
	FirstAttemptPassPercent int    `json:"firstAttemptPassPercent" jsonschema:"first-attempt pass %" validate:"required,min=1,max_assumed_pass_percent"`
}

// rate is the assumed rate as a fraction.
func (r AssumedPassRate) rate() float64 { return float64(r.FirstAttemptPassPercent) / 100 }

// The figures of the comparison method (docs/benchmarks.md): the default
// seed, the decision rule's level and floor, the least assumed pass rate, and
// how power is planned.
const (
	// DefaultComparisonSeed is the seed of a modeled comparison whose input leaves
	// seed out (or sets it to 0). A fixed default keeps the tool's answer for the same
	// question the same from call to call.
	DefaultComparisonSeed uint64 = 20260414
	// PairedAlpha is the family-wise significance level of a report's verdicts: the
	// chance that any pair of a report is called different when no pair is, under
	// the Holm correction.
	PairedAlpha = 0.05
	// MinDecisiveJourneys is the fewest shared journeys a decisive verdict needs.
	// With journeys as the sample, no test can do better than an exact sign-flip
	// test over them, whose smallest two-sided p-value is 2^(1−G): above 0.05 for
	// G ≤ 5. A t test on fewer journeys could still reach 0.05 on a floor of
	// within-journey noise, which would read thin evidence as certainty.
	MinDecisiveJourneys = 6
	// MinAssumedPassPercent is the least assumed pass rate, in percent, as
	// MaxAssumedPassPercent of [Limits] is the most: a rate of 0 or 100% leaves no noise to
	// plan against and no finite error rate for the model.
	MinAssumedPassPercent = 1
	// PowerSimulations is how many experiments each power figure simulates:
	// its Monte Carlo standard error √(p(1−p)/N) is at most 0.016, and 0.0126
	// at 80% power.
	PowerSimulations = 1000
	// PowerTarget is the power the planned designs reach.
	PowerTarget = 0.80
	// PowerJourneysCap bounds the journeys a plan may ask for (the corpus
	// holds 22 reference journeys; more are planned by cycling them).
	PowerJourneysCap = 100
	// settleSEs is how far from 80%, in standard errors, a running power
	// estimate must be for a plan's check to stop early (see verdicts): a
	// one-sided 4-SE excursion has chance 3e-5 per look.
	settleSEs = 4
)

// PairPower plans an experiment for one pair of a modeled report with
// assumed pass rates. Power is the chance that the report's decision rule for
// this pair alone (α = 0.05, at least MinDecisiveJourneys journeys, the
// rounded interval excluding 0) names the planner with the higher assumed
// rate; with equal rates it is the chance of any decisive verdict, the
// false-verdict rate. It is estimated from seeded simulated experiments.
type PairPower struct {
	AssumedDifference    float64 `json:"assumedDifference" jsonschema:"A's assumed rate minus B's"`
	Power                float64 `json:"power" jsonschema:"chance the verdict rule names the higher planner at this design"`
	PowerStandardError   float64 `json:"powerStandardError" jsonschema:"its Monte Carlo standard error"`
	SimulatedExperiments int     `json:"simulatedExperiments" jsonschema:"seeded experiments simulated"`
	RepetitionsFor80     *int    `json:"repetitionsFor80,omitempty" jsonschema:"repetitions for 80% power; absent if over 100"`
	JourneysFor80        *int    `json:"journeysFor80,omitempty" jsonschema:"journeys for 80% power; absent if over 100"`
	Plan                 string  `json:"plan" jsonschema:"the plan"`
}

// assumedRateProblems checks the assumed rates against the planners: every
// planner once, by its exact ID (the shared validator checks each rate's
// bounds). It adds nothing when there are none.
func assumedRateProblems(ps *problems, planners []PlannerRef, rates []AssumedPassRate) {
	if len(rates) == 0 {
		return
	}
	ids := namedPlannerIDs(planners)
	known := make(map[string]bool, len(planners))
	for _, p := range planners {
		known[p.ID] = true
	}
	anonymous := hasAnonymousPlanner(planners)
	first := make(map[string]int, len(rates))
	for i, r := range rates {
		at := field("assumedPassRates").at(i)
		switch j, dup := first[r.PlannerID]; {
		case !known[r.PlannerID] && anonymous:
			// A planner without an ID may be the one it names; its own
			// problem says what to fix.
		case !known[r.PlannerID]:
			ps.addProblem(newProblem(CodeInvalidArgument, at.dot("plannerId"), ids,
				foldsOf(ids).unknownPlanner(r.PlannerID, "use one of the allowed values")))
		case dup:
			ps.add(at.dot("plannerId"), CodeInvalidArgument, nil,
				"planner %s has an assumed rate already (assumedPassRates[%d]); give each planner one", echo.Value(r.PlannerID), j)
		default:
			first[r.PlannerID] = i
		}
	}
	for i, p := range planners {
		if _, ok := first[p.ID]; !ok && known[p.ID] && !ps.has(field("planners").at(i)) {
			ps.add(field("assumedPassRates"), CodeInvalidArgument, nil,
				"planner %s has no assumed rate; give every planner one, or leave assumedPassRates out for the A/A baseline", echo.Value(p.ID))
		}
	}
}

// journeyPassProbability is a modeled trial's chance of passing journey m
// with traits p (see ComparePlanners): every step passes at once or on one of
// its R retries, then every assertion passes. Products are rounded on their
// own (float64(…)), so no platform fuses them and λ is the same bits everywhere.
func journeyPassProbability(m *modeledJourney, p plannerTraits) float64 {
	prob := math.Pow(math.Exp(-p.lambda*assertionWeight), float64(m.assertions))
	for _, w := range m.weights {
		s := math.Exp(-p.lambda * w)
		prob *= s + float64((1-s)*(1-math.Pow(1-float64(p.rho*s), float64(m.maxRetries))))
	}
	return prob
}

// meanPassProbability is the mean of journeyPassProbability over journeys.
func meanPassProbability(journeys []*modeledJourney, p plannerTraits) float64 {
	sum := 0.0
	for _, m := range journeys {
		sum += journeyPassProbability(m, p)
	}
	return sum / float64(len(journeys))
}

// traitsForRate returns the shared traits with the error rate λ that makes
// the mean per-journey pass probability over journeys equal rate: the mean
// falls strictly as λ grows, so bisection on [0, 64] finds it, in a fixed
// number of steps, to well below the report's 6 decimals. Recovery ρ, speed
// and verbosity stay shared, so journeys keep their relative difficulty.
func traitsForRate(journeys []*modeledJourney, rate float64) plannerTraits {
	t := sharedTraits
	lo, hi := 0.0, 64.0
	for range 100 {
		t.lambda = (lo + hi) / 2
		if meanPassProbability(journeys, t) > rate {
			lo = t.lambda
		} else {
			hi = t.lambda
		}
	}
	t.lambda = (lo + hi) / 2
	return t
}

// powerSim simulates experiments on one pair: per journey, planner A's and
// planner B's pass probabilities. Journey g of a simulated design with more
// journeys than the workload uses the probabilities of journey g mod G₀.
type powerSim struct {
	pa, pb []float64
	base   uint64 // SplitMix64 state every evaluation starts from
	n      int    // simulated experiments per evaluation
	q      tQuantiles
	cdfA   []float64 // by journey·(reps+1)
	cdfB   []float64
	guideA []int32 // binomialGuide of cdfA, journey by journey
	guideB []int32
	reps   int // the reps cdfA, cdfB and counts are for
	diffs  []float64
	// counts[(e·PowerJourneysCap + j)·2 + b] is experiment e's count of
	// planner b (0 A, 1 B) on journey j at reps; drawn[e] journeys are drawn.
	counts []uint8
	drawn  []uint8
}

// powerSeed keys a pair's simulations: the report's seed and the two assumed
// rates (their float64 bits), so a pair's figures are fixed for its input and
// do not depend on the planners' names, and pairs with the same rates share
// their figures.
func powerSeed(seed uint64, rateA, rateB float64) uint64 {
	buf := append([]byte("automium/modeled-power/v1\x00"), binary.BigEndian.AppendUint64(nil, seed)...)
	buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(rateA))
	buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(rateB))
	sum := sha256.Sum256(buf)
	return binary.BigEndian.Uint64(sum[:8])
}

// binomialCDF fills cdf[0..n] with P(X ≤ k) for X ~ Binomial(n, p), from the
// log pmf so that p near 0 or 1 neither underflows nor divides by zero.
func binomialCDF(cdf []float64, n int, p float64) {
	lp, lq := math.Log(p), math.Log1p(-p)
	lf := logFactorials()
	sum := 0.0
	for k := 0; k <= n; k++ {
		sum += math.Exp(lf[n] - lf[k] - lf[n-k] + float64(float64(k)*lp) + float64(float64(n-k)*lq))
		cdf[k] = sum
	}
	cdf[n] = 1 // no u in [0,1) falls past the last count
}

// logFactorials holds log k! for k up to MaxRepetitions.
var logFactorials = sync.OnceValue(func() []float64 {
	lf := make([]float64, limit.MaxRepetitions+1)
	for k := range lf {
		lf[k], _ = math.Lgamma(float64(k + 1))
	}
	return lf
})

// binomialGuide fills guide[i] (i < n+1) with the least k with cdf[k] > i/(n+1),
// so that drawing starts at the right bucket and moves on a step or two.
func binomialGuide(guide []int32, cdf []float64) {
	k, buckets := 0, len(cdf)
	for i := range guide {
		for k < buckets-1 && cdf[k] <= float64(i)/float64(buckets) {
			k++
		}
		guide[i] = int32(k)
	}
}

// draw returns the count k of cdf (of n+1 entries) whose interval holds u, the
// least k with u < cdf[k], starting from its guide: inversion, exactly.
func draw(cdf []float64, guide []int32, u float64) int {
	k := int(guide[int(u*float64(len(cdf)))])
	for cdf[k] <= u {
		k++
	}
	return k
}

func (s *powerSim) setReps(reps int) {
	if s.reps == reps {
		return
	}
	s.reps = reps
	s.counts = resize(s.counts, s.n*2*PowerJourneysCap)
	s.drawn = resize(s.drawn, s.n)
	clear(s.drawn)
	g0 := len(s.pa)
	s.cdfA = resize(s.cdfA, g0*(reps+1))
	s.cdfB = resize(s.cdfB, g0*(reps+1))
	s.guideA = resize(s.guideA, g0*(reps+1))
	s.guideB = resize(s.guideB, g0*(reps+1))
	for j := range g0 {
		at, to := j*(reps+1), (j+1)*(reps+1)
		binomialCDF(s.cdfA[at:to], reps, s.pa[j])
		binomialCDF(s.cdfB[at:to], reps, s.pb[j])
		binomialGuide(s.guideA[at:to], s.cdfA[at:to])
		binomialGuide(s.guideB[at:to], s.cdfB[at:to])
	}
}

// verdicts returns how many of the n simulated experiments with g journeys
// and reps repetitions end in a decisive verdict for want (+1 A better, −1 B
// better, 0 either). When need > 0 only "at least need?" matters: every 50
// experiments it stops once that is settled for certain, or once the running
// rate lies more than settleSEs standard errors (at 80%) from 80%, and returns
// a count that answers the same way. A design whose true power is 80% ± 0.05
// then takes ~150 to 1000 experiments; one far away takes 50.
// Every evaluation reads the same random numbers (common random numbers), so
// designs are compared on the same luck.
func (s *powerSim) verdicts(g, reps, want, need int) int {
	s.setReps(reps)
	g0, w := len(s.pa), reps+1
	s.diffs = resize(s.diffs, g)
	floors := make([]float64, reps+1)
	for c := range floors {
		floors[c] = binomialFloor(c, reps)
	}
	hits := 0
	for e := range s.n {
		if need > 0 && e > 0 && e%50 == 0 {
			switch {
			case hits >= need || hits+s.n-e < need:
				return hits // settled for certain
			case math.Abs(float64(hits)/float64(e)-PowerTarget) > settleSEs*math.Sqrt(PowerTarget*(1-PowerTarget)/float64(e)):
				if float64(hits) > PowerTarget*float64(e) {
					return need // settled in all likelihood
				}
				return 0
			}
		}
		// Experiment e's counts at these repetitions, drawn once: journey j
		// reads stream numbers 2·(e·cap + j) + 1 and + 2, so a design with
		// more journeys extends the same experiments.
		counts := s.counts[e*2*PowerJourneysCap : (e+1)*2*PowerJourneysCap]
		for j := int(s.drawn[e]); j < g; j++ {
			k := j % g0
			at := s.base + uint64(2*(e*PowerJourneysCap+j)+1)*splitMixGamma
			counts[2*j] = uint8(draw(s.cdfA[k*w:(k+1)*w], s.guideA[k*w:(k+1)*w], unitFloat(splitMix(at))))
			counts[2*j+1] = uint8(draw(s.cdfB[k*w:(k+1)*w], s.guideB[k*w:(k+1)*w], unitFloat(splitMix(at+splitMixGamma))))
		}
		s.drawn[e] = max(s.drawn[e], uint8(g))
		st := pairStats{diffs: s.diffs[:0]}
		floor := 0.0
		for j := range g {
			ca, cb := counts[2*j], counts[2*j+1]
			st.diffs = append(st.diffs, float64(ca)/float64(reps)-float64(cb)/float64(reps))
			floor += floors[ca] + floors[cb]
		}
		if v := decide(&st, floor, &s.q); v != 0 && (want == 0 || v == want) {
			hits++
		}
	}
	return hits
}

// splitMix is SplitMix64's output function on state z.
func splitMix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// decide applies a report's decision rule for one pair (verdictOf with the
// pair's own p standing for Holm's) to per-journey differences whose floor
// variances sum to floor, and returns +1 (A better), −1 (B better) or 0. It
// computes what pairStats.compute does, in the same order, but evaluates the
// t tail only when |t| is within a hair of t₀.₉₇₅, where p ≤ 0.05 flips.
func decide(st *pairStats, floor float64, q *tQuantiles) int {
	g := len(st.diffs)
	if g < MinDecisiveJourneys {
		return 0
	}
	gf := float64(g)
	sum := 0.0
	for _, d := range st.diffs {
		sum += d
	}
	mean := sum / gf
	ss := 0.0
	for _, d := range st.diffs {
		e := d - mean
		ss += float64(e * e)
	}
	se := max(math.Sqrt(ss/(gf-1))/math.Sqrt(gf), math.Sqrt(floor)/gf)
	df := g - 1
	tq, _ := q.at(df)
	t := math.Abs(mean / se)
	switch {
	case t < tq*(1-1e-9):
		return 0
	case t <= tq*(1+1e-9) && tTwoSided(t, float64(df)) > PairedAlpha:
		return 0
	}
	half := float64(tq * se)
	switch {
	case roundReport(max(-1, mean-half)) > 0:
		return 1
	case roundReport(min(1, mean+half)) < 0:
		return -1
	}
	return 0
}

// pairPower plans one pair: the power at g journeys and reps repetitions,
// the least repetitions (up to MaxRepetitions) for 80% at g journeys and the
// least journeys (up to PowerJourneysCap) for 80% at reps, each found by
// bisection on the simulated power, which rises with both.
func pairPower(seed uint64, pa, pb []float64, rateA, rateB float64, reps int) *PairPower {
	s := &powerSim{pa: pa, pb: pb, base: powerSeed(seed, rateA, rateB), n: PowerSimulations}
	want := 0
	switch {
	case rateA > rateB:
		want = 1
	case rateA < rateB:
		want = -1
	}
	g := len(pa)
	hits := s.verdicts(g, reps, want, 0)
	power := float64(hits) / float64(s.n)
	pp := &PairPower{
		AssumedDifference:    roundReport(rateA - rateB),
		Power:                roundReport(power),
		PowerStandardError:   roundReport(math.Sqrt(power * (1 - power) / float64(s.n))),
		SimulatedExperiments: s.n,
	}
	if want == 0 {
		pp.Plan = planSentence(pp, g, reps, true)
		return pp
	}
	need := int(math.Ceil(PowerTarget * float64(s.n)))
	reaches := func(gg, rr int) bool {
		if gg == g && rr == reps {
			return hits >= need // the design in hand, simulated in full above
		}
		return s.verdicts(gg, rr, want, need) >= need
	}
	pp.RepetitionsFor80 = leastReachingFrom(1, reps, limit.MaxRepetitions, func(r int) bool { return reaches(g, r) })
	pp.JourneysFor80 = leastReachingFrom(MinDecisiveJourneys, g, PowerJourneysCap, func(j int) bool { return reaches(j, reps) })
	pp.Plan = planSentence(pp, g, reps, false)
	return pp
}

// bisect returns the least n in [lo, hi] with ok(n), given ok(hi).
func bisect(lo, hi int, ok func(int) bool) *int {
	for lo < hi {
		mid := lo + (hi-lo)/2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return &lo
}

// leastReachingFrom returns the least n in [lo, hi] with ok(n), or nil when
// ok(hi) is false; ok is taken to rise with n. It tries start (the design in
// hand) first, doubles until ok holds, then bisects, so that a plan near the
// design never evaluates the costly designs far above it.
func leastReachingFrom(lo, start, hi int, ok func(int) bool) *int {
	start = min(max(start, lo), hi)
	for !ok(start) {
		if start == hi {
			return nil
		}
		lo, start = start+1, min(2*start, hi)
	}
	return bisect(lo, start, ok)
}

func planSentence(pp *PairPower, g, reps int, equal bool) string {
	if equal {
		return "the assumed rates are equal: power is the chance of a false verdict, and no design is planned to reach 80%"
	}
	reps80 := "80% power is not reachable within 100 repetitions at these " + strconv.Itoa(g) + " journeys"
	if pp.RepetitionsFor80 != nil {
		reps80 = "80% power needs " + strconv.Itoa(*pp.RepetitionsFor80) + " repetitions at these " + strconv.Itoa(g) + " journeys"
	}
	j80 := "not within " + strconv.Itoa(PowerJourneysCap) + " journeys at " + strconv.Itoa(reps) + " repetitions"
	if pp.JourneysFor80 != nil {
		j80 = strconv.Itoa(*pp.JourneysFor80) + " journeys at " + strconv.Itoa(reps) + " repetitions"
	}
	return reps80 + ", or " + j80 + " (one pair at α = 0.05; Holm across more pairs asks for more)"
}

// assumedTraits returns each planner's traits for its assumed rate, in the
// planners' order, or nil without assumptions (every planner then draws with
// sharedTraits). The rates were validated: every planner has exactly one.
func assumedTraits(planners []PlannerRef, rates []AssumedPassRate, journeys []*modeledJourney) []plannerTraits {
	if len(rates) == 0 {
		return nil
	}
	traits := make([]plannerTraits, len(planners))
	for i, p := range planners {
		traits[i] = traitsForRate(journeys, assumedRateOf(rates, p.ID))
	}
	return traits
}

// assumedOf is the assumption of planner id.
func assumedOf(rates []AssumedPassRate, id string) AssumedPassRate {
	for _, r := range rates {
		if r.PlannerID == id {
			return r
		}
	}
	return AssumedPassRate{} // unreachable after validation
}

func assumedRateOf(rates []AssumedPassRate, id string) float64 {
	for _, r := range rates {
		if r.PlannerID == id {
			return r.rate()
		}
	}
	return math.NaN() // unreachable after validation
}

// planPower records the assumed rates, in planner order, and plans every
// pair. Planner i's per-journey pass probabilities come from traits[i]; a
// pair's figures depend only on its own planners, the seed and the design.
func (r *ComparisonReport) planPower(ctx context.Context, seed uint64, planners []PlannerRef, rates []AssumedPassRate, traits []plannerTraits, journeys []*modeledJourney, reps int) error {
	probs := make([][]float64, len(planners))
	r.AssumedPassRates = make([]AssumedPassRate, len(planners))
	for i, p := range planners {
		r.AssumedPassRates[i] = assumedOf(rates, p.ID)
		probs[i] = make([]float64, len(journeys))
		for j, m := range journeys {
			probs[i][j] = journeyPassProbability(m, traits[i])
		}
	}
	type job struct{ a, b, pair int }
	var jobs []job
	first := map[[2]float64]int{} // rates -> first job with them
	var same []int                // by pair: the job whose figures it shares, or −1
	for a := range planners {
		for b := a + 1; b < len(planners); b++ {
			key := [2]float64{r.AssumedPassRates[a].rate(), r.AssumedPassRates[b].rate()}
			if j, ok := first[key]; ok {
				same = append(same, j)
				continue
			}
			first[key] = len(jobs)
			jobs = append(jobs, job{a, b, len(same)})
			same = append(same, -1)
		}
	}
	out := make([]*PairPower, len(jobs))
	err := spread(ctx, min(runtime.GOMAXPROCS(0), len(jobs)), len(jobs), func(i int) {
		jb := jobs[i]
		out[i] = pairPower(seed, probs[jb.a], probs[jb.b],
			r.AssumedPassRates[jb.a].rate(), r.AssumedPassRates[jb.b].rate(), reps)
	})
	if err != nil {
		return err
	}
	for i, jb := range jobs {
		r.Pairs[jb.pair].Power = out[i]
	}
	for k, j := range same {
		if j >= 0 {
			pp := *out[j]
			r.Pairs[k].Power = &pp
		}
	}
	return nil
}

// spread runs do(0..n−1) on up to workers goroutines (the calling one among
// them), checking ctx before each, and returns the first error. Each do
// writes only its own result, so the outcome cannot depend on scheduling; a
// helper's panic is carried back and raised again on the calling goroutine,
// by onWorkers.
func spread(ctx context.Context, workers, n int, do func(int)) error {
	var next atomic.Int64
	work := func() error {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return nil
			}
			if err := checkContext(ctx); err != nil {
				return err
			}
			do(i)
		}
	}
	return onWorkers(workers, work)
}
