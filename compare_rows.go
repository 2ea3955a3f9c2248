package automium

import (
	"cmp"
	"encoding/binary"
	"encoding/json"
	jsonv2 "encoding/json/v2"
	"math"
	"slices"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// The parts of limit.MaxComparisonAnswerBytes, which bounds the JSON of
// every answer of the comparison capabilities ([ComparePlanners],
// [CompareObservedTrials], [CompareReports]) whatever their row selection but
// [RowSelection.All] (the summary, the rows of named journeys and every page,
// as encoding/json writes them: a < in an ID is six bytes; Limits lists it):
// the report, and what CompareReports adds beside it (its import counts,
// and its triage, cut to what the report leaves).
const (
	// maxReportJSONBytes bounds a selected report's JSON: what is left
	// when CompareReports has its import counts (2 KiB) and the least
	// triage.
	maxReportJSONBytes = limit.MaxComparisonAnswerBytes - minTriageJSONBytes - 2<<10
	// minRowJSONBytes is what the aggregates leave the rows at least: the
	// pairs' aggregates stop at maxReportJSONBytes − minRowJSONBytes.
	minRowJSONBytes = 8 << 10
	// minTriageJSONBytes is the least an import's triage keeps; it keeps
	// what the report leaves of the answer.
	minTriageJSONBytes = 8 << 10
	// maxNamedJourneys bounds the journeys one call names.
	maxNamedJourneys = 64
)

// RowSelection is what a Go caller may ask of a comparison's journey rows
// beyond naming journeys (the inputs' Journeys, the one choice on the wire).
// The aggregates (every planner's and every pair's figures, verdicts,
// intervals and app rollups) are always there and always computed from
// every row; the rows are details, and a report of MaxObservedTrials trials
// has hundreds of thousands of them.
//
// The zero value, with no journeys named, asks for the summary: the flagged
// pair rows, regressed first, then improved, inconclusive and flaky (by
// Fisher p, then pair order, then journey ID; within a pair in that order),
// as many as fit, and no planner rows. Named journeys give every planner and
// pair row of those journeys (up to 64 journeys), as many as fit. Page (from
// 1) gives one page of every row (the planners' rows in report order, then
// the pairs'), or of the named journeys' rows. Every answer but All's is at
// most MaxComparisonAnswerBytes of JSON (see [Limits]); the report's
// RowsOmitted, FlaggedRowsOmitted and PairsOmitted count what it left out,
// and its Pages how many pages its rows take.
type RowSelection struct {
	// Page is the page of the rows; 0 (or below) is the summary, or the first
	// page of the named journeys' rows.
	Page int
	// All returns every row: the report is then as large as its input makes
	// it, and its memory is the caller's.
	All bool
}

// rowRef is one journey row of a full report: of planner p (pair < 0), or
// of pair pair.
type rowRef struct {
	planner, pair, index int
}

// selectRows cuts the full report r down to what sel asks, within
// maxReportJSONBytes; journeys are the journeys named (problems are
// reported at journeys[i]). With sel.All, r stays whole.
func (r *ComparisonReport) selectRows(journeys []string, sel RowSelection) error {
	field := field("journeys")
	if sel.All {
		return nil // every row, nothing omitted
	}
	sel.Page = max(sel.Page, 0)
	var named map[string]bool
	if len(journeys) > 0 {
		known := map[string]bool{}
		for i := range r.Planners {
			for _, row := range r.Planners[i].JourneyRows {
				known[row.JourneyID] = true
			}
		}
		named = make(map[string]bool, len(journeys))
		ps := newProblems(nil)
		if len(journeys) > maxNamedJourneys {
			return newError(CodeLimitExceeded, field, nil, "names %d journeys; name at most %d", len(journeys), maxNamedJourneys)
		}
		for i, id := range journeys {
			switch {
			case known[id]:
			case known[journeySlug(id)]:
				// A producer's own ID (a τ² task, an Inspect sample) that
				// the report knows by its slug.
				ps.add(field.at(i), CodeInvalidArgument, nil, "journey %s is in the report as journey ID %s; name it by that ID", echo.Value(id), echo.Value(journeySlug(id)))
			default:
				ps.add(field.at(i), CodeInvalidArgument, nil, "journey %s is not in the report; name a journey a planner ran", echo.Value(id))
			}
			named[id] = true
		}
		if err := ps.err(); err != nil {
			return err
		}
	}
	// Every row of the full report, in the order pages take them, and the
	// flagged count.
	var all []rowRef
	flaggedTotal := 0
	// Where each planner's and each pair's rows start in all.
	plannerStart, pairStart := make([]int, len(r.Planners)), make([]int, len(r.Pairs))
	for p := range r.Planners {
		plannerStart[p] = len(all)
		for i := range r.Planners[p].JourneyRows {
			all = append(all, rowRef{planner: p, pair: -1, index: i})
		}
	}
	for q := range r.Pairs {
		pairStart[q] = len(all)
		for i, row := range r.Pairs[q].Journeys {
			all = append(all, rowRef{pair: q, index: i})
			flaggedTotal += b2i(flagRank(row.Flag) >= 0)
		}
	}
	// Take the rows out; what fits goes back.
	plannerRows := make([][]PlannerJourneyRow, len(r.Planners))
	for p := range r.Planners {
		plannerRows[p] = r.Planners[p].JourneyRows
		r.Planners[p].JourneyRows = []PlannerJourneyRow{}
	}
	pairRows := make([][]PairJourneyRow, len(r.Pairs))
	for q := range r.Pairs {
		pairRows[q] = r.Pairs[q].Journeys
		r.Pairs[q].Journeys = []PairJourneyRow{}
	}
	keptPairs, aggregates := r.fitPairs(pairRows)
	budget := maxReportJSONBytes - aggregates - 64 // 64: room for the counts to grow
	// The candidates, in the order they are taken.
	var cands []rowRef
	switch {
	case named != nil:
		for _, ref := range all {
			if id := refJourney(ref, plannerRows, pairRows); named[id] && (ref.pair < 0 || keptPairs[ref.pair]) {
				cands = append(cands, ref)
			}
		}
	case sel.Page > 0:
		for _, ref := range all {
			if ref.pair < 0 || keptPairs[ref.pair] {
				cands = append(cands, ref)
			}
		}
	default:
		for _, ref := range all {
			if ref.pair >= 0 && keptPairs[ref.pair] && flagRank(pairRows[ref.pair][ref.index].Flag) >= 0 {
				cands = append(cands, ref)
			}
		}
		slices.SortStableFunc(cands, func(x, y rowRef) int {
			a, b := &pairRows[x.pair][x.index], &pairRows[y.pair][y.index]
			return cmp.Or(cmp.Compare(flagRank(a.Flag), flagRank(b.Flag)), cmp.Compare(a.FisherP, b.FisherP))
		})
	}
	// Pages: greedy, in candidate order, as many rows as fit in what the
	// aggregates leave. The summary is the first page of the flagged rows;
	// rows.pages counts the pages of every row (of the named journeys' rows
	// when journeys are named), the ones page asks for.
	sizes := make([]int, len(all)) // by position in all; 0 until measured
	var sizer rowSizer
	size := func(ref rowRef) int {
		var at int
		if ref.pair < 0 {
			at = plannerStart[ref.planner] + ref.index
		} else {
			at = pairStart[ref.pair] + ref.index
		}
		if sizes[at] == 0 {
			sizes[at] = sizer.size(ref, plannerRows, pairRows) + 1
		}
		return sizes[at]
	}
	paginate := func(refs []rowRef) []int {
		starts, used := []int{0}, 0
		for i, ref := range refs {
			n := size(ref)
			if used > 0 && used+n > budget {
				starts = append(starts, i)
				used = 0
			}
			used += n
		}
		return starts
	}
	starts := paginate(cands)
	page := max(sel.Page, 1)
	if page > len(starts) {
		return newError(CodeInvalidArgument, PathOf("Rows").dot("Page"), nil, "page %d is past the last page, %d; ask for a page from 1 to %d", sel.Page, len(starts), len(starts))
	}
	end := len(cands)
	if page < len(starts) {
		end = starts[page]
	}
	take := cands[starts[page-1]:end]
	r.Pages = len(starts)
	if named == nil && sel.Page == 0 {
		var every []rowRef
		for _, ref := range all {
			if ref.pair < 0 || keptPairs[ref.pair] {
				every = append(every, ref)
			}
		}
		r.Pages = len(paginate(every))
	}
	// Put what was taken back, each list in its report order.
	slices.SortFunc(take, func(x, y rowRef) int {
		return cmp.Or(cmp.Compare(x.pair, y.pair), cmp.Compare(x.planner, y.planner), cmp.Compare(x.index, y.index))
	})
	if named == nil && sel.Page == 0 {
		// The summary keeps its order of importance within a pair.
		slices.SortStableFunc(take, func(x, y rowRef) int {
			if x.pair != y.pair {
				return cmp.Compare(x.pair, y.pair)
			}
			a, b := &pairRows[x.pair][x.index], &pairRows[y.pair][y.index]
			return cmp.Or(cmp.Compare(flagRank(a.Flag), flagRank(b.Flag)), cmp.Compare(a.FisherP, b.FisherP), cmp.Compare(x.index, y.index))
		})
	}
	plannerTaken, pairTaken, flaggedTaken := 0, 0, 0
	for _, ref := range take {
		if ref.pair < 0 {
			r.Planners[ref.planner].JourneyRows = append(r.Planners[ref.planner].JourneyRows, plannerRows[ref.planner][ref.index])
			plannerTaken++
			continue
		}
		row := pairRows[ref.pair][ref.index]
		r.Pairs[pairIndex(keptPairs, ref.pair)].Journeys = append(r.Pairs[pairIndex(keptPairs, ref.pair)].Journeys, row)
		pairTaken++
		flaggedTaken += b2i(flagRank(row.Flag) >= 0)
	}
	plannerTotal, pairTotal := 0, 0
	for _, ref := range all {
		if ref.pair < 0 {
			plannerTotal++
		} else {
			pairTotal++
		}
	}
	r.RowsOmitted = plannerTotal - plannerTaken + pairTotal - pairTaken
	r.FlaggedRowsOmitted = flaggedTotal - flaggedTaken
	return nil
}

// refJourney is the journey of a row.
func refJourney(ref rowRef, plannerRows [][]PlannerJourneyRow, pairRows [][]PairJourneyRow) string {
	if ref.pair < 0 {
		return plannerRows[ref.planner][ref.index].JourneyID
	}
	return pairRows[ref.pair][ref.index].JourneyID
}

// rowSizer measures the JSON of journey rows. The summary sizes every row
// of the full report to count its pages: 2,992 rows for the maximal
// comparison, whose 352 planner rows carry 35,200 pass^k figures. Through
// encoding/json that was most of the comparison's time (December 4). Rows
// are written directly from their fields, as compiled journeys are
// (journey_digest.go), and a pass^k list's size is looked up by its values,
// which repeat across rows (they depend on a row's runs and passes only).
// TestRowJSONMatchesReflection holds the sizes and the bytes to encoding/json's.
type rowSizer struct {
	w     journeyWriter
	lists map[string]int // a pass^k list's JSON size, by its float64 bits
	key   []byte
}

// size is the size of a row's JSON.
func (s *rowSizer) size(ref rowRef, plannerRows [][]PlannerJourneyRow, pairRows [][]PairJourneyRow) int {
	if ref.pair >= 0 {
		return writeSized(&s.w, pairRowMembers, &pairRows[ref.pair][ref.index])
	}
	row := plannerRows[ref.planner][ref.index]
	list := row.PassAtK
	if list == nil {
		return writeSized(&s.w, plannerRowMembers, &row)
	}
	row.PassAtK = []float64{}
	n := writeSized(&s.w, plannerRowMembers, &row) - len("[]")
	s.key = s.key[:0]
	for _, x := range list {
		s.key = binary.LittleEndian.AppendUint64(s.key, math.Float64bits(x))
	}
	m, ok := s.lists[string(s.key)]
	if !ok {
		s.w.out = s.w.out[:0]
		writeList(&s.w, list, func(x *float64) { s.w.float(*x) })
		m = len(s.w.out)
		if s.lists == nil {
			s.lists = map[string]int{}
		}
		s.lists[string(s.key)] = m
	}
	return n + m
}

// writeSized writes v's JSON, as encoding/json writes it, into w's buffer,
// which it reuses, and returns its size.
func writeSized[T any](w *journeyWriter, ms members[T], v *T) int {
	w.out = w.out[:0]
	writeObject(w, ms, v)
	if w.err != nil {
		panic("automium: a report value does not encode: " + w.err.Error())
	}
	return len(w.out)
}

type (
	plannerRowMember = member[PlannerJourneyRow]
	pairRowMember    = member[PairJourneyRow]
)

// The members of the journey rows in field order, as encoding/json writes them.
var (
	plannerRowMembers = newMembers(
		plannerRowMember{"journeyId", nil, func(w *journeyWriter, r *PlannerJourneyRow) { w.string(r.JourneyID) }},
		plannerRowMember{"appId", nil, func(w *journeyWriter, r *PlannerJourneyRow) { w.string(r.AppID) }},
		plannerRowMember{"runs", nil, func(w *journeyWriter, r *PlannerJourneyRow) { w.int(r.Runs) }},
		plannerRowMember{"passes", nil, func(w *journeyWriter, r *PlannerJourneyRow) { w.int(r.Passes) }},
		plannerRowMember{"firstAttemptPasses", nil, func(w *journeyWriter, r *PlannerJourneyRow) { w.int(r.FirstAttemptPasses) }},
		plannerRowMember{"rescuedByRetry", func(r *PlannerJourneyRow) bool { return r.RescuedByRetry == 0 }, func(w *journeyWriter, r *PlannerJourneyRow) { w.int(r.RescuedByRetry) }},
		plannerRowMember{"notEvaluable", func(r *PlannerJourneyRow) bool { return r.NotEvaluable == 0 }, func(w *journeyWriter, r *PlannerJourneyRow) { w.int(r.NotEvaluable) }},
		plannerRowMember{"passAtK", nil, func(w *journeyWriter, r *PlannerJourneyRow) {
			writeList(w, r.PassAtK, func(x *float64) { w.float(*x) })
		}},
		plannerRowMember{"medianLatencyMs", func(r *PlannerJourneyRow) bool { return r.MedianLatencyMs == nil }, func(w *journeyWriter, r *PlannerJourneyRow) { w.float(*r.MedianLatencyMs) }},
		plannerRowMember{"latencyUnknown", func(r *PlannerJourneyRow) bool { return r.LatencyUnknown == 0 }, func(w *journeyWriter, r *PlannerJourneyRow) { w.int(r.LatencyUnknown) }},
		plannerRowMember{"inputTokens", nil, func(w *journeyWriter, r *PlannerJourneyRow) { w.int(r.InputTokens) }},
		plannerRowMember{"outputTokens", nil, func(w *journeyWriter, r *PlannerJourneyRow) { w.int(r.OutputTokens) }},
		plannerRowMember{"tokensUnknown", func(r *PlannerJourneyRow) bool { return r.TokensUnknown == 0 }, func(w *journeyWriter, r *PlannerJourneyRow) { w.int(r.TokensUnknown) }},
		plannerRowMember{"recoveryTriggered", func(r *PlannerJourneyRow) bool { return r.RecoveryTriggered == 0 }, func(w *journeyWriter, r *PlannerJourneyRow) { w.int(r.RecoveryTriggered) }},
		plannerRowMember{"recovered", func(r *PlannerJourneyRow) bool { return r.Recovered == 0 }, func(w *journeyWriter, r *PlannerJourneyRow) { w.int(r.Recovered) }},
	)
	pairRowMembers = newMembers(
		pairRowMember{"journeyId", nil, func(w *journeyWriter, r *PairJourneyRow) { w.string(r.JourneyID) }},
		pairRowMember{"aRuns", nil, func(w *journeyWriter, r *PairJourneyRow) { w.int(r.ARuns) }},
		pairRowMember{"aFirstAttemptPasses", nil, func(w *journeyWriter, r *PairJourneyRow) { w.int(r.APasses) }},
		pairRowMember{"bRuns", nil, func(w *journeyWriter, r *PairJourneyRow) { w.int(r.BRuns) }},
		pairRowMember{"bFirstAttemptPasses", nil, func(w *journeyWriter, r *PairJourneyRow) { w.int(r.BPasses) }},
		pairRowMember{"matchedRuns", func(r *PairJourneyRow) bool { return r.MatchedRuns == 0 }, func(w *journeyWriter, r *PairJourneyRow) { w.int(r.MatchedRuns) }},
		pairRowMember{"aPassedOnly", func(r *PairJourneyRow) bool { return r.APassedOnly == 0 }, func(w *journeyWriter, r *PairJourneyRow) { w.int(r.APassedOnly) }},
		pairRowMember{"bPassedOnly", func(r *PairJourneyRow) bool { return r.BPassedOnly == 0 }, func(w *journeyWriter, r *PairJourneyRow) { w.int(r.BPassedOnly) }},
		pairRowMember{"fisherP", nil, func(w *journeyWriter, r *PairJourneyRow) { w.float(r.FisherP) }},
		pairRowMember{"flag", nil, func(w *journeyWriter, r *PairJourneyRow) { w.string(string(r.Flag)) }},
	)
)

// jsonSize is the size of v's JSON as encoding/json writes it (its v1
// options), counted as it is written rather than kept.
func jsonSize(v any) int {
	var n byteCount
	if err := jsonv2.MarshalWrite(&n, v, json.DefaultOptionsV1()); err != nil {
		panic("automium: a report value does not encode: " + err.Error())
	}
	return int(n)
}

// byteCount is a writer that counts what is written to it.
type byteCount int

func (n *byteCount) Write(p []byte) (int, error) {
	*n += byteCount(len(p))
	return len(p), nil
}

// pairIndex is where the full report's pair q sits among the kept pairs.
func pairIndex(kept []bool, q int) int {
	n := 0
	for i := range q {
		n += b2i(kept[i])
	}
	return n
}

// fitPairs keeps every pair when the aggregates fit in maxReportJSONBytes −
// minRowJSONBytes, which they do unless the planner IDs are long (each pair
// names both of its planners). Otherwise it keeps the pairs that fit,
// decisive first, then by Holm-adjusted p, then in report order, and counts
// the rest in rows.pairsOmitted; the kept pairs stay in report order. It
// reports, by the full report's pair index, which are kept, and the size
// of the JSON of what is left of r (the aggregates).
//
// Without pairs, what is left is per planner: its reference, figures,
// pass^k and one rollup per app. Only the rollups grow with the input (with
// the apps, up to MaxObservedApps), so when the rest leaves them no room
// they are left out, from the last planner back, and counted in
// appRollupsOmitted; each is the sum of the planner's journey rows of one
// app, which pages and named journeys still give. What remains is bounded
// by the input's bounds (TestComparisonAggregatesWorst).
func (r *ComparisonReport) fitPairs(pairRows [][]PairJourneyRow) ([]bool, int) {
	kept := make([]bool, len(r.Pairs))
	for q := range kept {
		kept[q] = true
	}
	limit := maxReportJSONBytes - minRowJSONBytes
	if n := jsonSize(r); n <= limit {
		return kept, n
	}
	pairs := r.Pairs
	r.Pairs = []PairedComparison{}
	used := jsonSize(r)
	for p := len(r.Planners) - 1; p >= 0 && used > limit; p-- {
		if n := len(r.Planners[p].Apps); n > 0 {
			r.Planners[p].Apps = []AppRollup{}
			r.AppRollupsOmitted += n
			used = jsonSize(r)
		}
	}
	order := make([]int, len(pairs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Or(cmp.Compare(verdictRank(pairs[x].Verdict), verdictRank(pairs[y].Verdict)), cmp.Compare(pairs[x].HolmP, pairs[y].HolmP))
	})
	for q := range kept {
		kept[q] = false
	}
	for _, q := range order {
		n := jsonSize(&pairs[q]) + 1
		if used+n > limit {
			continue
		}
		used += n
		kept[q] = true
	}
	for q := range pairs {
		if kept[q] {
			r.Pairs = append(r.Pairs, pairs[q])
		} else {
			r.PairsOmitted++
		}
	}
	return kept, jsonSize(r)
}
