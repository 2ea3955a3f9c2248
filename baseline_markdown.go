package automium

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// baselineMarkdownBytes bounds what [WriteBaselineMarkdown] writes for any
// baseline report: with the run's own summary (WriteMarkdown's 6,000) a CI job
// summary stays under 10,000 bytes.
const baselineMarkdownBytes = 4000

// WriteBaselineMarkdown writes the gate's decision of a baseline comparison
// as Markdown, the lines a CI job summary or a pull-request comment starts
// with: passed or failed and by which gate, then one table row per planner
// (its verdict against its own earlier run, this run − baseline with its 95%
// interval, and how many journeys regressed, were fixed or became flaky),
// then the journeys each planner regressed on and became flaky on, by ID,
// while they fit, the rest counted. It is at most 4,000 bytes for any
// report; IDs are code spans as in [WriteMarkdown]. w gets one Write; its error is returned.
func WriteBaselineMarkdown(w io.Writer, r *BaselineReport) error {
	if r == nil {
		return newError(CodeInvalidArgument, Path{}, nil, "the baseline report is nil; pass the report CompareBaseline returned")
	}
	if err := checkBaselineReport(r); err != nil {
		return err
	}
	var b bytes.Buffer
	renderBaselineMarkdown(&b, r)
	_, err := w.Write(b.Bytes())
	return err
}

// baselineTailBytes is kept for the closing lines, and the table's rows stop
// once it holds baselineTableBytes: a row is at most some 260 bytes (an ID
// of 40 backticks takes 123 in its code span).
const (
	baselineTailBytes  = 850
	baselineTableBytes = baselineMarkdownBytes - baselineTailBytes - 300
)

func renderBaselineMarkdown(b *bytes.Buffer, r *BaselineReport) {
	decision := "passed"
	if !r.Pass {
		decision = "**failed**"
	}
	gate := string(r.Gate)
	if r.Gate == GateNonInferior {
		gate += " (" + marginPoints(r.Margin) + " points)"
	}
	fmt.Fprintf(b, "## Gate %s: %s\n\n", decision, gate)
	b.WriteString("Each planner against its own earlier run (the baseline snapshot), by first-attempt pass rate over the journeys both runs have.\n\n")
	b.WriteString("| planner | gate | verdict | this run − baseline [95% CI] | regressed | fixed | newly flaky |\n|---|---|---|---|---|---|---|\n")
	shown := 0
	for i := range min(len(r.Planners), limit.MaxPlanners) {
		p := &r.Planners[i]
		if b.Len() > baselineTableBytes {
			break
		}
		shown++
		pass := "pass"
		if !p.Pass {
			pass = "**fail**"
		}
		// The pair is (baseline, this run), so this run − baseline is the
		// pair's difference negated.
		d, lo, hi := -p.Pair.MeanDifference, -p.Pair.Difference95.Upper, -p.Pair.Difference95.Lower
		fmt.Fprintf(b, "| %s | %s | %s | %s [%s, %s] over %d | %d | %d | %d |\n", mdCode(p.PlannerID, true), pass, p.Verdict,
			signed2(d), signed2(lo), signed2(hi), p.Pair.SharedJourneys, len(p.Regressed), len(p.Fixed), len(p.NewlyFlaky))
	}
	if rest := len(r.Planners) - shown; rest > 0 {
		fmt.Fprintf(b, "\n%d more planner%s not shown here.\n", rest, plural(rest))
	}
	budget := baselineMarkdownBytes - baselineTailBytes
	listed := false
	for i := range shown {
		p := &r.Planners[i]
		for _, l := range []struct {
			what string
			ids  []string
		}{{"did not run", p.Missing}, {"regressed on", p.Regressed}, {"had more not-evaluable runs than its baseline (the gate also counts them as failures) on", p.NotEvaluableRose}, {"became flaky on", p.NewlyFlaky}} {
			if len(l.ids) == 0 {
				continue
			}
			if !listed {
				b.WriteString("\n")
				listed = true
			}
			line := "- " + mdCode(p.PlannerID, false) + " " + l.what + ": "
			n := 0
			for _, id := range l.ids {
				s := mdCode(id, false)
				if b.Len()+len(line)+len(s)+40 > budget {
					break
				}
				if n > 0 {
					line += ", "
				}
				line += s
				n++
			}
			if rest := len(l.ids) - n; rest > 0 && n > 0 {
				line += fmt.Sprintf(" and %d more", rest)
			} else if rest > 0 {
				line += fmt.Sprintf("%d journeys", rest)
			}
			if b.Len()+len(line)+1 > budget {
				continue
			}
			b.WriteString(line + "\n")
		}
	}
	var tail []string
	code := func(id string) string { return mdCode(id, false) }
	if n := len(r.OnlyBaseline); n > 0 {
		tail = append(tail, fmt.Sprintf("%d planner%s of the baseline did not run this time (%s), which fails the gate (run %s, or write a new baseline)", n, plural(n), namedList(r.OnlyBaseline, code), themIt(n)))
	}
	if n := len(r.OnlyCurrent); n > 0 {
		tail = append(tail, fmt.Sprintf("%d planner%s of this run %s no baseline (%s) and %s not gated", n, plural(n), has(n), namedList(r.OnlyCurrent, code), isAre(n)))
	}
	if len(tail) > 0 {
		b.WriteString("\n" + strings.Join(tail, "; ") + ".\n")
	}
	b.WriteString("\nFlags are per-journey Fisher tests at 0.05 without correction: a screen, not a verdict. The gate decides on the mean over journeys.\n\n")
}

// maxNamedPlanners bounds the planners a gate's text names; the rest are
// counted.
const maxNamedPlanners = 3

// namedList names the first maxNamedPlanners IDs, each cut to 24 runes and
// rendered by show, and counts the rest.
func namedList(ids []string, show func(string) string) string {
	var out []string
	for _, id := range ids[:min(len(ids), maxNamedPlanners)] {
		out = append(out, show(cutRunes(id, 24)))
	}
	if rest := len(ids) - maxNamedPlanners; rest > 0 {
		out = append(out, fmt.Sprintf("and %d more", rest))
	}
	return strings.Join(out, ", ")
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// marginPoints writes a margin (a difference of rates) in percentage points
// with up to six decimals, and never as a bound it is not: 0.999999 is
// 99.9999, not 100, and a tiny margin is in exponent form, not 0.
func marginPoints(m float64) string {
	x := m * 100
	s := strconv.FormatFloat(math.Round(x*1e6)/1e6, 'f', -1, 64)
	switch {
	case s == "100" && x < 100:
		return strconv.FormatFloat(x, 'f', -1, 64) // at most 17 digits
	case s == "0" && x > 0:
		return strconv.FormatFloat(x, 'g', 6, 64) // 5e-322, not 322 digits
	}
	return s
}

// checkBaselineReport refuses to render a baseline report whose gate,
// verdicts or margin are not ones CompareBaseline makes: a report built or
// decoded by hand must not print a gate or a verdict this package never
// decided.
func checkBaselineReport(r *BaselineReport) error {
	switch {
	case r.Gate == GateNotWorse && r.Margin == 0:
	case r.Gate == GateNonInferior && r.Margin > 0 && r.Margin < 1:
	default:
		return newError(CodeInvalidArgument, field("gate"), []string{string(GateNonInferior), string(GateNotWorse)},
			"is %s with margin %v; render only the report CompareBaseline returned (the non-inferiority gate has a margin above 0 and below 1, the other none)", echo.Value(string(r.Gate)), r.Margin)
	}
	for i := range r.Planners {
		switch r.Planners[i].Verdict {
		case BaselineWorse, BaselineBetter, BaselineIndistinguishable:
		default:
			return newError(CodeInvalidArgument, field("planners").at(i).dot("verdict"), []string{string(BaselineBetter), string(BaselineIndistinguishable), string(BaselineWorse)},
				"is %s, not a verdict CompareBaseline gives; render only the report it returned", echo.Value(string(r.Planners[i].Verdict)))
		}
	}
	return nil
}
