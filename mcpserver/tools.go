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
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tools is the one table of tools. Each row binds a root-package capability to the
// name and wording an agent sees; adding a capability as a tool is one line here
// (and go generate ./... to write its advertised schemas). It is built
// once per process, on first use, from the schemas in toolschemas/.
var tools = sync.OnceValue(func() []tool {
	return []tool{
		capability("automium_list_apps", "List benchmark apps", listAppsDescription, automium.ListApps),
		capability("automium_list_fixtures", "List benchmark fixtures", listFixturesDescription, automium.ListFixtures),
		capability("automium_compile_journey", "Validate and compile a journey", compileJourneyDescription, automium.CompileJourney),
		capability("automium_create_run_submission", "Model a run submission", createRunSubmissionDescription, automium.CreateRunSubmission),
		capability("automium_get_replay_summary", "Summarize a run's replay", getReplaySummaryDescription, automium.GetReplaySummary),
		capability("automium_get_artifact_manifest", "Build an artifact manifest", getArtifactManifestDescription, automium.GetArtifactManifest),
		capability("automium_compare_planners", "Compare planner backends", comparePlannersDescription, automium.ComparePlanners),
		capability("automium_compare_observed_trials", "Compare recorded planner trials", compareObservedTrialsDescription, automium.CompareObservedTrials),
		capability("automium_compare_playwright_report", "Compare planners in a Playwright report", comparePlaywrightReportDescription, automium.ComparePlaywrightReport),
		capability("automium_compare_reports", "Compare planners in test reports", compareReportsDescription, automium.CompareReports),
	}
})

// advertisedSchemas holds the input and output schema of every tool exactly as
// tools/list sends them: the root package's schema of each type (schemas/), in
// tool words (see toToolWords), the input's with its example call. Deriving them
// took 4 to 5 ms of every start, more than a bare go-sdk server takes to start
// at all: the example run goes through the validator, and the rewording through
// a regular expression over 40 KB. go generate ./... writes them (generate.go)
// and TestGenerated derives them again from the table and fails when a schema,
// an example or a tool name changes.
//
//go:embed toolschemas
var advertisedSchemas embed.FS

// advertisedSchema returns the schema the named tool advertises for its input
// or output ("input", "output").
func advertisedSchema(toolName, side string) json.RawMessage {
	b, err := advertisedSchemas.ReadFile(advertisedSchemaFile(toolName, side))
	must("the advertised "+side+" schema of "+toolName, err)
	return bytes.TrimSuffix(b, []byte("\n"))
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
// use: only a message that names a capability needs it.
var toolNames = sync.OnceValue(func() map[string]string {
	rows := tools()
	names := make(map[string]string, len(rows))
	for _, r := range rows {
		names[r.goName] = r.def.Name
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

// Tool descriptions are written for a model choosing and calling a tool: what it
// does, when to call it, and what it never does.
const (
	listAppsDescription = "List the authorized benchmark apps of Automium's owned corpus: for each app its ID, display name, " +
		"hosting type, rationale and UI capabilities, plus the corpus version. Call this first to choose an appId; every " +
		"other tool accepts only these app IDs. Takes no arguments. Read-only: returns checked-in corpus entries only."

	listFixturesDescription = "List the benchmark fixtures (reproducible starting states of an app): fixture ID, app ID, " +
		"environment profile IDs, seed refs, account refs (account:// references, never credentials), fixture file refs, " +
		"artifact root and reference journey IDs, plus the environment profiles they use. Pass appId to list only that " +
		"app's fixtures. Call it after choosing an app, to choose a fixtureId and an environmentProfileId. Read-only: " +
		"nothing is seeded, reset or resolved."

	compileJourneyDescription = "Validate a journey against the owned corpus and the frozen planner-intent-v1 vocabulary " +
		"and, when it is valid, compile it to a versioned graph (steps, assertions, bounded recovery, pass and fail " +
		"terminals) with a content digest. A journey that breaks the vocabulary or the corpus is not a tool error: the " +
		"result has valid=false and lists every problem at once, each with its JSON path, code, fix-it message and allowed " +
		"values; fix them all and call again. Arguments of the wrong shape or over a bound (a wrong type, an unknown " +
		"property, a text or list over its limit) are a tool error that lists every such problem. Targets are " +
		"semantic (ARIA role plus accessible name, never CSS); navigate takes app-relative routes only. Every rule, " +
		"with an example per intent, is in the resource " + vocabularyURI + ", and reference journeys that compile " +
		"are at " + journeysURITemplate + ". To run a journey of your own, send this same object as journey to " +
		"automium_create_run_submission, which compiles it again and binds the run to its digest. Nothing is " +
		"executed or persisted."

	createRunSubmissionDescription = "Model submitting a run of a journey on a fixture with a planner backend and an " +
		"environment profile. The run is bound to the journey's content, and nothing is stored between calls: for a " +
		"reference journey of the fixture give journeyId; for a journey of your own give journey, the same object you " +
		"pass to automium_compile_journey, which is compiled again here (its problems are reported under journey). " +
		"journeyDigest is an optional cross-check that must equal the digest computed here; it never stands in for " +
		"the journey, so a journeyId that is not a reference journey, sent without journey, is refused. Checks that " +
		"the app is authorized, the fixture belongs to it, the journey is of that app and fixture, the profile is one " +
		"of the fixture's, and the planner reference has an id, vendor and model. Returns a deterministic run ID (the " +
		"first 20 hex digits of the sha256 of the RFC 8785 form of schemaVersion, corpusVersion, journeyId, " +
		"journeyDigest, appId, fixtureId, planner and environmentProfileId, so the same input always gives the same " +
		"ID and another journey another ID), status \"modeled\", and the artifactManifestRef and replayStreamRef to use " +
		"with automium_get_replay_summary and automium_get_artifact_manifest. The output is modeled: nothing is " +
		"enqueued, no worker is leased, no browser runs and nothing is written."

	getReplaySummaryDescription = "Build the contract-shaped replay summary of a run from metadata you provide: runId, " +
		"verdict (passed, failed, flaky, error or skipped, as Playwright reports them), retryCount and artifactManifestRef " +
		"(artifact-manifest://<runId> from automium_create_run_submission). Returns the attempts, the replay stream " +
		"reference and the replay artifact kinds a complete replay of that outcome must include; use them to build the " +
		"manifest with automium_get_artifact_manifest. The output is modeled: no replay file is read and nothing is fetched."

	getArtifactManifestDescription = "Build and check a run's artifact manifest from entries you provide: each entry has " +
		"an artifact kind of the manifest contract and a path relative to root (usually the fixture's artifactRoot), " +
		"optionally a media type, size and sha256. Rejects unknown kinds and unsafe paths (absolute, .., backslashes, drive " +
		"letters, URL schemes, duplicates) and returns the canonical manifest with its digest. The output is modeled: no " +
		"file is read, written or uploaded."

	comparePlannersDescription = "Compare planner backends on the reference journeys of the chosen apps at a fixed corpus " +
		"version: per planner, pass rate with a 95% Wilson interval and its n, repeatability as pass^k, median journey " +
		"latency, token spend and recovery success rate, the Pareto set, and per pair of planners a paired comparison whose " +
		"verdict is always \"not evidence: modeled draws\". Give corpusVersion (from automium_list_apps), appIds, planners " +
		"(each with id, vendor and model) and repetitions (1 to 100). The comparison is modeled: trials are deterministic " +
		"draws from a documented model, no planner API is called and no journey is executed, so it shows the shape of a " +
		"comparison, not which planner is better."

	compareObservedTrialsDescription = "Compare planner backends on trials recorded by real runs elsewhere: give corpusVersion, " +
		"planners (each with id, vendor and model) and trials (1 per journey run: plannerId, appId, fixtureId, journeyId, " +
		"repetition, passed, latencyMs, tokens, recovery). Returns the same report as automium_compare_planners with basis " +
		"observed: per planner pass rate with a 95% Wilson interval, pass^k, latency, tokens per run and per passed run, " +
		"recovery; the Pareto set; and for each pair of planners, over the (journey, repetition) runs both made, the exact " +
		"McNemar p-value, the difference in pass rate with a 95% interval clustered by journey, the minimum detectable effect " +
		"at 80% power, and a verdict (A better, B better or indistinguishable at alpha 0.05, Holm-corrected across pairs). " +
		"Rank planners only where a verdict says better. Nothing is executed and nothing is verified: the server aggregates " +
		"the trials as given."

	comparePlaywrightReportDescription = "Compare planner backends on a Playwright JSON report (the output of --reporter=json), " +
		"passed inline as report (its content, at most 8 MiB; the server reads no file). mapping says where each test's planner " +
		"and journey are written: from project (the project name), tag (name:value on the spec, e.g. @journey:checkout) or " +
		"annotation (the description of the annotation of that type). Each test that ran becomes one trial: passed when its " +
		"status is expected or flaky, retried tests count as recovery (recovered when flaky), latency is the sum of its " +
		"attempts' durations, repetitions number a planner's runs of a journey in report order; skipped tests are counted and " +
		"left out. Returns those counts and the report of automium_compare_observed_trials, with a verdict per pair of " +
		"planners. A malformed or oversized report is a tool error at its JSON path. Nothing is executed or verified."

	compareReportsDescription = "Compare planners on test reports passed inline: reports is a list of {format, content}, " +
		"format playwright-json or junit, shards of one run merged in order. mapping as for automium_compare_playwright_report " +
		"(in JUnit, project is the testsuite hostname, annotation a testcase property). Returns counts, not-evaluable trials, " +
		"triage (first error, attachment paths) and the observed comparison. Nothing is executed or verified."
)

// tool is one row of the tool table.
type tool struct {
	def *mcp.Tool
	// goName is the root-package function the tool calls, as go doc names it.
	goName string
	// in and out are the Go input and output types, kept so tests can hold the
	// schemas against the validator and the root package's snapshots.
	in, out reflect.Type
	// call reads raw arguments with the input type's walker and runs the
	// capability.
	call func(ctx context.Context, args json.RawMessage) (any, error)
}

// capability builds a table row from a root-package function, with the schemas
// its tool advertises (see advertisedSchemas). The argument walker of In is built
// on the tool's first call; TestToolCallsAreDeterministic calls every tool, so a type the
// walker cannot read fails in CI.
func capability[In, Out any](name, title, description string, fn func(context.Context, In) (Out, error)) tool {
	return newTool(name, title, description, fn, advertisedSchema(name, "input"), advertisedSchema(name, "output"))
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
		goName: goFuncName(fn),
		in:     reflect.TypeFor[In](),
		out:    reflect.TypeFor[Out](),
		call: func(ctx context.Context, args json.RawMessage) (any, error) {
			in, err := decodeArguments[In](args)
			if err != nil {
				return nil, err
			}
			return fn(ctx, in)
		},
	}
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
// A result carries the output twice, as the MCP specification recommends:
// structuredContent for programs and one compact JSON text block for models and
// for clients that predate structured content.
func (t tool) handler(log *slog.Logger) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		out, err := t.call(ctx, req.Params.Arguments)
		if err != nil {
			return toolErrorResult(log, t.def.Name, err), nil
		}
		body, err := json.Marshal(out)
		if err != nil {
			return toolErrorResult(log, t.def.Name, err), nil
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
			StructuredContent: json.RawMessage(body),
		}, nil
	}
}
