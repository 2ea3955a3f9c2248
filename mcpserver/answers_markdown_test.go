package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

// TestPromptWithinItsCharge gets compare_planner_backends with 16 planners
// whose IDs are 128 characters JSON writes in six bytes each: the prompt's
// answer stays within what admission charged its request (AnswerBound).
func TestPromptWithinItsCharge(t *testing.T) {
	var items []string
	for i := range limit.MaxPlanners {
		items = append(items, fmt.Sprintf("%s%02d=v/m", strings.Repeat("<", limit.MaxIDLength-2), i))
	}
	args := map[string]string{"appIds": "storefront", "planners": strings.Join(items, ","), "repetitions": "1"}
	// The request as a client may send it: '<' as itself, one byte.
	var request bytes.Buffer
	enc := json.NewEncoder(&request)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": map[string]any{"name": "compare_planner_backends", "arguments": args}}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, New(nil), "2025-11-25")
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "compare_planner_backends", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	answer, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": res})
	if err != nil {
		t.Fatal(err)
	}
	if charge := AnswerBound("prompts/get", "", int64(request.Len())); int64(len(answer)) > charge {
		t.Errorf("an answer of %d B to a request of %d B, over its charge of %d B", len(answer), request.Len(), charge)
	}
}

// TestCompileWithinItsCharge compiles the journeys that make the most answer
// per request byte: every step the shortest there is, every recovery
// strategy, for both kinds of client. Each answer stays within its charge at
// admission.
func TestCompileWithinItsCharge(t *testing.T) {
	for _, step := range []string{`{"intent":"go_back"}`, `{"intent":"scroll"}`, `{"intent":"wait_for"}`} {
		steps := strings.Repeat(step+",", limit.MaxSteps-1) + step
		for _, assertions := range []int{1, limit.MaxAssertions} {
			as := strings.Repeat(`{"kind":"url_matches","value":"/"},`, assertions-1) + `{"kind":"url_matches","value":"/"}`
			j := fmt.Sprintf(`{"id":"j","appId":"storefront","fixtureId":"storefront-guest-catalog","goal":"g","steps":[%s],"assertions":[%s],"recovery":{"maxRetries":%d,"strategies":["dismiss_dialog","go_back","reload_route","replan","re_snapshot","retry_step"]}}`,
				steps, as, limit.MaxRecoveryRetries)
			modern, legacy, request := answerSizes(t, "automium_compile_journey", json.RawMessage(j))
			if charge := AnswerBound("tools/call", "automium_compile_journey", request); int64(max(modern, legacy)) > charge {
				t.Errorf("%s × %d, %d assertions: answers of %d B (structured) and %d B (2025-03-26) to %d B of arguments, over the charge of %d B",
					step, limit.MaxSteps, assertions, modern, legacy, request, charge)
			}
		}
	}
}
