package transport_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/automium/automium/mcpserver/transport"
)

// TestConnLimiter: connections that never send a request are closed, oldest
// first, once there are Max of them; a connection serving a request is not.
func TestConnLimiter(t *testing.T) {
	const max = 3
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	limiter := &transport.ConnLimiter{Max: max}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-release
	}))
	srv.Config.ConnState = limiter.ConnState
	srv.Start()
	defer srv.Close()

	busy, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	if _, err := io.WriteString(busy, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	<-started // busy is serving a request now

	var silent []net.Conn
	for range 2 * max {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		silent = append(silent, c)
	}
	// All but the newest max-1 silent connections are closed by the server:
	// a read on them ends. Reading the newest would block, so it is not done.
	for i, c := range silent[:len(silent)-(max-1)] {
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Errorf("silent connection %d got data, want it closed", i)
		}
	}
	if n := limiter.Open(); n > max {
		t.Errorf("%d connections open, over the cap of %d", n, max)
	}
	close(release)
	resp, err := http.ReadResponse(bufio.NewReader(busy), nil)
	if err != nil {
		t.Fatalf("the connection serving a request was cut off: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("busy connection: status %d, want 200", resp.StatusCode)
	}
}
