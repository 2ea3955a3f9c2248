package dispatch

import (
	"context"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestFramerHugeBound: a MaxLineLength near math.MaxInt is a bound no
// line reaches, as a negative one is no bound: the framer still reads
// the stream. limit+2 overflowed to a negative buffer size, so fill
// returned without reading and line spun forever on one core.
func TestFramerHugeBound(t *testing.T) {
	for _, limit := range []int{math.MaxInt, math.MaxInt - 1, math.MaxInt - 2, -1, 1, 3} {
		f := &framer{r: strings.NewReader("{}\n"), limit: limit}
		f.fill()
		if f.end == 0 {
			t.Errorf("limit %d: fill read nothing of a waiting stream", limit)
		}
	}
}

// stuckWriter blocks every Write until it is closed, as the stdin of a
// server that never reads.
type stuckWriter struct {
	entered chan struct{}
	release chan struct{}
}

func (w *stuckWriter) Write([]byte) (int, error) {
	close(w.entered)
	<-w.release
	return 0, io.ErrClosedPipe
}

// TestCloseEndsABlockedWrite: Close returns while a Write is blocked on a
// peer that never reads, and ends that Write, as go-sdk's connection does.
// Close took the write lock before closing the streams, so it waited for
// the Write, which waited for Close.
func TestCloseEndsABlockedWrite(t *testing.T) {
	r, _ := io.Pipe()
	w := &stuckWriter{entered: make(chan struct{}), release: make(chan struct{})}
	c := newWireConn(r, w, func() error { close(w.release); return r.Close() }, 0)
	written := make(chan error, 1)
	go func() {
		written <- c.Write(context.Background(), &jsonrpc.Request{Method: "notifications/initialized"})
	}()
	<-w.entered
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-written; err == nil {
		t.Error("the blocked Write succeeded after Close")
	}
}
