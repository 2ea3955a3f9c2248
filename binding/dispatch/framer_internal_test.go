package dispatch

import (
	"context"
	"io"
	"math"
	"strings"
	"sync"
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
	once    sync.Once
}

func (w *stuckWriter) Write([]byte) (int, error) {
	w.once.Do(func() { close(w.entered) })
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

// TestWriteEndsWithItsContext: a Write blocked on a peer that never reads
// returns when its context ends, and a later Write waiting for its turn
// too, so that VerifyTimeout and the caller's deadline hold; the stream's
// write goes on until Close ends it. Write ignored its context once it
// had started, so a dispatch waited on the peer forever.
func TestWriteEndsWithItsContext(t *testing.T) {
	r, _ := io.Pipe()
	w := &stuckWriter{entered: make(chan struct{}), release: make(chan struct{})}
	c := newWireConn(r, w, func() error { close(w.release); return r.Close() }, 0)
	msg := &jsonrpc.Request{Method: "notifications/initialized"}
	ctx, cancel := context.WithCancel(context.Background())
	written := make(chan error, 1)
	go func() { written <- c.Write(ctx, msg) }()
	<-w.entered
	cancel()
	if err := <-written; err != context.Canceled {
		t.Errorf("the blocked Write returned %v, want %v", err, context.Canceled)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() { written <- c.Write(ctx2, msg) }()
	cancel2()
	if err := <-written; err != context.Canceled {
		t.Errorf("the Write waiting for its turn returned %v, want %v", err, context.Canceled)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := c.Write(context.Background(), msg); err == nil {
		t.Error("a Write after Close succeeded")
	}
}
