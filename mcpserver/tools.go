package mcpserver

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"log/slog"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/toolcalls"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolTable is the one table of tools. Each row binds a root-package
// capability to the name and wording an agent sees, and says what the tests
// need of it: one valid call (its example, below), one call it refuses and the
// code of that refusal (refuses), what its example's answer shows (shows,
// optional) and the bound of its answers (bounded, optional). Adding a
// capability as a tool is one row here, then go generate ./... (see
// CONTRIBUTING.md). Every other list of tools is derived from these rows: the
// advertised schemas and the capability schemas in schemas/ (generate.go),
// e2e/calls.json, the answer bounds (answerbounds.go and docs/answers.md), the
// Go API the tests call, the calls of the traced session
// (tools/internal/safetytest) and of the bench (internal/toolcalls). The rows
// carry no schemas: tools adds them. TestFewFilesNameEveryTool fails when
// more hand-kept files list every tool.
var toolTable = sync.OnceValue(func() []tool {
	return []tool{
		capability("automium_list_apps", "List benchmark apps", listAppsDescription, automium.ListApps, exampleListApps).
			refuses(`{"appId":"storefront"}`, automium.CodeInvalidArgument).
			shows(`{"corpusVersion":"owned-corpus-2026.11"}`).
			bounded(appsAnswer),
		capability("automium_list_fixtures", "List benchmark fixtures", listFixturesDescription, automium.ListFixtures, exampleListFixtures).
			refuses(`{"appId":"no-such-app"}`, automium.CodeInvalidAppID).
			bounded(fixturesAnswer),
		capability("automium_compile_journey", "Validate and compile a journey", compileJourneyDescription, automium.CompileJourney, exampleCompileJourney).
			refuses(stepsAsProse, automium.CodeInvalidArgument).
			shows(`{"valid":true}`).
			bounded(graphAnswer),
		capability("automium_create_run_submission", "Model a run submission", createRunSubmissionDescription, automium.CreateRunSubmission, exampleCreateRunSubmission).
			refuses(`{"journeyId":"storefront-search-add-to-cart","appId":"storefront","fixtureId":"storefront-guest-catalog","planner":{"id":"baseline"},"environmentProfileId":"desktop-1440-en-us"}`, automium.CodeMalformedPlanner).
			shows(`{"modeled":true,"status":"modeled"}`).
			bounded(submissionAnswer),
		capability("automium_get_replay_summary", "Summarize a run's replay", getReplaySummaryDescription, automium.GetReplaySummary, exampleGetReplaySummary).
			refuses(`{"runId":"run-bc6cbdcc5f27aacd7274","verdict":"timedOut","artifactManifestRef":"artifact-manifest://run-bc6cbdcc5f27aacd7274"}`, automium.CodeInvalidArgument).
			shows(`{"modeled":true}`).
			bounded(replayAnswer),
		capability("automium_get_artifact_manifest", "Build an artifact manifest", getArtifactManifestDescription, automium.GetArtifactManifest, exampleGetArtifactManifest).
			refuses(`{"runId":"run-bc6cbdcc5f27aacd7274","root":"artifacts","entries":[{"kind":"report","path":"../../etc/passwd"}]}`, automium.CodeInvalidArtifactPath).
			shows(`{"modeled":true}`).
			bounded(manifestAnswer),
		capability("automium_compare_planners", "Compare planner backends", comparePlannersDescription, automium.ComparePlanners, exampleComparePlanners).
			refuses(`{"corpusVersion":"owned-corpus-1999.01","appIds":["storefront"],"planners":[{"id":"baseline","vendor":"openai","model":"gpt-4.1-mini"}]}`, automium.CodeUnsupportedCorpusVersion).
			shows(`{"modeled":true,"basis":"modeled"}`).
			bounded(comparisonAnswer),
		capability("automium_compare_observed_trials", "Compare recorded planner trials", compareObservedTrialsDescription, automium.CompareObservedTrials, exampleCompareObservedTrials).
			refuses(trialOfAStranger, automium.CodeInvalidArgument).
			shows(`{"modeled":false,"basis":"observed"}`).
			bounded(comparisonAnswer),
		capability("automium_export_playwright_spec", "Export a journey as a Playwright spec", exportPlaywrightSpecDescription, automium.ExportPlaywrightSpec, exampleExportPlaywrightSpec).
			refuses(`{"journeyId":"no-such-journey"}`, automium.CodeInvalidArgument).
			bounded(specAnswer),
		capability("automium_compare_reports", "Compare planners in test reports", compareReportsDescription, automium.CompareReports, exampleCompareReports).
			refuses(reportWithAnEntity, automium.CodeInvalidArgument).
			shows(`{"import":{"tests":2,"trials":2,"skipped":0,"flaky":1,"retried":1,"notEvaluable":0,"triage":[` +
				`{"source":"reports[0].content.testsuites.testsuite[1].testcase[0]","plannerId":"challenger",` +
				`"journeyId":"storefront-search-add-to-cart","repetition":1,"rescued":true,"error":"first attempt"}]}}`).
			bounded(comparisonAnswer),
	}
})

// The refusals too long for their rows: mistakes an agent makes, each
// refused with a code that says how to fix it.
const (
	// stepsAsProse is a journey whose steps are a sentence, not a list.
	stepsAsProse = `{"id":"storefront-kettle","appId":"storefront","fixtureId":"storefront-guest-catalog","goal":"Find a kettle",` +
		`"steps":"navigate to / and search for a kettle","assertions":[{"kind":"text_visible","value":"Added to cart"}],` +
		`"recovery":{"strategies":["retry_step"]}}`
	// trialOfAStranger is a trial of a planner the call does not list.
	trialOfAStranger = `{"corpusVersion":"owned-corpus-2026.11","planners":[{"id":"baseline","vendor":"openai","model":"gpt-4.1-mini"},` +
		`{"id":"challenger","vendor":"anthropic","model":"claude-sonnet-4"}],"trials":[{"plannerId":"stranger","appId":"storefront",` +
		`"fixtureId":"storefront-guest-catalog","journeyId":"storefront-search-add-to-cart","repetition":1,"passed":true,` +
		`"latencyMs":1000,"inputTokens":18000,"outputTokens":900}]}`
	// reportWithAnEntity is a JUnit report that declares an external entity.
	reportWithAnEntity = `{"corpusVersion":"owned-corpus-2026.11","planners":[{"id":"baseline","vendor":"openai","model":"gpt-4.1-mini"},` +
		`{"id":"challenger","vendor":"anthropic","model":"claude-sonnet-4"}],"reports":[{"format":"junit",` +
		`"content":"<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><testsuite>&e;</testsuite>"}],` +
		`"mapping":{"planner":{"from":"project"},"journey":{"from":"annotation","name":"journey"}}}`
)

// tools is the table with the schemas every tool advertises (see
// advertisedSchemas), built once per process, on first use. A row whose
// schema files are not generated yet, a row just added, gets the schemas
// derived instead, which is correct, only slower: so go generate ./...
// serves a new row before it has written the row's files, and TestGenerated
// fails until it has.
var tools = sync.OnceValue(func() []tool {
	rows := slices.Clone(toolTable())
	var derived map[string][2]json.RawMessage
	for i, r := range rows {
		in, errIn := advertisedSchemas.ReadFile(advertisedSchemaFile(r.def.Name, "input"))
		out, errOut := advertisedSchemas.ReadFile(advertisedSchemaFile(r.def.Name, "output"))
		def := *r.def
		if errIn == nil && errOut == nil {
			def.InputSchema, def.OutputSchema = shipped(in), shipped(out)
		} else {
			if derived == nil {
				derived = deriveTableSchemas()
			}
			def.InputSchema, def.OutputSchema = derived[r.def.Name][0], derived[r.def.Name][1]
		}
		rows[i].def = &def
	}
	return rows
})

// advertisedSchemas holds the input and output schema of every tool exactly as
// tools/list sends them: the root package's schema of each type, compacted
// (package internal/schemacompact) and in tool words (see toToolWords).
// Deriving them took 4 to 5 ms of every start, more than a bare go-sdk server
// takes to start at all: the rewording goes through a regular expression over
// 40 KB. go generate ./... writes them (generate.go) and TestGenerated derives
// them again from the table and fails when a schema or a tool name changes.
//
//go:embed toolschemas
var advertisedSchemas embed.FS

// shipped is a schema file's content as advertised, without its final newline.
func shipped(file []byte) json.RawMessage { return bytes.TrimSuffix(file, []byte("\n")) }

// deriveTableSchemas derives the schemas of every row, as go generate ./...
// writes them, by tool name.
func deriveTableSchemas() map[string][2]json.RawMessage {
	schemas := map[string][2]json.RawMessage{}
	catalog := newCatalog()
	for _, r := range toolTable() {
		in, out, err := deriveSchemas(r, catalog)
		must("the schemas of "+r.def.Name, err)
		schemas[r.def.Name] = [2]json.RawMessage{in, out}
	}
	return schemas
}

// advertisedSchemaFile is where the schema of one side of a tool is kept.
func advertisedSchemaFile(toolName, side string) string {
	return "toolschemas/" + toolName + "." + side + ".json"
}

// The root package names its capabilities in Go terms (a run ID "from
// CreateRunSubmission"), so go doc readers meet Go names; an agent calls tools,
// so the adapter says the same in tool names. Error messages are rendered in
// tool words (see toolWords): a message keeps a capability's name as data, so
// nothing rewrites its text. The schemas' descriptions are text written once,
// when the schema files are generated, by toToolWords.

// toolNames maps each capability's Go name to its tool's name, built on first
// use: only a message that names a capability needs it. The names are looked
// up here, not when a row is built, because every start builds the rows and
// looking a function's name up reads the binary's function table.
var toolNames = sync.OnceValue(func() map[string]string {
	rows := toolTable()
	names := make(map[string]string, len(rows))
	for _, r := range rows {
		names[goFuncName(r.fn)] = r.def.Name
	}
	return names
})

// toToolWords replaces the Go name of every capability in s with its tool's
// name. It writes the schema files' descriptions (the tool words they ship
// in), never a message.
func toToolWords(s string) string {
	names := toolNames()
	alts := make([]string, 0, len(names))
	for goName := range names {
		alts = append(alts, regexp.QuoteMeta(goName))
	}
	slices.Sort(alts)
	goNames := regexp.MustCompile(`\b(` + strings.Join(alts, "|") + `)\b`)
	return goNames.ReplaceAllStringFunc(s, func(name string) string { return names[name] })
}

// Tool descriptions are written for a model choosing and calling a tool: what
// it does, when to call it, and what it never does, in as few words as say it.
// Every agent session pays for them before its first call (see internal/schemacompact);
// the rules, vocabularies and worked examples are in the resources and
// prompts a description names.
const (
	listAppsDescription = "List the benchmark apps and the corpus version. Call first; name your own app " +
		"ext:<name>."

	listFixturesDescription = "List fixtures (starting states) with their profiles and reference journeys."

	compileJourneyDescription = "Validate a journey (rules: " + vocabularyURI + "; examples: " + journeysURITemplate +
		") and compile it to a graph with a digest. Every problem comes back at once, with path, code and allowed values."

	createRunSubmissionDescription = "Model a run of a journey with a planner and a profile: a run ID and refs for the " +
		"replay and manifest tools. Modeled."

	getReplaySummaryDescription = "A run's replay summary and the artifact kinds a complete replay needs. Modeled."

	getArtifactManifestDescription = "Check a run's artifact entries; returns the canonical manifest and digest. Modeled."

	comparePlannersDescription = "Compare planners on the reference journeys of appIds. Modeled: no planner is " +
		"called and no winner is named."

	compareObservedTrialsDescription = "Compare planners on trials recorded by real runs: per-pair verdicts and " +
		"flagged journeys. Rank only where a verdict says better."

	exportPlaywrightSpecDescription = "Export a journey as a deterministic Playwright Test spec and the mapping for " +
		"automium_compare_reports. Nothing runs."

	compareReportsDescription = "Compare planners on test or agent-eval reports passed inline: counts, triage " +
		"and the observed comparison."
)

// The examples: one valid call of each tool, the steps of the spec's
// Developer Experience flow on one reference journey, built from the corpus
// compiled in. They are the good calls of e2e/calls.json, of the traced
// session and of the bench, and the arguments the tests know every tool
// accepts. No answer quotes them: they are not advertised in the input
// schemas, where every session paid for them before its first call (see
// internal/schemacompact); an agent finds working journeys in the
// draft_journey prompt and at automium://journeys/{id}.

// exampleJourneyID names the reference journey the examples follow.
const exampleJourneyID = "storefront-search-add-to-cart"

// exampleFlow is what the examples share: the journey, its fixture, two
// planners and the modeled run of the journey.
type exampleFlow struct {
	journey             automium.CompileJourneyInput
	fixture             automium.Fixture
	planner, challenger automium.PlannerRef
	submission          automium.CreateRunSubmissionInput
	run                 automium.CreateRunSubmissionResult
}

var exampleData = sync.OnceValue(func() exampleFlow {
	journey, ok := automium.ReferenceJourney(exampleJourneyID)
	if !ok {
		panic("mcpserver: the examples' reference journey " + exampleJourneyID + " is gone; pick another")
	}
	fixture, err := automium.FixtureOfApp(journey.AppID, journey.FixtureID)
	must("the examples' fixture", err)
	f := exampleFlow{journey: journey, fixture: fixture,
		planner:    automium.PlannerRef{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"},
		challenger: automium.PlannerRef{ID: "challenger", Vendor: "anthropic", Model: "claude-sonnet-4"}}
	f.submission = automium.CreateRunSubmissionInput{JourneyID: journey.ID, AppID: journey.AppID, FixtureID: journey.FixtureID,
		Planner: f.planner, EnvironmentProfileID: fixture.EnvironmentProfileIDs[0]}
	f.run, err = automium.CreateRunSubmission(context.Background(), f.submission)
	must("the examples' run", err)
	return f
})

func exampleListApps() automium.ListAppsInput { return automium.ListAppsInput{} }

func exampleListFixtures() automium.ListFixturesInput {
	return automium.ListFixturesInput{AppID: exampleData().journey.AppID}
}

func exampleCompileJourney() automium.CompileJourneyInput { return exampleData().journey }

func exampleCreateRunSubmission() automium.CreateRunSubmissionInput { return exampleData().submission }

func exampleGetReplaySummary() automium.GetReplaySummaryInput {
	f := exampleData()
	return automium.GetReplaySummaryInput{RunID: f.run.RunID, Verdict: automium.VerdictFailed, RetryCount: 1,
		ArtifactManifestRef: f.run.ArtifactManifestRef}
}

func exampleGetArtifactManifest() automium.GetArtifactManifestInput {
	f := exampleData()
	return automium.GetArtifactManifestInput{RunID: f.run.RunID, Root: f.fixture.ArtifactRoot, Entries: []automium.ArtifactEntry{
		{Kind: "trace", Path: "attempt-1/trace.zip"}, {Kind: "screenshot", Path: "attempt-1/failure.png"}}}
}

func exampleComparePlanners() automium.ComparePlannersInput {
	f := exampleData()
	return automium.ComparePlannersInput{CorpusVersion: automium.CorpusVersion, AppIDs: []string{f.journey.AppID},
		Planners: []automium.PlannerRef{f.planner}, Repetitions: 2}
}

func exampleCompareObservedTrials() automium.CompareObservedTrialsInput {
	f := exampleData()
	trial := func(plannerID string, rep int, passed bool, ms int) automium.Trial {
		return automium.Trial{PlannerID: plannerID, AppID: f.journey.AppID, FixtureID: f.journey.FixtureID, JourneyID: f.journey.ID,
			Repetition: rep, Passed: passed, LatencyMs: ms, InputTokens: 18000, OutputTokens: 900}
	}
	return automium.CompareObservedTrialsInput{CorpusVersion: automium.CorpusVersion,
		Planners: []automium.PlannerRef{f.planner, f.challenger},
		Trials: []automium.Trial{
			trial(f.planner.ID, 1, true, 41200), trial(f.planner.ID, 2, false, 58900),
			trial(f.challenger.ID, 1, true, 36100), trial(f.challenger.ID, 2, true, 39800),
		}}
}

func exampleExportPlaywrightSpec() automium.ExportPlaywrightSpecInput {
	return automium.ExportPlaywrightSpecInput{JourneyID: exampleData().journey.ID}
}

// exampleCompareReports passes a JUnit report of the example journey, one
// test for each planner; the challenger's passed on its retry.
func exampleCompareReports() automium.CompareReportsInput {
	f := exampleData()
	testcase := func(seconds, retry string) string {
		return `<testcase name="search and add to cart" time="` + seconds + `"><properties><property name="journey" value="` +
			f.journey.ID + `"/></properties>` + retry + `</testcase>`
	}
	suite := func(planner, testcase string) string {
		return `<testsuite name="journeys.spec.ts" timestamp="2026-04-14T09:00:00.000Z" hostname="` + planner + `">` + testcase + `</testsuite>`
	}
	return automium.CompareReportsInput{CorpusVersion: automium.CorpusVersion,
		Planners: []automium.PlannerRef{f.planner, f.challenger},
		Reports: []automium.ReportContent{{Format: automium.FormatJUnit,
			Content: `<testsuites>` + suite(f.planner.ID, testcase("41.2", "")) +
				suite(f.challenger.ID, testcase("36.1", `<flakyFailure message="first attempt" time="30.1"/>`)) + `</testsuites>`}},
		Mapping: automium.ReportMapping{
			Planner: automium.ReportSource{From: automium.FromProject},
			Journey: automium.ReportSource{From: automium.FromAnnotation, Name: "journey"},
		}}
}

// exampleCalls is every row's example as its tool's JSON arguments, in the
// order of the table.
func exampleCalls() []toolcalls.Call {
	rows := toolTable()
	calls := make([]toolcalls.Call, len(rows))
	for i, r := range rows {
		args, err := marshalUnescaped(r.example())
		must("the example of "+r.def.Name, err)
		calls[i] = toolcalls.Call{Tool: r.def.Name, Args: args}
	}
	return calls
}

// marshalUnescaped is json.Marshal leaving <, > and & as they are: the
// examples carry XML reports, which people read in e2e/calls.json.
func marshalUnescaped(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// The tools that replay the examples (the traced session, the bench) reach
// them through internal/toolcalls; setting the hook costs a start nothing.
func init() { toolcalls.Register(exampleCalls) }

// tool is one row of the tool table.
type tool struct {
	def *mcp.Tool
	// fn is the root-package function itself, for the tests that call the Go
	// API beside the tool, and for its Go name (goFuncName).
	fn any
	// in and out are the Go input and output types, kept so tests can hold the
	// schemas against the validator and the root package's snapshots.
	in, out reflect.Type
	// example returns one valid call of the tool, built from the corpus: the
	// good call of e2e/calls.json, of the traced session and of the bench.
	example func() any
	// refusal is one call the tool refuses, as JSON arguments, and the code
	// of its error: the bad call of e2e/calls.json and of TestToolCalls.
	refusal     json.RawMessage
	refusalCode automium.Code
	// expect is what the example's structured answer shows, member by member
	// (goodExpect in e2e/calls.json); nil checks only that it succeeds.
	expect json.RawMessage
	// bound bounds the tool's answers (answerbounds.go); nil bounds them as
	// every other request is (otherAnswers).
	bound *answerBound
	// call reads raw arguments with the input type's walker and runs the
	// capability.
	call func(ctx context.Context, args json.RawMessage) (any, error)
}

// capability builds a table row from a root-package function and the
// function that builds one valid call of it; tools adds the schemas. The
// argument walker of In is built on the tool's first call;
// TestToolCallsAreDeterministic calls every tool, so a type the walker cannot
// read fails in CI.
func capability[In, Out any](name, title, description string, fn func(context.Context, In) (Out, error), example func() In) tool {
	t := newTool(name, title, description, fn, nil, nil)
	t.example = func() any { return example() }
	return t
}

// refuses gives the row its bad call: JSON arguments the tool refuses with
// code. Every tool owes one (TestToolRows; TestToolCalls makes the call and
// holds the code), as the spec asks a validation failure of every tool.
func (t tool) refuses(args string, code automium.Code) tool {
	t.refusal, t.refusalCode = json.RawMessage(args), code
	return t
}

// shows gives the row what its example's structured answer must show: a JSON
// object whose every member the answer has, equal.
func (t tool) shows(members string) tool {
	t.expect = json.RawMessage(members)
	return t
}

// bounded gives the row the bound of its answers, for a tool that can answer
// more than other requests (1 MiB) or is charged less at admission.
func (t tool) bounded(b answerBound) tool {
	t.bound = &b
	return t
}

// newTool builds a row with the given schemas; tests build their own rows with it.
func newTool[In, Out any](name, title, description string, fn func(context.Context, In) (Out, error), in, out json.RawMessage) tool {
	return tool{
		def: &mcp.Tool{
			Name:         name,
			Title:        title,
			Description:  description,
			InputSchema:  in,
			OutputSchema: out,
			Annotations: &mcp.ToolAnnotations{
				Title:           title,
				ReadOnlyHint:    true,
				IdempotentHint:  true,
				DestructiveHint: new(false),
				OpenWorldHint:   new(false),
			},
		},
		fn:  fn,
		in:  reflect.TypeFor[In](),
		out: reflect.TypeFor[Out](),
		call: func(ctx context.Context, args json.RawMessage) (any, error) {
			in, err, read := decodeArgumentsRead[In](args)
			if err == nil {
				return fn(ctx, in)
			}
			if !read {
				return nil, err
			}
			// One round trip: the values of the right shape are checked for
			// what they mean, and both kinds of problem come back together.
			out, meaningErr := fn(ctx, in)
			return nil, withMeaning(reflect.TypeFor[In](), err, out, meaningErr)
		},
	}
}

// withMeaning joins the shape problems of a call (shape, from the argument
// walker) with the problems the capability found in the values that had the
// right shape (its error, or the errors of an invalid journey), so that one
// wrong-typed field no longer hides the rest. A meaning problem at or under
// the path of a shape problem is left out: it is about the zero value the
// walker left there (a target sent as a string reads as a missing target),
// not about what the client sent. An error other than problems (a canceled
// call, an internal error) leaves the shape problems alone. The joined list
// is in the one order of problems and within the one cap (automium.Join).
func withMeaning(t reflect.Type, shape error, out any, meaningErr error) error {
	shapeErr, ok := shape.(*automium.Error)
	if !ok {
		return shape
	}
	// Over a bound, the walker kept part of a value (the first items of a
	// list) or none of it; what the rest means is not looked at, as the
	// capabilities themselves check bounds before anything else.
	if slices.ContainsFunc(shapeErr.Problems(), func(p automium.Problem) bool { return p.Code == automium.CodeLimitExceeded }) {
		return shape
	}
	var meaning []automium.Problem
	switch {
	case meaningErr != nil:
		e, ok := meaningErr.(*automium.Error)
		if !ok {
			return shape
		}
		meaning = e.Problems()
	default:
		if r, ok := out.(automium.CompileJourneyResult); ok {
			meaning = r.Errors
		}
	}
	all := shapeErr.Problems()
	shapePaths := make([]string, len(all))
	for i, p := range all {
		shapePaths[i] = p.Field
	}
	for _, p := range meaning {
		if p.Code == automium.CodeLimitExceeded && p.Field == "" {
			continue // a note that more problems were not listed
		}
		if !slices.ContainsFunc(shapePaths, func(at string) bool { return within(p.Field, at) }) {
			all = append(all, p)
		}
	}
	adapter.SortProblems(t, all)
	return automium.Join(all...)
}

// within reports whether the rendered path p is at or under the rendered
// path at: steps[1].target.role is under steps[1].target, steps[10] is not
// under steps[1]. The root path, "", is under nothing but itself: a problem
// of the whole arguments is not about a zeroed value.
func within(p, at string) bool {
	if at == "" {
		return p == ""
	}
	if !strings.HasPrefix(p, at) {
		return false
	}
	rest := p[len(at):]
	return rest == "" || rest[0] == '.' || rest[0] == '['
}

// goFuncName is the unqualified name of a package-level function: ListApps.
func goFuncName(fn any) string {
	full := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	return full[strings.LastIndexByte(full, '.')+1:]
}

// handler adapts a row to the SDK's raw tool handler. The raw handler is used
// instead of mcp.AddTool so that every bad input, including a wrong JSON type or an
// unknown property, reaches the client as a coded automium error rather than the
// SDK's schema-validation text.
//
// A result carries the output once as JSON, the structured content, and a
// Markdown summary as the text a model reads (answers.go); a client that
// predates structured content gets the JSON as its text.
func (t tool) handler(log *slog.Logger) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		out, err := t.call(ctx, req.Params.Arguments)
		if err != nil {
			return toolErrorResult(log, t.def.Name, err), nil
		}
		res, err := answer(ctx, out, legacyClient(req))
		if err != nil {
			return toolErrorResult(log, t.def.Name, err), nil
		}
		return res, nil
	}
}
