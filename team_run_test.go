package automium

import (
	"bytes"
	"context"
	"errors"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// teamPlanners are the two builds of testdata/playwright/team's run.
var teamPlanners = []PlannerRef{{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"}, {ID: "candidate", Vendor: "anthropic", Model: "claude-sonnet-4"}}

// readFixture reads a committed fixture of testdata/playwright, or the fresh
// one CI names in env (run-team.sh writes them).
func readFixture(t *testing.T, name, env string) string {
	t.Helper()
	path := "testdata/playwright/" + name
	if p := os.Getenv(env); p != "" {
		path = p
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestTeamRunSameFlagsBothFormats holds issue 37's team run: one real
// Playwright run (testdata/playwright/run-team.sh) written by the JSON and the
// junit reporter, in which the candidate throws an Error in the search
// journey's body on every run (JUnit: <error>) and fails one step once before
// its retry passes. With the default mapping both formats flag the same
// journeys: search regressed (6 of 6 against 0 of 6, Fisher p 0.0022), the
// rest not regressed; and both keep the rescued trial's first error.
func TestTeamRunSameFlagsBothFormats(t *testing.T) {
	ctx := context.Background()
	flags := map[ReportFormat]map[string]JourneyFlag{}
	for _, f := range []struct {
		format    ReportFormat
		file, env string
	}{{FormatPlaywrightJSON, "team-report.json", "AUTOMIUM_PLAYWRIGHT_TEAM_REPORT"}, {FormatJUnit, "team-junit.xml", "AUTOMIUM_PLAYWRIGHT_TEAM_JUNIT"}} {
		got, err := CompareReports(ctx, CompareReportsInput{CorpusVersion: CorpusVersion, Planners: teamPlanners,
			Reports: []ReportContent{{Format: f.format, Content: readFixture(t, f.file, f.env)}}, Mapping: byProjectAndAnnotation})
		if err != nil {
			t.Fatalf("%s: %v", f.format, err)
		}
		if im := got.Import; im.TrialCount != 36 || im.NotEvaluable != 0 || im.Flaky != 1 {
			t.Errorf("%s: import %+v; want 36 trials, none not evaluable, one flaky", f.format, im)
		}
		rescued := 0
		for _, tr := range got.Import.Triage {
			if tr.Rescued {
				rescued++
				if tr.JourneyID != "storefront-remove-cart-item" || !strings.Contains(tr.Error, "expect(received).toBe(expected)") {
					t.Errorf("%s: rescued triage %+v; want the cart journey's first-attempt expect error", f.format, tr)
				}
			}
		}
		if rescued != 1 {
			t.Errorf("%s: %d rescued trials in triage; want 1", f.format, rescued)
		}
		if len(got.Comparison.Pairs) != 1 {
			t.Fatalf("%s: %d pairs", f.format, len(got.Comparison.Pairs))
		}
		flags[f.format] = map[string]JourneyFlag{}
		for _, row := range got.Comparison.Pairs[0].Journeys {
			flags[f.format][row.JourneyID] = row.Flag
			if row.JourneyID == "storefront-search-add-to-cart" && (row.Flag != FlagRegressed || row.APasses != 6 || row.BPasses != 0 || row.FisherP > 0.0023) {
				t.Errorf("%s: search row %+v; want regressed, 6 of 6 against 0 of 6", f.format, row)
			}
		}
	}
	if diff := cmp.Diff(flags[FormatPlaywrightJSON], flags[FormatJUnit]); diff != "" {
		t.Errorf("flags (-json +junit):\n%s", diff)
	}
}

// TestSameRunBothFormats: one run written by both of Playwright's reporters
// and passed in one call is refused, in either order, naming both reports; a
// run's identity is its tests (file, title, project, repeat) and when it
// began, not its format. A JUnit report of other tests begun at the same
// moment (another shard) counts, and so does the same JUnit with its
// timestamps moved a year (another run).
func TestSameRunBothFormats(t *testing.T) {
	ctx := context.Background()
	js := readFixture(t, "team-report.json", "AUTOMIUM_PLAYWRIGHT_TEAM_REPORT")
	ju := readFixture(t, "team-junit.xml", "AUTOMIUM_PLAYWRIGHT_TEAM_JUNIT")
	jsonR := func() ReportReader { return ReportReader{FormatPlaywrightJSON, strings.NewReader(js)} }
	junitR := func(doc string) ReportReader { return ReportReader{FormatJUnit, strings.NewReader(doc)} }
	for _, order := range []struct {
		name    string
		reports []ReportReader
	}{
		{"JSON then JUnit", []ReportReader{jsonR(), junitR(ju)}},
		{"JUnit then JSON", []ReportReader{junitR(ju), jsonR()}},
	} {
		_, err := ReadReports(ctx, byProjectAndAnnotation, order.reports...)
		var ae *Error
		if !errors.As(err, &ae) || ae.Code != CodeInvalidArgument || ae.Field != "reports[1].content" || !strings.Contains(ae.Message, "reports[0].content") || !strings.Contains(ae.Message, "same run") {
			t.Errorf("%s: %v; want the same run refused at reports[1].content naming reports[0].content", order.name, err)
		}
	}
	// The first fixture's run (skipped tests, retries) likewise.
	_, err := ReadReports(ctx, byProjectAndAnnotation, ReportReader{FormatPlaywrightJSON, bytes.NewReader(realPlaywrightReport(t))}, ReportReader{FormatJUnit, bytes.NewReader(realPlaywrightJUnit(t))})
	if err == nil || !strings.Contains(err.Error(), "same run") {
		t.Errorf("testdata/playwright's report.json and junit.xml: %v; want the same run refused", err)
	}
	// Another shard begun at the same moment: other tests (another file).
	other := strings.ReplaceAll(ju, `classname="journeys.spec.js"`, `classname="other.spec.js"`)
	if got, err := ReadReports(ctx, byProjectAndAnnotation, jsonR(), junitR(other)); err != nil || len(got.Trials) != 72 {
		t.Errorf("JSON and the JUnit of other tests begun then: %d trials, %v; want 72", len(got.Trials), err)
	}
	// The same JUnit a year later: another run.
	stamp := regexp.MustCompile(`timestamp="\d{4}`)
	later := stamp.ReplaceAllStringFunc(ju, func(m string) string {
		y, _ := strconv.Atoi(m[len(m)-4:])
		return m[:len(m)-4] + strconv.Itoa(y+1)
	})
	if later == ju {
		t.Fatal("no timestamp moved")
	}
	got, err := ReadReports(ctx, byProjectAndAnnotation, jsonR(), junitR(later))
	if err != nil || len(got.Trials) != 72 {
		t.Errorf("JSON and the JUnit of a run a year later: %d trials, %v; want 72", len(got.Trials), err)
	}
}
