package safetytest

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkCall makes c through a go-sdk client session and returns what the client
// got back, encoded as JSON, or the error it returned.
func sdkCall(ctx context.Context, cs *mcp.ClientSession, c call) ([]byte, error) {
	decode := func(p any) error {
		if err := json.Unmarshal(c.params, p); err != nil {
			return fmt.Errorf("%s: params: %w", c.name, err)
		}
		return nil
	}
	var (
		res any
		err error
	)
	switch c.method {
	case "tools/list":
		res, err = cs.ListTools(ctx, nil)
	case "resources/list":
		res, err = cs.ListResources(ctx, nil)
	case "resources/templates/list":
		res, err = cs.ListResourceTemplates(ctx, nil)
	case "prompts/list":
		res, err = cs.ListPrompts(ctx, nil)
	case "ping":
		res, err = struct{}{}, cs.Ping(ctx, nil)
	case "resources/read":
		var p mcp.ReadResourceParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		res, err = cs.ReadResource(ctx, &p)
	case "tools/call":
		var p mcp.CallToolParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		res, err = cs.CallTool(ctx, &p)
	case "prompts/get":
		var p mcp.GetPromptParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		res, err = cs.GetPrompt(ctx, &p)
	case "completion/complete":
		var p mcp.CompleteParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		res, err = cs.Complete(ctx, &p)
	default:
		return nil, fmt.Errorf("%s: sdkCall has no case for %s", c.name, c.method)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// checkSDKOutcome reports whether what sdkCall returned ends the way c expects.
func checkSDKOutcome(t testing.TB, c call, data []byte, err error) {
	t.Helper()
	got := wantResult
	if err != nil {
		got = wantRPCError
	} else if c.method == "tools/call" {
		var tr toolResult
		if err := json.Unmarshal(data, &tr); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if tr.IsError {
			got = wantIsError
		}
	}
	if got != c.want {
		t.Errorf("%s: got %v (err %v), want %v: %.300s", c.name, got, err, c.want, data)
	}
}
