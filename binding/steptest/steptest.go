// Package steptest holds the contract every [binding.StepStore] must keep, as a
// test any implementation runs against itself: binding's in-memory store and
// binding/boltstore both do. It is test support; nothing else imports it.
package steptest

import (
	"sync"
	"testing"

	"github.com/automium/automium/binding"
)

// Plan IDs for the contract; any two distinct digests do.
const (
	PlanA = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	PlanB = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// Contract runs the StepStore contract against stores made by open, each
// new and empty:
//
//   - a run never seen is at step 0 of no plan;
//   - Advance moves a run one step, records the plan, and is seen by Position;
//   - Advance from a position the run is no longer at changes nothing and
//     reports false: a second Advance from the same position (a replay, or a
//     second broker that read the same position) never succeeds, nor does
//     one that names the right step of another plan;
//   - runs are independent;
//   - racing Advances from one position see exactly one success.
func Contract(t *testing.T, open func(t *testing.T) binding.StepStore) {
	t.Run("a new run is at step 0", func(t *testing.T) {
		s := open(t)
		if p, err := s.Position("run-1"); err != nil || p != (binding.Position{}) {
			t.Errorf("Position of a new run = %+v, %v; want step 0 of no plan", p, err)
		}
	})
	t.Run("compare-and-swap", func(t *testing.T) {
		s := open(t)
		mustAdvance(t, s, "run-1", binding.Position{}, PlanA, true)
		want := binding.Position{PlanID: PlanA, Next: 1}
		mustPosition(t, s, "run-1", want)
		// The same step again: a replay, or another broker that read step 0.
		mustAdvance(t, s, "run-1", binding.Position{}, PlanA, false)
		mustAdvance(t, s, "run-1", binding.Position{}, PlanB, false)
		// The right step number under another plan is not the position.
		mustAdvance(t, s, "run-1", binding.Position{PlanID: PlanB, Next: 1}, PlanB, false)
		// A step ahead is not the position either.
		mustAdvance(t, s, "run-1", binding.Position{PlanID: PlanA, Next: 2}, PlanA, false)
		mustPosition(t, s, "run-1", want)
		mustAdvance(t, s, "run-1", want, PlanA, true)
		mustPosition(t, s, "run-1", binding.Position{PlanID: PlanA, Next: 2})
	})
	t.Run("runs are independent", func(t *testing.T) {
		s := open(t)
		mustAdvance(t, s, "run-1", binding.Position{}, PlanA, true)
		mustPosition(t, s, "run-2", binding.Position{})
		mustAdvance(t, s, "run-2", binding.Position{}, PlanB, true)
		mustPosition(t, s, "run-1", binding.Position{PlanID: PlanA, Next: 1})
	})
	t.Run("racing advances see one success", func(t *testing.T) {
		s := open(t)
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for range 16 {
			wg.Go(func() {
				ok, err := s.Advance("run-1", binding.Position{}, PlanA)
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					wins++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if wins != 1 {
			t.Errorf("%d of 16 racing Advances from one position succeeded, want 1", wins)
		}
	})
}

func mustAdvance(t *testing.T, s binding.StepStore, run string, from binding.Position, plan string, want bool) {
	t.Helper()
	ok, err := s.Advance(run, from, plan)
	if err != nil || ok != want {
		t.Errorf("Advance(%s, %+v, %s) = %v, %v; want %v", run, from, plan[:9], ok, err, want)
	}
}

func mustPosition(t *testing.T, s binding.StepStore, run string, want binding.Position) {
	t.Helper()
	if p, err := s.Position(run); err != nil || p != want {
		t.Errorf("Position(%s) = %+v, %v; want %+v", run, p, err, want)
	}
}
