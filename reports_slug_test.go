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

// TestNamedJourneyBySlug names, for its rows, a journey by the producer's ID
// the report knows by its slug: the problem gives the journey ID to name.
func TestNamedJourneyBySlug(t *testing.T) {
	var sims []string
	for _, model := range []string{"m1", "m2"} {
		var s []string
		for i := range 3 {
			s = append(s, fmt.Sprintf(`{"task_id":"[billing]Task %d","trial":0,"reward_info":{"reward":1}}`, i))
		}
		sims = append(sims, `{"info":{"agent_info":{"llm":"`+model+`"}},"simulations":[`+strings.Join(s, ",")+`]}`)
	}
	in := CompareReportsInput{CorpusVersion: CorpusVersion, Planners: []PlannerRef{{ID: "m1", Vendor: "v", Model: "m1"}, {ID: "m2", Vendor: "v", Model: "m2"}},
		Reports: []ReportContent{{Format: FormatTau2, Content: sims[0]}, {Format: FormatTau2, Content: sims[1]}}, Mapping: tau2Mapping,
		Journeys: []string{"[billing]Task 1"}}
	_, err := CompareReports(context.Background(), in)
	want := fmt.Sprintf(`journeys[0]: journey "[billing]Task 1" is in the report as journey ID %q; name it by that ID`, journeySlug("[billing]Task 1"))
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("%v\nwant it to say %s", err, want)
	}
	in.Journeys = []string{journeySlug("[billing]Task 1")}
	r, err := CompareReports(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if rows := r.Comparison.Planners[0].JourneyRows; len(rows) != 1 || rows[0].JourneyID != in.Journeys[0] {
		t.Errorf("the named journey's rows: %+v", rows)
	}
}
