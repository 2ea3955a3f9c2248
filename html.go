package automium

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/automium/automium/internal/limit"
)

// The bounds of an HTML report. Every list the page draws is cut to one of
// them, and the page says how many rows it left out, so a report of any size
// becomes a page of bounded size: with 16 planners and 120 pairs, IDs at
// their longest and every character one that escaping lengthens, the page
// stays under the figure TestWriteHTMLWorstSize holds it to.
const (
	// htmlForestPairs bounds the pairs that get a forest plot of their
	// journeys; decisive pairs come first. Every pair keeps its row in the
	// verdict table and the overall chart.
	htmlForestPairs = 12
	// htmlForestRows bounds the journeys of one forest plot: the flagged ones
	// first (regressed, improved), then the largest differences.
	htmlForestRows = 30
	// htmlOverallRows bounds the pairs of the overall chart.
	htmlOverallRows = 40
	// htmlFlaggedRows bounds the rows of one pair's journey table.
	htmlFlaggedRows = 50
	// htmlLabelRunes bounds a label in a chart; the tables beside the
	// charts print the whole ID (at most MaxIDLength bytes).
	htmlLabelRunes = 34
)

//go:embed html_report.css
var htmlCSS string

//go:embed html_report.tmpl
var htmlTemplateText string

// htmlTemplate is parsed once, on the first page written: a server that
// writes none does not pay for it at start-up. Its Content-Security-Policy
// allows nothing to be fetched: no script at all, and only the page's own
// style block, named by its SHA-256, so a style attribute or a second style
// block an escaping bug let in would not even apply. It is a sync.Once, not
// a sync.OnceValue: with the generic one the linker kept every method of
// html/template, 0.7 MB more binary.
var (
	htmlTemplateOnce   sync.Once
	htmlTemplateParsed *template.Template
)

func htmlTemplate() *template.Template {
	htmlTemplateOnce.Do(func() {
		sum := sha256.Sum256([]byte(htmlCSS))
		csp := "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; img-src 'none'; base-uri 'none'; form-action 'none'"
		text := strings.Replace(htmlTemplateText, "CSP_POLICY", csp, 1)
		htmlTemplateParsed = template.Must(template.New("report").Funcs(template.FuncMap{
			"css": func() template.CSS { return template.CSS(htmlCSS) },
		}).Parse(text))
	})
	return htmlTemplateParsed
}

// WriteHTML writes r as one self-contained HTML page: the verdict of every
// pair with its interval and reason, each planner's figures, a chart of every
// pair's overall difference with its 95% interval, a forest plot of each
// pair's per-journey differences with their intervals, and pass^k curves per
// planner. Nothing is fetched: the style is inline, the charts are inline
// SVG, there is no script, and a Content-Security-Policy says so to the
// browser. Every chart has a title and a description for assistive
// technology, and marks differ by shape and label as well as colour. Every
// string of the report is escaped by html/template.
//
// The page is bounded whatever the report's size: charts and tables are cut
// (see the htmlForest* bounds) and the page says how many rows each left out;
// the full rows stay in r. The same report gives the same bytes.
//
// A per-journey interval is Newcombe's hybrid score interval for the
// difference of two independent proportions (method 10 of Newcombe 1998),
// from the two first-attempt Wilson intervals; with matched rounds it ignores
// the pairing, so it is wider than the paired test's. The overall interval is
// the report's own (PairedComparison.Difference95).
//
// WriteHTML returns the first error of w, or an invalid_argument error for a
// nil report.
func WriteHTML(w io.Writer, r *ComparisonReport) error {
	if r == nil {
		return newError(CodeInvalidArgument, Path{}, nil, "the report is nil; pass the report a comparison returned")
	}
	bw := bufio.NewWriterSize(w, 32<<10)
	if err := htmlTemplate().Execute(bw, htmlPage(r)); err != nil {
		return err
	}
	return bw.Flush()
}

// WriteBaselineHTML writes the page of [WriteHTML] for this run's report r,
// headed by the gate's decision of b, this run against its baseline
// ([CompareBaseline]): each planner's verdict, this run − baseline with its
// 95% interval, and a forest plot of its per-journey differences from its
// baseline, regressed journeys marked. It is bounded as WriteHTML is, with
// the baseline plots counted among the htmlForestPairs plots.
func WriteBaselineHTML(w io.Writer, r *ComparisonReport, b *BaselineReport) error {
	if r == nil || b == nil {
		return newError(CodeInvalidArgument, Path{}, nil, "the report or the baseline report is nil; pass the run's comparison and what CompareBaseline returned")
	}
	if err := checkBaselineReport(b); err != nil {
		return err
	}
	v := htmlPage(r)
	g := &htmlGate{Pass: b.Pass, Decision: "Gate passed", Rule: string(b.Gate)}
	if !b.Pass {
		g.Decision = "Gate failed"
	}
	if b.Gate == GateNonInferior {
		g.Rule += " (margin " + marginPoints(b.Margin) + " points)"
	}
	var forests []htmlPairForest
	for i, p := range b.Planners {
		if i == limit.MaxPlanners {
			break
		}
		m := mirrorPair(p.Pair)
		row := htmlGateRow{Planner: p.PlannerID, Verdict: string(p.Verdict), Pass: p.Pass, Reason: p.Reason,
			Diff: htmlPoints(m.MeanDifference), CI: htmlPointsInterval(m.Difference95.Lower, m.Difference95.Upper),
			Shared: m.SharedJourneys, Regressed: len(p.Regressed), Fixed: len(p.Fixed), Flaky: len(p.NewlyFlaky)}
		if len(forests) < htmlForestPairs {
			f := htmlPairForestOf(-(i + 1), m)
			f.A, f.B = p.PlannerID+" (this run)", p.PlannerID+" (baseline)"
			f.FlagHeader, f.AHeader, f.BHeader, f.DiffHeader = "Flag (this run against its baseline)", "This run first-attempt passes", "Baseline first-attempt passes", "This run − baseline"
			row.Anchor = f.Anchor
			forests = append(forests, f)
		}
		g.Rows = append(g.Rows, row)
	}
	var notes []string
	if n := len(b.OnlyBaseline); n > 0 {
		notes = append(notes, strconv.Itoa(n)+" planner"+plural(n)+" of the baseline did not run this time ("+namedList(b.OnlyBaseline, strconv.Quote)+"), which fails the gate (run "+themIt(n)+", or write a new baseline)")
	}
	if n := len(b.OnlyCurrent); n > 0 {
		notes = append(notes, strconv.Itoa(n)+" planner"+plural(n)+" of this run "+has(n)+" no baseline ("+namedList(b.OnlyCurrent, strconv.Quote)+") and "+isAre(n)+" not gated")
	}
	g.Note = strings.Join(notes, "; ")
	v.Gate = g
	lead := htmlLine{Lead: g.Decision + ":", Text: "no planner is decisively worse than its baseline (" + g.Rule + ")."}
	if !b.Pass {
		failed := 0
		for _, p := range b.Planners {
			failed += b2i(!p.Pass)
		}
		lead.Text = strconv.Itoa(failed) + " of " + strconv.Itoa(len(b.Planners)) + " planners fail the gate (" + g.Rule + ")."
		if n := len(b.OnlyBaseline); n > 0 {
			lead.Text += " " + strconv.Itoa(n) + " planner" + plural(n) + " of the baseline did not run: " + namedList(b.OnlyBaseline, strconv.Quote) + "."
		}
	}
	if len(r.Pairs) == 0 {
		v.Headline = nil // "nothing to compare it with": its baseline is
	}
	v.Headline = append([]htmlLine{lead}, v.Headline...)
	// The gate's plots come first, within the one bound on plots.
	keep := max(0, htmlForestPairs-len(forests))
	v.ForestsLeft += max(0, len(v.Forests)-keep)
	v.Forests = append(forests, v.Forests[:min(len(v.Forests), keep)]...)
	bw := bufio.NewWriterSize(w, 32<<10)
	if err := htmlTemplate().Execute(bw, v); err != nil {
		return err
	}
	return bw.Flush()
}

// mirrorPair turns a baseline pair (A the baseline, B this run) around, so
// that its differences read this run − baseline, left of zero worse. Its
// flags keep their meaning, this run against its baseline.
func mirrorPair(p PairedComparison) PairedComparison {
	m := p
	m.PlannerA, m.PlannerB = p.PlannerB, p.PlannerA
	m.JourneysOnlyA, m.JourneysOnlyB = p.JourneysOnlyB, p.JourneysOnlyA
	m.MeanDifference = -p.MeanDifference
	m.Difference95 = DifferenceInterval{Lower: -p.Difference95.Upper, Upper: -p.Difference95.Lower}
	switch p.Verdict {
	case PairABetter:
		m.Verdict = PairBBetter
	case PairBBetter:
		m.Verdict = PairABetter
	}
	m.Journeys = make([]PairJourneyRow, len(p.Journeys))
	for i, j := range p.Journeys {
		j.ARuns, j.BRuns = j.BRuns, j.ARuns
		j.APasses, j.BPasses = j.BPasses, j.APasses
		j.APassedOnly, j.BPassedOnly = j.BPassedOnly, j.APassedOnly
		m.Journeys[i] = j
	}
	return m
}

// The view the template draws: every number already formatted and every
// coordinate computed, so the template only lays out and escapes.
type (
	htmlView struct {
		Title       string
		Notice      string
		Modeled     bool
		Meta        []htmlMeta
		Headline    []htmlLine
		Gate        *htmlGate
		Planners    []htmlPlanner
		Pairs       []htmlPair
		Overall     *htmlForest
		Forests     []htmlPairForest
		ForestsLeft int
		PassK       *htmlPassK
	}
	htmlMeta    struct{ Name, Value string }
	htmlPlanner struct {
		ID, Vendor, Model                            string
		Shape                                        htmlShape
		Trials, Journeys, NotEvaluable, Rescued      int
		FirstAttempt, FirstAttemptCI, Final, FinalCI string
		Latency, Tokens                              string
	}
	htmlPair struct {
		A, B, Verdict, Mark, Diff, CI, P, HolmP, Reason string
		Shared, OnlyA, OnlyB                            int
		Class                                           string
	}
	htmlPairForest struct {
		A, B, Anchor string
		FlagHeader   string
		AHeader      string
		BHeader      string
		DiffHeader   string
		Chart        htmlForest
		Rows         []htmlJourneyRow
		RowsLeft     int
		Flags        string
		// NoShared is a pair that shares no evaluable journey: its note
		// says so rather than that every shared journey is unchanged.
		NoShared bool
	}
	htmlGate struct {
		Pass           bool
		Decision, Rule string
		Rows           []htmlGateRow
		Note           string
	}
	htmlGateRow struct {
		Planner, Verdict, Diff, CI, Reason string
		Pass                               bool
		Shared, Regressed, Fixed, Flaky    int
		Anchor                             string
	}
	htmlJourneyRow struct {
		ID, Flag, A, B, Diff, CI, FisherP string
	}
	// htmlForest is one forest plot: rows of an estimate with its interval,
	// on an axis from −1 to 1.
	htmlForest struct {
		ID, Title, Desc       string
		Width, Height         int
		PlotX0, PlotX1, ZeroX float64
		AxisY                 float64
		Ticks                 []htmlTick
		Rows                  []htmlForestRow
		Left                  int
		LeftWhat              string
		LeftLabel, RightLabel string
	}
	htmlTick struct {
		X     float64
		Label string
	}
	htmlForestRow struct {
		Label, Value, Flag string
		Y, X, Lo, Hi       float64
		YT, YB, SepY       float64
		Square             string
		Diamond            bool
		DiamondPoints      string
		// NoMark is a pair that shares no evaluable journey: its row says
		// so and draws nothing, since a mark at zero would read as a tie.
		NoMark bool
		Class  string
	}
	htmlPassK struct {
		ID, Title, Desc string
		Width, Height   int
		PlotX0, PlotX1  float64
		PlotY0, PlotY1  float64
		XTicks, YTicks  []htmlTick
		Lines           []htmlPassKLine
		Table           []htmlPassKRow
		KMax            int
		Ks              []int
	}
	htmlPassKLine struct {
		ID, Label string
		Shape     htmlShape
		Points    string
		Marks     []htmlMark
		LabelX    float64
		LabelY    float64
	}
	htmlMark struct {
		X, Y        float64
		Path, Title string
	}
	htmlPassKRow struct {
		ID     string
		Values []string
	}
	// htmlShape is how a planner is told apart without colour: a marker and
	// a dash pattern, with its colour from a palette safe for colour-blind
	// readers (Okabe and Ito).
	htmlShape struct {
		Index  int
		Marker string // circle, square, triangle, diamond, cross, plus, star, bar
		Dash   string
		Colour string
		Symbol string // the marker as a character, for tables and legends
		Key    string // the marker's path in a 24 by 12 legend key
	}
)

var (
	htmlColours = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#8C6D1F"}
	htmlMarkers = []struct{ name, symbol string }{
		{"circle", "●"}, {"square", "■"}, {"triangle", "▲"}, {"diamond", "◆"},
		{"cross", "✕"}, {"plus", "+"}, {"down", "▼"}, {"bar", "▬"},
	}
	htmlDashes = []string{"", "6 3"}
)

func htmlShapeOf(i int) htmlShape {
	m := htmlMarkers[i%len(htmlMarkers)]
	return htmlShape{Index: i, Marker: m.name, Symbol: m.symbol, Colour: htmlColours[i%len(htmlColours)], Dash: htmlDashes[(i/len(htmlMarkers))%len(htmlDashes)],
		Key: markerPath(m.name, 12, 6, 4.5)}
}

// markerPath draws a marker centred on (x, y), of radius r, as an SVG path.
func markerPath(name string, x, y, r float64) string {
	c := func(xy ...float64) string { return fmtCoords(xy...) }
	switch name {
	case "square":
		r = float64(r * 0.9)
		return "M" + c(x-r, y-r) + "H" + fmtCoords(x+r) + "V" + fmtCoords(y+r) + "H" + fmtCoords(x-r) + "Z"
	case "triangle":
		return "M" + c(x, y-float64(r*1.15)) + "L" + c(x+float64(r*1.1), y+float64(r*0.8)) + "L" + c(x-float64(r*1.1), y+float64(r*0.8)) + "Z"
	case "down":
		return "M" + c(x, y+float64(r*1.15)) + "L" + c(x+float64(r*1.1), y-float64(r*0.8)) + "L" + c(x-float64(r*1.1), y-float64(r*0.8)) + "Z"
	case "diamond":
		return "M" + c(x, y-float64(r*1.25)) + "L" + c(x+r, y) + "L" + c(x, y+float64(r*1.25)) + "L" + c(x-r, y) + "Z"
	case "cross":
		t := float64(r * 0.35)
		return "M" + c(x-r, y-r+t) + "L" + c(x-r+t, y-r) + "L" + c(x, y-t) + "L" + c(x+r-t, y-r) + "L" + c(x+r, y-r+t) + "L" + c(x+t, y) +
			"L" + c(x+r, y+r-t) + "L" + c(x+r-t, y+r) + "L" + c(x, y+t) + "L" + c(x-r+t, y+r) + "L" + c(x-r, y+r-t) + "L" + c(x-t, y) + "Z"
	case "plus":
		t := float64(r * 0.35)
		return "M" + c(x-t, y-r) + "H" + fmtCoords(x+t) + "V" + fmtCoords(y-t) + "H" + fmtCoords(x+r) + "V" + fmtCoords(y+t) + "H" + fmtCoords(x+t) +
			"V" + fmtCoords(y+r) + "H" + fmtCoords(x-t) + "V" + fmtCoords(y+t) + "H" + fmtCoords(x-r) + "V" + fmtCoords(y-t) + "H" + fmtCoords(x-t) + "Z"
	case "bar":
		return "M" + c(x-float64(r*1.2), y-float64(r*0.45)) + "H" + fmtCoords(x+float64(r*1.2)) + "V" + fmtCoords(y+float64(r*0.45)) + "H" + fmtCoords(x-float64(r*1.2)) + "Z"
	}
	return "M" + c(x-r, y) + "a" + c(r, r) + " 0 1 0 " + c(2*r, 0) + "a" + c(r, r) + " 0 1 0 " + c(-2*r, 0) + "Z"
}

func htmlPage(r *ComparisonReport) htmlView {
	v := htmlView{Title: "Planner comparison", Notice: r.Notice, Modeled: r.Modeled}
	if r.Modeled {
		v.Title = "Planner comparison (modeled, not evidence)"
	}
	apps := strings.Join(cutList(r.AppIDs, 8), ", ")
	v.Meta = []htmlMeta{
		{"Basis", string(r.Basis)},
		{"Planners", strconv.Itoa(len(r.Planners))},
		{"Shared journeys", strconv.Itoa(r.SharedJourneys)},
		{"Most runs of one journey", strconv.Itoa(r.Repetitions)},
		{"Apps", apps},
		{"Corpus", r.CorpusVersion},
		{"Report", r.ReportVersion},
	}
	for i, p := range r.Planners {
		v.Planners = append(v.Planners, htmlPlanner{
			ID: p.Planner.ID, Vendor: p.Planner.Vendor, Model: p.Planner.Model, Shape: htmlShapeOf(i),
			Trials: p.Trials, Journeys: p.Journeys, NotEvaluable: p.NotEvaluable, Rescued: p.RescuedByRetry,
			FirstAttempt: htmlRate(p.FirstAttemptPassRate), FirstAttemptCI: htmlInterval(p.FirstAttemptPassRate.Wilson95.Lower, p.FirstAttemptPassRate.Wilson95.Upper),
			Final: htmlRate(p.PassRate), FinalCI: htmlInterval(p.PassRate.Wilson95.Lower, p.PassRate.Wilson95.Upper),
			Latency: htmlLatency(p), Tokens: htmlTokens(p),
		})
	}
	for _, pc := range r.Pairs {
		diff, ci := htmlPoints(pc.MeanDifference), htmlPointsInterval(pc.Difference95.Lower, pc.Difference95.Upper)
		verdict := string(pc.Verdict)
		if pc.SharedJourneys == 0 {
			// Nothing was compared, so nothing is indistinguishable (the
			// Markdown says the same).
			diff, ci, verdict = "—", "no shared journey", "no verdict"
		}
		v.Pairs = append(v.Pairs, htmlPair{
			A: pc.PlannerA, B: pc.PlannerB, Verdict: verdict, Mark: htmlVerdictMark(pc.Verdict), Class: htmlVerdictClass(pc.Verdict),
			Diff: diff, CI: ci,
			P: htmlP(pc.P), HolmP: htmlP(pc.HolmP), Reason: pc.Reason,
			Shared: pc.SharedJourneys, OnlyA: pc.JourneysOnlyA, OnlyB: pc.JourneysOnlyB,
		})
	}
	v.Headline = htmlHeadline(r)
	if len(r.Pairs) > 0 {
		v.Overall = htmlOverallForest(r.Pairs)
	}
	order := make([]int, len(r.Pairs))
	for i := range order {
		order[i] = i
	}
	// Decisive pairs first, each group in input order.
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(htmlDecisiveRank(r.Pairs[a].Verdict), htmlDecisiveRank(r.Pairs[b].Verdict))
	})
	for n, i := range order {
		if n == htmlForestPairs {
			v.ForestsLeft = len(order) - n
			break
		}
		v.Forests = append(v.Forests, htmlPairForestOf(i, r.Pairs[i]))
	}
	v.PassK = htmlPassKChart(r.Planners)
	return v
}

func htmlDecisiveRank(v PairVerdict) int {
	if v == PairABetter || v == PairBBetter {
		return 0
	}
	return 1
}

// htmlHeadline says the verdicts in sentences a person reads first: the
// decisive pairs, then, when there are few pairs, the tied ones with their
// reason, and one sentence over all pairs.
func htmlHeadline(r *ComparisonReport) []htmlLine {
	if len(r.Pairs) == 0 {
		if len(r.Planners) == 1 {
			return []htmlLine{{Text: "One planner: nothing to compare it with. Its figures are below."}}
		}
		return nil
	}
	const most = 5
	var lines []htmlLine
	decisive, excludesZero, left := 0, 0, 0
	for _, p := range r.Pairs {
		if p.Difference95.Lower > 0 || p.Difference95.Upper < 0 {
			excludesZero++
		}
		if p.Verdict == PairABetter || p.Verdict == PairBBetter {
			decisive++
		}
	}
	for _, want := range []int{0, 1} {
		for _, p := range r.Pairs {
			if htmlDecisiveRank(p.Verdict) != want {
				continue
			}
			if len(lines) == most || (want == 1 && len(r.Pairs) > most) {
				left++
				continue
			}
			lines = append(lines, htmlPairLine(p))
		}
	}
	if left > 0 {
		lines = append(lines, htmlLine{Text: strconv.Itoa(left) + " more pairs are in the table."})
	}
	switch {
	case r.Modeled:
		lines = append(lines, htmlLine{Text: "Modeled draws: no pair is evidence about real planners."})
	case decisive == 0 && excludesZero == 0 && len(r.Pairs) > 1:
		lines = append(lines, htmlLine{Text: "All " + strconv.Itoa(len(r.Pairs)) + " pairwise difference intervals include zero: no pair differs decisively."})
	case decisive == 0 && len(r.Pairs) > 1:
		lines = append(lines, htmlLine{Text: "No pair is decisive after the Holm correction."})
	}
	return lines
}

// htmlLine is a sentence with an optional lead in bold.
type htmlLine struct{ Lead, Text string }

func htmlPairLine(p PairedComparison) htmlLine {
	switch p.Verdict {
	case PairABetter:
		return htmlLine{Lead: p.PlannerA + " is better than " + p.PlannerB + ":", Text: htmlPoints(p.MeanDifference) + " in first-attempt pass rate, 95% interval " + htmlPointsInterval(p.Difference95.Lower, p.Difference95.Upper) + ", over " + strconv.Itoa(p.SharedJourneys) + " shared journeys."}
	case PairBBetter:
		return htmlLine{Lead: p.PlannerB + " is better than " + p.PlannerA + ":", Text: htmlPoints(-p.MeanDifference) + " in first-attempt pass rate, 95% interval " + htmlPointsInterval(-p.Difference95.Upper, -p.Difference95.Lower) + ", over " + strconv.Itoa(p.SharedJourneys) + " shared journeys."}
	}
	if p.SharedJourneys == 0 {
		// A difference of 0.0 pp over nothing would read as a measured tie.
		return htmlLine{Lead: p.PlannerA + " and " + p.PlannerB + ": no verdict.", Text: "No estimate: the two share no journey with an evaluable run."}
	}
	return htmlLine{Lead: p.PlannerA + " and " + p.PlannerB + ": " + string(p.Verdict) + ".", Text: "Difference " + htmlPoints(p.MeanDifference) + ", 95% interval " + htmlPointsInterval(p.Difference95.Lower, p.Difference95.Upper) + ". " + htmlSentence(p.Reason)}
}

// htmlSentence makes a reason a sentence.
func htmlSentence(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}

func htmlVerdictMark(v PairVerdict) string {
	switch v {
	case PairABetter:
		return "◀ A"
	case PairBBetter:
		return "B ▶"
	case PairModeledNotEvidence:
		return "—"
	}
	return "="
}

func htmlVerdictClass(v PairVerdict) string {
	switch v {
	case PairABetter, PairBBetter:
		return "decisive"
	}
	return "tied"
}

// Forest plot geometry, in SVG user units.
const (
	forestWidth  = 900
	forestLabelW = 280
	forestRight  = 290
	forestRowH   = 22
	forestTop    = 34
	forestBottom = 40
)

func newForest(id, title, desc, leftLabel, rightLabel string, rows int) htmlForest {
	f := htmlForest{ID: id, Title: title, Desc: desc, Width: forestWidth, LeftLabel: leftLabel, RightLabel: rightLabel}
	f.PlotX0, f.PlotX1 = forestLabelW, forestWidth-forestRight
	f.ZeroX = f.x(0)
	f.Height = forestTop + rows*forestRowH + forestBottom
	f.AxisY = float64(forestTop + rows*forestRowH + 6)
	for _, t := range []float64{-1, -0.5, 0, 0.5, 1} {
		f.Ticks = append(f.Ticks, htmlTick{X: f.x(t), Label: htmlPointsShort(t)})
	}
	return f
}

// x maps a difference in [−1, 1] to the plot.
func (f *htmlForest) x(d float64) float64 {
	d = max(-1, min(1, d))
	return round1(f.PlotX0 + float64((d+1)/2*(f.PlotX1-f.PlotX0)))
}

// addPair adds a pair's overall row: a diamond spanning its 95% interval,
// or, when the two share no evaluable journey, a row that says there is no
// estimate and draws no mark.
func (f *htmlForest) addPair(label, class string, p PairedComparison) {
	if p.SharedJourneys == 0 {
		f.add(label, "no estimate", "no verdict", class, 0, 0, 0, true)
		f.Rows[len(f.Rows)-1].NoMark = true
		return
	}
	f.add(label, htmlPointsCompact(p.MeanDifference, p.Difference95.Lower, p.Difference95.Upper), string(p.Verdict), class, p.MeanDifference, p.Difference95.Lower, p.Difference95.Upper, true)
}

func (f *htmlForest) add(label, value, flag, class string, d, lo, hi float64, diamond bool) {
	y := float64(forestTop + len(f.Rows)*forestRowH + forestRowH/2)
	row := htmlForestRow{Label: cutRunes(label, htmlLabelRunes), Value: value, Flag: flag, Class: class, Y: y, X: f.x(d), Lo: f.x(lo), Hi: f.x(hi), Diamond: diamond,
		YT: y - 4, YB: y + 4, SepY: y - forestRowH/2}
	row.Square = markerPath("square", row.X, y, 5)
	if diamond {
		h := 7.0
		row.DiamondPoints = fmtCoords(row.Lo, y, row.X, y-h, row.Hi, y, row.X, y+h)
	}
	f.Rows = append(f.Rows, row)
}

func htmlOverallForest(pairs []PairedComparison) *htmlForest {
	n := min(len(pairs), htmlOverallRows)
	f := newForest("overall", "Mean difference of every pair, with its 95% interval",
		"For each pair A − B: the mean over shared journeys of A's first-attempt pass rate minus B's, in percentage points, drawn as a diamond spanning its 95% interval. Right of zero favours A, left favours B.",
		"◀ favours B", "favours A ▶", n)
	for _, p := range pairs[:n] {
		f.addPair(p.PlannerA+" − "+p.PlannerB, htmlVerdictClass(p.Verdict), p)
	}
	f.Left, f.LeftWhat = len(pairs)-n, "pairs"
	return &f
}

// htmlFlagRank orders a pair's journeys for the forest plot and its table:
// the screening flags a reader acts on first.
func htmlFlagRank(f JourneyFlag) int {
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
	return 4
}

func htmlPairForestOf(i int, p PairedComparison) htmlPairForest {
	rows := slices.Clone(p.Journeys)
	diff := func(j PairJourneyRow) float64 { return rate(j.APasses, j.ARuns) - rate(j.BPasses, j.BRuns) }
	slices.SortStableFunc(rows, func(a, b PairJourneyRow) int {
		if c := cmp.Compare(htmlFlagRank(a.Flag), htmlFlagRank(b.Flag)); c != 0 {
			return c
		}
		if c := cmp.Compare(math.Abs(diff(b)), math.Abs(diff(a))); c != 0 {
			return c
		}
		return cmp.Compare(a.JourneyID, b.JourneyID)
	})
	n := min(len(rows), htmlForestRows)
	id := "pair-" + strconv.Itoa(i+1)
	if i < 0 {
		id = "baseline-" + strconv.Itoa(-i)
	}
	pf := htmlPairForest{A: p.PlannerA, B: p.PlannerB, Anchor: id, NoShared: p.SharedJourneys == 0,
		FlagHeader: "Flag (B against A)", AHeader: "A first-attempt passes", BHeader: "B first-attempt passes", DiffHeader: "A − B"}
	desc := "Each journey both planners ran: a square at " + p.PlannerA + "'s first-attempt pass rate minus " + p.PlannerB + "'s, with a line for its 95% Newcombe interval; flagged journeys are labelled. The last row is the mean over all " + strconv.Itoa(p.SharedJourneys) + " shared journeys, a diamond spanning the pair's 95% interval. Right of zero favours " + p.PlannerA + "."
	if pf.NoShared {
		// Nothing is drawn (addPair): the description must not promise a diamond.
		desc = p.PlannerA + " and " + p.PlannerB + " share no journey with an evaluable run: there is no difference to plot and no estimate."
	}
	pf.Chart = newForest("forest-"+id, "Per-journey differences, "+p.PlannerA+" − "+p.PlannerB, desc,
		"◀ favours "+cutRunes(p.PlannerB, 24), "favours "+cutRunes(p.PlannerA, 24)+" ▶", n+1)
	counts := map[JourneyFlag]int{}
	for _, j := range p.Journeys {
		counts[j.Flag]++
	}
	var flagText []string
	for _, fl := range []JourneyFlag{FlagRegressed, FlagImproved, FlagInconclusive, FlagFlaky, FlagUnchanged} {
		if counts[fl] > 0 {
			flagText = append(flagText, strconv.Itoa(counts[fl])+" "+string(fl))
		}
	}
	pf.Flags = strings.Join(flagText, ", ")
	for _, j := range rows[:n] {
		d := diff(j)
		lo, hi := newcombe95(j.APasses, j.ARuns, j.BPasses, j.BRuns)
		flag := ""
		if j.Flag == FlagRegressed || j.Flag == FlagImproved {
			flag = string(j.Flag)
		}
		pf.Chart.add(j.JourneyID, htmlPoints(d), flag, string(j.Flag), d, lo, hi, false)
	}
	pf.Chart.Left, pf.Chart.LeftWhat = len(rows)-n, "journeys"
	pf.Chart.addPair("All "+strconv.Itoa(p.SharedJourneys)+" shared journeys", "overall "+htmlVerdictClass(p.Verdict), p)
	// The table lists the journeys a reader acts on: every flag but unchanged.
	for _, j := range rows {
		if j.Flag == FlagUnchanged {
			continue
		}
		if len(pf.Rows) == htmlFlaggedRows {
			pf.RowsLeft++
			continue
		}
		lo, hi := newcombe95(j.APasses, j.ARuns, j.BPasses, j.BRuns)
		pf.Rows = append(pf.Rows, htmlJourneyRow{
			ID: j.JourneyID, Flag: string(j.Flag),
			A: strconv.Itoa(j.APasses) + "/" + strconv.Itoa(j.ARuns), B: strconv.Itoa(j.BPasses) + "/" + strconv.Itoa(j.BRuns),
			Diff: htmlPoints(diff(j)), CI: htmlPointsInterval(lo, hi), FisherP: htmlP(j.FisherP),
		})
	}
	return pf
}

func rate(x, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(x) / float64(n)
}

// newcombe95 is Newcombe's hybrid score interval (1998, method 10) for
// p1 − p2 of two independent proportions, from their Wilson intervals: what
// statsmodels' confint_proportions_2indep(method="newcomb") computes.
func newcombe95(x1, n1, x2, n2 int) (lo, hi float64) {
	p1, p2 := rate(x1, n1), rate(x2, n2)
	w1, ok1 := wilson95(x1, n1)
	w2, ok2 := wilson95(x2, n2)
	if !ok1 || !ok2 {
		return -1, 1
	}
	d := p1 - p2
	lo = d - math.Sqrt(float64((p1-w1.Lower)*(p1-w1.Lower))+float64((w2.Upper-p2)*(w2.Upper-p2)))
	hi = d + math.Sqrt(float64((w1.Upper-p1)*(w1.Upper-p1))+float64((p2-w2.Lower)*(p2-w2.Lower)))
	return max(-1, lo), min(1, hi)
}

// pass^k chart geometry.
const (
	passKWidth  = 900
	passKHeight = 320
	passKLeft   = 56
	passKRight  = 190
	passKTop    = 20
	passKBottom = 46
)

func htmlPassKChart(planners []PlannerReport) *htmlPassK {
	kMax := 0
	for _, p := range planners {
		kMax = max(kMax, len(p.Repeatability.PassAtK))
	}
	if kMax == 0 {
		return nil
	}
	c := &htmlPassK{ID: "passk", Width: passKWidth, Height: passKHeight, KMax: kMax,
		PlotX0: passKLeft, PlotX1: passKWidth - passKRight, PlotY0: passKTop, PlotY1: passKHeight - passKBottom,
		Title: "pass^k by planner",
		Desc:  "For each planner, the chance that k runs of a journey, drawn from its runs, all pass on the first attempt, averaged over journeys, for k = 1 to " + strconv.Itoa(kMax) + ". Each planner has its own marker and line style; the values are in the table below."}
	x := func(k int) float64 {
		if kMax == 1 {
			return round1((c.PlotX0 + c.PlotX1) / 2)
		}
		return round1(c.PlotX0 + float64(float64(k-1)/float64(kMax-1)*(c.PlotX1-c.PlotX0)))
	}
	y := func(v float64) float64 { return round1(c.PlotY1 - float64(max(0, min(1, v))*(c.PlotY1-c.PlotY0))) }
	// The axis and the table show at most about ten values of k, the last
	// always among them.
	step := max(1, (kMax+9)/10)
	for k := 1; k <= kMax; k += step {
		c.Ks = append(c.Ks, k)
	}
	if c.Ks[len(c.Ks)-1] != kMax {
		c.Ks = append(c.Ks, kMax)
	}
	for _, k := range c.Ks {
		c.XTicks = append(c.XTicks, htmlTick{X: x(k), Label: strconv.Itoa(k)})
	}
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		c.YTicks = append(c.YTicks, htmlTick{X: y(v), Label: strconv.Itoa(int(v*100)) + "%"})
	}
	// Labels at the line ends, moved apart so that none overlaps another.
	type end struct {
		i int
		y float64
	}
	var ends []end
	for i, p := range planners {
		line := htmlPassKLine{ID: p.Planner.ID, Label: cutRunes(p.Planner.ID, 22), Shape: htmlShapeOf(i)}
		var pts []string
		row := htmlPassKRow{ID: p.Planner.ID}
		for _, k := range c.Ks {
			v := "—"
			if i := slices.IndexFunc(p.Repeatability.PassAtK, func(pk PassAtK) bool { return pk.K == k }); i >= 0 {
				v = htmlRatePercent(p.Repeatability.PassAtK[i].Value)
			}
			row.Values = append(row.Values, v)
		}
		for _, pk := range p.Repeatability.PassAtK {
			px, py := x(pk.K), y(pk.Value)
			pts = append(pts, fmtCoords(px, py))
			line.Marks = append(line.Marks, htmlMark{X: px, Y: py, Path: markerPath(line.Shape.Marker, px, py, 5), Title: p.Planner.ID + ": pass^" + strconv.Itoa(pk.K) + " = " + htmlRatePercent(pk.Value)})
		}
		line.Points = strings.Join(pts, " ")
		if n := len(line.Marks); n > 0 {
			line.LabelX = line.Marks[n-1].X + 12
			ends = append(ends, end{len(c.Lines), line.Marks[n-1].Y})
		}
		c.Lines = append(c.Lines, line)
		c.Table = append(c.Table, row)
	}
	slices.SortStableFunc(ends, func(a, b end) int { return cmp.Compare(a.y, b.y) })
	const gap = 14.0
	prev := math.Inf(-1)
	for _, e := range ends {
		ly := max(e.y+4, prev+gap)
		c.Lines[e.i].LabelY = round1(ly)
		prev = ly
	}
	return c
}

func fmtCoords(xy ...float64) string {
	var b strings.Builder
	for i, v := range xy {
		if i > 0 {
			if i%2 == 1 {
				b.WriteByte(',')
			} else {
				b.WriteByte(' ')
			}
		}
		v = math.Round(v*100) / 100
		if v == 0 {
			v = 0 // no -0
		}
		b.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
	}
	return b.String()
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

func htmlPercent(v float64) string {
	return strconv.FormatFloat(math.Round(v*1000)/10, 'f', 1, 64) + "%"
}

// htmlRatePercent writes a rate as htmlPercent does, never as a bound it is
// not at: 99.96% is ">99.9%", not "100.0%".
func htmlRatePercent(v float64) string {
	return notABound(v, htmlPercent(v), "100.0%", ">99.9%", "0.0%", "<0.1%")
}

func htmlRate(r Rate) string {
	if r.N == 0 {
		return "—"
	}
	return htmlRatePercent(r.Value) + " (" + strconv.Itoa(r.Successes) + "/" + strconv.Itoa(r.N) + ")"
}

func htmlInterval(lo, hi float64) string {
	return htmlPercent(lo) + " to " + htmlPercent(hi)
}

// htmlPoints writes a difference of rates in percentage points, signed.
func htmlPoints(d float64) string {
	v := math.Round(d*1000) / 10
	if v == 0 {
		v = 0 // no −0.0
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if v > 0 {
		s = "+" + s
	} else if v < 0 {
		s = "−" + s[1:]
	}
	return s + " pp"
}

// htmlPointsCompact writes an estimate and its interval for a chart's value
// column, in percentage points without the unit: "−16.7 [−100.0, +100.0]".
func htmlPointsCompact(d, lo, hi float64) string {
	u := func(x float64) string { return strings.TrimSuffix(htmlPoints(x), " pp") }
	return u(d) + " [" + u(lo) + ", " + u(hi) + "]"
}

func htmlPointsShort(d float64) string {
	v := int(math.Round(d * 100))
	switch {
	case v > 0:
		return "+" + strconv.Itoa(v)
	case v < 0:
		return "−" + strconv.Itoa(-v)
	}
	return "0"
}

func htmlPointsInterval(lo, hi float64) string {
	return "[" + strings.TrimSuffix(htmlPoints(lo), " pp") + ", " + htmlPoints(hi) + "]"
}

func htmlP(p float64) string {
	if p < 0.001 {
		return "< 0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

func htmlLatency(p PlannerReport) string {
	if p.PassRate.N == 0 || p.LatencyUnknown == p.PassRate.N {
		return "—"
	}
	return htmlMs(p.MedianJourneyLatencyMs) + " / " + htmlMs(p.P90JourneyLatencyMs)
}

func htmlMs(ms float64) string {
	if ms >= 10_000 {
		return strconv.FormatFloat(ms/1000, 'f', 1, 64) + " s"
	}
	return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
}

func htmlTokens(p PlannerReport) string {
	if p.PassRate.N == 0 || p.TokensUnknown == p.PassRate.N {
		return "—"
	}
	return strconv.FormatFloat(p.TokenSpend.MeanPerJourneyRun, 'f', 0, 64)
}

// cutRunes cuts s to n runes, marking the cut with an ellipsis.
func cutRunes(s string, n int) string {
	i, count := 0, 0
	for i < len(s) {
		if count == n {
			return s[:i] + "…"
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s
}

func cutList(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	return append(slices.Clone(list[:n]), "and "+strconv.Itoa(len(list)-n)+" more")
}
