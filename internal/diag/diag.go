// Package diag keeps a server's diagnostics from ever holding up its protocol.
//
// The server writes its diagnostics to stderr, and a client owns the other end
// of that pipe: a client that never reads it fills the pipe's buffer (64 KiB on
// Linux), and from then on every write to stderr blocks. A log call sits on the
// path of the message that caused it, so a blocked stderr would stop the
// session: before this package, about 790 duplicate notifications/initialized
// (each logged by go-sdk at ERROR) hung a stdio session whose client did not
// drain stderr. Two bounds make that impossible:
//
//   - [Writer] hands every write to one goroutine through a bounded buffer and
//     never blocks its caller: what does not fit is dropped and counted, and a
//     line saying how much was dropped goes out once the pipe drains.
//   - [RateLimit] lets a burst of records through, then a steady rate, so that
//     a flood of messages that each log costs a bounded amount of diagnostics;
//     what it drops it counts, and the next record it lets through says so.
package diag

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"
)

// DefaultBufferBytes is how much a [Writer] holds for a reader that is slow or
// gone: enough for every diagnostic of a normal session many times over.
const DefaultBufferBytes = 1 << 20

// Writer is an io.Writer that never blocks: writes go into a bounded buffer
// that one goroutine copies to the underlying writer. A write that does not
// fit whole is dropped, so lines are never torn, and counted; once the buffer
// drains, a line reports the count. It is safe for concurrent use.
type Writer struct {
	out io.Writer
	max int

	mu      sync.Mutex
	buf     []byte
	dropped int64 // bytes dropped since the last report
	busy    bool  // the goroutine is copying
	idle    *sync.Cond
}

// NewWriter returns a Writer over out that holds at most maxBytes
// (DefaultBufferBytes when maxBytes <= 0).
func NewWriter(out io.Writer, maxBytes int) *Writer {
	if maxBytes <= 0 {
		maxBytes = DefaultBufferBytes
	}
	w := &Writer{out: out, max: maxBytes}
	w.idle = sync.NewCond(&w.mu)
	return w
}

// Write queues p whole, or drops it whole when it does not fit; it always
// reports success, since a diagnostic that cannot be written must not fail
// the work that logged it.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf)+len(p) > w.max {
		w.dropped += int64(len(p))
		return len(p), nil
	}
	w.buf = append(w.buf, p...)
	if !w.busy {
		w.busy = true
		go w.copyOut()
	}
	return len(p), nil
}

// copyOut writes what is queued until nothing is, then reports what was
// dropped meanwhile, if anything.
func (w *Writer) copyOut() {
	w.mu.Lock()
	for {
		if len(w.buf) == 0 && w.dropped > 0 {
			w.buf = fmt.Appendf(w.buf, "automium-mcp: %d bytes of diagnostics dropped: stderr was not read fast enough\n", w.dropped)
			w.dropped = 0
		}
		if len(w.buf) == 0 {
			w.busy = false
			w.idle.Broadcast()
			w.mu.Unlock()
			return
		}
		chunk := w.buf
		w.buf = nil
		w.mu.Unlock()
		_, _ = w.out.Write(chunk) // an error leaves nothing to report it on
		w.mu.Lock()
	}
}

// Flush waits until everything queued is written, or until timeout passes,
// and reports whether it all went out. A process calls it before it exits, so
// that its last diagnostics are not lost to a reader that is only slow.
func (w *Writer) Flush(timeout time.Duration) bool {
	done := make(chan struct{})
	go func() {
		w.mu.Lock()
		for w.busy {
			w.idle.Wait()
		}
		w.mu.Unlock()
		close(done)
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
		return false
	}
}

// Limits of [RateLimit]: a session that logs on every message gets its
// first Burst records whole, then PerSecond.
const (
	DefaultBurst     = 200
	DefaultPerSecond = 20
)

// RateLimit returns a handler that passes at most burst records at once and
// perSecond on average to h, by a token bucket on the clock now; a record
// beyond them is dropped and counted, and the next record passed carries the
// count as the attribute "dropped_records". Records below h's level cost no
// token.
func RateLimit(h slog.Handler, burst, perSecond int, now func() time.Time) slog.Handler {
	if burst <= 0 {
		burst = DefaultBurst
	}
	if perSecond <= 0 {
		perSecond = DefaultPerSecond
	}
	return &limited{h: h, bucket: &bucket{burst: float64(burst), rate: float64(perSecond), tokens: float64(burst), now: now}}
}

type limited struct {
	h      slog.Handler
	bucket *bucket // shared by the handlers WithAttrs and WithGroup derive
}

type bucket struct {
	burst, rate float64
	now         func() time.Time

	mu      sync.Mutex
	tokens  float64
	last    time.Time
	dropped int64
}

// take reports whether a record may pass, and how many were dropped before it.
func (b *bucket) take() (bool, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.now()
	if !b.last.IsZero() {
		if elapsed := t.Sub(b.last).Seconds(); elapsed > 0 {
			b.tokens = min(b.burst, b.tokens+elapsed*b.rate)
		}
	}
	b.last = t
	if b.tokens < 1 {
		b.dropped++
		return false, 0
	}
	b.tokens--
	dropped := b.dropped
	b.dropped = 0
	return true, dropped
}

func (l *limited) Enabled(ctx context.Context, level slog.Level) bool {
	return l.h.Enabled(ctx, level)
}

func (l *limited) Handle(ctx context.Context, r slog.Record) error {
	ok, dropped := l.bucket.take()
	if !ok {
		return nil
	}
	if dropped > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int64("dropped_records", dropped))
	}
	return l.h.Handle(ctx, r)
}

func (l *limited) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &limited{h: l.h.WithAttrs(attrs), bucket: l.bucket}
}

func (l *limited) WithGroup(name string) slog.Handler {
	return &limited{h: l.h.WithGroup(name), bucket: l.bucket}
}
