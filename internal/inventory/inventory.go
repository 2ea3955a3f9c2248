// Package inventory renders what an MCP server lists, as a client receives it
// over an in-memory session, for the module's generated documents: the
// README's tables of tools, resources and prompts, and the prompt goldens. It
// runs when go generate ./... writes them (and in the tests that hold the
// files to it), never in a server, and knows nothing of Automium: it takes any
// *mcp.Server.
package inventory

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session opens an in-memory session with server, so that what is rendered
// from its lists is what a client receives.
func session(ctx context.Context, server *mcp.Server) (*mcp.ClientSession, func(), error) {
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, serverTransport, nil)
	if err != nil {
		return nil, nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "automium-gen", Version: "v0.0.0"}, nil)
	cs, err := client.Connect(ctx, clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		ss.Close()
		return nil, nil, err
	}
	return cs, func() { cs.Close(); ss.Wait() }, nil
}

// PromptText is the text of the first message prompts/get gives for a prompt
// of server and its arguments, over a session of its own.
func PromptText(ctx context.Context, server *mcp.Server, name string, args map[string]string) (string, error) {
	cs, done, err := session(ctx, server)
	if err != nil {
		return "", err
	}
	defer done()
	res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	if len(res.Messages) == 0 {
		return "", fmt.Errorf("inventory: prompt %s has no message", name)
	}
	text, ok := res.Messages[0].Content.(*mcp.TextContent)
	if !ok {
		return "", fmt.Errorf("inventory: prompt %s's first message is %T, not text", name, res.Messages[0].Content)
	}
	return text.Text, nil
}

// Markdown renders server's tools, resources, resource templates and prompts
// as markdown tables, in the order its lists give them, from what a client
// receives: a tool's arguments from its input schema's properties (required
// ones plain, the rest marked optional), each description cut to its first
// sentence.
func Markdown(ctx context.Context, server *mcp.Server) (string, error) {
	cs, done, err := session(ctx, server)
	if err != nil {
		return "", err
	}
	defer done()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return "", err
	}
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		return "", err
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		return "", err
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| Tool | Arguments | What it does |\n|---|---|---|\n")
	for _, tool := range tools.Tools {
		schema := tool.InputSchema.(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		required, _ := schema["required"].([]any)
		var args []string
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for k := range props {
				if !yield(k) {
					return
				}
			}
		}) {
			args = append(args, argument(name, slices.Contains(required, any(name))))
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", tool.Name, orNone(args), firstSentence(tool.Description))
	}
	b.WriteString("\n| Resource | What it holds |\n|---|---|\n")
	for _, r := range resources.Resources {
		fmt.Fprintf(&b, "| `%s` | %s: %s |\n", r.URI, r.Title, firstSentence(r.Description))
	}
	for _, r := range templates.ResourceTemplates {
		fmt.Fprintf(&b, "| `%s` (template) | %s: %s |\n", r.URITemplate, r.Title, firstSentence(r.Description))
	}
	b.WriteString("\n| Prompt | Arguments | What it guides |\n|---|---|---|\n")
	for _, p := range prompts.Prompts {
		var args []string
		for _, a := range p.Arguments {
			args = append(args, argument(a.Name, a.Required))
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", p.Name, orNone(args), firstSentence(p.Description))
	}
	return b.String(), nil
}

func argument(name string, required bool) string {
	if required {
		return "`" + name + "`"
	}
	return "`" + name + "` (optional)"
}

func orNone(args []string) string {
	if len(args) == 0 {
		return "none"
	}
	return strings.Join(args, ", ")
}

// firstSentence keeps a table cell short: descriptions go on to say when to call
// and what is never done, which the server itself tells a model.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
}
