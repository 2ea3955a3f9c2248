package automium

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
