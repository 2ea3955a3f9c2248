package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addEmbedderFeatures adds one tool, resource and prompt of an embedding
// program's own to server, as a program that serves Automium beside its own
// features would.
func addEmbedderFeatures(server *mcp.Server) {
	mcp.AddTool(server, &mcp.Tool{Name: "embedder_echo", Description: "Echoes its text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	server.AddResource(&mcp.Resource{URI: "embedder://notes", Name: "notes", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "embedder notes"}}}, nil
		})
	server.AddPrompt(&mcp.Prompt{Name: "embedder_prompt", Description: "The embedder's prompt."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "embedder prompt"}}}}, nil
		})
}

// TestEmbedding checks both ways of embedding: features added to the server
// from New, and Automium's features registered on a server the caller made.
// Either way, the caller's tool, resource and prompt work beside Automium's,
// Automium's work, and an unknown name gets an error naming all of them.
func TestEmbedding(t *testing.T) {
	servers := map[string]func() *mcp.Server{
		"added to New": func() *mcp.Server {
			s := New(nil)
			addEmbedderFeatures(s)
			return s
		},
		"Register on the caller's server": func() *mcp.Server {
			s := mcp.NewServer(&mcp.Implementation{Name: "embedder", Version: "v1.0.0"}, &mcp.ServerOptions{CompletionHandler: Complete})
			addEmbedderFeatures(s)
			Register(s, nil)
			return s
		},
	}
	for _, name := range []string{"added to New", "Register on the caller's server"} {
		t.Run(name, func(t *testing.T) {
			for _, v := range protocolVersions {
				cs := connect(t, servers[name](), v)
				checkEmbedded(t, cs, name == "added to New")
			}
		})
	}
}

func checkEmbedded(t *testing.T, cs *mcp.ClientSession, guarded bool) {
	t.Helper()
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "embedder_echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError || resultText(res) != "echo: hi" {
		t.Errorf("embedder's tool: %v %+v", err, res)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "embedder://notes"})
	if err != nil || read.Contents[0].Text != "embedder notes" {
		t.Errorf("embedder's resource: %v %+v", err, read)
	}
	prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "embedder_prompt"})
	if err != nil || prompt.Messages[0].Content.(*mcp.TextContent).Text != "embedder prompt" {
		t.Errorf("embedder's prompt: %v %+v", err, prompt)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "automium_list_apps"})
	if err != nil || res.IsError {
		t.Errorf("automium's tool: %v %s", err, resultText(res))
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: journeysURIPrefix + "kanban-create-card"}); err != nil {
		t.Errorf("automium's template: %v", err)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "draft_journey", Arguments: map[string]string{"appId": "kanban", "fixtureId": "kanban-empty-board", "goal": "g"}}); err != nil {
		t.Errorf("automium's prompt: %v", err)
	}
	done, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "draft_journey"}, Argument: mcp.CompleteParamsArgument{Name: "appId", Value: "ka"}})
	if err != nil || !slices.Equal(done.Completion.Values, []string{"kanban"}) {
		t.Errorf("automium's completion: %v %+v", err, done)
	}
	if !guarded {
		return
	}
	unknown := []struct {
		name        string
		call        func() error
		wantAllowed []string
	}{
		{"tool", func() error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"})
			return err
		}, []string{"automium_list_apps", "embedder_echo"}},
		{"prompt", func() error {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "nope"})
			return err
		}, []string{"draft_journey", "embedder_prompt"}},
		{"resource", func() error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "embedder://nope"})
			return err
		}, []string{"automium://apps", journeysURITemplate, "embedder://notes"}},
	}
	for _, u := range unknown {
		code, werr := rpcCode(t, u.call())
		var env errorEnvelope
		if err := json.Unmarshal(werr.Data, &env); err != nil || env.Error == nil {
			t.Fatalf("unknown %s: data %s: %v", u.name, werr.Data, err)
		}
		if code != jsonrpc.CodeInvalidParams {
			t.Errorf("unknown %s: code %d, want %d", u.name, code, jsonrpc.CodeInvalidParams)
		}
		for _, w := range u.wantAllowed {
			if !slices.Contains(env.Error.Allowed, w) {
				t.Errorf("unknown %s: allowed %v lacks %s", u.name, env.Error.Allowed, w)
			}
		}
	}
}
