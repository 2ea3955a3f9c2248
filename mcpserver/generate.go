package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"slices"
	"strings"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/gen"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The files this package generates, listed for go generate ./... (through
// generate_register.go, built only with the automiumgen tag) and for
// TestGenerated, which holds the files on disk to the list. Nothing here runs
// in a server: no code the server reaches calls generatedFiles.

// generatedFiles lists the adapter's generated files: every tool's advertised
// schemas (toolschemas/), the tool-catalog-v1 digests of the server New builds,
// the size of every fixed resource, the texts of the prompt and resource
// goldens in testdata/, the README's inventory of tools, resources and
// prompts, and the tool-catalog-v1 rule in docs/binding.md. The schemas come
// from the root package's schemas as compiled in, so after a change there the
// generator runs twice (see tools/gen).
func generatedFiles(fs.FS) ([]gen.Output, error) {
	outs := []gen.Output{gen.PruneGlob("mcpserver/toolschemas/*")}
	var derived []tool
	seen := newSeen("")
	for _, tl := range tools() {
		in, out, err := deriveSchemas(tl, seen)
		if err != nil {
			return nil, err
		}
		outs = append(outs,
			gen.File("mcpserver/"+advertisedSchemaFile(tl.def.Name, "input"), append(slices.Clone(in), '\n')),
			gen.File("mcpserver/"+advertisedSchemaFile(tl.def.Name, "output"), append(slices.Clone(out), '\n')))
		// The digests are of the schemas as derived now, not as compiled in,
		// so that one run gives the digests of the files it writes.
		def := *tl.def
		def.InputSchema, def.OutputSchema = in, out
		tl.def = &def
		derived = append(derived, tl)
	}
	digests, err := json.MarshalIndent(catalogDigests(derived, resources(), prompts()), "", "  ")
	if err != nil {
		return nil, err
	}
	outs = append(outs, gen.File("mcpserver/"+catalogGolden, append(digests, '\n')))

	sizes := map[string]int64{}
	for _, r := range resources() {
		sizes[r.def.URI] = int64(len(r.body()))
	}
	sizesJSON, err := json.MarshalIndent(sizes, "", "  ")
	if err != nil {
		return nil, err
	}
	outs = append(outs, gen.File("mcpserver/"+resourceSizesFile, append(sizesJSON, '\n')))

	vocab, err := json.MarshalIndent(vocabulary(), "", "  ")
	if err != nil {
		return nil, err
	}
	outs = append(outs, gen.File("mcpserver/testdata/resources/"+automium.IntentVocabularyVersion+".json", append(vocab, '\n')),
		gen.PruneGlob("mcpserver/testdata/prompts/*.md"))
	for _, g := range promptGoldens {
		text, err := promptText(g.name, g.args)
		if err != nil {
			return nil, fmt.Errorf("prompt golden %s: %w", g.file, err)
		}
		outs = append(outs, gen.File("mcpserver/testdata/prompts/"+g.file, []byte(text)))
	}

	inventory, err := renderInventory()
	if err != nil {
		return nil, err
	}
	begin, end := gen.BlockMarkers("MCP inventory, from the live server's lists")
	outs = append(outs, gen.BlockOf("README.md", begin, end, inventory+"\n"))

	// The tool-catalog-v1 rule in docs/binding.md is the contract resource's,
	// word for word: binding.CatalogRules, one bullet each.
	var rules strings.Builder
	for _, r := range binding.CatalogRules() {
		rules.WriteString("- " + r + "\n")
	}
	begin, end = gen.BlockMarkers("tool-catalog-v1 rules, binding.CatalogRules")
	return append(outs, gen.BlockOf("docs/binding.md", begin, end, rules.String())), nil
}

// Files of the package that generatedFiles writes, relative to the package.
const (
	catalogGolden     = "tool-catalog-v1.json"
	resourceSizesFile = "resource-sizes.json"
)

// promptGoldens are the prompt texts kept in testdata/prompts, so a review sees
// every change to what agents are told.
var promptGoldens = []struct {
	file, name string
	args       map[string]string
}{
	{"draft_journey-helpdesk-agent-queue.md", "draft_journey", map[string]string{"appId": "helpdesk", "fixtureId": "helpdesk-agent-queue", "goal": "Reply to the oldest ticket with a screenshot"}},
	{"debug_failed_run-failed-events.md", "debug_failed_run", map[string]string{"runId": goldenRunID, "verdict": "failed", "replaySummary": `{"runId":"` + goldenRunID + `","seq":1,"lane":"executor","status":"failed"}`}},
	{"debug_failed_run-passed.md", "debug_failed_run", map[string]string{"runId": goldenRunID, "verdict": "passed"}},
	{"debug_failed_run-skipped.md", "debug_failed_run", map[string]string{"runId": goldenRunID, "verdict": "skipped"}},
	{"debug_failed_run-flaky-other-run.md", "debug_failed_run", map[string]string{"runId": goldenRunID, "verdict": "flaky", "replaySummary": `{"runId":"run-ffffffffffffffffffff","verdict":"failed"}`}},
	{"compare_planner_backends-storefront-kanban.md", "compare_planner_backends", map[string]string{"appIds": "storefront, kanban", "planners": "baseline=openai/gpt-4.1-mini, challenger=anthropic/claude-sonnet-4", "repetitions": "3"}},
}

// goldenRunID is the run the prompt goldens are about.
const goldenRunID = "run-0123456789abcdef0123"

// generatorSession opens an in-memory session with the server New builds, so
// that what is generated from lists is what a client receives.
func generatorSession() (*mcp.ClientSession, func(), error) {
	ctx := context.Background()
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	ss, err := New(nil).Connect(ctx, serverTransport, nil)
	if err != nil {
		return nil, nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "automium-gen", Version: "v0.0.0"}, nil)
	cs, err := client.Connect(ctx, clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		ss.Close()
		return nil, nil, err
	}
	return cs, func() { cs.Close(); ss.Wait() }, nil
}

// promptText is the text prompts/get gives for a prompt and its arguments.
func promptText(name string, args map[string]string) (string, error) {
	cs, done, err := generatorSession()
	if err != nil {
		return "", err
	}
	defer done()
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	return res.Messages[0].Content.(*mcp.TextContent).Text, nil
}

// renderInventory renders the README's markdown tables from the lists a client receives.
func renderInventory() (string, error) {
	ctx := context.Background()
	cs, done, err := generatorSession()
	if err != nil {
		return "", err
	}
	defer done()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return "", err
	}
	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		return "", err
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		return "", err
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| Tool | Arguments | What it does |\n|---|---|---|\n")
	for _, tool := range tools.Tools {
		schema := tool.InputSchema.(map[string]any)
		props, _ := schema["properties"].(map[string]any)
		required, _ := schema["required"].([]any)
		var args []string
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for k := range props {
				if !yield(k) {
					return
				}
			}
		}) {
			args = append(args, argument(name, slices.Contains(required, any(name))))
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", tool.Name, orNone(args), firstSentence(tool.Description))
	}
	b.WriteString("\n| Resource | What it holds |\n|---|---|\n")
	for _, r := range resources.Resources {
		fmt.Fprintf(&b, "| `%s` | %s: %s |\n", r.URI, r.Title, firstSentence(r.Description))
	}
	for _, r := range templates.ResourceTemplates {
		fmt.Fprintf(&b, "| `%s` (template) | %s: %s |\n", r.URITemplate, r.Title, firstSentence(r.Description))
	}
	b.WriteString("\n| Prompt | Arguments | What it guides |\n|---|---|---|\n")
	for _, p := range prompts.Prompts {
		var args []string
		for _, a := range p.Arguments {
			args = append(args, argument(a.Name, a.Required))
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", p.Name, orNone(args), firstSentence(p.Description))
	}
	return b.String(), nil
}

func argument(name string, required bool) string {
	if required {
		return "`" + name + "`"
	}
	return "`" + name + "` (optional)"
}

func orNone(args []string) string {
	if len(args) == 0 {
		return "none"
	}
	return strings.Join(args, ", ")
}

// firstSentence keeps a table cell short: descriptions go on to say when to call
// and what is never done, which the server itself tells a model.
func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
}

// examples holds one valid call of each tool, the steps of the spec's
// Developer Experience flow on one reference journey. The tests use them as
// the arguments every tool accepts. They are no longer advertised in the input
// schemas, where every session paid for them before its first call (see
// compact.go): an agent finds working journeys in the draft_journey prompt
// and at automium://journeys/{id}.
type examples struct {
	listApps            automium.ListAppsInput
	listFixtures        automium.ListFixturesInput
	compileJourney      automium.CompileJourneyInput
	createRunSubmission automium.CreateRunSubmissionInput
	getReplaySummary    automium.GetReplaySummaryInput
	getArtifactManifest automium.GetArtifactManifestInput
	comparePlanners     automium.ComparePlannersInput
	compareObserved     automium.CompareObservedTrialsInput
	exportPlaywright    automium.ExportPlaywrightSpecInput
	compareReports      automium.CompareReportsInput
}

// exampleJourneyID names the reference journey the examples follow.
const exampleJourneyID = "storefront-search-add-to-cart"

func toolExamples() examples {
	journey, ok := automium.ReferenceJourney(exampleJourneyID)
	if !ok {
		panic("mcpserver: the examples' reference journey " + exampleJourneyID + " is gone; pick another")
	}
	fixture, err := automium.FixtureOfApp(journey.AppID, journey.FixtureID)
	must("the examples' fixture", err)
	planner := automium.PlannerRef{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"}
	challenger := automium.PlannerRef{ID: "challenger", Vendor: "anthropic", Model: "claude-sonnet-4"}
	observedTrial := func(plannerID string, rep int, passed bool, ms int) automium.Trial {
		return automium.Trial{PlannerID: plannerID, AppID: journey.AppID, FixtureID: journey.FixtureID, JourneyID: journey.ID,
			Repetition: rep, Passed: passed, LatencyMs: ms, InputTokens: 18000, OutputTokens: 900}
	}
	submission := automium.CreateRunSubmissionInput{JourneyID: journey.ID, AppID: journey.AppID, FixtureID: journey.FixtureID,
		Planner: planner, EnvironmentProfileID: fixture.EnvironmentProfileIDs[0]}
	run, err := automium.CreateRunSubmission(context.Background(), submission)
	must("the examples' run", err)
	return examples{
		listFixtures:        automium.ListFixturesInput{AppID: journey.AppID},
		compileJourney:      journey,
		createRunSubmission: submission,
		getReplaySummary: automium.GetReplaySummaryInput{RunID: run.RunID, Verdict: automium.VerdictFailed, RetryCount: 1,
			ArtifactManifestRef: run.ArtifactManifestRef},
		getArtifactManifest: automium.GetArtifactManifestInput{RunID: run.RunID, Root: fixture.ArtifactRoot, Entries: []automium.ArtifactEntry{
			{Kind: "trace", Path: "attempt-1/trace.zip"}, {Kind: "screenshot", Path: "attempt-1/failure.png"}}},
		comparePlanners: automium.ComparePlannersInput{CorpusVersion: automium.CorpusVersion, AppIDs: []string{journey.AppID},
			Planners: []automium.PlannerRef{planner}, Repetitions: 2},
		compareObserved: automium.CompareObservedTrialsInput{CorpusVersion: automium.CorpusVersion,
			Planners: []automium.PlannerRef{planner, challenger},
			Trials: []automium.Trial{
				observedTrial(planner.ID, 1, true, 41200), observedTrial(planner.ID, 2, false, 58900),
				observedTrial(challenger.ID, 1, true, 36100), observedTrial(challenger.ID, 2, true, 39800),
			}},
		exportPlaywright: automium.ExportPlaywrightSpecInput{JourneyID: journey.ID},
		compareReports: automium.CompareReportsInput{CorpusVersion: automium.CorpusVersion,
			Planners: []automium.PlannerRef{planner, challenger},
			Reports: []automium.ReportContent{{Format: automium.FormatJUnit,
				Content: `<testsuites><testsuite name="journeys.spec.ts" timestamp="2026-04-14T09:00:00.000Z" hostname="baseline"><testcase name="search and add to cart" time="41.2">` +
					`<properties><property name="journey" value="` + journey.ID + `"/></properties></testcase></testsuite>` +
					`<testsuite name="journeys.spec.ts" timestamp="2026-04-14T09:00:00.000Z" hostname="challenger"><testcase name="search and add to cart" time="36.1">` +
					`<properties><property name="journey" value="` + journey.ID + `"/></properties></testcase></testsuite></testsuites>`}},
			Mapping: automium.ReportMapping{
				Planner: automium.ReportSource{From: automium.FromProject},
				Journey: automium.ReportSource{From: automium.FromAnnotation, Name: "journey"},
			}},
	}
}

// calls returns each example as its tool's JSON arguments, by tool name.
func (e examples) calls() map[string]json.RawMessage {
	return map[string]json.RawMessage{
		"automium_list_apps":               mustJSON(e.listApps),
		"automium_list_fixtures":           mustJSON(e.listFixtures),
		"automium_compile_journey":         mustJSON(e.compileJourney),
		"automium_create_run_submission":   mustJSON(e.createRunSubmission),
		"automium_get_replay_summary":      mustJSON(e.getReplaySummary),
		"automium_get_artifact_manifest":   mustJSON(e.getArtifactManifest),
		"automium_compare_planners":        mustJSON(e.comparePlanners),
		"automium_compare_observed_trials": mustJSON(e.compareObserved),
		"automium_export_playwright_spec":  mustJSON(e.exportPlaywright),
		"automium_compare_reports":         mustJSON(e.compareReports),
	}
}

// deriveSchemas computes the schemas a row advertises from the root package's
// schema of its types (see advertisedSchemas and compactSchema). seen holds
// the input descriptions the tools before it in the table already said; nil
// stands for none.
func deriveSchemas(row tool, seen *seenDescriptions) (in, out json.RawMessage, err error) {
	if seen == nil {
		seen = newSeen("")
	}
	seen.tool = row.def.Name
	derive := func(t reflect.Type, output bool) (json.RawMessage, error) {
		s, err := adapter.Schema(t)
		if err != nil {
			return nil, err
		}
		b, err := compactSchema(s, output, seen)
		if err != nil {
			return nil, err
		}
		return json.RawMessage(toToolWords(string(b))), nil
	}
	if in, err = derive(row.in, false); err != nil {
		return nil, nil, fmt.Errorf("tool %s: input schema: %w", row.def.Name, err)
	}
	if out, err = derive(row.out, true); err != nil {
		return nil, nil, fmt.Errorf("tool %s: output schema: %w", row.def.Name, err)
	}
	return in, out, nil
}
