package automium

import (
	"context"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// BaselineReportVersion names the baseline comparison format.
const BaselineReportVersion = "automium-baseline-v1"

// BaselinePrefix starts the ID of a planner's earlier run in a baseline
// comparison: planner p of the snapshot is "baseline:p", beside p of this run.
const BaselinePrefix = "baseline:"

// BaselineInput compares a run with an earlier run of the same planners.
//
// Margin chooses the gate. 0 (the default) fails a planner only when it is
// decisively worse than its baseline: the pair's verdict says the baseline is
// better. A margin m in (0, 1) is a non-inferiority margin on the mean
// per-journey first-attempt pass rate: a planner passes only when the lower
// bound of the 95% interval of (this run − baseline) is above −m.
type BaselineInput struct {
	Baseline CountsSnapshot // the earlier run, as written by SnapshotOf or read by ReadCountsSnapshot
	Current  CountsSnapshot // this run
	Margin   float64
}

// Gate is the rule a baseline comparison decides by; its string is the wire
// form.
type Gate string

// The gates.
const (
	// GateNotWorse fails a planner whose baseline is decisively better.
	GateNotWorse Gate = "not decisively worse"
	// GateNonInferior fails a planner unless the interval's lower bound of
	// (this run − baseline) is above −margin.
	GateNonInferior Gate = "non-inferior within margin"
)

// BaselineVerdict is how a planner's run reads against its baseline.
type BaselineVerdict string

// The verdicts of a planner against its baseline.
const (
	// BaselineWorse: the baseline's mean first-attempt pass rate is
	// significantly higher (the pair's verdict is "A better").
	BaselineWorse BaselineVerdict = "worse"
	// BaselineBetter: this run's is significantly higher.
	BaselineBetter BaselineVerdict = "better"
	// BaselineIndistinguishable: no decisive difference; read the interval.
	BaselineIndistinguishable BaselineVerdict = "indistinguishable"
)

// BaselineReport is a run compared with its baseline, planner by planner, and
// the gate's decision. Pass is false when any planner fails the gate.
type BaselineReport struct {
	ReportVersion  string             `json:"reportVersion"`
	CorpusVersion  string             `json:"corpusVersion"`
	BaselineDigest string             `json:"baselineDigest"`
	CurrentDigest  string             `json:"currentDigest"`
	Gate           Gate               `json:"gate"`
	Margin         float64            `json:"margin,omitempty"`
	Pass           bool               `json:"pass"`
	Planners       []BaselinePlanner  `json:"planners"`
	OnlyBaseline   []string           `json:"onlyBaseline"`
	OnlyCurrent    []string           `json:"onlyCurrent"`
	Comparison     []ComparisonReport `json:"-"`
}

// BaselinePlanner is one planner of this run against its own earlier run.
// Pair is the pair comparison with A the baseline ("baseline:" and the ID)
// and B this run, so its meanDifference is baseline − this run; journeys run
// on one side only are counted in the pair, not compared.
type BaselinePlanner struct {
	PlannerID  string          `json:"plannerId"`
	BaselineID string          `json:"baselineId"`
	Verdict    BaselineVerdict `json:"verdict"`
	Pass       bool            `json:"pass"`
	Reason     string          `json:"reason"`
	Regressed  []string        `json:"regressed"`  // journeys with significantly fewer first-attempt passes (Fisher p ≤ 0.05)
	Fixed      []string        `json:"fixed"`      // journeys with significantly more
	NewlyFlaky []string        `json:"newlyFlaky"` // journeys whose runs are mixed now and were not in the baseline
	Missing    []string        `json:"missing"`    // journeys the baseline evaluated and this run did not: they fail the gate
	// NotEvaluableRose lists the journeys whose share of not-evaluable runs
	// is higher now than in the baseline. The gate is decided again with
	// those runs counted as first-attempt failures; if it then fails, it
	// fails: runs that became not evaluable cannot hide a regression.
	NotEvaluableRose []string         `json:"notEvaluableRose"`
	Pair             PairedComparison `json:"pair"`
}

// CompareBaseline compares each planner of Current that Baseline also has
// with its own baseline, as the pair ("baseline:ID", ID) of an observed
// comparison of their counts, and decides the gate (see [BaselineInput]).
// Each planner is its own comparison of two planners, so no Holm correction
// runs across planners: with several planners, each gate is at α = 0.05.
//
// Both snapshots are checked as [ReadCountsSnapshot] checks them (a snapshot
// built by hand with a wrong digest is refused), must be of one corpus
// version and share at least one planner; Margin must be 0 or in (0, 1).
// Planners in this run only are listed, not compared. What the baseline
// evaluated and this run did not fails the gate, under either rule: a planner
// of the baseline that did not run, and a journey the baseline evaluated that
// has no evaluable run now. Otherwise a run that dropped its failing journeys,
// or a planner, would pass; a team that means to drop them writes a new
// baseline. Runs that became not evaluable cannot hide a regression either:
// when a journey's share of not-evaluable runs is higher than in the
// baseline (BaselinePlanner.NotEvaluableRose), a planner that passes is
// gated again with those runs counted as first-attempt failures, and fails
// if that fails. The report's Comparison holds each planner's whole [ComparisonReport], for rendering; it
// is not part of the JSON.
//
// The same input gives the same report.
func CompareBaseline(ctx context.Context, in BaselineInput) (BaselineReport, error) {
	if err := checkContext(ctx); err != nil {
		return BaselineReport{}, err
	}
	if math.IsNaN(in.Margin) || in.Margin < 0 || in.Margin >= 1 {
		return BaselineReport{}, newError(CodeInvalidArgument, field("margin"), nil,
			"is %v; a non-inferiority margin is a difference of pass rates above 0 and below 1 (0.05 is 5 points), or 0 for the default gate", in.Margin)
	}
	if err := checkCountsSnapshot(&in.Baseline); err != nil {
		return BaselineReport{}, placed(err, "baseline")
	}
	if err := checkCountsSnapshot(&in.Current); err != nil {
		return BaselineReport{}, placed(err, "current")
	}
	if in.Baseline.CorpusVersion != in.Current.CorpusVersion {
		return BaselineReport{}, newError(CodeInvalidArgument, field("current").dot("corpusVersion"), nil,
			"is %s but the baseline's is %s; compare runs of one corpus version, or write a new baseline", echo.Value(in.Current.CorpusVersion), echo.Value(in.Baseline.CorpusVersion))
	}
	out := BaselineReport{
		ReportVersion: BaselineReportVersion, CorpusVersion: in.Current.CorpusVersion,
		BaselineDigest: in.Baseline.Digest, CurrentDigest: in.Current.Digest,
		Gate: GateNotWorse, Margin: in.Margin, Pass: true,
		Planners: []BaselinePlanner{}, OnlyBaseline: []string{}, OnlyCurrent: []string{},
	}
	if in.Margin > 0 {
		out.Gate = GateNonInferior
	}
	baseOf := make(map[string]int, len(in.Baseline.Planners))
	for i, p := range in.Baseline.Planners {
		baseOf[p.ID] = i
	}
	inCurrent := make(map[string]bool, len(in.Current.Planners))
	for _, p := range in.Current.Planners {
		inCurrent[p.ID] = true
		if _, ok := baseOf[p.ID]; !ok {
			out.OnlyCurrent = append(out.OnlyCurrent, p.ID)
		}
	}
	for _, p := range in.Baseline.Planners {
		if !inCurrent[p.ID] {
			out.OnlyBaseline = append(out.OnlyBaseline, p.ID)
		}
	}
	// A planner of this run with no baseline, and one of the baseline that
	// did not run, that differ only in case or character form are one
	// planner renamed: left apart, neither would be gated, and the gate
	// would pass without comparing it.
	if len(out.OnlyCurrent) > 0 && len(out.OnlyBaseline) > 0 {
		folds := foldsOf(out.OnlyBaseline)
		for _, id := range out.OnlyCurrent[:min(len(out.OnlyCurrent), maxFoldLookups)] {
			if twin, ok := folds.twin(id); ok {
				return BaselineReport{}, newError(CodeInvalidArgument, field("current").dot("planners"), nil,
					"planner %s of this run differs from planner %s of the baseline only in case or character form, and planner IDs are compared exactly: name the planner as the baseline does, or write a new baseline", echo.Value(id), echo.Value(twin))
			}
		}
	}
	if err := journeyAppProblems(&in.Baseline, &in.Current, baseOf); err != nil {
		return BaselineReport{}, err
	}
	for _, cur := range in.Current.Planners {
		b, ok := baseOf[cur.ID]
		if !ok {
			continue
		}
		if err := checkContext(ctx); err != nil {
			return BaselineReport{}, err
		}
		bp, report, err := comparePlannerWithBaseline(ctx, in.Current.CorpusVersion, in.Baseline.Planners[b], cur, in.Baseline.Counts, in.Current.Counts, in.Margin)
		if err != nil {
			return BaselineReport{}, err
		}
		out.Pass = out.Pass && bp.Pass
		out.Planners = append(out.Planners, bp)
		out.Comparison = append(out.Comparison, report)
	}
	if len(out.OnlyBaseline) > 0 {
		out.Pass = false
	}
	if len(out.Planners) == 0 {
		return BaselineReport{}, newError(CodeInvalidArgument, field("baseline").dot("planners"), namedPlannerIDs(in.Current.Planners),
			"share no planner with this run; a baseline is an earlier run of the same planner IDs, so write one from a run of these planners")
	}
	return out, nil
}

// journeyAppProblems refuses a journey of a planner that is on one app in
// the baseline and on another in this run: the journey moved (or --app
// changed), so its runs are not runs of one journey, and comparing them would
// say nothing true. Each such row is a problem at this run's row, naming the
// baseline's row; at most maxShownAppProblems are listed.
func journeyAppProblems(base, cur *CountsSnapshot, baseOf map[string]int) error {
	type key struct{ planner, journey string }
	where := make(map[key]int, len(base.Counts))
	for i, c := range base.Counts {
		where[key{c.PlannerID, c.JourneyID}] = i
	}
	var ps []Problem
	for i, c := range cur.Counts {
		if _, ok := baseOf[c.PlannerID]; !ok {
			continue
		}
		j, ok := where[key{c.PlannerID, c.JourneyID}]
		if !ok || base.Counts[j].AppID == c.AppID {
			continue
		}
		if len(ps) == maxShownAppProblems {
			break
		}
		ps = append(ps, newProblem(CodeInvalidArgument, field("current").dot("counts").at(i).dot("appId"), nil, echo.Msg(
			"journey %s of planner %s is on app %s in this run but on app %s in the baseline (counts[%d]): a journey moved to another app is not the same journey; give the app the baseline has (--app), or write a new baseline",
			echo.Value(c.JourneyID), echo.Value(c.PlannerID), echo.Value(c.AppID), echo.Value(base.Counts[j].AppID), j)))
	}
	if len(ps) == 0 {
		return nil
	}
	return Join(ps...)
}

// maxShownAppProblems bounds the moved journeys an error lists.
const maxShownAppProblems = 20

// placed puts the problems of a snapshot under the field that holds it.
func placed(err error, name string) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	ps := e.Problems()
	for i := range ps {
		ps[i] = ps[i].under(field(name))
	}
	return Join(ps...)
}

// comparePlannerWithBaseline compares one planner's counts with its
// baseline's.
func comparePlannerWithBaseline(ctx context.Context, corpusVersion string, baseRef, cur PlannerRef, baseCounts, curCounts []JourneyCounts, margin float64) (BaselinePlanner, ComparisonReport, error) {
	baseID := BaselinePrefix + cur.ID
	if n := utf8.RuneCountInString(baseID); n > limit.MaxIDLength {
		return BaselinePlanner{}, ComparisonReport{}, newError(CodeLimitExceeded, field("current").dot("planners"), nil,
			"planner ID %s is too long to compare with a baseline: %s and the ID are %d characters, above the limit of %d; use a shorter planner ID",
			echo.Value(cur.ID), BaselinePrefix, n, limit.MaxIDLength)
	}
	base := baseRef
	base.ID = baseID
	in := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: corpusVersion, Planners: []PlannerRef{base, cur}}
	baseRows := map[string]*JourneyCounts{}
	for i := range baseCounts {
		if c := baseCounts[i]; c.PlannerID == cur.ID {
			c.PlannerID = baseID
			in.Counts = append(in.Counts, c)
			baseRows[c.JourneyID] = &baseCounts[i]
		}
	}
	curRows := map[string]*JourneyCounts{}
	for i := range curCounts {
		if c := &curCounts[i]; c.PlannerID == cur.ID {
			in.Counts = append(in.Counts, *c)
			curRows[c.JourneyID] = c
		}
	}
	report, err := compareObservedCounts(ctx, in)
	if err != nil {
		return BaselinePlanner{}, ComparisonReport{}, err
	}
	pair := report.Pairs[0]
	bp := BaselinePlanner{
		PlannerID: cur.ID, BaselineID: baseID, Pair: pair,
		Regressed: []string{}, Fixed: []string{}, NewlyFlaky: []string{}, Missing: []string{}, NotEvaluableRose: []string{},
	}
	for id, c := range baseRows {
		if c.Runs > 0 && (curRows[id] == nil || curRows[id].Runs == 0) {
			bp.Missing = append(bp.Missing, id)
		}
	}
	slices.Sort(bp.Missing)
	for _, row := range pair.Journeys {
		switch row.Flag {
		case FlagRegressed:
			bp.Regressed = append(bp.Regressed, row.JourneyID)
		case FlagImproved:
			bp.Fixed = append(bp.Fixed, row.JourneyID)
		case FlagFlaky:
			if curRows[row.JourneyID].mixed() && !baseRows[row.JourneyID].mixed() {
				bp.NewlyFlaky = append(bp.NewlyFlaky, row.JourneyID)
			}
		}
	}
	bp.Verdict = baselineVerdictOf(pair.Verdict)
	bp.Pass, bp.Reason = gateOf(pair, bp.Verdict, margin)
	bp.NotEvaluableRose = notEvaluableRose(baseRows, curRows)
	if bp.Pass && len(bp.NotEvaluableRose) > 0 {
		pass, reason, err := recountNotEvaluable(ctx, in, bp.NotEvaluableRose, margin)
		if err != nil {
			return BaselinePlanner{}, ComparisonReport{}, err
		}
		if !pass {
			n := len(bp.NotEvaluableRose)
			bp.Pass = false
			bp.Reason = fmt.Sprintf("%d journey%s had more not-evaluable runs than in the baseline, and counted as failures they fail the gate (%s); make them evaluable, or write a new baseline. As they are: %s", n, plural(n), reason, bp.Reason)
		}
	}
	if n := len(bp.Missing); n > 0 {
		bp.Pass = false
		bp.Reason = fmt.Sprintf("this run has no evaluable run of %d journey%s the baseline evaluated, so they are not compared; run them, or write a new baseline without them. Otherwise %s", n, plural(n), bp.Reason)
	}
	slices.Sort(bp.NewlyFlaky)
	return bp, report, nil
}

// notEvaluableRose lists, sorted, the journeys of this run with evaluable
// runs whose share of not-evaluable runs is above the baseline's.
func notEvaluableRose(baseRows, curRows map[string]*JourneyCounts) []string {
	rose := []string{}
	for id, c := range curRows {
		b := baseRows[id]
		if b == nil || c.NotEvaluable == 0 || c.Runs == 0 {
			continue
		}
		// c.NE/(c.Runs+c.NE) > b.NE/(b.Runs+b.NE), in integers.
		if c.NotEvaluable*(b.Runs+b.NotEvaluable) > b.NotEvaluable*(c.Runs+c.NotEvaluable) {
			rose = append(rose, id)
		}
	}
	slices.Sort(rose)
	return rose
}

// recountNotEvaluable decides the gate again with the not-evaluable runs of
// this run's rose journeys counted as evaluable first-attempt failures (rows
// capped at MaxCountRuns runs), and says why.
func recountNotEvaluable(ctx context.Context, in CompareObservedTrialsInput, rose []string, margin float64) (bool, string, error) {
	cur := in.Planners[1].ID
	recount := in
	recount.Counts = slices.Clone(in.Counts)
	for i := range recount.Counts {
		c := &recount.Counts[i]
		// rose is sorted (notEvaluableRose): a search, not a scan, so that
		// 100,000 rows against thousands of rose journeys cost rows × log(rose).
		if _, found := slices.BinarySearch(rose, c.JourneyID); found && c.PlannerID == cur {
			c.Runs, c.NotEvaluable = min(c.Runs+c.NotEvaluable, limit.MaxCountRuns), 0
		}
	}
	report, err := compareObservedCounts(ctx, recount)
	if err != nil {
		return false, "", err
	}
	pair := report.Pairs[0]
	pass, reason := gateOf(pair, baselineVerdictOf(pair.Verdict), margin)
	return pass, reason, nil
}

// baselineVerdictOf reads a pair's verdict, A the baseline and B this run,
// as this run's verdict against its baseline.
func baselineVerdictOf(v PairVerdict) BaselineVerdict {
	switch v {
	case PairABetter:
		return BaselineWorse
	case PairBBetter:
		return BaselineBetter
	}
	return BaselineIndistinguishable
}

// gateOf decides one planner's gate from its pair (A the baseline, B this
// run) and its verdict, and says why.
func gateOf(pair PairedComparison, verdict BaselineVerdict, margin float64) (bool, string) {
	// The interval of this run − baseline is the pair's interval negated.
	lower := -pair.Difference95.Upper
	switch {
	case margin > 0:
		if lower > -margin {
			return true, fmt.Sprintf("the 95%% interval of this run − baseline starts at %.6g, above %.6g over %d shared journeys: non-inferior within the margin", lower, -margin, pair.SharedJourneys)
		}
		return false, fmt.Sprintf("the 95%% interval of this run − baseline starts at %.6g, not above %.6g over %d shared journeys: non-inferiority within the margin is not shown", lower, -margin, pair.SharedJourneys)
	case verdict == BaselineWorse:
		return false, "decisively worse than the baseline: " + pair.Reason
	default:
		return true, "not decisively worse than the baseline (" + string(verdict) + "): " + pair.Reason
	}
}
