package automium

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json/jsontext"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// ReportFormat is a format of test report that [CompareReports] reads; its
// string is the wire form, as in reports[].format.
type ReportFormat string

// The report formats: each is one row of reportFormats.
const (
	// FormatPlaywrightJSON is the output of Playwright's JSON reporter.
	FormatPlaywrightJSON ReportFormat = "playwright-json"
	// FormatJUnit is JUnit XML, as Playwright's junit reporter, pytest
	// --junitxml, Maven Surefire, Jest, Cypress and most CI tools write it.
	FormatJUnit ReportFormat = "junit"
	// FormatInspectAI is an Inspect AI eval log: the JSON log, or the .eval
	// zip archive (its bytes; base64 over the wire).
	FormatInspectAI ReportFormat = "inspect-ai"
	// FormatTau2 is a τ²-bench results file: the monolithic results JSON,
	// or the results.json of a results folder (its simulation_index).
	FormatTau2 ReportFormat = "tau2"
)

// reportFormat is one row of the format table: a format's wire name, its
// reader, and what the shared core says about it. A format is one file with
// its reader and its row; the core never branches on a format's name.
type reportFormat struct {
	name ReportFormat
	// read reads one report of the format into the builder, at root.
	read func(b *trialBuilder, ctx context.Context, r io.Reader, root Path) error
	// tags says whether a mapping may read from tags; noTags, when not, is
	// the rest of the sentence "the report is ..." that says what to map
	// instead.
	tags   bool
	noTags string
	// project says where the format writes a test's project, and
	// annotation, with the name and the mapped field's name for its verbs,
	// where an annotation of that name is: the messages of a test the
	// mapping cannot place.
	project    string
	annotation string
	// detect reports whether the first bytes of a file (at most
	// DetectBytes, a UTF-8 byte order mark and white space trimmed) are the
	// format's, as its producer writes them; see DetectReportFormat.
	detect func(head []byte) bool
	// notEvaluable, when set, is what a mapping without notEvaluable calls
	// not evaluable in this format, where its producer means something else
	// by an outcome than defaultNotEvaluable says: an Inspect sample error
	// is a run Inspect could not finish, not an answer it scored.
	notEvaluable []Outcome
	// slugJourneys says that the format's journey values are the
	// producer's own IDs (a τ² task ID, an Inspect sample ID), made journey
	// IDs by journeySlug.
	slugJourneys bool
}

// reportFormats is the format table, in the order the wire lists formats.
// It is filled at initialisation (init, below): its readers reach the
// builder, which reaches a row, so a literal would be an initialisation cycle.
var reportFormats []*reportFormat

// reportFormatNames are the table's names, for the validate tag and the
// schema's enum.
var reportFormatNames []string

func init() {
	reportFormats = []*reportFormat{&junitFormat, &playwrightFormat, &inspectFormat, &tau2Format}
	for _, f := range reportFormats {
		reportFormatNames = append(reportFormatNames, string(f.name))
	}
}

var _ = registerTag("automium_report_format", CodeInvalidArgument, "a report format", func() []string { return reportFormatNames })

// DetectBytes is how many first bytes of a file DetectReportFormat reads.
const DetectBytes = 512

// DetectReportFormat names the format of a file from its first bytes (at
// most DetectBytes are read), for a command line that reads files a user
// names: the one format of the table whose producer starts a file that way
// (a zip archive for Inspect's .eval, an XML element for JUnit, the first
// member its writer puts first for the JSON formats). It answers false when
// no format, or more than one, matches; the caller then asks for the format.
func DetectReportFormat(head []byte) (ReportFormat, bool) {
	head = head[:min(len(head), DetectBytes)]
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	var found ReportFormat
	for _, row := range reportFormats {
		if row.detect != nil && row.detect(head) {
			if found != "" {
				return "", false
			}
			found = row.name
		}
	}
	return found, found != ""
}

// firstMember is the name of the first member of the JSON object head
// starts, unescaped, or "" when head starts no object with a whole name.
func firstMember(head []byte) string {
	if len(head) == 0 || head[0] != '{' {
		return ""
	}
	dec := jsontext.NewDecoder(bytes.NewReader(head))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return ""
	}
	tok, err := dec.ReadToken()
	if err != nil || tok.Kind() != '"' {
		return ""
	}
	return tok.String()
}

// formatRow is the table's row of a format, or nil.
func formatRow(f ReportFormat) *reportFormat {
	for _, row := range reportFormats {
		if row.name == f {
			return row
		}
	}
	return nil
}

// Outcome is a test outcome a mapping may call not evaluable
// (ReportMapping.NotEvaluable); its string is the wire form.
type Outcome string

// The outcomes a mapping may call not evaluable; absent, a mapping calls
// only OutcomeInterrupted not evaluable: the producer's own word for a run it
// stopped, which says nothing about the planner. Everything else a producer
// reports as a failure stays one, so that no mapping hides a regression by
// default.
const (
	// OutcomeInterrupted is a Playwright test whose last result has status
	// interrupted: the run was stopped (a crashed worker, a cancelled job,
	// --max-failures). A test interrupted on its only attempt is one too,
	// though Playwright's JSON reporter gives it status skipped (its outcome
	// leaves interrupted results out); JUnit cannot tell it from a skipped
	// test, since Playwright's junit reporter writes <skipped/> for it.
	OutcomeInterrupted Outcome = "interrupted"
	// OutcomeTimedOut is a Playwright test whose last result has status
	// timedOut, or a JUnit failure or error whose message says "timeout"
	// (Playwright's and pytest-timeout's wording; a heuristic, since JUnit has
	// no timeout element). A timeout is a failure unless the mapping lists
	// it: a journey that never finishes is the planner's failure as often as
	// the machine's, and the producer does not say which.
	OutcomeTimedOut Outcome = "timedOut"
	// OutcomeError is a JUnit testcase with an <error> rather than a
	// <failure>: JUnit's name for an unexpected exception outside the
	// assertions. It is a failure unless the mapping lists it: Playwright's
	// junit reporter writes <error> for every failure not raised by an
	// expect matcher (a thrown Error in the test body, a locator timeout), and
	// Surefire for an exception the test threw, both the planner's failure.
	OutcomeError Outcome = "error"
	// OutcomeNone, alone, says that no outcome is not evaluable: every test
	// that ran passed or failed.
	OutcomeNone Outcome = "none"
)

// defaultNotEvaluable is what a mapping without notEvaluable calls not
// evaluable: an interrupted run, which says nothing about the planner. A JUnit
// error and a timeout stay failures unless the caller says otherwise. (Until
// December 2026 a JUnit <error> was not evaluable by default, and Playwright's
// JUnit of a journey that threw on every run hid its regression.)
var defaultNotEvaluable = []Outcome{OutcomeInterrupted}

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
	Triage        []TrialTriage `json:"triage,omitempty" jsonschema:"the first failed, not-evaluable or rescued trials, at most 100, with what triage needs"`
	TriageOmitted int           `json:"triageOmitted,omitempty" jsonschema:"failed, not-evaluable or rescued trials beyond those in triage"`
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
	Rescued      bool               `json:"rescued,omitempty" jsonschema:"passed on a retry: the error is its first attempt's"`
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
	// start is when its first result started (Unix nanoseconds), if known.
	start      int64
	startKnown bool
	project    string
	values     map[string][]string // mapped name -> distinct values, at most maxKeptValues
	tokens     [2]float64          // summed input and output token annotations
	tokensIn   [2]bool             // whether each was given
	tokenBad   Path                // a token annotation that is not a count
	skipped    bool
	passed     bool
	errored    bool    // a JUnit <error>, for totals
	outcome    Outcome // the outcome a mapping may call not evaluable, or ""
	attempts   int
	ms         float64
	msKnown    bool
	errMsg     string
	step       string // the title of the first step that failed, in Playwright JSON
	rep        int    // the repetition the producer wrote (an Inspect epoch, a τ² trial + 1), or 0
	// noVerdict says that the producer gave no verdict (an unscored Inspect
	// sample, a τ² infrastructure error): the trial is not evaluable
	// whatever the mapping's notEvaluable says, since failed would be a lie.
	noVerdict bool
	attach    []TriageAttachment
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
func (t *testRecord) keepToken(i int, v string, at docAt) {
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || n < 0 || n != math.Trunc(n) || n > limit.MaxTrialTokens {
		if t.tokenBad.steps == nil {
			t.tokenBad = at.path()
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
	// slugs, for a format whose journey values are slugged, is each
	// journey ID's producer ID (its SHA-256) and first trial: a slug is
	// shorter than what it stands for, so two producer IDs could make one
	// journey ID (an ID that is a slug already and another's slug, or two
	// IDs whose 48-bit hashes meet), and they are refused, never merged.
	slugs map[string]slugSource
	// run is what the report being read says of the run it records, and
	// runsRead what each report read before it said (sameRun).
	run      reportRun
	runsRead []reportRun
	// keptRunIDs counts the ids of runsRead, against maxKeptRunIDs.
	keptRunIDs int
	paths      []Path        // where each trial's test is
	format     *reportFormat // the format read, for messages
	// count, when set, only counts tests as JUnit totals do, with no
	// mapping: TestRealJUnitReports holds the reader to a producer's header.
	count *junitTotals
}

// junitTotals are a JUnit report's totals, as its header states them.
type junitTotals struct{ Tests, Failures, Errors, Skipped int }

func newTrialBuilder(m ReportMapping) *trialBuilder {
	b := &trialBuilder{mapping: m, notEval: map[Outcome]bool{}, runs: map[[2]string]int{}, reps: map[[3]string]int{}, seen: map[[32]byte]int{}, slugs: map[string]slugSource{}}
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
	if b.format.slugJourneys {
		source := slugSource{sum: sha256.Sum256([]byte(journey)), trial: len(b.out.Trials)}
		produced := journey
		journey = journeySlug(journey)
		if prev, ok := b.slugs[journey]; !ok {
			b.slugs[journey] = source
		} else if prev.sum != source.sum {
			return newError(CodeInvalidArgument, t.at, nil, "has journey %s, which becomes journey ID %s, as the different journey of %s does; give the two journeys IDs that differ in their letters and digits",
				echo.Value(produced), echo.Value(journey), b.out.Sources[prev.trial])
		}
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
		// The repetition as a number: 1 and 01 are one repetition, refused
		// here at the test's place rather than later at a trial's.
		v = strconv.Itoa(n)
		if prev, ok := b.reps[[3]string{planner, journey, v}]; ok {
			return newError(CodeInvalidArgument, t.at, nil, "is repetition %d of journey %s by planner %s, which %s already is; each run of a journey comes in once: pass each shard once",
				n, echo.Value(journey), echo.Value(planner), b.out.Sources[prev])
		}
		b.reps[[3]string{planner, journey, v}] = len(b.out.Trials)
	} else if t.rep != 0 {
		if t.rep < 1 || t.rep > limit.MaxRepetitions {
			return newError(CodeInvalidArgument, t.at, nil, "has repetition %d; a repetition is a whole number from 1 to %d", t.rep, limit.MaxRepetitions)
		}
		rep = t.rep
		v := strconv.Itoa(rep)
		if prev, ok := b.reps[[3]string{planner, journey, v}]; ok {
			return newError(CodeInvalidArgument, t.at, nil, "is repetition %d of journey %s by planner %s, which %s already is; each run of a journey comes in once: pass each log once",
				rep, echo.Value(journey), echo.Value(planner), b.out.Sources[prev])
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
	notEval := !t.passed && (t.noVerdict || b.notEvaluable(t.outcome))
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
	// A trial a retry rescued failed its first attempt: what failed then is
	// what "why is it flaky" asks, so it is kept with the failures.
	if !t.passed || tr.Recovered {
		if len(b.out.Triage) < limit.MaxTriage {
			b.out.Triage = append(b.out.Triage, TrialTriage{
				Source: t.at.String(), PlannerID: planner, JourneyID: journey, Repetition: rep,
				NotEvaluable: notEval, Rescued: tr.Recovered, FailedStep: t.step, Error: t.errMsg, Attachments: t.attach,
			})
		} else {
			b.out.TriageOmitted++
		}
	}
	return nil
}

// notEvaluable reports whether a test that did not pass with outcome o is not
// evaluable: as the mapping lists, else as the format's row does, else
// defaultNotEvaluable.
func (b *trialBuilder) notEvaluable(o Outcome) bool {
	if o == "" {
		return false
	}
	if b.mapping.NotEvaluable == nil && b.format != nil && b.format.notEvaluable != nil {
		return slices.Contains(b.format.notEvaluable, o)
	}
	return b.notEval[o]
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
	switch src.From {
	case FromTag:
		where = echo.Msg("a tag %s on its spec", echo.Value("@"+src.Name+":<"+what+">"))
	case FromAnnotation:
		where = echo.Msg(b.format.annotation, echo.Value(src.Name), what)
	default:
		where = echo.Msg(b.format.project)
	}
	if len(found) > 1 {
		return "", newError(CodeInvalidArgument, t.at, nil, "has %d %ss (%s and %s) from %s; give each test one", len(found), what, echo.Value(found[0]), echo.Value(found[1]), where)
	}
	return "", newError(CodeInvalidArgument, t.at, nil, "has no %s: the mapping reads the %s from %s; add it to the test or change mapping.%s", what, what, where, what)
}

// slugSource is where a slugged journey ID came from: the producer's ID, by
// its SHA-256, and the first trial that gave it.
type slugSource struct {
	sum   [32]byte
	trial int
}

// journeySlug makes a producer's own ID a journey ID: an ID that is one
// already (lowercase letters, digits, '.', '_', '-', at most MaxIDLength
// bytes) is kept as it is; any other is lowercased, each run of other
// characters becomes one '-', and 12 hex digits of the SHA-256 of the ID as
// written follow, so that two IDs that differ only where the slug drops
// something stay two journeys. The τ² task
// "[mobile_data_issue]bad_vpn[PERSONA:Easy]" becomes
// "mobile_data_issue-bad_vpn-persona-easy-" and its digest.
func journeySlug(id string) string {
	if slugID(id) {
		return id
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(id) {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || b.Len() > 0 && (r == '.' || r == '_' || r == '-')
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= limit.MaxIDLength-13 {
			break
		}
	}
	s := b.String()
	if len(s) > limit.MaxIDLength-13 {
		s = s[:limit.MaxIDLength-13]
	}
	if s != "" && !strings.HasSuffix(s, "-") {
		s += "-"
	}
	sum := sha256.Sum256([]byte(id))
	return s + hex.EncodeToString(sum[:6])
}

// slugID reports whether id is a journey ID as automium_slug has it.
func slugID(id string) bool {
	if id == "" || len(id) > limit.MaxIDLength || id[0] == '.' || id[0] == '_' || id[0] == '-' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
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
	Triage        []TrialTriage `json:"triage,omitempty" jsonschema:"the first failed, not-evaluable or rescued trials, at most 100, for triage"`
	TriageOmitted int           `json:"triageOmitted,omitempty" jsonschema:"failed, not-evaluable or rescued trials beyond those in triage"`
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
	Format  ReportFormat `json:"format" jsonschema:"format" validate:"required,automium_report_format"`
	Content string       `json:"content" jsonschema:"not a file name" validate:"required,max_playwright_report_bytes"`
	// Encoding base64 carries a binary report (an Inspect .eval archive)
	// in a JSON string; absent, the content is the report's text.
	Encoding string `json:"encoding,omitempty" validate:"omitempty,oneof=base64"`
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
	// A format of the table: FormatPlaywrightJSON, FormatJUnit, ...
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
		if formatRow(r.Format) == nil {
			return nil, newError(CodeInvalidArgument, field("reports").at(i).dot("format"), reportFormatNames, "%s is not a report format; use one of the allowed values", echo.Value(r.Format))
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

// readOneReport reads one report of a format on its own.
func readOneReport(ctx context.Context, r io.Reader, m ReportMapping, format ReportFormat) (ImportedTrials, error) {
	if err := checkContext(ctx); err != nil {
		return ImportedTrials{}, err
	}
	if r == nil {
		return ImportedTrials{}, newError(CodeInvalidArgument, reportRoot, nil, "the reader is nil; pass the report's content")
	}
	if err := mappingProblems(m); err != nil {
		return ImportedTrials{}, err
	}
	b := newTrialBuilder(m)
	if err := b.read(ctx, r, format, reportRoot); err != nil {
		return ImportedTrials{}, err
	}
	if err := b.done(reportRoot); err != nil {
		return ImportedTrials{}, err
	}
	return b.out, nil
}

// read reads one report into the builder, with the reader of its format's
// row, once the mapping is one the format can answer.
func (b *trialBuilder) read(ctx context.Context, r io.Reader, format ReportFormat, root Path) error {
	row := formatRow(format)
	if row == nil {
		return newError(CodeInvalidArgument, root, reportFormatNames, "%s is not a report format; use one of the allowed values", echo.Value(format))
	}
	b.format = row
	if !row.tags {
		for _, src := range []*ReportSource{&b.mapping.Planner, &b.mapping.Journey, b.mapping.Repetition} {
			if src != nil && src.From == FromTag {
				return newError(CodeInvalidArgument, reportRoot, nil, "is %s", row.noTags)
			}
		}
	}
	b.run = reportRun{root: root}
	if err := row.read(b, ctx, r, root); err != nil {
		return err
	}
	return b.sameRun()
}

// done checks that the reports read had a test that ran.
func (b *trialBuilder) done(root Path) error {
	if len(b.out.Trials) == 0 {
		return newError(CodeInvalidArgument, root, nil,
			"has %d tests and none ran (%d skipped); a comparison needs at least one test that ran", b.out.Tests, b.out.Skipped)
	}
	return nil
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
		if r.Encoding == "base64" {
			// The decoded bytes are at most 3/4 of the content's, which
			// max_playwright_report_bytes bounds.
			raw, err := base64.StdEncoding.DecodeString(r.Content)
			if err != nil {
				return ReportsComparison{}, newError(CodeInvalidArgument, field("reports").at(i).dot("content"), nil, "is not base64 (RFC 4648, with padding): encode the file's bytes, or leave encoding out for a text report")
			}
			readers[i].R = bytes.NewReader(raw)
		}
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
// "...02:00+02:00", a space or a lower-case t between date and time, a
// lower-case z) is one string, so the same shard passed twice is caught
// however a tool re-wrote its timestamps; a timestamp with no zone (as
// Surefire and pytest write local time) keeps its wall clock with its fraction
// normalized; anything else is kept as written, cut.
func instant(s string) string {
	if t, zoned, ok := parseInstant(s); ok {
		if zoned {
			return t.UTC().Format(time.RFC3339Nano)
		}
		return t.Format(localInstant)
	}
	return echo.Cut(strings.TrimSpace(s), 64)
}

// localInstant is a timestamp with no zone.
const localInstant = "2006-01-02T15:04:05.999999999"

// parseInstant reads a timestamp as RFC 3339 writes it (T, t or a space
// between date and time, Z, z or any offset, any fraction of a second), or
// with no zone, which says a wall clock but no instant (zoned false).
func parseInstant(s string) (t time.Time, zoned, ok bool) {
	u := strings.ToUpper(strings.TrimSpace(s))
	if len(u) > 10 && u[10] == ' ' {
		u = u[:10] + "T" + u[11:]
	}
	if t, err := time.Parse(time.RFC3339Nano, u); err == nil {
		return t, true, true
	}
	if t, err := time.Parse(localInstant, u); err == nil {
		return t, false, true
	}
	return time.Time{}, false, false
}

// runKey names one test of a run as every reporter of Playwright writes it,
// whatever the format: its file, its title path below the file, its project
// and its place among its repeats (--repeat-each), skipped tests included.
type runKey [32]byte

// titleStep is the digest of a title path one title further down: from a
// zero digest, the file, then each describe block, then the test's title.
func titleStep(parent [32]byte, title string) [32]byte {
	h := sha256.New()
	h.Write(parent[:])
	h.Write([]byte(title))
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// newRunKey is the key of a test whose title path has digest titles, in
// project, the ordinal-th of its repeats in its report.
func newRunKey(titles [32]byte, project string, ordinal int) runKey {
	return runKey(titleStep(titles, "\x00"+project+"\x00"+strconv.Itoa(ordinal)))
}

// reportRun is what one report says of the run it records: the tests it
// holds (their keys, as one digest of the sorted keys) and when the run
// started. The formats say when differently: Playwright's JSON reporter
// gives the run's start (stats.startTime) and each result's, so the run began
// reporting in a window from the first to the earliest result's start; its
// junit reporter gives the moment the run began reporting (each testsuite's
// timestamp, the same for all). One run written by both reporters is then
// the same tests, and an instant inside the window.
type reportRun struct {
	root  Path
	keys  []runKey // while the report is read
	tests [32]byte // digest of the sorted keys
	// ids are the keys' first 8 bytes, sorted, kept after the report is
	// read (up to maxKeptRunIDs over all reports), so that a report that
	// holds only some of another's tests (the shards of a run written as
	// JSON, its merged JUnit) is matched too.
	ids      []uint64
	from, to int64 // Unix nanoseconds: a window, or an instant (from == to)
	window   bool
	// known says the report named every test and its time; unnamed, one
	// of its tests lacked a title or a zoned time, and the report is never
	// matched (a producer other than Playwright, or an edited report).
	known, unnamed bool
	// fromKnown and toKnown say which ends of the time were read.
	fromKnown, toKnown bool
}

// runTest records one test of the report being read: its key, and when its
// run began reporting (JUnit: at, an instant) or the start of its first
// result (JSON: at, the window's end is the earliest); named false says the
// report cannot name it.
func (b *trialBuilder) runTest(key runKey, at int64, named bool) {
	r := &b.run
	if !named || r.unnamed || len(r.keys) >= limit.MaxObservedTrials {
		r.unnamed = true
		r.keys = nil
		return
	}
	r.keys = append(r.keys, key)
	switch {
	case r.window && (!r.toKnown || at < r.to):
		r.to, r.toKnown = at, true
	case !r.window && !r.fromKnown:
		r.from, r.to, r.fromKnown, r.toKnown = at, at, true, true
	case !r.window && at != r.from:
		// Testsuites of one report at different instants: several runs
		// merged, which this rule does not match.
		r.unnamed, r.keys = true, nil
	}
}

// sameRun ends the report just read: a report of the same tests as one read
// before in the other kind of time, whose instant falls in the other's
// window, is the same run written by another reporter, and is refused.
func (b *trialBuilder) sameRun() error {
	r := b.run
	b.run = reportRun{}
	if r.unnamed || len(r.keys) == 0 || !r.fromKnown || !r.toKnown {
		return nil
	}
	slices.SortFunc(r.keys, func(x, y runKey) int { return bytes.Compare(x[:], y[:]) })
	h := sha256.New()
	for _, k := range r.keys {
		h.Write(k[:])
	}
	h.Sum(r.tests[:0])
	if b.keptRunIDs+len(r.keys) <= maxKeptRunIDs {
		b.keptRunIDs += len(r.keys)
		r.ids = make([]uint64, len(r.keys))
		for i, k := range r.keys {
			r.ids[i] = binary.BigEndian.Uint64(k[:8]) // sorted, as the keys are
		}
	}
	r.keys, r.known = nil, true
	for _, o := range b.runsRead {
		if o.window == r.window || (o.tests != r.tests && !sharesID(o.ids, r.ids)) {
			continue
		}
		w, x := o, r
		if r.window {
			w, x = r, o
		}
		if w.from <= x.from && x.from <= w.to {
			return newError(CodeInvalidArgument, r.root, nil,
				"is the same run as %s (the same tests, files, projects and repeats, or some of them, begun then), written by another reporter; one run counts once: pass one format of each run",
				o.root.String())
		}
	}
	b.runsRead = append(b.runsRead, r)
	return nil
}

// maxKeptRunIDs bounds the test keys kept over all the reports of one read
// for matching a report that holds part of another's run: 8 bytes each, 1.6
// MB at most. Past it, a report is matched only by all its tests.
const maxKeptRunIDs = 2 * limit.MaxObservedTrials

// sharesID reports whether two sorted lists have an element in common.
func sharesID(a, b []uint64) bool {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			return true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return false
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

// scalarText reads one value of a JSON document as the text a mapping or a
// reader compares: a string as it is, a number in its shortest decimal form
// (1.0 is "1"), true and false; ok is false for null, an object or an array,
// which are skipped.
func scalarText(d *jsonDoc, at docAt) (text string, ok bool, err error) {
	switch d.dec.PeekKind() {
	case '"':
		s, err := d.str(at)
		return echo.Cut(s, keptValueBytes), err == nil, err
	case '0':
		n, err := d.num(at)
		return formatNumber(n), err == nil, err
	case 't', 'f':
		tok, err := d.token()
		if err != nil {
			return "", false, err
		}
		return strconv.FormatBool(tok.Bool()), true, nil
	}
	return "", false, d.skip(at)
}

// formatNumber is a number's shortest decimal form.
func formatNumber(n float64) string { return strconv.FormatFloat(n, 'f', -1, 64) }

// decimal parses a number as scalarText writes it (or as a person writes one
// in a mapping): decimal digits only, so that no "NaN", "Inf" or hexadecimal
// form gets in.
func decimal(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.TrimLeft(s, "0123456789.eE+-") != "" {
		return 0, false
	}
	n, err := strconv.ParseFloat(s, 64)
	return n, err == nil
}

// wholeNumber parses a whole number as scalarText writes it.
func wholeNumber(s string) (float64, bool) {
	n, ok := decimal(s)
	return n, ok && n == math.Trunc(n) && math.Abs(n) < 1<<53
}
