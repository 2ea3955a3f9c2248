package mcpserver

import (
	"bytes"
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
	"github.com/automium/automium/internal/inventory"
	"github.com/automium/automium/internal/schemacompact"
)

// The files this package generates, listed for go generate ./... (through
// generate_register.go, built only with the automiumgen tag) and for
// TestGenerated, which holds the files on disk to the list. Nothing here runs
// in a server: no code the server reaches calls generatedFiles.

// generatedFiles lists the adapter's generated files: every tool's advertised
// schemas (toolschemas/), the root package's schema of every tool's input and
// result (schemas/), e2e/calls.json (each row's calls, and the prompts'),
// the tool-catalog-v1 digests of the server New builds,
// the size of every fixed resource, the texts of the prompt and resource
// goldens in testdata/, the README's inventory of tools, resources and
// prompts, and the tool-catalog-v1 rule in docs/binding.md. The schemas come
// from the root package's schemas as compiled in, so after a change there the
// generator runs twice (see tools/gen).
func generatedFiles(fs.FS) ([]gen.Output, error) {
	outs := []gen.Output{gen.PruneGlob("mcpserver/toolschemas/*")}
	typeSchemas, err := capabilitySchemas()
	if err != nil {
		return nil, err
	}
	outs = append(outs, typeSchemas...)
	calls, err := callsFile()
	if err != nil {
		return nil, err
	}
	outs = append(outs, gen.File(callsFixture, calls))
	var derived []tool
	catalog := newCatalog()
	for _, tl := range tools() {
		in, out, err := deriveSchemas(tl, catalog)
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
	outs = append(outs, gen.File("mcpserver/"+resourceSizesFile, append(sizesJSON, '\n')),
		gen.File("docs/answers.md", answerBoundsDoc()))

	vocab, err := json.MarshalIndent(vocabulary(), "", "  ")
	if err != nil {
		return nil, err
	}
	outs = append(outs, gen.File("mcpserver/testdata/resources/"+automium.IntentVocabularyVersion+".json", append(vocab, '\n')),
		gen.PruneGlob("mcpserver/testdata/prompts/*.md"))
	for _, g := range promptGoldens {
		text, err := inventory.PromptText(context.Background(), New(nil), g.name, g.args)
		if err != nil {
			return nil, fmt.Errorf("prompt golden %s: %w", g.file, err)
		}
		outs = append(outs, gen.File("mcpserver/testdata/prompts/"+g.file, []byte(text)))
	}

	tables, err := inventory.Markdown(context.Background(), New(nil))
	if err != nil {
		return nil, err
	}
	begin, end := gen.BlockMarkers("MCP inventory, from the live server's lists")
	outs = append(outs, gen.BlockOf("README.md", begin, end, tables+"\n"))

	// The tool-catalog-v1 rule in docs/binding.md is the contract resource's,
	// word for word: binding.CatalogRules, one bullet each.
	var rules strings.Builder
	for _, r := range binding.CatalogRules() {
		rules.WriteString("- " + r + "\n")
	}
	begin, end = gen.BlockMarkers("tool-catalog-v1 rules, binding.CatalogRules")
	return append(outs, gen.BlockOf("docs/binding.md", begin, end, rules.String())), nil
}

// capabilitySchemas are the root package's schemas/: the schema of every
// tool's input and result, one file per type, which the root package ships
// precomputed (its schema.go) and publishes. They are the root package's
// schemas, not the tools' compacted ones, derived from the struct tags with
// the corpus as compiled.
func capabilitySchemas() ([]gen.Output, error) {
	outs := []gen.Output{gen.PruneGlob("schemas/*.json")}
	seen := map[reflect.Type]bool{}
	for _, r := range toolTable() {
		for _, t := range []reflect.Type{r.in, r.out} {
			if seen[t] {
				continue
			}
			seen[t] = true
			s, err := adapter.Schema(t)
			if err != nil {
				return nil, fmt.Errorf("deriving the schema of %s: %w", t, err)
			}
			b, err := json.Marshal(s)
			if err != nil {
				return nil, err
			}
			outs = append(outs, gen.File("schemas/"+t.Name()+".json", append(b, '\n')))
		}
	}
	return outs, nil
}

// callsFixture is the end-to-end test's calls, from the module root.
const callsFixture = "e2e/calls.json"

// callsMarker heads e2e/calls.json, whose readers ignore a member they do not
// know: JSON has no comments.
const callsMarker = "Code generated by go generate ./... from the tool table (mcpserver/tools.go) and promptCalls (mcpserver/generate.go); DO NOT EDIT."

// callEntry is one tool's entry in e2e/calls.json, from its row: the good
// call (the example), what its answer shows (goodExpect, optional), the bad
// call and the code it gets.
type callEntry struct {
	Good       json.RawMessage `json:"good"`
	GoodExpect json.RawMessage `json:"goodExpect,omitempty"`
	Bad        json.RawMessage `json:"bad,omitempty"`
	BadCode    automium.Code   `json:"badCode,omitempty"`
}

// promptCall is one prompt's entry in e2e/calls.json: arguments it answers,
// and arguments it refuses with -32602.
type promptCall struct {
	Good map[string]string `json:"good"`
	Bad  map[string]string `json:"bad"`
}

// promptCalls are the prompts' calls of e2e/calls.json, by prompt name.
var promptCalls = map[string]promptCall{
	"draft_journey": {
		Good: map[string]string{"appId": "storefront", "fixtureId": "storefront-guest-catalog", "goal": "Find a kettle and add it to the cart"},
		Bad:  map[string]string{"appId": "no-such-app", "fixtureId": "storefront-guest-catalog", "goal": "Find a kettle"},
	},
	"debug_failed_run": {
		Good: map[string]string{"runId": "run-bc6cbdcc5f27aacd7274", "verdict": "failed"},
		Bad:  map[string]string{"runId": "run-bc6cbdcc5f27aacd7274", "verdict": "timedOut"},
	},
	"compare_planner_backends": {
		Good: map[string]string{"appIds": "storefront, helpdesk", "planners": "baseline=openai/gpt-4.1-mini, challenger=anthropic/claude-sonnet-4", "repetitions": "3"},
		Bad:  map[string]string{"appIds": "no-such-app", "planners": "baseline=openai/gpt-4.1-mini"},
	},
}

// callsFile is e2e/calls.json, written whole from the rows, in the table's
// order, and from promptCalls, in the prompt table's order. A row without a
// refusal gets its good call alone, and TestToolRows fails until the row
// has one; a prompt without calls gets none, and the end-to-end tests fail
// until promptCalls has them.
func callsFile() ([]byte, error) {
	var b bytes.Buffer
	marker, _ := json.Marshal(callsMarker)
	b.WriteString(`{"//":` + string(marker) + `,"tools":{`)
	rows := toolTable()
	for i, c := range exampleCalls() {
		r := rows[i]
		e, err := marshalUnescaped(callEntry{Good: c.Args, GoodExpect: r.expect, Bad: r.refusal, BadCode: r.refusalCode})
		if err != nil {
			return nil, fmt.Errorf("the calls of %s: %w", r.def.Name, err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(r.def.Name)
		b.Write(k)
		b.WriteByte(':')
		b.Write(e)
	}
	b.WriteString(`},"prompts":{`)
	var listed int
	for _, p := range prompts() {
		call, ok := promptCalls[p.def.Name]
		if !ok {
			continue
		}
		e, err := marshalUnescaped(call)
		if err != nil {
			return nil, err
		}
		if listed > 0 {
			b.WriteByte(',')
		}
		listed++
		k, _ := json.Marshal(p.def.Name)
		b.Write(k)
		b.WriteByte(':')
		b.Write(e)
	}
	if listed != len(promptCalls) {
		return nil, fmt.Errorf("promptCalls has %d entries, %d of them for a prompt the table has", len(promptCalls), listed)
	}
	b.WriteString("}}")
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return append(out.Bytes(), '\n'), nil
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

// deriveSchemas computes the schemas a row advertises from the root package's
// schema of its types, compacted (package internal/schemacompact) and in tool
// words (see advertisedSchemas). catalog holds what the tools before it in
// the table already said; nil stands for none.
func deriveSchemas(row tool, catalog *schemacompact.Catalog) (in, out json.RawMessage, err error) {
	if catalog == nil {
		catalog = newCatalog()
	}
	derive := func(t reflect.Type, output bool) (json.RawMessage, error) {
		s, err := adapter.Schema(t)
		if err != nil {
			return nil, err
		}
		b, err := catalog.Compact(row.def.Name, s, output)
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

// newCatalog is the compaction record of a catalog of this package's tools,
// which it advertises in tool words.
func newCatalog() *schemacompact.Catalog { return schemacompact.NewCatalog(toToolWords) }
