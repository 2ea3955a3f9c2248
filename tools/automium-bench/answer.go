package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// answer is what a tool call returned, as the bytes on the wire: the text of
// its one content block and its structured content. Since issue 36 the two
// differ (the text is a Markdown summary, the structured content JSON), so a
// replay must carry both, each exactly.
type answer struct {
	text       string
	structured json.RawMessage
}

// recording wraps a client transport and keeps the raw result of the last
// response it read, so the harness sees a call's structured content as the
// server wrote it: the go-sdk client decodes it into a map, which loses the
// order of the keys.
type recording struct {
	mcp.Transport
	last *lastResult
}

type lastResult struct {
	mu  sync.Mutex
	raw json.RawMessage
}

func (l *lastResult) get() json.RawMessage {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.raw
}

func (t recording) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return recordingConn{conn, t.last}, nil
}

type recordingConn struct {
	mcp.Connection
	last *lastResult
}

func (c recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.last.mu.Lock()
		c.last.raw = r.Result
		c.last.mu.Unlock()
	}
	return msg, err
}

// callTool makes one call bounded by the session's per-call timeout, so a
// server that never answers fails the run with a message instead of hanging it.
func callTool(ctx context.Context, cs session, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	cctx, cancel := context.WithTimeout(ctx, cs.callTimeout)
	defer cancel()
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		return nil, fmt.Errorf("%s gave no answer to %s within %s (-call-timeout): it may have failed to encode its result", cs.label, name, cs.callTimeout)
	}
	return res, err
}

// callAnswer makes one call, insists it succeeded, and returns its answer as
// the server wrote it. Calls on one session must not overlap while it runs.
func callAnswer(ctx context.Context, cs session, w workload) (answer, error) {
	res, err := callTool(ctx, cs, w.tool, w.args)
	if err != nil {
		return answer{}, fmt.Errorf("%s: %w", w.name, err)
	}
	text := firstText(res)
	if res.IsError {
		return answer{}, fmt.Errorf("%s: tool error: %s", w.name, text)
	}
	var raw struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(cs.last.get(), &raw); err != nil {
		return answer{}, fmt.Errorf("%s: reading the raw result: %w", w.name, err)
	}
	return answer{text: text, structured: raw.StructuredContent}, nil
}

// sameAnswer says how got differs from want, byte for byte, or "" if it does
// not.
func sameAnswer(want, got answer) string {
	switch {
	case got.text != want.text:
		return fmt.Sprintf("text content differs (%d bytes against %d)", len(got.text), len(want.text))
	case string(got.structured) != string(want.structured):
		return fmt.Sprintf("structured content differs (%d bytes against %d)", len(got.structured), len(want.structured))
	}
	return ""
}

func firstText(res *mcp.CallToolResult) string {
	if len(res.Content) > 0 {
		if t, ok := res.Content[0].(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

// defaultCallTimeout bounds one call; the heaviest valid call takes tens of
// milliseconds, so 30 s only ends a server that will not answer.
const defaultCallTimeout = 30 * time.Second
