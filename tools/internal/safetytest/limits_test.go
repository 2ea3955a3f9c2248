package safetytest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/limit"
	"github.com/automium/automium/mcpserver"
	"github.com/automium/automium/mcpserver/transport/stdio"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLimitsDocumented fails on any input an agent could make arbitrarily
// large (see limitsDoc). TestGenerated holds docs/limits.md to limitsDoc, and
// the root package's TestLimitsRegistry every Max* constant to automium.Limits,
// which docs/limits.md lists.
func TestLimitsDocumented(t *testing.T) {
	_, unbounded, err := limitsDoc()
	if err != nil {
		t.Fatal(err)
	}
	if len(unbounded) > 0 {
		t.Errorf("inputs without an upper bound:\n  %s", strings.Join(unbounded, "\n  "))
	}
}

// TestLimitsOutsideTheSchemas checks, at each boundary, the limits docs/limits.md
// states that no input schema carries: the tool-argument cap in mcpserver, the
// prompt-argument caps, and the stdio line cap (whose boundary TestProtocolAbuse
// also checks against the real binary).
func TestLimitsOutsideTheSchemas(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short, run in full by go test ./... and CI")
	}
	if stdio.DefaultMaxLineBytes != 16<<20 {
		t.Errorf("stdio.DefaultMaxLineBytes = %d; docs/limits.md and SECURITY.md say 16 MiB", stdio.DefaultMaxLineBytes)
	}
	ctx := context.Background()
	cs := connectPipe(t, mcpserver.New(nil))

	// Tool arguments: 8 MiB. At the cap the arguments are decoded (and the goal
	// then fails its own 2,000-character limit); one byte more is refused unread.
	const argumentCap = 8 << 20
	for _, size := range []int{argumentCap, argumentCap + 1} {
		args := json.RawMessage(`{"goal":"` + strings.Repeat("x", size-len(`{"goal":""}`)) + `"}`)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "automium_compile_journey", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		capped := strings.Contains(text, fmt.Sprintf("the limit is %d bytes", argumentCap))
		if capped != (size > argumentCap) {
			t.Errorf("%d bytes of arguments: refused by the %d-byte cap = %v, want %v: %.300s", size, argumentCap, capped, size > argumentCap, text)
		}
	}

	// Prompt arguments, in bytes.
	fixtures, err := automium.ListFixtures(ctx, automium.ListFixturesInput{})
	if err != nil {
		t.Fatal(err)
	}
	f := fixtures.Fixtures[0]
	run := "run-0123456789abcdef0123"
	for _, c := range []struct {
		prompt, arg string
		limit       int
		base        map[string]string
	}{
		{"draft_journey", "goal", limit.MaxTextLength, map[string]string{"appId": f.AppID, "fixtureId": f.ID}},
		{"debug_failed_run", "replaySummary", 32 << 10, map[string]string{"runId": run, "verdict": "failed"}},
		{"debug_failed_run", "artifactManifestRef", 256, map[string]string{"runId": run, "verdict": "failed"}},
		{"compare_planner_backends", "appIds", 4 << 10, map[string]string{"planners": "a=v/m"}},
		{"compare_planner_backends", "planners", 4 << 10, map[string]string{"appIds": f.AppID}},
	} {
		for _, size := range []int{c.limit, c.limit + 1} {
			args := map[string]string{c.arg: strings.Repeat("x", size)}
			for k, v := range c.base {
				args[k] = v
			}
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: c.prompt, Arguments: args})
			capped := err != nil && strings.Contains(err.Error(), "limit_exceeded")
			if capped != (size > c.limit) {
				t.Errorf("%s.%s of %d bytes: limit_exceeded = %v, want %v (error: %v)", c.prompt, c.arg, size, capped, size > c.limit, err)
			}
		}
	}
}

// TestLimitRowsCatchUnbounded shows that TestLimitsDocumented fails on an input
// an agent could make arbitrarily large.
func TestLimitRowsCatchUnbounded(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal([]byte(`{"type":"object","additionalProperties":true,"properties":{
		"text":{"type":"string"},
		"greedy":{"type":"string","pattern":"^a+$"},
		"list":{"type":"array","items":{"type":"string","maxLength":3}},
		"count":{"type":"integer","minimum":0},
		"fine":{"type":"string","pattern":"^[0-9]{4}$"}}}`), &schema); err != nil {
		t.Fatal(err)
	}
	var rows, unbounded []string
	limitRows(schema, "", &rows, &unbounded, "test")
	want := []string{
		"test count: number without maximum",
		"test greedy: string without maxLength, enum or fixed-length pattern",
		"test list: array without maxItems",
		"test text: string without maxLength, enum or fixed-length pattern",
		"test : object accepts additional properties",
	}
	if diff := cmp.Diff(want, unbounded); diff != "" {
		t.Errorf("unbounded inputs (-want +got):\n%s", diff)
	}
}
