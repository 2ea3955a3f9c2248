package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/automium/automium"
	"github.com/google/go-cmp/cmp"
)

// How toolschemas/ is made and checked: the example call of each tool, the
// derivation of the schemas a tool advertises, and the test that holds the
// shipped files to it (-update writes them). None of it runs in a server.

// examples holds one valid call of each tool, the steps of the spec's
// Developer Experience flow on one reference journey. Each is advertised in its
// tool's input schema under "examples" (written into toolschemas/ by
// TestAdvertisedSchemas), so an agent sees a call that works, and the tests use
// them as the arguments every tool accepts.
type examples struct {
	listApps            automium.ListAppsInput
	listFixtures        automium.ListFixturesInput
	compileJourney      automium.CompileJourneyInput
	createRunSubmission automium.CreateRunSubmissionInput
	getReplaySummary    automium.GetReplaySummaryInput
	getArtifactManifest automium.GetArtifactManifestInput
	comparePlanners     automium.ComparePlannersInput
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
	}
}

// calls returns each example as its tool's JSON arguments, by tool name.
func (e examples) calls() map[string]json.RawMessage {
	return map[string]json.RawMessage{
		"automium_list_apps":             mustJSON(e.listApps),
		"automium_list_fixtures":         mustJSON(e.listFixtures),
		"automium_compile_journey":       mustJSON(e.compileJourney),
		"automium_create_run_submission": mustJSON(e.createRunSubmission),
		"automium_get_replay_summary":    mustJSON(e.getReplaySummary),
		"automium_get_artifact_manifest": mustJSON(e.getArtifactManifest),
		"automium_compare_planners":      mustJSON(e.comparePlanners),
	}
}

// deriveSchemas computes the schemas a row advertises from the root package's
// schema of its types and its example call (see advertisedSchemas).
func deriveSchemas(row tool, example json.RawMessage) (in, out json.RawMessage, err error) {
	if in, err = automium.JSONSchema(row.in); err != nil {
		return nil, nil, fmt.Errorf("tool %s: input schema: %w", row.def.Name, err)
	}
	if out, err = automium.JSONSchema(row.out); err != nil {
		return nil, nil, fmt.Errorf("tool %s: output schema: %w", row.def.Name, err)
	}
	in = withExample(json.RawMessage(toToolWords(string(in))), example)
	return in, json.RawMessage(toToolWords(string(out))), nil
}

// withExample adds a JSON Schema "examples" keyword holding example to the
// object schema s, keeping the rest of it byte for byte.
func withExample(s, example json.RawMessage) json.RawMessage {
	if len(s) < 2 || s[len(s)-1] != '}' {
		panic("mcpserver: an input schema that is not a JSON object: " + string(s))
	}
	out := append(slices.Clone(s[:len(s)-1]), `,"examples":[`...)
	out = append(out, example...)
	return append(out, "]}"...)
}

// TestAdvertisedSchemas holds every tool's input and output schema, as sent to
// clients from toolschemas/, to the one snapshot of its type: the root
// package's schemas/<Type>.json (which TestPrecomputedSchemas keeps equal to
// what the struct tags give), in tool words (see toToolWords), the input's with
// its example call. The adapter adds nothing else. A schema change is a contract
// change that shows in review as a diff of schemas/, toolschemas/ and the
// tool-catalog-v1 digests; regenerate with
//
//	go test . -update && go test ./mcpserver -update
//
// in that order: the adapter's test binary embeds the root's schemas/ as they
// were when it was built.
func TestAdvertisedSchemas(t *testing.T) {
	calls := toolExamples().calls()
	for _, tl := range tools() {
		in, out, err := deriveSchemas(tl, calls[tl.def.Name])
		if err != nil {
			t.Fatal(err)
		}
		for _, side := range []struct {
			name       string
			sent, want any
		}{{"input", tl.def.InputSchema, in}, {"output", tl.def.OutputSchema, out}} {
			file := advertisedSchemaFile(tl.def.Name, side.name)
			want := string(side.want.(json.RawMessage))
			if *update {
				if err := os.WriteFile(filepath.FromSlash(file), []byte(want+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if got := string(side.sent.(json.RawMessage)); got != want {
				t.Errorf("%s: %s is not the root package's schema of %s in tool words with its example (-derived +shipped); "+
					"if the change is intended, run go test . -update && go test ./mcpserver -update:\n%s", tl.def.Name, file, side.name, cmp.Diff(want, got))
			}
		}
	}
	if *update {
		return
	}
	shipped, err := fs.Glob(advertisedSchemas, "toolschemas/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(shipped) != 2*len(tools()) {
		t.Errorf("toolschemas/ holds %d files, want an input and an output schema for each of %d tools: delete the stale ones", len(shipped), len(tools()))
	}
}
