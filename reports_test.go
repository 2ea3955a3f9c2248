package automium

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestSlugCollisionRefused: an ID that is a slug already is kept as it is,
// so a τ² task may be named what another task's ID becomes; the two tasks,
// at different trials, would silently count as one journey. The reader
// refuses the second, at its place.
func TestSlugCollisionRefused(t *testing.T) {
	other := "[mobile_data_issue]bad_vpn[PERSONA:Easy]"
	for _, tt := range []struct {
		name   string
		first  string
		second string
		refuse bool
	}{
		{"an ID and its slug", other, journeySlug(other), true},
		{"a slug and its ID", journeySlug(other), other, true},
		{"one ID twice", other, other, false},
		{"two IDs", other, "plain-task", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			report := `{"timestamp":"2025-06-01T10:00:00","info":{"agent_info":{"llm":"gpt-4.1"}},"tasks":[],"simulations":[` +
				tau2Sim(tt.first, 0) + `,` + tau2Sim(tt.second, 1) + `]}`
			got, err := ReadReports(context.Background(), tau2Mapping, ReportReader{Format: FormatTau2, R: strings.NewReader(report)})
			var e *Error
			switch {
			case tt.refuse && (!errors.As(err, &e) || e.Code != CodeInvalidArgument || e.Field != "reports[0].content.simulations[1]" || !strings.Contains(e.Message, "which becomes journey ID")):
				t.Errorf("err %v; want the second simulation refused as a second ID of one journey", err)
			case !tt.refuse && err != nil:
				t.Errorf("err %v; want 2 trials", err)
			case !tt.refuse && len(got.Trials) != 2:
				t.Errorf("%d trials; want 2", len(got.Trials))
			}
		})
	}
}

func tau2Sim(taskID string, trial int) string {
	return `{"id":"s` + string(rune('0'+trial)) + `","task_id":` + jsonString(taskID) + `,"trial":` + string(rune('0'+trial)) +
		`,"start_time":"2025-06-01T10:00:0` + string(rune('0'+trial)) + `","end_time":"2025-06-01T10:00:09","duration":1.5,"termination_reason":"agent_stop","reward_info":{"reward":1.0},"messages":[]}`
}

func jsonString(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// TestSameRunPartOfAnother: a run written as JSON in parts (as shards
// split a run; here the fixture without its first spec) and as one JUnit
// report of all of it would count every test of the part twice: the part
// holds only some of the JUnit report's tests, so matching whole sets of
// tests let it through. A report that shares tests with a report of the
// other reporter, begun then, is the same run, in either order.
func TestSameRunPartOfAnother(t *testing.T) {
	lines := strings.Split(string(realPlaywrightReport(t)), "\n")
	specs := slices.Index(lines, `      "specs": [`)
	end := specs + slices.Index(lines[specs:], `        },`)
	if specs < 0 || end <= specs {
		t.Fatal("the fixture's first spec not found")
	}
	part := strings.Join(append(slices.Clip(lines[:specs+1]), lines[end+1:]...), "\n")
	junit := string(realPlaywrightJUnit(t))
	pwR := func() ReportReader { return ReportReader{FormatPlaywrightJSON, strings.NewReader(part)} }
	juR := func() ReportReader { return ReportReader{FormatJUnit, strings.NewReader(junit)} }
	if got, err := ReadReports(context.Background(), byProjectAndAnnotation, pwR()); err != nil || len(got.Trials) == 0 {
		t.Fatalf("the part alone: %d trials, %v", len(got.Trials), err)
	}
	for _, tt := range []struct {
		name    string
		reports []ReportReader
	}{
		{"JUnit then the part", []ReportReader{juR(), pwR()}},
		{"the part then JUnit", []ReportReader{pwR(), juR()}},
	} {
		_, err := ReadReports(context.Background(), byProjectAndAnnotation, tt.reports...)
		var ae *Error
		if !errors.As(err, &ae) || ae.Field != "reports[1].content" || !strings.Contains(ae.Message, "same run") {
			t.Errorf("%s: %v; want the same run refused at reports[1].content", tt.name, err)
		}
	}
}

// TestSameRunMembersSorted: a JSON report whose members a tool sorted (jq
// -S: a suite's title after its specs and suites, a spec's after its tests)
// names its tests as the reporter's order does, so the JUnit report of the
// same run is still refused; before, its runs were unnamed and every test
// counted twice.
func TestSameRunMembersSorted(t *testing.T) {
	var doc any
	if err := json.Unmarshal(realPlaywrightReport(t), &doc); err != nil {
		t.Fatal(err)
	}
	sorted, err := json.Marshal(doc) // encoding/json writes map keys sorted
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Index(sorted, []byte(`"specs"`)) > bytes.Index(sorted, []byte(`"title"`)) {
		t.Fatal("the sorted report does not put a suite's specs before its title")
	}
	pw := func(b []byte) ReportReader { return ReportReader{FormatPlaywrightJSON, bytes.NewReader(b)} }
	ju := func() ReportReader { return ReportReader{FormatJUnit, bytes.NewReader(realPlaywrightJUnit(t))} }
	want, err := ReadReports(context.Background(), byProjectAndAnnotation, pw(realPlaywrightReport(t)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadReports(context.Background(), byProjectAndAnnotation, pw(sorted))
	if err != nil || len(got.Trials) != len(want.Trials) {
		t.Fatalf("the sorted report alone: %d trials, %v; want %d", len(got.Trials), err, len(want.Trials))
	}
	for _, order := range [][]ReportReader{{pw(sorted), ju()}, {ju(), pw(sorted)}} {
		_, err := ReadReports(context.Background(), byProjectAndAnnotation, order...)
		var ae *Error
		if !errors.As(err, &ae) || ae.Field != "reports[1].content" || !strings.Contains(ae.Message, "same run") {
			t.Errorf("%v; want the same run refused at reports[1].content", err)
		}
	}
}

// TestDetectReportFormatHeads: every format's real files are told apart by their
// first 4 KiB, through the table; anything else is no format.
func TestDetectReportFormatHeads(t *testing.T) {
	head := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data[:min(len(data), 4096)])
	}
	type answer struct {
		Format ReportFormat
		OK     bool
	}
	tests := []struct {
		name, head string
		want       answer
	}{
		{"playwright json", head("testdata/playwright/report.json"), answer{FormatPlaywrightJSON, true}},
		{"playwright junit", head("testdata/playwright/junit.xml"), answer{FormatJUnit, true}},
		{"inspect .eval", head("testdata/agent-evals/inspect/log_streaming.eval"), answer{FormatInspectAI, true}},
		{"inspect json", head("testdata/agent-evals/inspect/2025-05-12T20-28-13-04-00_popularity.json"), answer{FormatInspectAI, true}},
		{"tau2", head("testdata/agent-evals/tau2/gpt-4.1_telecom_default_gpt-4.1_1trials.subset-7tasks.json"), answer{FormatTau2, true}},
		{"bom and space", "\xef\xbb\xbf \n{\"config\": {}}", answer{FormatPlaywrightJSON, true}},
		{"escaped name", `{"\u0063onfig": {}}`, answer{FormatPlaywrightJSON, true}},
		{"unknown first member", `{"suitez": []}`, answer{}},
		{"array", `[{"config": {}}]`, answer{}},
		{"name cut by the head", `{"conf`, answer{}},
		{"empty", "", answer{}},
		{"text", "hello", answer{}},
		{"nul", "\x00\x00", answer{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := DetectReportFormat([]byte(tt.head))
			if diff := cmp.Diff(tt.want, answer{f, ok}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff([]ReportFormat{FormatJUnit, FormatPlaywrightJSON, FormatInspectAI, FormatTau2}, ReportFormats()); diff != "" {
		t.Errorf("ReportFormats (-want +got):\n%s", diff)
	}
}
