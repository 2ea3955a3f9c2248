package automium_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/automium/automium"
)

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
