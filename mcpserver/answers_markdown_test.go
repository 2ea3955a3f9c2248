package mcpserver

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/automium/automium/internal/limit"
)

// markdownBreakout finds what a client value must never make in a summary
// outside a code span: raw HTML or an autolink (<…), a link or image ([…](…)),
// an entity (&…;).
var markdownBreakout = regexp.MustCompile(`(^|[^\\])(<[A-Za-z/!?]|\[[^\]]*[^\\]\]\(|&[#A-Za-z0-9]+;)`)

// TestCompileSummaryEscapesProblems compiles journeys whose IDs and words are
// HTML, links and entities: the invalid journey's summary quotes them in its
// problem lines, which are Markdown, and none may become HTML or a link.
func TestCompileSummaryEscapesProblems(t *testing.T) {
	var row tool
	for _, r := range tools() {
		if r.def.Name == "automium_compile_journey" {
			row = r
		}
	}
	hostile := []string{
		"[x](javascript:alert(1))", "<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
		"![i](https://evil.example/x.png)", "&lt;b&gt;", "<https://evil.example>", "a\nb\u202e<c>", "``` x", `\[y\](z)`,
	}
	for _, h := range hostile {
		args := map[string]any{"id": h, "appId": h, "fixtureId": h, "goal": h,
			"steps": []any{map[string]any{"intent": h, "target": map[string]any{"role": h, "name": h}}}, "assertions": []any{map[string]any{"kind": h}}}
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		out, err := row.call(context.Background(), raw)
		if err != nil {
			t.Fatalf("%q: %v", h, err)
		}
		md, _ := summarize(out)
		if !strings.HasPrefix(md, "Invalid journey") {
			t.Fatalf("%q: not an invalid journey's summary:\n%s", h, md)
		}
		for line := range strings.Lines(md) {
			if m := markdownBreakout.FindString(line); m != "" {
				t.Errorf("%q: the summary line %q makes %q", h, line, m)
			}
		}
	}
	// As many problems as are listed, each quoting a value all of whose
	// characters are escaped: the summary stays within its bound.
	var steps []any
	for range limit.MaxSteps {
		steps = append(steps, map[string]any{"intent": strings.Repeat("<", 400)})
	}
	raw, err := json.Marshal(map[string]any{"id": strings.Repeat("[", limit.MaxIDLength), "appId": "storefront", "fixtureId": "storefront-guest-catalog", "goal": "g", "steps": steps})
	if err != nil {
		t.Fatal(err)
	}
	out, err := row.call(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	if md, _ := summarize(out); len(md) > maxSummaryBytes {
		t.Errorf("the summary of %d bytes is over its bound of %d", len(md), maxSummaryBytes)
	}
}
