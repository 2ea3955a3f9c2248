package mcpserver

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The README's MCP inventory lives between these markers and is generated.
const (
	readmePath  = "../README.md"
	beginMarker = "<!-- BEGIN MCP INVENTORY: generated from the live server by `go test ./mcpserver -run TestREADMEInventory -update`; do not edit by hand -->"
	endMarker   = "<!-- END MCP INVENTORY -->"
)

// TestREADMEInventory keeps the README's table of tools, resources and prompts
// equal to what the server lists, so the documentation cannot drift from the
// code. With -update it rewrites the region between the markers.
func TestREADMEInventory(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	begin, end := strings.Index(text, beginMarker), strings.Index(text, endMarker)
	if begin < 0 || end < begin {
		t.Fatalf("README.md lacks the markers\n%s\n%s\naround the MCP inventory", beginMarker, endMarker)
	}
	got := text[begin+len(beginMarker) : end]
	want := "\n" + renderInventory(t) + "\n"
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(readmePath, []byte(text[:begin+len(beginMarker)]+want+text[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md MCP inventory is stale (-README +server); run go test ./mcpserver -run TestREADMEInventory -update:\n%s", cmp.Diff(got, want))
}

// renderInventory renders the markdown tables from the lists a client receives.
func renderInventory(t *testing.T) string {
	ctx := context.Background()
	cs := connect(t, New(nil), "2025-11-25")
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
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
	return b.String()
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
