package automium

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

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
