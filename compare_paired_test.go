package automium

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/exp/stats"
)

// TestTDistributionPublished holds the t tail and quantiles to table values
// (the full digits as scipy 1.10.1's stats.t gives them; the CI oracle checks
// thousands more).
func TestTDistributionPublished(t *testing.T) {
	quantiles := []struct {
		alpha, df, want float64
	}{
		{0.05, 1, 12.706204736174698}, {0.05, 2, 4.302652729749464}, {0.05, 4, 2.7764451051977934},
		{0.05, 19, 2.093024054408309}, {0.05, 624, 1.9637729605589076}, {0.40, 1, 1.3763819204711734},
		{0.40, 4, 0.9409645094347377}, {0.40, 19, 0.8609506472101632},
	}
	for _, q := range quantiles {
		if got := tQuantile(q.alpha, q.df); !near(got, q.want, 1e-6) {
			t.Errorf("tQuantile(%v, %v) = %.12g; want %.12g", q.alpha, q.df, got, q.want)
		}
	}
	tails := []struct{ t, df, want float64 }{ // two-sided tails
		{2, 10, 0.07338803477074367}, {1, 1, 0.5}, {0, 5, 1}, {12.706204736174698, 1, 0.05}, {21.5, 1, 0.029588897400746036}, {5, 100, 2.4501734135037985e-06},
	}
	for _, c := range tails {
		if got := tTwoSided(c.t, c.df); !near(got, c.want, 1e-4) {
			t.Errorf("tTwoSided(%v, %v) = %.12g; want %.12g", c.t, c.df, got, c.want)
		}
	}
}

// TestFisherExactHandComputed: Fisher's tea-tasting table (3 of 4 against 1
// of 4: 34/70), the most extreme table of 20 runs each (2/C(40,20)), and tables
// with one possible layout.
func TestFisherExactHandComputed(t *testing.T) {
	tests := []struct {
		x1, n1, x2, n2 int
		want           float64
	}{
		{3, 4, 1, 4, 34.0 / 70},
		{20, 20, 0, 20, 2 / 137846528820.0},
		{1, 1, 0, 1, 1},
		{5, 5, 5, 5, 1},
		{0, 3, 0, 7, 1},
		{6, 10, 4, 10, 0.6562817986966593},
	}
	for _, tt := range tests {
		if got := fisherExact(tt.x1, tt.n1, tt.x2, tt.n2); !near(got, tt.want, 1e-6) {
			t.Errorf("fisherExact(%d/%d, %d/%d) = %.12g; want %.12g", tt.x1, tt.n1, tt.x2, tt.n2, got, tt.want)
		}
	}
}

func near(got, want, rel float64) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	if want < 1e-300 {
		return d < 1e-300
	}
	return d <= rel*want
}

func TestHolmAdjustHandComputed(t *testing.T) {
	tests := []struct {
		p, want []float64
	}{
		// Sorted 0.01, 0.03, 0.04: ×3 = 0.03, ×2 = 0.06, ×1 = 0.04 raised to 0.06.
		{[]float64{0.01, 0.04, 0.03}, []float64{0.03, 0.06, 0.06}},
		{[]float64{0.2, 0.9}, []float64{0.4, 0.9}},
		{[]float64{0.6, 0.7}, []float64{1, 1}},
		{[]float64{0.02}, []float64{0.02}},
		{nil, []float64{}},
	}
	for _, tt := range tests {
		got := holmAdjust(tt.p)
		for i := range got {
			got[i] = roundReport(got[i])
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("holmAdjust(%v) (-want +got):\n%s", tt.p, diff)
		}
	}
}

// pairedTrial is repetition rep of journey j by planner p, passed or not.
func pairedTrial(p, j string, rep int, passed bool) Trial {
	tr := cmpTrial(p, j, rep)
	tr.Passed = passed
	return tr
}

func observedPairs(t *testing.T, planners []string, trials []Trial) ComparisonReport {
	t.Helper()
	in := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Trials: trials}
	for _, id := range planners {
		in.Planners = append(in.Planners, PlannerRef{ID: id, Vendor: "v", Model: "m"})
	}
	r, err := CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// countsTrials makes the trials of planner p on journey j: runs of which the
// first `passes` by repetition number pass, or, when late is set, the last.
func countsTrials(p, j string, passes, runs int, late bool) []Trial {
	var out []Trial
	for r := 1; r <= runs; r++ {
		pass := r <= passes
		if late {
			pass = r > runs-passes
		}
		out = append(out, pairedTrial(p, j, r, pass))
	}
	return out
}

// TestWhyCases are the five ways issue 26 found the report misleading, with
// the honest answers.
func TestWhyCases(t *testing.T) {
	t.Run("1 numbering", func(t *testing.T) {
		var early, late []Trial
		for j := range 5 {
			id := fmt.Sprintf("j%d", j)
			early = append(early, countsTrials("a", id, 6, 10, false)...)
			early = append(early, countsTrials("b", id, 4, 10, false)...)
			late = append(late, countsTrials("a", id, 6, 10, false)...)
			late = append(late, countsTrials("b", id, 4, 10, true)...)
		}
		x := observedPairs(t, []string{"a", "b"}, early).Pairs[0]
		y := observedPairs(t, []string{"a", "b"}, late).Pairs[0]
		if diff := cmp.Diff(x, y); diff != "" {
			t.Errorf("renumbering B's passes changes the pair (-early +late):\n%s", diff)
		}
		if x.Verdict != PairIndistinguishable || !strings.Contains(x.Reason, "too few shared journeys (5;") {
			t.Errorf("verdict %q (%s); want indistinguishable for too few journeys", x.Verdict, x.Reason)
		}
		if x.MeanDifference != 0.2 || x.Difference95.Lower >= 0 || x.Difference95.Upper <= 0 || x.P < 0.05 {
			t.Errorf("difference %v, interval %+v, p %v; want 0.2 with an interval over 0 and p ≥ 0.05", x.MeanDifference, x.Difference95, x.P)
		}
	})
	t.Run("2 two journeys", func(t *testing.T) {
		trials := append(countsTrials("a", "j1", 20, 20, false), countsTrials("b", "j1", 0, 20, false)...)
		trials = append(trials, countsTrials("a", "j2", 20, 20, false)...)
		trials = append(trials, countsTrials("b", "j2", 20, 20, false)...)
		pc := observedPairs(t, []string{"a", "b"}, trials).Pairs[0]
		if pc.Verdict != PairIndistinguishable || !strings.Contains(pc.Reason, "too few shared journeys (2;") {
			t.Errorf("verdict %q (%s); want indistinguishable: two journeys", pc.Verdict, pc.Reason)
		}
		if pc.P != 0.5 || pc.Difference95 != (DifferenceInterval{-1, 1}) {
			t.Errorf("p %v, interval %+v; want 0.5 and [−1,1] (t = 1 on 1 df)", pc.P, pc.Difference95)
		}
		want := []JourneyFlag{FlagRegressed, FlagUnchanged}
		for i, row := range pc.Journeys {
			if row.Flag != want[i] {
				t.Errorf("row %s flagged %q; want %q", row.JourneyID, row.Flag, want[i])
			}
		}
	})
	t.Run("3 shared workload", func(t *testing.T) {
		trials := append(countsTrials("a", "easy", 5, 5, false), countsTrials("a", "hard", 2, 5, false)...)
		trials = append(trials, countsTrials("b", "easy", 5, 5, false)...)
		r := observedPairs(t, []string{"a", "b"}, trials)
		if diff := cmp.Diff([]string{"a", "b"}, r.ParetoPlannerIDs); diff != "" || r.SharedJourneys != 1 {
			t.Errorf("shared journeys %d, Pareto (-want +got):\n%s", r.SharedJourneys, diff)
		}
		if r.Planners[0].PassRate.Value != 0.7 || r.Planners[0].SharedWorkload.FirstAttemptPassRate != 1 {
			t.Errorf("a: own %v, shared %v; want 0.7 and 1", r.Planners[0].PassRate.Value, r.Planners[0].SharedWorkload.FirstAttemptPassRate)
		}
		if pc := r.Pairs[0]; pc.SharedJourneys != 1 || pc.JourneysOnlyA != 1 || pc.Verdict != PairIndistinguishable {
			t.Errorf("pair %+v; want 1 shared journey, 1 only A's, indistinguishable", pc)
		}
		none := observedPairs(t, []string{"a", "b"}, append(countsTrials("a", "x", 1, 1, false), countsTrials("b", "y", 1, 1, false)...))
		if len(none.ParetoPlannerIDs) != 0 || none.SharedJourneys != 0 || none.Planners[0].SharedWorkload != nil {
			t.Errorf("nothing shared: Pareto %v, shared %d; want none", none.ParetoPlannerIDs, none.SharedJourneys)
		}
	})
	t.Run("4 retries", func(t *testing.T) {
		trials := countsTrials("c", "j1", 3, 3, false)
		j2 := countsTrials("c", "j2", 3, 3, false)
		j2[1].Attempts = 2 // failed, then passed on its retry
		r := observedPairs(t, []string{"c"}, append(trials, j2...))
		p := r.Planners[0]
		var ks []float64
		for _, k := range p.Repeatability.PassAtK {
			ks = append(ks, k.Value)
		}
		if diff := cmp.Diff([]float64{0.833333, 0.666667, 0.5}, ks); diff != "" {
			t.Errorf("pass^k by first attempts (-want +got):\n%s", diff)
		}
		if p.PassRate.Value != 1 || p.FirstAttemptPassRate.Successes != 5 || p.RescuedByRetry != 1 || p.JourneyRows[1].RescuedByRetry != 1 {
			t.Errorf("pass rate %v, first attempts %d, rescued %d; want 1, 5, 1", p.PassRate.Value, p.FirstAttemptPassRate.Successes, p.RescuedByRetry)
		}
	})
	t.Run("5 modeled names", func(t *testing.T) {
		in := ComparePlannersInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, AppIDs: owned().appIDs, Repetitions: 100, Planners: []PlannerRef{
			{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"}, {ID: "candidate", Vendor: "anthropic", Model: "claude-sonnet-4"}}}
		r, err := ComparePlanners(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		pc := r.Pairs[0]
		if len(r.ParetoPlannerIDs) != 0 || pc.Verdict != PairModeledNotEvidence {
			t.Errorf("Pareto %v, verdict %q; want none and not evidence", r.ParetoPlannerIDs, pc.Verdict)
		}
		if pc.Difference95.Lower > 0 || pc.Difference95.Upper < 0 {
			t.Errorf("A/A draws differ beyond chance: %+v", pc)
		}
		in.Planners[1].Model, in.Planners[1].Vendor = "gpt-4.1-mini", "openai"
		renamed, err := ComparePlanners(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		renamed.Planners[1].Planner = r.Planners[1].Planner
		if diff := cmp.Diff(r, renamed); diff != "" {
			t.Errorf("renaming a model changes the report (-before +after):\n%s", diff)
		}
	})
}

// TestStrongEvidenceWins: 20 journeys at 0.8 against 0.5 is "A better", and
// the reverse "B better".
func TestStrongEvidenceWins(t *testing.T) {
	var trials []Trial
	for j := range 20 {
		id := fmt.Sprintf("j%02d", j)
		trials = append(trials, countsTrials("a", id, 8, 10, false)...)
		trials = append(trials, countsTrials("b", id, 5, 10, true)...)
	}
	if pc := observedPairs(t, []string{"a", "b"}, trials).Pairs[0]; pc.Verdict != PairABetter || pc.Difference95.Lower <= 0 {
		t.Errorf("pair %+v; want A better", pc)
	}
	if pc := observedPairs(t, []string{"b", "a"}, trials).Pairs[0]; pc.Verdict != PairBBetter {
		t.Errorf("reversed: verdict %q; want B better", pc.Verdict)
	}
}

// randomTrials draws a seeded observed input: planners × journeys with uneven
// runs, outcomes of per-(planner, journey) rates, retries, infrastructure
// errors and unknown latencies and tokens.
func randomTrials(rng *rand.Rand, planners, journeys int) ([]string, []Trial) {
	ids := make([]string, planners)
	var trials []Trial
	for p := range ids {
		ids[p] = fmt.Sprintf("p%d", p)
		for j := range journeys {
			if j > 0 && rng.IntN(8) == 0 {
				continue // this planner skipped the journey (never the first, so every planner has trials)
			}
			rate := rng.Float64()
			runs := 1 + rng.IntN(12)
			for r := 1; r <= runs; r++ {
				tr := cmpTrial(ids[p], fmt.Sprintf("j%02d", j), r)
				tr.Passed = rng.Float64() < rate
				tr.LatencyMs, tr.InputTokens, tr.OutputTokens = rng.IntN(90_000), rng.IntN(5_000), rng.IntN(500)
				switch rng.IntN(12) {
				case 0:
					tr.Passed, tr.NotEvaluable = false, true
				case 1:
					tr.Attempts = 2 + rng.IntN(2)
				case 2:
					tr.LatencyUnknown, tr.LatencyMs = true, 0
				case 3:
					tr.TokensUnknown, tr.InputTokens, tr.OutputTokens = true, 0, 0
				case 4:
					tr.RecoveryTriggered, tr.Recovered = true, rng.IntN(2) == 0
				}
				trials = append(trials, tr)
			}
		}
	}
	return ids, trials
}

// TestPairProperties over seeded random inputs: renumbering repetitions and
// reordering trials change nothing; a decisive verdict never sits beside an
// interval covering 0; fewer than MinDecisiveJourneys never decide.
func TestPairProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 4))
	for n := range 60 {
		ids, trials := randomTrials(rng, 2+n%3, 1+rng.IntN(24))
		base := observedPairs(t, ids, trials)
		shuffled := append([]Trial(nil), trials...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		for i := range shuffled { // renumber: repetition r becomes 101 − r, a bijection per planner and journey
			shuffled[i].Repetition = limit.MaxRepetitions + 1 - shuffled[i].Repetition
		}
		again := observedPairs(t, ids, shuffled)
		if diff := cmp.Diff(base, again); diff != "" {
			t.Fatalf("case %d: renumbering and reordering change the report (-before +after):\n%s", n, diff)
		}
		for _, pc := range base.Pairs {
			decisive := pc.Verdict == PairABetter || pc.Verdict == PairBBetter
			if decisive && pc.Difference95.Lower <= 0 && pc.Difference95.Upper >= 0 {
				t.Errorf("case %d: %s beside interval %+v", n, pc.Verdict, pc.Difference95)
			}
			if decisive && pc.SharedJourneys < MinDecisiveJourneys {
				t.Errorf("case %d: %s on %d journeys", n, pc.Verdict, pc.SharedJourneys)
			}
			if pc.Reason == "" {
				t.Errorf("case %d: no reason", n)
			}
		}
	}
}

// TestAggregatesRecomputeFromRows recomputes every aggregate of seeded random
// reports from their rows alone, with code of its own: the planner figures
// (but the latency quantiles) from journeyRows, the app rollups, and every
// pair's estimate, standard error, interval, Holm p and verdict from its
// journey rows.
func TestAggregatesRecomputeFromRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 7))
	for n := range 40 {
		ids, trials := randomTrials(rng, 2+n%3, 6+rng.IntN(20))
		r := observedPairs(t, ids, trials)
		for _, p := range r.Planners {
			var runs, passes, first, rescued, notEval, in, out, latU, tokU, trig, rec, journeys, agree int
			apps := map[string]AppRollup{}
			k := len(p.Repeatability.PassAtK)
			passK := make([]float64, k)
			for _, row := range p.JourneyRows {
				runs += row.Runs
				passes += row.Passes
				first += row.FirstAttemptPasses
				rescued += row.RescuedByRetry
				notEval += row.NotEvaluable
				in += row.InputTokens
				out += row.OutputTokens
				latU += row.LatencyUnknown
				tokU += row.TokensUnknown
				trig += row.RecoveryTriggered
				rec += row.Recovered
				a := apps[row.AppID]
				a.AppID = row.AppID
				a.Runs += row.Runs
				a.NotEvaluable += row.NotEvaluable
				a.Passes += row.Passes
				a.FirstAttemptPasses += row.FirstAttemptPasses
				a.RescuedByRetry += row.RescuedByRetry
				if row.Runs > 0 {
					a.Journeys++
					journeys++
					if row.RescuedByRetry == 0 && (row.FirstAttemptPasses == 0 || row.FirstAttemptPasses == row.Runs) {
						agree++
					}
					for i := range k {
						passK[i] += exactPassHatK(row.FirstAttemptPasses, row.Runs, i+1)
					}
				}
				apps[row.AppID] = a
			}
			got := []float64{float64(runs + notEval), float64(journeys), float64(passes), float64(first), float64(rescued), float64(notEval),
				float64(in), float64(out), float64(latU), float64(tokU), roundReport(float64(in+out) / float64(runs-tokU)),
				roundReport(float64(agree) / float64(journeys))}
			want := []float64{float64(p.Trials), float64(p.Journeys), float64(p.PassRate.Successes), float64(p.FirstAttemptPassRate.Successes),
				float64(p.RescuedByRetry), float64(p.NotEvaluable), float64(p.TokenSpend.InputTotal), float64(p.TokenSpend.OutputTotal),
				float64(p.LatencyUnknown), float64(p.TokensUnknown), p.TokenSpend.MeanPerJourneyRun, p.Repeatability.AllOutcomesAgreeShare}
			if diff := cmp.Diff(want, got); diff != "" || p.PassRate.N != runs {
				t.Errorf("case %d, %s: figures from rows (-report +rows):\n%s", n, p.Planner.ID, diff)
			}
			for i, v := range passK {
				if math.Abs(roundReport(v/float64(journeys))-p.Repeatability.PassAtK[i].Value) > 1e-6 {
					t.Errorf("case %d, %s: pass^%d %v from rows, %v in the report", n, p.Planner.ID, i+1, v/float64(journeys), p.Repeatability.PassAtK[i].Value)
				}
			}
			if (trig > 0) != (p.RecoverySuccessRate != nil) || (trig > 0 && (p.RecoverySuccessRate.Successes != rec || p.RecoverySuccessRate.N != trig)) {
				t.Errorf("case %d, %s: recovery %d of %d from rows, %+v in the report", n, p.Planner.ID, rec, trig, p.RecoverySuccessRate)
			}
			for _, a := range p.Apps {
				if diff := cmp.Diff(apps[a.AppID], a); diff != "" {
					t.Errorf("case %d, %s: app rollup (-rows +report):\n%s", n, p.Planner.ID, diff)
				}
			}
		}
		var ps []float64
		for _, pc := range r.Pairs {
			var d, v []float64
			for _, row := range pc.Journeys {
				ra, rb := float64(row.APasses)/float64(row.ARuns), float64(row.BPasses)/float64(row.BRuns)
				d = append(d, ra-rb)
				sa, sb := float64(row.APasses+1)/float64(row.ARuns+2), float64(row.BPasses+1)/float64(row.BRuns+2)
				v = append(v, sa*(1-sa)/float64(row.ARuns)+sb*(1-sb)/float64(row.BRuns))
			}
			g := float64(len(d))
			var mean, ss, fl float64
			for i := range d {
				mean += d[i] / g
				fl += v[i]
			}
			for i := range d {
				ss += (d[i] - mean) * (d[i] - mean)
			}
			p := 1.0
			if len(d) >= 2 {
				se := math.Max(math.Sqrt(ss/(g-1)/g), math.Sqrt(fl)/g)
				if math.Abs(se-pc.StandardError) > 2e-6 {
					t.Errorf("case %d: SE %v from rows, %v in the report", n, se, pc.StandardError)
				}
				p = tTwoSided(mean/se, g-1)
				half := tQuantile(0.05, g-1) * se
				if math.Abs(math.Max(-1, mean-half)-pc.Difference95.Lower) > 2e-6 || math.Abs(math.Min(1, mean+half)-pc.Difference95.Upper) > 2e-6 {
					t.Errorf("case %d: interval [%v, %v] from rows, %+v in the report", n, mean-half, mean+half, pc.Difference95)
				}
			}
			if len(d) > 0 && math.Abs(mean-pc.MeanDifference) > 1e-6 || math.Abs(p-pc.P) > 1e-6 {
				t.Errorf("case %d: mean %v p %v from rows; report %v %v", n, mean, p, pc.MeanDifference, pc.P)
			}
			ps = append(ps, p)
		}
		for i, h := range holmAdjust(ps) {
			pc := r.Pairs[i]
			if math.Abs(h-pc.HolmP) > 1e-5 {
				t.Errorf("case %d: Holm %v from rows, %v in the report", n, h, pc.HolmP)
			}
			want := PairIndistinguishable
			if pc.SharedJourneys >= MinDecisiveJourneys && h <= PairedAlpha && pc.MeanDifference != 0 {
				want = map[bool]PairVerdict{true: PairABetter, false: PairBBetter}[pc.MeanDifference > 0]
			}
			if pc.Verdict != want && math.Abs(h-PairedAlpha) > 1e-6 {
				t.Errorf("case %d: verdict %q; rows say %q", n, pc.Verdict, want)
			}
		}
	}
}

// TestMatchedRounds: declared matched rounds pair runs by repetition within a
// journey, and only then does numbering matter.
func TestMatchedRounds(t *testing.T) {
	var trials []Trial
	for j := range 8 {
		id := fmt.Sprintf("j%d", j)
		trials = append(trials, countsTrials("a", id, 6, 10, false)...)
		trials = append(trials, countsTrials("b", id, 4, 10, false)...)
	}
	in := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Trials: trials, MatchedRounds: true,
		Planners: []PlannerRef{{ID: "a", Vendor: "v", Model: "m"}, {ID: "b", Vendor: "v", Model: "m"}}}
	r, err := CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	pc := r.Pairs[0]
	row := pc.Journeys[0]
	if pc.Pairing != PairingMatchedRounds || !r.MatchedRounds || row.MatchedRuns != 10 || row.APassedOnly != 2 || row.BPassedOnly != 0 {
		t.Errorf("pairing %q, row %+v; want matched rounds, 10 matched, 2 A alone", pc.Pairing, row)
	}
	if pc.MeanDifference != 0.2 || pc.Verdict != PairABetter {
		t.Errorf("difference %v, verdict %q; want 0.2 and A better (every round agrees)", pc.MeanDifference, pc.Verdict)
	}
}

func TestParetoHandComputed(t *testing.T) {
	rep := func(id string, pass, ms, tokens float64) PlannerReport {
		return PlannerReport{Planner: PlannerRef{ID: id}, SharedWorkload: &WorkloadFigures{FirstAttemptPassRate: pass, MedianJourneyLatencyMs: ms, MeanTokensPerRun: tokens}}
	}
	tests := []struct {
		name    string
		reports []PlannerReport
		want    []string
	}{
		{"one planner", []PlannerReport{rep("a", 0.5, 100, 10)}, []string{"a"}},
		// b beats a on everything; c trades pass rate for speed; d equals b.
		{"dominated, traded, equal", []PlannerReport{
			rep("a", 0.5, 200, 20), rep("b", 0.8, 100, 10), rep("c", 0.6, 50, 10), rep("d", 0.8, 100, 10),
		}, []string{"b", "c", "d"}},
		// Better on one, equal on the rest, still dominates.
		{"strict on one", []PlannerReport{rep("a", 0.5, 100, 10), rep("b", 0.5, 100, 9)}, []string{"b"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, paretoPlannerIDs(tt.reports)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestPairsAreOrderFree: the pairs of an observed report do not depend on the
// order of the trials, and an empty list is [] on the wire, not null.
func TestPairsAreOrderFree(t *testing.T) {
	in := validCompareInput()
	in.Repetitions = 4
	trials := modeledTrials(t, in)
	a := observedPairs(t, []string{"baseline", "candidate"}, trials)
	for i, j := 0, len(trials)-1; i < j; i, j = i+1, j-1 {
		trials[i], trials[j] = trials[j], trials[i]
	}
	b := observedPairs(t, []string{"baseline", "candidate"}, trials)
	if diff := cmp.Diff(a.Pairs, b.Pairs); diff != "" {
		t.Errorf("trial order changes the pairs (-forward +reversed):\n%s", diff)
	}
	first := trials[0]
	first.PlannerID = "baseline"
	one := observedPairs(t, []string{"baseline"}, []Trial{first})
	raw, err := json.Marshal(one)
	if err != nil {
		t.Fatal(err)
	}
	var wire struct {
		Pairs  json.RawMessage `json:"pairs"`
		Pareto json.RawMessage `json:"paretoPlannerIds"`
	}
	if err := json.Unmarshal(raw, &wire); err != nil {
		t.Fatal(err)
	}
	if string(wire.Pairs) != "[]" || string(wire.Pareto) != `["baseline"]` {
		t.Errorf("one planner: pairs %s, paretoPlannerIds %s; want [] and [\"baseline\"]", wire.Pairs, wire.Pareto)
	}
}

// TestModeledPairsAreNotEvidence: every modeled pair says so, the same draws
// through the observed path pair alike but for the verdict, and no modeled
// report names a Pareto winner.
func TestModeledPairsAreNotEvidence(t *testing.T) {
	in := validCompareInput()
	in.Planners = cmpPlanners(4)
	in.Repetitions = 100
	modeled, err := ComparePlanners(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	observed, err := CompareObservedTrials(context.Background(), CompareObservedTrialsInput{Rows: RowSelection{All: true},
		CorpusVersion: CorpusVersion, Planners: in.Planners, Trials: modeledTrials(t, in),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(modeled.Pairs) != 6 || len(modeled.ParetoPlannerIDs) != 0 {
		t.Fatalf("%d pairs, Pareto %v; want 6 and none", len(modeled.Pairs), modeled.ParetoPlannerIDs)
	}
	for i, p := range modeled.Pairs {
		if p.Verdict != PairModeledNotEvidence {
			t.Errorf("modeled pair %s–%s has verdict %q", p.PlannerA, p.PlannerB, p.Verdict)
		}
		o := observed.Pairs[i]
		o.Verdict, o.Reason = p.Verdict, p.Reason
		if diff := cmp.Diff(o, p); diff != "" {
			t.Errorf("the same draws pair differently (-observed +modeled):\n%s", diff)
		}
	}
}

// TestNothingEvaluable: a planner whose every trial is an infrastructure
// error, and runs whose latency and tokens are all unknown, give a report of
// zeros with their counts, not a panic: rates of 0 of 0 with the interval
// [0,1], no shared journey, no Pareto set and a pair with nothing shared.
func TestNothingEvaluable(t *testing.T) {
	a := countsTrials("a", "j1", 2, 3, false)
	for i := range a {
		a[i].LatencyUnknown, a[i].TokensUnknown, a[i].LatencyMs, a[i].InputTokens, a[i].OutputTokens = true, true, 0, 0, 0
	}
	b := countsTrials("b", "j1", 0, 2, false)
	for i := range b {
		b[i].NotEvaluable = true
	}
	r := observedPairs(t, []string{"a", "b"}, append(a, b...))
	pa, pb := r.Planners[0], r.Planners[1]
	if pa.LatencyUnknown != 3 || pa.TokensUnknown != 3 || pa.MedianJourneyLatencyMs != 0 || pa.TokenSpend.MeanPerJourneyRun != 0 || pa.JourneyRows[0].MedianLatencyMs != nil {
		t.Errorf("a: %+v; want every latency and token unknown and counted", pa)
	}
	if pb.Trials != 2 || pb.NotEvaluable != 2 || pb.PassRate != (Rate{Wilson95: Interval{0, 1}}) || pb.Journeys != 0 || len(pb.Repeatability.PassAtK) != 0 {
		t.Errorf("b: %+v; want 2 trials, both not evaluable, a rate of 0 of 0", pb)
	}
	if r.SharedJourneys != 0 || len(r.ParetoPlannerIDs) != 0 || r.Pairs[0].SharedJourneys != 0 || r.Pairs[0].JourneysOnlyA != 1 || r.Pairs[0].Verdict != PairIndistinguishable {
		t.Errorf("shared %d, Pareto %v, pair %+v; want nothing shared", r.SharedJourneys, r.ParetoPlannerIDs, r.Pairs[0])
	}
}

// TestQuantilesR7 holds the counting selection to stats.Quantiles over a sorted
// copy, bit for bit, on orders and spreads that stress it: sorted, reversed, all
// equal, few distinct values, organ pipe, seeded random latencies, values spread
// up to the trial latency limit (wide buckets), all alike but one outlier (one
// crowded bucket), and negative values, for every length up to 100,000. One
// orderStatistics serves every case, as it serves every planner of a tally.
func TestQuantilesR7(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 11))
	shapes := map[string]func(n int) []int{
		"sorted":   func(n int) []int { return fill(n, func(i int) int { return i }) },
		"reversed": func(n int) []int { return fill(n, func(i int) int { return n - i }) },
		"equal":    func(n int) []int { return fill(n, func(int) int { return 42 }) },
		"few":      func(n int) []int { return fill(n, func(int) int { return rng.IntN(3) }) },
		"organ":    func(n int) []int { return fill(n, func(i int) int { return min(i, n-i) }) },
		"random":   func(n int) []int { return fill(n, func(int) int { return rng.IntN(100_000) }) },
		"wide":     func(n int) []int { return fill(n, func(int) int { return rng.IntN(limit.MaxTrialLatencyMs + 1) }) },
		"outlier": func(n int) []int {
			x := fill(n, func(int) int { return 7 })
			x[n/2] = limit.MaxTrialLatencyMs
			return x
		},
		"negative": func(n int) []int { return fill(n, func(int) int { return rng.IntN(5_000) - 1<<40 }) },
	}
	var s orderStatistics
	for _, name := range slices.Sorted(maps.Keys(shapes)) {
		for _, n := range []int{1, 2, 3, 12, 13, 14, 100, 101, 1023, 1025, 2200, 4097, 100_000} {
			x := shapes[name](n)
			asFloats := make([]float64, n)
			for i, v := range x {
				asFloats[i] = float64(v)
			}
			slices.Sort(asFloats)
			unchanged := slices.Clone(x)
			for _, qs := range [][]float64{{0}, {0.5}, {0.9}, {1}, {0.5, 0.9}, {0, 0.25, 0.5, 0.9, 0.99, 1}} {
				want := stats.Quantiles(asFloats, qs...)
				got := s.quantilesR7(x, qs...)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s, n=%d, quantiles %v (-want +got):\n%s", name, n, qs, diff)
				}
			}
			if !slices.Equal(x, unchanged) {
				t.Errorf("%s, n=%d: x was changed", name, n)
			}
		}
	}
}

func fill(n int, f func(i int) int) []int {
	x := make([]int, n)
	for i := range x {
		x[i] = f(i)
	}
	return x
}
