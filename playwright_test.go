package automium

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// realPlaywrightReport is the output of Playwright's JSON reporter over
// testdata/playwright/tests: @playwright/test 1.65.1 (pinned in
// testdata/playwright/package-lock.json), produced by testdata/playwright/run.sh,
// which only replaces the absolute directory with /project and node's path with
// node. CI runs that script afresh and points AUTOMIUM_PLAYWRIGHT_REPORT at its
// output, so the reader is held to the reporter as it is, not as it was when the
// file was checked in.
func realPlaywrightReport(t testing.TB) []byte {
	t.Helper()
	path := "testdata/playwright/report.json"
	if p := os.Getenv("AUTOMIUM_PLAYWRIGHT_REPORT"); p != "" {
		path = p
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

var (
	byProjectAndTag = ReportMapping{
		Planner: ReportSource{From: FromProject},
		Journey: ReportSource{From: FromTag, Name: "journey"},
	}
	byProjectAndAnnotation = ReportMapping{
		Planner: ReportSource{From: FromProject},
		Journey: ReportSource{From: FromAnnotation, Name: "journey"},
	}
	pwPlanners = []PlannerRef{{ID: "baseline", Vendor: "openai", Model: "gpt-4.1-mini"}, {ID: "challenger", Vendor: "anthropic", Model: "claude-sonnet-4"}}
)

// TestPlaywrightRealReport reads the real report and checks every trial against
// what the specs fix: 3 specs × 2 projects × 3 repetitions = 18 tests; the guest
// catalog is skipped for challenger (3 skipped); baseline fails search run 2
// (retried, unexpected) and remove run 3 (retried, unexpected); challenger's
// remove run 1 fails then passes its retry (flaky).
func TestPlaywrightRealReport(t *testing.T) {
	data := realPlaywrightReport(t)
	const (
		search = "storefront-search-add-to-cart"
		remove = "storefront-remove-cart-item"
		guest  = "storefront-checkout-saved-address"
	)
	type outcome struct {
		Planner, Journey             string
		Rep                          int
		Passed, Triggered, Recovered bool
	}
	var want []outcome
	for _, p := range []string{"baseline", "challenger"} {
		for rep := 1; rep <= 3; rep++ {
			want = append(want, outcome{p, search, rep, !(p == "baseline" && rep == 2), p == "baseline" && rep == 2, false})
		}
		for rep := 1; rep <= 3; rep++ {
			flaky := p == "challenger" && rep == 1
			failed := p == "baseline" && rep == 3
			want = append(want, outcome{p, remove, rep, !failed, flaky || failed, flaky})
		}
		if p == "baseline" {
			for rep := 1; rep <= 3; rep++ {
				want = append(want, outcome{p, guest, rep, true, false, false})
			}
		}
	}
	for _, m := range []ReportMapping{byProjectAndTag, byProjectAndAnnotation} {
		got, err := TrialsFromPlaywrightReport(context.Background(), strings.NewReader(string(data)), m)
		if err != nil {
			t.Fatal(err)
		}
		if got.Tests != 18 || got.Skipped != 3 || got.Flaky != 1 || got.Retried != 3 || len(got.Sources) != len(got.Trials) {
			t.Errorf("tests %d, skipped %d, flaky %d, retried %d, %d sources for %d trials; want 18, 3, 1, 3 and one source per trial",
				got.Tests, got.Skipped, got.Flaky, got.Retried, len(got.Sources), len(got.Trials))
		}
		var outcomes []outcome
		for _, tr := range got.Trials {
			outcomes = append(outcomes, outcome{tr.PlannerID, tr.JourneyID, tr.Repetition, tr.Passed, tr.RecoveryTriggered, tr.Recovered})
			ref := owned().journeyByID[tr.JourneyID]
			if tr.AppID != ref.AppID || tr.FixtureID != ref.FixtureID || tr.LatencyMs < 0 || tr.LatencyUnknown || tr.InputTokens != 0 || !tr.TokensUnknown || tr.NotEvaluable {
				t.Errorf("trial %+v: want the reference journey's app and fixture, a latency, tokens unknown and evaluable", tr)
			}
			if want := 1 + b2i(tr.RecoveryTriggered); tr.Attempts != want {
				t.Errorf("trial %+v: attempts %d; want %d (one per result)", tr, tr.Attempts, want)
			}
		}
		sortOutcomes := cmpopts.SortSlices(func(a, b outcome) bool {
			if a.Planner != b.Planner {
				return a.Planner < b.Planner
			}
			if a.Journey != b.Journey {
				return a.Journey < b.Journey
			}
			return a.Rep < b.Rep
		})
		if diff := cmp.Diff(want, outcomes, sortOutcomes); diff != "" {
			t.Errorf("trials (-want +got):\n%s", diff)
		}
	}

	// The whole way, as an agent takes it over MCP: content in, pairs out.
	// Paired: search and remove, 3 runs each (the saved-address checkout has no
	// challenger runs). baseline fails two of them that challenger passes:
	// b = 0, c = 2, p = 2·(1/2)² = 0.5, indistinguishable.
	got, err := ComparePlaywrightReport(context.Background(), ComparePlaywrightReportInput{
		CorpusVersion: CorpusVersion, Planners: pwPlanners, Report: string(data), Mapping: byProjectAndTag,
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ReportImport{Tests: 18, TrialCount: 15, Skipped: 3, Flaky: 1, Retried: 3}, got.Import, cmpopts.IgnoreFields(ReportImport{}, "Triage")); diff != "" {
		t.Errorf("import (-want +got):\n%s", diff)
	}
	// The two failed trials keep their first error, without terminal colours,
	// and the paths of their attachments (Playwright's error-context file);
	// the trial a retry rescued keeps its first attempt's error.
	if tri := got.Import.Triage; len(tri) != 3 || tri[0].Source != "report.suites[0].specs[0].tests[1]" || !strings.HasPrefix(tri[0].Error, "Error: expect(received).toBe(expected)") ||
		len(tri[0].Attachments) == 0 || tri[0].Attachments[0].Name != "error-context" || !strings.HasPrefix(tri[0].Attachments[0].Path, "/project/test-results/") ||
		tri[0].Rescued || tri[1].Rescued || !tri[2].Rescued || tri[2].PlannerID != "challenger" || !strings.HasPrefix(tri[2].Error, "Error: expect(received).toBe(expected)") {
		t.Errorf("triage %+v; want the two failed trials with their first error and attachments, then the rescued one with its first attempt's error", tri)
	}
	c := got.Comparison
	if c.Basis != BasisObserved || c.Notice != ObservedNotice || len(c.Pairs) != 1 {
		t.Fatalf("basis %q, notice %q, %d pairs; want observed, the observed notice and one pair", c.Basis, c.Notice, len(c.Pairs))
	}
	p := c.Pairs[0]
	if p.SharedJourneys != 2 || len(p.Journeys) != 2 || p.Verdict != PairIndistinguishable {
		t.Errorf("pair %+v; want 2 shared journeys with their rows, indistinguishable", p)
	}
}

// TestPlaywrightBadReports: every malformed, oversized or unplaceable report
// gets a coded error at its place in the report, never a panic, and a short
// message.
func TestPlaywrightBadReports(t *testing.T) {
	test := func(extra string) string {
		return `{"suites":[{"specs":[{"tags":["journey:storefront-search-add-to-cart"],"tests":[{"projectName":"baseline","status":"expected","results":[{"duration":10}]` + extra + `}]}]}]}`
	}
	nested := func(depth int) string {
		return strings.Repeat(`{"suites":[`, depth) + `{"specs":[]}` + strings.Repeat(`]}`, depth)
	}
	tests := []struct {
		name, report string
		mapping      *ReportMapping
		want         errShape
	}{
		{"not JSON", `suites`, nil, errShape{CodeInvalidArgument, "report"}},
		{"truncated", test("")[:40], nil, errShape{CodeInvalidArgument, "report.suites[0].specs[0].tags[0]"}},
		{"trailing bytes", test("") + `{}`, nil, errShape{CodeInvalidArgument, "report"}},
		{"an array", `[]`, nil, errShape{CodeInvalidArgument, "report"}},
		{"no suites", `{"config":{}}`, nil, errShape{CodeInvalidArgument, "report"}},
		{"case-variant name is not suites", `{"Suites":[]}`, nil, errShape{CodeInvalidArgument, "report"}},
		{"suites an object", `{"suites":{}}`, nil, errShape{CodeInvalidArgument, "report.suites"}},
		{"status a number", strings.Replace(test(""), `"status":"expected"`, `"status":5`, 1), nil, errShape{CodeInvalidArgument, "report.suites[0].specs[0].tests[0].status"}},
		{"unknown status", strings.Replace(test(""), `"expected"`, `"passed"`, 1), nil, errShape{CodeInvalidArgument, "report.suites[0].specs[0].tests[0].status"}},
		{"duplicate name", `{"suites":[],"suites":[]}`, nil, errShape{CodeInvalidArgument, "report.suites"}},
		{"duplicate name, escaped", `{"suites":[],"suit\u0065s":[]}`, nil, errShape{CodeInvalidArgument, "report.suites"}},
		{"invalid UTF-8", strings.Replace(test(""), "baseline", "base\xffline", 1), nil, errShape{CodeInvalidArgument, "report.suites[0].specs[0].tests[0].projectName"}},
		{"lone surrogate", strings.Replace(test(""), "baseline", `base\ud800line`, 1), nil, errShape{CodeInvalidArgument, "report.suites[0].specs[0].tests[0].projectName"}},
		{"a skipped object too wide", `{"config":{` + strings.TrimSuffix(strings.Repeat(`"m":0,`, 0), ",") + wideObject(limit.MaxDocumentMembers+1) + `},"suites":[]}`, nil, errShape{CodeLimitExceeded, "report.config"}},
		{"a value too long", strings.Replace(test(""), `"duration":10`, `"stdout":"`+strings.Repeat("x", limit.MaxDocumentTokenBytes)+`","duration":10`, 1), nil, errShape{CodeLimitExceeded, "report.suites[0].specs[0].tests[0].results[0]"}},
		{"suites too deep", nested(limit.MaxPlaywrightSuiteDepth + 1), nil, errShape{CodeLimitExceeded, "report" + strings.Repeat(".suites[0]", limit.MaxPlaywrightSuiteDepth+1)}},
		{"JSON nested past the decoder's bound", strings.Repeat(`[`, 20000), nil, errShape{CodeInvalidArgument, ""}},
		{"too many results", strings.Replace(test(""), `[{"duration":10}]`, "["+strings.Repeat(`{"duration":1},`, limit.MaxPlaywrightResults)+`{"duration":1}]`, 1), nil, errShape{CodeLimitExceeded, "report.suites[0].specs[0].tests[0].results"}},
		{"no results", strings.Replace(test(""), `[{"duration":10}]`, `[]`, 1), nil, errShape{CodeInvalidArgument, "report.suites[0].specs[0].tests[0].results"}},
		{"negative duration", strings.Replace(test(""), `10`, `-1`, 1), nil, errShape{CodeInvalidArgument, "report.suites[0].specs[0].tests[0].results[0].duration"}},
		{"huge duration", strings.Replace(test(""), `10`, `1e300`, 1), nil, errShape{CodeInvalidArgument, "report.suites[0].specs[0].tests[0].results[0].duration"}},
		{"no journey tag", strings.Replace(test(""), `"journey:storefront-search-add-to-cart"`, `"smoke"`, 1), nil, errShape{CodeInvalidArgument, "report.suites[0].specs[0].tests[0]"}},
		{"two journey tags", strings.Replace(test(""), `"journey:storefront-search-add-to-cart"`, `"journey:a","@journey:b"`, 1), nil, errShape{CodeInvalidArgument, "report.suites[0].specs[0].tests[0]"}},
		{"no project", strings.Replace(test(""), `"baseline"`, `""`, 1), nil, errShape{CodeInvalidArgument, "report.suites[0].specs[0].tests[0]"}},
		{"journey of no app", strings.Replace(test(""), `storefront-search-add-to-cart`, `my-journey`, 1), nil, errShape{CodeInvalidArgument, "report.suites[0].specs[0].tests[0]"}},
		{"unknown mapping source", test(""), &ReportMapping{Planner: ReportSource{From: "title"}, Journey: byProjectAndTag.Journey}, errShape{CodeInvalidArgument, "planner.from"}},
		{"tag mapping without a name", test(""), &ReportMapping{Planner: byProjectAndTag.Planner, Journey: ReportSource{From: FromTag}}, errShape{CodeInvalidArgument, "journey.name"}},
		{"app without fixture", test(""), &ReportMapping{Planner: byProjectAndTag.Planner, Journey: byProjectAndTag.Journey, AppID: "storefront"}, errShape{CodeInvalidArgument, "fixtureId"}},
		{"only skipped tests", strings.Replace(test(""), `"expected"`, `"skipped"`, 1), nil, errShape{CodeInvalidArgument, "report"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := byProjectAndTag
			if tt.mapping != nil {
				m = *tt.mapping
			}
			_, err := TrialsFromPlaywrightReport(context.Background(), strings.NewReader(tt.report), m)
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v; want *Error", err)
			}
			if tt.want.Field == "" {
				tt.want.Field = ae.Field // a path thousands of levels deep: checked for its bound below
			}
			if diff := cmp.Diff(tt.want, errShape{ae.Code, ae.Field}); diff != "" {
				t.Errorf("error (-want +got):\n%s\nmessage: %s", diff, ae.Message)
			}
			if len(ae.Message) > 600 || len(ae.Field) > 600 {
				t.Errorf("unbounded error: field %d bytes, message %d bytes", len(ae.Field), len(ae.Message))
			}
		})
	}
}

// TestComparePlaywrightReportPaths: a problem the comparison finds in a trial
// is reported at its test in the report, and problems of the mapping under
// mapping.
func TestComparePlaywrightReportPaths(t *testing.T) {
	data := string(realPlaywrightReport(t))
	tests := []struct {
		name string
		in   ComparePlaywrightReportInput
		want errShape
	}{
		{"a project that is no planner", ComparePlaywrightReportInput{CorpusVersion: CorpusVersion, Planners: pwPlanners[:1], Report: data, Mapping: byProjectAndTag},
			errShape{CodeInvalidArgument, "report.suites[0].specs[0].tests[3]"}},
		{"a mapping without a source", ComparePlaywrightReportInput{CorpusVersion: CorpusVersion, Planners: pwPlanners, Report: data,
			Mapping: ReportMapping{Planner: byProjectAndTag.Planner, Journey: ReportSource{From: FromAnnotation}}},
			errShape{CodeInvalidArgument, "mapping.journey.name"}},
		{"no report", ComparePlaywrightReportInput{CorpusVersion: CorpusVersion, Planners: pwPlanners, Mapping: byProjectAndTag},
			errShape{CodeInvalidArgument, "report"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ComparePlaywrightReport(context.Background(), tt.in)
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v; want *Error", err)
			}
			if diff := cmp.Diff(tt.want, errShape{ae.Code, ae.Field}); diff != "" {
				t.Errorf("error (-want +got):\n%s\nmessage: %s", diff, ae.Message)
			}
		})
	}
}

// BenchmarkTrialsFromPlaywrightReport reads the real report (18 tests, 55 KB)
// and one of 15,000 retried tests in the reporter's shape, 6.5 MB, near the
// 8 MiB bound.
func BenchmarkTrialsFromPlaywrightReport(b *testing.B) {
	var large strings.Builder
	large.WriteString(`{"suites":[{"title":"journeys.spec.js","specs":[`)
	for i := range 15_000 {
		if i > 0 {
			large.WriteByte(',')
		}
		fmt.Fprintf(&large, `{"title":"journey %d","tags":["journey:journey-%05d"],"tests":[{"timeout":30000,"annotations":[],"expectedStatus":"passed","projectId":"baseline","projectName":"baseline","status":"flaky","results":[{"workerIndex":0,"status":"failed","duration":1200,"retry":0,"errors":[],"stdout":[],"stderr":[],"attachments":[]},{"workerIndex":0,"status":"passed","duration":900,"retry":1,"errors":[],"stdout":[],"stderr":[],"attachments":[]}]}]}`, i, i)
	}
	large.WriteString(`]}]}`)
	m := byProjectAndTag
	m.AppID, m.FixtureID = cmpApp, cmpFixture
	for _, c := range []struct {
		name string
		data []byte
	}{{"real", realPlaywrightReport(b)}, {"tests=15000", []byte(large.String())}} {
		b.Run(fmt.Sprintf("%s/bytes=%d", c.name, len(c.data)), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				if _, err := TrialsFromPlaywrightReport(context.Background(), bytes.NewReader(c.data), m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzTrialsFromPlaywrightReport: whatever the bytes, the reader returns
// trials or a coded *Error with a bounded field and message, and never panics.
func FuzzTrialsFromPlaywrightReport(f *testing.F) {
	f.Add(realPlaywrightReport(f))
	f.Add([]byte(`{"suites":[{"specs":[{"tags":["journey:storefront-search-add-to-cart"],"tests":[{"projectName":"baseline","status":"flaky","results":[{"duration":1},{"duration":2}]}]}]}]}`))
	f.Add([]byte(`{"suites":[],"suit\u0065s":[]}`))
	f.Add([]byte("{\"suites\":[{\"specs\":[{\"tags\":[\"\xff\"]}]}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := TrialsFromPlaywrightReport(context.Background(), bytes.NewReader(data), byProjectAndTag)
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

// wideObject is n distinct members, "m0":0,"m1":0,...
func wideObject(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"m%d":0`, i)
	}
	return b.String()
}

// TestPlaywrightFailedStep: the triage of a failed Playwright test names the
// first test.step that failed, outermost first, so that a failure in an
// exported spec points at its graph node; members in any order, deep steps,
// steps of a later attempt and hostile titles included.
func TestPlaywrightFailedStep(t *testing.T) {
	report := func(results string) string {
		return `{"suites":[{"specs":[{"title":"t","tags":["journey:storefront-search-add-to-cart"],"tests":[{"projectName":"baseline","status":"unexpected","results":[` + results + `]}]}]}]}`
	}
	const fail = `"status":"failed","duration":5,"error":{"message":"boom"}`
	tests := []struct {
		name, results, want string
	}{
		{"no steps", `{` + fail + `}`, ""},
		{"one failed step", `{` + fail + `,"steps":[{"title":"step-1"},{"title":"assert-1","error":{"message":"x"}}]}`, "assert-1"},
		{"the outermost failed step, not the expect inside it", `{` + fail + `,"steps":[{"title":"assert-1","error":{"message":"x"},"steps":[{"title":"expect.toBeVisible","error":{"message":"x"}}]}]}`, "assert-1"},
		{"title after its steps", `{` + fail + `,"steps":[{"steps":[{"title":"inner","error":{}}],"error":{},"title":"outer"}]}`, "outer"},
		{"a passed outer step keeps its failed inner step", `{` + fail + `,"steps":[{"title":"recover-2","steps":[{"title":"step-2","error":{}}]}]}`, "step-2"},
		{"the first failure of several", `{` + fail + `,"steps":[{"title":"step-1","error":{}},{"title":"step-2","error":{}}]}`, "step-1"},
		{"the first attempt's, not the retry's", `{` + fail + `,"steps":[{"title":"step-1","error":{}}]},{` + fail + `,"steps":[{"title":"step-3","error":{}}]}`, "step-1"},
		{"an error that is not an object", `{` + fail + `,"steps":[{"title":"step-1","error":null},{"title":"step-2","error":"x"}]}`, ""},
		{"a title that is not a string", `{` + fail + `,"steps":[{"title":7,"error":{}}]}`, ""},
		{"a long title is cut", `{` + fail + `,"steps":[{"title":"` + strings.Repeat("s", 10000) + `","error":{}}]}`, echo.Cut(strings.Repeat("s", 10000), limit.MaxIDLength)},
	}
	m := ReportMapping{Planner: ReportSource{From: FromProject}, Journey: ReportSource{From: FromTag, Name: "journey"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ComparePlaywrightReport(context.Background(), ComparePlaywrightReportInput{
				CorpusVersion: CorpusVersion, Planners: []PlannerRef{{ID: "baseline", Vendor: "v", Model: "m"}}, Report: report(tt.results), Mapping: m,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Import.Triage) != 1 {
				t.Fatalf("triage %+v, want the one failed trial", got.Import.Triage)
			}
			if diff := cmp.Diff(tt.want, got.Import.Triage[0].FailedStep); diff != "" {
				t.Errorf("failedStep (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTriageErrorIsPlainText: the first error message a report gives a failed
// trial comes back in triage without any terminal control or bidi control,
// whatever sequence carries it; tabs, line feeds and visible text stay.
func TestTriageErrorIsPlainText(t *testing.T) {
	tests := []struct{ name, msg, want string }{
		{"colour", "\x1b[31mError:\x1b[39m boom", "Error: boom"},
		{"colour unterminated", "Error: boom\x1b[31", "Error: boom"},
		{"8-bit CSI", "Error:\u009b31m boom\u009b0m", "Error: boom"},
		{"OSC hyperlink", "Error: \x1b]8;;https://evil.example/\x07click\x1b]8;;\x07 here", "Error: click here"},
		{"OSC title, ST", "\x1b]0;pwned\x1b\\Error: boom", "Error: boom"},
		{"bell and NUL", "Error:\a boom\x00", "Error: boom"},
		{"carriage return", "Error: boom\r\n  at x", "Error: boom\n  at x"},
		{"backspace and DEL", "Error: bad\b\b\bgood\x7f", "Error: badgood"},
		{"C1 controls", "Error:\u0085 boom\u009d", "Error: boom"},
		{"bidi override", "Error: \u202eexe.txt\u202c", "Error: exe.txt"},
		{"bidi isolates and marks", "Error: \u2066a\u2069\u200e\u200f\u061c", "Error: a"},
		{"lone ESC", "Error: \x1bboom", "Error: boom"},
		{"plain", "Error: expect(received).toBe(expected)\n\tat spec.ts:3 — ünïcode", "Error: expect(received).toBe(expected)\n\tat spec.ts:3 — ünïcode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := json.Marshal(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			report := `{"suites":[{"title":"s","specs":[{"title":"t","tags":["journey:storefront-search-add-to-cart"],"tests":[{"projectName":"baseline","status":"unexpected","results":[{"retry":0,"status":"failed","duration":1,"errors":[{"message":` + string(msg) + `}]}]}]}]}]}`
			out, err := TrialsFromPlaywrightReport(context.Background(), strings.NewReader(report), byProjectAndTag)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Triage) != 1 {
				t.Fatalf("%d triage entries; want 1", len(out.Triage))
			}
			if diff := cmp.Diff(tt.want, out.Triage[0].Error); diff != "" {
				t.Errorf("triage error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTriageAttachmentsArePlainText: an attachment's name loses terminal and
// bidi controls; a path holding one is left out, whatever else it names.
func TestTriageAttachmentsArePlainText(t *testing.T) {
	atts := []struct{ name, path string }{
		{"tr\x1b]0;x\x07ace", "/ci/test-results/trace.zip"},
		{"screenshot", "a\nb.png"},
		{"screenshot", "\x1b[31mx.png"},
		{"video", "\x00v.webm"},
		{"\u202etrace", "C:\\ci\\trace.zip"},
		{"trace", "evil\u202egpj.zip"},
	}
	var list []string
	for _, a := range atts {
		b, err := json.Marshal(map[string]string{"name": a.name, "path": a.path, "contentType": "application/zip"})
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, string(b))
	}
	report := `{"suites":[{"title":"s","specs":[{"title":"t","tags":["journey:storefront-search-add-to-cart"],"tests":[{"projectName":"baseline","status":"unexpected","results":[{"retry":0,"status":"failed","duration":1,"errors":[{"message":"boom"}],"attachments":[` + strings.Join(list, ",") + `]}]}]}]}]}`
	out, err := TrialsFromPlaywrightReport(context.Background(), strings.NewReader(report), byProjectAndTag)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Triage) != 1 {
		t.Fatalf("%d triage entries; want 1", len(out.Triage))
	}
	want := []TriageAttachment{{Name: "trace", Path: "/ci/test-results/trace.zip"}, {Name: "trace", Path: "C:\\ci\\trace.zip"}}
	if diff := cmp.Diff(want, out.Triage[0].Attachments); diff != "" {
		t.Errorf("attachments (-want +got):\n%s", diff)
	}
}

// TestPlaywrightInterrupted: a test the run stopped is not evaluable by
// default, on its last attempt or on its only one (which the reporter gives
// status skipped); a mapping that lists none makes it a failure.
func TestPlaywrightInterrupted(t *testing.T) {
	report := func(status, results string) string {
		return `{"suites":[{"specs":[{"tags":["journey:storefront-search-add-to-cart"],"tests":[{"projectName":"baseline","status":"` + status + `","results":[` + results + `]}]}]}]}`
	}
	type got struct {
		Trials, Skipped, NotEvaluable int
		Passed                        bool
	}
	none := byProjectAndTag
	none.NotEvaluable = []Outcome{OutcomeNone}
	tests := []struct {
		name, report string
		mapping      ReportMapping
		want         got
	}{
		{"interrupted on its only attempt", report("skipped", `{"status":"interrupted","duration":5}`), byProjectAndTag, got{Trials: 1, NotEvaluable: 1}},
		{"interrupted on a retry", report("unexpected", `{"status":"failed","duration":5},{"status":"interrupted","duration":5}`), byProjectAndTag, got{Trials: 1, NotEvaluable: 1}},
		{"interrupted, none listed", report("skipped", `{"status":"interrupted","duration":5}`), none, got{Trials: 1}},
		{"skipped", report("skipped", `{"status":"skipped","duration":0}`), byProjectAndTag, got{Skipped: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := tt.report
			if tt.want.Trials == 0 {
				// A comparison needs a trial that ran: one more that passed.
				doc = strings.TrimSuffix(doc, `]}]}]}]}`) + `]},{"projectName":"baseline","status":"expected","results":[{"status":"passed","duration":1}]}]}]}]}`
				tt.want.Trials = 1
				tt.want.Passed = true
			}
			out, err := TrialsFromPlaywrightReport(context.Background(), strings.NewReader(doc), tt.mapping)
			if err != nil {
				t.Fatal(err)
			}
			g := got{Trials: len(out.Trials), Skipped: out.Skipped, NotEvaluable: out.NotEvaluable, Passed: out.Trials[0].Passed}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
