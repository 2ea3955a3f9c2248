package automium

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
)

// TestModelPlannersWorkers holds the reports of a comparison spread over any
// number of goroutines to those of one goroutine: the planners' reports are
// independent and land in their own places, whatever the scheduling. Run it
// with -race and -count to shake the scheduling.
func TestModelPlannersWorkers(t *testing.T) {
	journeys, err := modeledJourneysOf(owned().appIDs)
	if err != nil {
		t.Fatal(err)
	}
	planners := cmpPlanners(limit.MaxPlanners)
	model := func(workers int) []PlannerReport {
		t.Helper()
		reports := make([]PlannerReport, len(planners))
		if err := modelPlanners(context.Background(), workers, DefaultComparisonSeed, planners, journeys, 7, modeledJourneyInfo(journeys), reports, nil, nil); err != nil {
			t.Fatal(err)
		}
		return reports
	}
	want := model(1)
	for _, workers := range []int{0, 2, 3, limit.MaxPlanners, limit.MaxPlanners + 5} {
		if diff := cmp.Diff(want, model(workers)); diff != "" {
			t.Errorf("%d workers (-want +got):\n%s", workers, diff)
		}
	}
}

// cancelAfter is a context whose Err turns to Canceled after its first n calls.
type cancelAfter struct {
	context.Context
	n atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestModelPlannersCanceledMidway cancels a comparison while its goroutines
// draw: every goroutine checks the context before each planner, so the call
// stops with the canceled error after a few planners instead of finishing.
func TestModelPlannersCanceledMidway(t *testing.T) {
	journeys, err := modeledJourneysOf(owned().appIDs)
	if err != nil {
		t.Fatal(err)
	}
	planners := cmpPlanners(limit.MaxPlanners)
	for _, workers := range []int{1, 2, 4} {
		ctx := &cancelAfter{Context: context.Background()}
		ctx.n.Store(3)
		reports := make([]PlannerReport, len(planners))
		err := modelPlanners(ctx, workers, DefaultComparisonSeed, planners, journeys, 3, modeledJourneyInfo(journeys), reports, nil, nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%d workers: got %v, want context.Canceled", workers, err)
		}
		done := 0
		for _, r := range reports {
			if r.Trials > 0 {
				done++
			}
		}
		if done != 3 {
			t.Errorf("%d workers: %d planners were drawn after the context was canceled at the fourth check; want 3", workers, done)
		}
	}
}

// TestModelPlannersPanicReachesTheCaller makes every goroutine of a comparison
// panic (a missing journey model) and checks the panic is raised on the calling
// goroutine, where a caller's recovery can catch it, instead of ending the
// process from a helper goroutine.
func TestModelPlannersPanicReachesTheCaller(t *testing.T) {
	planners := cmpPlanners(limit.MaxPlanners)
	for _, workers := range []int{1, 2, 4} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%d workers: no panic reached the caller", workers)
				}
			}()
			reports := make([]PlannerReport, len(planners))
			_ = modelPlanners(context.Background(), workers, DefaultComparisonSeed, planners, []*modeledJourney{nil}, 3, &journeyInfo{}, reports, nil, nil)
		}()
	}
}
