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
var intentWeights = map[string]float64{
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
	trialStreamStride     = 0x9E3779B97F4A7C15
)

// modeledJourney is what the model needs of a compiled reference journey.
type modeledJourney struct {
	id, appID  string
	fixtureID  string
	weights    []float64 // per step node, in order
	assertions int
	maxRetries int
	strategies int
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
	return m
}

// plannerTraits is a planner's effect in the model; see ComparePlanners.
type plannerTraits struct {
	lambda, rho, speed, verbosity float64
}

func traitsOf(p PlannerRef) plannerTraits {
	var buf [64 + 3*MaxIDLength]byte
	key := append(buf[:0], "automium/planner-traits/v1\x00"...)
	key = append(append(key, p.ID...), 0)
	key = append(append(key, p.Vendor...), 0)
	key = append(key, p.Model...)
	sum := sha256.Sum256(key)
	u := func(i int) float64 { return unitFloat(binary.BigEndian.Uint64(sum[8*i:])) }
	skill := 0.55 + 0.40*u(0)
	return plannerTraits{
		lambda:    0.60 * (1 - skill),
		rho:       0.50 + 0.50*skill,
		speed:     0.70 + 0.60*u(1),
		verbosity: 0.70 + 0.60*u(2),
	}
}

// trialDrawer draws modeled trials. Its scratch space is reused from one planner
// and journey to the next, so drawing allocates nothing per trial.
type trialDrawer struct {
	odds  stepOdds
	keyer trialKeyer
	trial Trial // the trial being handed out; a local would escape through add
}

// drawAll draws repetitions 1..reps of every journey by planner p, handing each
// trial and the index of its journey to add.
func (d *trialDrawer) drawAll(seed uint64, p PlannerRef, journeys []*modeledJourney, reps int, add func(journey int, tr *Trial)) {
	traits := traitsOf(p)
	for j, m := range journeys {
		d.odds.set(m, traits)
		base := d.keyer.streamBase(seed, p.ID, m.id)
		for r := 1; r <= reps; r++ {
			d.trial = m.draw(&d.odds, p.ID, traits, base, r)
			add(j, &d.trial)
		}
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

// splitMix64 is Steele, Lea and Flood's SplitMix64: tiny, fast and good enough to
// turn a hashed key into a stream of independent-looking draws. Each trial owns one,
// so no state is shared between trials or goroutines.
type splitMix64 struct{ state uint64 }

func (s *splitMix64) float() float64 {
	s.state += 0x9E3779B97F4A7C15
	z := s.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return unitFloat(z ^ (z >> 31))
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

// draw is one modeled trial: repetition r of journey m by planner id with traits p.
func (m *modeledJourney) draw(o *stepOdds, id string, p plannerTraits, base uint64, r int) Trial {
	rng := splitMix64{state: base + uint64(r)*trialStreamStride}
	jitterTime := 0.8 + 0.4*rng.float()
	jitterTokens := 0.9 + 0.2*rng.float()
	strategies := float64(m.strategies)
	var ms, in, out float64
	triggered, reached := false, true
	for i, w := range m.weights {
		ms += stepMsPerWeight * w
		in += stepInputTokens + stepInputPerWeight*w
		out += stepOutputTokens + stepOutputPerWeight*w
		if rng.float() < o.step[i] {
			continue
		}
		triggered = true
		ok := false
		for range m.maxRetries {
			ms += recoveryMsPerStrategy*strategies + stepMsPerWeight*w
			in += recoveryInputPerStrat*strategies + stepInputTokens + stepInputPerWeight*w
			out += recoveryOutputTokens + stepOutputTokens + stepOutputPerWeight*w
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
	}
}
