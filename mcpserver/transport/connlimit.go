package transport

import (
	"net"
	"net/http"
	"sync"
)

// DefaultHTTPMaxConnections is how many connections [ConnLimiter] keeps open
// when Max is zero: room for every session's event stream and every request
// in flight (DefaultHTTPMaxSessions + DefaultHTTPMaxInFlight) twice over, at
// some 16 KiB of buffers and goroutine stack each.
const DefaultHTTPMaxConnections = 2 * (DefaultHTTPMaxSessions + DefaultHTTPMaxInFlight)

// ConnLimiter caps the connections an http.Server keeps open, authenticated
// or not: set the server's ConnState to its ConnState method. Each open
// connection holds buffers and a goroutine before a single byte is read, so
// without a cap, 15,000 connections that never send a request held 242 MiB.
//
// At the cap, a new connection closes the oldest one that is not serving a
// request: one still waiting for its first request, or idle between two. A
// client sending requests is never cut off by others connecting; a client that
// only opens connections closes its own, and costs at most Max of them. When
// every connection is serving a request, the new one is closed at once.
type ConnLimiter struct {
	// Max is the cap; zero or less means DefaultHTTPMaxConnections.
	Max int

	mu    sync.Mutex
	conns map[net.Conn]*connEntry
	seq   uint64
}

type connEntry struct {
	seq  uint64 // order of arrival, or of the last change to idle
	busy bool   // serving a request
}

// ConnState tracks c's state, closing a connection when one more would be
// over the cap.
func (l *ConnLimiter) ConnState(c net.Conn, state http.ConnState) {
	var victim net.Conn
	l.mu.Lock()
	if l.conns == nil {
		l.conns = map[net.Conn]*connEntry{}
	}
	switch state {
	case http.StateNew:
		max := l.Max
		if max <= 0 {
			max = DefaultHTTPMaxConnections
		}
		if len(l.conns) >= max {
			var oldest *connEntry
			for conn, e := range l.conns {
				if !e.busy && (oldest == nil || e.seq < oldest.seq) {
					victim, oldest = conn, e
				}
			}
			if victim == nil {
				victim = c
				break
			}
			delete(l.conns, victim)
		}
		l.seq++
		l.conns[c] = &connEntry{seq: l.seq}
	case http.StateActive:
		if e := l.conns[c]; e != nil {
			e.busy = true
		}
	case http.StateIdle:
		if e := l.conns[c]; e != nil {
			l.seq++
			e.busy, e.seq = false, l.seq
		}
	case http.StateHijacked, http.StateClosed:
		delete(l.conns, c)
	}
	l.mu.Unlock()
	if victim != nil {
		_ = victim.Close() // its serving goroutine then ends
	}
}

// Open reports how many connections the limiter counts as open.
func (l *ConnLimiter) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}
