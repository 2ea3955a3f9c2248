package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/automium/automium"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOneRoundTrip: a wrong-typed or empty field no longer hides the other
// problems of a call. Shape problems (the walker's) and meaning problems (the
// capability's) come back in one answer, in the one order, and a meaning
// problem about the zero value left where a shape problem is (a target sent as
// a string reads as a missing target) is not reported twice. The same table
// runs on the tool rows (Go) and over an MCP session.
func TestOneRoundTrip(t *testing.T) {
	type shape struct{ Code, Field string }
	journey := func(change func(j map[string]any)) map[string]any {
		var j map[string]any
		if err := json.Unmarshal([]byte(validArgs(t)["automium_compile_journey"]), &j); err != nil {
			t.Fatal(err)
		}
		change(j)
		return j
	}
	fourProblems := journey(func(j map[string]any) {
		steps := j["steps"].([]any)
		steps[0].(map[string]any)["intent"] = "teleport"
		steps[1].(map[string]any)["target"] = "the search box"
		j["fixtureId"] = "kanban-empty-board"
		j["assertions"] = []any{}
	})
	var submission map[string]any
	if err := json.Unmarshal([]byte(validArgs(t)["automium_create_run_submission"]), &submission); err != nil {
		t.Fatal(err)
	}
	submission["journeyId"] = ""
	submission["fixtureId"] = "kanban-empty-board"
	submission["planner"] = map[string]any{"id": "baseline", "vendor": "openai"}

	tests := []struct {
		name string
		tool string
		args any
		want []shape
	}{
		{"a wrong-typed target and three meaning problems", "automium_compile_journey", fourProblems, []shape{
			{"fixture_app_mismatch", "fixtureId"},
			{"unsupported_intent", "steps[0].intent"},
			{"invalid_argument", "steps[1].target"},
			{"invalid_argument", "assertions"},
		}},
		{"an empty journeyId with a wrong fixture and a malformed planner", "automium_create_run_submission", submission, []shape{
			{"invalid_argument", "journeyId"},
			// Sent empty, journeyId names no journey: the fix is either kind.
			{"invalid_argument", "journey"},
			{"fixture_app_mismatch", "fixtureId"},
			{"malformed_planner", "planner.model"},
		}},
	}
	cs := connect(t, New(nil), "2025-11-25")
	rows := map[string]tool{}
	for _, r := range tools() {
		rows[r.def.Name] = r
	}
	for _, tt := range tests {
		raw, err := json.Marshal(tt.args)
		if err != nil {
			t.Fatal(err)
		}
		shapes := func(e *automium.Error) []shape {
			var got []shape
			for _, p := range e.Problems() {
				got = append(got, shape{string(p.Code), p.Field})
			}
			return got
		}
		t.Run(tt.name+"/Go", func(t *testing.T) {
			_, err := rows[tt.tool].call(context.Background(), raw)
			e, ok := err.(*automium.Error)
			if !ok {
				t.Fatalf("error %v, want problems", err)
			}
			if diff := cmp.Diff(tt.want, shapes(e)); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%s", diff, readable(e))
			}
		})
		t.Run(tt.name+"/MCP", func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: json.RawMessage(raw)})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, shapes(toolError(t, res))); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
