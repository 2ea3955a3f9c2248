package boltstore_test

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/boltstore"
	"github.com/automium/automium/binding/steptest"
	"github.com/google/go-cmp/cmp"
)

// TestCompareAndSwapInsideTheWrite: Advance compares inside its write
// transaction. One Advance is held just before its transaction starts while
// another, from the same position, completes; the held one must then find
// the run moved and report false. An Advance that read the position before
// its write transaction would succeed too: two uses of one step. The hook
// orders the two exactly; nothing waits on a clock.
func TestCompareAndSwapInsideTheWrite(t *testing.T) {
	s := create(t, filepath.Join(t.TempDir(), "steps.db"))
	defer s.Close()
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	boltstore.SetBeforeWrite(func() {
		held := false
		once.Do(func() { held = true })
		if held {
			close(entered)
			<-release
		}
	})
	defer boltstore.SetBeforeWrite(nil)
	type result struct {
		ok  bool
		err error
	}
	first := make(chan result)
	go func() {
		ok, err := s.Advance("run-1", binding.Position{}, steptest.PlanA)
		first <- result{ok, err}
	}()
	<-entered
	if ok, err := s.Advance("run-1", binding.Position{}, steptest.PlanA); !ok || err != nil {
		t.Fatalf("the second Advance = %v, %v; want true", ok, err)
	}
	close(release)
	if r := <-first; r.ok || r.err != nil {
		t.Errorf("the held Advance from the same position = %v, %v; want false: one step used twice", r.ok, r.err)
	}
	if p, err := s.Position("run-1"); err != nil || p != (binding.Position{PlanID: steptest.PlanA, Next: 1}) {
		t.Errorf("Position = %+v, %v", p, err)
	}
}

// TestDurabilitySettings: the handle fsyncs every commit and syncs its
// freelist (bbolt's defaults, which the store states), and Open never gives
// bbolt a lock timeout of 0, on which it would wait forever.
func TestDurabilitySettings(t *testing.T) {
	s := create(t, filepath.Join(t.TempDir(), "steps.db"))
	defer s.Close()
	noSync, noGrowSync, noFreelistSync := boltstore.Durability(s)
	if diff := cmp.Diff([3]bool{}, [3]bool{noSync, noGrowSync, noFreelistSync}); diff != "" {
		t.Errorf("NoSync, NoGrowSync, NoFreelistSync (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		opts *boltstore.Options
		want time.Duration
	}{
		{nil, boltstore.DefaultLockTimeout},
		{&boltstore.Options{}, boltstore.DefaultLockTimeout},
		{&boltstore.Options{LockTimeout: 50 * time.Millisecond}, 50 * time.Millisecond},
	} {
		if got := boltstore.LockTimeout(tt.opts); got != tt.want {
			t.Errorf("the lock timeout for %+v = %v, want %v", tt.opts, got, tt.want)
		}
	}
}

// TestLockTimeoutSaysSo: only a lock timeout blames another process.
func TestLockTimeoutSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "steps.db")
	s := create(t, path)
	_, err := boltstore.Open(path, &boltstore.Options{LockTimeout: time.Millisecond})
	s.Close()
	if err == nil || codeOf(err) != binding.CodeStateUnavailable || !strings.Contains(err.Error(), "(another process may hold the file)") {
		t.Errorf("Open of a held file = %v", err)
	}
	damaged := write(t, built(t)[:8192])
	_, err = boltstore.Open(damaged, nil)
	if err == nil || strings.Contains(err.Error(), "another process") || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("Open of a truncated file = %v", err)
	}
}
