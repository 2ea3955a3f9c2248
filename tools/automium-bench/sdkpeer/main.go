// Command sdkpeer is the minimal go-sdk server automium-bench compares
// automium-mcp with: mcp.NewServer, one raw tool handler per name and the SDK's
// own stdio transport, and nothing of Automium. It returns the same bytes as
// automium-mcp's tools: the harness fills its table first with bench_load calls
// ({"tool", "args", "text", "structured"}), and a call with that tool name and
// those argument bytes gets text as one text block and structured as its
// structured content, built per call as any go-sdk server builds its result.
//
// Built with the tag benchvalidator (and automium-mcp's validator_novalidatefn),
// it is the same server with go-playground/validator linked and used as
// automium-mcp uses it (validator.go): the harness's -validator-peer, which
// shows what the validator alone costs a go-sdk server at start and in memory.
package main

import (
	"context"
	"encoding/json"
	"os"
	"sync"

	"github.com/automium/automium/tools/automium-bench/internal/benchload"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	var mu sync.Mutex
	answers := map[string]benchload.Load{}
	server := mcp.NewServer(&mcp.Implementation{Name: "sdkpeer", Version: "1"}, nil)
	object := json.RawMessage(`{"type":"object"}`)
	answer := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.Name == "bench_load" {
			var l benchload.Load
			if err := json.Unmarshal(req.Params.Arguments, &l); err != nil {
				return nil, err
			}
			if err := checkLoad(l); err != nil {
				return nil, err
			}
			mu.Lock()
			answers[l.Tool+"\x00"+string(l.Args)] = l
			mu.Unlock()
		}
		mu.Lock()
		a, ok := answers[req.Params.Name+"\x00"+string(req.Params.Arguments)]
		mu.Unlock()
		if !ok {
			a = benchload.Load{Text: "{}", Structured: json.RawMessage("{}")}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}, StructuredContent: a.Structured}, nil
	}
	for _, name := range []string{"bench_load", "automium_list_apps", "automium_list_fixtures", "automium_compile_journey",
		"automium_create_run_submission", "automium_get_replay_summary", "automium_get_artifact_manifest", "automium_compare_planners"} {
		server.AddTool(&mcp.Tool{Name: name, InputSchema: object}, answer)
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
}
