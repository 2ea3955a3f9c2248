package automium

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func fixtureComparison(t testing.TB) ComparisonReport {
	t.Helper()
	got, err := CompareReports(context.Background(), CompareReportsInput{CorpusVersion: CorpusVersion, Planners: pwPlanners,
		Reports: []ReportContent{{Format: FormatPlaywrightJSON, Content: string(realPlaywrightReport(t))}}, Mapping: byProjectAndTag})
	if err != nil {
		t.Fatal(err)
	}
	return got.Comparison
}

// htmlWorstReport is a report at the HTML page's worst: 16 planners whose IDs
// are 128 bytes of characters escaping lengthens, 120 pairs, and 300 journeys
// of the longest IDs, with every flag among them.
func htmlWorstReport(t testing.TB) ComparisonReport {
	t.Helper()
	var planners []PlannerRef
	for i := range 16 {
		id := fmt.Sprintf("%02d", i) + strings.Repeat(`"'`, 63)
		planners = append(planners, PlannerRef{ID: id, Vendor: strings.Repeat("<", 128), Model: strings.Repeat("&", 128)})
	}
	var trials []Trial
	for p, pl := range planners {
		for j := range 300 {
			id := fmt.Sprintf("j%03d-", j) + strings.Repeat("x", 123)
			for rep := 1; rep <= 6; rep++ {
				// Planner p passes journey j's runs up to a threshold that
				// varies with both, so pairs regress, improve and tie.
				passed := rep <= (j*7+p*3)%7
				trials = append(trials, Trial{PlannerID: pl.ID, AppID: cmpApp, FixtureID: cmpFixture, JourneyID: id, Repetition: rep, Passed: passed, LatencyMs: 1000 + rep, InputTokens: 10, OutputTokens: 1})
			}
		}
	}
	r, err := CompareObservedTrials(context.Background(), CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: planners, Trials: trials, Rows: RowSelection{All: true}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// htmlWorstBytes is what TestWriteHTMLWorstSize holds the page to, and the
// figure WriteHTML's bound promises: 1 MiB (839,006 bytes measured at the
// worst report).
const htmlWorstBytes = 1 << 20

// TestWriteHTMLWorstSize: the page of the worst report stays under its
// bound, says what it left out, and escapes every ID.
func TestWriteHTMLWorstSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a comparison of 28,800 trials")
	}
	r := htmlWorstReport(t)
	var b bytes.Buffer
	if err := WriteHTML(&b, &r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	t.Logf("worst page: %d bytes (%d pairs, %d journeys)", b.Len(), len(r.Pairs), len(r.Pairs[0].Journeys))
	if b.Len() > htmlWorstBytes {
		t.Errorf("the worst page is %d bytes; the bound is %d", b.Len(), htmlWorstBytes)
	}
	for _, want := range []string{"more pairs have no plot here", "more journeys are left out of this chart", "more flagged journeys are left out of this table", "more pairs are left out of this chart"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if strings.Contains(page, `"'"'`) || strings.Contains(page, strings.Repeat("<", 128)) {
		t.Errorf("an ID reached the page unescaped")
	}
}

// TestWriteHTMLEscapes: a planner ID that is markup stays text, in the
// tables, the charts' labels, titles and descriptions, and attributes.
func TestWriteHTMLEscapes(t *testing.T) {
	hostile := []string{`</title><script>alert(1)</script>`, `"><svg onload=alert(1)>`, `</style><style>body{display:none}`, `]]><!--`}
	var planners []PlannerRef
	var trials []Trial
	for i, id := range hostile {
		planners = append(planners, PlannerRef{ID: id, Vendor: "v", Model: "<b>m</b>"})
		for rep := 1; rep <= 3; rep++ {
			trials = append(trials, Trial{PlannerID: id, AppID: cmpApp, FixtureID: cmpFixture, JourneyID: "j1", Repetition: rep, Passed: rep <= i%4})
		}
	}
	r, err := CompareObservedTrials(context.Background(), CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: planners, Trials: trials, Rows: RowSelection{All: true}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, &r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "<svg onload", "<b>", "</style><style>", "<!--"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if n := strings.Count(page, "<style>"); n != 1 {
		t.Errorf("%d style blocks; want the one the CSP names", n)
	}
	if !strings.Contains(page, "&lt;/title&gt;&lt;script&gt;") {
		t.Errorf("the hostile ID is not shown escaped")
	}
}

// TestWriteHTMLDeterministic: one report, one page, byte for byte; a nil
// report and a failing writer are errors.
func TestWriteHTMLDeterministic(t *testing.T) {
	r := fixtureComparison(t)
	var a, b bytes.Buffer
	if err := WriteHTML(&a, &r); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&b, &r); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two pages of one report differ")
	}
	var ae *Error
	if err := WriteHTML(&a, nil); !errors.As(err, &ae) || ae.Code != CodeInvalidArgument {
		t.Errorf("nil report: %v", err)
	}
	if err := WriteHTML(failingWriter{}, &r); err == nil {
		t.Error("a failing writer gave no error")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestNewcombe holds the per-journey interval to statsmodels 0.13.5's
// confint_proportions_2indep(count1, nobs1, count2, nobs2, method="newcomb")
// (Debian python3-statsmodels), the values printed to 6 decimals.
func TestNewcombe(t *testing.T) {
	tests := []struct {
		x1, n1, x2, n2 int
		lo, hi         float64
	}{
		{2, 3, 3, 3, -0.792340, 0.290507},
		{2, 3, 2, 3, -0.533465, 0.533465},
		{0, 5, 5, 5, -1, -0.385549},
		{7, 10, 3, 10, -0.028820, 0.671824},
		{1, 1, 0, 1, -0.122109, 1},
		{45, 60, 30, 55, 0.030158, 0.364128},
	}
	for _, tt := range tests {
		lo, hi := newcombe95(tt.x1, tt.n1, tt.x2, tt.n2)
		got := []float64{math.Round(lo*1e6) / 1e6, math.Round(hi*1e6) / 1e6}
		if diff := cmp.Diff([]float64{tt.lo, tt.hi}, got); diff != "" {
			t.Errorf("newcombe95(%d/%d − %d/%d) (-statsmodels +got):\n%s", tt.x1, tt.n1, tt.x2, tt.n2, diff)
		}
	}
}

// TestWriteHTMLDisjointPairs renders seeded comparisons of 16 planners with
// the costliest IDs in groups that share no journey, so most pairs have no
// estimate: the page stays within htmlWorstBytes, is the same bytes whatever
// the order of the trials, its SVG is well-formed XML with balanced groups,
// and a pair that shares nothing draws no diamond and does not say it does
// (its plot's description, its note) anywhere on the page.
func TestWriteHTMLDisjointPairs(t *testing.T) {
	seeds := 4
	if testing.Short() {
		seeds = 1
	}
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 11))
		groups := 2 + int(seed)%3
		var in CompareObservedTrialsInput
		in.CorpusVersion, in.Rows = CorpusVersion, RowSelection{All: true}
		for p := range 16 {
			in.Planners = append(in.Planners, PlannerRef{ID: fmt.Sprintf("%02d", p) + strings.Repeat(`"'<&`, 31), Vendor: strings.Repeat("<", 128), Model: strings.Repeat("&", 128)})
		}
		for p, pl := range in.Planners {
			for j := range 40 + rng.IntN(80) {
				if j%groups != p%groups {
					continue // groups share no journey
				}
				for rep := 1; rep <= 1+rng.IntN(6); rep++ {
					in.Trials = append(in.Trials, Trial{PlannerID: pl.ID, AppID: cmpApp, FixtureID: cmpFixture, JourneyID: fmt.Sprintf("j%03d-", j) + strings.Repeat("x", 123),
						Repetition: rep, Passed: rng.IntN(3) > 0, LatencyMs: rng.IntN(100_000), InputTokens: 10, OutputTokens: 1})
				}
			}
		}
		var pages [2]string
		for k := range pages {
			if k == 1 {
				slices.Reverse(in.Trials)
			}
			r, err := CompareObservedTrials(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := WriteHTML(&b, &r); err != nil {
				t.Fatal(err)
			}
			pages[k] = b.String()
		}
		page := pages[0]
		if pages[0] != pages[1] {
			t.Errorf("seed %d: the page differs with the trials in another order", seed)
		}
		if len(page) > htmlWorstBytes {
			t.Errorf("seed %d: the page is %d bytes, over %d", seed, len(page), htmlWorstBytes)
		}
		if !strings.Contains(page, "no estimate") {
			t.Fatalf("seed %d: no pair without an estimate: the test needs disjoint groups", seed)
		}
		for rest := page; ; {
			i := strings.Index(rest, "<svg")
			if i < 0 {
				break
			}
			j := strings.Index(rest[i:], "</svg>") + i + len("</svg>")
			svg := rest[i:j]
			rest = rest[j:]
			d := xml.NewDecoder(strings.NewReader(svg))
			for {
				if _, err := d.Token(); err == io.EOF {
					break
				} else if err != nil {
					t.Fatalf("seed %d: an SVG is not well-formed: %v\n%.300s", seed, err, svg)
				}
			}
			// A plot without an estimate for its last row draws no diamond and
			// does not describe one.
			if strings.Contains(svg, "All 0 shared journeys: no estimate") {
				if strings.Contains(svg, `class="dia"`) || strings.Contains(svg, "diamond") {
					t.Errorf("seed %d: the plot of a pair that shares nothing draws or describes a diamond:\n%s", seed, svg)
				}
				if note := rest[:strings.Index(rest, "</p>")+1]; strings.Contains(note, "Every shared journey is unchanged") {
					t.Errorf("seed %d: a pair that shares nothing says %q", seed, note)
				}
			}
		}
		if o, c := strings.Count(page, "<g "), strings.Count(page, "</g>"); o != c {
			t.Errorf("seed %d: %d groups open, %d close", seed, o, c)
		}
		t.Logf("seed %d: %d groups, %d bytes", seed, groups, len(page))
	}
}
