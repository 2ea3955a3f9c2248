package automium

import (
	"context"
	"crypto/sha256"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// Outcome is a test outcome a mapping may call not evaluable
// (ReportMapping.NotEvaluable); its string is the wire form.
type Outcome string

// The outcomes a mapping may call not evaluable; absent, a mapping calls
// OutcomeError and OutcomeInterrupted not evaluable, which say nothing about
// the planner, and a timeout stays a failure.
const (
	// OutcomeInterrupted is a Playwright test whose last result has status
	// interrupted: the run was stopped (a crashed worker, a cancelled job).
	OutcomeInterrupted Outcome = "interrupted"
	// OutcomeTimedOut is a Playwright test whose last result has status
	// timedOut, or a JUnit failure or error whose message says "timeout"
	// (Playwright's and pytest-timeout's wording; a heuristic, since JUnit has
	// no timeout element).
	OutcomeTimedOut Outcome = "timedOut"
	// OutcomeError is a JUnit testcase with an <error> rather than a
	// <failure>: JUnit's name for an unexpected exception outside the
	// assertions. Playwright's junit reporter writes <error> for any failure
	// not raised by an expect matcher.
	OutcomeError Outcome = "error"
	// OutcomeNone, alone, says that no outcome is not evaluable: every test
	// that ran passed or failed.
	OutcomeNone Outcome = "none"
)

// defaultNotEvaluable is what a mapping without notEvaluable calls not
// evaluable: an interrupted run and a JUnit error, which say nothing about
// the planner. A timeout stays a failure unless the caller says otherwise.
var defaultNotEvaluable = []Outcome{OutcomeError, OutcomeInterrupted}

// The annotation types (Playwright JSON) and property names (JUnit) that
// carry a trial's tokens; a test with neither has its tokens unknown.
const (
	InputTokensAnnotation  = "automium.inputTokens"
	OutputTokensAnnotation = "automium.outputTokens"
)

// ImportedTrials is what an importer ([TrialsFromPlaywrightReport],
// [TrialsFromJUnitReport]) read from one report, or from several merged.
type ImportedTrials struct {
	Trials        []Trial       `json:"trials" jsonschema:"one trial per test that ran, in report order"`
	Tests         int           `json:"tests" jsonschema:"tests in the report, skipped ones included"`
	Skipped       int           `json:"skipped" jsonschema:"tests with status skipped, left out of the trials"`
	Flaky         int           `json:"flaky" jsonschema:"tests that failed, then passed on a retry"`
	Retried       int           `json:"retried" jsonschema:"tests retried at least once, whatever their final status"`
	NotEvaluable  int           `json:"notEvaluable" jsonschema:"trials marked not evaluable by the mapping's notEvaluable outcomes"`
	Sources       []string      `json:"sources" jsonschema:"source of each trial in the report, as a path (report.suites[0].specs[1].tests[2])"`
	Triage        []TrialTriage `json:"triage,omitempty" jsonschema:"the first failed or not-evaluable trials, at most 100, with what triage needs"`
	TriageOmitted int           `json:"triageOmitted,omitempty" jsonschema:"failed or not-evaluable trials beyond those in triage"`
}

// TrialTriage is what a failed or not-evaluable trial leaves for triage:
// where it is, its first error message and the files its reporter attached,
// as paths that are never opened.
type TrialTriage struct {
	Source       string             `json:"source" jsonschema:"source of the trial in its report"`
	PlannerID    string             `json:"plannerId" jsonschema:"planner of the trial"`
	JourneyID    string             `json:"journeyId" jsonschema:"journey of the trial"`
	Repetition   int                `json:"repetition" jsonschema:"repetition of the trial"`
	NotEvaluable bool               `json:"notEvaluable,omitempty" jsonschema:"whether the trial is not evaluable rather than failed"`
	FailedStep   string             `json:"failedStep,omitempty" jsonschema:"title of the first test.step that failed (Playwright JSON); in an exported spec, the graph node that failed"`
	Error        string             `json:"error,omitempty" jsonschema:"the first error message, cut to 300 bytes"`
	Attachments  []TriageAttachment `json:"attachments,omitempty" jsonschema:"files the reporter attached (trace, screenshot, video), never opened"`
}

// TriageAttachment is one file a reporter attached to a test.
type TriageAttachment struct {
	Name string `json:"name" jsonschema:"trace, screenshot, video, or the reporter's name for it"`
	Path string `json:"path" jsonschema:"the path as the reporter wrote it, cut to 512 bytes; never opened"`
}

// keptValueBytes bounds a kept planner, journey, project or repetition value:
// longer than any valid ID, so that validation still refuses a long one,
// and short enough that keeping one per test stays cheap.
const keptValueBytes = 4 * limit.MaxIDLength

// maxKeptValues is how many distinct values of one mapped name a test keeps:
// two are enough to say that it has more than one.
const maxKeptValues = 2

// testRecord is what an importer keeps of one test until it becomes a trial:
// only what the mapping reads, bounded.
type testRecord struct {
	at       Path
	line     int    // XML line of the test; 0 for JSON
	identity string // names the run of the test in its format, for duplicates
	project  string
	values   map[string][]string // mapped name -> distinct values, at most maxKeptValues
	tokens   [2]float64          // summed input and output token annotations
	tokensIn [2]bool             // whether each was given
	tokenBad Path                // a token annotation that is not a count
	skipped  bool
	passed   bool
	errored  bool    // a JUnit <error>, for totals
	outcome  Outcome // the outcome a mapping may call not evaluable, or ""
	attempts int
	ms       float64
	msKnown  bool
	errMsg   string
	step     string // the title of the first step that failed, in Playwright JSON
	attach   []TriageAttachment
}

// keep records one value of a mapped name, as a bounded distinct list.
func (t *testRecord) keep(name, v string) {
	if t.values == nil {
		t.values = map[string][]string{}
	}
	v = echo.Cut(v, keptValueBytes)
	vs := t.values[name]
	if len(vs) < maxKeptValues && !containsString(vs, v) {
		t.values[name] = append(vs, v)
	}
}

// keepToken adds one token annotation's value.
func (t *testRecord) keepToken(i int, v string, at Path) {
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || n < 0 || n != math.Trunc(n) || n > limit.MaxTrialTokens {
		if t.tokenBad.steps == nil {
			t.tokenBad = at
		}
		return
	}
	t.tokens[i] += n
	t.tokensIn[i] = true
}

// keepError keeps the first error message.
func (t *testRecord) keepError(msg string) {
	if t.errMsg != "" {
		return
	}
	if msg = strings.TrimSpace(stripANSI(msg)); msg != "" {
		t.errMsg = echo.Cut(msg, limit.MaxTriageErrorBytes)
	}
}

// keepAttachment keeps one attachment's path. Its name loses terminal and
// bidi controls as an error message does; a path that holds one is not kept,
// since the path without it would name another file and the path with it
// could drive the terminal that prints it (a tab or line break included).
func (t *testRecord) keepAttachment(name, path string) {
	if path == "" || len(t.attach) >= limit.MaxTriageAttachments || strings.ContainsFunc(path, func(r rune) bool { return r < 0x20 || plainDrop(r) }) {
		return
	}
	name = strings.TrimSpace(stripANSI(name))
	t.attach = append(t.attach, TriageAttachment{Name: echo.Cut(name, limit.MaxIDLength), Path: echo.Cut(path, limit.MaxPathLength)})
}

// trialBuilder turns test records into trials, for one or several reports
// read in turn: repetitions count on across reports, and the same test run
// twice is refused with both places named.
type trialBuilder struct {
	mapping ReportMapping
	notEval map[Outcome]bool
	out     ImportedTrials
	runs    map[[2]string]int // (planner, journey) -> runs so far
	reps    map[[3]string]int // (planner, journey, repetition) -> trial, when the mapping reads repetitions
	seen    map[[32]byte]int  // a test run's identity -> trial
	paths   []Path            // where each trial's test is
	format  ReportFormat      // the format read, for messages
	// count, when set, only counts tests as JUnit totals do, with no
	// mapping: TestRealJUnitReports holds the reader to a producer's header.
	count *junitTotals
}

// junitTotals are a JUnit report's totals, as its header states them.
type junitTotals struct{ Tests, Failures, Errors, Skipped int }

func newTrialBuilder(m ReportMapping) *trialBuilder {
	b := &trialBuilder{mapping: m, notEval: map[Outcome]bool{}, runs: map[[2]string]int{}, reps: map[[3]string]int{}, seen: map[[32]byte]int{}}
	outcomes := m.NotEvaluable
	if outcomes == nil {
		outcomes = defaultNotEvaluable
	}
	for _, o := range outcomes {
		b.notEval[o] = true
	}
	return b
}

// wantedNames are the annotation, property or tag names a test record keeps.
func (b *trialBuilder) wanted(kind SourceFrom) []string {
	var names []string
	for _, src := range []*ReportSource{&b.mapping.Planner, &b.mapping.Journey, b.mapping.Repetition} {
		if src != nil && src.From == kind {
			names = append(names, src.Name)
		}
	}
	return names
}

// add turns one test record into a trial.
func (b *trialBuilder) add(t *testRecord) error {
	if c := b.count; c != nil {
		c.Tests++
		c.Skipped += b2i(t.skipped)
		c.Errors += b2i(!t.skipped && t.errored)
		c.Failures += b2i(!t.skipped && !t.passed && !t.errored)
		return nil
	}
	b.out.Tests++
	if b.out.Tests > limit.MaxObservedTrials {
		return newError(CodeLimitExceeded, t.at, nil, "is test number %d; one call reads at most %d tests", b.out.Tests, limit.MaxObservedTrials)
	}
	if t.skipped {
		b.out.Skipped++
		return nil
	}
	if t.attempts > limit.MaxPlaywrightResults {
		return newError(CodeLimitExceeded, t.at, nil, "ran %d times; a test may run at most %d times (the first run and %d retries)", t.attempts, limit.MaxPlaywrightResults, limit.MaxRetryCount)
	}
	planner, err := b.value(b.mapping.Planner, t, "planner")
	if err != nil {
		return err
	}
	journey, err := b.value(b.mapping.Journey, t, "journey")
	if err != nil {
		return err
	}
	if t.ms < 0 || t.ms > limit.MaxTrialLatencyMs {
		return newError(CodeLimitExceeded, t.at, nil, "lasts %g ms in all; a trial lasts from 0 to %d ms", t.ms, limit.MaxTrialLatencyMs)
	}
	if t.tokenBad.steps != nil {
		return newError(CodeInvalidArgument, t.tokenBad, nil, "is not a token count; %s and %s carry whole numbers from 0 to %d", echo.Value(InputTokensAnnotation), echo.Value(OutputTokensAnnotation), limit.MaxTrialTokens)
	}
	if t.tokensIn[0] != t.tokensIn[1] {
		return newError(CodeInvalidArgument, t.at, nil, "gives one of %s and %s but not the other; give both, or neither to leave its tokens unknown",
			echo.Value(InputTokensAnnotation), echo.Value(OutputTokensAnnotation))
	}
	if t.tokens[0] > limit.MaxTrialTokens || t.tokens[1] > limit.MaxTrialTokens {
		return newError(CodeLimitExceeded, t.at, nil, "spent more than %d tokens of one kind; a trial spends at most that many", limit.MaxTrialTokens)
	}
	key := [2]string{planner, journey}
	var rep int
	if src := b.mapping.Repetition; src != nil {
		v, err := b.value(*src, t, "repetition")
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > limit.MaxRepetitions {
			return newError(CodeInvalidArgument, t.at, nil, "has repetition %s; a repetition is a whole number from 1 to %d", echo.Value(v), limit.MaxRepetitions)
		}
		rep = n
		if prev, ok := b.reps[[3]string{planner, journey, v}]; ok {
			return newError(CodeInvalidArgument, t.at, nil, "is repetition %d of journey %s by planner %s, which %s already is; each run of a journey comes in once: pass each shard once",
				n, echo.Value(journey), echo.Value(planner), b.out.Sources[prev])
		}
		b.reps[[3]string{planner, journey, v}] = len(b.out.Trials)
	}
	if t.identity != "" && b.mapping.Repetition == nil {
		id := sha256.Sum256([]byte(t.identity))
		if prev, ok := b.seen[id]; ok {
			return newError(CodeInvalidArgument, t.at, nil, "is the same run of the same test as %s (same test, same start); pass each shard once", b.out.Sources[prev])
		}
		b.seen[id] = len(b.out.Trials)
	}
	b.runs[key]++
	if b.runs[key] > limit.MaxRepetitions {
		return newError(CodeLimitExceeded, t.at, nil, "is run %d of journey %s by planner %s; at most %d runs of a journey per planner are compared",
			b.runs[key], echo.Value(journey), echo.Value(planner), limit.MaxRepetitions)
	}
	if rep == 0 {
		rep = b.runs[key]
	}
	appID, fixtureID := b.mapping.AppID, b.mapping.FixtureID
	if ref, ok := owned().journeyByID[journey]; ok {
		appID, fixtureID = ref.AppID, ref.FixtureID
	} else if appID == "" {
		return newError(CodeInvalidArgument, t.at, nil,
			"journey %s is not a reference journey of the owned corpus, so its app and fixture are unknown; give appId and fixtureId in the mapping", echo.Value(journey))
	}
	attempts := max(t.attempts, 1)
	notEval := !t.passed && t.outcome != "" && b.notEval[t.outcome]
	tr := Trial{
		PlannerID: planner, AppID: appID, FixtureID: fixtureID, JourneyID: journey, Repetition: rep,
		Passed:            t.passed,
		LatencyMs:         int(math.Round(t.ms)),
		LatencyUnknown:    !t.msKnown,
		TokensUnknown:     !t.tokensIn[0],
		InputTokens:       int(t.tokens[0]),
		OutputTokens:      int(t.tokens[1]),
		Attempts:          attempts,
		NotEvaluable:      notEval,
		RecoveryTriggered: attempts > 1,
		Recovered:         t.passed && attempts > 1,
	}
	if !t.msKnown {
		tr.LatencyMs = 0
	}
	b.out.Trials = append(b.out.Trials, tr)
	b.out.Sources = append(b.out.Sources, t.at.String())
	b.paths = append(b.paths, t.at)
	b.out.Flaky += b2i(tr.Recovered)
	b.out.Retried += b2i(attempts > 1)
	b.out.NotEvaluable += b2i(notEval)
	if !t.passed {
		if len(b.out.Triage) < limit.MaxTriage {
			b.out.Triage = append(b.out.Triage, TrialTriage{
				Source: t.at.String(), PlannerID: planner, JourneyID: journey, Repetition: rep,
				NotEvaluable: notEval, FailedStep: t.step, Error: t.errMsg, Attachments: t.attach,
			})
		} else {
			b.out.TriageOmitted++
		}
	}
	return nil
}

// value reads one mapped value of a test; what is the mapping's field name.
func (b *trialBuilder) value(src ReportSource, t *testRecord, what string) (string, error) {
	var found []string
	switch src.From {
	case FromProject:
		if t.project != "" {
			found = []string{echo.Cut(t.project, keptValueBytes)}
		}
	default:
		found = t.values[string(src.From)+"\x00"+src.Name]
	}
	if len(found) == 1 && found[0] != "" {
		return found[0], nil
	}
	// Only a test the mapping cannot place pays for the wording.
	var where echo.Message
	switch {
	case src.From == FromTag:
		where = echo.Msg("a tag %s on its spec", echo.Value("@"+src.Name+":<"+what+">"))
	case src.From == FromAnnotation && b.format == FormatJUnit:
		where = echo.Msg("a property %s with the "+what+" as its value", echo.Value(src.Name))
	case src.From == FromAnnotation:
		where = echo.Msg("an annotation of type %s with the "+what+" as its description", echo.Value(src.Name))
	case b.format == FormatJUnit:
		where = echo.Msg("its testsuite's hostname (where Playwright's junit reporter writes the project)")
	default:
		where = echo.Msg("a projectName")
	}
	if len(found) > 1 {
		return "", newError(CodeInvalidArgument, t.at, nil, "has %d %ss (%s and %s) from %s; give each test one", len(found), what, echo.Value(found[0]), echo.Value(found[1]), where)
	}
	return "", newError(CodeInvalidArgument, t.at, nil, "has no %s: the mapping reads the %s from %s; add it to the test or change mapping.%s", what, what, where, what)
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ReportImport counts what the reports of a comparison held.
type ReportImport struct {
	Tests         int           `json:"tests" jsonschema:"tests in the reports, skipped ones included"`
	TrialCount    int           `json:"trials" jsonschema:"tests that ran, one trial each"`
	Skipped       int           `json:"skipped" jsonschema:"tests skipped, left out of the trials"`
	Flaky         int           `json:"flaky" jsonschema:"tests that failed, then passed on a retry"`
	Retried       int           `json:"retried" jsonschema:"tests retried at least once, whatever their final status"`
	NotEvaluable  int           `json:"notEvaluable" jsonschema:"trials not evaluable (infrastructure errors), out of every denominator"`
	Triage        []TrialTriage `json:"triage,omitempty" jsonschema:"the first failed or not-evaluable trials, at most 100, for triage"`
	TriageOmitted int           `json:"triageOmitted,omitempty" jsonschema:"failed or not-evaluable trials beyond those in triage"`
}

func importOf(read ImportedTrials) ReportImport {
	return ReportImport{Tests: read.Tests, TrialCount: len(read.Trials), Skipped: read.Skipped, Flaky: read.Flaky, Retried: read.Retried,
		NotEvaluable: read.NotEvaluable, Triage: read.Triage, TriageOmitted: read.TriageOmitted}
}

// ReportsComparison is a comparison of the planners of one or more reports.
type ReportsComparison struct {
	Import     ReportImport     `json:"import" jsonschema:"what was read from the reports"`
	Comparison ComparisonReport `json:"comparison" jsonschema:"the observed comparison of the trials read"`
}

// ReportContent is one report of a comparison, inline.
type ReportContent struct {
	Format  ReportFormat `json:"format" jsonschema:"format; playwright-json or junit" validate:"required,oneof=junit playwright-json"`
	Content string       `json:"content" jsonschema:"text, not a file name" validate:"required,max_playwright_report_bytes"`
}

// CompareReportsInput compares the planners of one or more reports: the
// shards of one run, of one format or mixed.
type CompareReportsInput struct {
	CorpusVersion string          `json:"corpusVersion" jsonschema:"corpus version" validate:"required,automium_corpus_version"`
	Planners      []PlannerRef    `json:"planners" jsonschema:"planners, 1 to 16; reported in this order" validate:"required,min=1,max=16,dive"`
	Reports       []ReportContent `json:"reports" jsonschema:"reports (shards in order), 1 to 64" validate:"required,min=1,max=64,dive"`
	Mapping       ReportMapping   `json:"mapping" jsonschema:"where planner and journey are" validate:"required"`
	Journeys      []string        `json:"journeys,omitempty" jsonschema:"their rows; absent: the flagged rows" validate:"max=64,dive,max_id_length"`
	Rows          RowSelection    `json:"-"`
}

// ReportReader is one report a Go caller streams to [ReadReports].
type ReportReader struct {
	// FormatPlaywrightJSON or FormatJUnit.
	Format ReportFormat
	// The report's bytes, read once, token by token.
	R io.Reader
}

// ReadReports reads reports of one format or mixed (the shards of one run)
// and merges their trials, in order: repetitions count on from one report to
// the next, and the same run of a test in two reports, or the same planner,
// journey and repetition twice when the mapping reads repetitions, is
// refused with both places named. Memory is proportional to the trials
// kept, whatever the reports' sizes; problems are reported at
// reports[i].content paths.
func ReadReports(ctx context.Context, m ReportMapping, reports ...ReportReader) (ImportedTrials, error) {
	if err := checkContext(ctx); err != nil {
		return ImportedTrials{}, err
	}
	if err := mappingProblems(m); err != nil {
		return ImportedTrials{}, err
	}
	b, err := readReports(ctx, m, reports)
	if err != nil {
		return ImportedTrials{}, err
	}
	return b.out, nil
}

func readReports(ctx context.Context, m ReportMapping, reports []ReportReader) (*trialBuilder, error) {
	if len(reports) == 0 || len(reports) > limit.MaxReports {
		return nil, newError(CodeInvalidArgument, field("reports"), nil, "has %d reports; pass 1 to %d", len(reports), limit.MaxReports)
	}
	b := newTrialBuilder(m)
	for i, r := range reports {
		root := field("reports").at(i).dot("content")
		if r.Format != FormatJUnit && r.Format != FormatPlaywrightJSON {
			return nil, newError(CodeInvalidArgument, field("reports").at(i).dot("format"), []string{string(FormatJUnit), string(FormatPlaywrightJSON)}, "%s is not a report format; use one of the allowed values", echo.Value(r.Format))
		}
		if r.R == nil {
			return nil, newError(CodeInvalidArgument, root, nil, "the reader is nil; pass the report's content")
		}
		if err := b.read(ctx, r.R, r.Format, root); err != nil {
			return nil, err
		}
	}
	if err := b.done(field("reports")); err != nil {
		return nil, err
	}
	return b, nil
}

// CompareReports reads the reports with [ReadReports] and compares their
// planners with [CompareObservedTrials]: the basis is observed and nothing
// in them was verified. A problem of a trial is reported at its test's path
// in its report.
func CompareReports(ctx context.Context, in CompareReportsInput) (ReportsComparison, error) {
	if err := checkContext(ctx); err != nil {
		return ReportsComparison{}, err
	}
	ps := newProblems(in)
	// The planners are checked as every comparison checks them (one
	// malformed_planner naming every missing part, IDs unique), by
	// plannerListProblems alone: the catalog advertises them as the planner
	// of automium_create_run_submission.
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
	readers := make([]ReportReader, len(in.Reports))
	for i, r := range in.Reports {
		readers[i] = ReportReader{Format: r.Format, R: strings.NewReader(r.Content)}
	}
	b, err := readReports(ctx, in.Mapping, readers)
	if err != nil {
		return ReportsComparison{}, err
	}
	report, err := CompareObservedTrials(ctx, CompareObservedTrialsInput{CorpusVersion: in.CorpusVersion, Planners: in.Planners, Trials: b.out.Trials, Journeys: in.Journeys, Rows: in.Rows})
	if err != nil {
		return ReportsComparison{}, movedProblems(err, func(at Path) Path {
			if st := at.steps; len(st) >= 2 && st[0].name == "trials" && !st[0].elem && st[1].elem && st[1].index < len(b.paths) {
				return b.paths[st[1].index]
			}
			return at
		})
	}
	imp := importOf(b.out)
	imp.cutTriage(limit.MaxComparisonAnswerBytes - 2<<10 - jsonSize(&report))
	return ReportsComparison{Import: imp, Comparison: report}, nil
}

// cutTriage keeps the triage entries whose JSON fits in budget bytes, in
// order, and counts the rest in TriageOmitted: an entry may carry four
// attachment paths of 512 characters, so MaxTriage entries could otherwise
// take a megabyte of an answer bounded by MaxComparisonAnswerBytes. The
// report leaves the triage at least minTriageJSONBytes.
func (imp *ReportImport) cutTriage(budget int) {
	used := 0
	for i := range imp.Triage {
		used += jsonSize(&imp.Triage[i]) + 1
		if used > budget {
			imp.TriageOmitted += len(imp.Triage) - i
			imp.Triage = imp.Triage[:i]
			return
		}
	}
}

// instant is a report's timestamp as the identity of a run keeps it: one
// instant written any way RFC 3339 allows ("...00.000Z", "...00Z",
// "...02:00+02:00", lower-case t and z) is one string, so the same shard passed
// twice is caught however a tool re-wrote its timestamps; a timestamp with no
// zone (as Surefire and pytest write local time) keeps its wall clock with its
// fraction normalized; anything else is kept as written, cut.
func instant(s string) string {
	s = strings.TrimSpace(s)
	u := strings.ToUpper(s)
	if t, err := time.Parse(time.RFC3339Nano, u); err == nil {
		return t.UTC().Format(time.RFC3339Nano)
	}
	const local = "2006-01-02T15:04:05.999999999"
	if t, err := time.Parse(local, u); err == nil {
		return t.Format(local)
	}
	return echo.Cut(s, 64)
}

// stripANSI makes a test's error message plain text for triage: it drops the
// terminal colour sequences (ESC [ ... letter) that Playwright writes into its
// error messages, as its junit reporter does, and with them every other
// terminal control a report could carry to whoever prints the triage: OSC
// sequences (ESC ] ... BEL or ESC \, which set a window title or make a
// hidden hyperlink), the 8-bit CSI U+009B and every other C0 or C1 control
// but tab and line feed, and the bidi controls that make a message read in
// another order than it is written (U+202E and its kin).
func stripANSI(s string) string {
	clean := true
	for _, r := range s {
		if plainDrop(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b && i+1 < len(s) && s[i+1] == '[', r == 0x9b:
			// CSI: parameters and intermediates up to a final byte.
			j := i + n
			if r == 0x1b {
				j++
			}
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j + 1
			continue
		case r == 0x1b && i+1 < len(s) && s[i+1] == ']':
			// OSC: up to BEL or ESC \ (or the end).
			j := i + 2
			for j < len(s) && s[j] != 0x07 && s[j] != 0x1b {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j + 1
			continue
		case plainDrop(r) && r != utf8.RuneError:
			i += n
			continue
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

// plainDrop reports whether r is a control stripANSI drops: C0 and C1
// controls but tab and line feed, DEL, and the bidi controls.
func plainDrop(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7f && r <= 0x9f) || unicode.Is(unicode.Bidi_Control, r)
}
