package automium

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWriteBaselineMarkdownWorstSize: a baseline report at its worst (16
// planners whose IDs are backticks, which lengthen code spans most, every
// journey regressed or newly flaky, planners on one side only) stays within
// 4,000 bytes, counts what it leaves out, and lets no ID break a line.
func TestWriteBaselineMarkdownWorstSize(t *testing.T) {
	r := BaselineReport{Gate: GateNonInferior, Margin: 0.05}
	for i := range 64 {
		// Planners named in the closing lines: the longest IDs of
		// backticks, which code spans make longest.
		r.OnlyBaseline = append(r.OnlyBaseline, fmt.Sprintf("%02d", i)+strings.Repeat("`", 126))
		r.OnlyCurrent = append(r.OnlyCurrent, fmt.Sprintf("%02d", i)+strings.Repeat("`", 126))
	}
	for i := range 16 {
		id := fmt.Sprintf("%02d", i) + strings.Repeat("`", 117)
		p := BaselinePlanner{PlannerID: id, Verdict: BaselineWorse, Pair: PairedComparison{MeanDifference: 0.123456, SharedJourneys: 100000,
			Difference95: DifferenceInterval{Lower: -1, Upper: 1}}}
		for j := range 1000 {
			jid := fmt.Sprintf("j%04d-", j) + strings.Repeat("x", 122)
			p.Regressed = append(p.Regressed, jid)
			p.NewlyFlaky = append(p.NewlyFlaky, jid)
			p.Fixed = append(p.Fixed, jid)
		}
		r.Planners = append(r.Planners, p)
	}
	var b bytes.Buffer
	if err := WriteBaselineMarkdown(&b, &r); err != nil {
		t.Fatal(err)
	}
	t.Logf("worst baseline summary: %d bytes", b.Len())
	if b.Len() > baselineMarkdownBytes {
		t.Errorf("%d bytes; the bound is %d", b.Len(), baselineMarkdownBytes)
	}
	md := b.String()
	if !utf8.ValidString(md) || !strings.Contains(md, "more planners not shown here") {
		t.Errorf("the summary does not count the planners it left out:\n%s", md)
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasSuffix(line, " |") {
			t.Errorf("a table row is broken: %q", line)
		}
	}
}

// TestWriteBaselineMarkdownNil: a nil report is an error, not a panic.
func TestWriteBaselineMarkdownNil(t *testing.T) {
	if err := WriteBaselineMarkdown(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil report: no error")
	}
	if err := WriteBaselineHTML(&bytes.Buffer{}, nil, &BaselineReport{}); err == nil {
		t.Error("WriteBaselineHTML with a nil report: no error")
	}
}
