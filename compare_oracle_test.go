package automium

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// oracleCase is one input of the independent oracle (testdata/oracle/check.py)
// with the report and the unrounded figures behind it. The oracle recomputes
// everything from the trials alone, with scipy and statsmodels.
type oracleCase struct {
	Name     string           `json:"name"`
	Matched  bool             `json:"matched"`
	Planners []string         `json:"planners"`
	Trials   [][6]int         `json:"trials"` // planner index, journey index, repetition, passed, attempts, notEvaluable
	Journeys []string         `json:"journeys"`
	Report   ComparisonReport `json:"report"`
	Planner  []oraclePlanner  `json:"planner"`
	Pairs    []oraclePair     `json:"pairs"`
	HolmP    []float64        `json:"holmP"`
}

type oraclePlanner struct {
	Wilson      [2]float64 `json:"wilson"`      // of passRate
	FirstWilson [2]float64 `json:"firstWilson"` // of firstAttemptPassRate
	PassAtK     []float64  `json:"passAtK"`
}

type oraclePair struct {
	Journeys []string  `json:"journeys"`
	Diffs    []float64 `json:"diffs"`
	Mean     float64   `json:"mean"`
	SE       float64   `json:"se"`
	P        float64   `json:"p"`
	Lower    float64   `json:"lower"`
	Upper    float64   `json:"upper"`
	MDE      float64   `json:"mde"`
	FisherP  []float64 `json:"fisherP"`
}

// TestOracleCases writes the oracle's cases to the file AUTOMIUM_ORACLE_OUT
// names (a temporary file of .ci/run's; never one in the repository) and is
// skipped without it: 300 seeded random observed inputs, some with matched
// rounds, and the five cases of issue 26.
func TestOracleCases(t *testing.T) {
	out := os.Getenv("AUTOMIUM_ORACLE_OUT")
	if out == "" {
		t.Skip("AUTOMIUM_ORACLE_OUT names no file; .ci/run sets it and runs testdata/oracle/check.py on the result")
	}
	var cases []oracleCase
	add := func(name string, matched bool, ids []string, trials []Trial) {
		cases = append(cases, oracleCaseOf(t, name, matched, ids, trials))
	}
	rng := rand.New(rand.NewPCG(2026, 26))
	for n := range 300 {
		ids, trials := randomTrials(rng, 2+n%3, 1+rng.IntN(30))
		matched := n%5 == 4
		if matched {
			for i := range trials {
				trials[i].Attempts = 0 // matched rounds: repetitions as given
			}
		}
		add(fmt.Sprintf("random-%03d", n), matched, ids, trials)
	}
	for _, c := range whyCases() {
		add(c.name, false, c.planners, c.trials)
	}
	b, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

type namedCase struct {
	name     string
	planners []string
	trials   []Trial
}

// whyCases are the observed inputs of issue 26's five cases (the modeled one
// through its draws).
func whyCases() []namedCase {
	var numbered, renumbered, two, shared, retries, twenty []Trial
	for j := range 5 {
		id := fmt.Sprintf("j%d", j)
		numbered = append(numbered, countsTrials("a", id, 6, 10, false)...)
		numbered = append(numbered, countsTrials("b", id, 4, 10, false)...)
		renumbered = append(renumbered, countsTrials("a", id, 6, 10, false)...)
		renumbered = append(renumbered, countsTrials("b", id, 4, 10, true)...)
	}
	two = append(countsTrials("a", "j1", 20, 20, false), countsTrials("b", "j1", 0, 20, false)...)
	two = append(two, countsTrials("a", "j2", 20, 20, false)...)
	two = append(two, countsTrials("b", "j2", 20, 20, false)...)
	shared = append(countsTrials("a", "easy", 5, 5, false), countsTrials("a", "hard", 2, 5, false)...)
	shared = append(shared, countsTrials("b", "easy", 5, 5, false)...)
	retries = append(countsTrials("a", "j1", 3, 3, false), countsTrials("a", "j2", 3, 3, false)...)
	retries[4].Attempts = 2
	retries = append(retries, countsTrials("b", "j1", 2, 3, false)...)
	retries = append(retries, countsTrials("b", "j2", 3, 3, false)...)
	for j := range 20 {
		id := fmt.Sprintf("j%02d", j)
		twenty = append(twenty, countsTrials("a", id, 8, 10, false)...)
		twenty = append(twenty, countsTrials("b", id, 5, 10, true)...)
	}
	in := ComparePlannersInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, AppIDs: owned().appIDs, Repetitions: 100, Planners: []PlannerRef{
		{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"}, {ID: "candidate", Vendor: "anthropic", Model: "claude-sonnet-4"}}}
	modeled, err := drawModeledTrials(in)
	if err != nil {
		panic(err)
	}
	ab := []string{"a", "b"}
	return []namedCase{
		{"why-1-numbered", ab, numbered}, {"why-1-renumbered", ab, renumbered}, {"why-2-two-journeys", ab, two},
		{"why-3-shared-workload", ab, shared}, {"why-4-retries", ab, retries}, {"why-5-modeled-names", []string{"baseline", "candidate"}, modeled},
		{"twenty-journeys", ab, twenty},
	}
}

// oracleCaseOf runs one input and gathers the unrounded figures, through the
// same functions the report uses.
func oracleCaseOf(t *testing.T, name string, matched bool, ids []string, trials []Trial) oracleCase {
	t.Helper()
	in := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Trials: trials, MatchedRounds: matched}
	for _, id := range ids {
		in.Planners = append(in.Planners, PlannerRef{ID: id, Vendor: "v", Model: "m"})
	}
	report, err := CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := observedTrialsPlan(in)
	if err != nil {
		t.Fatal(err)
	}
	c := oracleCase{Name: name, Matched: matched, Planners: ids, Journeys: plan.journeyIDs, Report: report}
	for i, tr := range trials {
		c.Trials = append(c.Trials, [6]int{plan.planner[i], plan.journey[i], tr.Repetition, b2i(tr.Passed), tr.Attempts, b2i(tr.NotEvaluable)})
	}
	runs := make([][]journeyRuns, len(ids))
	var tally trialTally
	for p := range ids {
		tally.reset(len(plan.journeyIDs), plan.trialsPerPlanner[p])
		for i := range trials {
			if plan.planner[i] == p {
				tally.add(plan.journey[i], trials[i].Repetition, trials[i].outcome())
			}
		}
		runs[p] = tally.journeyRuns()
		var op oraclePlanner
		pr := report.Planners[p]
		w, _ := wilson95(pr.PassRate.Successes, pr.PassRate.N)
		f, _ := wilson95(pr.FirstAttemptPassRate.Successes, pr.FirstAttemptPassRate.N)
		op.Wilson, op.FirstWilson = [2]float64{w.Lower, w.Upper}, [2]float64{f.Lower, f.Upper}
		k := len(pr.Repeatability.PassAtK)
		sums := make([]float64, k)
		row := make([]float64, k)
		for _, jr := range runs[p] {
			clear(row)
			passHatK(row, jr.firstPasses, jr.runs)
			for i := range sums {
				sums[i] += row[i]
			}
		}
		for i := range sums {
			sums[i] /= float64(len(runs[p]))
		}
		op.PassAtK = sums
		c.Planner = append(c.Planner, op)
	}
	var q pairScratch
	var ps []float64
	for a := range ids {
		for b := a + 1; b < len(ids); b++ {
			pc, st := pairRuns(runs[a], runs[b], matched, plan.journeyIDs, &q)
			op := oraclePair{Diffs: st.diffs, Mean: st.mean, SE: st.se, P: st.p, Lower: st.lo, Upper: st.hi, MDE: st.mde}
			for _, row := range pc.Journeys {
				op.Journeys = append(op.Journeys, row.JourneyID)
				op.FisherP = append(op.FisherP, fisherExact(row.APasses, row.ARuns, row.BPasses, row.BRuns))
			}
			c.Pairs = append(c.Pairs, op)
			ps = append(ps, st.p)
		}
	}
	c.HolmP = holmAdjust(ps)
	return c
}
