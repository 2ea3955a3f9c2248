package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium"
)

// TestExternalAppOverMCP: a journey of a team's own app (ext:…) compiles
// over MCP, its answer says the app is outside the corpus, and a modeled
// comparison of it is refused with the tool names of the real-results path.
func TestExternalAppOverMCP(t *testing.T) {
	cs := connect(t, New(nil), "")
	ctx := context.Background()
	journey := map[string]any{
		"id": "acme-search", "appId": "ext:acme-notes", "fixtureId": "ext:default", "goal": "Find a note",
		"steps":      []any{map[string]any{"intent": "navigate", "value": "/"}},
		"assertions": []any{map[string]any{"kind": "text_visible", "value": "Notes"}},
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "automium_compile_journey", Arguments: journey})
	if err != nil || res.IsError {
		t.Fatalf("compile: %v %s", err, resultText(res))
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var got automium.CompileJourneyResult
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ext:acme-notes"}, got.ExternalAppIDs); diff != "" || !got.Valid || len(got.NotChecked) != 3 {
		t.Errorf("compile answer %s", raw)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "automium_compare_planners", Arguments: map[string]any{
		"corpusVersion": automium.CorpusVersion, "appIds": []string{"ext:acme-notes"},
		"planners": []any{map[string]any{"id": "a", "vendor": "v", "model": "m"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	e := toolError(t, res)
	if e.Code != automium.CodeInvalidAppID || e.Field != "appIds[0]" || !strings.Contains(e.Message, "automium_compare_reports") {
		t.Errorf("compare_planners of an ext: app: %+v", e)
	}
}
