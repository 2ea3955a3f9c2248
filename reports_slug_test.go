package automium

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// TestSlugNeverMerges gives a τ² log two tasks whose journey IDs are one: a
// task ID that is a slug already and the slug another task ID becomes. The
// two are refused at the second, naming the first; the same task run twice
// stays one journey.
func TestSlugNeverMerges(t *testing.T) {
	sum := sha256.Sum256([]byte("Billing [Easy]"))
	twin := "billing-easy-" + hex.EncodeToString(sum[:6])
	sim := func(task string, trial, reward int) string {
		return fmt.Sprintf(`{"task_id":%q,"trial":%d,"reward_info":{"reward":%d}}`, task, trial, reward)
	}
	doc := func(sims ...string) string {
		return `{"info":{"agent_info":{"llm":"m"}},"simulations":[` + strings.Join(sims, ",") + `]}`
	}
	_, err := TrialsFromTau2Results(context.Background(), strings.NewReader(doc(sim("Billing [Easy]", 0, 1), sim(twin, 1, 0))), tau2Mapping)
	want := fmt.Sprintf(`report.simulations[1]: has journey %q, which becomes journey ID %q, as the different journey of report.simulations[0] does`, twin, twin)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("two tasks of one journey ID: %v\nwant it to say %s", err, want)
	}
	got, err := TrialsFromTau2Results(context.Background(), strings.NewReader(doc(sim("Billing [Easy]", 0, 1), sim("Billing [Easy]", 1, 0))), tau2Mapping)
	if err != nil || len(got.Trials) != 2 || got.Trials[0].JourneyID != twin || got.Trials[1].JourneyID != twin {
		t.Errorf("one task run twice: %v, %+v", err, got.Trials)
	}
}
