package automium

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"sync"
)

// modeledJourneysOf returns the reference journeys of the apps, sorted by ID.
func modeledJourneysOf(appIDs []string) ([]*modeledJourney, error) {
	models, err := referenceJourneyModels()
	if err != nil {
		return nil, err
	}
	var journeys []*modeledJourney
	for _, id := range appIDs {
		journeys = append(journeys, models[id]...)
	}
	if len(journeys) == 0 {
		return nil, internalError("finding reference journeys of the chosen apps")
	}
	slices.SortFunc(journeys, func(a, b *modeledJourney) int { return strings.Compare(a.id, b.id) })
	return journeys, nil
}

// intentWeights is how hard each intent of planner-intent-v1 is for a planner in
// the model, relative to a click. Intents that need precise targeting, a second
// target, or browser state outside the page weigh more.
var intentWeights = map[Intent]float64{
	"navigate": 0.6, "go_back": 0.8, "click": 1.0, "fill": 1.1, "select_option": 1.3,
	"set_checked": 1.1, "press_key": 0.9, "hover": 1.2, "scroll": 1.0, "upload_file": 1.8,
	"handle_dialog": 1.6, "switch_tab": 1.7, "drag_drop": 2.2, "wait_for": 1.0,
	"extract": 1.2, "finish": 0.5,
}

// Model constants; see ComparePlanners.
const (
	assertionWeight       = 0.5
	stepMsPerWeight       = 900.0
	recoveryMsPerStrategy = 400.0
	assertionMs           = 250.0
	stepInputTokens       = 1500.0
	stepInputPerWeight    = 300.0
	stepOutputTokens      = 40.0
	stepOutputPerWeight   = 60.0
	recoveryInputPerStrat = 300.0
	recoveryOutputTokens  = 80.0
	// splitMixGamma is SplitMix64's increment, and also the stride between the
	// states at which repetitions start (see ComparePlanners). So a repetition's
	// stream starts one increment after the previous one's: all repetitions of a
	// (seed, planner, journey) read the same sequence, each from its own place,
	// and drawAll computes it once for all of them.
	splitMixGamma = 0x9E3779B97F4A7C15
)

// modeledJourney is what the model needs of a compiled reference journey.
type modeledJourney struct {
	id, appID  string
	fixtureID  string
	weights    []float64 // per step node, in order
	assertions int
	maxRetries int
	strategies int

	// Filled by prepare from the fields above.
	attempt, retry []trialSums // per step: what one attempt and one retry add
	root           *segment    // the trial's sums along every path through the steps
	maxDraws       int         // the most numbers one trial can draw
}

// referenceJourneyModels compiles every reference journey of the corpus once.
// The corpus is constant, so the models are too; they are keyed by app ID.
var referenceJourneyModels = sync.OnceValues(func() (map[string][]*modeledJourney, error) {
	models := map[string][]*modeledJourney{}
	for _, ref := range owned().ReferenceJourneys {
		res, err := CompileJourney(context.Background(), ref.clone())
		if err != nil || !res.Valid {
			return nil, internalError("compiling reference journey " + ref.ID)
		}
		models[ref.AppID] = append(models[ref.AppID], modelJourney(res.Journey))
	}
	return models, nil
})

func modelJourney(g *CompiledJourney) *modeledJourney {
	m := &modeledJourney{id: g.ID, appID: g.AppID, fixtureID: g.FixtureID, maxRetries: g.MaxRetries}
	for _, n := range g.Nodes {
		switch n.Kind {
		case NodeStep:
			m.weights = append(m.weights, intentWeights[n.Intent])
		case NodeAssertion:
			m.assertions++
		case NodeRecovery:
			m.strategies = len(n.Strategies)
		}
	}
	m.prepare()
	return m
}

// plannerTraits is a planner's effect in the model; see ComparePlanners.
type plannerTraits struct {
	lambda, rho, speed, verbosity float64
}

// sharedTraits are the traits every planner of a modeled comparison draws
// with: one shared per-journey model, so that the differences a modeled report
// shows are what chance alone gives at its design (an A/A baseline), and a
// planner's name seeds its draws' noise but nothing systematic. They are the
// middle of the range the first model version hashed names into: skill 0.75.
var sharedTraits = plannerTraits{
	lambda:    0.60 * (1 - 0.75),
	rho:       0.50 + 0.50*0.75,
	speed:     1,
	verbosity: 1,
}

// trialDrawer draws modeled trials. Its scratch space is reused from one planner
// and journey to the next, so drawing allocates nothing per trial.
type trialDrawer struct {
	odds   stepOdds
	keyer  trialKeyer
	stream []float64 // the numbers of one (seed, planner, journey); see splitMixGamma
}

// drawAll draws repetitions 1..reps of every journey by planner p, with traits
// traits, into t. When
// each is not nil it also sees every trial (tests and benchmarks feed them through
// the observed path); the comparison itself never builds a Trial.
func (d *trialDrawer) drawAll(seed uint64, p PlannerRef, traits plannerTraits, journeys []*modeledJourney, reps int, t *trialTally, each func(Trial)) {
	for j, m := range journeys {
		d.odds.set(m, traits)
		d.stream = fillStream(d.stream, d.keyer.streamBase(seed, p.ID, m.id), reps+m.maxDraws)
		var seen func(int, trialOutcome)
		if each != nil {
			seen = func(r int, o trialOutcome) { each(m.trial(p.ID, r, o)) }
		}
		m.drawReps(&d.odds, traits, d.stream, reps, j, t, seen)
	}
}

// trialKeyer keys the random stream of each (seed, planner, journey); the
// repetition is mixed in per trial. It reuses one buffer so that keying every
// pair of a large comparison allocates nothing.
type trialKeyer struct{ buf []byte }

func (k *trialKeyer) streamBase(seed uint64, plannerID, journeyID string) uint64 {
	k.buf = append(k.buf[:0], "automium/modeled-trial/v1\x00"...)
	k.buf = binary.BigEndian.AppendUint64(k.buf, seed)
	k.buf = append(k.buf, plannerID...)
	k.buf = append(k.buf, 0)
	k.buf = append(k.buf, journeyID...)
	sum := sha256.Sum256(k.buf)
	return binary.BigEndian.Uint64(sum[:8])
}

// unitFloat maps 64 random bits to [0,1) using the top 53.
func unitFloat(x uint64) float64 { return float64(x>>11) / (1 << 53) }

// fillStream returns buf filled with the first n numbers of the SplitMix64 stream
// (Steele, Lea and Flood) whose state starts at base: tiny, fast and good enough
// to turn a hashed key into independent-looking draws. Number i is the state
// moved on by i+1 increments, mixed; repetition r's trial starts at number r.
func fillStream(buf []float64, base uint64, n int) []float64 {
	buf = slices.Grow(buf[:0], n)[:n]
	for i := range buf {
		z := base + uint64(i+1)*splitMixGamma
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		buf[i] = unitFloat(z ^ (z >> 31))
	}
	return buf
}

// stepOdds holds the per-step probabilities of one (planner, journey) pair, so the
// exponentials are computed once per pair rather than once per trial.
type stepOdds struct {
	step, retry []float64
	assertion   float64
}

func (o *stepOdds) set(m *modeledJourney, p plannerTraits) {
	o.step = resize(o.step, len(m.weights))
	o.retry = resize(o.retry, len(m.weights))
	for i, w := range m.weights {
		o.step[i] = math.Exp(-p.lambda * w)
		o.retry[i] = p.rho * o.step[i]
	}
	o.assertion = math.Exp(-p.lambda * assertionWeight)
}

// trialSums are a trial's running totals: milliseconds, input and output tokens.
type trialSums struct{ ms, in, out float64 }

// plus adds c to s, total by total.
func (s trialSums) plus(c trialSums) trialSums {
	return trialSums{ms: s.ms + c.ms, in: s.in + c.in, out: s.out + c.out}
}

// segment is a stretch of a trial's walk: it enters step from with some sums and
// ends at the next failed step or after the last step. Along it the sums are the
// same for every trial, so they are added up once, in the walk's own order: a
// trial only draws its numbers and reads the sums where it stops.
type segment struct {
	from    int
	end     trialSums   // after the last step, when no step from `from` on fails
	at      []trialSums // at[i-from]: after step i's first attempt
	retried []trialSums // retried[(i-from)·R + k]: after k+1 retries of step i (R = maxRetries)
	next    []*segment  // next[(i-from)·R + k]: the segment after step i recovers on retry k+1; nil on the last level
}

// segmentLevels is how many failed steps deep the segments go: the first
// segment and one after each way of recovering from the first failed step.
// Trials that fail a second step (a fifth of the largest comparison) walk the
// rest step by step; a third level would cost kilobytes per journey for little.
const segmentLevels = 2

// prepare computes what one attempt and one retry of each step add, and the
// segments. Each addend is evaluated as the model's formula reads, every product
// rounded on its own (float64(…) forbids fusing it into a multiply-add), so the
// sums are bit for bit those of adding step by step on any platform.
func (m *modeledJourney) prepare() {
	strategies := float64(m.strategies)
	m.attempt = make([]trialSums, len(m.weights))
	m.retry = make([]trialSums, len(m.weights))
	for i, w := range m.weights {
		m.attempt[i] = trialSums{
			ms:  float64(stepMsPerWeight * w),
			in:  stepInputTokens + float64(stepInputPerWeight*w),
			out: stepOutputTokens + float64(stepOutputPerWeight*w),
		}
		m.retry[i] = trialSums{
			ms:  float64(recoveryMsPerStrategy*strategies) + float64(stepMsPerWeight*w),
			in:  float64(recoveryInputPerStrat*strategies) + stepInputTokens + float64(stepInputPerWeight*w),
			out: recoveryOutputTokens + stepOutputTokens + float64(stepOutputPerWeight*w),
		}
	}
	m.root = m.segmentFrom(0, trialSums{}, segmentLevels)
	m.maxDraws = 2 + len(m.weights)*(1+m.maxRetries) + m.assertions
}

func (m *modeledJourney) segmentFrom(from int, start trialSums, levels int) *segment {
	n, retries := len(m.weights), m.maxRetries
	sg := &segment{from: from, at: make([]trialSums, n-from), retried: make([]trialSums, (n-from)*retries)}
	if levels > 1 {
		sg.next = make([]*segment, len(sg.retried))
	}
	s := start
	for i := from; i < n; i++ {
		s = s.plus(m.attempt[i])
		sg.at[i-from] = s
		r := s
		for k := range retries {
			r = r.plus(m.retry[i])
			sg.retried[(i-from)*retries+k] = r
			if sg.next != nil {
				sg.next[(i-from)*retries+k] = m.segmentFrom(i+1, r, levels-1)
			}
		}
	}
	sg.end = s
	return sg
}

// walk draws a trial's way through the steps, its first attempt drawing u[0].
// It returns the trial's sums, the index in u of its next number, whether it
// triggered recovery and whether it got past the last step.
func (m *modeledJourney) walk(u []float64, o *stepOdds) (s trialSums, j int, triggered, reached bool) {
	n, retries := len(m.weights), m.maxRetries
	step, retry := o.step[:n], o.retry[:n]
	sg := m.root
	for {
		i := sg.from
		for i < n && u[j] < step[i] {
			i++
			j++
		}
		if i == n {
			return sg.end, j, triggered, true
		}
		j++
		k := 0 // step i failed; k counts the retries that fail too
		for k < retries && u[j] >= retry[i] {
			k++
			j++
		}
		at := (i - sg.from) * retries
		switch {
		case retries == 0:
			return sg.at[i-sg.from], j, true, false
		case k == retries:
			return sg.retried[at+k-1], j, true, false
		}
		j++ // the retry that succeeded
		if sg.next == nil {
			return m.walkOn(u, j, o, i+1, sg.retried[at+k])
		}
		sg, triggered = sg.next[at+k], true
	}
}

// walkOn is the walk from step from, drawing u[j] on, with sums s after a
// recovered failure: below the last level of segments, adding up step by step.
func (m *modeledJourney) walkOn(u []float64, j int, o *stepOdds, from int, s trialSums) (_ trialSums, next int, triggered, reached bool) {
	for i := from; i < len(m.weights); i++ {
		s = s.plus(m.attempt[i])
		j++
		if u[j-1] < o.step[i] {
			continue
		}
		ok := false
		for range m.maxRetries {
			s = s.plus(m.retry[i])
			j++
			if u[j-1] < o.retry[i] {
				ok = true
				break
			}
		}
		if !ok {
			return s, j, true, false
		}
	}
	return s, j, true, true
}

// trialOutcome is what the tally reads of a trial.
type trialOutcome struct {
	latencyMs, inputTokens, outputTokens int
	attempts                             int
	passed, recoveryTriggered, recovered bool
	notEvaluable                         bool
	latencyUnknown, tokensUnknown        bool
}

func (tr *Trial) outcome() trialOutcome {
	return trialOutcome{
		latencyMs: tr.LatencyMs, inputTokens: tr.InputTokens, outputTokens: tr.OutputTokens,
		attempts: tr.Attempts,
		passed:   tr.Passed, recoveryTriggered: tr.RecoveryTriggered, recovered: tr.Recovered,
		notEvaluable: tr.NotEvaluable, latencyUnknown: tr.LatencyUnknown, tokensUnknown: tr.TokensUnknown,
	}
}

// trial is the Trial of outcome o: repetition r of journey m by planner plannerID.
func (m *modeledJourney) trial(plannerID string, r int, o trialOutcome) Trial {
	return Trial{
		PlannerID: plannerID, AppID: m.appID, FixtureID: m.fixtureID, JourneyID: m.id, Repetition: r,
		Passed: o.passed, LatencyMs: o.latencyMs, InputTokens: o.inputTokens, OutputTokens: o.outputTokens,
		RecoveryTriggered: o.recoveryTriggered, Recovered: o.recovered,
	}
}

// drawReps draws repetitions 1..reps of journey m, the journey with index j of
// t, by a planner with traits p and odds o, from its stream u (repetition r draws
// u[r], u[r+1], …), and adds them to t. When seen is not nil it also sees every
// outcome. The trial is drawn in this loop rather than in a function of its own,
// and counted in local variables rather than through t: calling a function per
// trial, copying its result back and updating t in memory cost a fifth of the
// comparison.
func (m *modeledJourney) drawReps(o *stepOdds, p plannerTraits, u []float64, reps, j int, t *trialTally, seen func(r int, o trialOutcome)) {
	first := len(t.latencies)
	t.latencies = slices.Grow(t.latencies, reps)[:first+reps]
	latencies := t.latencies[first:]
	t.latJourney = slices.Grow(t.latJourney, reps)[:first+reps]
	for i := range reps {
		t.latJourney[first+i] = int32(j)
	}
	jt := &t.journeys[j]
	var passes, inputTokens, outputTokens, triggeredRuns, recoveredRuns int
	for r := 1; r <= reps; r++ {
		u := u[r : r+m.maxDraws]
		jitterTime := 0.8 + float64(0.4*u[0])
		jitterTokens := 0.9 + float64(0.2*u[1])
		s, next, triggered, reached := m.walk(u[2:], o)
		passed := reached
		if reached {
			for _, x := range u[2+next : 2+next+m.assertions] {
				s.ms += assertionMs
				if x >= o.assertion {
					passed = false
					break
				}
			}
		}
		out := trialOutcome{
			latencyMs:         int(math.Round(p.speed * jitterTime * s.ms)),
			inputTokens:       int(math.Round(p.verbosity * jitterTokens * s.in)),
			outputTokens:      int(math.Round(p.verbosity * jitterTokens * s.out)),
			passed:            passed,
			recoveryTriggered: triggered,
			recovered:         triggered && reached,
		}
		// As trialTally.add counts a first attempt that is the only one,
		// without branching on the outcome.
		latencies[r-1] = out.latencyMs
		setRep(&jt.ran, &jt.firstPassed, r, out.passed)
		passes += b2i(out.passed)
		inputTokens += out.inputTokens
		outputTokens += out.outputTokens
		triggeredRuns += b2i(out.recoveryTriggered)
		recoveredRuns += b2i(out.recoveryTriggered) & b2i(out.recovered)
		if seen != nil {
			seen(r, out)
		}
	}
	jt.runs += reps
	jt.passes += passes
	jt.firstPasses += passes
	jt.inputTokens += inputTokens
	jt.outputTokens += outputTokens
	jt.triggered += triggeredRuns
	jt.recovered += recoveredRuns
}
