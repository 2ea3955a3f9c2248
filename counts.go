package automium

import (
	"context"
	"slices"
	"strings"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// JourneyCounts is one planner's runs of one journey, counted: the sufficient
// statistics of every verdict of a comparison. A report's journey row holds
// the same numbers (see [PlannerJourneyRow]), so a comparison from counts
// gives the same pairs, verdicts, rates, pass^k and token figures as the
// trials they count.
//
// Counts carry no latency and no repetition numbers. A comparison from counts
// therefore reports every run's latency as unknown (latencyUnknown, no
// medians, a Pareto set that compares pass rates and tokens alone) and cannot
// pair matched rounds. Runs are evaluable runs; passes count final outcomes,
// firstAttemptPasses the runs that passed on their first attempt, so passes
// minus firstAttemptPasses were rescued by a retry.
type JourneyCounts struct {
	PlannerID          string `json:"plannerId" jsonschema:"planner ID" validate:"required,notblank,max_id_length"`
	AppID              string `json:"appId" jsonschema:"app ID" validate:"required,max_id_length,automium_app_or_ext"`
	JourneyID          string `json:"journeyId" jsonschema:"journey ID" validate:"required,max_id_length,automium_slug"`
	Runs               int    `json:"runs,omitempty" jsonschema:"evaluable runs" validate:"min=0,max_count_runs"`
	Passes             int    `json:"passes,omitempty" jsonschema:"passed, retries included" validate:"min=0,max_count_runs"`
	FirstAttemptPasses int    `json:"firstAttemptPasses,omitempty" validate:"min=0,max_count_runs"`
	NotEvaluable       int    `json:"notEvaluable,omitempty" validate:"min=0,max_count_runs"`
	InputTokens        int    `json:"inputTokens,omitempty" validate:"min=0,max_count_tokens"`
	OutputTokens       int    `json:"outputTokens,omitempty" validate:"min=0,max_count_tokens"`
	TokensUnknown      int    `json:"tokensUnknown,omitempty" validate:"min=0,max_count_runs"`
	RecoveryTriggered  int    `json:"recoveryTriggered,omitempty" validate:"min=0,max_count_runs"`
	Recovered          int    `json:"recovered,omitempty" validate:"min=0,max_count_runs"`
}

// mixed reports whether the row's first attempts disagreed or a retry rescued
// a run: what makes a journey flaky.
func (c *JourneyCounts) mixed() bool {
	return c.Passes > c.FirstAttemptPasses || (c.FirstAttemptPasses > 0 && c.FirstAttemptPasses < c.Runs)
}

// snapshotCounts reads in.Snapshot and returns its rows of in's planners.
// The snapshot's problems are placed under snapshot.
func snapshotCounts(ctx context.Context, in CompareObservedTrialsInput) ([]JourneyCounts, error) {
	if len(in.Counts) > 0 || len(in.Trials) > 0 {
		return nil, newError(CodeInvalidArgument, field("snapshot"), nil, "comes with trials or counts; send one of trials, counts or snapshot")
	}
	if n := len(in.Snapshot); n > limit.MaxCountsSnapshotBytes {
		return nil, newError(CodeLimitExceeded, field("snapshot"), nil, "is %d bytes; a counts snapshot is at most %d", n, limit.MaxCountsSnapshotBytes)
	}
	s, err := ReadCountsSnapshot(ctx, strings.NewReader(in.Snapshot))
	if err != nil {
		return nil, placed(err, "snapshot")
	}
	if s.CorpusVersion != in.CorpusVersion {
		return nil, newError(CodeInvalidArgument, field("snapshot").dot("corpusVersion"), nil,
			"is %s but the input's corpusVersion is %s; compare counts of one corpus version", echo.Value(s.CorpusVersion), echo.Value(in.CorpusVersion))
	}
	wanted := make(map[string]bool, len(in.Planners))
	for _, p := range in.Planners {
		wanted[p.ID] = true
	}
	// An input planner the snapshot has only in another case or character
	// form would otherwise lose its rows and read as a planner without
	// counts: name the snapshot's planner meant.
	inSnapshot := make(map[string]bool, len(s.Planners))
	for _, p := range s.Planners {
		inSnapshot[p.ID] = true
	}
	folds := foldsOf(namedPlannerIDs(s.Planners))
	ps := newProblems(nil)
	for i, p := range in.Planners {
		if p.ID == "" || inSnapshot[p.ID] {
			continue
		}
		if twin, ok := folds.twin(p.ID); ok && !wanted[twin] { // twins among planners are refused there
			ps.add(field("planners").at(i).dot("id"), CodeInvalidArgument, nil,
				"%s is not one of the snapshot's planners: it differs from the snapshot's planner %s only in case or character form, and planner IDs are compared exactly; write %s",
				echo.Value(p.ID), echo.Value(twin), echo.Value(twin))
		}
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	counts := make([]JourneyCounts, 0, len(s.Counts))
	for _, c := range s.Counts {
		if wanted[c.PlannerID] {
			counts = append(counts, c)
		}
	}
	if len(counts) == 0 {
		return nil, newError(CodeInvalidArgument, field("planners"), namedPlannerIDs(s.Planners),
			"name none of the snapshot's planners; list the planners to compare from the allowed values")
	}
	return counts, nil
}

// countsPlan is a validated counts input, indexed for aggregation.
type countsPlan struct {
	appIDs      []string // sorted
	journeyIDs  []string // sorted; journey[i] indexes it
	journeyApps []string // by journey index
	shared      []bool   // by journey index: every planner ran it evaluably
	planner     []int    // planner index of row i
	journey     []int    // journey index of row i
}

// compareObservedCounts is [CompareObservedTrials] for an input of counts.
func compareObservedCounts(ctx context.Context, in CompareObservedTrialsInput) (ComparisonReport, error) {
	plan, err := observedCountsPlan(in)
	if err != nil {
		return ComparisonReport{}, err
	}
	return plan.compare(ctx, in.Planners, in.Counts)
}

// compare aggregates validated counts with the tally that aggregates trials.
func (plan *countsPlan) compare(ctx context.Context, planners []PlannerRef, counts []JourneyCounts) (ComparisonReport, error) {
	report := newComparisonReport(BasisObserved, plan.appIDs, 0, len(planners))
	// Counts of external apps say so as their trials' report does: the
	// counts of a report are its trials', whose fixtures were the caller's word.
	if report.ExternalAppIDs = externalIDs(plan.appIDs...); report.ExternalAppIDs != nil {
		report.NotChecked = []string{NotCheckedFixtureOfApp}
	}
	info := &journeyInfo{ids: plan.journeyIDs, apps: plan.journeyApps, shared: plan.shared}
	var t trialTally
	rows := make([]int, len(planners))
	for _, p := range plan.planner {
		rows[p]++
	}
	runs := make([][]journeyRuns, len(planners))
	for p, ref := range planners {
		if err := checkContext(ctx); err != nil {
			return ComparisonReport{}, err
		}
		t.maxK = passAtKBound(rows[p])
		t.reset(len(plan.journeyIDs), 0)
		for i := range counts {
			if plan.planner[i] == p {
				t.addCounts(plan.journey[i], &counts[i])
			}
		}
		report.Repetitions = max(report.Repetitions, t.maxRuns())
		report.Planners = append(report.Planners, t.report(ref, info))
		runs[p] = t.journeyRuns()
	}
	report.finish(planners, runs, info)
	return report, nil
}

// passAtKBound is the largest k of pass^k for a planner with rows counts
// rows: at most MaxRepetitions, and at most MaxObservedTrials/rows, so that
// the planner's pass^k values (one per row and k) are never more than
// MaxObservedTrials, as with trials. Trials never reach it: a planner's rows
// times its fewest runs are at most its trials.
func passAtKBound(rows int) int {
	return min(limit.MaxRepetitions, max(1, limit.MaxObservedTrials/max(rows, 1)))
}

// addCounts sets a journey's tally from its counts. Every run's latency is
// unknown: counts carry none.
func (t *trialTally) addCounts(journey int, c *JourneyCounts) {
	t.journeys[journey] = journeyTally{
		runs: c.Runs, passes: c.Passes, firstPasses: c.FirstAttemptPasses,
		rescued: c.Passes - c.FirstAttemptPasses, notEvaluable: c.NotEvaluable,
		latencyUnknown: c.Runs, tokensUnknown: c.TokensUnknown,
		inputTokens: c.InputTokens, outputTokens: c.OutputTokens,
		triggered: c.RecoveryTriggered, recovered: c.Recovered,
	}
}

// observedCountsPlan validates an input of counts, reporting every problem,
// and indexes its rows by planner and journey. in.Trials must be empty.
func observedCountsPlan(in CompareObservedTrialsInput) (*countsPlan, error) {
	ps := newProblems(in)
	if len(in.Planners) > limit.MaxPlanners {
		ps.add(field("planners"), CodeLimitExceeded, nil, "has %d planners; the limit is %d", len(in.Planners), limit.MaxPlanners)
	}
	if len(in.Counts) > limit.MaxObservedCounts {
		ps.add(field("counts"), CodeLimitExceeded, nil, "has %d rows; the limit is %d", len(in.Counts), limit.MaxObservedCounts)
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	ps.validate(in, field("planners").at(anyIndex))
	// Counts are not on the wire (json:"-"), so the walk above skips them:
	// each row is checked on its own and its problems placed under it.
	for i := range in.Counts {
		rows := newProblems(in.Counts[i])
		rows.validate(in.Counts[i])
		for _, p := range rows.found {
			ps.addProblem(p.under(field("counts").at(i)))
		}
	}
	plannerListProblems(ps, in.Planners)
	if len(in.Trials) > 0 {
		ps.add(field("counts"), CodeInvalidArgument, nil, "comes with trials; send trials (one per run) or counts (one per planner and journey), not both")
	}
	if in.MatchedRounds {
		ps.add(field("matchedRounds"), CodeInvalidArgument, nil, "needs the repetition of every run, which counts do not carry; send trials to pair matched rounds, or leave matchedRounds out")
	}
	plannerIndex := make(map[string]int, len(in.Planners))
	for i, p := range in.Planners {
		plannerIndex[p.ID] = i
	}
	plannerIDs := namedPlannerIDs(in.Planners)
	folds := foldsOf(plannerIDs)
	anonymous := hasAnonymousPlanner(in.Planners)
	type rowKey struct {
		planner int
		journey string
	}
	firstRow := make(map[rowKey]int, len(in.Counts))
	firstJourney := map[string]int{} // journey ID -> first row naming it
	plan := &countsPlan{planner: make([]int, len(in.Counts)), journey: make([]int, len(in.Counts))}
	rowsPerPlanner := make([]int, len(in.Planners))
	apps := map[string]bool{}
	// The problems the loop adds are each at its own row, so the rows with
	// problems before it are those it skips.
	flagged := ps.flagged(field("counts"), len(in.Counts))
	for i := range in.Counts {
		c, at := &in.Counts[i], field("counts").at(i)
		if flagged[i] {
			continue // its own problems come first; the relations below need a sound row
		}
		p, ok := plannerIndex[c.PlannerID]
		if !ok && anonymous {
			continue // planners[i] says what to fix
		}
		if !ok {
			ps.addProblem(newProblem(CodeInvalidArgument, at.dot("plannerId"), plannerIDs,
				folds.unknownPlanner(c.PlannerID, "add it to planners or use one of the allowed values")))
			continue
		}
		countProblems(ps, at, c)
		if ref, ok := owned().journeyByID[c.JourneyID]; ok && ref.AppID != c.AppID {
			ps.add(at.dot("journeyId"), CodeFixtureAppMismatch, nil,
				"reference journey %s runs on app %s, not app %s; count it with its own app", echo.Value(ref.ID), echo.Value(ref.AppID), echo.Value(c.AppID))
			continue
		}
		if j, seen := firstJourney[c.JourneyID]; !seen {
			firstJourney[c.JourneyID] = i
		} else if other := &in.Counts[j]; other.AppID != c.AppID {
			ps.add(at.dot("journeyId"), CodeInvalidArgument, nil,
				"journey %s is on app %s in counts[%d] but on app %s here; a journey belongs to one app, so give the other journey its own ID",
				echo.Value(c.JourneyID), echo.Value(other.AppID), j, echo.Value(c.AppID))
			continue
		}
		key := rowKey{p, c.JourneyID}
		if j, dup := firstRow[key]; dup {
			ps.add(at.dot("journeyId"), CodeInvalidArgument, nil,
				"planner %s already has a row for journey %s (counts[%d]); add the two rows' counts up into one",
				echo.Value(c.PlannerID), echo.Value(c.JourneyID), j)
			continue
		}
		firstRow[key] = i
		plan.planner[i] = p
		rowsPerPlanner[p]++
		apps[c.AppID] = true
	}
	appsProblem(ps, field("counts"), apps)
	for p, n := range rowsPerPlanner {
		if n == 0 && !ps.has(field("planners").at(p)) && !ps.has(field("counts")) {
			ps.add(field("planners").at(p), CodeInvalidArgument, nil,
				"planner %s has no counts; add its rows or remove it from planners", echo.Value(in.Planners[p].ID))
		}
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	var journeyIndex map[string]int
	plan.journeyIDs, journeyIndex = sortedJourneys(firstJourney)
	plan.journeyApps = make([]string, len(plan.journeyIDs))
	ranIt := make([]bool, len(in.Planners)*len(plan.journeyIDs))
	for i := range in.Counts {
		j := journeyIndex[in.Counts[i].JourneyID]
		plan.journey[i] = j
		plan.journeyApps[j] = in.Counts[i].AppID
		if in.Counts[i].Runs > 0 {
			ranIt[plan.planner[i]*len(plan.journeyIDs)+j] = true
		}
	}
	plan.shared = make([]bool, len(plan.journeyIDs))
	for j := range plan.shared {
		plan.shared[j] = true
		for p := range in.Planners {
			plan.shared[j] = plan.shared[j] && ranIt[p*len(plan.journeyIDs)+j]
		}
	}
	for id := range apps {
		plan.appIDs = append(plan.appIDs, id)
	}
	slices.Sort(plan.appIDs)
	return plan, nil
}

// countProblems checks that one row's counts can be the counts of some runs:
// each part at most its whole, at least one run, and no tokens for runs
// whose tokens are unknown.
func countProblems(ps *problems, at Path, c *JourneyCounts) {
	if c.Runs+c.NotEvaluable == 0 {
		ps.add(at.dot("runs"), CodeInvalidArgument, nil, "is 0 and so is notEvaluable; a row counts at least one run, so leave out a journey the planner did not run")
	}
	if c.Passes > c.Runs {
		ps.add(at.dot("passes"), CodeInvalidArgument, nil, "is %d, more than the %d evaluable runs; passes count evaluable runs that passed", c.Passes, c.Runs)
	}
	if c.FirstAttemptPasses > c.Passes {
		ps.add(at.dot("firstAttemptPasses"), CodeInvalidArgument, nil, "is %d, more than the %d passes; a run that passed on its first attempt is also a pass", c.FirstAttemptPasses, c.Passes)
	}
	if c.TokensUnknown > c.Runs {
		ps.add(at.dot("tokensUnknown"), CodeInvalidArgument, nil, "is %d, more than the %d evaluable runs", c.TokensUnknown, c.Runs)
	} else if c.TokensUnknown == c.Runs && c.InputTokens+c.OutputTokens > 0 {
		ps.add(at.dot("tokensUnknown"), CodeInvalidArgument, nil, "counts every evaluable run, yet the row has tokens; count only the runs whose tokens were not recorded")
	}
	if c.RecoveryTriggered > c.Runs {
		ps.add(at.dot("recoveryTriggered"), CodeInvalidArgument, nil, "is %d, more than the %d evaluable runs", c.RecoveryTriggered, c.Runs)
	}
	if c.Recovered > c.RecoveryTriggered {
		ps.add(at.dot("recovered"), CodeInvalidArgument, nil, "is %d, more than the %d runs that triggered recovery; a run can only recover when recovery was triggered", c.Recovered, c.RecoveryTriggered)
	}
}

// sortedJourneys is the journey IDs of a comparison's input in order, and
// each one's index in it: the columns of the planner × journey table.
func sortedJourneys[V any](seen map[string]V) ([]string, map[string]int) {
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	index := make(map[string]int, len(ids))
	for j, id := range ids {
		index[id] = j
	}
	return ids, index
}
