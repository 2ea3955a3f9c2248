package automium

import (
	"context"
	"fmt"
	"testing"
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
		in := ComparePlannersInput{
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
		in := ComparePlannersInput{CorpusVersion: CorpusVersion, AppIDs: owned().appIDs, Planners: cmpPlanners(size.planners), Repetitions: size.reps}
		trials, err := drawModeledTrials(in)
		if err != nil {
			b.Fatal(err)
		}
		obs := CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: in.Planners, Trials: trials}
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
