package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReplayAnswersAsRecorded serves every workload's recorded answer the way
// the no-op server replays it and checks the client gets the same text and
// structured content, byte for byte. Before, the replay sent the Markdown text
// as structured content, go-sdk could not encode it and sent no response, and
// the harness waited for ever; now such a call fails after the call timeout.
func TestReplayAnswersAsRecorded(t *testing.T) {
	ctx := context.Background()
	answers, err := replayPayloads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "replay", Version: "1"}, nil)
	differ := 0
	for i, a := range answers {
		if a.text != string(a.structured) {
			differ++
		}
		server.AddTool(&mcp.Tool{Name: replayTool(i), InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return replayResult(a), nil })
	}
	if differ == 0 {
		t.Fatal("every answer's text is its structured content; since issue 36 most texts are Markdown summaries, so the test would not guard the replay")
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	last := &lastResult{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, recording{ct, last}, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	s := session{ClientSession: cs, label: "replay", callTimeout: defaultCallTimeout, last: last}
	for i, want := range answers {
		got, err := callAnswer(ctx, s, workload{name: replayTool(i), tool: replayTool(i), args: json.RawMessage(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		if diff := sameAnswer(want, got); diff != "" {
			t.Errorf("workload %d: %s", i, diff)
		}
	}
}
