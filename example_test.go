package automium_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/automium/automium"
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
