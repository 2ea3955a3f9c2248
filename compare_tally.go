package automium

import (
	"math"
	"math/bits"
	"slices"
)

// wilsonZ is the two-sided 95% standard normal quantile, Φ⁻¹(0.975).
const wilsonZ = 1.959963984540054

// reportDecimals is how many decimals every float in a report keeps. Rounding
// once, at the end, makes the bytes independent of summation noise below 1e-6.
const reportDecimals = 1e6

// trialTally is the benchmark runner's aggregation: both sources of trials feed it
// one planner at a time, so modeled and observed reports cannot drift apart. Its
// buffers are reused across planners.
type trialTally struct {
	runs, passes []int         // per journey index
	latencies    []int         // one per trial, in milliseconds
	pairing      []journeyRuns // per journey index, for pairing planners
	passAtK      []float64     // scratch: sum over journeys of pass^k, per k
	selection    orderStatistics
	inputTokens  int
	outputTokens int
	triggered    int
	recovered    int
}

func (t *trialTally) reset(journeys, trials int) {
	t.runs = resize(t.runs, journeys)
	t.passes = resize(t.passes, journeys)
	t.latencies = slices.Grow(t.latencies[:0], trials)
	t.pairing = resize(t.pairing, journeys)
	t.inputTokens, t.outputTokens, t.triggered, t.recovered = 0, 0, 0, 0
}

// resize returns s with length n, all zero, reusing its array when it can.
func resize[T any](s []T, n int) []T {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

// add counts one trial, repetition rep of the journey with index journey,
// without branching on its outcome, which goes either way at random.
func (t *trialTally) add(journey, rep int, o trialOutcome) {
	t.pairing[journey].set(rep, o.passed)
	t.runs[journey]++
	t.passes[journey] += b2i(o.passed)
	t.latencies = append(t.latencies, o.latencyMs)
	t.inputTokens += o.inputTokens
	t.outputTokens += o.outputTokens
	t.triggered += b2i(o.recoveryTriggered)
	t.recovered += b2i(o.recoveryTriggered) & b2i(o.recovered)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// journeyRuns returns the planner's runs of each journey it ran, by journey
// index, for pairing; the result is the caller's.
func (t *trialTally) journeyRuns() []journeyRuns {
	out := make([]journeyRuns, 0, len(t.pairing))
	for j, jr := range t.pairing {
		if t.runs[j] > 0 {
			jr.journey = j
			out = append(out, jr)
		}
	}
	return out
}

// maxRuns is the largest number of runs of one journey.
func (t *trialTally) maxRuns() int {
	most := 0
	for _, r := range t.runs {
		most = max(most, r)
	}
	return most
}

// report computes the planner's metrics. It needs at least one trial.
func (t *trialTally) report(ref PlannerRef) PlannerReport {
	n := len(t.latencies)
	journeys, minRuns, agree, passed := 0, 0, 0, 0
	for j, r := range t.runs {
		passed += t.passes[j]
		if r == 0 {
			continue
		}
		journeys++
		if minRuns == 0 || r < minRuns {
			minRuns = r
		}
		if c := t.passes[j]; c == 0 || c == r {
			agree++
		}
	}
	t.passAtK = resize(t.passAtK, minRuns)
	for j, r := range t.runs {
		if r > 0 {
			addPassHatK(t.passAtK, t.passes[j], r)
		}
	}
	passAtK := make([]PassAtK, minRuns)
	for k, sum := range t.passAtK {
		passAtK[k] = PassAtK{K: k + 1, Value: roundReport(sum / float64(journeys))}
	}
	q := t.selection.quantilesR7(t.latencies, 0.5, 0.9)
	total := t.inputTokens + t.outputTokens
	return PlannerReport{
		Planner:  ref,
		Trials:   n,
		Journeys: journeys,
		PassRate: newRate(passed, n),
		Repeatability: Repeatability{
			PassAtK:               passAtK,
			AllOutcomesAgreeShare: roundReport(float64(agree) / float64(journeys)),
		},
		MedianJourneyLatencyMs: roundReport(q[0]),
		P90JourneyLatencyMs:    roundReport(q[1]),
		TokenSpend: TokenSpend{
			InputTotal:        t.inputTokens,
			OutputTotal:       t.outputTokens,
			Total:             total,
			MeanPerJourneyRun: roundReport(float64(total) / float64(n)),
			MeanInputPerRun:   roundReport(float64(t.inputTokens) / float64(n)),
			MeanOutputPerRun:  roundReport(float64(t.outputTokens) / float64(n)),
			PerPassedRun:      perPassed(total, passed),
		},
		RecoverySuccessRate: optionalRate(t.recovered, t.triggered),
	}
}

// addPassHatK adds one journey's pass^k = C(c,k)/C(n,k) to sums[k-1] for every
// k ≤ len(sums) ≤ n. It uses the product form
//
//	C(c,k)/C(n,k) = Π_{i=0}^{k-1} (c−i)/(n−i)
//
// one factor per k, so there are no factorials to overflow and the whole row costs
// O(k). The factor (c−i) reaches 0 at k = c+1, after which pass^k stays 0.
func addPassHatK(sums []float64, c, n int) {
	ratio := 1.0
	for i := range sums {
		if c-i <= 0 {
			return
		}
		ratio = float64(ratio * (float64(c-i) / float64(n-i))) // rounded, not fused into the sum
		sums[i] += ratio
	}
}

// perPassed is tokens over passed runs, or nil when none passed: a cost per
// success with no success is undefined, not 0 and not infinite.
func perPassed(tokens, passed int) *float64 {
	if passed == 0 {
		return nil
	}
	v := roundReport(float64(tokens) / float64(passed))
	return &v
}

// optionalRate is newRate, or nil when n is 0: a rate over nothing is unknown,
// and reporting it as 0 or 1 would be a lie.
func optionalRate(successes, n int) *Rate {
	if n <= 0 {
		return nil
	}
	r := newRate(successes, n)
	return &r
}

// newRate is successes/n with its Wilson interval; n must be positive.
func newRate(successes, n int) Rate {
	ci, _ := wilson95(successes, n)
	return Rate{
		Value:     roundReport(float64(successes) / float64(n)),
		Successes: successes,
		N:         n,
		Wilson95:  Interval{Lower: roundReport(ci.Lower), Upper: roundReport(ci.Upper)},
	}
}

// wilson95 is the 95% Wilson score interval for x successes in n trials:
//
//	center = (p̂ + z²/2n) / (1 + z²/n)
//	half   = z·√(p̂(1−p̂)/n + z²/4n²) / (1 + z²/n)
//
// with p̂ = x/n and z = Φ⁻¹(0.975). At p̂ = 0 the lower bound is exactly 0 and at
// p̂ = 1 the upper bound is exactly 1 (floating point would otherwise miss by an
// ulp); both bounds are clamped to [0,1]. It reports false when n is 0.
func wilson95(x, n int) (Interval, bool) {
	if n <= 0 || x < 0 || x > n {
		return Interval{}, false
	}
	nf := float64(n)
	p := float64(x) / nf
	z2 := wilsonZ * wilsonZ
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := wilsonZ * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / denom
	ci := Interval{Lower: max(0, center-half), Upper: min(1, center+half)}
	if x == 0 {
		ci.Lower = 0
	}
	if x == n {
		ci.Upper = 1
	}
	return ci, true
}

func roundReport(x float64) float64 {
	return math.Round(x*reportDecimals) / reportDecimals
}

// histogramBuckets is the most buckets orderStatistics counts values into.
const histogramBuckets = 1024

// orderStatistics finds order statistics by counting: its buffers are reused
// from one planner to the next.
type orderStatistics struct {
	start  []int32 // start[b]: how many values fall in buckets before b
	wanted []bool  // the buckets a wanted rank falls in
	picked []int   // their values, sorted
	ranks  []int
}

// quantilesR7 returns the quantiles qs (ascending) of x by Hyndman and Fan's
// "R-7" (linear) method, bit for bit what golang.org/x/exp/stats.Quantiles returns
// for the same values as float64 (TestQuantilesR7), as long as they are below 2⁵³
// in magnitude. x is not changed.
//
// Sorting x to read two order statistics was half the time of the largest
// comparison, and quickselect after it still a fifth. Instead the values are counted into buckets of equal width spanning
// min..max (a power of two of them, up to twice as many as values and at most
// 1,024), the bucket holding each wanted rank is found from the counts, and only
// those buckets' values are gathered, in one pass, and sorted: three passes over
// x with branches that go the same way almost always. Values that crowd into one
// bucket cost at most a sort of them, so no input is quadratic.
func (s *orderStatistics) quantilesR7(x []int, qs ...float64) []float64 {
	lo, hi := x[0], x[0]
	for _, v := range x[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	// About one bucket per value, up to histogramBuckets: counting into more
	// buckets than values only costs the scan of the counts.
	buckets := min(histogramBuckets, 1<<bits.Len(uint(len(x))))
	span := uint64(hi) - uint64(lo)
	shift := uint(max(0, bits.Len64(span)-bits.Len64(uint64(buckets-1))))
	s.start = resize(s.start, int(span>>shift)+1)
	for _, v := range x {
		s.start[(uint64(v)-uint64(lo))>>shift]++
	}
	var before int32
	for b, c := range s.start {
		s.start[b] = before
		before += c
	}
	bucket := func(k int) int { // the bucket holding rank k
		b, _ := slices.BinarySearch(s.start, int32(k+1))
		return b - 1
	}
	ranks := s.ranks[:0]
	for _, q := range qs {
		h := float64(float64(len(x)-1)*q) + 1
		ranks = append(ranks, int(math.Floor(h-1)), int(math.Ceil(h-1)))
	}
	s.ranks = ranks
	if shift > 0 {
		// One pass gathers the values of every bucket a rank falls in; sorted,
		// they are those buckets one after the other.
		s.wanted = resize(s.wanted, len(s.start))
		for _, k := range ranks {
			s.wanted[bucket(k)] = true
		}
		s.picked = s.picked[:0]
		for _, v := range x {
			if s.wanted[(uint64(v)-uint64(lo))>>shift] {
				s.picked = append(s.picked, v)
			}
		}
		slices.Sort(s.picked)
	}
	nth := func(k int) float64 {
		b := bucket(k)
		if shift == 0 {
			return float64(lo + b) // a bucket per value
		}
		first, _ := slices.BinarySearch(s.picked, lo+b<<shift) // the bucket's first value
		return float64(s.picked[first+k-int(s.start[b])])
	}
	out := make([]float64, len(qs))
	for i, q := range qs {
		h := float64(float64(len(x)-1)*q) + 1
		below := nth(ranks[2*i])
		above := nth(ranks[2*i+1])
		out[i] = below + float64((h-math.Floor(h))*(above-below))
	}
	return out
}
