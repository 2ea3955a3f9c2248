package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHostileArgumentsOverMCP replays, over real sessions, the argument attacks
// that got through before the walker: escaped and unknown names escaping array
// bounds, duplicates hidden by an escape, case variants, and values the schema
// refuses but the decoder let through. Each must be a tool error listing every
// problem (code and field), with a small answer.
func TestHostileArgumentsOverMCP(t *testing.T) {
	v := validArgs(t)
	many := func(key string) string { return `{"` + key + `":[` + repeat(`{}`, 100_000) + `]}` }
	planner := testPlanner
	submission := func(planners string) string {
		return strings.Replace(v["automium_create_run_submission"], `"planner":`+testPlanner, planners, 1)
	}
	tests := []struct {
		name, tool, args string
		want             []string // "code field" of every problem, in order
	}{
		// Item 4: bounds that escaped and unknown names bypassed.
		{"100,000 steps under an escaped name", "automium_compile_journey", many(`st\u0065ps`), []string{"limit_exceeded steps"}},
		{"100,000 items under an unknown name", "automium_compile_journey", many("junk"),
			// One round trip: the journey's missing fields come with the unknown name.
			[]string{"invalid_argument id", "invalid_argument appId", "invalid_argument fixtureId", "invalid_argument goal",
				"invalid_argument steps", "invalid_argument assertions", "invalid_argument junk"}},
		{"100,000 items under a case variant", "automium_compile_journey", many("Steps"),
			[]string{"invalid_argument id", "invalid_argument appId", "invalid_argument fixtureId", "invalid_argument goal",
				"invalid_argument steps", "invalid_argument assertions", "invalid_argument Steps"}},
		{"100,000 items under a name the tool lacks", "automium_list_apps", many("apps"), []string{"invalid_argument apps"}},
		// Item 5: duplicates hidden by an escape.
		{"app ID twice, once escaped", "automium_list_fixtures", `{"appId":"kanban","app\u0049d":"banking"}`, []string{"invalid_argument appId"}},
		{"planner twice, once escaped", "automium_create_run_submission", submission(`"planner":` + planner + `,"pl\u0061nner":` + planner), []string{"invalid_argument planner"}},
		{"planner twice, of two kinds", "automium_create_run_submission", submission(`"planner":` + planner + `,"pl\u0061nner":[]`), []string{"invalid_argument planner"}},
		{"verdict in two cases", "automium_get_replay_summary", strings.Replace(v["automium_get_replay_summary"], `"verdict"`, `"verdict":"passed","Verdict"`, 1),
			// A passed run has no retries: a meaning problem, in the same answer.
			[]string{"invalid_argument retryCount", "invalid_argument Verdict"}},
		// Issue 13 item 6: the schema and the walker agree.
		{"empty app ID", "automium_list_fixtures", `{"appId":""}`, []string{"invalid_argument appId"}},
		{"null app ID", "automium_list_fixtures", `{"appId":null}`, []string{"invalid_argument appId"}},
		{"negative seed", "automium_compare_planners", strings.Replace(v["automium_compare_planners"], `"repetitions":2`, `"seed":-1`, 1), []string{"invalid_argument seed"}},
		{"fractional repetitions", "automium_compare_planners", strings.Replace(v["automium_compare_planners"], `"repetitions":2`, `"repetitions":2.5`, 1), []string{"invalid_argument repetitions"}},
		// Assumed rates are whole percent; every planner once, by its exact ID.
		{"assumed rate as a fraction, an unknown and a case-variant planner", "automium_compare_planners", strings.Replace(v["automium_compare_planners"], `"repetitions":2`,
			`"repetitions":2,"assumedPassRates":[{"plannerId":"baseline","firstAttemptPassPercent":0.8},{"plannerId":"Baseline","firstAttemptPassPercent":100},{"plannerId":"nobody","firstAttemptPassPercent":50}]`, 1),
			[]string{"invalid_argument assumedPassRates[0].firstAttemptPassPercent", "limit_exceeded assumedPassRates[1].firstAttemptPassPercent"}},
		{"assumed rates naming a case variant and the planner twice", "automium_compare_planners", strings.Replace(v["automium_compare_planners"], `"repetitions":2`,
			`"repetitions":2,"assumedPassRates":[{"plannerId":"Baseline","firstAttemptPassPercent":80},{"plannerId":"baseline","firstAttemptPassPercent":80},{"plannerId":"baseline","firstAttemptPassPercent":70}]`, 1),
			[]string{"invalid_argument assumedPassRates[0].plannerId", "invalid_argument assumedPassRates[2].plannerId"}},
		{"assumed rates missing the planner", "automium_compare_planners", strings.Replace(v["automium_compare_planners"], `"repetitions":2`,
			`"repetitions":2,"assumedPassRates":[{"plannerId":"nobody","firstAttemptPassPercent":80}]`, 1),
			[]string{"invalid_argument assumedPassRates", "invalid_argument assumedPassRates[0].plannerId"}},
		{"a goal over its bound", "automium_compile_journey", withJourney(t, func(j map[string]any) { j["goal"] = strings.Repeat("g", limit.MaxTextLength+1) }), []string{"limit_exceeded goal"}},
		// Every shape and meaning problem at once: a journeyId of the wrong
		// kind names no journey (so: journeyId or journey), and the profile
		// is not one of the fixture's.
		{"every problem of a run submission", "automium_create_run_submission",
			`{"journeyId":5,"appId":"storefront","fixtureId":[],"planner":"gpt","environmentProfileId":"` + strings.Repeat("x", 200) + `","extra":1}`,
			[]string{"invalid_argument journeyId", "invalid_argument journey", "invalid_argument fixtureId", "malformed_planner planner",
				"invalid_environment_profile environmentProfileId", "invalid_argument extra"}},
	}
	eachProtocol(t, func(t *testing.T, cs *mcp.ClientSession) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
				if err != nil {
					t.Fatalf("CallTool: %v", err)
				}
				if diff := cmp.Diff(tt.want, problemList(t, toolError(t, res))); diff != "" {
					t.Errorf("problems (-want +got):\n%s", diff)
				}
				if size := len(resultText(res)); size > 4<<10 {
					t.Errorf("%d bytes of arguments gave a %d-byte error", len(tt.args), size)
				}
			})
		}
	})
}

// TestIntegersAsJSONSchemaReadsThem checks that the spellings of an integer that
// JSON Schema accepts give the same answer, byte for byte, as the plain one.
func TestIntegersAsJSONSchemaReadsThem(t *testing.T) {
	cs := connect(t, New(nil), "2025-11-25")
	call := func(tool, args string) string {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
		if err != nil || res.IsError {
			t.Fatalf("%s %s: %v %s", tool, args, err, resultText(res))
		}
		return resultText(res)
	}
	v := validArgs(t)
	for tool, spellings := range map[string][]string{
		"automium_compare_planners":   {`"repetitions":2`, `"repetitions":2.0`, `"repetitions":2e0`, `"repetitions":0.2e1`, `"repetitions":200e-2`},
		"automium_get_replay_summary": {`"retryCount":1`, `"retryCount":1.0`, `"retryCount":1E0`, `"retryCount":10e-1`},
	} {
		want := call(tool, v[tool])
		for _, s := range spellings[1:] {
			if got := call(tool, strings.Replace(v[tool], spellings[0], s, 1)); got != want {
				t.Errorf("%s with %s differs from %s:\n%s\nvs\n%s", tool, s, spellings[0], got, want)
			}
		}
	}
}

// TestInvisibleDifferencesOverMCP replays, over real sessions, the classes the
// root package now refuses so that two inputs that read alike are never two
// digests or two paths: invisible or repeated white space in a journey's goal,
// an accessible name and a planner reference, and artifact paths with a
// separator lookalike, a code point with no agreed meaning, or a segment no
// file system stores. Each is a coded tool error at its field.
func TestInvisibleDifferencesOverMCP(t *testing.T) {
	v := validArgs(t)
	own := func(edit func(j map[string]any)) string {
		sub := ownJourneySubmission(t, "")
		var m map[string]any
		if err := json.Unmarshal([]byte(sub), &m); err != nil {
			t.Fatal(err)
		}
		edit(m["journey"].(map[string]any))
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	manifest := func(path string) string {
		b, err := json.Marshal(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Replace(v["automium_get_artifact_manifest"], `"attempt-1/trace.zip"`, string(b), 1)
	}
	tests := []struct {
		name, tool, args string
		want             []string
	}{
		{"goal with a zero-width space", "automium_create_run_submission", own(func(j map[string]any) { j["goal"] = "Find a\u200b kettle" }), []string{"invalid_argument journey.goal"}},
		{"goal with a bidi override", "automium_create_run_submission", own(func(j map[string]any) { j["goal"] = "Find a kettle\u202e" }), []string{"invalid_argument journey.goal"}},
		{"accessible name with two spaces", "automium_create_run_submission", own(func(j map[string]any) {
			j["steps"].([]any)[1].(map[string]any)["target"].(map[string]any)["name"] = "Search  products"
		}), []string{"invalid_argument journey.steps[1].target.name"}},
		{"planner model with a soft hyphen", "automium_create_run_submission",
			strings.Replace(v["automium_create_run_submission"], "gpt-4.1-mini", "gpt-4.1\u00admini", 1), []string{"malformed_planner planner.model"}},
		{"path with a division slash", "automium_get_artifact_manifest", manifest("attempt-1\u2215trace.zip"), []string{"invalid_artifact_path entries[0].path"}},
		{"path with a private-use character", "automium_get_artifact_manifest", manifest("trace\ue000.zip"), []string{"invalid_artifact_path entries[0].path"}},
		{"path with a 256-byte segment", "automium_get_artifact_manifest", manifest(strings.Repeat("t", 252) + ".zip"), []string{"invalid_artifact_path entries[0].path"}},
	}
	eachProtocol(t, func(t *testing.T, cs *mcp.ClientSession) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: json.RawMessage(tt.args)})
				if err != nil {
					t.Fatalf("CallTool: %v", err)
				}
				if diff := cmp.Diff(tt.want, problemList(t, toolError(t, res))); diff != "" {
					t.Errorf("problems (-want +got):\n%s", diff)
				}
			})
		}
	})
}
