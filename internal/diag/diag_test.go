package diag

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// blockedWriter blocks every Write until released, as a pipe nobody reads.
type blockedWriter struct {
	release chan struct{}
	mu      sync.Mutex
	got     bytes.Buffer
}

func (b *blockedWriter) Write(p []byte) (int, error) {
	<-b.release
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.got.Write(p)
}

func TestWriterNeverBlocks(t *testing.T) {
	out := &blockedWriter{release: make(chan struct{})}
	w := NewWriter(out, 100)
	line := []byte(strings.Repeat("x", 39) + "\n")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 10000 {
			if n, err := w.Write(line); n != len(line) || err != nil {
				t.Errorf("Write = %d, %v; want %d, nil", n, err, len(line))
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Write blocked on a reader that does not read")
	}
	close(out.release)
	if !w.Flush(10 * time.Second) {
		t.Fatal("Flush did not finish once the reader read")
	}
	// However many lines the goroutine took before the buffer filled, each
	// went out whole, and one report counts every byte dropped.
	lines := strings.Split(strings.TrimSuffix(out.got.String(), "\n"), "\n")
	kept := 0
	for kept < len(lines) && lines[kept] == string(line[:39]) {
		kept++
	}
	if kept == 0 || kept > 2*(100/len(line)) { // one buffer in the goroutine, one queued
		t.Fatalf("%d lines kept, want 1 to %d: %q", kept, 2*(100/len(line)), lines)
	}
	want := []string{fmt.Sprintf("automium-mcp: %d bytes of diagnostics dropped: stderr was not read fast enough", (10000-kept)*len(line))}
	if diff := cmp.Diff(want, lines[kept:]); diff != "" {
		t.Errorf("after the kept lines (-want +got):\n%s", diff)
	}
}

func TestWriterPassesEverythingToAReader(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, 0)
	var want strings.Builder
	for i := range 1000 {
		line := fmt.Sprintf("line %d\n", i)
		want.WriteString(line)
		w.Write([]byte(line))
		if i%100 == 0 && !w.Flush(10*time.Second) {
			t.Fatal("Flush timed out")
		}
	}
	if !w.Flush(10 * time.Second) {
		t.Fatal("Flush timed out")
	}
	if diff := cmp.Diff(want.String(), out.String()); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}
}

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestRateLimit(t *testing.T) {
	tests := []struct {
		name string
		// steps: records logged at once, then how far the clock moves
		steps [][2]int // {records, milliseconds}
		want  []string
	}{
		{"within the burst", [][2]int{{3, 0}}, []string{"r0", "r1", "r2"}},
		{"beyond the burst", [][2]int{{5, 0}}, []string{"r0", "r1", "r2"}},
		{"a second refills the rate, and the count is reported", [][2]int{{5, 1000}, {3, 0}},
			[]string{"r0", "r1", "r2", "r5 dropped_records=2", "r6"}},
		{"the bucket holds no more than the burst", [][2]int{{1, 60000}, {5, 0}},
			[]string{"r0", "r1", "r2", "r3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Unix(0, 0)}
			var out bytes.Buffer
			text := slog.NewTextHandler(&out, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey || a.Key == slog.LevelKey {
					return slog.Attr{}
				}
				return a
			}})
			log := slog.New(RateLimit(text, 3, 2, clock.now)).With()
			n := 0
			for _, s := range tt.steps {
				for range s[0] {
					log.Info(fmt.Sprintf("r%d", n))
					n++
				}
				clock.t = clock.t.Add(time.Duration(s[1]) * time.Millisecond)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				got = append(got, strings.TrimPrefix(l, "msg="))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRateLimitKeepsLevel(t *testing.T) {
	h := RateLimit(slog.NewTextHandler(&bytes.Buffer{}, &slog.HandlerOptions{Level: slog.LevelWarn}), 0, 0, time.Now)
	if h.Enabled(context.Background(), slog.LevelInfo) || !h.Enabled(context.Background(), slog.LevelError) {
		t.Error("RateLimit changed which levels are enabled")
	}
}

// TestRateLimitPerSession: each session has its own bucket, named by the
// record's session_id or its logger's, records naming none share one, all of
// them together get GlobalFactor times a session's, and at most max buckets
// are kept, a forgotten one's dropped count carried by the next record.
func TestRateLimitPerSession(t *testing.T) {
	type rec struct {
		session string // "" logs without session_id
		with    bool   // the session is on the logger, not the record
	}
	tests := []struct {
		name    string
		burst   int
		max     int
		records []rec
		want    []string
	}{
		{"a burst each", 2, 8, []rec{{session: "a"}, {session: "a"}, {session: "a"}, {session: "b"}, {session: "b"}, {session: "b"}},
			[]string{"r0 session_id=a", "r1 session_id=a", "r3 session_id=b", "r4 session_id=b"}},
		{"on the logger", 1, 8, []rec{{session: "a", with: true}, {session: "a", with: true}, {session: "b", with: true}},
			[]string{"r0 session_id=a", "r2 session_id=b"}},
		{"records naming no session share one bucket", 2, 8, []rec{{}, {}, {}, {session: "a"}},
			[]string{"r0", "r1", "r3 session_id=a"}},
		{"all together: GlobalFactor bursts", 1, 8,
			[]rec{{session: "a"}, {session: "b"}, {session: "c"}, {session: "d"}, {session: "e"}, {session: "f"}},
			[]string{"r0 session_id=a", "r1 session_id=b", "r2 session_id=c", "r3 session_id=d"}},
		{"a forgotten bucket's count is carried on", 1, 2, []rec{{session: "a"}, {session: "a"}, {session: "b"}, {session: "c"}},
			[]string{"r0 session_id=a", "r2 session_id=b", "r3 session_id=c dropped_records=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := &fakeClock{t: time.Unix(0, 0)}
			var out bytes.Buffer
			text := slog.NewTextHandler(&out, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
				if a.Key == slog.TimeKey || a.Key == slog.LevelKey {
					return slog.Attr{}
				}
				return a
			}})
			h := RateLimit(text, tt.burst, 1, clock.now)
			h.(*limited).buckets.max = tt.max
			log := slog.New(h)
			for i, r := range tt.records {
				switch {
				case r.session == "":
					log.Info(fmt.Sprintf("r%d", i))
				case r.with:
					log.With(SessionKey, r.session).Info(fmt.Sprintf("r%d", i))
				default:
					log.Info(fmt.Sprintf("r%d", i), SessionKey, r.session)
				}
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				got = append(got, strings.TrimPrefix(strings.Replace(l, "msg=", "", 1), " "))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if n := len(h.(*limited).buckets.sessions); n > tt.max {
				t.Errorf("%d buckets kept, over the bound of %d", n, tt.max)
			}
		})
	}
}

// TestRateLimitBoundedBuckets: a flood of sessions keeps at most MaxSessions
// buckets, and passes at most GlobalFactor bursts at once.
func TestRateLimitBoundedBuckets(t *testing.T) {
	clock := &fakeClock{t: time.Unix(0, 0)}
	var n countHandler
	h := RateLimit(&n, 3, 1, clock.now)
	log := slog.New(h)
	for i := range 10 * MaxSessions {
		log.Error("flood", SessionKey, strconv.Itoa(i))
	}
	got := []int{len(h.(*limited).buckets.sessions), n.n}
	if diff := cmp.Diff([]int{MaxSessions, 3 * GlobalFactor}, got); diff != "" {
		t.Errorf("buckets kept, records passed (-want +got):\n%s", diff)
	}
}

type countHandler struct{ n int }

func (c *countHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (c *countHandler) Handle(context.Context, slog.Record) error { c.n++; return nil }
func (c *countHandler) WithAttrs([]slog.Attr) slog.Handler        { return c }
func (c *countHandler) WithGroup(string) slog.Handler             { return c }

// pacedWriter takes one write each time the test sends on step.
type pacedWriter struct {
	step chan struct{}
	got  bytes.Buffer
}

func (p *pacedWriter) Write(b []byte) (int, error) {
	<-p.step
	return p.got.Write(b)
}

// fakeTimers hands Flush timers the test fires by hand.
type fakeTimers struct{ made chan chan time.Time }

func (f *fakeTimers) after(time.Duration) <-chan time.Time {
	c := make(chan time.Time, 1)
	f.made <- c
	return c
}

// TestFlushWaitsForASlowReader: Flush gives up only on a reader that takes
// nothing for the whole stall; a stall that ends before the reader took a
// piece loses nothing, whatever the clock says.
func TestFlushWaitsForASlowReader(t *testing.T) {
	out := &pacedWriter{step: make(chan struct{})}
	timers := &fakeTimers{made: make(chan chan time.Time, 16)}
	w := NewWriter(out, 0)
	w.after = timers.after
	line := strings.Repeat("a", 99) + "\n"
	for range 3 * pieceBytes / len(line) {
		_, _ = w.Write([]byte(line))
	}
	flushed := make(chan bool)
	go func() { flushed <- w.Flush(time.Second) }()

	first := <-timers.made
	out.step <- struct{}{} // the reader takes a piece: the stall starts again
	second := <-timers.made
	first <- time.Time{} // the first stall's end no longer counts
	for {
		select {
		case out.step <- struct{}{}:
			continue
		case ok := <-flushed:
			if !ok {
				t.Fatal("Flush gave up on a reader that kept reading")
			}
		}
		break
	}
	second <- time.Time{}
	if got, want := out.got.Len(), 3*pieceBytes/len(line)*len(line); got != want {
		t.Errorf("%d bytes written, want %d", got, want)
	}
}

// TestFlushGivesUpOnAStalledReader: a reader that takes nothing for the whole
// stall makes Flush return false, so a process never waits on it for ever.
func TestFlushGivesUpOnAStalledReader(t *testing.T) {
	out := &pacedWriter{step: make(chan struct{})}
	timers := &fakeTimers{made: make(chan chan time.Time, 16)}
	w := NewWriter(out, 0)
	w.after = timers.after
	_, _ = w.Write([]byte("line\n"))
	flushed := make(chan bool)
	go func() { flushed <- w.Flush(time.Second) }()
	(<-timers.made) <- time.Time{}
	if <-flushed {
		t.Fatal("Flush reported success with the line still queued")
	}
	close(out.step) // let the goroutine finish
	if !w.Flush(time.Second) {
		t.Fatal("Flush did not finish once the reader read")
	}
}
