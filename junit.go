package automium

import (
	"context"
	"encoding/xml"
	"io"
	"strconv"
	"strings"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// junitFormat is the table row of JUnit XML.
var junitFormat = reportFormat{
	name:       FormatJUnit,
	read:       (*trialBuilder).readJUnit,
	noTags:     "JUnit XML, which records no tags; map from project (testsuite hostname) or annotation (a testcase property) instead",
	project:    "its testsuite's hostname (where Playwright's junit reporter writes the project)",
	annotation: "a property %s with the %s as its value",
	sniff:      startsWithMarkup,
}

// TrialsFromJUnitReport reads a JUnit XML report and makes one [Trial] of each
// testcase that ran. Like [TrialsFromPlaywrightReport] it reads r token by
// token through the bounded document reader, in memory proportional to its
// testcases, and opens nothing the report names; no DTD, entity or external
// reference is ever resolved, and a report with a DOCTYPE is refused.
//
// The root is <testsuites> or a single <testsuite>; testsuites may nest. A
// testcase becomes a trial as follows, with the mapping's sources read as:
//
//   - project: the testsuite's hostname attribute, where Playwright's junit
//     reporter writes the project name;
//   - annotation of type T: the testcase's property named T (its value
//     attribute, or its text), as Playwright's junit reporter writes
//     annotations and pytest's record_property writes properties; a property
//     of an enclosing testsuite applies to the testcases that have none of
//     that name;
//   - tag: refused, since JUnit records no tags;
//   - passed: no <failure>, <error> or <skipped>; <skipped> leaves the
//     testcase out, counted in Skipped;
//   - notEvaluable: an <error> (outcome error) or a failure or error whose
//     message says "timeout" (outcome timedOut), as the mapping's notEvaluable
//     lists them (error by default);
//   - attempts: 1 plus its rerun elements (flakyFailure, flakyError,
//     rerunFailure, rerunError, as Surefire, pytest-rerunfailures and
//     Playwright's junit reporter with includeRetries write them);
//   - latencyMs: its time attribute (seconds) plus those of its rerun
//     elements; latencyUnknown without a time;
//   - tokens: its properties automium.inputTokens and automium.outputTokens,
//     else tokensUnknown;
//   - for triage: the first failure or error message, and the paths of
//     [[ATTACHMENT|path]] lines in its system-out (the convention Playwright's
//     reporter and Jenkins share), never opened.
//
// Errors are *Error values whose Field is the element path into the report,
// such as report.testsuites.testsuite[0].testcase[3], with the line in the
// message.
func TrialsFromJUnitReport(ctx context.Context, r io.Reader, m ReportMapping) (ImportedTrials, error) {
	return readOneReport(ctx, r, m, FormatJUnit)
}

// junitRead reads one JUnit report into a builder.
type junitRead struct {
	b       *trialBuilder
	d       *xmlDoc
	props   []string       // property names the mapping reads
	ordinal map[string]int // testcases so far of each suite, class and name
}

// junitRerun are the rerun elements, each one more attempt.
var junitRerun = map[string]bool{"flakyFailure": true, "flakyError": true, "rerunFailure": true, "rerunError": true}

func (b *trialBuilder) readJUnit(ctx context.Context, r io.Reader, root Path) error {
	d := newXMLDoc(ctx, r, root, "a JUnit XML report")
	jr := &junitRead{b: b, d: d, props: b.wanted(FromAnnotation), ordinal: map[string]int{}}
	seenRoot := false
	for {
		tok, err := d.token(root)
		if err == io.EOF {
			if !seenRoot {
				return newError(CodeInvalidArgument, root, nil, "has no root element; pass the reporter's output unedited")
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if strings.TrimSpace(string(t)) != "" {
				return newError(CodeInvalidArgument, root, nil, "has text outside its root element at line %d; pass the reporter's output unedited", d.line())
			}
		case xml.StartElement:
			if seenRoot {
				return newError(CodeInvalidArgument, root, nil, "has a second root element at line %d; pass one report per entry", d.line())
			}
			seenRoot = true
			switch t.Name.Local {
			case "testsuites":
				at := root.Field("testsuites")
				if err := jr.suites(at, nil, ""); err != nil {
					return err
				}
			case "testsuite":
				if err := jr.suite(t, root.Field("testsuite"), nil, ""); err != nil {
					return err
				}
			default:
				return newError(CodeInvalidArgument, root, []string{"testsuite", "testsuites"},
					"has root element %s at line %d; a JUnit report's root is testsuites or testsuite", echo.Value(t.Name.Local), d.line())
			}
		}
	}
}

// children reads the content of the element just started, calling elem for
// each child element (which must consume it) and text for character data.
// Each child's path is at.name[i], i counting siblings of that name. Only
// maxCountedNames distinct names are counted, so that a flood of distinct
// names costs no memory: a child of a name beyond them is at.name[0] in an
// error's path. Children skipped whole are not counted at all.
func (jr *junitRead) children(at Path, elem func(t xml.StartElement, at Path) error, text func(s string)) error {
	var counts map[string]int
	for {
		tok, err := jr.d.token(at)
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			return nil
		case xml.CharData:
			if text != nil {
				text(string(t))
			}
		case xml.StartElement:
			if elem == nil {
				if err := jr.skip(at); err != nil {
					return err
				}
				continue
			}
			name := t.Name.Local
			if counts == nil {
				counts = map[string]int{}
			}
			i, counted := counts[name]
			if counted || len(counts) < maxCountedNames {
				counts[name] = i + 1
			}
			if err := elem(t, at.Field(name).Index(i)); err != nil {
				return err
			}
		}
	}
}

// maxCountedNames bounds the distinct child names one element's children
// are counted under: JUnit uses a handful.
const maxCountedNames = 32

// skip reads and drops the rest of the element just started.
func (jr *junitRead) skip(at Path) error { return jr.children(at, nil, nil) }

// suites reads a testsuites element, or a testsuite's nested testsuites.
func (jr *junitRead) suites(at Path, inherited map[string]string, host string) error {
	return jr.children(at, func(t xml.StartElement, at Path) error {
		if t.Name.Local == "testsuite" {
			return jr.suite(t, at, inherited, host)
		}
		return jr.skip(at)
	}, nil)
}

func attr(t xml.StartElement, name string) (string, bool) {
	for _, a := range t.Attr {
		if a.Name.Local == name && a.Name.Space == "" {
			return a.Value, true
		}
	}
	return "", false
}

// suite reads one testsuite: its hostname and properties apply to its
// testcases (and nested testsuites) unless they say otherwise.
func (jr *junitRead) suite(t xml.StartElement, at Path, inherited map[string]string, host string) error {
	if h, ok := attr(t, "hostname"); ok {
		host = echo.Cut(h, keptValueBytes)
	}
	name, _ := attr(t, "name")
	stamp, _ := attr(t, "timestamp")
	suiteID := ""
	if stamp != "" {
		suiteID = echo.Cut(name, keptValueBytes) + "\x00" + instant(stamp) + "\x00" + host
	}
	props := inherited
	return jr.children(at, func(c xml.StartElement, at Path) error {
		switch c.Name.Local {
		case "properties":
			props = maps2(inherited)
			return jr.properties(at, func(name, value string, _ Path) {
				if _, ok := props[name]; !ok && len(props) < 2*len(jr.props)+2 {
					props[name] = value
				}
			})
		case "testcase":
			return jr.testcase(c, at, props, host, suiteID)
		case "testsuite":
			return jr.suite(c, at, props, host)
		}
		return jr.skip(at)
	}, nil)
}

// maps2 is a copy of m (nil-safe), for a testsuite's own properties.
func maps2(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// properties reads a properties element, calling keep for each property the
// mapping or the token properties read.
func (jr *junitRead) properties(at Path, keep func(name, value string, at Path)) error {
	return jr.children(at, func(p xml.StartElement, at Path) error {
		if p.Name.Local != "property" {
			return jr.skip(at)
		}
		name, _ := attr(p, "name")
		value, hasValue := attr(p, "value")
		var text strings.Builder
		if err := jr.children(at, nil, func(s string) {
			if !hasValue && text.Len() < keptValueBytes {
				text.WriteString(s)
			}
		}); err != nil {
			return err
		}
		if !hasValue {
			value = strings.TrimSpace(text.String())
		}
		if name == InputTokensAnnotation || name == OutputTokensAnnotation || containsString(jr.props, name) {
			keep(name, echo.Cut(value, keptValueBytes), at)
		}
		return nil
	}, nil)
}

// testcase reads one testcase and adds it to the builder.
func (jr *junitRead) testcase(c xml.StartElement, at Path, props map[string]string, host, suiteID string) error {
	t := &testRecord{at: at, line: jr.d.line(), project: host, attempts: 1}
	name, _ := attr(c, "name")
	class, _ := attr(c, "classname")
	key := suiteID + "\x00" + echo.Cut(class, keptValueBytes) + "\x00" + echo.Cut(name, keptValueBytes)
	jr.ordinal[key]++
	if suiteID != "" {
		// A testsuite's name, timestamp and host, and the testcase's
		// place among its namesakes in the report (Playwright writes each
		// --repeat-each copy as a testsuite of its own, with the same
		// name, timestamp and host), name one run of it: two shards never
		// share them, the same report passed twice always does. Without a
		// timestamp nothing tells two runs apart.
		t.identity = string(FormatJUnit) + "\x00" + key + "\x00" + strconv.Itoa(jr.ordinal[key])
	}
	if s, ok := attr(c, "time"); ok {
		sec, ok := junitSeconds(s)
		if !ok {
			return newError(CodeInvalidArgument, at, nil, "has time %s at line %d; a testcase's time is seconds, from 0 to %d", echo.Value(s), t.line, limit.MaxTrialLatencyMs/1000)
		}
		t.ms, t.msKnown = sec*1000, true
	}
	own := map[string]bool{}
	keep := func(name, value string, at Path) {
		own[name] = true
		switch name {
		case InputTokensAnnotation:
			t.keepToken(0, value, at)
		case OutputTokensAnnotation:
			t.keepToken(1, value, at)
		default:
			t.keep(string(FromAnnotation)+"\x00"+name, value)
		}
	}
	failed, errored := false, false
	timedOut := false
	err := jr.children(at, func(e xml.StartElement, at Path) error {
		el := e.Name.Local
		switch {
		case el == "properties":
			return jr.properties(at, keep)
		case el == "skipped":
			t.skipped = true
			return jr.skip(at)
		case el == "failure" || el == "error" || junitRerun[el]:
			if el == "failure" {
				failed = true
			} else if el == "error" {
				errored = true
			} else {
				t.attempts++
				if s, ok := attr(e, "time"); ok {
					// The product is rounded on its own (float64), so that no
					// platform fuses it with the sum (internal/fmacheck).
					if sec, ok := junitSeconds(s); ok {
						t.ms += float64(sec * 1000)
					}
				}
			}
			msg, _ := attr(e, "message")
			if el == "failure" || el == "error" {
				timedOut = timedOut || strings.Contains(strings.ToLower(msg), "timeout")
			}
			t.keepError(msg)
			var first strings.Builder
			if err := jr.children(at, func(_ xml.StartElement, at Path) error { return jr.skip(at) }, func(s string) {
				if first.Len() < limit.MaxTriageErrorBytes {
					first.WriteString(s)
				}
			}); err != nil {
				return err
			}
			line, _, _ := strings.Cut(strings.TrimSpace(first.String()), "\n")
			t.keepError(line)
			return nil
		case el == "system-out":
			return jr.children(at, func(_ xml.StartElement, at Path) error { return jr.skip(at) }, func(s string) { attachments(t, s) })
		}
		return jr.skip(at)
	}, nil)
	if err != nil {
		return err
	}
	for name, v := range props {
		if !own[name] {
			keep(name, v, at)
		}
	}
	t.passed = !failed && !errored && !t.skipped
	t.errored = errored
	switch {
	case t.passed:
	case timedOut:
		t.outcome = OutcomeTimedOut
	case errored:
		t.outcome = OutcomeError
	}
	return jr.b.add(t)
}

// junitSeconds reads a time attribute: seconds from 0 to MaxTrialLatencyMs/1000.
// The check is written so that NaN, which every comparison calls false, fails
// it: "NaN" parses, and once passed on as a latency it became the minimum int64.
func junitSeconds(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	// A decimal number only: ParseFloat also takes hexadecimal ("0x1p4"),
	// "Inf" and "NaN", which no JUnit writer means by a time.
	if strings.TrimLeft(s, "0123456789.eE+-") != "" {
		return 0, false
	}
	sec, err := strconv.ParseFloat(s, 64)
	if err != nil || !(sec >= 0 && sec*1000 <= limit.MaxTrialLatencyMs) {
		return 0, false
	}
	return sec, true
}

// attachments keeps the [[ATTACHMENT|path]] lines of a system-out text.
func attachments(t *testRecord, s string) {
	for len(t.attach) < limit.MaxTriageAttachments {
		_, rest, ok := strings.Cut(s, "[[ATTACHMENT|")
		if !ok {
			return
		}
		path, after, ok := strings.Cut(rest, "]]")
		if !ok {
			return
		}
		t.keepAttachment(attachmentKind(path), strings.TrimSpace(path))
		s = after
	}
}

// attachmentKind names an attachment by its file's extension, as
// Playwright names them in its JSON report.
func attachmentKind(path string) string {
	switch p := strings.ToLower(path); {
	case strings.HasSuffix(p, ".zip"):
		return "trace"
	case strings.HasSuffix(p, ".png"), strings.HasSuffix(p, ".jpg"), strings.HasSuffix(p, ".jpeg"):
		return "screenshot"
	case strings.HasSuffix(p, ".webm"), strings.HasSuffix(p, ".mp4"):
		return "video"
	}
	return "attachment"
}
