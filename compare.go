package automium

import (
	"cmp"
	"context"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// Basis is where the trials of a comparison report came from.
type Basis string

// The bases.
const (
	// BasisModeled marks a report built from modeled draws (see [ComparePlanners]).
	BasisModeled Basis = "modeled"
	// BasisObserved marks a report built from trials a caller recorded elsewhere
	// (see [CompareObservedTrials]).
	BasisObserved Basis = "observed"
)

// ComparePlannersInput asks for a modeled comparison of planner backends on the
// reference journeys of some apps of the owned corpus.
//
// Repetitions is optional: below 1 (or leaving it out) means 1, and the report
// says what was asked in repetitionsRequested. Seed is optional too: 0 means
// [DefaultComparisonSeed].
type ComparePlannersInput struct {
	CorpusVersion    string            `json:"corpusVersion" jsonschema:"corpus version; must be a supported one (see ListApps)" validate:"required,automium_corpus_version"`
	AppIDs           []string          `json:"appIds" jsonschema:"apps compared, 1 to 32" validate:"required,min=1,max_app_ids,unique,dive,automium_app"`
	Planners         []PlannerRef      `json:"planners" jsonschema:"unique ids, 1 to 16; reported in this order" validate:"required,min=1,max_planners,dive"`
	Repetitions      int               `json:"repetitions,omitempty" jsonschema:"runs per journey and planner, up to 100; below 1 or absent means 1" validate:"max_repetitions"`
	AssumedPassRates []AssumedPassRate `json:"assumedPassRates,omitempty" jsonschema:"per planner; draws follow them and pairs get power" validate:"max_planners,dive"`
	Seed             uint64            `json:"seed,omitempty" jsonschema:"seed of the draws; the same seed gives the same report, and 0 or absent means the documented default 20260414" validate:"max_seed"`
	// Journeys names journeys whose rows to return (see [RowSelection]). A
	// modeled report has no wire form of it: the catalog's token budget
	// keeps named journeys for the observed tools, and a modeled report's
	// rows are draws, not findings.
	Journeys []string     `json:"-"`
	Rows     RowSelection `json:"-"`
}

// Trial is one run of one journey by one planner: the unit the benchmark runner
// aggregates. Modeled comparisons draw trials; observed comparisons take trials
// recorded by real runs. A Trial is a plain value, safe to copy and share.
type Trial struct {
	PlannerID         string `json:"plannerId" jsonschema:"planner ID; must be one of the input's planners" validate:"required,notblank,max_id_length"`
	AppID             string `json:"appId" jsonschema:"app ID" validate:"required,max_id_length,automium_app_or_ext"`
	FixtureID         string `json:"fixtureId" jsonschema:"fixture ID" validate:"required,max_id_length,automium_fixture_or_ext"`
	JourneyID         string `json:"journeyId" jsonschema:"journey ID" validate:"required,max_id_length,automium_slug"`
	Repetition        int    `json:"repetition" jsonschema:"repetition, 1 to 100; which run of this journey by this planner, unique per planner and journey" validate:"required,min=1,max_repetitions"`
	Passed            bool   `json:"passed,omitempty" jsonschema:"passed"`
	LatencyMs         int    `json:"latencyMs,omitempty" jsonschema:"wall-clock ms" validate:"min=0,max_trial_latency_ms"`
	InputTokens       int    `json:"inputTokens,omitempty" jsonschema:"input tokens, 0 to 100000000; planner prompt tokens spent on the run" validate:"min=0,max_trial_tokens"`
	OutputTokens      int    `json:"outputTokens,omitempty" jsonschema:"output tokens, 0 to 100000000; planner completion tokens spent on the run" validate:"min=0,max_trial_tokens"`
	RecoveryTriggered bool   `json:"recoveryTriggered,omitempty" jsonschema:"recovery began"`
	Recovered         bool   `json:"recovered,omitempty" jsonschema:"recovery succeeded; requires recoveryTriggered"`
	Attempts          int    `json:"attempts,omitempty" jsonschema:"retries included; 0 or absent means 1. A run that passed after more than one attempt was rescued by a retry and counts as a first-attempt failure" validate:"min=0,max_repetitions"`
	NotEvaluable      bool   `json:"notEvaluable,omitempty" jsonschema:"infrastructure error; such a run leaves every denominator and is counted apart. Requires passed to be false"`
	LatencyUnknown    bool   `json:"latencyUnknown,omitempty" jsonschema:"latency unknown; latencyMs was not recorded, and the run then leaves the latency figures"`
	TokensUnknown     bool   `json:"tokensUnknown,omitempty" jsonschema:"tokens unknown; inputTokens and outputTokens were not recorded, and the run then leaves the token figures"`
}

// CompareObservedTrialsInput hands recorded trials to the benchmark runner.
type CompareObservedTrialsInput struct {
	CorpusVersion string       `json:"corpusVersion" jsonschema:"corpus version; must be a supported one" validate:"required,automium_corpus_version"`
	Planners      []PlannerRef `json:"planners" jsonschema:"unique ids, 1 to 16; reported in this order" validate:"required,min=1,max_planners,dive"`
	Trials        []Trial      `json:"trials,omitempty" jsonschema:"one per journey run, 1 to 100000; every planner needs at least one" validate:"max_observed_trials,dive"`
	MatchedRounds bool         `json:"matchedRounds,omitempty" jsonschema:"repetitions are matched rounds"`
	// Snapshot replaces Trials with the text of an automium-counts-v1
	// snapshot (see [CountsSnapshot]): the snapshot's rows of the input's
	// planners are compared, its other rows left out. It is how the MCP
	// tool takes counts: one string costs the tool catalog far less than a
	// schema of rows.
	Snapshot string `json:"snapshot,omitempty" jsonschema:"instead of trials: automium-counts-v1 snapshot text" validate:"max_counts_snapshot_bytes"`
	// Counts replaces Trials with one row per planner and journey (see
	// [JourneyCounts]): a snapshot's rows, or a warehouse's aggregate
	// (docs/scale.md). Go callers set it; on the wire, Snapshot carries counts.
	Counts   []JourneyCounts `json:"-"`
	Journeys []string        `json:"journeys,omitempty" jsonschema:"their rows; absent: the flagged rows" validate:"max=64,dive,max_id_length"`
	Rows     RowSelection    `json:"-"`
}

// ComparePlanners compares planner backends on the reference journeys of the
// chosen apps with modeled trials. It calls no planner and executes nothing: each
// trial is a deterministic draw from the model below, so the report answers "how
// would these metrics read", never "how good is this planner". The report says so
// in modeled: true and [ModeledComparisonNotice]. For measurements, record real runs and
// pass them to [CompareObservedTrials], which aggregates them the same way.
//
// Every planner runs every reference journey of every chosen app Repetitions
// times (0 or less means 1). The same input, seed included, gives byte-identical
// JSON; another seed gives other draws.
//
// # The model
//
// Every planner draws with the same traits, so that a modeled report is an
// A/A baseline: any difference between planners is what chance alone gives at
// this design, and renaming a planner's vendor or model changes nothing (its
// id seeds only the noise of its draws, below):
//
//	skill        s = 0.75
//	error rate   λ = 0.60·(1 − s) = 0.15
//	recovery     ρ = 0.50 + 0.50·s = 0.875
//	speed        v = 1                     (latency multiplier)
//	verbosity    b = 1                     (token multiplier)
//
// A journey's difficulty comes from its compiled graph: each step node weighs
// w(intent) (navigate 0.6, finish 0.5, press_key 0.9, click, scroll, wait_for 1.0,
// go_back 0.8, fill, set_checked 1.1, hover, extract 1.2, select_option 1.3,
// handle_dialog 1.6, switch_tab 1.7, upload_file 1.8, drag_drop 2.2), each
// assertion node weighs 0.5, and its recovery nodes give the retry budget R
// (maxRetries) and the number of strategies m.
//
// A trial walks the graph. Its random numbers come from a SplitMix64 stream whose
// state starts at the first 64-bit word of the SHA-256 of
// "automium/modeled-trial/v1", NUL, the seed as 8 big-endian bytes, the planner
// id, NUL and the journey id, plus repetition ·
// 0x9E3779B97F4A7C15, so a draw depends on exactly (seed, planner, journey,
// repetition). Each number u is scaled to [0,1) like the traits. The first two
// set the trial's jitter, j_t = 0.8 + 0.4·u for time and j_k = 0.9 + 0.2·u for
// tokens; then every attempt and every assertion takes the next one, succeeding
// when u is below its probability. Step by step:
//
//	attempt   costs 900·w ms, 1500 + 300·w input and 40 + 60·w output tokens
//	succeeds  with probability exp(−λ·w)
//	on failure, recovery is triggered; with R = 0 the run fails, else up to R
//	retries follow, each costing 400·m ms, 300·m input and 80 output tokens
//	plus another attempt, and succeeding with probability ρ·exp(−λ·w)
//	when no retry succeeds the run fails and stops there
//
// A run that gets through its steps checks its assertions in order, each costing
// 250 ms and no tokens and passing with probability exp(−0.5·λ); the first failure
// fails the run.
// The run's latency is round(v · j_t · Σ ms) and its input and output tokens are
// each round(b · j_k · Σ tokens).
// It passed when every step and assertion passed; it recovered when it triggered
// recovery and got past every failed step. So a larger retry budget raises both
// the pass rate and the recovery success rate, harder intents lower them, and
// longer journeys cost more time and tokens.
//
// # Assumed pass rates
//
// With AssumedPassRates, planner i draws with its own error rate λᵢ, solved so
// that the mean over the journeys of the per-journey pass probability is its
// assumed rate (everything else as above), the notice is
// [ModeledAssumedNotice], and every pair gains [PairPower]: the simulated
// power of the report's decision rule at this design and the design that
// reaches 80%. Verdicts stay [PairModeledNotEvidence] and the Pareto set
// stays empty. See docs/benchmarks.md, "Planning an experiment".
//
// # Validation
//
// corpusVersion must be supported (unsupported_corpus_version); appIds must be
// authorized (invalid_app_id: the model walks the corpus's reference journeys,
// so an app outside the corpus, ext:…, is refused too) and distinct; planners need id, vendor and model
// (malformed_planner) and distinct IDs; more than [MaxAppIDs] apps, [MaxPlanners]
// planners or [MaxRepetitions] repetitions is limit_exceeded. assumedPassRates,
// when given, must name every planner once by its exact ID (invalid_argument
// at the entry or at assumedPassRates for a planner left out), each rate from
// 1 to [MaxAssumedPassPercent] percent.
//
// ComparePlanners is safe for concurrent use. It spreads the planners over up to
// GOMAXPROCS goroutines; the report does not depend on how they were spread.
func ComparePlanners(ctx context.Context, in ComparePlannersInput) (ComparisonReport, error) {
	if err := checkContext(ctx); err != nil {
		return ComparisonReport{}, err
	}
	if err := comparePlannersProblems(in); err != nil {
		return ComparisonReport{}, err
	}
	appIDs := slices.Clone(in.AppIDs)
	slices.Sort(appIDs)
	journeys, err := modeledJourneysOf(appIDs)
	if err != nil {
		return ComparisonReport{}, err
	}
	reps := max(in.Repetitions, 1)
	seed := in.Seed
	if seed == 0 {
		seed = DefaultComparisonSeed
	}
	report := newComparisonReport(BasisModeled, appIDs, reps, len(in.Planners))
	report.Seed = seed
	if in.Repetitions != reps {
		asked := in.Repetitions
		report.RepetitionsRequested = &asked
	}
	info := modeledJourneyInfo(journeys)
	report.Planners = report.Planners[:len(in.Planners)] // newComparisonReport made room for each; modelPlanners fills them in order
	workers := min(runtime.GOMAXPROCS(0), len(in.Planners))
	runs := make([][]journeyRuns, len(in.Planners))
	traits := assumedTraits(in.Planners, in.AssumedPassRates, journeys)
	if err := modelPlanners(ctx, workers, seed, in.Planners, journeys, reps, info, report.Planners, runs, traits); err != nil {
		return ComparisonReport{}, err
	}
	report.finish(in.Planners, runs, info)
	if traits != nil {
		report.Notice = ModeledAssumedNotice
		if err := report.planPower(ctx, seed, in.Planners, in.AssumedPassRates, traits, journeys, reps); err != nil {
			return ComparisonReport{}, err
		}
	}
	if err := report.selectRows(in.Journeys, in.Rows); err != nil {
		return ComparisonReport{}, err
	}
	return report, nil
}

// modeledJourneyInfo names the modeled journeys: every planner runs each, so
// all are shared.
func modeledJourneyInfo(journeys []*modeledJourney) *journeyInfo {
	info := &journeyInfo{ids: make([]string, len(journeys)), apps: make([]string, len(journeys)), shared: make([]bool, len(journeys))}
	for j, m := range journeys {
		info.ids[j], info.apps[j], info.shared[j] = m.id, m.appID, true
	}
	return info
}

// plannerWorker is the scratch space of one goroutine of modelPlanners: about
// 40 KB at the largest size, kept in a pool so that a call does not allocate it
// again. Nothing in a report points into it.
type plannerWorker struct {
	tally  trialTally
	drawer trialDrawer
}

var plannerWorkers = sync.Pool{New: func() any { return new(plannerWorker) }}

// modelPlanners draws and tallies the trials of every planner into reports, in
// the planners' order. A planner's draws depend only on the seed, the planner
// and the journeys, so planners are independent: they are spread over workers
// goroutines (ComparePlanners uses GOMAXPROCS; the calling goroutine is one),
// one planner at a time each, and every report lands in its planner's place, so
// the bytes cannot depend on scheduling. Each goroutine checks ctx before each
// planner (a fraction of a millisecond of work), so a canceled call stops
// promptly; the first error found is returned. When runs is not nil, runs[i]
// receives planner i's runs of each journey, for pairing. Planner i draws with
// traits[i], or with sharedTraits when traits is nil.
func modelPlanners(ctx context.Context, workers int, seed uint64, planners []PlannerRef, journeys []*modeledJourney, reps int, info *journeyInfo, reports []PlannerReport, runs [][]journeyRuns, traits []plannerTraits) error {
	var next atomic.Int64
	work := func() error {
		w := plannerWorkers.Get().(*plannerWorker)
		defer plannerWorkers.Put(w)
		t, drawer := &w.tally, &w.drawer
		for {
			i := int(next.Add(1) - 1)
			if i >= len(planners) {
				return nil
			}
			if err := checkContext(ctx); err != nil {
				return err
			}
			t.reset(len(journeys), len(journeys)*reps)
			tr := sharedTraits
			if traits != nil {
				tr = traits[i]
			}
			drawer.drawAll(seed, planners[i], tr, journeys, reps, t, nil)
			reports[i] = t.report(planners[i], info)
			if runs != nil {
				runs[i] = t.journeyRuns()
			}
		}
	}
	return onWorkers(workers, work)
}

// onWorkers runs work on the calling goroutine and on workers−1 helpers, and
// returns the first error. A panic on a helper goroutine would end the
// process, out of reach of the caller's recovery (the MCP adapter turns a
// handler's panic into an internal error); so a helper's panic is carried back
// and raised again on the calling goroutine.
func onWorkers(workers int, work func() error) error {
	type helper struct {
		err      error
		panicked any
	}
	helpers := make([]helper, max(workers, 1)-1)
	var wg sync.WaitGroup
	for h := range helpers {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					helpers[h].panicked = r
				}
			}()
			helpers[h].err = work()
		})
	}
	err := work()
	wg.Wait()
	for _, h := range helpers {
		if h.panicked != nil {
			panic(h.panicked)
		}
		err = cmp.Or(err, h.err)
	}
	return err
}

// CompareObservedTrials aggregates trials recorded elsewhere, with the same code
// that aggregates modeled draws in [ComparePlanners]; the report's basis is
// observed and its notice says automium did not verify the trials.
//
// Every trial is checked, and the first problem is returned with its path, such
// as trials[12].fixtureId: the corpus version must be supported; planners need id,
// vendor and model and distinct IDs that differ in more than case, and each
// needs at least one trial; a trial must name one of the planners (exactly), an
// authorized app and a fixture of that app, or an app and a fixture outside the
// corpus (ext:…, docs/external-apps.md, which the report lists in
// externalAppIds), and a journey ID (a reference journey must keep its own app and fixture, and any
// journey ID must keep one app and fixture across trials); repetitions run from 1
// to [MaxRepetitions] and are unique per planner and journey; latency and token
// counts are non-negative and bounded by [MaxTrialLatencyMs] and
// [MaxTrialTokens]; recovered requires recoveryTriggered. More than
// [MaxObservedTrials] trials is limit_exceeded.
//
// A trial with notEvaluable leaves every figure but the notEvaluable counts; a
// trial that passed after more than one attempt counts as a first-attempt
// failure rescued by a retry (passRate counts it as passed, pass^k, the
// first-attempt pass rate and the pairs as failed); unknown latencies and
// tokens leave those figures and are counted. Pairs use the journeys both
// planners ran, the journeys taken as a sample; with MatchedRounds, runs pair
// by repetition within a journey.
//
// Journeys may have different numbers of runs. pass^k then goes up to the
// smallest number of runs among the planner's journeys, so every k averages over
// the same journeys, and pass^1 is the mean per-journey first-attempt pass rate,
// which equals the pooled rate only when every journey has the same number of
// runs.
//
// With Counts (or the text of a snapshot in Snapshot) instead of Trials, each row counts one planner's runs of one
// journey (see [JourneyCounts]); rows are checked like trials (each part at
// most its whole, one row per planner and journey, a journey on one app), and
// the report is the one its trials give with every latency unknown: the same
// pairs and verdicts, byte for byte. Counts cannot pair matched rounds, and
// pass^k goes up to at most [MaxRepetitions] and [MaxObservedTrials] over the
// planner's rows, so that no planner has more pass^k values than trials give.
//
// The report does not depend on the order of the trials. CompareObservedTrials is
// safe for concurrent use.
func CompareObservedTrials(ctx context.Context, in CompareObservedTrialsInput) (ComparisonReport, error) {
	if err := checkContext(ctx); err != nil {
		return ComparisonReport{}, err
	}
	if in.Snapshot != "" {
		counts, err := snapshotCounts(ctx, in)
		if err != nil {
			return ComparisonReport{}, err
		}
		in.Counts = counts
	}
	if len(in.Counts) > 0 {
		// Counts are cut to the rows asked for as trials are: without
		// this, counts answered every row, past the answer's bound.
		report, err := compareObservedCounts(ctx, in)
		if err != nil {
			return ComparisonReport{}, err
		}
		if err := report.selectRows(in.Journeys, in.Rows); err != nil {
			return ComparisonReport{}, err
		}
		return report, nil
	}
	plan, err := observedTrialsPlan(in)
	if err != nil {
		return ComparisonReport{}, err
	}
	report := newComparisonReport(BasisObserved, plan.appIDs, 0, len(in.Planners))
	report.MatchedRounds = in.MatchedRounds
	if report.ExternalAppIDs = externalIDs(plan.appIDs...); report.ExternalAppIDs != nil {
		report.NotChecked = []string{NotCheckedFixtureOfApp}
	}
	info := &journeyInfo{ids: plan.journeyIDs, apps: plan.journeyApps, shared: plan.shared}
	var t trialTally
	runs := make([][]journeyRuns, len(in.Planners))
	for p, ref := range in.Planners {
		if err := checkContext(ctx); err != nil {
			return ComparisonReport{}, err
		}
		t.reset(len(plan.journeyIDs), plan.trialsPerPlanner[p])
		for i := range in.Trials {
			if plan.planner[i] == p {
				t.add(plan.journey[i], in.Trials[i].Repetition, in.Trials[i].outcome())
			}
		}
		report.Repetitions = max(report.Repetitions, t.maxRuns())
		report.Planners = append(report.Planners, t.report(ref, info))
		runs[p] = t.journeyRuns()
	}
	report.finish(in.Planners, runs, info)
	if err := report.selectRows(in.Journeys, in.Rows); err != nil {
		return ComparisonReport{}, err
	}
	return report, nil
}

// comparePlannersProblems returns every problem with in. Limits are checked
// before anything walks the lists.
func comparePlannersProblems(in ComparePlannersInput) error {
	ps := newProblems(in)
	if len(in.AppIDs) > limit.MaxAppIDs {
		ps.add(field("appIds"), CodeLimitExceeded, nil, "has %d apps; the limit is %d", len(in.AppIDs), limit.MaxAppIDs)
	}
	if len(in.Planners) > limit.MaxPlanners {
		ps.add(field("planners"), CodeLimitExceeded, nil, "has %d planners; the limit is %d", len(in.Planners), limit.MaxPlanners)
	}
	if len(in.AssumedPassRates) > limit.MaxPlanners {
		ps.add(field("assumedPassRates"), CodeLimitExceeded, nil, "has %d rates; the limit is %d, one per planner", len(in.AssumedPassRates), limit.MaxPlanners)
	}
	if in.Repetitions > limit.MaxRepetitions { // below 1 is normalized, not refused
		ps.add(field("repetitions"), CodeLimitExceeded, nil, "is %d, above the limit of %d; use fewer repetitions", in.Repetitions, limit.MaxRepetitions)
	}
	if err := ps.err(); err != nil {
		return err
	}
	// Planners are checked by plannerListProblems alone, and the planner IDs
	// of assumedPassRates by assumedRateProblems; with an app listed
	// twice, the app IDs by duplicateAppProblems alone, which says more than
	// the generic "contains duplicates".
	except := []Path{field("planners").at(anyIndex), field("assumedPassRates").at(anyIndex).dot("plannerId")}
	duplicates := hasDuplicate(in.AppIDs)
	if duplicates {
		except = append(except, field("appIds"))
	}
	for i, id := range in.AppIDs {
		if isExternal(id) {
			// The model walks the corpus's reference journeys; an app of
			// the caller's own has none.
			if !duplicates {
				except = append(except, field("appIds").at(i))
			}
			ps.add(field("appIds").at(i), CodeInvalidAppID, customTags["automium_app"].values(),
				"%s is outside the corpus, and a modeled comparison models the corpus's reference journeys, which it has none of; use corpus apps here, and compare your app's real runs with %s or %s",
				echo.Value(id), echo.Name("CompareReports"), echo.Name("CompareObservedTrials"))
		}
	}
	ps.validate(in, except...)
	duplicateAppProblems(ps, in.AppIDs)
	plannerListProblems(ps, in.Planners)
	assumedRateProblems(ps, in.Planners, in.AssumedPassRates)
	return ps.err()
}

// plannerListProblems checks each planner, which the caller excepts from the
// generic rules: its parts (malformed_planner naming every missing part), and
// that no two planners share an ID, since their reports would be
// indistinguishable.
//
// IDs that differ only in case or character form (baseline, Baseline,
// BASELINE, ＢＡＳＥＬＩＮＥ; see plannerKey) are refused too: a report,
// a reader and a chart would show them as one planner, and a trial of one
// filed under the other would be counted apart.
func plannerListProblems(ps *problems, planners []PlannerRef) {
	first := make(map[string]int, len(planners))
	folded := make(map[string]int, len(planners))
	for i, p := range planners {
		at := field("planners").at(i)
		if p.problems(ps, at) {
			continue
		}
		if j, dup := first[p.ID]; dup {
			ps.add(at.dot("id"), CodeInvalidArgument, nil,
				"planner ID %s is used twice (also by planners[%d]); give each planner its own ID", echo.Value(p.ID), j)
			continue
		}
		first[p.ID] = i
		key := plannerKey(p.ID)
		if j, twin := folded[key]; twin {
			ps.add(at.dot("id"), CodeInvalidArgument, nil,
				"planner ID %s differs from %s (planners[%d]) only in case or character form, so the two read as one planner; use one ID for one planner, and IDs that differ in more than case for two",
				echo.Value(p.ID), echo.Value(planners[j].ID), j)
			continue
		}
		folded[key] = i
	}
}

// hasAnonymousPlanner reports whether a planner has no usable ID (missing,
// blank, or not an object at all): a trial or rate naming an ID no planner
// has may name that one, so the planner's own problem is the one to fix, and
// "not one of the input's planners" would send the caller the wrong way.
func hasAnonymousPlanner(planners []PlannerRef) bool {
	return slices.ContainsFunc(planners, func(p PlannerRef) bool { return strings.TrimSpace(p.ID) == "" })
}

// namedPlannerIDs lists the planners' IDs, in order, less the blank ones,
// which an allowed list would print as nothing.
func namedPlannerIDs(planners []PlannerRef) []string {
	ids := make([]string, 0, len(planners))
	for _, p := range planners {
		if strings.TrimSpace(p.ID) != "" {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// hasDuplicate reports whether a value is listed twice.
func hasDuplicate(ids []string) bool {
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			return true
		}
		seen[id] = true
	}
	return false
}

// duplicateAppProblems records every app listed twice.
func duplicateAppProblems(ps *problems, appIDs []string) {
	for i, id := range appIDs {
		if j := slices.Index(appIDs[:i], id); j >= 0 {
			ps.add(field("appIds").at(i), CodeInvalidArgument, nil,
				"app %s is listed twice (also at appIds[%d]); list each app once", echo.Value(id), j)
		}
	}
}

// observedPlan is a validated observed input, indexed for aggregation.
type observedPlan struct {
	appIDs           []string // sorted
	journeyIDs       []string // sorted; journey[i] indexes it
	journeyApps      []string // by journey index
	shared           []bool   // by journey index: every planner ran it evaluably
	planner          []int    // planner index of trial i
	journey          []int    // journey index of trial i
	trialsPerPlanner []int
}

// observedTrialsPlan validates in, reporting every problem, and indexes its
// trials by planner and journey.
func observedTrialsPlan(in CompareObservedTrialsInput) (*observedPlan, error) {
	ps := newProblems(in)
	if len(in.Planners) > limit.MaxPlanners {
		ps.add(field("planners"), CodeLimitExceeded, nil, "has %d planners; the limit is %d", len(in.Planners), limit.MaxPlanners)
	}
	if len(in.Trials) > limit.MaxObservedTrials {
		ps.add(field("trials"), CodeLimitExceeded, nil, "has %d trials; the limit is %d", len(in.Trials), limit.MaxObservedTrials)
	}
	if len(in.Trials) == 0 {
		ps.add(field("trials"), CodeInvalidArgument, nil, "is required and must not be empty: send trials (one per run) or counts (one per planner and journey)")
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	// Planners are checked by plannerListProblems alone, and a trial's
	// fixture against its app, once, below.
	ps.validate(in, field("planners").at(anyIndex), field("trials").at(anyIndex).dot("fixtureId"))
	plannerListProblems(ps, in.Planners)
	fixtureOK := make([]bool, len(in.Trials))
	for i := range in.Trials {
		tr := &in.Trials[i]
		_, fixtureOK[i] = ps.fixtureOfAppOrExt(field("trials").at(i).dot("fixtureId"), reflect.TypeOf(*tr), tr.AppID, tr.FixtureID)
	}
	plannerIndex := make(map[string]int, len(in.Planners))
	plannerIDs := namedPlannerIDs(in.Planners)
	folds := foldsOf(plannerIDs)
	for i, p := range in.Planners {
		plannerIndex[p.ID] = i
	}
	anonymous := hasAnonymousPlanner(in.Planners)
	type runKey struct {
		planner    int
		journey    string
		repetition int
	}
	firstRun := make(map[runKey]int, len(in.Trials))
	firstJourney := map[string]int{} // journey ID -> first trial naming it
	plan := &observedPlan{
		planner:          make([]int, len(in.Trials)),
		journey:          make([]int, len(in.Trials)),
		trialsPerPlanner: make([]int, len(in.Planners)),
	}
	apps := map[string]bool{}
	// The problems the loop adds are each at its own trial, so the trials
	// with problems before it are those it skips.
	flagged := ps.flagged(field("trials"), len(in.Trials))
	for i := range in.Trials {
		tr, at := &in.Trials[i], field("trials").at(i)
		if flagged[i] {
			continue // its own problems come first; the relations below need a sound trial
		}
		p, ok := plannerIndex[tr.PlannerID]
		if !ok && anonymous {
			continue // a planner without an ID may be the one it names; planners[i] says what to fix
		}
		if !ok {
			ps.addProblem(newProblem(CodeInvalidArgument, at.dot("plannerId"), plannerIDs,
				folds.unknownPlanner(tr.PlannerID, "add it to planners or use one of the allowed values")))
			continue
		}
		if !fixtureOK[i] {
			continue // fixtureOfAppOrExt said why
		}
		if tr.Recovered && !tr.RecoveryTriggered {
			ps.add(at.dot("recovered"), CodeInvalidArgument, nil,
				"a run can only recover when recovery was triggered; set recoveryTriggered to true or recovered to false")
		}
		if tr.NotEvaluable && tr.Passed {
			ps.add(at.dot("notEvaluable"), CodeInvalidArgument, nil,
				"a run that passed was evaluated; set notEvaluable to false, or passed to false for an infrastructure error")
		}
		if ref, ok := owned().journeyByID[tr.JourneyID]; ok && (ref.AppID != tr.AppID || ref.FixtureID != tr.FixtureID) {
			ps.add(at.dot("journeyId"), CodeFixtureAppMismatch, nil,
				"reference journey %s runs on app %s with fixture %s, not app %s with fixture %s; record it with its own app and fixture",
				echo.Value(ref.ID), echo.Value(ref.AppID), echo.Value(ref.FixtureID), echo.Value(tr.AppID), echo.Value(tr.FixtureID))
			continue
		}
		if j, seen := firstJourney[tr.JourneyID]; !seen {
			firstJourney[tr.JourneyID] = i
		} else if other := &in.Trials[j]; other.AppID != tr.AppID || other.FixtureID != tr.FixtureID {
			ps.add(at.dot("journeyId"), CodeInvalidArgument, nil,
				"journey %s ran on app %s with fixture %s in trials[%d] but on app %s with fixture %s here; a journey belongs to one app and fixture, so give the other journey its own ID",
				echo.Value(tr.JourneyID), echo.Value(other.AppID), echo.Value(other.FixtureID), j, echo.Value(tr.AppID), echo.Value(tr.FixtureID))
			continue
		}
		key := runKey{p, tr.JourneyID, tr.Repetition}
		if j, dup := firstRun[key]; dup {
			ps.add(at.dot("repetition"), CodeInvalidArgument, nil,
				"planner %s already has repetition %d of journey %s (trials[%d]); number each run of a journey by a planner differently",
				echo.Value(tr.PlannerID), tr.Repetition, echo.Value(tr.JourneyID), j)
			continue
		}
		firstRun[key] = i
		plan.planner[i] = p
		plan.trialsPerPlanner[p]++
		apps[tr.AppID] = true
	}
	appsProblem(ps, field("trials"), apps)
	for p, n := range plan.trialsPerPlanner {
		if n == 0 && !ps.has(field("planners").at(p)) && !ps.has(field("trials")) {
			ps.add(field("planners").at(p), CodeInvalidArgument, nil,
				"planner %s has no trials; add its trials or remove it from planners", echo.Value(in.Planners[p].ID))
		}
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	var journeyIndex map[string]int
	plan.journeyIDs, journeyIndex = sortedJourneys(firstJourney)
	plan.journeyApps = make([]string, len(plan.journeyIDs))
	ranIt := make([]bool, len(in.Planners)*len(plan.journeyIDs)) // [planner·J + journey]: an evaluable run
	for i := range in.Trials {
		j := journeyIndex[in.Trials[i].JourneyID]
		plan.journey[i] = j
		plan.journeyApps[j] = in.Trials[i].AppID
		if !in.Trials[i].NotEvaluable {
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

// appsProblem refuses more than limit.MaxObservedApps distinct apps in an
// observed comparison: every planner carries a rollup per app in each answer,
// and more rollups than that would not fit the answer's bound.
func appsProblem(ps *problems, at Path, apps map[string]bool) {
	if len(apps) > limit.MaxObservedApps {
		ps.add(at, CodeLimitExceeded, nil, "hold %d distinct apps; an observed comparison takes at most %d, so compare the apps in groups of at most %d", len(apps), limit.MaxObservedApps, limit.MaxObservedApps)
	}
}
