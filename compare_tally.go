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

// journeyTally is one planner's counts on one journey: the row every figure of
// the planner's report is summed from, so that each aggregate recomputes from
// the report's rows. Runs are evaluable runs; a not-evaluable run is counted in
// notEvaluable alone.
type journeyTally struct {
	runs, passes, firstPasses, rescued, notEvaluable int
	latencyUnknown, tokensUnknown                    int
	inputTokens, outputTokens                        int
	triggered, recovered                             int
	ran, firstPassed                                 [2]uint64 // repetition bits, for matched rounds; see journeyRuns
}

// trialTally is the benchmark runner's aggregation: both sources of trials feed it
// one planner at a time, so modeled and observed reports cannot drift apart. Its
// buffers are reused across planners.
type trialTally struct {
	journeys   []journeyTally // per journey index
	latencies  []int          // the known latencies of evaluable runs, in milliseconds
	latJourney []int32        // latJourney[i]: the journey index of latencies[i]
	grouped    []int          // scratch: latencies grouped by journey
	offsets    []int          // scratch: where each journey's group starts in grouped
	passAtK    []float64      // scratch: sum over journeys of pass^k, per k
	selection  orderStatistics
	maxK       int // when above 0, the largest k of pass^k: a counts row may hold more runs than any trial input
}

func (t *trialTally) reset(journeys, trials int) {
	t.journeys = resize(t.journeys, journeys)
	t.latencies = slices.Grow(t.latencies[:0], trials)
	t.latJourney = slices.Grow(t.latJourney[:0], trials)
}

// resize returns s with length n, all zero, reusing its array when it can.
func resize[T any](s []T, n int) []T {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

// add counts one trial, repetition rep of the journey with index journey.
// A not-evaluable run counts there alone: it leaves every denominator. A run
// passed after more than one attempt is a first-attempt failure rescued by a
// retry.
func (t *trialTally) add(journey, rep int, o trialOutcome) {
	jt := &t.journeys[journey]
	if o.notEvaluable {
		jt.notEvaluable++
		return
	}
	first := o.passed && o.attempts <= 1
	jt.runs++
	jt.passes += b2i(o.passed)
	jt.firstPasses += b2i(first)
	jt.rescued += b2i(o.passed && !first)
	setRep(&jt.ran, &jt.firstPassed, rep, first)
	if o.latencyUnknown {
		jt.latencyUnknown++
	} else {
		t.latencies = append(t.latencies, o.latencyMs)
		t.latJourney = append(t.latJourney, int32(journey))
	}
	if o.tokensUnknown {
		jt.tokensUnknown++
	} else {
		jt.inputTokens += o.inputTokens
		jt.outputTokens += o.outputTokens
	}
	jt.triggered += b2i(o.recoveryTriggered)
	jt.recovered += b2i(o.recoveryTriggered) & b2i(o.recovered)
}

// setRep records repetition rep in two 128-bit masks. Repetitions past 128,
// which no input may have (tests of the model draw thousands), are not
// recorded.
func setRep(ran, passed *[2]uint64, rep int, pass bool) {
	if uint(rep-1) >= 128 {
		return
	}
	w, bit := (rep-1)>>6, uint(rep-1)&63
	ran[w] |= 1 << bit
	passed[w] |= uint64(b2i(pass)) << bit
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// journeyRuns returns what pairing needs of the planner's journeys that have an
// evaluable run, by journey index; the result is the caller's.
func (t *trialTally) journeyRuns() []journeyRuns {
	out := make([]journeyRuns, 0, len(t.journeys))
	for j := range t.journeys {
		jt := &t.journeys[j]
		if jt.runs > 0 {
			out = append(out, journeyRuns{
				journey: j, runs: jt.runs, firstPasses: jt.firstPasses,
				mixed: jt.rescued > 0 || (jt.firstPasses > 0 && jt.firstPasses < jt.runs),
				ran:   jt.ran, passed: jt.firstPassed,
			})
		}
	}
	return out
}

// maxRuns is the largest number of runs of one journey, not-evaluable ones
// included.
func (t *trialTally) maxRuns() int {
	most := 0
	for i := range t.journeys {
		most = max(most, t.journeys[i].runs+t.journeys[i].notEvaluable)
	}
	return most
}

// journeyInfo is what a report needs of the journeys a tally's indexes name.
type journeyInfo struct {
	ids, apps []string // by journey index
	shared    []bool   // the shared workload: journeys every planner ran at least once evaluably
}

// report computes the planner's metrics from its per-journey rows: every
// aggregate but the latency quantiles (quantiles of pooled runs are no function
// of per-journey figures) is a sum or a mean of the rows' numbers.
func (t *trialTally) report(ref PlannerRef, info *journeyInfo) PlannerReport {
	var (
		sum                    journeyTally
		journeys, minRuns      int
		agree, sharedJourneys  int
		sharedRuns, sharedPass int
		sharedTokens, sharedTR int
	)
	rows := make([]PlannerJourneyRow, 0, len(t.journeys))
	for j := range t.journeys {
		jt := &t.journeys[j]
		if jt.runs == 0 && jt.notEvaluable == 0 {
			continue
		}
		sum.runs += jt.runs
		sum.passes += jt.passes
		sum.firstPasses += jt.firstPasses
		sum.rescued += jt.rescued
		sum.notEvaluable += jt.notEvaluable
		sum.latencyUnknown += jt.latencyUnknown
		sum.tokensUnknown += jt.tokensUnknown
		sum.inputTokens += jt.inputTokens
		sum.outputTokens += jt.outputTokens
		sum.triggered += jt.triggered
		sum.recovered += jt.recovered
		if jt.runs == 0 {
			continue
		}
		journeys++
		if minRuns == 0 || jt.runs < minRuns {
			minRuns = jt.runs
		}
		if jt.rescued == 0 && (jt.firstPasses == 0 || jt.firstPasses == jt.runs) {
			agree++
		}
		if info.shared[j] {
			sharedJourneys++
			sharedRuns += jt.runs
			sharedPass += jt.firstPasses
			sharedTokens += jt.inputTokens + jt.outputTokens
			sharedTR += jt.runs - jt.tokensUnknown
		}
	}
	if t.maxK > 0 {
		minRuns = min(minRuns, t.maxK)
	}
	t.passAtK = resize(t.passAtK, minRuns)
	t.groupLatencies()
	for j := range t.journeys {
		jt := &t.journeys[j]
		if jt.runs == 0 && jt.notEvaluable == 0 {
			continue
		}
		row := PlannerJourneyRow{
			JourneyID: info.ids[j], AppID: info.apps[j],
			Runs: jt.runs, Passes: jt.passes, FirstAttemptPasses: jt.firstPasses,
			RescuedByRetry: jt.rescued, NotEvaluable: jt.notEvaluable,
			PassAtK:        []float64{},
			LatencyUnknown: jt.latencyUnknown, TokensUnknown: jt.tokensUnknown,
			InputTokens: jt.inputTokens, OutputTokens: jt.outputTokens,
			RecoveryTriggered: jt.triggered, Recovered: jt.recovered,
		}
		if g := t.grouped[t.offsets[j]:t.offsets[j+1]]; len(g) > 0 {
			m := roundReport(medianSorted(g))
			row.MedianLatencyMs = &m
		}
		if jt.runs > 0 && minRuns > 0 {
			row.PassAtK = make([]float64, minRuns)
			passHatK(row.PassAtK, jt.firstPasses, jt.runs)
			for k, v := range row.PassAtK {
				t.passAtK[k] += v
				row.PassAtK[k] = roundReport(v)
			}
		}
		rows = append(rows, row)
	}
	passAtK := make([]PassAtK, minRuns)
	for k, s := range t.passAtK {
		passAtK[k] = PassAtK{K: k + 1, Value: roundReport(s / float64(journeys))}
	}
	var q [2]float64
	if len(t.latencies) > 0 {
		qs := t.selection.quantilesR7(t.latencies, 0.5, 0.9)
		q = [2]float64{qs[0], qs[1]}
	}
	total := sum.inputTokens + sum.outputTokens
	tokenRuns := sum.runs - sum.tokensUnknown
	r := PlannerReport{
		Planner:              ref,
		Trials:               sum.runs + sum.notEvaluable,
		Journeys:             journeys,
		NotEvaluable:         sum.notEvaluable,
		RescuedByRetry:       sum.rescued,
		PassRate:             newRate(sum.passes, sum.runs),
		FirstAttemptPassRate: newRate(sum.firstPasses, sum.runs),
		Repeatability: Repeatability{
			PassAtK:               passAtK,
			AllOutcomesAgreeShare: roundReport(ratio(agree, journeys)),
		},
		MedianJourneyLatencyMs: roundReport(q[0]),
		P90JourneyLatencyMs:    roundReport(q[1]),
		LatencyUnknown:         sum.latencyUnknown,
		TokenSpend: TokenSpend{
			InputTotal:        sum.inputTokens,
			OutputTotal:       sum.outputTokens,
			Total:             total,
			MeanPerJourneyRun: roundReport(ratio(total, tokenRuns)),
			MeanInputPerRun:   roundReport(ratio(sum.inputTokens, tokenRuns)),
			MeanOutputPerRun:  roundReport(ratio(sum.outputTokens, tokenRuns)),
			PerPassedRun:      perPassed(total, sum.passes),
		},
		TokensUnknown:       sum.tokensUnknown,
		RecoverySuccessRate: optionalRate(sum.recovered, sum.triggered),
		Apps:                appRollups(rows),
		JourneyRows:         rows,
	}
	if sharedJourneys > 0 {
		r.SharedWorkload = &WorkloadFigures{
			Journeys:               sharedJourneys,
			Runs:                   sharedRuns,
			FirstAttemptPassRate:   roundReport(ratio(sharedPass, sharedRuns)),
			MedianJourneyLatencyMs: roundReport(t.sharedMedian(info.shared, sharedJourneys == journeys, q[0])),
			MeanTokensPerRun:       roundReport(ratio(sharedTokens, sharedTR)),
		}
	}
	return r
}

// ratio is x/n, or 0 when n is 0 (a figure over nothing; the counts beside it
// say so).
func ratio(x, n int) float64 {
	if n <= 0 {
		return 0
	}
	return float64(x) / float64(n)
}

// groupLatencies sorts the known latencies into t.grouped by journey (a
// counting sort: t.offsets[j] is where journey j's start) and sorts each group.
func (t *trialTally) groupLatencies() {
	t.offsets = resize(t.offsets, len(t.journeys)+1)
	for _, j := range t.latJourney {
		t.offsets[j+1]++
	}
	for j := range t.journeys {
		t.offsets[j+1] += t.offsets[j]
	}
	t.grouped = slices.Grow(t.grouped[:0], len(t.latencies))[:len(t.latencies)]
	next := t.selection.ranks[:0] // reuse as a cursor per journey
	next = append(next, t.offsets[:len(t.journeys)]...)
	for i, v := range t.latencies {
		j := t.latJourney[i]
		t.grouped[next[j]] = v
		next[j]++
	}
	t.selection.ranks = next[:0]
	for j := range t.journeys {
		slices.Sort(t.grouped[t.offsets[j]:t.offsets[j+1]])
	}
}

// medianSorted is the R-7 median of sorted values: the middle one, or the mean
// of the middle two.
func medianSorted(x []int) float64 {
	n := len(x)
	if n%2 == 1 {
		return float64(x[n/2])
	}
	return float64(x[n/2-1]) + float64(float64(x[n/2]-x[n/2-1])*0.5)
}

// sharedMedian is the R-7 median latency over the runs of the shared journeys
// (after groupLatencies); 0 when none has a known latency. When every journey
// the planner ran is shared (every modeled report), it is the planner's own
// median, given as all.
func (t *trialTally) sharedMedian(shared []bool, every bool, all float64) float64 {
	if every {
		return all
	}
	var x []int
	for j := range t.journeys {
		if shared[j] {
			x = append(x, t.grouped[t.offsets[j]:t.offsets[j+1]]...)
		}
	}
	if len(x) == 0 {
		return 0
	}
	slices.Sort(x)
	h := float64(float64(len(x)-1)*0.5) + 1
	lo, hi := x[int(math.Floor(h-1))], x[int(math.Ceil(h-1))]
	return float64(lo) + float64((h-math.Floor(h))*float64(hi-lo))
}

// appRollups sums the rows app by app, in the order of app IDs.
func appRollups(rows []PlannerJourneyRow) []AppRollup {
	var out []AppRollup
	index := map[string]int{}
	for i := range rows {
		r := &rows[i]
		k, ok := index[r.AppID]
		if !ok {
			k = len(out)
			index[r.AppID] = k
			out = append(out, AppRollup{AppID: r.AppID})
		}
		a := &out[k]
		a.Journeys += b2i(r.Runs > 0)
		a.Runs += r.Runs
		a.Passes += r.Passes
		a.FirstAttemptPasses += r.FirstAttemptPasses
		a.RescuedByRetry += r.RescuedByRetry
		a.NotEvaluable += r.NotEvaluable
	}
	slices.SortFunc(out, func(x, y AppRollup) int { return cmpString(x.AppID, y.AppID) })
	if out == nil {
		out = []AppRollup{}
	}
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// passHatK sets out[k-1] to one journey's pass^k = C(c,k)/C(n,k) for every
// k ≤ len(out) ≤ n. It uses the product form
//
//	C(c,k)/C(n,k) = Π_{i=0}^{k-1} (c−i)/(n−i)
//
// one factor per k, so there are no factorials to overflow and the whole row costs
// O(k). The factor (c−i) reaches 0 at k = c+1, after which pass^k stays 0.
func passHatK(out []float64, c, n int) {
	ratio := 1.0
	for i := range out {
		if c-i <= 0 {
			return
		}
		ratio = float64(ratio * (float64(c-i) / float64(n-i))) // rounded, not fused into the sum
		out[i] = ratio
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

// newRate is successes/n with its Wilson interval; at n = 0 (every run not
// evaluable) it is 0 of 0 with the interval [0,1].
func newRate(successes, n int) Rate {
	if n <= 0 {
		return Rate{Wilson95: Interval{Lower: 0, Upper: 1}} // nothing evaluable: nothing known
	}
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
