package automium

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var byHostAndProperty = ReportMapping{
	Planner: ReportSource{From: FromProject},
	Journey: ReportSource{From: FromAnnotation, Name: "journey"},
}

// junitCase is a testcase of planner host running the search journey, with
// the given children.
func junitCase(host, attrs, children string) string {
	return `<testsuite name="s" hostname="` + host + `"><testcase name="t" classname="c"` + attrs + `><properties><property name="journey" value="storefront-search-add-to-cart"/></properties>` + children + `</testcase></testsuite>`
}

// TestJUnitOutcomes: each JUnit construct maps to the trial fields the
// documentation gives it.
func TestJUnitOutcomes(t *testing.T) {
	type got struct {
		Passed, NotEvaluable, LatencyUnknown, TokensUnknown bool
		Attempts, LatencyMs, InputTokens                    int
		Error                                               string
		Attachments                                         int
	}
	tests := []struct {
		name, report string
		mapping      *ReportMapping
		want         got
	}{
		{"passed", junitCase("baseline", ` time="1.5"`, ``), nil, got{Passed: true, TokensUnknown: true, Attempts: 1, LatencyMs: 1500}},
		{"no time", junitCase("baseline", ``, ``), nil, got{Passed: true, LatencyUnknown: true, TokensUnknown: true, Attempts: 1}},
		{"failure", junitCase("baseline", ` time="2"`, `<failure message="expected 1 to be 2">stack</failure>`), nil,
			got{TokensUnknown: true, Attempts: 1, LatencyMs: 2000, Error: "expected 1 to be 2"}},
		{"error is a failure", junitCase("baseline", ` time="2"`, `<error message="Error: order history did not load" type="Error"/>`), nil,
			got{TokensUnknown: true, Attempts: 1, LatencyMs: 2000, Error: "Error: order history did not load"}},
		{"error not evaluable on request", junitCase("baseline", ` time="2"`, `<error message="worker crashed"/>`),
			&ReportMapping{Planner: byHostAndProperty.Planner, Journey: byHostAndProperty.Journey, NotEvaluable: []Outcome{OutcomeError}},
			got{NotEvaluable: true, TokensUnknown: true, Attempts: 1, LatencyMs: 2000, Error: "worker crashed"}},
		{"timeout stays a failure", junitCase("baseline", ` time="30"`, `<failure message="Failed: Timeout &gt;30.0s"/>`), nil,
			got{TokensUnknown: true, Attempts: 1, LatencyMs: 30000, Error: "Failed: Timeout >30.0s"}},
		{"timeout not evaluable on request", junitCase("baseline", ` time="30"`, `<failure message="Failed: Timeout &gt;30.0s"/>`),
			&ReportMapping{Planner: byHostAndProperty.Planner, Journey: byHostAndProperty.Journey, NotEvaluable: []Outcome{OutcomeTimedOut}},
			got{NotEvaluable: true, TokensUnknown: true, Attempts: 1, LatencyMs: 30000, Error: "Failed: Timeout >30.0s"}},
		{"flaky: passed on a rerun", junitCase("baseline", ` time="1"`, `<flakyFailure message="first try" time="0.5"><stackTrace>x</stackTrace></flakyFailure>`), nil,
			got{Passed: true, TokensUnknown: true, Attempts: 2, LatencyMs: 1500, Error: "first try"}},
		{"failed on every rerun", junitCase("baseline", ` time="1"`, `<failure message="a"/><rerunFailure message="b"/><rerunError message="c"/>`), nil,
			got{TokensUnknown: true, Attempts: 3, LatencyMs: 1000, Error: "a"}},
		{"tokens from properties", junitCase("baseline", ` time="1"`, `<properties><property name="automium.inputTokens" value="1200"/><property name="automium.outputTokens">80</property></properties>`), nil,
			got{Passed: true, Attempts: 1, LatencyMs: 1000, InputTokens: 1200}},
		{"attachments in system-out", junitCase("baseline", ` time="1"`, `<failure message="m"/><system-out>[[ATTACHMENT|trace.zip]]
[[ATTACHMENT|shot.png]]</system-out>`), nil,
			got{TokensUnknown: true, Attempts: 1, LatencyMs: 1000, Error: "m", Attachments: 2}},
		{"attachment markers split by CDATA and a comment", junitCase("baseline", ` time="1"`, `<failure message="m"/><system-out>[[ATTACH<![CDATA[MENT|trace]]>.zip]<!-- a comment -->]
[<!---->[ATTACHMENT|  shot.png ]]<![CDATA[[[ATTACHMENT|video.webm]]]]></system-out>`), nil,
			got{TokensUnknown: true, Attempts: 1, LatencyMs: 1000, Error: "m", Attachments: 3}},
		{"error text when no message", junitCase("baseline", ``, `<failure>AssertionError: no
second line</failure>`), nil, got{LatencyUnknown: true, TokensUnknown: true, Attempts: 1, Error: "AssertionError: no"}},
		{"suite property inherited", `<testsuites><testsuite name="s" hostname="baseline"><properties><property name="journey" value="storefront-search-add-to-cart"/></properties><testcase name="t" time="1"/></testsuite></testsuites>`, nil,
			got{Passed: true, TokensUnknown: true, Attempts: 1, LatencyMs: 1000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := byHostAndProperty
			if tt.mapping != nil {
				m = *tt.mapping
			}
			out, err := TrialsFromJUnitReport(context.Background(), strings.NewReader(tt.report), m)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Trials) != 1 {
				t.Fatalf("%d trials; want 1", len(out.Trials))
			}
			tr := out.Trials[0]
			g := got{Passed: tr.Passed, NotEvaluable: tr.NotEvaluable, LatencyUnknown: tr.LatencyUnknown, TokensUnknown: tr.TokensUnknown,
				Attempts: tr.Attempts, LatencyMs: tr.LatencyMs, InputTokens: tr.InputTokens}
			if len(out.Triage) == 1 {
				g.Error, g.Attachments = out.Triage[0].Error, len(out.Triage[0].Attachments)
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("trial (-want +got):\n%s", diff)
			}
		})
	}
}

// TestJUnitBadReports: malformed, hostile or unplaceable JUnit gets a coded
// error at its place, and nothing a DTD could name is ever read.
func TestJUnitBadReports(t *testing.T) {
	ok := junitCase("baseline", ` time="1"`, ``)
	tests := []struct {
		name, report string
		want         errShape
	}{
		{"not XML", `testsuites`, errShape{CodeInvalidArgument, "report"}},
		{"empty", ``, errShape{CodeInvalidArgument, "report"}},
		{"external entity", `<?xml version="1.0"?><!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><testsuite>&x;</testsuite>`, errShape{CodeInvalidArgument, "report"}},
		{"billion laughs", `<!DOCTYPE l [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><testsuite>&b;</testsuite>`, errShape{CodeInvalidArgument, "report"}},
		{"undefined entity", `<testsuite name="&x;"></testsuite>`, errShape{CodeInvalidArgument, "report"}},
		{"another encoding", `<?xml version="1.0" encoding="ISO-8859-1"?><testsuite/>`, errShape{CodeInvalidArgument, "report"}},
		{"mismatched tags", `<testsuite><testcase></testsuite>`, errShape{CodeInvalidArgument, "report.testsuite.testcase[0]"}},
		{"truncated", ok[:60], errShape{CodeInvalidArgument, "report.testsuite"}},
		{"wrong root", `<html/>`, errShape{CodeInvalidArgument, "report"}},
		{"two roots", ok + ok, errShape{CodeInvalidArgument, "report"}},
		{"duplicate attribute", `<testsuite name="a" name="b"/>`, errShape{CodeInvalidArgument, "report"}},
		{"nested too deep", strings.Repeat(`<testsuite>`, limit.MaxDocumentDepth+1), errShape{CodeLimitExceeded, "report.testsuite" + strings.Repeat(".testsuite[0]", (maxPointerSteps-2)/2)}},
		{"text too long", `<testsuite><system-out>` + strings.Repeat("x", limit.MaxDocumentTokenBytes+1) + `</system-out></testsuite>`, errShape{CodeLimitExceeded, "report.testsuite.system-out[0]"}},
		{"start tag too long", `<testsuite ` + strings.Repeat(`a='' `, limit.MaxXMLStartTagBytes/5+1) + `/>`, errShape{CodeLimitExceeded, "report"}},
		{"bad time", strings.Replace(ok, `time="1"`, `time="soon"`, 1), errShape{CodeInvalidArgument, "report.testsuite.testcase[0]"}},
		{"UTF-16 LE", "\xff\xfe<\x00t\x00e\x00s\x00t\x00", errShape{CodeInvalidArgument, "report"}},
		{"UTF-16 BE", "\xfe\xff\x00<\x00t", errShape{CodeInvalidArgument, "report"}},
		{"byte order mark twice", "\xef\xbb\xbf\xef\xbb\xbf" + ok, errShape{CodeInvalidArgument, "report"}},
		{"time NaN", strings.Replace(ok, `time="1"`, `time="NaN"`, 1), errShape{CodeInvalidArgument, "report.testsuite.testcase[0]"}},
		{"time -NaN", strings.Replace(ok, `time="1"`, `time=" -nan "`, 1), errShape{CodeInvalidArgument, "report.testsuite.testcase[0]"}},
		{"time +Inf", strings.Replace(ok, `time="1"`, `time="+Inf"`, 1), errShape{CodeInvalidArgument, "report.testsuite.testcase[0]"}},
		{"time -Infinity", strings.Replace(ok, `time="1"`, `time="-Infinity"`, 1), errShape{CodeInvalidArgument, "report.testsuite.testcase[0]"}},
		{"time 1e999", strings.Replace(ok, `time="1"`, `time="1e999"`, 1), errShape{CodeInvalidArgument, "report.testsuite.testcase[0]"}},
		{"time in hexadecimal", strings.Replace(ok, `time="1"`, `time="0x1p4"`, 1), errShape{CodeInvalidArgument, "report.testsuite.testcase[0]"}},
		{"time with underscores", strings.Replace(ok, `time="1"`, `time="0x4_1p0"`, 1), errShape{CodeInvalidArgument, "report.testsuite.testcase[0]"}},
		{"no planner", strings.Replace(ok, `hostname="baseline"`, ``, 1), errShape{CodeInvalidArgument, "report.testsuite.testcase[0]"}},
		{"one token figure", junitCase("baseline", ``, `<properties><property name="automium.inputTokens" value="3"/></properties>`), errShape{CodeInvalidArgument, "report.testsuite.testcase[0]"}},
		{"a token figure that is no count", junitCase("baseline", ``, `<properties><property name="automium.inputTokens" value="-3"/><property name="automium.outputTokens" value="1"/></properties>`),
			errShape{CodeInvalidArgument, "report.testsuite.testcase[0].properties[1].property[0]"}},
		{"only skipped", junitCase("baseline", ``, `<skipped/>`), errShape{CodeInvalidArgument, "report"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := TrialsFromJUnitReport(context.Background(), strings.NewReader(tt.report), byHostAndProperty)
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v; want *Error", err)
			}
			if diff := cmp.Diff(tt.want, errShape{ae.Code, ae.Field}); diff != "" {
				t.Errorf("error (-want +got):\n%s\nmessage: %s", diff, ae.Message)
			}
			if len(ae.Message) > 600 || len(ae.Field) > 600 {
				t.Errorf("unbounded error: field %d bytes, message %d bytes", len(ae.Field), len(ae.Message))
			}
		})
	}
	// A tag mapping is refused for JUnit, which records no tags.
	if _, err := TrialsFromJUnitReport(context.Background(), strings.NewReader(ok), byProjectAndTag); err == nil {
		t.Error("a tag mapping over JUnit: no error")
	}
}

// TestShardsMerge: shards of one run, mixed formats, merge with
// repetitions counting on; the same shard twice, or the same repetition twice
// when the mapping reads it, is refused with both places named.
func TestShardsMerge(t *testing.T) {
	ctx := context.Background()
	pw := string(realPlaywrightReport(t))
	ju := `<testsuites>` + strings.Replace(junitCase("baseline", ` time="1"`, ``), `name="s"`, `name="s" timestamp="2026-12-01T20:00:00"`, 1) + `</testsuites>`
	out, err := ReadReports(ctx, byProjectAndAnnotation, ReportReader{FormatPlaywrightJSON, strings.NewReader(pw)}, ReportReader{FormatJUnit, strings.NewReader(ju)})
	if err != nil {
		t.Fatal(err)
	}
	last := out.Trials[len(out.Trials)-1]
	if len(out.Trials) != 16 || last.PlannerID != "baseline" || last.Repetition != 4 || out.Sources[15] != "reports[1].content.testsuites.testsuite[0].testcase[0]" {
		t.Errorf("%d trials, last %+v at %s; want 16, the JUnit one baseline's fourth search run", len(out.Trials), last, out.Sources[len(out.Sources)-1])
	}

	_, err = ReadReports(ctx, byProjectAndAnnotation, ReportReader{FormatPlaywrightJSON, strings.NewReader(pw)}, ReportReader{FormatPlaywrightJSON, strings.NewReader(pw)})
	var ae *Error
	if !errors.As(err, &ae) || ae.Field != "reports[1].content.suites[0].specs[0].tests[0]" || !strings.Contains(ae.Message, "reports[0].content.suites[0].specs[0].tests[0]") {
		t.Errorf("the same shard twice: %v; want an error at reports[1] naming reports[0]", err)
	}

	_, err = ReadReports(ctx, byHostAndProperty, ReportReader{FormatJUnit, strings.NewReader(ju)}, ReportReader{FormatJUnit, strings.NewReader(ju)})
	if !errors.As(err, &ae) || ae.Field != "reports[1].content.testsuites.testsuite[0].testcase[0]" || !strings.Contains(ae.Message, "reports[0].content.testsuites.testsuite[0].testcase[0]") {
		t.Errorf("the same JUnit shard twice: %v; want an error at reports[1] naming reports[0]", err)
	}

	rep := ReportMapping{Planner: byHostAndProperty.Planner, Journey: byHostAndProperty.Journey, Repetition: &ReportSource{From: FromAnnotation, Name: "repetition"}}
	shard := func(n string) string {
		return junitCase("baseline", ` time="1"`, `<properties><property name="repetition" value="`+n+`"/></properties>`)
	}
	if _, err := ReadReports(ctx, rep, ReportReader{FormatJUnit, strings.NewReader(shard("1"))}, ReportReader{FormatJUnit, strings.NewReader(shard("2"))}); err != nil {
		t.Errorf("repetitions 1 and 2: %v", err)
	}
	_, err = ReadReports(ctx, rep, ReportReader{FormatJUnit, strings.NewReader(shard("1"))}, ReportReader{FormatJUnit, strings.NewReader(`<testsuites>` + shard("1") + `</testsuites>`)})
	if !errors.As(err, &ae) || ae.Field != "reports[1].content.testsuites.testsuite[0].testcase[0]" || !strings.Contains(ae.Message, "reports[0].content.testsuite.testcase[0]") {
		t.Errorf("repetition 1 twice: %v; want an error at reports[1] naming reports[0]", err)
	}
	// One repetition spelled twice (1, 01) is one repetition, refused at
	// the place in the input the caller sent, not at a trial it never wrote.
	_, err = CompareReports(ctx, CompareReportsInput{CorpusVersion: CorpusVersion, Planners: pwPlanners[:1], Mapping: rep,
		Reports: []ReportContent{{Format: FormatJUnit, Content: shard("1")}, {Format: FormatJUnit, Content: `<testsuites>` + shard("01") + `</testsuites>`}}})
	if !errors.As(err, &ae) || ae.Field != "reports[1].content.testsuites.testsuite[0].testcase[0]" || !strings.Contains(ae.Message, "reports[0].content.testsuite.testcase[0]") {
		t.Errorf("repetitions 1 and 01: %v; want an error at reports[1] naming reports[0]", err)
	}
}

// realPlaywrightJUnit is the junit reporter's output of the same run as
// realPlaywrightReport (testdata/playwright/run.sh writes both, with
// includeRetries); CI points AUTOMIUM_PLAYWRIGHT_JUNIT at a fresh one.
func realPlaywrightJUnit(t testing.TB) []byte {
	t.Helper()
	path := "testdata/playwright/junit.xml"
	if p := os.Getenv("AUTOMIUM_PLAYWRIGHT_JUNIT"); p != "" {
		path = p
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestPlaywrightJSONAndJUnitAgree: one Playwright run, written by the JSON
// and the junit reporter at once, gives the same trials (in another order:
// JUnit groups by project) and byte-identical comparisons.
func TestPlaywrightJSONAndJUnitAgree(t *testing.T) {
	ctx := context.Background()
	js, ju := string(realPlaywrightReport(t)), string(realPlaywrightJUnit(t))
	fromJSON, err := TrialsFromPlaywrightReport(ctx, strings.NewReader(js), byProjectAndAnnotation)
	if err != nil {
		t.Fatal(err)
	}
	fromJUnit, err := TrialsFromJUnitReport(ctx, strings.NewReader(ju), byProjectAndAnnotation)
	if err != nil {
		t.Fatal(err)
	}
	byKey := cmpopts.SortSlices(func(a, b Trial) bool {
		return a.PlannerID+"\x00"+a.JourneyID+"\x00"+strconv.Itoa(a.Repetition) < b.PlannerID+"\x00"+b.JourneyID+"\x00"+strconv.Itoa(b.Repetition)
	})
	if diff := cmp.Diff(fromJSON.Trials, fromJUnit.Trials, byKey); diff != "" {
		t.Errorf("trials (-json +junit):\n%s", diff)
	}
	counts := func(r ImportedTrials) [5]int { return [5]int{r.Tests, r.Skipped, r.Flaky, r.Retried, r.NotEvaluable} }
	if counts(fromJSON) != counts(fromJUnit) {
		t.Errorf("counts: json %v, junit %v", counts(fromJSON), counts(fromJUnit))
	}
	compare := func(format ReportFormat, content string) []byte {
		got, err := CompareReports(ctx, CompareReportsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: pwPlanners,
			Reports: []ReportContent{{Format: format, Content: content}}, Mapping: byProjectAndAnnotation})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(got.Comparison)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := compare(FormatPlaywrightJSON, js), compare(FormatJUnit, ju); !bytes.Equal(a, b) {
		t.Errorf("comparisons differ:\njson  %s\njunit %s", a, b)
	}
}

// TestRealJUnitReports holds the reader to real producers, run afresh in CI
// by testdata/junit/run.sh into $AUTOMIUM_JUNIT_DIR: pytest's --junitxml of
// test_journeys.py must give the trials its tests fix, and go-junit-report's
// reports of Go standard-library tests (another project's public test suite)
// must parse to the totals their own header states. Without the directory
// (no pytest or network here) there is nothing to read.
func TestRealJUnitReports(t *testing.T) {
	dir := os.Getenv("AUTOMIUM_JUNIT_DIR")
	if dir == "" {
		t.Skip("AUTOMIUM_JUNIT_DIR is not set; .ci/run sets it to testdata/junit/run.sh's output")
	}
	ctx := context.Background()
	files, err := filepath.Glob(filepath.Join(dir, "*.xml"))
	if err != nil || len(files) < 3 {
		t.Fatalf("%d reports in %s (%v); want pytest's and two of go-junit-report's", len(files), dir, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b := newTrialBuilder(ReportMapping{})
		b.count = &junitTotals{}
		if err := b.read(ctx, bytes.NewReader(data), FormatJUnit, reportRoot); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if want := headerTotals(t, data); *b.count != want || want.Tests == 0 {
			t.Errorf("%s: read %+v; its header says %+v", filepath.Base(f), *b.count, want)
		}
	}

	// pytest: 6 tests; baseline fails remove, challenger errors in remove's
	// fixture and skips the checkout. The fixture's <error> is a failure by
	// default (no mapping hides a regression) and not evaluable on request.
	data, err := os.ReadFile(filepath.Join(dir, "pytest.xml"))
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		Planner, Journey     string
		Passed, NotEvaluable bool
		Tokens               int
	}
	tests := []struct {
		name         string
		notEvaluable []Outcome
		errored      outcome
		wantNotEval  int
	}{
		{"default", nil, outcome{"challenger", "storefront-remove-cart-item", false, false, 0}, 0},
		{"error on request", []Outcome{OutcomeError}, outcome{"challenger", "storefront-remove-cart-item", false, true, 0}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := ReportMapping{
				Planner:      ReportSource{From: FromAnnotation, Name: "planner"},
				Journey:      ReportSource{From: FromAnnotation, Name: "journey"},
				NotEvaluable: tc.notEvaluable,
			}
			got, err := TrialsFromJUnitReport(ctx, bytes.NewReader(data), m)
			if err != nil {
				t.Fatal(err)
			}
			var outcomes []outcome
			for _, tr := range got.Trials {
				outcomes = append(outcomes, outcome{tr.PlannerID, tr.JourneyID, tr.Passed, tr.NotEvaluable, tr.InputTokens + tr.OutputTokens})
				// Only the test whose fixture errored, before the test body
				// recorded its tokens, has them unknown.
				fixtureErrored := tr.PlannerID == "challenger" && tr.JourneyID == "storefront-remove-cart-item"
				if tr.LatencyUnknown || tr.TokensUnknown != fixtureErrored || tr.Attempts != 1 {
					t.Errorf("trial %+v: want a latency, one attempt, and tokens unless its fixture errored before the test recorded them", tr)
				}
			}
			want := []outcome{
				{"baseline", "storefront-search-add-to-cart", true, false, 1050},
				{"baseline", "storefront-remove-cart-item", false, false, 1050},
				{"baseline", "storefront-checkout-saved-address", true, false, 1050},
				{"challenger", "storefront-search-add-to-cart", true, false, 1050},
				tc.errored,
			}
			if diff := cmp.Diff(want, outcomes); diff != "" {
				t.Errorf("pytest trials (-want +got):\n%s", diff)
			}
			if got.Skipped != 1 || got.NotEvaluable != tc.wantNotEval {
				t.Errorf("skipped %d, not evaluable %d; want 1 and %d", got.Skipped, got.NotEvaluable, tc.wantNotEval)
			}
		})
	}
}

// headerTotals are the totals a JUnit report's producer wrote in its root
// element, or, where the root has none, summed over its testsuites. It reads
// the producer's own figures, not the reader's, to check the reader against.
func headerTotals(t *testing.T, data []byte) junitTotals {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var sum junitTotals
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return sum
		}
		switch e := tok.(type) {
		case xml.StartElement:
			depth++
			n := func(name string) int {
				for _, a := range e.Attr {
					if a.Name.Local == name {
						v, _ := strconv.Atoi(a.Value)
						return v
					}
				}
				return 0
			}
			h := junitTotals{n("tests"), n("failures"), n("errors"), n("skipped")}
			if depth == 1 && h.Tests > 0 {
				return h
			}
			if depth == 2 && e.Name.Local == "testsuite" {
				sum.Tests, sum.Failures, sum.Errors, sum.Skipped = sum.Tests+h.Tests, sum.Failures+h.Failures, sum.Errors+h.Errors, sum.Skipped+h.Skipped
			}
		case xml.EndElement:
			depth--
		}
	}
}

// BenchmarkReadReports reads the largest import of each format the MCP
// message limit allows: as many tests as fit in 8 MiB, each a distinct
// journey of the benchmark app (the 100-repetition bound is per journey), in
// the reporter's own shape; for JUnit, Playwright's junit reporter's, with a
// property per testcase and a rerun. docs/performance.md quotes the figures.
func BenchmarkReadReports(b *testing.B) {
	m := byProjectAndAnnotation
	m.AppID, m.FixtureID = cmpApp, cmpFixture
	var pw, ju strings.Builder
	pw.WriteString(`{"suites":[{"title":"journeys.spec.js","specs":[`)
	for i := 0; pw.Len() < limit.MaxPlaywrightReportBytes-1024 && i < limit.MaxObservedTrials; i++ {
		if i > 0 {
			pw.WriteByte(',')
		}
		fmt.Fprintf(&pw, `{"title":"journey %d","tags":[],"tests":[{"timeout":30000,"annotations":[{"type":"journey","description":"journey-%05d"}],"expectedStatus":"passed","projectId":"baseline","projectName":"baseline","status":"flaky","results":[{"workerIndex":0,"status":"failed","duration":1200,"retry":0,"startTime":"2026-12-01T20:00:00.000Z","errors":[{"message":"expect(received).toBe(expected)"}],"stdout":[],"stderr":[],"attachments":[]},{"workerIndex":0,"status":"passed","duration":900,"retry":1,"errors":[],"stdout":[],"stderr":[],"attachments":[]}]}]}`, i, i)
	}
	pw.WriteString(`]}]}`)
	ju.WriteString(`<testsuites><testsuite name="journeys.spec.js" timestamp="2026-12-01T20:00:00.000Z" hostname="baseline">`)
	for i := 0; ju.Len() < limit.MaxPlaywrightReportBytes-1024 && i < limit.MaxObservedTrials; i++ {
		fmt.Fprintf(&ju, "<testcase name=\"journey %d\" classname=\"journeys.spec.js\" time=\"0.9\">\n<properties>\n<property name=\"journey\" value=\"journey-%05d\">\n</property>\n</properties>\n<flakyFailure message=\"expect(received).toBe(expected)\" type=\"expect.toBe\" time=\"1.2\"><stackTrace>Error</stackTrace></flakyFailure>\n</testcase>\n", i, i)
	}
	ju.WriteString(`</testsuite></testsuites>`)
	for _, c := range []struct {
		format ReportFormat
		data   string
	}{{FormatPlaywrightJSON, pw.String()}, {FormatJUnit, ju.String()}} {
		out, err := ReadReports(context.Background(), m, ReportReader{c.format, strings.NewReader(c.data)})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s/tests=%d/bytes=%d", c.format, len(out.Trials), len(c.data)), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				if _, err := ReadReports(context.Background(), m, ReportReader{c.format, strings.NewReader(c.data)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzTrialsFromJUnitReport: whatever the bytes, the JUnit reader returns
// consistent trials or a coded error with a bounded field and message.
func FuzzTrialsFromJUnitReport(f *testing.F) {
	f.Add(realPlaywrightJUnit(f))
	f.Add([]byte(junitCase("baseline", ` time="1"`, `<flakyFailure message="m"/>`)))
	f.Add([]byte(`<!DOCTYPE x [<!ENTITY e "e">]><testsuite>&e;</testsuite>`))
	f.Add([]byte("<testsuite name=\"\xff\"/>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := TrialsFromJUnitReport(context.Background(), bytes.NewReader(data), byHostAndProperty)
		if err == nil {
			if len(got.Trials) == 0 || len(got.Sources) != len(got.Trials) || got.Tests < len(got.Trials)+got.Skipped {
				t.Fatalf("inconsistent result %+v", got)
			}
			return
		}
		var ae *Error
		if !errors.As(err, &ae) || ae.Code == "" {
			t.Fatalf("err = %v; want a coded *Error", err)
		}
		if len(ae.Message) > 600 || len(ae.Field) > 600 {
			t.Fatalf("unbounded error: field %d bytes, message %d bytes", len(ae.Field), len(ae.Message))
		}
	})
}

// TestReportsWithAByteOrderMark: a report that begins with a UTF-8 byte
// order mark, as Windows tools write one, reads as the same report without
// it, in either format, with or without an XML declaration; one that begins
// with a UTF-16 byte order mark is refused with a message that names UTF-16.
func TestReportsWithAByteOrderMark(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	junit := junitCase("baseline", ` time="1"`, ``)
	pw := `{"suites":[{"title":"s","specs":[{"title":"t","tags":["journey:storefront-search-add-to-cart"],"tests":[{"projectName":"baseline","status":"expected","results":[{"retry":0,"status":"passed","duration":1000}]}]}]}]}`
	read := func(format ReportFormat, report string) (ImportedTrials, error) {
		if format == FormatJUnit {
			return TrialsFromJUnitReport(context.Background(), strings.NewReader(report), byHostAndProperty)
		}
		return TrialsFromPlaywrightReport(context.Background(), strings.NewReader(report), byProjectAndTag)
	}
	for _, tt := range []struct {
		name   string
		format ReportFormat
		report string
	}{
		{"junit", FormatJUnit, junit},
		{"junit with a declaration", FormatJUnit, `<?xml version="1.0" encoding="UTF-8"?>` + junit},
		{"playwright-json", FormatPlaywrightJSON, pw},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, err := read(tt.format, tt.report)
			if err != nil {
				t.Fatal(err)
			}
			got, err := read(tt.format, bom+tt.report)
			if err != nil {
				t.Fatalf("with a byte order mark: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("with a byte order mark (-without +with):\n%s", diff)
			}
			for _, mark := range []string{"\xff\xfe", "\xfe\xff"} {
				_, err := read(tt.format, mark+tt.report)
				var ae *Error
				if !errors.As(err, &ae) || ae.Code != CodeInvalidArgument || ae.Field != "report" || !strings.Contains(ae.Message, "UTF-16") {
					t.Errorf("with the UTF-16 mark % x: err = %v; want invalid_argument at report naming UTF-16", mark, err)
				}
			}
		})
	}
}

// TestSameShardHoweverTimestamped: the same shard passed twice is refused
// when a tool re-wrote its timestamps as another spelling of the same
// instant, in either format; another instant is another run.
func TestSameShardHoweverTimestamped(t *testing.T) {
	ctx := context.Background()
	junit := func(stamp string) string {
		return strings.Replace(junitCase("baseline", ` time="1"`, ``), `name="s"`, `name="s" timestamp="`+stamp+`"`, 1)
	}
	pw := func(stamp string) string {
		return `{"suites":[{"title":"s","specs":[{"id":"abc","title":"t","tags":["journey:storefront-search-add-to-cart"],"tests":[{"projectName":"baseline","status":"expected","results":[{"retry":0,"status":"passed","duration":1,"startTime":"` + stamp + `"}]}]}]}]}`
	}
	pwMapping := ReportMapping{Planner: byProjectAndTag.Planner, Journey: byProjectAndTag.Journey}
	tests := []struct {
		name, a, b string
		same       bool
	}{
		{"identical", "2026-12-01T20:00:00.000Z", "2026-12-01T20:00:00.000Z", true},
		{"no fraction", "2026-12-01T20:00:00.000Z", "2026-12-01T20:00:00Z", true},
		{"offset", "2026-12-01T20:00:00.000Z", "2026-12-01T22:00:00+02:00", true},
		{"lower case", "2026-12-01T20:00:00Z", "2026-12-01t20:00:00z", true},
		{"spaces", "2026-12-01T20:00:00Z", " 2026-12-01T20:00:00Z ", true},
		{"space for T (RFC 3339 allows it)", "2026-12-01T20:00:00.000Z", "2026-12-01 20:00:00Z", true},
		{"space for T and an offset", "2026-12-01T20:00:00.5Z", "2026-12-01 21:30:00.500000+01:30", true},
		{"local time, fraction", "2026-12-01T20:00:00", "2026-12-01T20:00:00.000", true},
		{"another instant", "2026-12-01T20:00:00Z", "2026-12-01T20:00:01Z", false},
		{"another local time", "2026-12-01T20:00:00", "2026-12-01T20:00:00.5", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range []struct {
				format ReportFormat
				doc    func(string) string
				m      ReportMapping
			}{{FormatJUnit, junit, byHostAndProperty}, {FormatPlaywrightJSON, pw, pwMapping}} {
				_, err := ReadReports(ctx, f.m, ReportReader{f.format, strings.NewReader(f.doc(tt.a))}, ReportReader{f.format, strings.NewReader(f.doc(tt.b))})
				var ae *Error
				refused := errors.As(err, &ae) && strings.Contains(ae.Message, "same run")
				if refused != tt.same || (err != nil && !refused) {
					t.Errorf("%s, %q then %q: err = %v; want refused as the same run: %v", f.format, tt.a, tt.b, err, tt.same)
				}
			}
		})
	}
}

// TestJUnitDistinctChildNamesCostNoMemory: a flood of distinct child element
// names under one testsuite costs what a flood of one name costs (only a few
// names are counted for paths), and the report's testcase still comes
// through. Allocated bytes are compared, not time, and within one run.
func TestJUnitDistinctChildNamesCostNoMemory(t *testing.T) {
	report := func(name func(i int) string) string {
		var b strings.Builder
		b.WriteString(`<testsuites><testsuite name="s" hostname="baseline">`)
		for i := range 100000 {
			fmt.Fprintf(&b, "<%s/>", name(i))
		}
		b.WriteString(`<testcase name="t" time="1"><properties><property name="journey" value="storefront-search-add-to-cart"/></properties></testcase></testsuite></testsuites>`)
		return b.String()
	}
	m := ReportMapping{Planner: ReportSource{From: FromProject}, Journey: ReportSource{From: FromAnnotation, Name: "journey"}}
	allocated := func(doc string) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		out, err := TrialsFromJUnitReport(context.Background(), strings.NewReader(doc), m)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Trials) != 1 {
			t.Errorf("%d trials, want the one testcase", len(out.Trials))
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	// The same length of name in both, so that the decoder's own work is equal.
	same := allocated(report(func(int) string { return "n000000" }))
	distinct := allocated(report(func(i int) string { return fmt.Sprintf("n%06d", i) }))
	t.Logf("allocated: one name %d bytes, distinct names %d bytes", same, distinct)
	if float64(distinct) > 1.05*float64(same) { // before the bound: 1.12
		t.Errorf("100,000 distinct child names allocated %d bytes, against %d for one name repeated: they are being kept", distinct, same)
	}
}

// TestJUnitSurrogateReferences: a character reference to a UTF-16 surrogate
// (&#xD800; to &#xDFFF;) names no character, so XML does not allow it, as it
// does not allow &#0;. encoding/xml reads one as U+FFFD, which made
// hostname="baseline&#xD800;" the planner "baseline\ufffd", the same as
// hostname="baseline&#xFFFD;": it is refused instead, wherever it is, and the
// same text where it is no reference (a comment, CDATA, a processing
// instruction) is read as it is.
func TestJUnitSurrogateReferences(t *testing.T) {
	tests := []struct {
		name, report string
		refused      bool
	}{
		{"in an attribute, hexadecimal", junitCase("baseline&#xD800;", ` time="1"`, ``), true},
		{"in an attribute, upper-case digits", junitCase("baseline&#xdFfF;", ` time="1"`, ``), true},
		{"in an attribute, decimal", junitCase("baseline&#55296;", ` time="1"`, ``), true},
		{"in an attribute, single-quoted", strings.Replace(junitCase("baseline", ` time="1"`, ``), `name="t"`, `name='t&#xDC00;'`, 1), true},
		{"in an attribute, leading zeros", junitCase("baseline&#x000D800;", ` time="1"`, ``), true},
		{"in text", junitCase("baseline", ` time="1"`, `<failure>a&#xD83D;&#xDE00;b</failure>`), true},
		{"in a property's text", junitCase("baseline", ` time="1"`, `<properties><property name="x">&#57343;</property></properties>`), true},
		{"U+FFFD itself", junitCase("baseline", ` time="1"`, `<failure message="&#xFFFD;">&#65533;</failure>`), false},
		{"around the surrogates", junitCase("baseline", ` time="1"`, `<failure message="&#xD7FF;&#xE000;&#x10000;&#x10FFFF;">&#55295;</failure>`), false},
		{"an ampersand escaped", junitCase("baseline", ` time="1"`, `<failure message="&amp;#xD800;">&amp;#55296;</failure>`), false},
		{"in CDATA", junitCase("baseline", ` time="1"`, `<system-out><![CDATA[&#xD800; ]] > ]]]]><![CDATA[&#55296;]]></system-out>`), false},
		{"in a comment", junitCase("baseline", ` time="1"`, `<!-- &#xD800; - -> --><system-out>ok</system-out>`), false},
		{"in a processing instruction", junitCase("baseline", ` time="1"`, `<?x &#xD800; ? > ?><system-out>ok</system-out>`), false},
		{"after a comment, CDATA and an instruction", junitCase("baseline", ` time="1"`, `<!--a--><![CDATA[b]]><?c d?><failure message="&#xD800;"/>`), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := TrialsFromJUnitReport(context.Background(), strings.NewReader(tt.report), byHostAndProperty)
			if !tt.refused {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ae *Error
			if !errors.As(err, &ae) || ae.Code != CodeInvalidArgument || !strings.Contains(ae.Message, "surrogate") {
				t.Fatalf("err = %v; want invalid_argument naming the surrogate reference", err)
			}
		})
	}
}

// TestJUnitAttachmentMarkersSplit: a marker split by a CDATA section, a
// comment or an element is found whole, in order, with its kind from its
// extension; a path longer than MaxPathLength is cut as before.
func TestJUnitAttachmentMarkersSplit(t *testing.T) {
	long := strings.Repeat("d/", limit.MaxPathLength) + "trace.zip"
	out := `[[ATTACH<![CDATA[MENT|trace]]>.zip]<!-- a comment -->]
[<!---->[ATTACHMENT|  shot.png ]]<![CDATA[[[ATTACHMENT|video.webm]]]]>[[[ATTACHMENT|a]b.txt]<x/>]` + "[[ATTACHMENT|" + long + "]]"
	report := junitCase("baseline", ` time="1"`, `<failure message="m"/><system-out>`+out+`</system-out>`)
	got, err := TrialsFromJUnitReport(context.Background(), strings.NewReader(report), byHostAndProperty)
	if err != nil {
		t.Fatal(err)
	}
	want := []TriageAttachment{{"trace", "trace.zip"}, {"screenshot", "shot.png"}, {"video", "video.webm"}, {"attachment", "a]b.txt"}}
	if limit.MaxTriageAttachments > 4 {
		want = append(want, TriageAttachment{"trace", long[:limit.MaxPathLength] + "…"})
	}
	if len(got.Triage) != 1 {
		t.Fatalf("triage %+v", got.Triage)
	}
	if diff := cmp.Diff(want[:min(len(want), limit.MaxTriageAttachments)], got.Triage[0].Attachments); diff != "" {
		t.Errorf("attachments (-want +got):\n%s", diff)
	}
	report = junitCase("baseline", ` time="1"`, `<failure message="m"/><system-out>[[ATTACHMENT|<!---->`+long+`]]</system-out>`)
	got, err = TrialsFromJUnitReport(context.Background(), strings.NewReader(report), byHostAndProperty)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]TriageAttachment{{"trace", long[:limit.MaxPathLength] + "…"}}, got.Triage[0].Attachments); diff != "" {
		t.Errorf("a long path (-want +got):\n%s", diff)
	}
}

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
