package binding_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
)

// unreadableStore cannot read a position but would record any step it is
// asked to: a broker that went on after the failed read, at step 0, would
// authorize a step it cannot know is unused.
type unreadableStore struct {
	err      error
	advanced int
}

func (s *unreadableStore) Position(string) (binding.Position, error) {
	return binding.Position{}, s.err
}

func (s *unreadableStore) Advance(string, binding.Position, string) (bool, error) {
	s.advanced++
	return true, nil
}

// committedNothingStore reads positions, and reports every write as failed,
// having written nothing: a full disk.
type committedNothingStore struct{ binding.StepStore }

func (committedNothingStore) Advance(string, binding.Position, string) (bool, error) {
	return false, errors.New("no space left on device")
}

// TestStoreFailuresRefuse: a failed read of the step store refuses the call
// without asking the store to record anything, and a failed write is never
// an authorization. A store's coded error reaches the refusal whole (what it
// found and what to do), not cut to a value's 40-byte prefix.
func TestStoreFailuresRefuse(t *testing.T) {
	long := automium.NewProblem(binding.CodeStateUnavailable, automium.PathOf("store"), nil,
		"boltstore: the step store at %q is damaged: meta page 1 is damaged: its checksum does not match; no step is authorized from it", "/var/lib/runs/steps.db").Err()
	for name, readErr := range map[string]error{"a coded error": long, "a plain error": errors.New("connection refused")} {
		t.Run(name, func(t *testing.T) {
			g := issue(t, plan(t), nil)[0]
			store := &unreadableStore{err: readErr}
			b := brokerWith(t, func(o *binding.BrokerOptions) { o.Steps = store })
			_, err := b.Authorize(g, live(t, g))
			if codeOf(err) != binding.CodeStateUnavailable {
				t.Fatalf("Authorize over an unreadable store = %v, want %s", err, binding.CodeStateUnavailable)
			}
			if store.advanced != 0 {
				t.Errorf("the broker asked the store to record a step after failing to read it")
			}
			var aerr *automium.Error
			if errors.As(readErr, &aerr) && !strings.Contains(err.Error(), aerr.Message) {
				t.Errorf("the refusal cut the store's message:\n%v", err)
			}
		})
	}
	t.Run("a failed write", func(t *testing.T) {
		g := issue(t, plan(t), nil)[0]
		b := brokerWith(t, func(o *binding.BrokerOptions) { o.Steps = committedNothingStore{binding.NewMemoryStepStore()} })
		for range 2 {
			if _, err := b.Authorize(g, live(t, g)); codeOf(err) != binding.CodeStateUnavailable {
				t.Errorf("Authorize with a failed write = %v, want %s", err, binding.CodeStateUnavailable)
			}
		}
	})
}
