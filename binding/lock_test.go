package binding_test

import (
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/automium/automium/binding"
)

// heldStore holds the first Position call until released, and reports any
// second caller that reaches Position while the first is held. Its Advance is
// a plain write, with no compare-and-swap: the test is about the broker's own
// lock, not the store's. It takes no mutex of its own, so that the only
// mutex a held authorization can wait on is the broker's.
type heldStore struct {
	entered, release, second chan struct{}
	calls                    chan int
	pos                      chan binding.Position // one slot: the position
}

func newHeldStore() *heldStore {
	s := &heldStore{entered: make(chan struct{}), release: make(chan struct{}), second: make(chan struct{}, 16),
		calls: make(chan int, 1), pos: make(chan binding.Position, 1)}
	s.calls <- 0
	s.pos <- binding.Position{}
	return s
}

func (s *heldStore) Position(string) (binding.Position, error) {
	n := <-s.calls
	s.calls <- n + 1
	if n == 0 {
		close(s.entered)
		<-s.release
	} else {
		select {
		case <-s.release:
		default:
			s.second <- struct{}{} // inside while the first is held
		}
	}
	p := <-s.pos
	s.pos <- p
	return p, nil
}

func (s *heldStore) Advance(_ string, from binding.Position, planID string) (bool, error) {
	<-s.pos
	s.pos <- binding.Position{PlanID: planID, Next: from.Next + 1}
	return true, nil
}

// waitingOnBrokerLock reports whether a goroutine is blocked in
// sync.(*Mutex).Lock called directly from Broker.Authorize: the broker's
// own lock, held by another authorization.
func waitingOnBrokerLock() bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		lines := strings.Split(g, "\n")
		for i := 1; i+2 < len(lines); i += 2 {
			if strings.HasPrefix(lines[i], "sync.(*Mutex).Lock") && strings.Contains(lines[i+2], "binding.(*Broker).Authorize") {
				return true
			}
		}
	}
	return false
}

// TestBrokerSerializesAuthorizations: one broker authorizes one grant at a
// time, so racing uses of a step see one success even over a store without a
// compare-and-swap. The first authorization is held inside the store; the
// second must then wait on the broker's lock, which the test sees in the
// goroutine's stack, and never reach the store while the first is held. A
// broker without its lock lets the second in, which the store reports at
// once. Nothing here waits on a clock.
func TestBrokerSerializesAuthorizations(t *testing.T) {
	g := issue(t, plan(t), nil)[0]
	store := newHeldStore()
	b := brokerWith(t, func(o *binding.BrokerOptions) { o.Steps = store })
	call := live(t, g)
	results := make([]error, 2)
	var wg sync.WaitGroup
	wg.Go(func() { _, results[0] = b.Authorize(g, call) })
	<-store.entered
	wg.Go(func() { _, results[1] = b.Authorize(g, call) })
	for !waitingOnBrokerLock() {
		select {
		case <-store.second:
			close(store.release)
			wg.Wait()
			t.Fatal("a second authorization reached the step store while the first was inside it: the broker does not serialize")
		default:
		}
		runtime.Gosched()
	}
	close(store.release)
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
		t.Errorf("%d of 2 racing authorizations of one step succeeded, want 1", ok)
	}
}
