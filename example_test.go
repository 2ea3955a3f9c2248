package automium_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/google/go-cmp/cmp"
)

func ExampleListApps() {
	res, err := automium.ListApps(context.Background(), automium.ListAppsInput{})
	if err != nil {
		panic(err)
	}
	fmt.Println("corpus:", res.CorpusVersion)
	for _, app := range res.Apps {
		fmt.Printf("%-14s %-22s %v\n", app.ID, app.HostingType, app.Capabilities)
	}
	// Output:
	// corpus: owned-corpus-2026.11
	// admin-console  self-hosted-container  [auth dialogs multi-tab search tables]
	// banking        vendor-sandbox         [auth dialogs forms tables]
	// docs-portal    static-bundle          [multi-tab search]
	// helpdesk       self-hosted-container  [auth file-upload forms search tables]
	// hr-onboarding  vendor-sandbox         [auth dialogs file-upload forms]
	// kanban         self-hosted-container  [auth dialogs drag-drop forms]
	// storefront     self-hosted-container  [auth cart-checkout dialogs forms search]
}

func ExampleListFixtures() {
	res, err := automium.ListFixtures(context.Background(), automium.ListFixturesInput{AppID: "kanban"})
	if err != nil {
		panic(err)
	}
	for _, f := range res.Fixtures {
		fmt.Println(f.ID, f.EnvironmentProfileIDs, f.AccountRefs, f.ArtifactRoot)
	}
	for _, p := range res.EnvironmentProfiles {
		fmt.Printf("%s %dx%d %s\n", p.ID, p.Viewport.Width, p.Viewport.Height, p.Locale)
	}
	// Output:
	// kanban-empty-board [desktop-1440-en-us tablet-820-de-de] [account://kanban/board-admin] artifacts/kanban/empty-board
	// kanban-sprint-board [desktop-1440-en-us tablet-820-de-de] [account://kanban/team-member] artifacts/kanban/sprint-board
	// desktop-1440-en-us 1440x900 en-US
	// tablet-820-de-de 820x1180 de-DE
}

// An unknown app is a coded error that names the allowed values.
func ExampleListFixtures_unknownApp() {
	_, err := automium.ListFixtures(context.Background(), automium.ListFixturesInput{AppID: "gmail"})
	var e *automium.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Field)
		fmt.Println(e.Allowed)
	}
	// Output:
	// invalid_app_id appId
	// [admin-console banking docs-portal helpdesk hr-onboarding kanban storefront]
}

func ExampleCompileJourney() {
	res, err := automium.CompileJourney(context.Background(), automium.CompileJourneyInput{
		ID:        "storefront-kettle",
		AppID:     "storefront",
		FixtureID: "storefront-guest-catalog",
		Goal:      "Find a kettle and add it to the cart",
		Steps: []automium.Step{
			{Intent: automium.IntentNavigate, Value: "/"},
			{Intent: automium.IntentFill, Target: &automium.Target{Role: automium.RoleSearchbox, Name: "Search products"}, Value: "kettle"},
			{Intent: automium.IntentPressKey, Value: "Enter"},
			{Intent: automium.IntentClick, Target: &automium.Target{Role: automium.RoleButton, Name: "Add to cart"}},
		},
		Assertions: []automium.Assertion{{Kind: automium.AssertTextVisible, Value: "Added to cart"}},
		Recovery:   automium.Recovery{MaxRetries: 1, Strategies: []automium.RecoveryStrategy{automium.RecoveryRetryStep}},
	})
	if err != nil {
		panic(err)
	}
	g := res.Journey
	fmt.Println(res.Valid, g.GraphVersion, g.IntentVocabularyVersion, "entry:", g.Entry)
	ids := make([]string, len(g.Nodes))
	for i, n := range g.Nodes {
		ids[i] = n.ID
	}
	fmt.Println(strings.Join(ids, " "))
	fmt.Println(len(g.Edges), "edges,", g.Digest[:19]+"…")
	// Output:
	// true journey-graph-v1 planner-intent-v1 entry: step-1
	// step-1 recover-1 step-2 recover-2 step-3 recover-3 step-4 recover-4 assert-1 pass fail
	// 18 edges, sha256:f95c3e928261…
}

// An invalid journey is not a Go error: the result lists every problem at once,
// each with its JSON path and a fix-it message.
func ExampleCompileJourney_invalid() {
	res, err := automium.CompileJourney(context.Background(), automium.CompileJourneyInput{
		ID:        "storefront-escape",
		AppID:     "storefront",
		FixtureID: "kanban-sprint-board",
		Goal:      "Leave the app",
		Steps: []automium.Step{
			{Intent: "navigate", Value: "https://example.com/"},
			{Intent: "execute_js", Value: "alert(1)"},
			{Intent: "upload_file", Target: &automium.Target{Role: "button", Name: "Attach"}, Value: "/etc/passwd"},
		},
		Assertions: []automium.Assertion{{Kind: "url_matches", Value: "/done"}},
		Recovery:   automium.Recovery{MaxRetries: 2, Strategies: []automium.RecoveryStrategy{"retry_step"}},
	})
	if err != nil {
		panic(err) // only a bound, such as more than MaxSteps steps, is an error
	}
	fmt.Println("valid:", res.Valid)
	for _, e := range res.Errors {
		fmt.Printf("%s %s: %s\n", e.Code, e.Field, e.Message)
	}
	// Output:
	// valid: false
	// fixture_app_mismatch fixtureId: fixture "kanban-sprint-board" belongs to app "kanban", not "storefront"; use a fixture of "storefront"
	// invalid_argument steps[0].value: "https://example.com/" is an absolute URL; journeys may only navigate within the fixture's app; use an app-relative route starting with a single /, such as /cart
	// unsupported_intent steps[1].intent: "execute_js" is not an intent of the planner-intent-v1 vocabulary; use one of the allowed values
	// unsupported_intent steps[2].intent: intent upload_file needs the file-upload capability, which app "storefront" lacks; use an intent the app supports
}

// The vocabulary says what each intent needs, so a planner or a prompt can list
// it without hard-coding the rules.
func ExampleVocabulary() {
	for _, in := range automium.Vocabulary() {
		switch in.Name {
		case "navigate", "click", "fill", "upload_file":
			line := fmt.Sprintf("%s: target %s, value %s", in.Name, in.Target, in.Value)
			if in.Capability != "" {
				line += ", needs " + string(in.Capability)
			}
			fmt.Println(line)
		}
	}
	fmt.Println(len(automium.Vocabulary()), "intents in", automium.IntentVocabularyVersion)
	// Output:
	// navigate: target forbidden, value required
	// click: target required, value forbidden
	// fill: target required, value required
	// upload_file: target required, value required, needs file-upload
	// 16 intents in planner-intent-v1
}

// Reference journeys are the comparison's workload and a starting point for new
// journeys; each one compiles.
func ExampleReferenceJourney() {
	j, ok := automium.ReferenceJourney("kanban-move-card-to-done")
	if !ok {
		panic("no such reference journey")
	}
	fmt.Println(j.AppID, j.FixtureID, len(j.Steps), "steps")
	intents := make([]string, len(j.Steps))
	for i, s := range j.Steps {
		intents[i] = string(s.Intent)
	}
	fmt.Println(strings.Join(intents, " → "))
	res, _ := automium.CompileJourney(context.Background(), j)
	fmt.Println("valid:", res.Valid)
	// Output:
	// kanban kanban-sprint-board 4 steps
	// navigate → wait_for → drag_drop → finish
	// valid: true
}

func ExampleSupportedCorpusVersions() {
	fmt.Println(automium.SupportedCorpusVersions())
	// Output:
	// [owned-corpus-2026.11]
}

// An input with several problems gets one error listing them all, in the order
// a reader meets the fields; the error's own code and field are the first's.
func ExampleError_problems() {
	_, err := automium.CreateRunSubmission(context.Background(), automium.CreateRunSubmissionInput{
		JourneyID:            "storefront-search-add-to-cart",
		AppID:                "no-such-app",
		FixtureID:            "storefront-guest-catalog",
		Planner:              automium.PlannerRef{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"},
		EnvironmentProfileID: "vr-headset",
	})
	var e *automium.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Field)
		for _, p := range e.Problems() {
			fmt.Println("-", p.Code, p.Field)
		}
	}
	// Output:
	// invalid_app_id appId
	// - invalid_app_id appId
	// - invalid_environment_profile environmentProfileId
}

// An adapter that finds problems of its own reports them the way the
// capabilities do: one error, every problem listed.
func ExampleJoin() {
	name := strings.Repeat("x", 1<<20) // whatever a client sent
	err := automium.Join(
		automium.NewProblem(automium.CodeInvalidArgument, automium.PathOf("appId"), nil, "%s is not an app ID", automium.ClientValue(name)),
		automium.NewProblem(automium.CodeLimitExceeded, automium.PathOf("steps"), nil, "has %d steps; the limit is %d", 201, 200),
	)
	var e *automium.Error
	errors.As(err, &e)
	fmt.Println(len(e.Problems()))
	fmt.Println(err)
	fmt.Println(automium.Join() == nil)
	// Output:
	// 2
	// automium: 2 problems: invalid_argument: appId: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… (1048576 bytes) is not an app ID; limit_exceeded: steps: has 201 steps; the limit is 200
	// true
}

// The closed sets are typed and sorted, so a switch or a UI can list them
// without hard-coding them.
func ExampleVerdicts() {
	fmt.Println(automium.Verdicts())
	// Output:
	// [error failed flaky passed skipped]
}

// A reference journey becomes a Playwright Test spec: one test.step per node,
// titled with the node ID, and the mapping that reads its report back.
func ExampleExportPlaywrightSpec() {
	spec, err := automium.ExportPlaywrightSpec(context.Background(), automium.ExportPlaywrightSpecInput{
		JourneyID: "storefront-search-add-to-cart",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(spec.FileName)
	for _, line := range strings.Split(spec.Spec, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "await test.step('") || strings.HasPrefix(line, "await page.") || strings.HasPrefix(line, "await expect(") {
			fmt.Println(line)
		}
	}
	fmt.Printf("journey from the %s %q, planner from the %s\n", spec.Mapping.Journey.From, spec.Mapping.Journey.Name, spec.Mapping.Planner.From)
	// Output:
	// storefront-search-add-to-cart.spec.ts
	// await test.step('step-1', async () => {
	// await page.goto('/');
	// await test.step('step-2', async () => {
	// await page.getByRole('searchbox', { name: 'Search products', exact: true }).fill('kettle');
	// await test.step('step-3', async () => {
	// await page.keyboard.press('Enter');
	// await test.step('step-4', async () => {
	// await page.getByRole('button', { name: 'Add to cart', exact: true }).click();
	// await test.step('assert-1', async () => {
	// await expect(page.locator('body')).toContainText('Added to cart', { useInnerText: true });
	// journey from the tag "journey", planner from the project
}

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

func TestFixtureOfApp(t *testing.T) {
	tests := []struct {
		name, app, fixture string
		wantCode           automium.Code
		wantField          string
	}{
		{"a fixture of the app", "storefront", "storefront-guest-catalog", "", ""},
		{"unknown app", "nope", "storefront-guest-catalog", automium.CodeInvalidAppID, "appId"},
		{"unknown fixture", "storefront", "nope", automium.CodeInvalidFixtureID, "fixtureId"},
		{"fixture of another app", "kanban", "storefront-guest-catalog", automium.CodeFixtureAppMismatch, "fixtureId"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := automium.FixtureOfApp(tt.app, tt.fixture)
			if tt.wantCode == "" {
				if err != nil || f.ID != tt.fixture || f.AppID != tt.app {
					t.Fatalf("FixtureOfApp = %+v, %v", f, err)
				}
				return
			}
			var e *automium.Error
			if !errors.As(err, &e) {
				t.Fatalf("FixtureOfApp error = %v, want *Error", err)
			}
			if diff := cmp.Diff([2]string{string(tt.wantCode), tt.wantField}, [2]string{string(e.Code), e.Field}); diff != "" {
				t.Errorf("code, field (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReferenceJourneyIDs(t *testing.T) {
	ids := automium.ReferenceJourneyIDs()
	if len(ids) == 0 || !slices.IsSorted(ids) {
		t.Fatalf("ReferenceJourneyIDs = %v, want a sorted, non-empty list", ids)
	}
	for _, id := range ids {
		if _, ok := automium.ReferenceJourney(id); !ok {
			t.Errorf("ReferenceJourney(%q) not found", id)
		}
	}
}

func TestRequiredReplayArtifactKinds(t *testing.T) {
	if diff := cmp.Diff([]automium.ArtifactKind{"replay_events", "report", "trace", "video"}, automium.RequiredReplayArtifactKinds(automium.VerdictPassed, 1)); diff != "" {
		t.Errorf("passed after a retry (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]automium.ArtifactKind{"report"}, automium.RequiredReplayArtifactKinds(automium.VerdictSkipped, 0)); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}
