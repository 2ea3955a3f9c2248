package automium

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/automium/automium/internal/limit"
)

// The parts of the bound. The header and the planners' table are written
// whole (their worst size, at MaxPlanners planners whose IDs are cut to
// markdownIDBytes, is held under markdownTableBudget by a test); the pairs
// and the flagged journeys share what is left, and the closing lines keep
// markdownTailBytes for themselves.
const (
	// markdownIDBytes is how much of an ID the summary shows: longer IDs are
	// cut at a character boundary and end in "…"; the JSON has them whole.
	markdownIDBytes = 40
	// markdownTailBytes is kept for the "more" lines and the closing sentence.
	markdownTailBytes = 400
	// markdownTableBudget is the worst size of the title, the notice and the
	// planners' table (TestMarkdownWorstSize).
	markdownTableBudget = 5000
)

// WriteMarkdown writes a short Markdown summary of r, the text a person or a
// model reads first: one table row per planner (pass rate with its 95%
// interval, first-attempt pass rate, pass^k, latency, tokens per run), one
// line per pair (verdict, estimate, interval and why), and the journeys the
// pairs flag (regressed, improved, inconclusive, flaky, in that order), then
// a sentence saying that the full report is the JSON. A modeled report says
// so first and names no winner.
//
// The summary is at most MaxMarkdownBytes (6,000; see [Limits]) bytes for any report: pairs and
// flagged journeys are listed while they fit (decisive pairs first) and the
// rest are counted. IDs are written as code spans, with table pipes escaped
// and longer IDs cut, so that no planner or journey ID can break the table,
// start a block, or make a link or HTML. The same report always gives the
// same bytes. w gets one Write; its error is returned. WriteMarkdown does not
// change r and is safe for concurrent use.
func WriteMarkdown(w io.Writer, r *ComparisonReport) error {
	var b bytes.Buffer
	renderMarkdown(&b, r)
	_, err := w.Write(b.Bytes())
	return err
}

// WriteReportsMarkdown writes the Markdown summary of a comparison of
// reports: what was read from them, in one sentence, then the comparison's
// summary as [WriteMarkdown] writes it. The sentence counts against the
// same bound: the whole is at most MaxMarkdownBytes. w gets one Write; its
// error is returned.
func WriteReportsMarkdown(w io.Writer, r *ReportsComparison) error {
	var b bytes.Buffer
	imp := &r.Import
	fmt.Fprintf(&b, "Read %d tests: %d trials, %d skipped, %d flaky, %d retried, %d not evaluable.", imp.Tests, imp.TrialCount, imp.Skipped, imp.Flaky, imp.Retried, imp.NotEvaluable)
	if n := len(imp.Triage) + imp.TriageOmitted; n > 0 {
		fmt.Fprintf(&b, " %d failed or not-evaluable trials; the first %d are under import.triage in the structured content.", n, len(imp.Triage))
	}
	b.WriteString("\n\n")
	renderMarkdown(&b, &r.Comparison) // its budget counts what b holds
	_, err := w.Write(b.Bytes())
	return err
}

// renderMarkdown writes the summary of r into b, within MaxMarkdownBytes
// of b's bytes, what b held before included.
func renderMarkdown(b *bytes.Buffer, r *ComparisonReport) {
	markdownHeader(b, r)
	markdownPlanners(b, r)
	// What is left is shared: the pairs take what they need up to their
	// half, the flagged journeys the rest.
	left := max(0, limit.MaxMarkdownBytes-markdownTailBytes-b.Len())
	pairsUsed := markdownPairs(b, r, max(left/2, left-flaggedNeed(r)))
	markdownFlagged(b, r, left-pairsUsed)
	if r.RowsOmitted == 0 && r.PairsOmitted == 0 && r.AppRollupsOmitted == 0 {
		b.WriteString("\nThe full report, with every planner's and pair's figures and journey rows, is the structured content (JSON).\n")
	} else {
		// It names what the JSON holds, and never "every" of what it left out.
		b.WriteString("\nThe full report is the structured content (JSON): ")
		if r.PairsOmitted == 0 && r.AppRollupsOmitted == 0 {
			b.WriteString("every planner's and pair's figures")
		} else {
			b.WriteString("every planner's figures")
			if r.AppRollupsOmitted > 0 {
				fmt.Fprintf(b, " but %d app rollup%s (the planner references are too long for all to fit)", r.AppRollupsOmitted, plural(r.AppRollupsOmitted))
			}
			if r.PairsOmitted > 0 {
				fmt.Fprintf(b, ", the figures of %d of %d pairs", len(r.Pairs), len(r.Pairs)+r.PairsOmitted)
			} else {
				b.WriteString(", every pair's figures")
			}
		}
		b.WriteString(" and the flagged rows that fit")
		if !r.Modeled {
			b.WriteString("; name journeys (journeys) for their rows")
		}
		b.WriteString(".\n")
	}
}

// markdownHeader writes the title and what the numbers are.
func markdownHeader(b *bytes.Buffer, r *ComparisonReport) {
	kind := "Observed"
	if r.Modeled {
		kind = "Modeled"
	}
	fmt.Fprintf(b, "## %s comparison of %d planner%s\n\n", kind, len(r.Planners), plural(len(r.Planners)))
	if r.Modeled {
		b.WriteString("**Modeled, not measured:** every trial is a deterministic draw from a documented model; no planner ran, so nothing here ranks real planners and no winner is named.\n\n")
	} else {
		b.WriteString("Observed: trials recorded elsewhere and supplied by the caller; Automium ran and verified none of them.\n\n")
	}
	fmt.Fprintf(b, "%d journey%s shared by every planner, %d app%s, up to %d run%s of a journey per planner.\n\n",
		r.SharedJourneys, plural(r.SharedJourneys), len(r.AppIDs), plural(len(r.AppIDs)), r.Repetitions, plural(r.Repetitions))
}

// markdownPlanners writes the planners' table, every planner in report order.
func markdownPlanners(b *bytes.Buffer, r *ComparisonReport) {
	b.WriteString("| planner | pass rate [95% CI] | first attempt | pass^k | latency p50 / p90 | tokens/run |\n|---|---|---|---|---|---|\n")
	// A report of this package has at most MaxPlanners planners, which fit;
	// one decoded from elsewhere may have more, and they are counted.
	shown := min(len(r.Planners), limit.MaxPlanners)
	for i := range shown {
		p := &r.Planners[i]
		b.WriteString("| ")
		b.WriteString(mdCode(p.Planner.ID, true))
		if p.PassRate.N <= 0 {
			fmt.Fprintf(b, " | no evaluable run (%d not evaluable) | – | – | – | – |\n", p.NotEvaluable)
			continue
		}
		fmt.Fprintf(b, " | %d/%d = %s [%s, %s] | %s | %s | %s | %s |\n",
			p.PassRate.Successes, p.PassRate.N, rate2(p.PassRate.Value), fixed2(p.PassRate.Wilson95.Lower), fixed2(p.PassRate.Wilson95.Upper),
			rate2(p.FirstAttemptPassRate.Value), passKCell(p.Repeatability.PassAtK), latencyCell(p), tokensCell(p))
	}
	if rest := len(r.Planners) - shown; rest > 0 {
		fmt.Fprintf(b, "\n%d more planner%s in the JSON.\n", rest, plural(rest))
	}
}

// passKCell shows pass^1 and pass^k at the largest k.
func passKCell(ks []PassAtK) string {
	switch len(ks) {
	case 0:
		return "–"
	case 1:
		return "k=1: " + rate2(ks[0].Value)
	}
	last := ks[len(ks)-1]
	return fmt.Sprintf("k=1: %s, k=%d: %s", rate2(ks[0].Value), last.K, rate2(last.Value))
}

func latencyCell(p *PlannerReport) string {
	if p.LatencyUnknown >= p.PassRate.N {
		return "unknown"
	}
	return duration(p.MedianJourneyLatencyMs) + " / " + duration(p.P90JourneyLatencyMs)
}

func tokensCell(p *PlannerReport) string {
	if p.TokensUnknown >= p.PassRate.N {
		return "unknown"
	}
	t := p.TokenSpend.MeanPerJourneyRun
	if !(t >= 0 && t < 1e15) {
		return shortFloat(t)
	}
	return thousands(int64(t + 0.5))
}

// markdownPairs writes the pairs, decisive ones first and then in report
// order, while they fit in budget bytes, and a line counting the rest. It
// returns the bytes written.
func markdownPairs(b *bytes.Buffer, r *ComparisonReport, budget int) int {
	start := b.Len()
	if len(r.Pairs) == 0 {
		// Every pair may be left out (long planner references): say so, as
		// when only some are.
		if r.PairsOmitted > 0 {
			fmt.Fprintf(b, "\nAll %d pair%s left out of this answer: the planner IDs are too long for any to fit.\n", r.PairsOmitted, plural(r.PairsOmitted))
		}
		return b.Len() - start
	}
	order := make([]int, len(r.Pairs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Compare(verdictRank(r.Pairs[x].Verdict), verdictRank(r.Pairs[y].Verdict))
	})
	header := "\n### Pairs (A − B: A's first-attempt pass rate minus B's, over the journeys both ran)\n\n"
	if r.Modeled {
		header = "\n### Pairs (A − B: A's first-attempt pass rate minus B's; modeled draws, not evidence)\n\n"
	}
	const moreLine = 80 // the longest "more pairs" line
	var line strings.Builder
	shown, decisiveLeft := 0, 0
	if budget >= len(header)+moreLine {
		b.WriteString(header)
		for n, i := range order {
			line.Reset()
			pairLine(&line, &r.Pairs[i])
			room := budget - (b.Len() - start)
			if n < len(order)-1 {
				room -= moreLine
			}
			if line.Len() > room {
				break
			}
			b.WriteString(line.String())
			shown++
		}
	}
	for _, i := range order[shown:] {
		decisiveLeft += b2i(verdictRank(r.Pairs[i].Verdict) == 0)
	}
	if rest := len(r.Pairs) - shown; rest > 0 {
		fmt.Fprintf(b, "\n%d more pair%s (%d decisive) in the JSON.\n", rest, plural(rest), decisiveLeft)
	}
	if r.PairsOmitted > 0 {
		fmt.Fprintf(b, "\n%d pair%s left out of this answer: the planner IDs are too long for all to fit.\n", r.PairsOmitted, plural(r.PairsOmitted))
	}

	return b.Len() - start
}

// verdictRank puts decisive pairs first.
func verdictRank(v PairVerdict) int {
	if v == PairABetter || v == PairBBetter {
		return 0
	}
	return 1
}

// pairLine writes one pair: its verdict, estimate, interval and why.
func pairLine(b *strings.Builder, pc *PairedComparison) {
	a, bb := mdCode(pc.PlannerA, false), mdCode(pc.PlannerB, false)
	fmt.Fprintf(b, "- %s vs %s: ", a, bb)
	switch pc.Verdict {
	case PairABetter:
		fmt.Fprintf(b, "**%s better**", a)
	case PairBBetter:
		fmt.Fprintf(b, "**%s better**", bb)
	case PairModeledNotEvidence:
		b.WriteString("not evidence (modeled draws)")
	case PairIndistinguishable:
		if pc.SharedJourneys == 0 {
			b.WriteString("no verdict") // nothing was compared, so nothing is indistinguishable
			break
		}
		b.WriteString("indistinguishable")
	default:
		b.WriteString("no verdict")
	}
	if pc.SharedJourneys == 0 {
		// An estimate of 0.00 over nothing would read as a measured tie.
		b.WriteString("; no estimate: the two share no journey with an evaluable run.\n")
		return
	}
	fmt.Fprintf(b, "; A − B = %s [%s, %s] over %d shared journey%s; %s.\n",
		signed2(pc.MeanDifference), signed2(pc.Difference95.Lower), signed2(pc.Difference95.Upper), pc.SharedJourneys, plural(pc.SharedJourneys), pairWhy(pc))
}

// pairWhy says in words why a pair's verdict is what it is, from its figures
// (as verdictOf decides it).
func pairWhy(pc *PairedComparison) string {
	switch {
	case pc.Verdict == PairModeledNotEvidence:
		return "modeled draws measure no planner"
	case pc.Verdict == PairABetter:
		return "Holm-adjusted p " + shortFloat(pc.HolmP) + " ≤ 0.05 and the interval lies above 0"
	case pc.Verdict == PairBBetter:
		return "Holm-adjusted p " + shortFloat(pc.HolmP) + " ≤ 0.05 and the interval lies below 0"
	case pc.Verdict != PairIndistinguishable:
		return "the report gives no verdict this package knows"
	case pc.SharedJourneys < MinDecisiveJourneys:
		return fmt.Sprintf("too few shared journeys for a verdict (it needs %d)", MinDecisiveJourneys)
	case pc.HolmP > PairedAlpha:
		return "Holm-adjusted p " + shortFloat(pc.HolmP) + " > 0.05; these journeys could show a difference of " + fixed2(pc.MinDetectableEffect80) + " with 80% power"
	}
	return "p is at the 0.05 boundary: the rounded interval touches 0"
}

// flagged is one flagged journey row of a pair.
type flagged struct {
	pair *PairedComparison
	row  *PairJourneyRow
}

// flagRank orders the flags a reader acts on first; unchanged is not flagged.
func flagRank(f JourneyFlag) int {
	switch f {
	case FlagRegressed:
		return 0
	case FlagImproved:
		return 1
	case FlagInconclusive:
		return 2
	case FlagFlaky:
		return 3
	}
	return -1
}

// flaggedRows lists the flagged rows of every pair: regressed, improved,
// inconclusive, flaky; within a flag by Fisher p, then pair order, then
// journey ID.
func flaggedRows(r *ComparisonReport) []flagged {
	var rows []flagged
	for i := range r.Pairs {
		pc := &r.Pairs[i]
		for j := range pc.Journeys {
			if flagRank(pc.Journeys[j].Flag) >= 0 {
				rows = append(rows, flagged{pc, &pc.Journeys[j]})
			}
		}
	}
	slices.SortStableFunc(rows, func(x, y flagged) int {
		return cmp.Or(cmp.Compare(flagRank(x.row.Flag), flagRank(y.row.Flag)), cmp.Compare(x.row.FisherP, y.row.FisherP))
	})
	return rows
}

// flaggedNeed is about what the flagged journeys would take whole, so that
// the pairs leave them their room when they need less than half.
func flaggedNeed(r *ComparisonReport) int {
	n := 0
	for i := range r.Pairs {
		for j := range r.Pairs[i].Journeys {
			if flagRank(r.Pairs[i].Journeys[j].Flag) >= 0 {
				n += 200
			}
		}
	}
	return n
}

// markdownFlagged writes the flagged journeys while they fit in budget bytes,
// and a line counting the rest.
func markdownFlagged(b *bytes.Buffer, r *ComparisonReport, budget int) {
	rows := flaggedRows(r)
	total := len(rows)
	total += max(r.FlaggedRowsOmitted, 0)
	if total == 0 {
		switch {
		case len(r.Pairs) == 0:
		case !slices.ContainsFunc(r.Pairs, func(pc PairedComparison) bool { return pc.SharedJourneys > 0 }):
			b.WriteString("\nNo journey is flagged: no pair shares a journey with an evaluable run.\n")
		default:
			b.WriteString("\nNo journey is flagged: every shared journey reads unchanged.\n")
		}
		return
	}
	start := b.Len()
	const header = "\n### Flagged journeys (first-attempt passes, B against A; Fisher p uncorrected: a screen, not a verdict)\n\n"
	const moreLine = 60 // the longest "more flagged" line
	if len(rows) > 0 && budget >= len(header)+moreLine {
		b.WriteString(header)
	} else {
		rows = rows[:0:0] // no room: the closing line counts them all
	}
	var line strings.Builder
	shown := 0
	for n, f := range rows {
		line.Reset()
		fmt.Fprintf(&line, "- %s %s: %s %d/%d, %s %d/%d (Fisher p %s)\n", mdCode(f.row.JourneyID, false), f.row.Flag,
			mdCode(f.pair.PlannerA, false), f.row.APasses, f.row.ARuns, mdCode(f.pair.PlannerB, false), f.row.BPasses, f.row.BRuns, shortFloat(f.row.FisherP))
		room := budget - (b.Len() - start)
		if n < len(rows)-1 {
			room -= moreLine
		}
		if line.Len() > room {
			break
		}
		b.WriteString(line.String())
		shown++
	}
	if rest := total - shown; rest > 0 {
		fmt.Fprintf(b, "\n%d more flagged journey row%s.\n", rest, plural(rest))
	}
}

// mdCode writes an ID as a Markdown code span, so that nothing in it is
// read as Markdown: no emphasis, link, autolink or HTML. A backtick run in
// the ID gets a longer fence; a control, format or line-breaking character
// (none of which a valid ID holds) becomes U+FFFD, so no ID can end a line or
// a table row; in a table cell a pipe is escaped, as GFM tables require even
// inside code. The ID is cut to markdownIDBytes, at a character boundary,
// with "…" after it.
func mdCode(id string, inTable bool) string {
	cut := false
	if len(id) > markdownIDBytes {
		n := markdownIDBytes
		for n > 0 && !utf8.RuneStart(id[n]) {
			n--
		}
		id, cut = id[:n], true
	}
	var s strings.Builder
	longest, run := 0, 0
	for _, r := range id {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
		switch {
		case r == utf8.RuneError || unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			s.WriteRune(utf8.RuneError)
		case r == '|' && inTable:
			s.WriteString(`\|`)
		default:
			s.WriteRune(r)
		}
	}
	if cut {
		s.WriteString("…")
	}
	body := s.String()
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(body, "`") || strings.HasSuffix(body, "`") || (strings.HasPrefix(body, " ") && strings.HasSuffix(body, " ")) {
		body = " " + body + " "
	}
	return fence + body + fence
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// themIt is the pronoun "it" or "them" standing for n things.
func themIt(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// has is the verb "has" or "have" agreeing with a count of n.
func has(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

// fixed2 writes a figure with two decimals; one outside ±1e6, which no
// report of this package has, in three significant digits, so that a report
// decoded from elsewhere cannot make a cell hundreds of bytes long.
func fixed2(x float64) string {
	if !(x > -1e6 && x < 1e6) {
		return shortFloat(x)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// rate2 writes a rate with two decimals, never as a bound it is not at: a
// rate of 9,999 in 10,000 is ">0.99", not "1.00" (all passed), and one of
// 10,000 is "<0.01", not "0.00" (none did).
func rate2(x float64) string {
	return notABound(x, fixed2(x), "1.00", ">0.99", "0.00", "<0.01")
}

// notABound returns s, rate x as rendered, unless s shows a bound x is not
// at (one or zero as rendered): then the text just inside it.
func notABound(x float64, s, one, belowOne, zero, aboveZero string) string {
	switch {
	case s == one && x < 1:
		return belowOne
	case s == zero && x > 0:
		return aboveZero
	}
	return s
}

// signed2 writes a difference with two decimals and its sign (− for minus).
func signed2(x float64) string {
	s := fixed2(x)
	switch {
	case strings.HasPrefix(s, "-0.00"):
		return "0.00"
	case strings.HasPrefix(s, "-"):
		return "−" + s[1:]
	case s == "0.00":
		return s
	}
	return "+" + s
}

// shortFloat writes a p-value with up to 3 significant digits.
func shortFloat(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) }

// duration writes milliseconds as ms below a second, else seconds.
func duration(ms float64) string {
	if !(ms > -1e12 && ms < 1e12) {
		return shortFloat(ms) + " ms"
	}
	if ms < 1000 {
		return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
	}
	return strconv.FormatFloat(ms/1000, 'f', 1, 64) + " s"
}

// thousands writes n with comma separators.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
