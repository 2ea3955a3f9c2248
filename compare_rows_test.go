package automium

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
)

// hostileText is a seeded string of the classes encoding/json writes apart:
// quotes and backslashes, control characters, HTML's <, > and &, U+2028 and
// U+2029, multi-byte runes, the replacement rune itself, and bytes that are
// not UTF-8 (alone, truncated sequences, encoded surrogates).
func hostileText(rng *rand.Rand) string {
	parts := []string{"a", "-", "\"", "\\", "\x00", "\x1f", "\b", "\t", "\n", "\f", "\r", "\x7f", "<", ">", "&", "\u2028", "\u2029",
		"é", "日", "😀", "\U0010ffff", "\ufffd", "\xff", "\x80", "\xe6\x97", "\xf0\x9f\x98", "\xed\xa0\x80", "\xc0\xaf", "/"}
	var b strings.Builder
	for range rng.IntN(12) {
		b.WriteString(parts[rng.IntN(len(parts))])
	}
	return b.String()
}

// hostileFloat is a seeded finite float64 of the forms encoding/json writes
// apart: fractions k/n as pass^k and p are, -0, values at and around the
// thresholds where the exponent form starts (1e-6, 1e21), subnormals, the
// largest, and arbitrary bit patterns.
func hostileFloat(rng *rand.Rand) float64 {
	switch rng.IntN(8) {
	case 0:
		n := 1 + rng.IntN(limit.MaxRepetitions)
		return float64(rng.IntN(n+1)) / float64(n)
	case 1:
		return math.Pow(float64(rng.IntN(n32+1))/float64(1+rng.IntN(n32)), float64(1+rng.IntN(limit.MaxRepetitions)))
	case 2:
		edges := []float64{0, math.Copysign(0, -1), 1e-6, 1e-7, 1e21, 1e20, 5e-324, math.SmallestNonzeroFloat64 * 3, math.MaxFloat64, 1}
		x := edges[rng.IntN(len(edges))]
		switch rng.IntN(3) {
		case 0:
			x = math.Nextafter(x, math.Inf(1))
		case 1:
			x = math.Nextafter(x, math.Inf(-1))
		}
		if math.IsInf(x, 0) {
			return math.MaxFloat64
		}
		return x
	case 3:
		return roundReport(rng.Float64())
	case 4:
		return float64(rng.IntN(limit.MaxTrialLatencyMs)) + 0.5*float64(rng.IntN(2))
	default:
		for {
			if x := math.Float64frombits(rng.Uint64()); !math.IsNaN(x) && !math.IsInf(x, 0) {
				return x
			}
		}
	}
}

const n32 = 32

// hostileInt is 0 (which omitempty leaves out) or a count up to the largest int.
func hostileInt(rng *rand.Rand) int {
	switch rng.IntN(4) {
	case 0:
		return 0
	case 1:
		return rng.IntN(1000)
	case 2:
		return math.MaxInt - rng.IntN(10)
	default:
		return int(rng.Int64())
	}
}

// TestRowSizesMatchEncoding holds the hand-sized journey rows (writeSized,
// rowSizer) to len(json.Marshal(row)) over a seeded sweep of rows with
// hostile strings, floats and counts, fields present and absent. The pass^k
// lists come from a small pool, so that the sizer's lookup by value is hit
// as often as it is filled, and lists that differ only in -0 and 0 are
// different lists.
func TestRowSizesMatchEncoding(t *testing.T) {
	n := 20_000
	if testing.Short() {
		n = 2_000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var pool [][]float64
	for range 64 {
		var list []float64
		switch rng.IntN(4) {
		case 0: // nil: null
		case 1:
			list = []float64{}
		default:
			for range rng.IntN(limit.MaxRepetitions + 1) {
				list = append(list, hostileFloat(rng))
			}
		}
		pool = append(pool, list, slices.Clone(list))
	}
	pool = append(pool, []float64{0, 1}, []float64{math.Copysign(0, -1), 1})
	var planner []PlannerJourneyRow
	var pair []PairJourneyRow
	for range n {
		r := PlannerJourneyRow{JourneyID: hostileText(rng), AppID: hostileText(rng), Runs: hostileInt(rng), Passes: hostileInt(rng),
			FirstAttemptPasses: hostileInt(rng), RescuedByRetry: hostileInt(rng), NotEvaluable: hostileInt(rng), PassAtK: pool[rng.IntN(len(pool))],
			LatencyUnknown: hostileInt(rng), InputTokens: hostileInt(rng), OutputTokens: hostileInt(rng), TokensUnknown: hostileInt(rng),
			RecoveryTriggered: hostileInt(rng), Recovered: hostileInt(rng)}
		if rng.IntN(2) == 0 {
			x := hostileFloat(rng)
			r.MedianLatencyMs = &x
		}
		planner = append(planner, r)
		pair = append(pair, PairJourneyRow{JourneyID: hostileText(rng), ARuns: hostileInt(rng), APasses: hostileInt(rng), BRuns: hostileInt(rng),
			BPasses: hostileInt(rng), MatchedRuns: hostileInt(rng), APassedOnly: hostileInt(rng), BPassedOnly: hostileInt(rng),
			FisherP: hostileFloat(rng), Flag: JourneyFlag(hostileText(rng))})
	}
	rows, pairs := [][]PlannerJourneyRow{planner}, [][]PairJourneyRow{pair}
	var sizer rowSizer
	bad := 0
	check := func(ref rowRef, v any) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := sizer.size(ref, rows, pairs); got != len(want) && bad < 10 {
			bad++
			t.Errorf("row %+v: sized %d bytes, encoding/json wrote %d: %q", ref, got, len(want), want)
		}
	}
	for i := range n {
		check(rowRef{pair: -1, index: i}, &planner[i])
		check(rowRef{pair: 0, index: i}, &pair[i])
	}
}

// TestComparisonPagesPartition walks every page of seeded observed
// comparisons (from trials and from counts) whose planner IDs are hostile
// (control characters and U+2028 are refused as planner IDs)
// and whose rows carry fractional medians, unknowns and large counts: every
// answer is within maxReportJSONBytes as encoding/json writes it, and the
// pages 1..Pages carry every row of the full report exactly once, in order.
func TestComparisonPagesPartition(t *testing.T) {
	t.Parallel() // pure computation: it overlaps the rest
	// Every page is a whole comparison, so the cost grows with the square of
	// the journeys. Under -short, four seeds run with a fifth of the
	// journeys, picked by mutating selectRows (December 4): 4 and 7 (trials,
	// rounds matched and not) leave the rows about 9 KB a page and fill one
	// to within 29 bytes of the bound, so a margin of 32 bytes, not 64, goes
	// over; 37 (trials) and 68 (counts) have few planners, so a page holds
	// 100 to 180 rows and a row sized one byte short goes over. Seeds 0 and
	// 2, the earlier choice, came no closer than 31 bytes with 20 rows a
	// page, and missed both.
	seeds, scale := []uint64{0, 1, 2, 3, 4, 5}, 1
	if testing.Short() {
		seeds, scale = []uint64{4, 7, 37, 68}, 5
	}
	closest, most := maxReportJSONBytes, 0 // the least room a page left, the most rows one held
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 7))
		planners := 2 + rng.IntN(limit.MaxPlanners-1)
		journeys := (40 + rng.IntN(120)) / scale
		useCounts := seed%3 == 2
		in := CompareObservedTrialsInput{CorpusVersion: CorpusVersion, MatchedRounds: seed%2 == 0 && !useCounts}
		ids := []string{strings.Repeat("<", limit.MaxIDLength-2), strings.Repeat(">", limit.MaxIDLength-2), strings.Repeat("😀", limit.MaxIDLength-2), strings.Repeat("&\"", limit.MaxIDLength/2-1)}
		for p := range planners {
			in.Planners = append(in.Planners, PlannerRef{ID: fmt.Sprintf("%s%02d", ids[p%len(ids)], p), Vendor: "v", Model: "m"})
		}
		for j := range journeys {
			app := fmt.Sprintf("ext:%s%02d", strings.Repeat("a", limit.MaxIDLength-6), j%limit.MaxObservedApps)
			journey := fmt.Sprintf("%s-%04d", strings.Repeat("j", limit.MaxIDLength-5), j)
			for p := range planners {
				if rng.IntN(8) == 0 {
					continue // a journey some planners did not run
				}
				if useCounts {
					runs := 1 + rng.IntN(limit.MaxCountRuns)
					fa := rng.IntN(runs + 1)
					in.Counts = append(in.Counts, JourneyCounts{PlannerID: in.Planners[p].ID, AppID: app, JourneyID: journey, Runs: runs, FirstAttemptPasses: fa,
						Passes: fa + rng.IntN(runs-fa+1), NotEvaluable: rng.IntN(3), InputTokens: rng.IntN(limit.MaxCountTokens), OutputTokens: rng.IntN(limit.MaxCountTokens)})
					continue
				}
				for rep := 1; rep <= 1+rng.IntN(12); rep++ {
					tr := Trial{PlannerID: in.Planners[p].ID, AppID: app, FixtureID: "ext:f", JourneyID: journey, Repetition: rep, Passed: rng.IntN(3) > 0,
						LatencyMs: rng.IntN(limit.MaxTrialLatencyMs + 1), InputTokens: rng.IntN(limit.MaxTrialTokens), Attempts: 1 + rng.IntN(2)}
					switch rng.IntN(10) {
					case 0:
						tr.Passed, tr.NotEvaluable = false, true
					case 1:
						tr.LatencyMs, tr.LatencyUnknown = 0, true
					case 2:
						tr.InputTokens, tr.TokensUnknown = 0, true
					}
					in.Trials = append(in.Trials, tr)
				}
			}
		}
		in.Rows = RowSelection{All: true}
		full, err := CompareObservedTrials(context.Background(), in)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got, pages := walkPages(t, in, func(page int, r *ComparisonReport) {
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > maxReportJSONBytes || jsonSize(r) != len(b) {
				t.Errorf("seed %d, page %d of %d: %d bytes (jsonSize %d), over %d", seed, page, r.Pages, len(b), jsonSize(r), maxReportJSONBytes)
			}
			if page < r.Pages {
				closest = min(closest, maxReportJSONBytes-len(b))
			}
			rows := 0
			for i := range r.Planners {
				rows += len(r.Planners[i].JourneyRows)
			}
			for i := range r.Pairs {
				rows += len(r.Pairs[i].Journeys)
			}
			most = max(most, rows)
		})
		// Pairs left out (long planner IDs) carry no rows on any page.
		want := full
		want.Pairs = slices.DeleteFunc(slices.Clone(full.Pairs), func(p PairedComparison) bool {
			return !slices.ContainsFunc(got.Pairs, func(q PairedComparison) bool { return q.PlannerA == p.PlannerA && q.PlannerB == p.PlannerB })
		})
		want.PairsOmitted = len(full.Pairs) - len(want.Pairs)
		got.PairsOmitted = want.PairsOmitted
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("seed %d: the %d pages together (-full +pages):\n%.2000s", seed, pages, diff)
		}
		t.Logf("seed %d: %d planners, %d journeys, counts %v: %d pages, %d pairs left out", seed, planners, journeys, useCounts, pages, want.PairsOmitted)
		if pages < 2 && seed != 5 {
			t.Errorf("seed %d: one page; the input no longer needs pages, so the partition is not tried", seed)
		}
		// The summary counts the same pages and stays within the bound.
		in.Rows = RowSelection{}
		sum, err := CompareObservedTrials(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Pages != pages || jsonSize(&sum) > maxReportJSONBytes {
			t.Errorf("seed %d: the summary counts %d pages (the pages say %d) in %d bytes", seed, sum.Pages, pages, jsonSize(&sum))
		}
	}
	// The bound is tried only by a page that comes close to it, and a row
	// sized short only by a page of many rows: seeds that reach neither no
	// longer test the cut, and need choosing again.
	if closest > 32 || most < 100 {
		t.Errorf("no full page came within 32 bytes of the bound (closest %d) or no page held 100 rows (most %d): choose other seeds", closest, most)
	}
}

// walkPages asks in for its pages 1..Pages, calls each with every page, and
// returns the first page's aggregates carrying the rows of every page, in
// page order, and the count of pages.
func walkPages(t *testing.T, in CompareObservedTrialsInput, each func(page int, r *ComparisonReport)) (ComparisonReport, int) {
	t.Helper()
	var got ComparisonReport
	pages := 1
	for page := 1; page <= pages; page++ {
		in.Rows = RowSelection{Page: page}
		r, err := CompareObservedTrials(context.Background(), in)
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		if each != nil {
			each(page, &r)
		}
		pages = r.Pages
		if got.Planners == nil {
			got = aggregatesOf(r)
		}
		for i := range r.Planners {
			got.Planners[i].JourneyRows = append(got.Planners[i].JourneyRows, r.Planners[i].JourneyRows...)
		}
		for i := range r.Pairs {
			got.Pairs[i].Journeys = append(got.Pairs[i].Journeys, r.Pairs[i].Journeys...)
		}
	}
	return got, pages
}

// costliestAggregatesInput is an observed comparison of MaxPlanners planners named
// by the costliest IDs (a < is six bytes of JSON; vendor and model too) over
// journeys spread across apps distinct apps of the longest IDs, as trials or
// as counts, with the costliest aggregates: every planner on the Pareto front
// (a better pass rate costs latency and tokens), recovery, not-evaluable runs,
// unknown latency and tokens, and figures of many digits.
func costliestAggregatesInput(apps, journeys int, counts bool) CompareObservedTrialsInput {
	in := CompareObservedTrialsInput{CorpusVersion: CorpusVersion}
	id := func(p int) string { return fmt.Sprintf("%s%02d", strings.Repeat("<", limit.MaxIDLength-2), p) }
	for p := range limit.MaxPlanners {
		in.Planners = append(in.Planners, PlannerRef{ID: id(p), Vendor: strings.Repeat("<", limit.MaxIDLength), Model: strings.Repeat("<", limit.MaxIDLength)})
	}
	for j := range journeys {
		app := fmt.Sprintf("ext:%s%03d", strings.Repeat("a", limit.MaxIDLength-7), j%apps)
		journey := fmt.Sprintf("j-%06d", j)
		for p := range limit.MaxPlanners {
			if counts {
				runs := limit.MaxCountRuns - j%7
				first := runs*(p+1)/(limit.MaxPlanners+1) - j%3
				in.Counts = append(in.Counts, JourneyCounts{PlannerID: id(p), AppID: app, JourneyID: journey, Runs: runs, FirstAttemptPasses: first, Passes: first + 1 + j%5,
					NotEvaluable: 1 + j%13, InputTokens: limit.MaxCountTokens/2 + 7919*p + j, OutputTokens: limit.MaxCountTokens/3 + 104729*p + j, TokensUnknown: j % 4,
					RecoveryTriggered: 9 + j%11, Recovered: 3 + j%5})
				continue
			}
			for rep := 1; rep <= 3; rep++ {
				k := j*3 + rep
				tr := Trial{PlannerID: id(p), AppID: app, FixtureID: "ext:f", JourneyID: journey, Repetition: rep, Passed: k%17 < p+1,
					LatencyMs: limit.MaxTrialLatencyMs - 1000*(limit.MaxPlanners-p) - k%97, InputTokens: limit.MaxTrialTokens/2 + 7919*p + k, OutputTokens: limit.MaxTrialTokens/3 + k,
					RecoveryTriggered: rep > 1, Recovered: rep == 3, Attempts: 1 + rep%2}
				switch k % 11 {
				case 0:
					tr.Passed, tr.NotEvaluable = false, true
				case 1:
					tr.LatencyMs, tr.LatencyUnknown = 0, true
				case 2:
					tr.InputTokens, tr.OutputTokens, tr.TokensUnknown = 0, 0, true
				}
				in.Trials = append(in.Trials, tr)
			}
		}
	}
	return in
}

// TestComparisonAggregatesWorst holds the summary of the costliest
// aggregates (costliestAggregatesInput) to maxReportJSONBytes and what the
// aggregates leave the rows (minRowJSONBytes), at every app count up to
// MaxObservedApps, on trials and on counts. TestObservedAppsBound's input
// has vendor "v", model "m", a Pareto front of few planners and no
// recovery, unknowns or repeated runs; with those the summary is over.
// Measured (December 4), summary bytes against the 120,832-byte bound:
// trials 131,815 at 16 apps (over MaxComparisonAnswerBytes, 131,072);
// counts 167,334 at 16 apps, 133,494 at 8, and at 1 app the aggregates
// alone are 103,636 bytes (each planner's repeatability lists pass^k for
// k up to 100). Every pair is left out and it is still over: what is left
// is per planner, so no count of pairs or rows brings it under. Over stdio
// (the built automium-mcp, 2025-06-18), a counts snapshot of 16 planners ×
// 1,000 journeys over 16 apps answers 173,575 bytes, its structured content
// about 167,000 (docs/answers.md: 128 KiB); the tool's worst answer, 294,912
// bytes, still holds (2025-03-26: 187,930). The planners' app rollups are
// now left out when the rest leaves them no room (appRollupsOmitted).
//
// Under -short it checks counts, whose figures are the larger, at the two
// ends: 1 app (the costliest aggregates alone) and MaxObservedApps (the
// costliest summary), where the figures above peak; each case takes about
// 0.3 s.
func TestComparisonAggregatesWorst(t *testing.T) {
	t.Parallel() // pure computation: it overlaps the rest
	appCounts, kinds := []int{1, 4, 8, limit.MaxObservedApps}, []bool{false, true}
	if testing.Short() {
		appCounts, kinds = []int{1, limit.MaxObservedApps}, []bool{true}
	}
	for _, apps := range appCounts {
		for _, counts := range kinds {
			r, err := CompareObservedTrials(context.Background(), costliestAggregatesInput(apps, 1000, counts))
			if err != nil {
				t.Fatal(err)
			}
			if apps == limit.MaxObservedApps && counts && r.AppRollupsOmitted == 0 {
				t.Errorf("%d apps, counts: no app rollup left out; the input no longer reaches the cut", apps)
			}
			agg := aggregatesOf(r)
			agg.Pairs = []PairedComparison{}
			if n, a := jsonSize(&r), jsonSize(&agg); n > maxReportJSONBytes || a > maxReportJSONBytes-minRowJSONBytes {
				t.Errorf("%d apps, counts %v: the summary is %d bytes (bound %d), the aggregates without pairs %d (bound %d)", apps, counts, n, maxReportJSONBytes, a, maxReportJSONBytes-minRowJSONBytes)
			}
		}
	}
}

// TestAppRollupsOmittedDeterministic shuffles the trials and the counts of
// summaries that leave app rollups and pairs out (seeded) and holds their
// JSON and Markdown to the same bytes: which rollups and pairs are left out
// depends on the input's content, never its order.
func TestAppRollupsOmittedDeterministic(t *testing.T) {
	for _, counts := range []bool{false, true} {
		in := costliestAggregatesInput(limit.MaxObservedApps, 120, counts)
		var first []byte
		for seed := range uint64(3) {
			if seed > 0 {
				rng := rand.New(rand.NewPCG(seed, 36))
				rng.Shuffle(len(in.Trials), func(i, j int) { in.Trials[i], in.Trials[j] = in.Trials[j], in.Trials[i] })
				rng.Shuffle(len(in.Counts), func(i, j int) { in.Counts[i], in.Counts[j] = in.Counts[j], in.Counts[i] })
			}
			r, err := CompareObservedTrials(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if r.AppRollupsOmitted == 0 || r.PairsOmitted == 0 {
				t.Fatalf("counts %v: the input no longer leaves rollups and pairs out (%d, %d)", counts, r.AppRollupsOmitted, r.PairsOmitted)
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, markdownOf(t, &r)...)
			if first == nil {
				first = b
			} else if !bytes.Equal(b, first) {
				t.Errorf("counts %v, seed %d: the shuffled input answers other bytes (%d against %d)", counts, seed, len(b), len(first))
			}
		}
	}
}
