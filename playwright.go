package automium

import (
	"context"
	"errors"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// SourceFrom is a place in a test of a report that a [ReportSource] reads a
// value from; its string is the wire form, as in mapping.planner.from.
type SourceFrom string

// The places a [ReportSource] reads a value from.
const (
	FromProject    SourceFrom = "project"
	FromTag        SourceFrom = "tag"
	FromAnnotation SourceFrom = "annotation"
)

// ReportSource says where in a report a value comes from.
type ReportSource struct {
	From SourceFrom `json:"from" jsonschema:"project, tag or annotation; project is projectName (JUnit: testsuite hostname), tag a spec tag name:value (JSON only), annotation an annotation description (JUnit: a property value)" validate:"required,oneof=annotation project tag"`
	Name string     `json:"name,omitempty" jsonschema:"tag or annotation name, e.g. journey; for annotation, its type or property name; unused for project" validate:"max=128"`
}

// ReportMapping says how a test of a report becomes a trial: where its
// planner and its journey are written, the app and fixture of journeys that
// are not reference journeys of the owned corpus (a reference journey brings
// its own; a team's own app is ext:…, docs/external-apps.md), which outcomes are not evaluable and, optionally, where its
// repetition is written.
type ReportMapping struct {
	Planner      ReportSource  `json:"planner" jsonschema:"where the planner ID is" validate:"required"`
	Journey      ReportSource  `json:"journey" jsonschema:"where the journey ID is" validate:"required"`
	Repetition   *ReportSource `json:"repetition,omitempty" jsonschema:"where the repetition is; optional, else its place in report order" validate:"omitempty"`
	AppID        string        `json:"appId,omitempty" jsonschema:"app of non-reference journeys; optional" validate:"omitempty,max_id_length,automium_app_or_ext"`
	FixtureID    string        `json:"fixtureId,omitempty" jsonschema:"fixture of non-reference journeys; optional, with appId" validate:"omitempty,max_id_length,automium_fixture_or_ext"`
	PassScores   []string      `json:"passScores,omitempty" jsonschema:"Inspect scores that pass; default C, 1, true" validate:"omitempty,max=16,dive,max_id_length"`
	NotEvaluable []Outcome     `json:"notEvaluable,omitempty" jsonschema:"outcomes that are not evaluable; absent means interrupted (and an Inspect sample error)" validate:"omitempty,max=4,unique,dive,oneof=error interrupted none timedOut"`
}

// maxPassScores bounds mapping.passScores: a scorer writes a handful of
// values.
const maxPassScores = 16

// reportRoot is the path of the report's content: the report argument of
// ComparePlaywrightReport, the reader's bytes of TrialsFromPlaywrightReport.
var reportRoot = PathOf("report")

// playwrightStatuses are a test's outcomes, as the reporter names them.
var playwrightStatuses = []string{"expected", "flaky", "skipped", "unexpected"}

// TrialsFromPlaywrightReport reads a report of Playwright's JSON reporter
// (reporter: 'json') and makes one [Trial] of each test that ran. It reads r
// token by token through the bounded document reader, so a report of any
// size costs memory in proportion to its tests, and nothing else: no file the
// report names is opened. MaxObservedTrials tests bound the call.
//
// A test is one spec in one project and one repetition (--repeat-each). It
// becomes a trial as follows:
//
//   - planner and journey: from the mapping's sources (project name, a spec tag
//     name:value, or the description of a test annotation of a type); each test
//     needs exactly one value of each;
//   - app and fixture: a reference journey's own, otherwise the mapping's;
//   - repetition: from the mapping's repetition source if it has one, else the
//     test's place among the tests of the same planner and journey, in report
//     order, from 1 (the reporter writes --repeat-each copies one after the
//     other and records no index);
//   - passed: status expected or flaky, that is, the outcome Playwright itself
//     counts as success (a test.fail() test that failed as expected passes);
//     unexpected is a failure;
//   - notEvaluable: a test that did not pass and whose last result has a
//     status the mapping's notEvaluable lists (interrupted by default;
//     timedOut on request); a test interrupted on its only attempt, which
//     the reporter gives status skipped, is interrupted, not skipped;
//   - attempts: its results (the first run and its retries); a flaky test
//     passed after more than one, so it was rescued by a retry;
//   - latencyMs: the sum of the durations of all its results, rounded: the
//     time the journey took, retries included; latencyUnknown if a result has
//     no duration;
//   - recoveryTriggered: more than one result (it was retried); recovered:
//     passed after a retry;
//   - tokens: the sum of the test's annotations of types automium.inputTokens
//     and automium.outputTokens (whole numbers), and tokensUnknown if it has
//     neither, since Playwright records none;
//   - skipped tests are left out and counted in Skipped;
//   - for triage, a test that did not pass keeps its first error message and
//     the paths of its attachments (trace, screenshot, video), never opened.
//
// Errors are *Error values whose Field is the JSON path into the report, such as
// report.suites[0].specs[2].tests[1].status: invalid_argument for a malformed
// report (bad JSON, invalid UTF-8, a name given twice in one object, a value of
// the wrong type, an unknown status) or a test the mapping cannot place;
// limit_exceeded for a report over its bounds (the document bounds of
// docs/limits.md, suite nesting, results per test, MaxObservedTrials tests,
// MaxRepetitions runs of one journey).
// It checks ctx as it reads.
func TrialsFromPlaywrightReport(ctx context.Context, r io.Reader, m ReportMapping) (ImportedTrials, error) {
	return readOneReport(ctx, r, m, FormatPlaywrightJSON)
}

// mappingProblems checks the mapping on its own.
func mappingProblems(m ReportMapping) error {
	ps := newProblems(m)
	ps.validate(m, field("fixtureId")) // checked with its app, below
	srcs := []struct {
		name string
		src  ReportSource
	}{{"planner", m.Planner}, {"journey", m.Journey}}
	if m.Repetition != nil {
		srcs = append(srcs, struct {
			name string
			src  ReportSource
		}{"repetition", *m.Repetition})
	}
	for _, s := range srcs {
		if (s.src.From == FromTag || s.src.From == FromAnnotation) && strings.TrimSpace(s.src.Name) == "" {
			ps.add(field(s.name).dot("name"), CodeInvalidArgument, nil,
				"is required when from is %s: give the tag name (journey for @journey:checkout) or the annotation type", s.src.From)
		}
	}
	if m.Repetition != nil && m.Repetition.From == FromProject {
		ps.add(field("repetition").dot("from"), CodeInvalidArgument, []string{string(FromAnnotation), string(FromTag)}, "cannot be project: a project is not a repetition; use a tag or an annotation")
	}
	// The schema bounds the count and the length (validate tags); a blank
	// score, which no scorer writes, is refused here.
	for i, v := range m.PassScores[:min(len(m.PassScores), maxPassScores)] {
		if strings.TrimSpace(v) == "" {
			ps.add(field("passScores").at(i), CodeInvalidArgument, nil, "is a score of %d bytes; a pass score is a value a scorer writes, 1 to %d bytes (C, 1, true)", len(v), limit.MaxIDLength)
		}
	}
	if len(m.NotEvaluable) > 1 && slices.Contains(m.NotEvaluable, OutcomeNone) {
		ps.add(field("notEvaluable"), CodeInvalidArgument, nil, "lists none beside other outcomes; give none alone, or the outcomes")
	}
	if (m.AppID == "") != (m.FixtureID == "") {
		ps.add(field("fixtureId"), CodeInvalidArgument, nil, "appId and fixtureId go together; give both or neither")
	}
	ps.fixtureOfAppOrExt(field("fixtureId"), reflect.TypeOf(m), m.AppID, m.FixtureID)
	return ps.err()
}

// playwrightFormat is the table row of Playwright's JSON reporter.
var playwrightFormat = reportFormat{
	name:       FormatPlaywrightJSON,
	read:       (*trialBuilder).readPlaywright,
	tags:       true,
	project:    "a projectName",
	annotation: "an annotation of type %s with the %s as its description",
	detect:     func(head []byte) bool { return firstMember(head) == "config" },
}

// readPlaywright reads a report of Playwright's JSON reporter (JSONReport in
// testReporter.d.ts): suites (nested) → specs → tests → results. Members not
// read are skipped, still checked for well-formedness and the bounds.
func (b *trialBuilder) readPlaywright(ctx context.Context, r io.Reader, root Path) error {
	d := newJSONDoc(ctx, r, root, "a Playwright JSON report")
	pr := &pwRead{b: b, d: d, tags: b.wanted(FromTag), notes: b.wanted(FromAnnotation)}
	sawSuites := false
	b.run.window = true
	pr.lateBytes = 0
	var started int64
	startKnown := false
	if err := d.object(d.root(), func(name string, at docAt) error {
		switch name {
		case "suites":
			sawSuites = true
			return d.array(at, func(_ int, at docAt) error { return pr.suite(at, 1, pwTitles{known: true}) })
		case "stats":
			// When the run started, after the suites: the start of the
			// window each test's run began in (runKey).
			if d.dec.PeekKind() != '{' {
				return d.skip(at)
			}
			return d.object(at, func(name string, at docAt) error {
				if name != "startTime" || d.dec.PeekKind() != '"' {
					return d.skip(at)
				}
				s, err := d.str(at)
				if t, zoned, ok := parseInstant(s); ok && zoned {
					started, startKnown = t.UnixNano(), true
				}
				return err
			})
		}
		return d.skip(at)
	}); err != nil {
		return err
	}
	if err := d.end(); err != nil {
		return err
	}
	if !sawSuites {
		return newError(CodeInvalidArgument, root, nil,
			"has no suites: it is not a report of Playwright's JSON reporter; run the tests with --reporter=json and pass its output")
	}
	b.run.from, b.run.fromKnown = started, startKnown
	return nil
}

// pwTitles is the digest of a suite's title path (titleStep), known once its
// title is read: the file's suite is titled by the file, the suites below it
// by their describe blocks, as Playwright's junit reporter writes them.
type pwTitles struct {
	digest [32]byte
	known  bool
	// late, when known is false, is the nearest enclosing suite whose title
	// was not read yet (a tool that sorts members writes it after the
	// specs), and rel the titles below that suite down to here: the runs
	// below wait in late until its title is read.
	late *pwLate
	rel  []string
}

// pwLate holds the runs of a suite whose title comes after them.
type pwLate struct{ runs []pwRun }

// pwRun is a test run whose title path waits for a suite's title.
type pwRun struct {
	rel     []string // the titles below the waiting suite, outermost first
	project string
	repeat  int
	start   int64
}

// bytes is what a waiting run keeps, against maxLateTitleBytes.
func (r pwRun) bytes() int {
	n := len(r.project)
	for _, x := range r.rel {
		n += len(x)
	}
	return n
}

// maxLateTitleBytes bounds the titles kept for runs that wait for a suite's
// title, over one report; past it those runs are unnamed, as before.
const maxLateTitleBytes = 4 << 20

// pwRead reads one Playwright report's suites into a builder.
type pwRead struct {
	b     *trialBuilder
	d     *jsonDoc
	tags  []string // tag names the mapping reads
	notes []string // annotation types the mapping reads
	// lateBytes counts the titles kept in pwLate, against maxLateTitleBytes.
	lateBytes int
}

// wait keeps a run whose title path is not known yet in its late suite, or
// names it unnamed when none will know it or the bound is reached.
func (pr *pwRead) wait(t pwTitles, rel []string, project string, repeat int, start int64) {
	n := pwRun{rel: rel, project: project}.bytes()
	if t.late == nil || pr.lateBytes+n > maxLateTitleBytes {
		pr.b.runTest(runKey{}, start, false)
		return
	}
	pr.lateBytes += n
	t.late.runs = append(t.late.runs, pwRun{rel: rel, project: project, repeat: repeat, start: start})
}

// below is the titles of a child of a suite whose own title is s (read) and
// whose parent's titles are parent.
func below(parent pwTitles, s string) pwTitles {
	t := pwTitles{digest: titleStep(parent.digest, s), known: parent.known}
	if !parent.known && parent.late != nil {
		t.late, t.rel = parent.late, append(slices.Clip(parent.rel), s)
	}
	return t
}

func (pr *pwRead) suite(at docAt, depth int, parent pwTitles) error {
	if depth > limit.MaxPlaywrightSuiteDepth {
		return newError(CodeLimitExceeded, at.path(), nil, "nests suites deeper than %d levels; the reporter writes one per file and describe block", limit.MaxPlaywrightSuiteDepth)
	}
	d := pr.d
	// The reporter writes a suite's title first; a title that comes after
	// its specs or suites (members sorted by a tool) makes their runs wait
	// for it in late, and a suite with no title leaves them unnamed.
	late := &pwLate{}
	titles := pwTitles{late: late}
	titled := false
	var title string
	err := d.object(at, func(name string, at docAt) error {
		switch name {
		case "title":
			if d.dec.PeekKind() != '"' {
				return d.skip(at)
			}
			s, err := d.str(at)
			titles, titled, title = below(parent, s), true, s
			return err
		case "specs":
			return d.array(at, func(_ int, at docAt) error { return pr.spec(at, titles) })
		case "suites":
			return d.array(at, func(_ int, at docAt) error { return pr.suite(at, depth+1, titles) })
		}
		return d.skip(at)
	})
	for _, r := range late.runs {
		switch {
		case titled && parent.known:
			digest := titleStep(parent.digest, title)
			for _, x := range r.rel {
				digest = titleStep(digest, x)
			}
			pr.b.runTest(newRunKey(digest, r.project, r.repeat), r.start, true)
		case titled:
			pr.lateBytes -= r.bytes() // counted again by wait, with the title
			pr.wait(parent, append([]string{title}, r.rel...), r.project, r.repeat, r.start)
		default:
			pr.b.runTest(runKey{}, r.start, false)
		}
	}
	return err
}

// spec reads one spec. Its tags may come after its tests, so its tests wait
// until the spec ends; what they keep is bounded.
func (pr *pwRead) spec(at docAt, suite pwTitles) error {
	d := pr.d
	var tests []*testRecord
	var tags [][2]string // (name, value) of the tags the mapping reads
	var id string
	var titled, specTitled bool
	var titles [32]byte
	var specTitle string
	err := d.object(at, func(name string, at docAt) error {
		switch name {
		case "title":
			if d.dec.PeekKind() != '"' {
				return d.skip(at)
			}
			s, err := d.str(at)
			titles, titled = titleStep(suite.digest, s), suite.known
			specTitle, specTitled = s, true
			return err
		case "id":
			s, err := d.str(at)
			id = echo.Cut(s, keptValueBytes)
			return err
		case "tags":
			return d.array(at, func(_ int, at docAt) error {
				s, err := d.str(at)
				if err != nil {
					return err
				}
				if n, v, ok := strings.Cut(strings.TrimPrefix(s, "@"), ":"); ok && containsString(pr.tags, n) {
					tags = append(tags, [2]string{n, v})
					if len(tags) > maxKeptValues*len(pr.tags)+1 {
						tags = tags[:len(tags)-1]
					}
				}
				return nil
			})
		case "tests":
			return d.array(at, func(_ int, at docAt) error {
				if pr.b.out.Tests+len(tests) >= limit.MaxObservedTrials {
					return newError(CodeLimitExceeded, at.path(), nil, "is test number %d; one call reads at most %d tests", pr.b.out.Tests+len(tests)+1, limit.MaxObservedTrials)
				}
				t, err := pr.test(at)
				tests = append(tests, t)
				return err
			})
		}
		return d.skip(at)
	})
	if err != nil {
		return err
	}
	ordinal, repeat := map[string]int{}, map[string]int{}
	for _, t := range tests {
		// Every test of the spec in a project is one repeat of it, in
		// order, skipped ones included, as JUnit's testsuites count them.
		repeat[t.project]++
		// A test that did not run has no start: it names the run's tests
		// without bounding when the run began.
		start, started := t.start, t.startKnown
		if !started {
			start = math.MaxInt64
		}
		switch {
		case titled:
			pr.b.runTest(newRunKey(titles, t.project, repeat[t.project]), start, true)
		case specTitled:
			pr.wait(suite, append(slices.Clip(suite.rel), specTitle), t.project, repeat[t.project], start)
		default:
			pr.b.runTest(runKey{}, start, false)
		}
		for _, tg := range tags {
			t.keep(string(FromTag)+"\x00"+tg[0], tg[1])
		}
		if id == "" {
			t.identity = "" // without a spec id nothing names the test
		}
		if t.identity != "" {
			// The spec's id, the project and when the first result
			// started name one run of a test: two shards never share it,
			// the same report passed twice always does.
			ordinal[t.project]++
			t.identity = string(FormatPlaywrightJSON) + "\x00" + id + "\x00" + t.project + "\x00" + t.identity + "\x00" + strconv.Itoa(ordinal[t.project])
		}
		if err := pr.b.add(t); err != nil {
			return err
		}
	}
	return nil
}

func (pr *pwRead) test(at docAt) (*testRecord, error) {
	d := pr.d
	t := &testRecord{at: at.kept(), msKnown: true}
	var status string
	sawStatus := false
	results := 0
	var lastStatus string
	err := d.object(at, func(name string, at docAt) error {
		switch name {
		case "projectName":
			s, err := d.str(at)
			t.project = echo.Cut(s, keptValueBytes)
			return err
		case "status":
			s, err := d.str(at)
			status, sawStatus = echo.Cut(s, keptValueBytes), true
			return err
		case "annotations":
			return d.array(at, func(_ int, at docAt) error { return pr.annotation(t, at) })
		case "results":
			resultsAt := at
			return d.array(at, func(i int, at docAt) error {
				if results++; results > limit.MaxPlaywrightResults {
					return newError(CodeLimitExceeded, resultsAt.path(), nil, "has more than %d results; a test may have at most %d (the first run and %d retries)", limit.MaxPlaywrightResults, limit.MaxPlaywrightResults, limit.MaxRetryCount)
				}
				st, err := pr.result(t, at, i == 0)
				lastStatus = st
				return err
			})
		}
		return d.skip(at)
	})
	if err != nil {
		return t, err
	}
	switch {
	case status == "skipped" && lastStatus == "interrupted":
		// Playwright's outcome leaves interrupted results out, so a test
		// stopped on its only attempt reads skipped: it ran, and the run,
		// not the planner, ended it.
		t.attempts, t.outcome = results, OutcomeInterrupted
		return t, nil
	case status == "skipped":
		t.skipped = true
		return t, nil
	case status == "expected" || status == "flaky":
		t.passed = true
	case status == "unexpected":
	default:
		if !sawStatus {
			return t, newError(CodeInvalidArgument, at.field("status").path(), playwrightStatuses, "is missing; every test of Playwright's JSON reporter has a status; pass the reporter's output unedited")
		}
		return t, newError(CodeInvalidArgument, at.field("status").path(), playwrightStatuses,
			"%s is not a test status of Playwright's JSON reporter; use one of the allowed values", echo.Value(status))
	}
	if results == 0 {
		return t, newError(CodeInvalidArgument, at.field("results").path(), nil, "is empty, but a test with status %s ran at least once; pass the reporter's output unedited", status)
	}
	t.attempts = results
	switch lastStatus {
	case "interrupted":
		t.outcome = OutcomeInterrupted
	case "timedOut":
		t.outcome = OutcomeTimedOut
	}
	return t, nil
}

// annotation reads one annotation of a test, keeping it if the mapping or
// the token annotations read its type.
func (pr *pwRead) annotation(t *testRecord, at docAt) error {
	d := pr.d
	var typ, desc string
	if err := d.object(at, func(name string, at docAt) error {
		switch name {
		case "type":
			s, err := d.str(at)
			typ = echo.Cut(s, keptValueBytes)
			return err
		case "description":
			s, err := d.str(at)
			desc = echo.Cut(s, keptValueBytes)
			return err
		}
		return d.skip(at)
	}); err != nil {
		return err
	}
	switch {
	case typ == InputTokensAnnotation:
		t.keepToken(0, desc, at.field("description"))
	case typ == OutputTokensAnnotation:
		t.keepToken(1, desc, at.field("description"))
	case containsString(pr.notes, typ):
		t.keep(string(FromAnnotation)+"\x00"+typ, desc)
	}
	return nil
}

// result reads one result (attempt) of a test and returns its status.
func (pr *pwRead) result(t *testRecord, at docAt, first bool) (string, error) {
	d := pr.d
	var status string
	sawDuration := false
	err := d.object(at, func(name string, at docAt) error {
		switch name {
		case "status":
			s, err := d.str(at)
			status = echo.Cut(s, 32)
			return err
		case "duration":
			ms, err := d.num(at)
			if err != nil {
				return err
			}
			if ms < 0 || ms > limit.MaxTrialLatencyMs {
				return newError(CodeInvalidArgument, at.path(), nil, "is %g ms; a duration runs from 0 to %d ms", ms, limit.MaxTrialLatencyMs)
			}
			t.ms += ms
			sawDuration = true
			return nil
		case "startTime":
			s, err := d.str(at)
			if first {
				t.identity = instant(s)
				if at, zoned, ok := parseInstant(s); ok && zoned {
					t.start, t.startKnown = at.UnixNano(), true
				}
			}
			return err
		case "error":
			return pr.errorValue(t, at)
		case "errors":
			return d.array(at, func(_ int, at docAt) error { return pr.errorValue(t, at) })
		case "attachments":
			return d.array(at, func(_ int, at docAt) error { return pr.attachment(t, at) })
		case "steps":
			return d.array(at, func(_ int, at docAt) error { return pr.step(t, at) })
		}
		return d.skip(at)
	})
	if !sawDuration {
		t.msKnown = false
	}
	return status, err
}

// step reads one step of a result, and its steps: the title of the first
// step that has an error, outermost first, is kept once. A test.step that
// fails carries the error of the expect inside it too, so the outermost one
// is the step the spec named (in an exported spec, a graph node ID).
func (pr *pwRead) step(t *testRecord, at docAt) error {
	d := pr.d
	if d.dec.PeekKind() != '{' {
		return d.skip(at)
	}
	var title string
	failed := false
	had := t.step != ""
	err := d.object(at, func(name string, at docAt) error {
		switch name {
		case "title":
			if d.dec.PeekKind() != '"' {
				return d.skip(at)
			}
			s, err := d.str(at)
			title = echo.Cut(s, limit.MaxIDLength)
			return err
		case "error":
			failed = d.dec.PeekKind() == '{'
		case "steps":
			return d.array(at, func(_ int, at docAt) error { return pr.step(t, at) })
		}
		return d.skip(at)
	})
	// A failed step replaces what its own steps kept, whatever the order of
	// its members, unless a step before it had failed already.
	if failed && title != "" && !had {
		t.step = title
	}
	return err
}

// errorValue reads a TestError, keeping the first message.
func (pr *pwRead) errorValue(t *testRecord, at docAt) error {
	d := pr.d
	if d.dec.PeekKind() != '{' {
		return d.skip(at)
	}
	return d.object(at, func(name string, at docAt) error {
		if name == "message" && d.dec.PeekKind() == '"' {
			s, err := d.str(at)
			t.keepError(s)
			return err
		}
		return d.skip(at)
	})
}

// attachment reads one attachment, keeping its name and path (a body,
// inline, is skipped).
func (pr *pwRead) attachment(t *testRecord, at docAt) error {
	d := pr.d
	var name, path string
	if err := d.object(at, func(member string, at docAt) error {
		switch member {
		case "name":
			s, err := d.str(at)
			name = echo.Cut(s, limit.MaxIDLength)
			return err
		case "path":
			s, err := d.str(at)
			path = echo.Cut(s, limit.MaxPathLength)
			return err
		}
		return d.skip(at)
	}); err != nil {
		return err
	}
	t.keepAttachment(name, path)
	return nil
}

// ComparePlaywrightReportInput compares the planners of a Playwright JSON report.
type ComparePlaywrightReportInput struct {
	CorpusVersion string        `json:"corpusVersion" jsonschema:"owned corpus version the runs were recorded against; must be a supported one" validate:"required,automium_corpus_version"`
	Planners      []PlannerRef  `json:"planners" jsonschema:"the planners the report's tests name, 1 to 16, each with id, vendor and model and a unique id; reported in this order" validate:"required,min=1,max=16,dive"`
	Report        string        `json:"report" jsonschema:"the content of the JSON reporter's output (not a file name), at most 8 MiB" validate:"required,max_playwright_report_bytes"`
	Mapping       ReportMapping `json:"mapping" jsonschema:"where planner and journey are" validate:"required"`
	// Rows selects the per-journey rows the comparison carries, as in
	// [CompareObservedTrialsInput]; the zero value is the summary.
	Rows RowSelection `json:"-"`
}

// ComparePlaywrightReport reads the report's content with
// [TrialsFromPlaywrightReport] and compares its planners with
// [CompareObservedTrials]: the report's basis is observed and nothing in it was
// verified. A problem of a trial is reported at its test's path in the report.
func ComparePlaywrightReport(ctx context.Context, in ComparePlaywrightReportInput) (ReportsComparison, error) {
	if err := checkContext(ctx); err != nil {
		return ReportsComparison{}, err
	}
	if len(in.Report) > limit.MaxPlaywrightReportBytes {
		return ReportsComparison{}, newError(CodeLimitExceeded, reportRoot, nil,
			"is larger than %d bytes; split the run into smaller reports (by project or shard)", limit.MaxPlaywrightReportBytes)
	}
	ps := newProblems(in)
	// The planners are checked as every comparison checks them (see
	// CompareReports).
	ps.validate(in, field("planners").at(anyIndex))
	plannerListProblems(ps, in.Planners)
	sourceFromProblems(ps, in.Mapping)
	if err := ps.err(); err != nil {
		return ReportsComparison{}, err
	}
	if err := mappingProblems(in.Mapping); err != nil {
		return ReportsComparison{}, movedProblems(err, func(at Path) Path {
			return Path{steps: append([]pathStep{{name: "mapping"}}, at.steps...)}
		})
	}
	b := newTrialBuilder(in.Mapping)
	if err := b.read(ctx, strings.NewReader(in.Report), FormatPlaywrightJSON, reportRoot); err != nil {
		return ReportsComparison{}, err
	}
	if err := b.done(reportRoot); err != nil {
		return ReportsComparison{}, err
	}
	read, paths := b.out, b.paths
	report, err := CompareObservedTrials(ctx, CompareObservedTrialsInput{CorpusVersion: in.CorpusVersion, Planners: in.Planners, Trials: read.Trials, Rows: in.Rows})
	if err != nil {
		// A trial's members have no counterpart of the same name in its
		// test, so the test's path alone says where to look, and the
		// message what.
		return ReportsComparison{}, movedProblems(err, func(at Path) Path {
			if st := at.steps; len(st) >= 2 && st[0].name == "trials" && !st[0].elem && st[1].elem && st[1].index < len(paths) {
				return paths[st[1].index]
			}
			return at
		})
	}
	return ReportsComparison{Import: importOf(read), Comparison: report}, nil
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

// sourceFromProblems says, of an empty source (absent, or {}), that it is
// missing its from too: at its own path, with the allowed values, beside "is
// required".
func sourceFromProblems(ps *problems, m ReportMapping) {
	for _, name := range []string{"planner", "journey"} {
		if at := field("mapping").dot(name); ps.has(at) && !ps.has(at.dot("from")) {
			if src := map[string]ReportSource{"planner": m.Planner, "journey": m.Journey}[name]; src.From == "" {
				ps.add(at.dot("from"), CodeInvalidArgument, []string{string(FromAnnotation), string(FromProject), string(FromTag)},
					"is required: say where each test's %s is written, with one of the allowed values", name)
			}
		}
	}
}
