package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	testRunID   = "run-0123456789abcdef0123"
	testPlanner = `{"id":"baseline","vendor":"openai","model":"gpt-4.1-mini"}`
)

// referenceJourneyJSON is a checked-in journey that compiles.
func referenceJourneyJSON(t testing.TB) string {
	t.Helper()
	j, ok := automium.ReferenceJourney("storefront-search-add-to-cart")
	if !ok {
		t.Fatal("reference journey storefront-search-add-to-cart is gone; pick another")
	}
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// exampleRunID is the run ID the tool table's examples share.
func exampleRunID() string { return exampleData().run.RunID }

// validArgs returns arguments every tool accepts: each tool's example call from
// the tool table. Other tests derive bad inputs from them.
func validArgs(t testing.TB) map[string]string {
	t.Helper()
	args := map[string]string{}
	for _, call := range exampleCalls() {
		args[call.Tool] = string(call.Args)
	}
	return args
}

// withJourney returns the reference journey with edit applied.
func withJourney(t testing.TB, edit func(j map[string]any)) string {
	var j map[string]any
	if err := json.Unmarshal([]byte(referenceJourneyJSON(t)), &j); err != nil {
		t.Fatal(err)
	}
	edit(j)
	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ownJourneySubmission returns a run submission that carries a journey of the
// caller's own (the reference journey under another ID) whole, with digest as
// its journeyDigest when not empty.
func ownJourneySubmission(t testing.TB, digest string) string {
	t.Helper()
	sub := map[string]any{
		"journey":              json.RawMessage(withJourney(t, func(j map[string]any) { j["id"] = "my-kettle-search" })),
		"appId":                "storefront",
		"fixtureId":            "storefront-guest-catalog",
		"planner":              json.RawMessage(testPlanner),
		"environmentProfileId": "desktop-1440-en-us",
	}
	if digest != "" {
		sub["journeyDigest"] = digest
	}
	b, err := json.Marshal(sub)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type callCase struct {
	name string
	tool string
	// args is the raw JSON of the arguments; "-" sends none.
	args string
	// wantCode and wantField describe the expected tool error; an empty wantCode
	// expects success.
	wantCode  automium.Code
	wantField string
	// wantProblem, for automium_compile_journey, is a problem the result must list
	// (code and field) while the call itself succeeds with valid=false.
	wantProblem *automium.Error
	// anyField takes the error's field as wantField: a row's refusal gives
	// its code only.
	anyField bool
	// shows is what a success's output must show, member by member (a
	// row's shows).
	shows json.RawMessage
}

// rowCases are every row's example, a success, and its refusal with its
// code, the calls of e2e/calls.json: a new row is called without a case here,
// and owes only its refusal.
func rowCases() []callCase {
	var cases []callCase
	rows := toolTable()
	for i, c := range exampleCalls() {
		r := rows[i]
		cases = append(cases, callCase{name: r.def.Name + " example", tool: r.def.Name, args: string(c.Args), shows: r.expect})
		if r.refusal != nil {
			cases = append(cases, callCase{name: r.def.Name + " refusal", tool: r.def.Name, args: string(r.refusal),
				wantCode: r.refusalCode, anyField: true})
		}
	}
	return cases
}

func callCases(t testing.TB) []callCase {
	v := validArgs(t)
	manySteps := withJourney(t, func(j map[string]any) {
		steps := make([]any, limit.MaxSteps+1)
		for i := range steps {
			steps[i] = map[string]any{"intent": "go_back"}
		}
		j["steps"] = steps
	})
	return []callCase{
		// automium_list_apps
		{name: "list apps", tool: "automium_list_apps", args: v["automium_list_apps"]},
		{name: "list apps without arguments", tool: "automium_list_apps", args: "-"},
		{name: "list apps with null arguments", tool: "automium_list_apps", args: "null"},
		{name: "list apps with an unknown property", tool: "automium_list_apps", args: `{"verbose":true}`, wantCode: automium.CodeInvalidArgument, wantField: "verbose"},
		{name: "list apps with array arguments", tool: "automium_list_apps", args: `[]`, wantCode: automium.CodeInvalidArgument},

		// automium_list_fixtures
		{name: "list fixtures of an app", tool: "automium_list_fixtures", args: v["automium_list_fixtures"]},
		{name: "list all fixtures", tool: "automium_list_fixtures", args: `{}`},
		{name: "list fixtures of an unknown app", tool: "automium_list_fixtures", args: `{"appId":"gmail"}`, wantCode: automium.CodeInvalidAppID, wantField: "appId"},
		{name: "list fixtures with a numeric app ID", tool: "automium_list_fixtures", args: `{"appId":7}`, wantCode: automium.CodeInvalidArgument, wantField: "appId"},
		{name: "list fixtures with a miscased property", tool: "automium_list_fixtures", args: `{"AppId":"storefront"}`, wantCode: automium.CodeInvalidArgument, wantField: "AppId"},

		// automium_compile_journey
		{name: "compile a reference journey", tool: "automium_compile_journey", args: v["automium_compile_journey"]},
		{name: "compile with an unknown intent", tool: "automium_compile_journey",
			args:        withJourney(t, func(j map[string]any) { j["steps"].([]any)[0].(map[string]any)["intent"] = "evaluate_js" }),
			wantProblem: &automium.Error{Code: automium.CodeUnsupportedIntent, Field: "steps[0].intent"}},
		{name: "compile with an intent the app lacks", tool: "automium_compile_journey",
			args: withJourney(t, func(j map[string]any) {
				j["steps"].([]any)[0] = map[string]any{"intent": "switch_tab", "value": "latest"}
			}),
			wantProblem: &automium.Error{Code: automium.CodeUnsupportedIntent, Field: "steps[0].intent"}},
		{name: "compile with an unknown app", tool: "automium_compile_journey",
			args:        withJourney(t, func(j map[string]any) { j["appId"] = "gmail" }),
			wantProblem: &automium.Error{Code: automium.CodeInvalidAppID, Field: "appId"}},
		{name: "compile with another app's fixture", tool: "automium_compile_journey",
			args:        withJourney(t, func(j map[string]any) { j["fixtureId"] = "kanban-sprint-board" }),
			wantProblem: &automium.Error{Code: automium.CodeFixtureAppMismatch, Field: "fixtureId"}},
		{name: "compile with an absolute URL", tool: "automium_compile_journey",
			args:        withJourney(t, func(j map[string]any) { j["steps"].([]any)[0].(map[string]any)["value"] = "https://example.com/" }),
			wantProblem: &automium.Error{Code: automium.CodeInvalidArgument, Field: "steps[0].value"}},
		{name: "compile without a goal", tool: "automium_compile_journey",
			args:        withJourney(t, func(j map[string]any) { delete(j, "goal") }),
			wantProblem: &automium.Error{Code: automium.CodeInvalidArgument, Field: "goal"}},
		{name: "compile with too many steps", tool: "automium_compile_journey", args: manySteps, wantCode: automium.CodeLimitExceeded, wantField: "steps"},
		{name: "compile with steps of the wrong type", tool: "automium_compile_journey",
			args: withJourney(t, func(j map[string]any) { j["steps"] = "click the button" }), wantCode: automium.CodeInvalidArgument, wantField: "steps"},
		{name: "compile with a nested wrong type", tool: "automium_compile_journey",
			args: withJourney(t, func(j map[string]any) {
				j["steps"].([]any)[1].(map[string]any)["target"] = map[string]any{"role": 5, "name": "x"}
			}),
			wantCode: automium.CodeInvalidArgument, wantField: "steps[1].target.role"},
		{name: "compile with a CSS selector property", tool: "automium_compile_journey",
			args:     withJourney(t, func(j map[string]any) { j["steps"].([]any)[1].(map[string]any)["selector"] = "#search" }),
			wantCode: automium.CodeInvalidArgument, wantField: "steps[1].selector"},
		{name: "compile with a fractional retry count", tool: "automium_compile_journey",
			args:     withJourney(t, func(j map[string]any) { j["recovery"].(map[string]any)["maxRetries"] = 1.5 }),
			wantCode: automium.CodeInvalidArgument, wantField: "recovery.maxRetries"},
		{name: "compile without arguments", tool: "automium_compile_journey", args: "-",
			wantProblem: &automium.Error{Code: automium.CodeInvalidArgument, Field: "id"}},

		// automium_create_run_submission
		{name: "submit a run", tool: "automium_create_run_submission", args: v["automium_create_run_submission"]},
		{name: "submit a run on an unknown app", tool: "automium_create_run_submission",
			args:     strings.Replace(v["automium_create_run_submission"], `"appId":"storefront"`, `"appId":"gmail"`, 1),
			wantCode: automium.CodeInvalidAppID, wantField: "appId"},
		{name: "submit a run with another app's fixture", tool: "automium_create_run_submission",
			args:     strings.Replace(v["automium_create_run_submission"], `"fixtureId":"storefront-guest-catalog"`, `"fixtureId":"kanban-sprint-board"`, 1),
			wantCode: automium.CodeFixtureAppMismatch, wantField: "fixtureId"},
		{name: "submit a run with a planner without vendor", tool: "automium_create_run_submission",
			args:     strings.Replace(v["automium_create_run_submission"], `"vendor":"openai",`, ``, 1),
			wantCode: automium.CodeMalformedPlanner, wantField: "planner.vendor"},
		{name: "submit a run with a profile the fixture lacks", tool: "automium_create_run_submission",
			args:     strings.Replace(v["automium_create_run_submission"], `desktop-1440-en-us`, `tablet-820-de-de`, 1),
			wantCode: automium.CodeInvalidEnvironmentProfile, wantField: "environmentProfileId"},
		{name: "submit a run with a planner string", tool: "automium_create_run_submission",
			args:     strings.Replace(v["automium_create_run_submission"], testPlanner, `"gpt-4.1-mini"`, 1),
			wantCode: automium.CodeMalformedPlanner, wantField: "planner"},
		// A run is bound to content the server compiled: a journey of one's own
		// is sent whole, and a digest is only a cross-check.
		{name: "submit a run of one's own journey, sent whole", tool: "automium_create_run_submission", args: ownJourneySubmission(t, "")},
		{name: "submit a run of one's own journey with a problem", tool: "automium_create_run_submission",
			args:     strings.Replace(ownJourneySubmission(t, ""), `"intent":"navigate"`, `"intent":"evaluate_js"`, 1),
			wantCode: automium.CodeUnsupportedIntent, wantField: "journey.steps[0].intent"},
		{name: "submit a run of one's own journey with a duplicate member inside it", tool: "automium_create_run_submission",
			args:     strings.Replace(ownJourneySubmission(t, ""), `"goal":`, `"goal":"x","go\u0061l":`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "journey.goal"},
		{name: "submit a run of one's own journey with its digest in upper-case hex", tool: "automium_create_run_submission",
			args:     ownJourneySubmission(t, "sha256:"+strings.Repeat("AB", 32)),
			wantCode: automium.CodeInvalidArgument, wantField: "journeyDigest"},
		{name: "submit a run naming a journey nothing compiled, with a digest", tool: "automium_create_run_submission",
			args:     strings.Replace(v["automium_create_run_submission"], `"journeyId":"storefront-search-add-to-cart"`, `"journeyId":"never-compiled","journeyDigest":"sha256:`+strings.Repeat("0", 64)+`"`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "journeyId"},

		// automium_get_replay_summary
		{name: "summarize a failed run", tool: "automium_get_replay_summary", args: v["automium_get_replay_summary"]},
		{name: "summarize an unknown verdict", tool: "automium_get_replay_summary",
			args:     strings.Replace(v["automium_get_replay_summary"], `"failed"`, `"timedOut"`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "verdict"},
		{name: "summarize a flaky run without retries", tool: "automium_get_replay_summary",
			args:     strings.Replace(strings.Replace(v["automium_get_replay_summary"], `"failed"`, `"flaky"`, 1), `"retryCount":1`, `"retryCount":0`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "retryCount"},
		{name: "summarize a malformed run ID", tool: "automium_get_replay_summary",
			args:     strings.Replace(v["automium_get_replay_summary"], `"runId":"`+exampleRunID(), `"runId":"../../etc/passwd`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "runId"},
		{name: "summarize with another run's manifest", tool: "automium_get_replay_summary",
			args:     strings.Replace(v["automium_get_replay_summary"], `artifact-manifest://`+exampleRunID(), `artifact-manifest://run-ffffffffffffffffffff`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "artifactManifestRef"},

		// automium_get_artifact_manifest
		{name: "build a manifest", tool: "automium_get_artifact_manifest", args: v["automium_get_artifact_manifest"]},
		{name: "build a manifest with an unknown kind", tool: "automium_get_artifact_manifest",
			args:     strings.Replace(v["automium_get_artifact_manifest"], `"kind":"trace"`, `"kind":"coredump"`, 1),
			wantCode: automium.CodeInvalidArtifactKind, wantField: "entries[0].kind"},
		{name: "build a manifest with an absolute path", tool: "automium_get_artifact_manifest",
			args:     strings.Replace(v["automium_get_artifact_manifest"], `attempt-1/trace.zip`, `/etc/passwd`, 1),
			wantCode: automium.CodeInvalidArtifactPath, wantField: "entries[0].path"},
		{name: "build a manifest with a parent path", tool: "automium_get_artifact_manifest",
			args:     strings.Replace(v["automium_get_artifact_manifest"], `attempt-1/trace.zip`, `../../secrets.txt`, 1),
			wantCode: automium.CodeInvalidArtifactPath, wantField: "entries[0].path"},
		{name: "build a manifest with a negative size", tool: "automium_get_artifact_manifest",
			args:     strings.Replace(v["automium_get_artifact_manifest"], `"path":"attempt-1/trace.zip"`, `"path":"attempt-1/trace.zip","size":-1`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "entries[0].size"},

		// automium_compare_planners
		{name: "compare planners", tool: "automium_compare_planners", args: v["automium_compare_planners"]},
		{name: "compare planners with an assumed rate", tool: "automium_compare_planners",
			args: strings.Replace(v["automium_compare_planners"], `"repetitions":2`, `"repetitions":2,"assumedPassRates":[{"plannerId":"baseline","firstAttemptPassPercent":80}]`, 1)},
		{name: "compare on an unsupported corpus", tool: "automium_compare_planners",
			args:     strings.Replace(v["automium_compare_planners"], automium.CorpusVersion, "owned-corpus-1999.01", 1),
			wantCode: automium.CodeUnsupportedCorpusVersion, wantField: "corpusVersion"},
		{name: "compare on an unknown app", tool: "automium_compare_planners",
			args:     strings.Replace(v["automium_compare_planners"], `["storefront"]`, `["storefront","gmail"]`, 1),
			wantCode: automium.CodeInvalidAppID, wantField: "appIds[1]"},
		{name: "compare a planner without model", tool: "automium_compare_planners",
			args:     strings.Replace(v["automium_compare_planners"], `,"model":"gpt-4.1-mini"`, ``, 1),
			wantCode: automium.CodeMalformedPlanner, wantField: "planners[0].model"},
		{name: "compare a planner given as a string", tool: "automium_compare_planners",
			args:     strings.Replace(v["automium_compare_planners"], `{"id":"baseline"`, `"baseline",{"id":"baseline"`, 1),
			wantCode: automium.CodeMalformedPlanner, wantField: "planners[0]"},
		{name: "compare too many repetitions", tool: "automium_compare_planners",
			args:     strings.Replace(v["automium_compare_planners"], `"repetitions":2`, `"repetitions":101`, 1),
			wantCode: automium.CodeLimitExceeded, wantField: "repetitions"},
		{name: "compare with repetitions as text", tool: "automium_compare_planners",
			args:     strings.Replace(v["automium_compare_planners"], `"repetitions":2`, `"repetitions":"2"`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "repetitions"},

		// automium_compare_observed_trials
		{name: "compare observed trials", tool: "automium_compare_observed_trials", args: v["automium_compare_observed_trials"]},
		{name: "compare observed trials, passed as text", tool: "automium_compare_observed_trials",
			args:     strings.Replace(v["automium_compare_observed_trials"], `"passed":true`, `"passed":"true"`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "trials[0].passed"},
		{name: "compare observed trials, passed as null", tool: "automium_compare_observed_trials",
			args:     strings.Replace(v["automium_compare_observed_trials"], `"passed":true`, `"passed":null`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "trials[0].passed"},
		{name: "compare observed trials of an unlisted planner", tool: "automium_compare_observed_trials",
			args:     strings.Replace(v["automium_compare_observed_trials"], `"plannerId":"challenger"`, `"plannerId":"stranger"`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "trials[2].plannerId"},
		{name: "compare observed trials run twice", tool: "automium_compare_observed_trials",
			args:     strings.Replace(v["automium_compare_observed_trials"], `"repetition":2`, `"repetition":1`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "trials[1].repetition"},
		snapshotCases(t)[0], snapshotCases(t)[1],

		// automium_compare_reports, with a Playwright JSON report
		{name: "compare a Playwright report", tool: "automium_compare_reports", args: playwrightReports},
		{name: "compare a Playwright report with an unknown status", tool: "automium_compare_reports",
			args:     strings.Replace(playwrightReports, `\"status\":\"flaky\"`, `\"status\":\"odd\"`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "reports[0].content.suites[0].specs[0].tests[1].status"},
		{name: "compare a Playwright report with a name given twice", tool: "automium_compare_reports",
			args:     strings.Replace(playwrightReports, `{\"suites\":`, `{\"suites\":[],\"suites\":`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "reports[0].content.suites"},
		{name: "compare a Playwright report by an unknown source", tool: "automium_compare_reports",
			args:     strings.Replace(playwrightReports, `"from":"project"`, `"from":"title"`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "mapping.planner.from"},
		{name: "compare a Playwright report of an unlisted planner", tool: "automium_compare_reports",
			args:     strings.Replace(playwrightReports, `\"projectName\":\"challenger\"`, `\"projectName\":\"stranger\"`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "reports[0].content.suites[0].specs[0].tests[1]"},

		// automium_compare_reports, with an Inspect AI .eval archive in base64
		{name: "compare an Inspect AI .eval archive", tool: "automium_compare_reports", args: inspectReports(t, "")},
		{name: "compare an Inspect AI .eval archive not in base64", tool: "automium_compare_reports", args: inspectReports(t, "*"),
			wantCode: automium.CodeInvalidArgument, wantField: "reports[0].content"},
		{name: "compare an Inspect AI .eval archive in an unknown encoding", tool: "automium_compare_reports",
			args:     strings.Replace(inspectReports(t, ""), `"encoding":"base64"`, `"encoding":"gzip"`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "reports[0].encoding"},

		// automium_export_playwright_spec
		{name: "export a reference journey as a Playwright spec", tool: "automium_export_playwright_spec", args: v["automium_export_playwright_spec"]},
		{name: "export a journey in an unknown language", tool: "automium_export_playwright_spec",
			args:     `{"journeyId":"storefront-search-add-to-cart","language":"python"}`,
			wantCode: automium.CodeInvalidArgument, wantField: "language"},
		{name: "export a journey that is not a reference journey", tool: "automium_export_playwright_spec",
			args:     `{"journeyId":"no-such-journey"}`,
			wantCode: automium.CodeInvalidArgument, wantField: "journeyId"},
		{name: "export a journey whose tag name breaks a tag", tool: "automium_export_playwright_spec",
			args:     `{"journeyId":"storefront-search-add-to-cart","journeyTag":"journey id"}`,
			wantCode: automium.CodeInvalidArgument, wantField: "journeyTag"},
		// automium_compare_reports
		{name: "compare JUnit reports", tool: "automium_compare_reports", args: v["automium_compare_reports"]},
		{name: "compare JUnit reports with a DOCTYPE", tool: "automium_compare_reports",
			args:     strings.Replace(v["automium_compare_reports"], `"content":"<testsuites>`, `"content":"<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><testsuites>`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "reports[0].content"},
		{name: "compare reports of an unknown format", tool: "automium_compare_reports",
			args:     strings.Replace(v["automium_compare_reports"], `"format":"junit"`, `"format":"tap"`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "reports[0].format"},
		{name: "compare a shard given twice", tool: "automium_compare_reports",
			args:     strings.Replace(v["automium_compare_reports"], `"reports":[`, `"reports":[`+reportOf(v["automium_compare_reports"])+`,`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "reports[1].content.testsuites.testsuite[0].testcase[0]"},
	}
}

// reportOf is the first report of a compare_reports call's arguments.
func reportOf(args string) string {
	var in struct {
		Reports []json.RawMessage `json:"reports"`
	}
	if err := json.Unmarshal([]byte(args), &in); err != nil || len(in.Reports) == 0 {
		panic("reportOf: " + args)
	}
	return string(in.Reports[0])
}

// TestToolCalls calls every tool over a real session, once per protocol version:
// successes return the output as structuredContent and as one compact JSON text
// block that validates against the advertised output schema; failures return a
// coded tool error at the right field.
func TestToolCalls(t *testing.T) {
	cases := append(callCases(t), rowCases()...)
	covered := map[string][2]bool{}
	for _, c := range cases {
		cov := covered[c.tool]
		cov[boolIndex(c.wantCode != "" || c.wantProblem != nil)] = true
		covered[c.tool] = cov
	}
	for _, tool := range tools() {
		if cov := covered[tool.def.Name]; !cov[0] || !cov[1] {
			t.Errorf("%s needs a success case and a validation failure case: give its row a refusal (refuses, in tools.go)", tool.def.Name)
		}
	}
	eachProtocol(t, func(t *testing.T, cs *mcp.ClientSession) {
		schemas := outputSchemas(t, cs)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				params := &mcp.CallToolParams{Name: c.tool}
				if c.args != "-" {
					params.Arguments = json.RawMessage(c.args)
				}
				res, err := cs.CallTool(context.Background(), params)
				if err != nil {
					t.Fatalf("CallTool: %v", err)
				}
				if c.wantCode != "" {
					e := toolError(t, res)
					if c.anyField {
						e.Field = c.wantField
					}
					if diff := cmp.Diff([2]string{string(c.wantCode), c.wantField}, [2]string{string(e.Code), e.Field}); diff != "" {
						t.Errorf("error code and field (-want +got):\n%s\nerror: %s", diff, readable(e))
					}
					if e.Message == "" {
						t.Error("error has no message")
					}
					return
				}
				out := checkSuccess(t, cs, c.tool, res, schemas[c.tool])
				if c.shows != nil {
					var want map[string]any
					if err := json.Unmarshal(c.shows, &want); err != nil {
						t.Fatalf("the row's shows: %v", err)
					}
					for k, v := range want {
						if diff := cmp.Diff(v, out[k]); diff != "" {
							t.Errorf("%s (-shows +got):\n%s", k, diff)
						}
					}
				}
				if c.wantProblem != nil {
					checkProblem(t, out, c.wantProblem)
				} else if c.tool == "automium_compile_journey" && out["valid"] != true {
					t.Errorf("journey did not compile: %v", out["errors"])
				}
			})
		}
	})
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkSuccess checks the shape of a successful result and returns its output.
func checkSuccess(t *testing.T, cs *mcp.ClientSession, tool string, res *mcp.CallToolResult, schema interface{ Validate(any) error }) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", resultText(res))
	}
	if len(res.Content) != 1 {
		t.Fatalf("success has %d content blocks, want 1", len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if legacySession(cs) {
		// A client before structuredContent reads the JSON as the text.
		if res.StructuredContent != nil {
			t.Errorf("a %s session got structuredContent", cs.InitializeResult().ProtocolVersion)
		}
		return jsonText(t, text)
	}
	out, ok := res.StructuredContent.(map[string]any)
	if !ok {
		t.Fatalf("structuredContent is %T, want an object", res.StructuredContent)
	}
	// The text is the answer's JSON or, for a larger answer, a summary that
	// says where the rest is (answers.go): which one is summarize's rule, not
	// a list of tools a new tool could be missing from.
	if !strings.HasPrefix(text, "{") {
		if !strings.HasSuffix(text, structuredNote) && !strings.Contains(text, "is the structured content (JSON)") {
			t.Errorf("the text is not a summary ending with the note on the structured content: %.200s", text)
		}
	} else if diff := cmp.Diff(jsonText(t, text), out); diff != "" {
		t.Errorf("structuredContent differs from the text content (-text +structured):\n%s", diff)
	}
	if err := schema.Validate(out); err != nil {
		t.Errorf("output does not match the advertised output schema: %v", err)
	}
	// Output a reader could mistake for execution says it is modeled, and
	// why, in a notice. Which tools are modeled their rows show
	// (shows(`{"modeled":true}`)); this holds for every such answer.
	if notice, _ := out["notice"].(string); out["modeled"] == true && notice == "" {
		t.Errorf("modeled output lacks a notice: notice=%v", out["notice"])
	}
	return out
}

// legacySession reports whether cs negotiated a protocol before structuredContent.
func legacySession(cs *mcp.ClientSession) bool {
	r := cs.InitializeResult()
	return r != nil && r.ProtocolVersion < firstStructuredVersion
}

// jsonText decodes a text block that must be one compact JSON object.
func jsonText(t *testing.T, text string) map[string]any {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(text)); err != nil || compact.String() != text {
		t.Errorf("text content is not compact JSON: %.200s", text)
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Fatalf("text content is not a JSON object: %v", err)
	}
	return fromText
}

// checkProblem checks that a compile result is invalid and lists want.
func checkProblem(t *testing.T, out map[string]any, want *automium.Error) {
	t.Helper()
	if out["valid"] != false {
		t.Fatalf("valid = %v, want false", out["valid"])
	}
	raw, _ := json.Marshal(out["errors"])
	var problems []automium.Error
	if err := json.Unmarshal(raw, &problems); err != nil {
		t.Fatalf("errors do not decode: %v", err)
	}
	for _, p := range problems {
		if p.Code == want.Code && p.Field == want.Field {
			return
		}
	}
	t.Errorf("problems %+v lack code %s at %s", problems, want.Code, want.Field)
}

// TestToolCallsAreDeterministic repeats every successful call and expects the same
// bytes, because outputs must be reproducible and IDs idempotent.
func TestToolCallsAreDeterministic(t *testing.T) {
	cs := connect(t, New(nil), "2025-11-25")
	for name, args := range validArgs(t) {
		var first string
		for i := range 2 {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %s", name, err, resultText(res))
			}
			if i == 0 {
				first = resultText(res)
			} else if got := resultText(res); got != first {
				t.Errorf("%s: second call differs:\n%s\nvs\n%s", name, first, got)
			}
		}
	}
}

// TestCancelledCall checks that a capability interrupted by its context becomes a
// tool error rather than a crash or a protocol error.
func TestCancelledCall(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tool := range tools() {
		res := func() *mcp.CallToolResult {
			out, err := tool.call(ctx, json.RawMessage(validArgs(t)[tool.def.Name]))
			if err == nil {
				t.Fatalf("%s ignored a cancelled context and returned %v", tool.def.Name, out)
			}
			return toolErrorResult(discard, tool.def.Name, err)
		}()
		if e := toolError(t, res); e.Code != automium.CodeCanceled {
			t.Errorf("%s: code %s, want canceled", tool.def.Name, e.Code)
		}
	}
}

// TestLargestValidInput builds the largest journey validation accepts, with every
// character written as an escaped surrogate pair (the longest JSON spelling), and
// checks the adapter's byte bound lets it through to the domain function, while
// anything over the bound is refused with limit_exceeded.
func TestLargestValidInput(t *testing.T) {
	text := func(n int) string { return strings.Repeat(`\ud83d\ude00`, n) }
	step := `{"intent":"fill","target":{"role":"textbox","name":"` + text(200) + `"},"value":"` + text(limit.MaxTextLength) + `"}`
	assertion := `{"kind":"element_text","target":{"role":"status","name":"` + text(200) + `"},"value":"` + text(limit.MaxTextLength) + `"}`
	steps := strings.TrimSuffix(strings.Repeat(step+",", limit.MaxSteps), ",")
	assertions := strings.TrimSuffix(strings.Repeat(assertion+",", limit.MaxAssertions), ",")
	raw := `{"id":"` + strings.Repeat("a", limit.MaxIDLength) + `","appId":"storefront","fixtureId":"storefront-guest-catalog",` +
		`"goal":"` + text(limit.MaxTextLength) + `","steps":[` + steps + `],"assertions":[` + assertions + `],` +
		`"recovery":{"maxRetries":3,"strategies":["dismiss_dialog","go_back","re_snapshot","reload_route","replan","retry_step"]}}`
	t.Logf("largest valid journey: %d bytes of %d allowed", len(raw), maxArgumentBytes)
	res, err := tools()[slices.IndexFunc(tools(), func(tl tool) bool { return tl.def.Name == "automium_compile_journey" })].call(context.Background(), json.RawMessage(raw))
	if err != nil {
		t.Fatalf("largest valid journey refused: %v", err)
	}
	if r := res.(automium.CompileJourneyResult); !r.Valid {
		t.Fatalf("largest journey does not compile: %v", r.Errors[0])
	}
	_, err = decodeArguments[automium.CompileJourneyInput](json.RawMessage(`{"goal":"` + strings.Repeat("a", maxArgumentBytes) + `"}`))
	if e, ok := err.(*automium.Error); !ok || e.Code != automium.CodeLimitExceeded {
		t.Errorf("oversized arguments: %v, want limit_exceeded", err)
	}
}

// TestToolWords checks that what the root package says in Go terms reaches an
// agent in tool terms: a schema description and an error message that name a
// capability's Go function name its tool instead.
func TestToolWords(t *testing.T) {
	var summary tool
	for _, tl := range tools() {
		if strings.Contains(string(tl.def.InputSchema.(json.RawMessage)), "CreateRunSubmission") {
			t.Errorf("%s: input schema names the Go function CreateRunSubmission", tl.def.Name)
		}
		if tl.def.Name == "automium_get_replay_summary" {
			summary = tl
		}
	}
	if !strings.Contains(string(summary.def.InputSchema.(json.RawMessage)), "run ID from automium_create_run_submission") {
		t.Errorf("automium_get_replay_summary: input schema does not name automium_create_run_submission")
	}
	_, err := summary.call(context.Background(), json.RawMessage(`{"runId":"nope","verdict":"passed","artifactManifestRef":"x"}`))
	res := toolErrorResult(discard, summary.def.Name, err)
	text := resultText(res)
	if !strings.Contains(text, "automium_create_run_submission") || strings.Contains(text, "CreateRunSubmission") {
		t.Errorf("error text is not in tool words:\n%s", text)
	}
}

// playwrightReports is automium_compare_reports's arguments for one Playwright
// JSON report of the example journey: a baseline that passed and a challenger
// that passed on its retry.
const playwrightReports = `{"corpusVersion":"owned-corpus-2026.11",` +
	`"planners":[{"id":"baseline","vendor":"openai","model":"gpt-4.1-mini"},{"id":"challenger","vendor":"anthropic","model":"claude-sonnet-4"}],` +
	`"reports":[{"format":"playwright-json","content":"{\"suites\":[{\"title\":\"journeys.spec.ts\",\"specs\":[{\"title\":\"search and add to cart\",` +
	`\"tags\":[\"journey:storefront-search-add-to-cart\"],\"tests\":[` +
	`{\"projectName\":\"baseline\",\"status\":\"expected\",\"results\":[{\"retry\":0,\"status\":\"passed\",\"duration\":41200}]},` +
	`{\"projectName\":\"challenger\",\"status\":\"flaky\",\"results\":[{\"retry\":0,\"status\":\"failed\",\"duration\":30100},` +
	`{\"retry\":1,\"status\":\"passed\",\"duration\":36100}]}]}]}]}"}],` +
	`"mapping":{"planner":{"from":"project"},"journey":{"from":"tag","name":"journey"}}}`

// inspectReports is a compare_reports call of a real Inspect AI .eval log
// (testdata/agent-evals), its bytes in base64 followed by junk.
func inspectReports(t testing.TB, junk string) string {
	data, err := os.ReadFile("../testdata/agent-evals/inspect/log_streaming.eval")
	if err != nil {
		t.Fatal(err)
	}
	return `{"corpusVersion":"owned-corpus-2026.11",` +
		`"planners":[{"id":"azureai/Meta-Llama-3-1-405B-Instruct-jqf","vendor":"azureai","model":"Meta-Llama-3-1-405B-Instruct"}],` +
		`"reports":[{"format":"inspect-ai","encoding":"base64","content":"` + base64.StdEncoding.EncodeToString(data) + junk + `"}],` +
		`"mapping":{"planner":{"from":"project"},"journey":{"from":"annotation","name":"id"},"appId":"helpdesk","fixtureId":"helpdesk-agent-queue"}}`
}
