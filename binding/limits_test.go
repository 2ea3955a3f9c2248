package binding

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/automium/automium/canonicaljson"
)

// TestLimitsDocumented keeps docs/limits.md's binding rows equal to the
// constants.
func TestLimitsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{
		fmt.Sprintf("| `canonicaljson.MaxDepth`: nesting of arrays and objects | %d |", canonicaljson.MaxDepth),
		fmt.Sprintf("| `binding.MaxPlanCalls`: steps in one plan | %d |", MaxPlanCalls),
		fmt.Sprintf("| `binding.MaxStepCandidates`: candidate calls in one step | %d |", MaxStepCandidates),
		fmt.Sprintf("| `binding.MaxGrantLifetime`: longest grant `IssuePlan` makes, and longest `BrokerOptions.MaxLifetime` | %v |", MaxGrantLifetime),
		fmt.Sprintf("| `binding.DefaultMaxLifetime`: longest grant a broker accepts by default | %v |", DefaultMaxLifetime),
		fmt.Sprintf("| `binding.MinSealKeyBytes`: shortest seal key | %d bytes |", MinSealKeyBytes),
		fmt.Sprintf("| `binding.MaxSkew`: largest allowed issuer clock skew | %v |", MaxSkew),
		fmt.Sprintf("| Resolved input schemas cached by one broker | %d |", maxCachedSchemas),
	} {
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/limits.md lacks the row %q", row)
		}
	}
}
