package automium_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/automium/automium"
)

func ExampleCreateRunSubmission() {
	run, err := automium.CreateRunSubmission(context.Background(), automium.CreateRunSubmissionInput{
		JourneyID:            "storefront-search-add-to-cart",
		AppID:                "storefront",
		FixtureID:            "storefront-guest-catalog",
		Planner:              automium.PlannerRef{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"},
		EnvironmentProfileID: "desktop-1440-en-us",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(run.RunID)
	fmt.Println(run.Status, run.Modeled)
	fmt.Println(run.ArtifactManifestRef)
	fmt.Println(run.ReplayStreamRef)
	// Output:
	// run-606b700fc1c0ad13c153
	// modeled true
	// artifact-manifest://run-606b700fc1c0ad13c153
	// replay-stream://run-606b700fc1c0ad13c153
}

// A journey of your own is sent whole, the same object CompileJourney takes,
// and compiled again by CreateRunSubmission: the run is bound to the digest the
// server computed, so a different journey under the same ID is a different run.
// A digest is only a cross-check: an ID with a digest but no journey is refused.
func ExampleCreateRunSubmission_ownJourney() {
	ctx := context.Background()
	journey, _ := automium.ReferenceJourney("storefront-search-add-to-cart")
	journey.ID = "my-kettle-search"
	compiled, err := automium.CompileJourney(ctx, journey)
	if err := errors.Join(err, compiled.Err()); err != nil {
		log.Fatal(err)
	}
	in := automium.CreateRunSubmissionInput{
		Journey:              &journey,
		JourneyDigest:        compiled.Journey.Digest, // optional: must match
		AppID:                journey.AppID,
		FixtureID:            journey.FixtureID,
		Planner:              automium.PlannerRef{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"},
		EnvironmentProfileID: "desktop-1440-en-us",
	}
	run, err := automium.CreateRunSubmission(ctx, in)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(run.JourneyID, run.JourneyDigest == compiled.Journey.Digest, run.ReferenceJourney)

	in.Journey, in.JourneyID = nil, journey.ID
	_, err = automium.CreateRunSubmission(ctx, in)
	var e *automium.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Field)
	}
	// Output:
	// my-kettle-search true false
	// invalid_argument journeyId
}

// A planner reference needs an id, a vendor and a model; every missing part is
// named at once.
func ExampleCreateRunSubmission_malformedPlanner() {
	_, err := automium.CreateRunSubmission(context.Background(), automium.CreateRunSubmissionInput{
		JourneyID:            "storefront-search-add-to-cart",
		AppID:                "storefront",
		FixtureID:            "storefront-guest-catalog",
		Planner:              automium.PlannerRef{ID: "baseline"},
		EnvironmentProfileID: "desktop-1440-en-us",
	})
	var e *automium.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Field)
	}
	// Output:
	// malformed_planner planner
}

func ExampleGetReplaySummary() {
	summary, err := automium.GetReplaySummary(context.Background(), automium.GetReplaySummaryInput{
		RunID:               "run-bc6cbdcc5f27aacd7274",
		Verdict:             automium.VerdictFlaky,
		RetryCount:          1,
		ArtifactManifestRef: "artifact-manifest://run-bc6cbdcc5f27aacd7274",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(summary.Verdict, summary.Attempts)
	fmt.Println(summary.RequiredReplayArtifactKinds)
	// Output:
	// flaky 2
	// [console_log dom_snapshot network_har replay_events report screenshot semantic_snapshot trace video]
}

func ExampleGetArtifactManifest() {
	manifest, err := automium.GetArtifactManifest(context.Background(), automium.GetArtifactManifestInput{
		RunID: "run-bc6cbdcc5f27aacd7274",
		Root:  "artifacts/storefront/guest-catalog",
		Entries: []automium.ArtifactEntry{
			{Kind: "trace", Path: "attempt-1/trace.zip"},
			{Kind: "report", Path: "report.html", MediaType: "text/html"},
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range manifest.Entries {
		fmt.Println(e.Kind, e.Path, e.MediaType)
	}
	// Output:
	// report report.html text/html
	// trace attempt-1/trace.zip application/zip
}

// Paths that could leave the artifact root are rejected with the entry's index.
func ExampleGetArtifactManifest_unsafePath() {
	_, err := automium.GetArtifactManifest(context.Background(), automium.GetArtifactManifestInput{
		RunID: "run-bc6cbdcc5f27aacd7274",
		Root:  "artifacts",
		Entries: []automium.ArtifactEntry{
			{Kind: "trace", Path: "attempt-1/trace.zip"},
			{Kind: "report", Path: "../../etc/passwd"},
		},
	})
	var e *automium.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Field)
	}
	// Output:
	// invalid_artifact_path entries[1].path
}

// Given how the run ended, the manifest says whether it holds every artifact
// kind the replay contract requires of such a run.
func ExampleGetArtifactManifest_completeness() {
	manifest, err := automium.GetArtifactManifest(context.Background(), automium.GetArtifactManifestInput{
		RunID:   "run-bc6cbdcc5f27aacd7274",
		Root:    "artifacts",
		Entries: []automium.ArtifactEntry{{Kind: "report", Path: "report.html", MediaType: "text/html"}},
		Replay:  &automium.ReplayOutcome{Verdict: automium.VerdictFailed},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(manifest.Completeness.Complete)
	fmt.Println(manifest.Completeness.MissingKinds)
	// Output:
	// false
	// [console_log dom_snapshot network_har replay_events screenshot semantic_snapshot trace]
}

func ExampleArtifactSpecs() {
	for _, k := range automium.ArtifactSpecs()[:3] {
		fmt.Println(k.Kind, k.DefaultMediaType)
	}
	// Output:
	// console_log text/plain
	// dom_snapshot text/html
	// network_har application/json
}
