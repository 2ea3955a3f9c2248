package automium

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

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
