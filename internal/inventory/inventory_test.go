package inventory

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// testServer has one of each kind of thing Markdown lists, with descriptions
// that go on past their first sentence and hold what a table cell must
// escape.
func testServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0.0.1"}, nil)
	s.AddTool(&mcp.Tool{
		Name:        "echo",
		Description: "Echo a | b <c>. Never more.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"count":{"type":"integer"}},"required":["text"]}`),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "noop",
		Description: "Do nothing",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	s.AddResource(&mcp.Resource{URI: "test://a", Name: "a", Title: "A", Description: "The a. More."},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil })
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://t/{id}", Name: "t", Title: "T", Description: "One t."},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) { return nil, nil })
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greet someone. Politely.", Arguments: []*mcp.PromptArgument{
		{Name: "who", Required: true}, {Name: "tone"},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
			Content: &mcp.TextContent{Text: "hello " + req.Params.Arguments["who"]}}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "picture", Description: "An image."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
				Content: &mcp.ImageContent{Data: []byte{1}, MIMEType: "image/png"}}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "silent", Description: "Says nothing."},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	return s
}

func TestMarkdown(t *testing.T) {
	got, err := Markdown(context.Background(), testServer())
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"| Tool | Arguments | What it does |",
		"|---|---|---|",
		"| `echo` | `count` (optional), `text` | Echo a \\| b &lt;c&gt;. |",
		"| `noop` | none | Do nothing |",
		"",
		"| Resource | What it holds |",
		"|---|---|",
		"| `test://a` | A: The a. |",
		"| `test://t/{id}` (template) | T: One t. |",
		"",
		"| Prompt | Arguments | What it guides |",
		"|---|---|---|",
		"| `greet` | `who`, `tone` (optional) | Greet someone. |",
		"| `picture` | none | An image. |",
		"| `silent` | none | Says nothing. |",
		"",
	}, "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Markdown (-want +got):\n%s", diff)
	}
}

func TestPromptText(t *testing.T) {
	for _, tt := range []struct {
		name, prompt string
		args         map[string]string
		want         string
		wantErr      string
	}{
		{name: "text", prompt: "greet", args: map[string]string{"who": "ada"}, want: "hello ada"},
		{name: "not text", prompt: "picture", wantErr: "not text"},
		{name: "no message", prompt: "silent", wantErr: "no message"},
		{name: "unknown prompt", prompt: "nope", wantErr: "nope"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PromptText(context.Background(), testServer(), tt.prompt, tt.args)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("PromptText = %q, %v; want an error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("PromptText = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
