package automium_test

import (
	"context"
	"errors"
	"fmt"

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
		for _, p := range e.Problems {
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
	err := automium.Join(
		&automium.Error{Code: automium.CodeInvalidArgument, Field: "appId", Message: "appId is required"},
		&automium.Error{Code: automium.CodeLimitExceeded, Field: "steps", Message: "at most 200 steps"},
	)
	fmt.Println(len(err.Problems))
	fmt.Println(err)
	fmt.Println(automium.Join() == nil)
	// Output:
	// 2
	// automium: 2 problems: invalid_argument: appId: appId is required; limit_exceeded: steps: at most 200 steps
	// true
}

// A program on either side of the planner-adapter-v1 contract checks a
// decision the same way, and learns every problem at once.
func ExamplePlannerDecision_Validate() {
	err := automium.PlannerDecision{Intent: "click", Value: "Add to cart"}.Validate()
	fmt.Println(err)

	err = automium.PlannerDecision{Intent: "click", Target: &automium.Target{Role: "button", Name: "Add to cart"}}.Validate()
	fmt.Println(err)
	// Output:
	// automium: 2 problems: invalid_argument: target: intent click needs a target; invalid_argument: value: intent click takes no value; remove it
	// <nil>
}

// The closed sets are typed and sorted, so a switch or a UI can list them
// without hard-coding them.
func ExampleVerdicts() {
	fmt.Println(automium.Verdicts())
	fmt.Println(automium.Lanes())
	// Output:
	// [error failed flaky passed skipped]
	// [artifact assertion executor planner runtime worker]
}
