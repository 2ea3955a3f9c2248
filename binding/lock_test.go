package binding_test

import (
	"sync"
	"testing"
	"time"

	"github.com/automium/automium/binding"
)

// barrierStore holds every Position call until n callers are inside it at
// once, or until a short wait passes. A broker that serializes its
// authorizations never has two callers inside, so each waits and goes on
// alone; a broker that does not lets all n through together, each having
// read the same position. Its Advance is a plain write, with no
// compare-and-swap: the test is about the broker's own lock, not the store's.
type barrierStore struct {
	n       int
	mu      sync.Mutex
	arrived int
	all     chan struct{}
	pos     binding.Position
}

func (s *barrierStore) Position(string) (binding.Position, error) {
	s.mu.Lock()
	s.arrived++
	if s.arrived == s.n {
		close(s.all)
	}
	s.mu.Unlock()
	select {
	case <-s.all:
	case <-time.After(10 * time.Millisecond):
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pos, nil
}

func (s *barrierStore) Advance(_ string, from binding.Position, planID string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pos = binding.Position{PlanID: planID, Next: from.Next + 1}
	return true, nil
}

// TestBrokerSerializesAuthorizations: one broker authorizes one grant at a
// time, so racing uses of a step see one success even over a store without
// a compare-and-swap, and the broker's own state (its schema cache) is never
// touched by two authorizations at once: under -race, a broker without its
// lock fails here as a data race, and without -race as several successes.
func TestBrokerSerializesAuthorizations(t *testing.T) {
	const n = 8
	g := issue(t, plan(t), nil)[0]
	store := &barrierStore{n: n, all: make(chan struct{})}
	b := brokerWith(t, func(o *binding.BrokerOptions) { o.Steps = store })
	call := live(t, g)
	var wg sync.WaitGroup
	results := make([]error, n)
	for i := range results {
		wg.Go(func() { _, results[i] = b.Authorize(g, call) })
	}
	wg.Wait()
	ok := 0
	for _, err := range results {
		if err == nil {
			ok++
		} else if codeOf(err) != binding.CodeGrantConsumed {
			t.Errorf("unexpected error %v", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d of %d racing authorizations of one step succeeded, want 1", ok, n)
	}
}
