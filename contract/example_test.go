package contract_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/automium/automium"
	"github.com/automium/automium/contract"
)

func ExampleGet() {
	doc, err := contract.Get(context.Background(), contract.GetInput{Name: "replay-event-v1"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(doc.Name, doc.Types[0].Name)
	var schema struct {
		Properties struct {
			Lane struct {
				Enum []string `json:"enum"`
			} `json:"lane"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(doc.Types[0].Schema, &schema); err != nil {
		log.Fatal(err)
	}
	fmt.Println(schema.Properties.Lane.Enum)
	// Output:
	// replay-event-v1 ReplayEvent
	// [artifact assertion executor planner runtime worker]
}

func ExampleNames() {
	fmt.Println(contract.Names())
	// Output:
	// [planner-adapter-v1 replay-event-v1 semantic-snapshot-v1]
}

// A program on either side of the planner-adapter-v1 contract checks a
// decision the same way, and learns every problem at once.
func ExamplePlannerDecision_Validate() {
	err := contract.PlannerDecision{Intent: "click", Value: "Add to cart"}.Validate()
	fmt.Println(err)

	err = contract.PlannerDecision{Intent: "click", Target: &automium.Target{Role: "button", Name: "Add to cart"}}.Validate()
	fmt.Println(err)
	// Output:
	// automium: 2 problems: invalid_argument: target: intent click needs a target; invalid_argument: value: intent click takes no value; remove it
	// <nil>
}

// The closed sets are typed and sorted, so a switch or a UI can list them
// without hard-coding them.
func ExampleLanes() {
	fmt.Println(contract.Lanes())
	fmt.Println(contract.EventTypes()[:3])
	// Output:
	// [artifact assertion executor planner runtime worker]
	// [artifact.recorded assertion.checked executor.action]
}
