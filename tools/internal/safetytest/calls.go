package safetytest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/toolcalls"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// call is one request of the scripted session that the strace, memory,
// concurrency and determinism tests replay. Arguments come from the root
// package's own data (reference journeys, fixtures, artifact kinds), so the good
// calls succeed for the same reasons a real agent's would.
type call struct {
	name   string          // unique, for messages
	method string          // JSON-RPC method
	params json.RawMessage // the request's params
	want   outcome
}

// outcome is how a call is expected to end.
type outcome int

const (
	wantResult   outcome = iota // a result; for tools, isError false
	wantIsError                 // a tools/call result with isError true
	wantRPCError                // a JSON-RPC error
)

func (o outcome) String() string {
	return [...]string{"result", "isError", "rpc-error"}[o]
}

// line is the call as a request line with the given id.
func (c call) line(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, c.method, c.params)
}

// mustJSON encodes server material that always encodes.
func mustJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		panic("safetytest: " + err.Error())
	}
	return data
}

// sessionCalls lists, in order: every list method, every resource read plus a
// file:// read, tools with good and bad arguments (several bad ones for the
// tools that parse the most), every prompt with good and bad arguments, every
// completion, and last every tool's example call: the tool table's rows,
// through internal/toolcalls, so a new row is in the session without a line
// here (TestSessionCallsEveryTool holds the session to the server's list).
// It panics if the corpus lacks what the script needs, which no input can
// cause: the corpus is compiled in.
func sessionCalls() []call {
	ctx := context.Background()
	apps, err := automium.ListApps(ctx, automium.ListAppsInput{})
	if err != nil {
		panic("safetytest: " + err.Error())
	}
	fixtures, err := automium.ListFixtures(ctx, automium.ListFixturesInput{})
	if err != nil {
		panic("safetytest: " + err.Error())
	}
	fixture := fixtures.Fixtures[0]
	var otherFixture automium.Fixture
	for _, f := range fixtures.Fixtures {
		if f.AppID != fixture.AppID {
			otherFixture = f
			break
		}
	}
	journey, ok := automium.ReferenceJourney(fixture.ReferenceJourneyIDs[0])
	if !ok {
		panic("safetytest: reference journey " + fixture.ReferenceJourneyIDs[0] + " missing")
	}
	planner := automium.PlannerRef{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"}
	submission := automium.CreateRunSubmissionInput{
		JourneyID: journey.ID, AppID: fixture.AppID, FixtureID: fixture.ID,
		Planner: planner, EnvironmentProfileID: fixture.EnvironmentProfileIDs[0],
	}
	run, err := automium.CreateRunSubmission(ctx, submission)
	if err != nil {
		panic("safetytest: " + err.Error())
	}
	var entries []automium.ArtifactEntry
	for _, k := range automium.ArtifactSpecs() {
		entries = append(entries, automium.ArtifactEntry{Kind: k.Kind, Path: "attempt-1/" + string(k.Kind)})
	}

	var calls []call
	add := func(name, method string, params any, want outcome) {
		calls = append(calls, call{name: name, method: method, params: mustJSON(params), want: want})
	}
	tool := func(name, tool string, args any, want outcome) {
		add(name, "tools/call", map[string]any{"name": tool, "arguments": args}, want)
	}

	add("tools/list", "tools/list", struct{}{}, wantResult)
	add("resources/list", "resources/list", struct{}{}, wantResult)
	add("resources/templates/list", "resources/templates/list", struct{}{}, wantResult)
	add("prompts/list", "prompts/list", struct{}{}, wantResult)
	add("ping", "ping", struct{}{}, wantResult)
	for _, uri := range []string{"automium://apps", "automium://fixtures", "automium://contracts/planner-adapter-v1",
		"automium://contracts/replay-event-v1", "automium://contracts/semantic-snapshot-v1"} {
		add("read "+uri, "resources/read", map[string]string{"uri": uri}, wantResult)
	}
	add("read file:///etc/passwd", "resources/read", map[string]string{"uri": "file:///etc/passwd"}, wantRPCError)
	add("read automium://../../etc/passwd", "resources/read", map[string]string{"uri": "automium://../../etc/passwd"}, wantRPCError)

	tool("list_apps good", "automium_list_apps", map[string]any{}, wantResult)
	tool("list_apps bad: unknown property", "automium_list_apps", map[string]any{"appId": fixture.AppID}, wantIsError)
	tool("list_fixtures good", "automium_list_fixtures", automium.ListFixturesInput{AppID: fixture.AppID}, wantResult)
	tool("list_fixtures bad: unknown app", "automium_list_fixtures", map[string]any{"appId": "no-such-app"}, wantIsError)
	tool("list_fixtures bad: wrong type", "automium_list_fixtures", map[string]any{"appId": 5}, wantIsError)

	tool("compile_journey good", "automium_compile_journey", journey, wantResult)
	invalid := journey
	invalid.Steps = append([]automium.Step{{Intent: "teleport"}}, journey.Steps...)
	tool("compile_journey invalid: unsupported intent", "automium_compile_journey", invalid, wantResult)
	escape := journey
	escape.Steps = []automium.Step{{Intent: "navigate", Value: "file:///etc/passwd"}}
	tool("compile_journey invalid: file URL", "automium_compile_journey", escape, wantResult)
	huge := journey
	huge.Steps = make([]automium.Step, 100_000)
	for i := range huge.Steps {
		huge.Steps[i] = automium.Step{Intent: "click"}
	}
	// 200,000 JSON values: the envelope door's structure bound refuses the
	// message before the SDK decodes it, over stdio and over HTTP alike.
	tool("compile_journey bad: 100,000 steps", "automium_compile_journey", huge, wantRPCError)
	tool("compile_journey bad: steps not an array", "automium_compile_journey", map[string]any{"id": journey.ID, "steps": "all of them"}, wantIsError)

	tool("create_run_submission good", "automium_create_run_submission", submission, wantResult)
	mismatch := submission
	mismatch.FixtureID = otherFixture.ID
	tool("create_run_submission bad: fixture of another app", "automium_create_run_submission", mismatch, wantIsError)

	replay := automium.GetReplaySummaryInput{RunID: run.RunID, Verdict: automium.VerdictFailed, RetryCount: 1, ArtifactManifestRef: run.ArtifactManifestRef}
	tool("get_replay_summary good", "automium_get_replay_summary", replay, wantResult)
	badReplay := replay
	badReplay.Verdict = "exploded"
	tool("get_replay_summary bad: unknown verdict", "automium_get_replay_summary", badReplay, wantIsError)

	manifest := automium.GetArtifactManifestInput{RunID: run.RunID, Root: fixture.ArtifactRoot, Entries: entries}
	tool("get_artifact_manifest good", "automium_get_artifact_manifest", manifest, wantResult)
	for _, path := range []string{"/etc/passwd", "../../../etc/shadow", `..\..\windows\system32`, "C:/secrets", "file:///etc/hosts"} {
		escaping := manifest
		escaping.Entries = []automium.ArtifactEntry{{Kind: entries[0].Kind, Path: path}}
		tool("get_artifact_manifest bad: path "+path, "automium_get_artifact_manifest", escaping, wantIsError)
	}

	var appIDs []string
	for _, a := range apps.Apps {
		appIDs = append(appIDs, a.ID)
	}
	compare := automium.ComparePlannersInput{
		CorpusVersion: apps.CorpusVersion, AppIDs: appIDs[:2],
		Planners:    []automium.PlannerRef{planner, {ID: "challenger", Vendor: "anthropic", Model: "claude-sonnet-4"}},
		Repetitions: 3,
	}
	tool("compare_planners good", "automium_compare_planners", compare, wantResult)
	oldCorpus := compare
	oldCorpus.CorpusVersion = "owned-corpus-1999.01"
	tool("compare_planners bad: unsupported corpus", "automium_compare_planners", oldCorpus, wantIsError)
	tool("compare_planners bad: null arguments", "automium_compare_planners", nil, wantIsError)
	tool("unknown tool", "automium_execute_run", map[string]any{}, wantRPCError)

	add("draft_journey good", "prompts/get", map[string]any{"name": "draft_journey",
		"arguments": map[string]string{"appId": fixture.AppID, "fixtureId": fixture.ID, "goal": journey.Goal}}, wantResult)
	add("draft_journey bad: fixture of another app", "prompts/get", map[string]any{"name": "draft_journey",
		"arguments": map[string]string{"appId": fixture.AppID, "fixtureId": otherFixture.ID, "goal": journey.Goal}}, wantRPCError)
	add("debug_failed_run good", "prompts/get", map[string]any{"name": "debug_failed_run",
		"arguments": map[string]string{"runId": run.RunID, "verdict": "failed", "artifactManifestRef": run.ArtifactManifestRef}}, wantResult)
	add("debug_failed_run bad: unknown verdict", "prompts/get", map[string]any{"name": "debug_failed_run",
		"arguments": map[string]string{"runId": run.RunID, "verdict": "exploded"}}, wantRPCError)
	add("compare_planner_backends good", "prompts/get", map[string]any{"name": "compare_planner_backends",
		"arguments": map[string]string{"appIds": strings.Join(appIDs[:2], ","), "planners": "baseline=openai/gpt-4.1-mini, challenger=anthropic/claude-sonnet-4", "repetitions": "3"}}, wantResult)
	add("compare_planner_backends bad: repetitions", "prompts/get", map[string]any{"name": "compare_planner_backends",
		"arguments": map[string]string{"appIds": appIDs[0], "planners": "baseline=openai/gpt-4.1-mini", "repetitions": "many"}}, wantRPCError)
	add("unknown prompt", "prompts/get", map[string]any{"name": "exfiltrate", "arguments": map[string]string{}}, wantRPCError)

	for _, c := range []struct{ prompt, arg, value string }{
		{"draft_journey", "appId", ""},
		{"draft_journey", "fixtureId", fixture.AppID[:1]},
		{"debug_failed_run", "verdict", "f"},
		{"compare_planner_backends", "appIds", appIDs[0] + ","},
	} {
		add("complete "+c.prompt+"."+c.arg, "completion/complete", mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: c.prompt},
			Argument: mcp.CompleteParamsArgument{Name: c.arg, Value: c.value},
			Context:  &mcp.CompleteContext{Arguments: map[string]string{"appId": fixture.AppID}},
		}, wantResult)
	}
	// The journey rules and the reference journeys, read through their template;
	// a template is a URI pattern, so a traversal through it must end in an error.
	add("read automium://vocabulary/planner-intent-v1", "resources/read", map[string]string{"uri": "automium://vocabulary/planner-intent-v1"}, wantResult)
	add("read automium://journeys/"+journey.ID, "resources/read", map[string]string{"uri": "automium://journeys/" + journey.ID}, wantResult)
	add("read automium://journeys/../../etc/passwd", "resources/read", map[string]string{"uri": "automium://journeys/../../etc/passwd"}, wantRPCError)
	add("complete automium://journeys/{id}", "completion/complete", mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "automium://journeys/{id}"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: fixture.AppID},
	}, wantResult)

	// The export returns text only: the trace must show it writes, runs and
	// fetches nothing, for a reference journey, a journey of one's own with
	// an upload, hostile text and a helper module that names another place.
	tool("export_playwright_spec good: reference journey", "automium_export_playwright_spec",
		automium.ExportPlaywrightSpecInput{JourneyID: journey.ID}, wantResult)
	upload, ok := automium.ReferenceJourney("helpdesk-reply-with-attachment")
	if !ok {
		panic("safetytest: reference journey helpdesk-reply-with-attachment missing")
	}
	upload.ID = "my-reply"
	upload.Steps[4].Value = "</script>'); require('child_process').execSync('touch /tmp/pwned'); ('\u2028`${x}`"
	tool("export_playwright_spec good: own journey, hostile text, javascript", "automium_export_playwright_spec",
		automium.ExportPlaywrightSpecInput{Journey: &upload, Language: automium.LanguageJavaScript, FixtureFilesModule: "../fixtures/files"}, wantResult)
	tool("export_playwright_spec bad: helper module is a URL", "automium_export_playwright_spec",
		automium.ExportPlaywrightSpecInput{JourneyID: journey.ID, FixtureFilesModule: "https://evil.example/x.js"}, wantIsError)
	tool("export_playwright_spec bad: file URL route", "automium_export_playwright_spec",
		map[string]any{"journey": escape}, wantIsError)

	// Last, every tool of the table with its row's example.
	for _, c := range toolcalls.Examples() {
		tool(c.Tool+" example", c.Tool, c.Args, wantResult)
	}
	return calls
}

// toolCalls is the tools/call subset of sessionCalls.
func toolCalls() []call {
	var out []call
	for _, c := range sessionCalls() {
		if c.method == "tools/call" {
			out = append(out, c)
		}
	}
	return out
}
