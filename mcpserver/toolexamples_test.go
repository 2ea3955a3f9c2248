package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/automium/automium"
)

// examples holds one valid call of each tool, the steps of the spec's
// Developer Experience flow on one reference journey. The tests use them as
// the arguments every tool accepts. They are no longer advertised in the input
// schemas, where every session paid for them before its first call (see
// internal/schemacompact): an agent finds working journeys in the draft_journey prompt
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
