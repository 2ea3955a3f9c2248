package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeConn records whether it was closed.
type fakeConn struct {
	net.Conn
	name   string
	closed bool
}

func (c *fakeConn) Close() error { c.closed = true; return nil }

// TestConnTrackerCloseIdle: on shutdown, connections that carry no request
// (new ones that sent nothing yet and idle keep-alive ones) are closed at once;
// one serving a request is left to finish and closed when it turns idle.
func TestConnTrackerCloseIdle(t *testing.T) {
	fresh, idle, active, gone := &fakeConn{name: "new"}, &fakeConn{name: "idle"}, &fakeConn{name: "active"}, &fakeConn{name: "closed"}
	all := []*fakeConn{fresh, idle, active, gone}
	tr := newConnTracker()
	tr.track(fresh, http.StateNew)
	tr.track(idle, http.StateNew)
	tr.track(idle, http.StateActive)
	tr.track(idle, http.StateIdle)
	tr.track(active, http.StateNew)
	tr.track(active, http.StateActive)
	tr.track(gone, http.StateNew)
	tr.track(gone, http.StateClosed)

	closedNames := func() []string {
		var names []string
		for _, c := range all {
			if c.closed {
				names = append(names, c.name)
			}
		}
		return names
	}
	tr.closeIdle()
	if diff := cmp.Diff([]string{"new", "idle"}, closedNames()); diff != "" {
		t.Errorf("closed by closeIdle (-want +got):\n%s", diff)
	}
	tr.track(active, http.StateIdle)
	late := &fakeConn{name: "late"}
	all = append(all, late)
	tr.track(late, http.StateNew)
	if diff := cmp.Diff([]string{"new", "idle", "active", "late"}, closedNames()); diff != "" {
		t.Errorf("closed after the request finished (-want +got):\n%s", diff)
	}
	if len(tr.conns) != 0 {
		t.Errorf("the tracker still holds %d connections", len(tr.conns))
	}
}

// TestConnTrackerClosesSilentConnection: a real server, a client connection
// that has sent nothing (net/http would wait 5 s for its request before
// Shutdown closes it) is closed by closeIdle: the client reads EOF. Nothing
// else in this server would ever close it, so no clock is involved.
func TestConnTrackerClosesSilentConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := newConnTracker()
	seen := make(chan http.ConnState, 4)
	srv := &http.Server{
		Handler: http.NotFoundHandler(),
		ConnState: func(c net.Conn, s http.ConnState) {
			tr.track(c, s)
			seen <- s
		},
	}
	go srv.Serve(ln)
	defer srv.Close()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if s := <-seen; s != http.StateNew {
		t.Fatalf("first state %v, want new", s)
	}
	tr.closeIdle()
	_, err = conn.Read(make([]byte, 1))
	if !errors.Is(err, io.EOF) && !isReset(err) {
		t.Errorf("read on the silent connection after closeIdle: %v, want EOF", err)
	}
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op)
}
