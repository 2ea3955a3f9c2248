package safetytest

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/automium/automium"
)

// documentField is a tool argument that carries a whole document inside one
// string value: the bounded reader (docread.go in the root package) reads it
// token by token, and the door and the argument walker see one string.
type documentField struct {
	what   string
	tool   string
	format string // the document's format, for the shapes
	// args wraps the document's JSON-escaped content into the tool's
	// arguments.
	args func(content string) string
}

var documentPlanners = `"corpusVersion":"` + automium.CorpusVersion + `","planners":[{"id":"baseline","vendor":"openai","model":"gpt-4.1-mini"}]`

var documentFields = []documentField{
	{"compare_reports.reports[0].content (playwright-json)", "automium_compare_reports", "json", func(c string) string {
		return `{` + documentPlanners + `,"mapping":{"planner":{"from":"project"},"journey":{"from":"annotation","name":"journey"}},"reports":[{"format":"playwright-json","content":` + c + `}]}`
	}},
	{"compare_reports.reports[0].content (junit)", "automium_compare_reports", "xml", func(c string) string {
		return `{` + documentPlanners + `,"mapping":{"planner":{"from":"project"},"journey":{"from":"annotation","name":"journey"}},"reports":[{"format":"junit","content":` + c + `}]}`
	}},
}

// documentShapes are maximal-structure documents of a format, each as
// large as the 8 MiB argument cap lets it be once JSON-escaped: many empty
// values where a decoder would build a node each, deep nesting, wide
// objects and elements, one huge token, entity floods.
func documentShapes(format string) map[string]string {
	const budget = 8<<20 - 4096 // room for the rest of the arguments
	// Sizes count as the content goes into the arguments: JSON-escaped.
	fill := func(head, unit, tail string) string {
		n := (budget - escapedLen(head) - escapedLen(tail)) / escapedLen(unit)
		return head + strings.Repeat(unit, n) + tail
	}
	// JSON escaping doubles a quote, so the JSON shapes use few.
	if format == "json" {
		return map[string]string{
			"skipped tests":     fill(`{"suites":[{"specs":[{"tests":[`, `{"status":"skipped"},`, `{}]}]}]}`),
			"empty tests":       fill(`{"suites":[{"specs":[{"tests":[`, `{},`, `{}]}]}]}`),
			"empty suites":      fill(`{"suites":[`, `{},`, `{}]}`),
			"empty specs":       fill(`{"suites":[{"specs":[`, `{},`, `{}]}]}`),
			"empty annotations": fill(`{"suites":[{"specs":[{"tests":[{"annotations":[`, `{},`, `{}]}]}]}]}`),
			"empty results":     fill(`{"suites":[{"specs":[{"tests":[{"results":[`, `{},`, `{}]}]}]}]}`),
			"deep arrays":       fill(`{"config":`, `[`, ``),
			"deep suites":       fill(`{"suites":[`, `{"suites":[`, ``),
			"wide object":       fill(`{"config":{`, `"":0,`, `"":0}}`),
			"one long string":   fill(`{"config":"`, `x`, `"}`),
			"many numbers":      fill(`{"config":[`, `0,`, `0]}`),
		}
	}
	return map[string]string{
		"empty testcases":  fill(`<testsuites><testsuite hostname="a">`, `<testcase/>`, `</testsuite></testsuites>`),
		"empty testsuites": fill(`<testsuites>`, `<testsuite/>`, `</testsuites>`),
		"empty properties": fill(`<testsuite><testcase><properties>`, `<property/>`, `</properties></testcase></testsuite>`),
		"reruns":           fill(`<testsuite><testcase>`, `<rerunFailure/>`, `</testcase></testsuite>`),
		"deep elements":    fill(``, `<testsuite>`, ``),
		"wide element":     fill(`<testsuite `, `a=''  `, `/>`),
		"one long text":    fill(`<testsuite><system-out>`, `x`, `</system-out></testsuite>`),
		"entity flood":     fill(`<testsuite><system-out>`, `&amp;`, `</system-out></testsuite>`),
		"comments":         fill(`<testsuite>`, `<!---->`, `</testsuite>`),
	}
}

// TestDocumentsBothTransports sends every maximal-structure document shape in
// every document-carrying field, over stdio and HTTP, and holds each process
// to SECURITY.md's peak-memory bounds. Before the bounded reader, the 8 MiB
// empty-tests report alone reached 681 to 768 MiB over stdio.
func TestDocumentsBothTransports(t *testing.T) {
	skipUnlessProofs(t, "sends some 400 MiB of documents to two processes")
	stdio := start(t, "")
	stdio.initialize()
	web := startHTTP(t)
	web.initialize()
	id := 0
	for _, f := range documentFields {
		for name, doc := range documentShapes(f.format) {
			args := f.args(jsonString(doc))
			id++
			line := toolLine(jsonID(id), f.tool, args)
			began := time.Now()
			overStdio := stdio.call(line)
			took := time.Since(began)
			_, overHTTP := web.postFrom(strings.NewReader(line), int64(len(line)))
			what := f.what + ", " + name
			for i, answer := range [][]byte{overStdio, overHTTP} {
				if len(answer) > 64<<10 {
					t.Errorf("%s over %s: a %d-byte answer", what, [2]string{"stdio", "http"}[i], len(answer))
				}
				if !bytes.Contains(answer, []byte(`"isError":true`)) && !bytes.Contains(answer, []byte(`"error"`)) {
					t.Errorf("%s over %s: accepted: %.300s", what, [2]string{"stdio", "http"}[i], answer)
				}
			}
			_, sp := stdio.rss()
			_, hp := procRSS(t, web.cmd.Process.Pid)
			t.Logf("%s (%d bytes of arguments): stdio %v, VmHWM so far stdio %.0f MiB, http %.0f MiB; answer %.160s",
				what, len(args), took.Round(time.Millisecond), float64(sp)/(1<<20), float64(hp)/(1<<20), overStdio)
		}
	}
	_, stdioPeak := stdio.rss()
	_, httpPeak := procRSS(t, web.cmd.Process.Pid)
	_, testPeak := procRSS(t, os.Getpid())
	t.Logf("VmHWM: stdio server %.0f MiB (bound %d), http server %.0f MiB (bound %d), this test %.0f MiB",
		float64(stdioPeak)/(1<<20), stdioPeakBound>>20, float64(httpPeak)/(1<<20), httpPeakBound>>20, float64(testPeak)/(1<<20))
	if stdioPeak > stdioPeakBound {
		t.Errorf("stdio VmHWM %.0f MiB, over the documented %d MiB", float64(stdioPeak)/(1<<20), stdioPeakBound>>20)
	}
	if httpPeak > httpPeakBound {
		t.Errorf("http VmHWM %.0f MiB, over the documented %d MiB", float64(httpPeak)/(1<<20), httpPeakBound>>20)
	}
}

func jsonID(i int) string { b, _ := json.Marshal(i); return string(b) }

// jsonString is s as a JSON string, escaping no more than JSON requires
// (json.Marshal would write each < as six bytes).
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func escapedLen(s string) int { return len(jsonString(s)) - 2 }
