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
//   - [RateLimit] lets a burst of records through, then a steady rate, per
//     session and for all sessions together, so that a flood of messages
//     that each log costs a bounded amount of diagnostics and one session's
//     flood does not silence the others'; what it drops it counts, and the
//     next record it lets through says so. It keeps a bounded number of
//     buckets, so a flood of sessions does not grow its memory.
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

	// progress has a value whenever a piece went out or the goroutine
	// stopped, so that Flush can tell a slow reader from one that is gone.
	progress chan struct{}
	// after is time.After; tests replace it to decide when a stall ends.
	after func(time.Duration) <-chan time.Time
}

// pieceBytes is how much of a chunk one write to out carries: Flush counts a
// reader that takes a piece as one that reads, however large the chunk.
const pieceBytes = 4 << 10

// NewWriter returns a Writer over out that holds at most maxBytes
// (DefaultBufferBytes when maxBytes <= 0).
func NewWriter(out io.Writer, maxBytes int) *Writer {
	if maxBytes <= 0 {
		maxBytes = DefaultBufferBytes
	}
	return &Writer{out: out, max: maxBytes, progress: make(chan struct{}, 1), after: time.After}
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
			w.mu.Unlock()
			w.signal()
			return
		}
		chunk := w.buf
		w.buf = nil
		w.mu.Unlock()
		for len(chunk) > 0 {
			n := min(len(chunk), pieceBytes)
			_, _ = w.out.Write(chunk[:n]) // an error leaves nothing to report it on
			chunk = chunk[n:]
			w.signal()
		}
		w.mu.Lock()
	}
}

// signal tells a waiting Flush that something happened.
func (w *Writer) signal() {
	select {
	case w.progress <- struct{}{}:
	default:
	}
}

// Flush waits until everything queued is written, and reports whether it all
// went out. It gives up only when the reader takes nothing for stall: a
// reader that is slow but reading gets every line, however long that takes,
// so the audit line of the last request is not lost to a loaded machine at
// exit (TestFlushWaitsForASlowReader). A process calls it before it exits.
func (w *Writer) Flush(stall time.Duration) bool {
	timer := w.after(stall)
	for {
		w.mu.Lock()
		busy := w.busy
		w.mu.Unlock()
		if !busy {
			return true
		}
		select {
		case <-w.progress:
			timer = w.after(stall)
		case <-timer:
			w.mu.Lock()
			busy = w.busy
			w.mu.Unlock()
			return !busy
		}
	}
}

// Limits of [RateLimit]: a session that logs on every message gets its
// first Burst records whole, then PerSecond; all sessions together get
// GlobalFactor times as many, so that a flood of sessions costs a bounded
// amount too. At most MaxSessions sessions have a bucket of their own.
const (
	DefaultBurst     = 200
	DefaultPerSecond = 20
	GlobalFactor     = 4
	MaxSessions      = 256
)

// SessionKey is the attribute that names the session a record is about:
// go-sdk v1.8.0 names it so where it names one ("server session connected",
// "resource subscribed", ...). A record or a logger's attributes that carry
// it are counted against that session; the others, which go-sdk logs with no
// session (most of its server's records: it logs with no context) and a stdio
// server's, whose one session they all are, against one bucket of their own.
const SessionKey = "session_id"

// RateLimit returns a handler that passes to h at most burst records at once
// and perSecond on average per session, and GlobalFactor times that for all
// sessions together, by token buckets on the clock now. A record beyond them
// is dropped and counted, and the next record passed for its session carries
// the count as the attribute "dropped_records". Records below h's level cost
// no token. Of the sessions, at most MaxSessions keep a bucket: the least
// recently used one is forgotten for a new one, and its dropped count is
// carried by the next record passed for any session, so memory stays bounded
// however many sessions log.
func RateLimit(h slog.Handler, burst, perSecond int, now func() time.Time) slog.Handler {
	if burst <= 0 {
		burst = DefaultBurst
	}
	if perSecond <= 0 {
		perSecond = DefaultPerSecond
	}
	b, r := float64(burst), float64(perSecond)
	return &limited{h: h, buckets: &buckets{burst: b, rate: r, now: now, max: MaxSessions,
		global: bucket{tokens: b * GlobalFactor}, sessions: map[string]*bucket{}}}
}

type limited struct {
	h       slog.Handler
	buckets *buckets // shared by the handlers WithAttrs and WithGroup derive
	session string   // the session a derived logger's attributes name
	named   bool
}

// buckets are the token buckets of every session and of all together.
type buckets struct {
	burst, rate float64
	now         func() time.Time
	max         int

	mu       sync.Mutex
	clock    uint64 // counts takes, to forget the least recently used bucket
	global   bucket
	sessions map[string]*bucket
	lost     int64 // dropped counts of forgotten buckets, not yet reported
}

type bucket struct {
	tokens  float64
	last    time.Time
	used    uint64
	dropped int64
}

// refill adds what the time since the bucket's last take earned.
func (b *bucket) refill(t time.Time, burst, rate float64) {
	if !b.last.IsZero() {
		if elapsed := t.Sub(b.last).Seconds(); elapsed > 0 {
			b.tokens = min(burst, b.tokens+elapsed*rate)
		}
	}
	b.last = t
}

// take reports whether a record of session may pass, and how many records
// were dropped before it that it should report.
func (bs *buckets) take(session string) (bool, int64) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	t := bs.now()
	b := bs.sessions[session]
	if b == nil {
		if len(bs.sessions) >= bs.max {
			var oldest string
			for k, o := range bs.sessions {
				if old := bs.sessions[oldest]; old == nil || o.used < old.used {
					oldest = k
				}
			}
			bs.lost += bs.sessions[oldest].dropped
			delete(bs.sessions, oldest)
		}
		b = &bucket{tokens: bs.burst}
		bs.sessions[session] = b
	}
	bs.clock++
	b.used = bs.clock
	b.refill(t, bs.burst, bs.rate)
	bs.global.refill(t, bs.burst*GlobalFactor, bs.rate*GlobalFactor)
	if b.tokens < 1 || bs.global.tokens < 1 {
		b.dropped++
		return false, 0
	}
	b.tokens--
	bs.global.tokens--
	dropped := b.dropped + bs.lost
	b.dropped, bs.lost = 0, 0
	return true, dropped
}

func (l *limited) Enabled(ctx context.Context, level slog.Level) bool {
	return l.h.Enabled(ctx, level)
}

func (l *limited) Handle(ctx context.Context, r slog.Record) error {
	session := l.session
	if !l.named {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == SessionKey {
				session = a.Value.String()
				return false
			}
			return true
		})
	}
	ok, dropped := l.buckets.take(session)
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
	d := &limited{h: l.h.WithAttrs(attrs), buckets: l.buckets, session: l.session, named: l.named}
	for _, a := range attrs {
		if a.Key == SessionKey {
			d.session, d.named = a.Value.String(), true
		}
	}
	return d
}

func (l *limited) WithGroup(name string) slog.Handler {
	return &limited{h: l.h.WithGroup(name), buckets: l.buckets, session: l.session, named: l.named}
}
