package automium

import (
	"context"
	"fmt"
	"testing"

	"github.com/automium/automium/internal/limit"
)

// The cost of a comparison grows with the number of trials, planners × journeys ×
// repetitions. These sizes hold planners and apps at the full corpus scale and
// vary repetitions by factors of ten, so ns/trial staying flat shows the growth is
// linear. The largest is the documented goal: 16 planners × all corpus apps × 100
// repetitions in under 50 ms. See docs/benchmarks.md for the figures.
var compareBenchSizes = []struct{ planners, reps int }{
	{16, 1},
	{16, 10},
	{16, 100},
	{2, 100},
}

func BenchmarkComparePlanners(b *testing.B) {
	for _, size := range compareBenchSizes {
		in := ComparePlannersInput{Rows: RowSelection{All: true},
			CorpusVersion: CorpusVersion,
			AppIDs:        owned().appIDs,
			Planners:      cmpPlanners(size.planners),
			Repetitions:   size.reps,
		}
		trials := size.planners * len(owned().ReferenceJourneys) * size.reps
		name := fmt.Sprintf("planners=%d/apps=%d/reps=%d/trials=%d", size.planners, len(owned().appIDs), size.reps, trials)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ComparePlanners(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*trials), "ns/trial")
		})
	}
}

// BenchmarkCompareObservedTrials aggregates the trials of the largest modeled
// comparison through the observed path, where validating every trial dominates.
func BenchmarkCompareObservedTrials(b *testing.B) {
	for _, size := range compareBenchSizes[1:3] {
		in := ComparePlannersInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, AppIDs: owned().appIDs, Planners: cmpPlanners(size.planners), Repetitions: size.reps}
		trials, err := drawModeledTrials(in)
		if err != nil {
			b.Fatal(err)
		}
		obs := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: in.Planners, Trials: trials}
		b.Run(fmt.Sprintf("trials=%d", len(trials)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := CompareObservedTrials(context.Background(), obs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(trials)), "ns/trial")
		})
	}
}

// largestObservedInput is the largest observed comparison the limits allow:
// MaxPlanners planners × 625 journeys × 10 repetitions = MaxObservedTrials
// trials, every planner on every journey, so all 120 pairs share 6,250 runs.
// Outcomes, latencies and tokens are fixed SplitMix64 draws of the trial's
// place, so the input is the same on every run.
func largestObservedInput() CompareObservedTrialsInput {
	const journeys, reps = 625, 10
	in := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: cmpPlanners(limit.MaxPlanners)}
	u := fillStream(nil, 20260414, limit.MaxObservedTrials)
	for p := range in.Planners {
		for j := range journeys {
			for r := 1; r <= reps; r++ {
				x := u[len(in.Trials)]
				in.Trials = append(in.Trials, Trial{
					PlannerID: in.Planners[p].ID, AppID: cmpApp, FixtureID: cmpFixture,
					JourneyID: fmt.Sprintf("journey-%03d", j), Repetition: r,
					Passed: x < 0.5+float64(p)/40, LatencyMs: int(x * 90_000), InputTokens: int(x * 40_000), OutputTokens: int(x * 2_000),
					RecoveryTriggered: x > 0.8, Recovered: x > 0.9,
				})
			}
		}
	}
	return in
}

// BenchmarkCompareObservedLargest is the per-call cost of the largest observed
// comparison allowed (docs/performance.md): 100,000 trials of 16 planners, and
// its 120 paired comparisons alone.
func BenchmarkCompareObservedLargest(b *testing.B) {
	in := largestObservedInput()
	b.Run("call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := CompareObservedTrials(context.Background(), in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pairs", func(b *testing.B) {
		plan, err := observedTrialsPlan(in)
		if err != nil {
			b.Fatal(err)
		}
		runs := make([][]journeyRuns, len(in.Planners))
		var t trialTally
		for p := range in.Planners {
			t.reset(len(plan.journeyIDs), plan.trialsPerPlanner[p])
			for i, tr := range in.Trials {
				if plan.planner[i] == p {
					t.add(plan.journey[i], tr.Repetition, tr.outcome())
				}
			}
			runs[p] = t.journeyRuns()
		}
		b.ReportAllocs()
		for b.Loop() {
			pairComparisons(BasisObserved, false, in.Planners, runs, plan.journeyIDs)
		}
	})
}
