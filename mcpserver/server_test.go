package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/contract"
	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestNewAcceptsOptions(t *testing.T) {
	for _, opts := range []*Options{nil, {}, {Logger: slog.New(slog.DiscardHandler)}} {
		if New(opts) == nil {
			t.Fatalf("New(%+v) = nil", opts)
		}
	}
}

// TestInitialize checks what a client learns when it connects: the server's name
// and version, and instructions that walk through the spec's flow.
func TestInitialize(t *testing.T) {
	for _, v := range []string{"2025-11-25", "2025-06-18"} {
		t.Run(v, func(t *testing.T) {
			res := connect(t, New(nil), v).InitializeResult()
			if res == nil {
				t.Fatal("no initialize result")
			}
			if res.ServerInfo.Name != "automium" || res.ServerInfo.Version == "" {
				t.Errorf("server info = %+v, want name automium and a version", res.ServerInfo)
			}
			if res.ServerInfo.Version != Version() {
				t.Errorf("version = %q, want Version() = %q", res.ServerInfo.Version, Version())
			}
			for _, want := range []string{
				"automium://apps", "automium://fixtures", "draft_journey", "automium_compile_journey",
				"automium_create_run_submission", "automium_get_replay_summary", "automium_get_artifact_manifest",
				"automium_compare_planners", "modeled",
			} {
				if !strings.Contains(res.Instructions, want) {
					t.Errorf("instructions do not mention %q", want)
				}
			}
			caps := res.Capabilities
			if caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil {
				t.Errorf("capabilities %+v lack tools, resources, prompts or completions", caps)
			}
			if raw, _ := json.Marshal(caps); strings.Contains(string(raw), `"logging"`) {
				t.Errorf("capabilities %s advertise logging, but the server sends no log messages", raw)
			}
		})
	}
}

// TestWireErrors checks the JSON-RPC error codes of requests for things the server
// does not have, and of bad prompt arguments: never code 0, and the message names
// what is available.
func TestWireErrors(t *testing.T) {
	eachProtocol(t, func(t *testing.T, cs *mcp.ClientSession) {
		ctx := context.Background()
		tests := []struct {
			name        string
			call        func() error
			wantCode    int64
			wantMessage string
		}{
			{"unknown tool", func() error {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "automium_execute_run"})
				return err
			}, jsonrpc.CodeInvalidParams, "automium_compare_planners"},
			{"retired tool", func() error {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "automium_compare_playwright_report"})
				return err
			}, jsonrpc.CodeInvalidParams, `call automium_compare_reports with the report as one entry of reports, {"format":"playwright-json"`},
			{"unknown prompt", func() error {
				_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "write_tests"})
				return err
			}, jsonrpc.CodeInvalidParams, "draft_journey"},
			{"file resource", func() error {
				_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///etc/passwd"})
				return err
			}, jsonrpc.CodeInvalidParams, "automium://apps"},
			{"unknown automium resource", func() error {
				_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "automium://contracts/planner-adapter-v2"})
				return err
			}, jsonrpc.CodeInvalidParams, "automium://contracts/planner-adapter-v1"},
			{"resource path traversal", func() error {
				_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "automium://apps/../../etc/passwd"})
				return err
			}, jsonrpc.CodeInvalidParams, "automium://fixtures"},
			{"prompt with an unknown app", func() error {
				_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "draft_journey", Arguments: map[string]string{"appId": "gmail", "fixtureId": "x", "goal": "g"}})
				return err
			}, jsonrpc.CodeInvalidParams, "storefront"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				code, werr := rpcCode(t, tt.call())
				if code != tt.wantCode {
					t.Errorf("code = %d, want %d (%s)", code, tt.wantCode, werr.Message)
				}
				if !strings.Contains(werr.Message, tt.wantMessage) {
					t.Errorf("message %q does not name %q", werr.Message, tt.wantMessage)
				}
				var env errorEnvelope
				if err := json.Unmarshal(werr.Data, &env); err != nil || env.Error == nil || env.Error.Code == "" {
					t.Errorf("data %s is not {\"error\": {...}}: %v", werr.Data, err)
				}
				if env.Error != nil && env.Error.Code == automium.CodeUnsupportedResource && !strings.HasPrefix(env.URI, "file:") && !strings.HasPrefix(env.URI, "automium:") {
					t.Errorf("resource error data %s does not name the URI", werr.Data)
				}
			})
		}
	})
}

// fixedURIs are the spec's v1 resources, the journey rules and the tool-catalog-v1 contract, exactly.
var fixedURIs = []string{
	"automium://apps",
	"automium://contracts/planner-adapter-v1",
	"automium://contracts/replay-event-v1",
	"automium://contracts/semantic-snapshot-v1",
	"automium://contracts/tool-catalog-v1",
	"automium://fixtures",
	"automium://vocabulary/planner-intent-v1",
}

// TestResources lists and reads every resource and checks the bodies are what
// the root package returns.
func TestResources(t *testing.T) {
	ctx := context.Background()
	want := map[string]any{}
	apps, _ := automium.ListApps(ctx, automium.ListAppsInput{})
	want["automium://apps"] = apps
	fixtures, _ := automium.ListFixtures(ctx, automium.ListFixturesInput{})
	want["automium://fixtures"] = fixtures
	for _, name := range contract.Names() {
		doc, err := contract.Get(ctx, contract.GetInput{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		want["automium://contracts/"+name] = doc
	}
	want[vocabularyURI] = vocabulary()
	want[CatalogURI] = json.RawMessage(defaultCatalog().resource.body()) // checked against live sessions in catalog_test.go
	eachProtocol(t, func(t *testing.T, cs *mcp.ClientSession) {
		list, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var uris []string
		for _, r := range list.Resources {
			uris = append(uris, r.URI)
			if r.Name == "" || r.Title == "" || r.Description == "" || r.MIMEType != "application/json" {
				t.Errorf("%s: name %q, title %q, description %q, MIME type %q; want all set, application/json", r.URI, r.Name, r.Title, r.Description, r.MIMEType)
			}
			got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI})
			if err != nil {
				t.Errorf("read %s: %v", r.URI, err)
				continue
			}
			if len(got.Contents) != 1 || got.Contents[0].URI != r.URI || got.Contents[0].MIMEType != "application/json" {
				t.Errorf("read %s: contents %+v, want one application/json text", r.URI, got.Contents)
				continue
			}
			wantBody, _ := json.Marshal(want[r.URI])
			if got.Contents[0].Text != string(wantBody) {
				t.Errorf("read %s: body differs from the root package's:\n got %.300s\nwant %.300s", r.URI, got.Contents[0].Text, wantBody)
			}
			if r.Size != int64(len(wantBody)) {
				t.Errorf("%s: size %d, body is %d bytes", r.URI, r.Size, len(wantBody))
			}
		}
		slices.Sort(uris)
		if diff := cmp.Diff(fixedURIs, uris); diff != "" {
			t.Errorf("resource URIs (-want +got):\n%s", diff)
		}
		templates, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != journeysURITemplate {
			t.Errorf("resource templates = %v, %v; want only %s, so no URI outside the fixed list and the reference journeys resolves", templates, err, journeysURITemplate)
		}
	})
}

// TestPrompts gets every prompt with good arguments and checks the text is built
// from live corpus data; then it tries bad arguments.
func TestPrompts(t *testing.T) {
	ctx := context.Background()
	good := []struct {
		name     string
		args     map[string]string
		contains []string
	}{
		{"draft_journey", map[string]string{"appId": "helpdesk", "fixtureId": "helpdesk-agent-queue", "goal": "Reply to the oldest ticket with a screenshot"},
			[]string{"Reply to the oldest ticket", "helpdesk-agent-queue", "file-upload", "`upload_file`", "automium_compile_journey",
				"needs multi-tab", "```json", `"fixtureId": "helpdesk-agent-queue"`, "retry_step", "text_visible", "app-relative route", "assertions"}},
		{"debug_failed_run", map[string]string{"runId": testRunID, "verdict": "failed", "replaySummary": `{"seq":1,"lane":"executor","status":"failed"}`},
			[]string{testRunID, "product issue", "fixture issue", "planner issue", "unsupported intent", "policy denial", "runtime gap",
				"- planner:", "- executor:", "- runtime:", "- assertion:", "- worker:", "- artifact:", "modeled", "network_har", `"lane":"executor"`,
				"artifact-manifest://" + testRunID}},
		{"debug_failed_run", map[string]string{"runId": testRunID, "verdict": "flaky", "artifactManifestRef": "artifact-manifest://" + testRunID},
			[]string{"verdict flaky", "video"}},
		{"compare_planner_backends", map[string]string{"appIds": "storefront, kanban", "planners": "baseline=openai/gpt-4.1-mini, challenger=anthropic/claude-sonnet-4", "repetitions": "3"},
			[]string{automium.CorpusVersion, "storefront-search-add-to-cart", "kanban-move-card-to-done", `"repetitions": 3`, `"vendor": "anthropic"`,
				"repeatability", "pass rate", "latency", "token spend", "recovery success", "modeled"}},
		{"compare_planner_backends", map[string]string{"appIds": "banking", "planners": `[{"id":"p","vendor":"v","model":"m"}]`},
			[]string{`"repetitions": 1`, "banking-transfer-to-savings"}},
	}
	bad := []struct {
		name      string
		prompt    string
		args      map[string]string
		wantCode  automium.Code
		wantField string
	}{
		{"missing goal", "draft_journey", map[string]string{"appId": "storefront", "fixtureId": "storefront-guest-catalog"}, automium.CodeInvalidArgument, "goal"},
		{"unknown app", "draft_journey", map[string]string{"appId": "gmail", "fixtureId": "storefront-guest-catalog", "goal": "g"}, automium.CodeInvalidAppID, "appId"},
		{"fixture of another app", "draft_journey", map[string]string{"appId": "storefront", "fixtureId": "kanban-sprint-board", "goal": "g"}, automium.CodeFixtureAppMismatch, "fixtureId"},
		{"unknown fixture", "draft_journey", map[string]string{"appId": "storefront", "fixtureId": "storefront-vip", "goal": "g"}, automium.CodeInvalidFixtureID, "fixtureId"},
		{"unknown argument", "draft_journey", map[string]string{"appId": "storefront", "fixtureId": "storefront-guest-catalog", "goal": "g", "url": "https://example.com"}, automium.CodeInvalidArgument, "url"},
		{"oversized goal", "draft_journey", map[string]string{"appId": "storefront", "fixtureId": "storefront-guest-catalog", "goal": strings.Repeat("g", limit.MaxTextLength+1)}, automium.CodeLimitExceeded, "goal"},
		{"unknown verdict", "debug_failed_run", map[string]string{"runId": testRunID, "verdict": "timedOut"}, automium.CodeInvalidArgument, "verdict"},
		{"malformed run ID", "debug_failed_run", map[string]string{"runId": "42", "verdict": "failed"}, automium.CodeInvalidArgument, "runId"},
		{"another run's manifest", "debug_failed_run", map[string]string{"runId": testRunID, "verdict": "failed", "artifactManifestRef": "artifact-manifest://run-ffffffffffffffffffff"}, automium.CodeInvalidArgument, "artifactManifestRef"},
		{"unknown app in list", "compare_planner_backends", map[string]string{"appIds": "storefront, gmail", "planners": "a=b/c"}, automium.CodeInvalidAppID, "appIds[1]"},
		{"planner without model", "compare_planner_backends", map[string]string{"appIds": "storefront", "planners": "a=openai"}, automium.CodeMalformedPlanner, "planners[0]"},
		{"planner JSON without vendor", "compare_planner_backends", map[string]string{"appIds": "storefront", "planners": `[{"id":"a","model":"m"}]`}, automium.CodeMalformedPlanner, "planners[0].vendor"},
		{"repetitions not a number", "compare_planner_backends", map[string]string{"appIds": "storefront", "planners": "a=b/c", "repetitions": "many"}, automium.CodeInvalidArgument, "repetitions"},
		{"too many repetitions", "compare_planner_backends", map[string]string{"appIds": "storefront", "planners": "a=b/c", "repetitions": "1000"}, automium.CodeLimitExceeded, "repetitions"},
	}
	eachProtocol(t, func(t *testing.T, cs *mcp.ClientSession) {
		list, err := cs.ListPrompts(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range list.Prompts {
			names = append(names, p.Name)
			if p.Title == "" || p.Description == "" || len(p.Arguments) == 0 {
				t.Errorf("prompt %s lacks a title, description or arguments", p.Name)
			}
			for _, a := range p.Arguments {
				if a.Description == "" {
					t.Errorf("prompt %s argument %s has no description", p.Name, a.Name)
				}
			}
		}
		if diff := cmp.Diff([]string{"compare_planner_backends", "debug_failed_run", "draft_journey"}, names); diff != "" {
			t.Errorf("prompts (-want +got):\n%s", diff)
		}
		for _, g := range good {
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: g.name, Arguments: g.args})
			if err != nil {
				t.Errorf("%s %v: %v", g.name, g.args, err)
				continue
			}
			if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
				t.Errorf("%s: want one user message, got %+v", g.name, res.Messages)
				continue
			}
			text := res.Messages[0].Content.(*mcp.TextContent).Text
			for _, want := range g.contains {
				if !strings.Contains(text, want) {
					t.Errorf("%s %v: text lacks %q", g.name, g.args, want)
				}
			}
		}
		for _, b := range bad {
			t.Run(b.name, func(t *testing.T) {
				_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: b.prompt, Arguments: b.args})
				code, werr := rpcCode(t, err)
				if code != jsonrpc.CodeInvalidParams {
					t.Errorf("code %d, want %d", code, jsonrpc.CodeInvalidParams)
				}
				var env errorEnvelope
				if err := json.Unmarshal(werr.Data, &env); err != nil || env.Error == nil {
					t.Fatalf("data %s: %v", werr.Data, err)
				}
				if diff := cmp.Diff([2]string{string(b.wantCode), b.wantField}, [2]string{string(env.Error.Code), env.Error.Field}); diff != "" {
					t.Errorf("error code and field (-want +got):\n%s\nmessage: %s", diff, werr.Message)
				}
			})
		}
	})
}

// TestDraftJourneyExampleCompiles checks the promise of draft_journey: for every
// fixture, the first JSON block of the prompt, the one an agent extracts, is a
// journey of that fixture that compiles.
func TestDraftJourneyExampleCompiles(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, New(nil), "2025-11-25")
	fixtures, err := automium.ListFixtures(ctx, automium.ListFixturesInput{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures.Fixtures {
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "draft_journey", Arguments: map[string]string{"appId": f.AppID, "fixtureId": f.ID, "goal": "g"}})
		if err != nil {
			t.Fatalf("%s: %v", f.ID, err)
		}
		block, ok := firstJSONBlock(res.Messages[0].Content.(*mcp.TextContent).Text)
		if !ok {
			t.Errorf("%s: the prompt has no JSON block", f.ID)
			continue
		}
		in, err := decodeArguments[automium.CompileJourneyInput](json.RawMessage(block))
		if err != nil {
			t.Fatalf("%s: %v", f.ID, err)
		}
		compiled, err := automium.CompileJourney(ctx, in)
		if err != nil || !compiled.Valid || in.FixtureID != f.ID {
			t.Errorf("%s: example for another fixture or does not compile: %v %+v", f.ID, err, compiled.Errors)
		}
	}
}

// firstJSONBlock returns the body of the first ```json block of a markdown text,
// as an agent that extracts code would.
func firstJSONBlock(text string) (string, bool) {
	_, rest, ok := strings.Cut(text, "```json\n")
	if !ok {
		return "", false
	}
	block, _, ok := strings.Cut(rest, "\n```")
	return block, ok
}

// TestCompletions checks completion/complete for the prompt arguments.
func TestCompletions(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		prompt  string
		arg     string
		value   string
		context map[string]string
		want    []string
	}{
		{"app IDs by prefix", "draft_journey", "appId", "h", nil, []string{"helpdesk", "hr-onboarding"}},
		{"every app ID", "draft_journey", "appId", "", nil, []string{"admin-console", "banking", "docs-portal", "helpdesk", "hr-onboarding", "kanban", "storefront"}},
		{"fixtures of the chosen app", "draft_journey", "fixtureId", "", map[string]string{"appId": "kanban"}, []string{"kanban-empty-board", "kanban-sprint-board"}},
		{"fixtures of the chosen app by prefix", "draft_journey", "fixtureId", "kanban-s", map[string]string{"appId": "kanban"}, []string{"kanban-sprint-board"}},
		{"fixtures of another app are not suggested", "draft_journey", "fixtureId", "storefront", map[string]string{"appId": "kanban"}, []string{}},
		{"fixtures of every app without a chosen app", "draft_journey", "fixtureId", "storefront-", nil, []string{"storefront-guest-catalog", "storefront-returning-shopper"}},
		{"verdicts", "debug_failed_run", "verdict", "f", nil, []string{"failed", "flaky"}},
		{"app ID list", "compare_planner_backends", "appIds", "storefront, ka", nil, []string{"storefront, kanban"}},
		{"app ID list skips chosen apps", "compare_planner_backends", "appIds", "banking,b", nil, []string{}},
		{"no suggestions for free text", "draft_journey", "goal", "", nil, []string{}},
		{"no suggestions for an unknown prompt", "write_tests", "appId", "", nil, []string{}},
	}
	eachProtocol(t, func(t *testing.T, cs *mcp.ClientSession) {
		for _, tt := range tests {
			params := &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: tt.prompt},
				Argument: mcp.CompleteParamsArgument{Name: tt.arg, Value: tt.value},
			}
			if tt.context != nil {
				params.Context = &mcp.CompleteContext{Arguments: tt.context}
			}
			res, err := cs.Complete(ctx, params)
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
				continue
			}
			if diff := cmp.Diff(tt.want, res.Completion.Values); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.name, diff)
			}
			if res.Completion.Total != len(tt.want) || res.Completion.HasMore {
				t.Errorf("%s: total %d, hasMore %v; want %d, false", tt.name, res.Completion.Total, res.Completion.HasMore, len(tt.want))
			}
		}
		res, err := cs.Complete(ctx, &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "automium://apps"},
			Argument: mcp.CompleteParamsArgument{Name: "x", Value: ""},
		})
		if err != nil || len(res.Completion.Values) != 0 {
			t.Errorf("resource completion = %v, %v; want no suggestions", res, err)
		}
	})
}
