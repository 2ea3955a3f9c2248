package safetytest

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/automium/automium/internal/testsupport"
	"github.com/automium/automium/mcpserver"
	"github.com/automium/automium/mcpserver/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectPipe serves a fresh mcpserver session over mcpserver/transport/stdio (the
// transport automium-mcp uses) through in-process pipes, and connects a go-sdk
// client to it with the 2025-11-25 handshake. Under -race this puts the
// transport, the SDK and every handler under the race detector.
func connectPipe(t *testing.T, server *mcp.Server) *mcp.ClientSession {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- server.Run(ctx, &stdio.Transport{Reader: toServer, Writer: fromServer})
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "safetytest-concurrency", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: toClient, Writer: fromClient}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server Run: %v", err)
			}
		case <-testsupport.Deadline(t):
			t.Error("the server did not stop by the test's deadline after the client closed")
		}
		cancel()
		fromServer.Close()
	})
	return cs
}

// TestThousandConcurrentCalls makes 1,000 tool calls at once on one session, a
// mix of every tool with good and bad arguments, and requires each result to be
// byte-identical to the result of the same call made alone. Run under -race (as
// .ci/run does) it also proves the server shares no unsynchronized state between
// calls. Calls with arguments over 64 KiB (the 100,000-step journey) are left out
// of the mix to keep the run short; TestProtocolAbuse and TestDeterminismAcrossProcesses
// cover them.
func TestThousandConcurrentCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short, run in full by go test ./... and CI")
	}
	const total = 1000
	var calls []call
	for _, c := range toolCalls() {
		if len(c.params) <= 64<<10 {
			calls = append(calls, c)
		}
	}
	server := mcpserver.New(nil)
	ctx := context.Background()

	alone := make([]string, len(calls))
	quiet := connectPipe(t, server)
	for i, c := range calls {
		data, err := sdkCall(ctx, quiet, c)
		checkSDKOutcome(t, c, data, err)
		alone[i] = outcomeBytes(data, err)
	}

	busy := connectPipe(t, server)
	got := make([]string, total)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range total {
		wg.Go(func() {
			<-start
			data, err := sdkCall(ctx, busy, calls[i%len(calls)])
			got[i] = outcomeBytes(data, err)
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	t.Logf("%d concurrent calls over %d distinct calls in %v", total, len(calls), time.Since(began))
	for i, g := range got {
		if want := alone[i%len(calls)]; g != want {
			t.Errorf("call %d (%s) under concurrency:\n%.400s\nalone:\n%.400s", i, calls[i%len(calls)].name, g, want)
		}
	}
}

// outcomeBytes is what a client got: the result's JSON, or the error's text.
func outcomeBytes(data []byte, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return string(data)
}
