package automium

import (
	"context"
	"encoding/json/jsontext"
	"encoding/json/v2"
	"errors"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/automium/automium/internal/echo"
)

// The places a [PlaywrightSource] reads a value from.
const (
	PlaywrightFromProject    = "project"
	PlaywrightFromTag        = "tag"
	PlaywrightFromAnnotation = "annotation"
)

// PlaywrightSource says where in a Playwright JSON report a value comes from.
type PlaywrightSource struct {
	// Project (the test's projectName), tag (a spec tag name:value, @ optional) or
	// annotation (the description of the test's annotation of type name).
	From string `json:"from" jsonschema:"project (the test's projectName), tag (a spec tag name:value, @ optional) or annotation (the description of the test's annotation of type name)" validate:"required,oneof=annotation project tag"`
	// For tag, the part before the colon (journey for @journey:checkout); for
	// annotation, its type; unused for project.
	Name string `json:"name,omitempty" jsonschema:"for tag, the part before the colon (journey for @journey:checkout); for annotation, its type; unused for project" validate:"max=128"`
}

// PlaywrightMapping says how a Playwright test becomes a trial: where its
// planner and its journey are written, and the app and fixture of journeys that
// are not reference journeys of the owned corpus (a reference journey brings its
// own).
type PlaywrightMapping struct {
	// Where each test's planner ID is written.
	Planner PlaywrightSource `json:"planner" jsonschema:"where each test's planner ID is written" validate:"required"`
	// Where each test's journey ID is written.
	Journey PlaywrightSource `json:"journey" jsonschema:"where each test's journey ID is written" validate:"required"`
	// App of journeys that are not reference journeys; optional.
	AppID string `json:"appId,omitempty" jsonschema:"app of journeys that are not reference journeys; optional" validate:"omitempty,automium_app"`
	// Fixture of journeys that are not reference journeys; optional, with appId.
	FixtureID string `json:"fixtureId,omitempty" jsonschema:"fixture of journeys that are not reference journeys; optional, with appId" validate:"omitempty,automium_fixture"`
}

// PlaywrightTrials is what [TrialsFromPlaywrightReport] read from a report.
type PlaywrightTrials struct {
	// One trial per test that ran, in report order.
	Trials []Trial `json:"trials" jsonschema:"one trial per test that ran, in report order"`
	// Tests in the report, skipped ones included.
	Tests int `json:"tests" jsonschema:"tests in the report, skipped ones included"`
	// Tests with status skipped, left out of the trials.
	Skipped int `json:"skipped" jsonschema:"tests with status skipped, left out of the trials"`
	// Tests with status flaky: failed, then passed on a retry.
	Flaky int `json:"flaky" jsonschema:"tests with status flaky: failed, then passed on a retry"`
	// Tests retried at least once, whatever their final status.
	Retried int `json:"retried" jsonschema:"tests retried at least once, whatever their final status"`
	// Source of each trial in the report, as a JSON path
	// (report.suites[0].specs[1].tests[2]).
	Sources []string `json:"sources" jsonschema:"source of each trial in the report, as a JSON path (report.suites[0].specs[1].tests[2])"`
}

// The report's shape, as Playwright's JSON reporter writes it (JSONReport in
// testReporter.d.ts): suites (nested) → specs → tests → results. Members not
// listed here are skipped, still checked for well-formedness.
type (
	pwReport struct {
		Suites []pwSuite `json:"suites"`
	}
	pwSuite struct {
		Specs  []pwSpec  `json:"specs"`
		Suites []pwSuite `json:"suites"`
	}
	pwSpec struct {
		Tags  []string `json:"tags"`
		Tests []pwTest `json:"tests"`
	}
	pwTest struct {
		ProjectName string         `json:"projectName"`
		Status      string         `json:"status"`
		Annotations []pwAnnotation `json:"annotations"`
		Results     []pwResult     `json:"results"`
	}
	pwAnnotation struct {
		Type        string `json:"type"`
		Description string `json:"description"`
	}
	pwResult struct {
		Duration float64 `json:"duration"`
	}
)

// reportRoot is the path of the report's content: the report argument of
// ComparePlaywrightReport, the reader's bytes of TrialsFromPlaywrightReport.
var reportRoot = PathOf("report")

// playwrightStatuses are a test's outcomes, as the reporter names them.
var playwrightStatuses = []string{"expected", "flaky", "skipped", "unexpected"}

// TrialsFromPlaywrightReport reads a report of Playwright's JSON reporter
// (reporter: 'json') and makes one [Trial] of each test that ran. It reads at
// most [MaxPlaywrightReportBytes] from r and nothing else: no file the report
// names is opened.
//
// A test is one spec in one project and one repetition (--repeat-each). It
// becomes a trial as follows:
//
//   - planner and journey: from the mapping's sources (project name, a spec tag
//     name:value, or the description of a test annotation of a type); each test
//     needs exactly one value of each;
//   - app and fixture: a reference journey's own, otherwise the mapping's;
//   - repetition: the test's place among the tests of the same planner and
//     journey, in report order, from 1 (the reporter writes --repeat-each
//     copies one after the other and records no index);
//   - passed: status expected or flaky, that is, the outcome Playwright itself
//     counts as success (a test.fail() test that failed as expected passes);
//     unexpected is a failure;
//   - latencyMs: the sum of the durations of all its results (attempts),
//     rounded: the time the journey took, retries included;
//   - recoveryTriggered: more than one result (it was retried); recovered:
//     status flaky (a retry passed);
//   - tokens: 0, since Playwright records none;
//   - skipped tests are left out and counted in Skipped.
//
// Errors are *Error values whose Field is the JSON path into the report, such as
// report.suites[0].specs[2].tests[1].status: invalid_argument for a malformed
// report (bad JSON, invalid UTF-8, a name given twice in one object, a value of
// the wrong type, an unknown status) or a test the mapping cannot place;
// limit_exceeded for a report over its bounds (size, suite nesting, results per
// test, MaxObservedTrials tests, MaxRepetitions runs of one journey).
func TrialsFromPlaywrightReport(r io.Reader, m PlaywrightMapping) (PlaywrightTrials, error) {
	if r == nil {
		return PlaywrightTrials{}, newError(CodeInvalidArgument, reportRoot, nil, "the reader is nil; pass the report's content")
	}
	if err := mappingProblems(m); err != nil {
		return PlaywrightTrials{}, err
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxPlaywrightReportBytes+1))
	if err != nil {
		return PlaywrightTrials{}, newError(CodeInvalidArgument, reportRoot, nil, "could not be read: %s", echo.Value(err.Error()))
	}
	if len(data) > MaxPlaywrightReportBytes {
		return PlaywrightTrials{}, newError(CodeLimitExceeded, reportRoot, nil,
			"is larger than %d bytes; split the run into smaller reports (by project or shard)", MaxPlaywrightReportBytes)
	}
	return trialsFromPlaywright(data, m)
}

// mappingProblems checks the mapping on its own.
func mappingProblems(m PlaywrightMapping) error {
	ps := newProblems(m)
	ps.validate(m)
	for _, s := range []struct {
		name string
		src  PlaywrightSource
	}{{"planner", m.Planner}, {"journey", m.Journey}} {
		if (s.src.From == PlaywrightFromTag || s.src.From == PlaywrightFromAnnotation) && strings.TrimSpace(s.src.Name) == "" {
			ps.add(field(s.name).dot("name"), CodeInvalidArgument, nil,
				"is required when from is %s: give the tag name (journey for @journey:checkout) or the annotation type", s.src.From)
		}
	}
	if (m.AppID == "") != (m.FixtureID == "") {
		ps.add(field("fixtureId"), CodeInvalidArgument, nil, "appId and fixtureId go together; give both or neither")
	}
	if app, fixture := owned().appByID[m.AppID], owned().fixtureByID[m.FixtureID]; app != nil && fixture != nil {
		ps.addError(field("fixtureId"), fixtureAppMismatch(app, fixture))
	}
	return ps.err()
}

func trialsFromPlaywright(data []byte, m PlaywrightMapping) (PlaywrightTrials, error) {
	out, _, err := readPlaywright(data, m)
	return out, err
}

// readPlaywright reads a report, and also returns the path of each trial's
// test in it.
func readPlaywright(data []byte, m PlaywrightMapping) (PlaywrightTrials, []Path, error) {
	var rep pwReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return PlaywrightTrials{}, nil, playwrightDecodeError(err)
	}
	if rep.Suites == nil {
		return PlaywrightTrials{}, nil, newError(CodeInvalidArgument, reportRoot, nil,
			"has no suites: it is not a report of Playwright's JSON reporter; run the tests with --reporter=json and pass its output")
	}
	rd := &pwReader{mapping: m, runs: map[[2]string]int{}}
	for i := range rep.Suites {
		if err := rd.suite(&rep.Suites[i], reportRoot.Field("suites").Index(i), 1); err != nil {
			return PlaywrightTrials{}, nil, err
		}
	}
	if len(rd.out.Trials) == 0 {
		return PlaywrightTrials{}, nil, newError(CodeInvalidArgument, reportRoot, nil,
			"has %d tests and none ran (%d skipped); a comparison needs at least one test that ran", rd.out.Tests, rd.out.Skipped)
	}
	return rd.out, rd.paths, nil
}

// pwReader walks a decoded report.
type pwReader struct {
	mapping PlaywrightMapping
	out     PlaywrightTrials
	runs    map[[2]string]int // (planner, journey) -> runs so far
	paths   []Path            // where each trial's test is
}

func (rd *pwReader) suite(s *pwSuite, at Path, depth int) error {
	if depth > MaxPlaywrightSuiteDepth {
		return newError(CodeLimitExceeded, at, nil, "nests suites deeper than %d levels; the reporter writes one per file and describe block", MaxPlaywrightSuiteDepth)
	}
	for i := range s.Specs {
		sp := &s.Specs[i]
		for j := range sp.Tests {
			if err := rd.test(sp, &sp.Tests[j], at.Field("specs").Index(i).Field("tests").Index(j)); err != nil {
				return err
			}
		}
	}
	for i := range s.Suites {
		if err := rd.suite(&s.Suites[i], at.Field("suites").Index(i), depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (rd *pwReader) test(sp *pwSpec, t *pwTest, at Path) error {
	rd.out.Tests++
	if rd.out.Tests > MaxObservedTrials {
		return newError(CodeLimitExceeded, at, nil, "is test number %d; a report may hold at most %d tests", rd.out.Tests, MaxObservedTrials)
	}
	switch t.Status {
	case "skipped":
		rd.out.Skipped++
		return nil
	case "expected", "unexpected", "flaky":
	default:
		return newError(CodeInvalidArgument, at.Field("status"), playwrightStatuses,
			"%s is not a test status of Playwright's JSON reporter; use one of the allowed values", echo.Value(t.Status))
	}
	if len(t.Results) == 0 {
		return newError(CodeInvalidArgument, at.Field("results"), nil, "is empty, but a test with status %s ran at least once; pass the reporter's output unedited", t.Status)
	}
	if len(t.Results) > MaxPlaywrightResults {
		return newError(CodeLimitExceeded, at.Field("results"), nil, "has %d results; a test may have at most %d (the first run and %d retries)", len(t.Results), MaxPlaywrightResults, MaxRetryCount)
	}
	planner, err := rd.value(rd.mapping.Planner, sp, t, at, "planner")
	if err != nil {
		return err
	}
	journey, err := rd.value(rd.mapping.Journey, sp, t, at, "journey")
	if err != nil {
		return err
	}
	ms := 0.0
	for i, r := range t.Results {
		if r.Duration < 0 || r.Duration > MaxTrialLatencyMs {
			return newError(CodeInvalidArgument, at.Field("results").Index(i).Field("duration"), nil,
				"is %g ms; a duration runs from 0 to %d ms", r.Duration, MaxTrialLatencyMs)
		}
		ms += r.Duration
	}
	if ms > MaxTrialLatencyMs {
		return newError(CodeLimitExceeded, at.Field("results"), nil, "last %g ms in all; a trial may last at most %d ms", ms, MaxTrialLatencyMs)
	}
	key := [2]string{planner, journey}
	rd.runs[key]++
	if rd.runs[key] > MaxRepetitions {
		return newError(CodeLimitExceeded, at, nil, "is run %d of journey %s by planner %s; at most %d runs of a journey per planner are compared",
			rd.runs[key], echo.Value(journey), echo.Value(planner), MaxRepetitions)
	}
	appID, fixtureID := rd.mapping.AppID, rd.mapping.FixtureID
	if ref, ok := owned().journeyByID[journey]; ok {
		appID, fixtureID = ref.AppID, ref.FixtureID
	} else if appID == "" {
		return newError(CodeInvalidArgument, at, nil,
			"journey %s is not a reference journey of the owned corpus, so its app and fixture are unknown; give appId and fixtureId in the mapping", echo.Value(journey))
	}
	rd.out.Trials = append(rd.out.Trials, Trial{
		PlannerID: planner, AppID: appID, FixtureID: fixtureID, JourneyID: journey, Repetition: rd.runs[key],
		Passed:            t.Status == "expected" || t.Status == "flaky",
		LatencyMs:         int(math.Round(ms)),
		RecoveryTriggered: len(t.Results) > 1,
		Recovered:         t.Status == "flaky",
	})
	rd.out.Sources = append(rd.out.Sources, at.String())
	rd.paths = append(rd.paths, at)
	rd.out.Flaky += b2i(t.Status == "flaky")
	rd.out.Retried += b2i(len(t.Results) > 1)
	return nil
}

// value reads one mapped value of a test; what is the mapping's field name.
func (rd *pwReader) value(src PlaywrightSource, sp *pwSpec, t *pwTest, at Path, what string) (string, error) {
	var found []string
	switch src.From {
	case PlaywrightFromProject:
		if t.ProjectName != "" {
			found = append(found, t.ProjectName)
		}
	case PlaywrightFromTag:
		for _, tag := range sp.Tags {
			name, v, ok := strings.Cut(strings.TrimPrefix(tag, "@"), ":")
			if ok && name == src.Name && !containsString(found, v) {
				found = append(found, v)
			}
		}
	case PlaywrightFromAnnotation:
		for _, a := range t.Annotations {
			if a.Type == src.Name && !containsString(found, a.Description) {
				found = append(found, a.Description)
			}
		}
	}
	if len(found) == 1 && found[0] != "" {
		return found[0], nil
	}
	// Only a test the mapping cannot place pays for the wording.
	var where echo.Message // where the mapping looks
	switch src.From {
	case PlaywrightFromTag:
		where = echo.Msg("a tag %s on its spec", echo.Value("@"+src.Name+":<"+what+">"))
	case PlaywrightFromAnnotation:
		where = echo.Msg("an annotation of type %s with the "+what+" as its description", echo.Value(src.Name))
	default:
		where = echo.Msg("a projectName")
	}
	if len(found) > 1 {
		return "", newError(CodeInvalidArgument, at, nil, "has %d %ss (%s and %s) from %s; give each test one", len(found), what, echo.Value(found[0]), echo.Value(found[1]), where)
	}
	return "", newError(CodeInvalidArgument, at, nil, "has no %s: the mapping reads the %s from %s; add it to the test or change mapping.%s", what, what, where, what)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// playwrightDecodeError turns a JSON error into a bounded *Error at the JSON
// path where the report went wrong. The decoder's own messages name Go types
// and may quote the input, so only their kind of problem is kept.
func playwrightDecodeError(err error) *Error {
	var syn *jsontext.SyntacticError
	var sem *json.SemanticError
	switch {
	case errors.As(err, &syn):
		return newError(CodeInvalidArgument, reportPath(syn.JSONPointer), nil,
			"is not valid JSON at byte %d: %s; pass the reporter's output unedited", syn.ByteOffset, syntaxReason(syn.Err))
	case errors.As(err, &sem):
		want := map[reflect.Kind]string{reflect.String: "a string", reflect.Slice: "an array", reflect.Struct: "an object", reflect.Float64: "a number"}
		wanted := "another kind of value"
		if sem.GoType != nil {
			if w, ok := want[sem.GoType.Kind()]; ok {
				wanted = w
			}
		}
		got := "a JSON " + sem.JSONKind.String()
		if sem.JSONKind == 0 {
			got = "this value"
		}
		return newError(CodeInvalidArgument, reportPath(sem.JSONPointer), nil,
			"is %s where Playwright's JSON reporter writes %s; pass the reporter's output unedited", got, wanted)
	}
	return newError(CodeInvalidArgument, reportRoot, nil, "is not a Playwright JSON report; pass the reporter's output unedited")
}

// syntaxReason names a syntax problem in a few words, never quoting input.
func syntaxReason(err error) string {
	switch {
	case err == nil:
		return "malformed"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the report ends early"
	}
	msg := err.Error()
	for _, r := range []struct{ has, say string }{
		{"invalid UTF-8", "invalid UTF-8"},
		{"duplicate", "an object member name given twice"},
		{"surrogate", "an invalid escaped surrogate"},
		{"nesting depth", "nested too deeply"},
	} {
		if strings.Contains(msg, r.has) {
			return r.say
		}
	}
	return "malformed JSON"
}

// maxPointerSteps bounds the path an error gives for a problem deep in the
// report: past it the path stops, at the depth the reader can name.
const maxPointerSteps = 40

// reportPath is the path into the report of a JSON pointer, such as
// report.suites[0].specs[2]: at most maxPointerSteps steps, each rendered by
// Path, which quotes and cuts a member name that is not plain.
func reportPath(ptr jsontext.Pointer) Path {
	at, n := reportRoot, 0
	for tok := range ptr.Tokens() {
		if n++; n > maxPointerSteps {
			break
		}
		if i, err := strconv.Atoi(tok); err == nil && i >= 0 && tok == strconv.Itoa(i) {
			at = at.Index(i)
			continue
		}
		at = at.Field(tok)
	}
	return at
}

// ComparePlaywrightReportInput compares the planners of a Playwright JSON report.
type ComparePlaywrightReportInput struct {
	// Owned corpus version the runs were recorded against; must be a supported one.
	CorpusVersion string `json:"corpusVersion" jsonschema:"owned corpus version the runs were recorded against; must be a supported one" validate:"required,automium_corpus_version"`
	// The planners the report's tests name, 1 to 16, each with id, vendor and model
	// and a unique id; reported in this order.
	Planners []PlannerRef `json:"planners" jsonschema:"the planners the report's tests name, 1 to 16, each with id, vendor and model and a unique id; reported in this order" validate:"required,min=1,max=16,dive"`
	// The content of the JSON reporter's output (not a file name), at most 8 MiB.
	Report string `json:"report" jsonschema:"the content of the JSON reporter's output (not a file name), at most 8 MiB" validate:"required,max_playwright_report_bytes"`
	// Where each test's planner and journey are written.
	Mapping PlaywrightMapping `json:"mapping" jsonschema:"where each test's planner and journey are written" validate:"required"`
}

// PlaywrightComparison is a comparison of the planners of a Playwright report.
type PlaywrightComparison struct {
	// What was read from the report: tests, skipped, flaky, retried.
	Import PlaywrightImport `json:"import" jsonschema:"what was read from the report: tests, skipped, flaky, retried"`
	// The observed comparison of the trials read.
	Comparison ComparisonReport `json:"comparison" jsonschema:"the observed comparison of the trials read"`
}

// PlaywrightImport counts what a report held.
type PlaywrightImport struct {
	// Tests in the report, skipped ones included.
	Tests int `json:"tests" jsonschema:"tests in the report, skipped ones included"`
	// Tests that ran, one trial each.
	Trials int `json:"trials" jsonschema:"tests that ran, one trial each"`
	// Tests with status skipped, left out of the trials.
	Skipped int `json:"skipped" jsonschema:"tests with status skipped, left out of the trials"`
	// Tests with status flaky: failed, then passed on a retry.
	Flaky int `json:"flaky" jsonschema:"tests with status flaky: failed, then passed on a retry"`
	// Tests retried at least once, whatever their final status.
	Retried int `json:"retried" jsonschema:"tests retried at least once, whatever their final status"`
}

// ComparePlaywrightReport reads the report's content with
// [TrialsFromPlaywrightReport] and compares its planners with
// [CompareObservedTrials]: the report's basis is observed and nothing in it was
// verified. A problem of a trial is reported at its test's path in the report.
func ComparePlaywrightReport(ctx context.Context, in ComparePlaywrightReportInput) (PlaywrightComparison, error) {
	if err := checkContext(ctx); err != nil {
		return PlaywrightComparison{}, err
	}
	if len(in.Report) > MaxPlaywrightReportBytes {
		return PlaywrightComparison{}, newError(CodeLimitExceeded, reportRoot, nil,
			"is larger than %d bytes; split the run into smaller reports (by project or shard)", MaxPlaywrightReportBytes)
	}
	ps := newProblems(in)
	ps.validate(in)
	for _, name := range []string{"planner", "journey"} {
		// An empty source (absent, or {}) is missing its from too: said at
		// its own path, with the allowed values, beside "is required".
		if at := field("mapping").dot(name); ps.has(at) && !ps.has(at.dot("from")) {
			if src := map[string]PlaywrightSource{"planner": in.Mapping.Planner, "journey": in.Mapping.Journey}[name]; src.From == "" {
				ps.add(at.dot("from"), CodeInvalidArgument, []string{PlaywrightFromAnnotation, PlaywrightFromProject, PlaywrightFromTag},
					"is required: say where each test's %s is written, with one of the allowed values", name)
			}
		}
	}
	if err := ps.err(); err != nil {
		return PlaywrightComparison{}, err
	}
	if err := mappingProblems(in.Mapping); err != nil {
		return PlaywrightComparison{}, movedProblems(err, func(at Path) Path {
			return Path{steps: append([]pathStep{{name: "mapping"}}, at.steps...)}
		})
	}
	read, paths, err := readPlaywright([]byte(in.Report), in.Mapping)
	if err != nil {
		return PlaywrightComparison{}, err
	}
	report, err := CompareObservedTrials(ctx, CompareObservedTrialsInput{CorpusVersion: in.CorpusVersion, Planners: in.Planners, Trials: read.Trials})
	if err != nil {
		// A trial's members have no counterpart of the same name in its
		// test, so the test's path alone says where to look, and the
		// message what.
		return PlaywrightComparison{}, movedProblems(err, func(at Path) Path {
			if st := at.steps; len(st) >= 2 && st[0].name == "trials" && !st[0].elem && st[1].elem && st[1].index < len(paths) {
				return paths[st[1].index]
			}
			return at
		})
	}
	return PlaywrightComparison{
		Import:     PlaywrightImport{Tests: read.Tests, Trials: len(read.Trials), Skipped: read.Skipped, Flaky: read.Flaky, Retried: read.Retried},
		Comparison: report,
	}, nil
}

// movedProblems is err with each problem moved to the path move gives; an
// error that is not an *Error is returned as it is.
func movedProblems(err error, move func(Path) Path) error {
	var ae *Error
	if !errors.As(err, &ae) {
		return err
	}
	ps := ae.Problems()
	for i := range ps {
		ps[i].path = move(ps[i].path)
		ps[i].Field = ps[i].path.String()
	}
	return Join(ps...)
}
