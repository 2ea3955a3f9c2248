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
		capability("automium_export_playwright_spec", "Export a journey as a Playwright spec", exportPlaywrightSpecDescription, automium.ExportPlaywrightSpec),
		capability("automium_compare_reports", "Compare planners in test reports", compareReportsDescription, automium.CompareReports),
	}
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
