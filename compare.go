package automium

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/exp/stats"
)

// Bases of a comparison report: where its trials came from.
const (
	// BasisModeled marks a report built from modeled draws (see [ComparePlanners]).
	BasisModeled = "modeled"
	// BasisObserved marks a report built from trials a caller recorded elsewhere
	// (see [CompareObservedTrials]).
	BasisObserved = "observed"
)

// ModeledComparisonNotice accompanies every modeled comparison report. A planner's
// name only seeds its draws, so the numbers must not be read as a ranking of the
// real planners they are named after.
const ModeledComparisonNotice = "Modeled output: every trial is a deterministic draw from a documented model; a planner's id, vendor and model only seed its draws, no planner was called and no journey was executed, so these numbers do not rank real planners."

// ObservedNotice accompanies every observed comparison report. Automium only
// aggregates what it is given, so the report must not read as if automium had run
// or checked those trials.
const ObservedNotice = "Observed output: aggregated from trials recorded elsewhere and supplied by the caller; automium executed nothing and did not verify them."

// DefaultComparisonSeed is the seed of a modeled comparison whose input leaves
// seed out (or sets it to 0). A fixed default keeps the tool's answer for the same
// question the same from call to call.
const DefaultComparisonSeed uint64 = 20260414

// wilsonZ is the two-sided 95% standard normal quantile, Φ⁻¹(0.975).
const wilsonZ = 1.959963984540054

// reportDecimals is how many decimals every float in a report keeps. Rounding
// once, at the end, makes the bytes independent of summation noise below 1e-6.
const reportDecimals = 1e6

// ComparePlannersInput asks for a modeled comparison of planner backends on the
// reference journeys of some apps of the owned corpus.
//
// Repetitions is optional: 0 or a negative number is normalized to 1, so it has no
// minimum rule and is omitted from JSON when zero. Seed is optional too: 0 means
// [DefaultComparisonSeed].
type ComparePlannersInput struct {
	CorpusVersion string       `json:"corpusVersion" jsonschema:"owned corpus version to compare on; must be a supported one (see automium_list_apps)" validate:"required,automium_corpus_version"`
	AppIDs        []string     `json:"appIds" jsonschema:"authorized benchmark app IDs whose reference journeys form the workload, 1 to 32, each once" validate:"required,min=1,max=32,unique,dive,automium_app"`
	Planners      []PlannerRef `json:"planners" jsonschema:"planner backends to compare, 1 to 16, each with id, vendor and model and a unique id; reported in this order" validate:"required,min=1,max=16,dive"`
	Repetitions   int          `json:"repetitions,omitempty" jsonschema:"runs of every journey per planner, at most 100; 0 or less is normalized to 1" validate:"max=100"`
	Seed          uint64       `json:"seed,omitempty" jsonschema:"optional seed of the modeled draws, at most 2^53-1; the same seed gives the same report, and 0 or absent means the documented default 20260414" validate:"max=9007199254740991"`
}

// Trial is one run of one journey by one planner: the unit the benchmark runner
// aggregates. Modeled comparisons draw trials; observed comparisons take trials
// recorded by real runs. A Trial is a plain value, safe to copy and share.
type Trial struct {
	PlannerID         string `json:"plannerId" jsonschema:"ID of the planner that ran the journey; must be one of the input's planners" validate:"required,notblank,max=128"`
	AppID             string `json:"appId" jsonschema:"authorized benchmark app ID the journey ran on" validate:"required,automium_app"`
	FixtureID         string `json:"fixtureId" jsonschema:"fixture of that app the run started from" validate:"required,automium_fixture"`
	JourneyID         string `json:"journeyId" jsonschema:"ID of the journey that ran: lowercase letters, digits, '.', '_' and '-'" validate:"required,max=128,automium_slug"`
	Repetition        int    `json:"repetition" jsonschema:"which run of this journey by this planner, from 1 to 100; unique per planner and journey" validate:"required,min=1,max=100"`
	Passed            bool   `json:"passed,omitempty" jsonschema:"whether the journey passed"`
	LatencyMs         int    `json:"latencyMs,omitempty" jsonschema:"wall-clock duration of the journey run in milliseconds, 0 to 86400000" validate:"min=0,max=86400000"`
	InputTokens       int    `json:"inputTokens,omitempty" jsonschema:"planner input (prompt) tokens spent on the run, 0 to 100000000" validate:"min=0,max=100000000"`
	OutputTokens      int    `json:"outputTokens,omitempty" jsonschema:"planner output (completion) tokens spent on the run, 0 to 100000000" validate:"min=0,max=100000000"`
	RecoveryTriggered bool   `json:"recoveryTriggered,omitempty" jsonschema:"whether any step failed and the journey's recovery policy was entered"`
	Recovered         bool   `json:"recovered,omitempty" jsonschema:"whether every triggered recovery got the journey past its failed step; requires recoveryTriggered"`
}

// CompareObservedTrialsInput hands recorded trials to the benchmark runner.
type CompareObservedTrialsInput struct {
	CorpusVersion string       `json:"corpusVersion" jsonschema:"owned corpus version the trials were recorded against; must be a supported one" validate:"required,automium_corpus_version"`
	Planners      []PlannerRef `json:"planners" jsonschema:"the planners the trials name, 1 to 16, each with id, vendor and model and a unique id; reported in this order" validate:"required,min=1,max=16,dive"`
	Trials        []Trial      `json:"trials" jsonschema:"recorded trials, 1 to 100000; every planner needs at least one" validate:"required,min=1,max=100000,dive"`
}

// ComparisonReport compares planners trial by trial. It is the output of both
// [ComparePlanners] and [CompareObservedTrials], which share one aggregation, so
// modeled and observed reports read the same way and differ only in basis, notice
// and seed. Planners appear in input order, which lets a caller put its baseline
// first. All floats are rounded to 6 decimals.
type ComparisonReport struct {
	ReportVersion string          `json:"reportVersion" jsonschema:"comparison report format version"`
	CorpusVersion string          `json:"corpusVersion" jsonschema:"owned corpus version the trials belong to"`
	Basis         string          `json:"basis" jsonschema:"modeled (deterministic draws from a documented model) or observed (trials supplied by the caller)"`
	Modeled       bool            `json:"modeled" jsonschema:"true when the trials are modeled draws, not measurements of any real planner"`
	Notice        string          `json:"notice" jsonschema:"one-line statement of what the numbers are and are not"`
	Seed          uint64          `json:"seed,omitempty" jsonschema:"seed of the modeled draws; absent for observed reports"`
	AppIDs        []string        `json:"appIds" jsonschema:"apps whose journeys were compared, sorted"`
	Repetitions   int             `json:"repetitions" jsonschema:"runs per journey per planner; for observed reports the largest number of runs any planner made of one journey"`
	Planners      []PlannerReport `json:"planners" jsonschema:"one report per planner, in input order"`
}

// PlannerReport holds the metrics of one planner.
type PlannerReport struct {
	Planner                PlannerRef    `json:"planner" jsonschema:"the planner these metrics are about"`
	Trials                 int           `json:"trials" jsonschema:"number of journey runs aggregated"`
	Journeys               int           `json:"journeys" jsonschema:"number of distinct journeys run"`
	PassRate               Rate          `json:"passRate" jsonschema:"passed runs over all runs, with a 95% Wilson score interval"`
	Repeatability          Repeatability `json:"repeatability" jsonschema:"how reliably the planner passes the same journey again"`
	MedianJourneyLatencyMs float64       `json:"medianJourneyLatencyMs" jsonschema:"median latency of one journey run, in milliseconds"`
	P90JourneyLatencyMs    float64       `json:"p90JourneyLatencyMs" jsonschema:"90th percentile latency of one journey run, in milliseconds (linear interpolation, R-7)"`
	TokenSpend             TokenSpend    `json:"tokenSpend" jsonschema:"planner tokens spent, in total and per journey run"`
	RecoverySuccessRate    *Rate         `json:"recoverySuccessRate,omitempty" jsonschema:"runs whose recovery succeeded over runs that triggered recovery, with a 95% Wilson interval; absent when no run triggered recovery"`
}

// Rate is a proportion with its denominator and a 95% Wilson score interval. The
// Wilson interval, unlike the textbook p̂ ± z·SE, stays inside [0,1] and is
// meaningful at p̂ = 0 or 1 and for small n, which is where planner comparisons
// usually live.
type Rate struct {
	Value     float64  `json:"value" jsonschema:"successes divided by n"`
	Successes int      `json:"successes" jsonschema:"number of successes"`
	N         int      `json:"n" jsonschema:"denominator: the number of trials the rate is over"`
	Wilson95  Interval `json:"wilson95" jsonschema:"95% Wilson score interval for the rate"`
}

// Interval is a closed interval within [0,1].
type Interval struct {
	Lower float64 `json:"lower" jsonschema:"lower bound"`
	Upper float64 `json:"upper" jsonschema:"upper bound"`
}

// Repeatability measures consistency across repeated runs of the same journey.
type Repeatability struct {
	PassAtK               []PassAtK `json:"passAtK" jsonschema:"tau-bench pass^k for k = 1 up to the smallest number of runs of any of the planner's journeys"`
	AllOutcomesAgreeShare float64   `json:"allOutcomesAgreeShare" jsonschema:"share of journeys whose runs all passed or all failed"`
}

// PassAtK is tau-bench's pass^k: the chance that k runs of a journey, drawn
// without replacement from its runs, all pass, averaged over journeys.
type PassAtK struct {
	K     int     `json:"k" jsonschema:"number of runs that must all pass"`
	Value float64 `json:"value" jsonschema:"mean over journeys of C(c,k)/C(n,k), c passes in n runs"`
}

// TokenSpend is the planner's token use.
type TokenSpend struct {
	InputTotal        int     `json:"inputTotal" jsonschema:"input (prompt) tokens over all runs"`
	OutputTotal       int     `json:"outputTotal" jsonschema:"output (completion) tokens over all runs"`
	Total             int     `json:"total" jsonschema:"input plus output tokens over all runs"`
	MeanPerJourneyRun float64 `json:"meanPerJourneyRun" jsonschema:"total tokens per journey run"`
	MeanInputPerRun   float64 `json:"meanInputPerRun" jsonschema:"input tokens per journey run"`
	MeanOutputPerRun  float64 `json:"meanOutputPerRun" jsonschema:"output tokens per journey run"`
}

// ComparePlanners compares planner backends on the reference journeys of the
// chosen apps with modeled trials. It calls no planner and executes nothing: each
// trial is a deterministic draw from the model below, so the report answers "how
// would these metrics read", never "how good is this planner". The report says so
// in modeled: true and [ModeledNotice]. For measurements, record real runs and
// pass them to [CompareObservedTrials], which aggregates them the same way.
//
// Every planner runs every reference journey of every chosen app Repetitions
// times (0 or less means 1). The same input, seed included, gives byte-identical
// JSON; another seed gives other draws.
//
// # The model
//
// A planner's traits come from the SHA-256 of "automium/planner-traits/v1", its
// id, vendor and model (NUL-separated). Its first three 64-bit big-endian words,
// each scaled to [0,1) by taking its top 53 bits over 2⁵³, are u₁, u₂, u₃:
//
//	skill        s = 0.55 + 0.40·u₁          (0.55 ≤ s < 0.95)
//	error rate   λ = 0.60·(1 − s)
//	recovery     ρ = 0.50 + 0.50·s
//	speed        v = 0.70 + 0.60·u₂          (latency multiplier)
//	verbosity    b = 0.70 + 0.60·u₃          (token multiplier)
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
// # Validation
//
// corpusVersion must be supported (unsupported_corpus_version); appIds must be
// authorized (invalid_app_id) and distinct; planners need id, vendor and model
// (malformed_planner) and distinct IDs; more than [MaxAppIDs] apps, [MaxPlanners]
// planners or [MaxRepetitions] repetitions is limit_exceeded.
//
// ComparePlanners is safe for concurrent use.
func ComparePlanners(ctx context.Context, in ComparePlannersInput) (ComparisonReport, error) {
	if err := ctx.Err(); err != nil {
		return ComparisonReport{}, err
	}
	if err := comparePlannersProblem(in); err != nil {
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
	var (
		t      trialTally
		drawer trialDrawer
	)
	for _, p := range in.Planners {
		if err := ctx.Err(); err != nil {
			return ComparisonReport{}, err
		}
		t.reset(len(journeys), len(journeys)*reps)
		drawer.drawAll(seed, p, journeys, reps, t.add)
		report.Planners = append(report.Planners, t.report(p))
	}
	return report, nil
}

// modeledJourneysOf returns the reference journeys of the apps, sorted by ID.
func modeledJourneysOf(appIDs []string) ([]*modeledJourney, error) {
	models, err := referenceJourneyModels()
	if err != nil {
		return nil, err
	}
	var journeys []*modeledJourney
	for _, id := range appIDs {
		journeys = append(journeys, models[id]...)
	}
	if len(journeys) == 0 {
		return nil, internalError("finding reference journeys of the chosen apps")
	}
	slices.SortFunc(journeys, func(a, b *modeledJourney) int { return strings.Compare(a.id, b.id) })
	return journeys, nil
}

// CompareObservedTrials aggregates trials recorded elsewhere, with the same code
// that aggregates modeled draws in [ComparePlanners]; the report's basis is
// observed and its notice says automium did not verify the trials.
//
// Every trial is checked, and the first problem is returned with its path, such
// as trials[12].fixtureId: the corpus version must be supported; planners need id,
// vendor and model and distinct IDs, and each needs at least one trial; a trial
// must name one of the planners, an authorized app, a fixture of that app and a
// journey ID (a reference journey must keep its own app and fixture, and any
// journey ID must keep one app and fixture across trials); repetitions run from 1
// to [MaxRepetitions] and are unique per planner and journey; latency and token
// counts are non-negative and bounded by [MaxTrialLatencyMs] and
// [MaxTrialTokens]; recovered requires recoveryTriggered. More than
// [MaxObservedTrials] trials is limit_exceeded.
//
// Journeys may have different numbers of runs. pass^k then goes up to the
// smallest number of runs among the planner's journeys, so every k averages over
// the same journeys, and pass^1 is the mean per-journey pass rate, which equals the
// pooled pass rate only when every journey has the same number of runs.
//
// The report does not depend on the order of the trials. CompareObservedTrials is
// safe for concurrent use.
func CompareObservedTrials(ctx context.Context, in CompareObservedTrialsInput) (ComparisonReport, error) {
	if err := ctx.Err(); err != nil {
		return ComparisonReport{}, err
	}
	plan, err := observedTrialsPlan(in)
	if err != nil {
		return ComparisonReport{}, err
	}
	report := newComparisonReport(BasisObserved, plan.appIDs, 0, len(in.Planners))
	var t trialTally
	for p, ref := range in.Planners {
		if err := ctx.Err(); err != nil {
			return ComparisonReport{}, err
		}
		t.reset(len(plan.journeyIDs), plan.trialsPerPlanner[p])
		for i := range in.Trials {
			if plan.planner[i] == p {
				t.add(plan.journey[i], &in.Trials[i])
			}
		}
		report.Repetitions = max(report.Repetitions, t.maxRuns())
		report.Planners = append(report.Planners, t.report(ref))
	}
	return report, nil
}

func newComparisonReport(basis string, appIDs []string, reps, planners int) ComparisonReport {
	r := ComparisonReport{
		ReportVersion: ComparisonReportVersion,
		CorpusVersion: CorpusVersion,
		Basis:         basis,
		Modeled:       basis == BasisModeled,
		Notice:        ObservedNotice,
		AppIDs:        appIDs,
		Repetitions:   reps,
		Planners:      make([]PlannerReport, 0, planners),
	}
	if r.Modeled {
		r.Notice = ModeledComparisonNotice
	}
	return r
}

// comparePlannersProblem returns the first problem with in, in field order.
// Limits are checked before anything walks the lists.
func comparePlannersProblem(in ComparePlannersInput) *Error {
	switch {
	case len(in.AppIDs) > MaxAppIDs:
		return newError(CodeLimitExceeded, "appIds", nil, "has %d apps; the limit is %d", len(in.AppIDs), MaxAppIDs)
	case len(in.Planners) > MaxPlanners:
		return newError(CodeLimitExceeded, "planners", nil, "has %d planners; the limit is %d", len(in.Planners), MaxPlanners)
	case in.Repetitions > MaxRepetitions:
		return newError(CodeLimitExceeded, "repetitions", nil, "is %d, above the limit of %d; use fewer repetitions", in.Repetitions, MaxRepetitions)
	}
	if problems := validateStruct(in); len(problems) > 0 {
		p := problems[0]
		if dup := duplicateAppProblem(in.AppIDs); p.Field == "appIds" && dup != nil {
			return dup // more useful than the validator's "contains duplicates"
		}
		if pp := plannersProblem(p, in.Planners); pp != nil {
			return pp
		}
		return p
	}
	return plannerListProblem(in.Planners)
}

// plannersProblem sharpens a validator finding under planners[i] into the
// malformed_planner error run submissions give, naming every missing part.
func plannersProblem(p *Error, planners []PlannerRef) *Error {
	i, ok := elementIndex(p.Field, "planners", len(planners))
	if !ok {
		return nil
	}
	return planners[i].problem(fmt.Sprintf("planners[%d]", i))
}

// trialFixtureProblem narrows an unknown fixture of a known app to that app's
// fixtures, which is the list a caller can actually pick from.
func trialFixtureProblem(p *Error, trials []Trial) *Error {
	i, ok := elementIndex(p.Field, "trials", len(trials))
	if !ok || p.Code != CodeInvalidFixtureID || owned.appByID[trials[i].AppID] == nil {
		return nil
	}
	return unknownFixtureOfApp(p.Field, trials[i].AppID, trials[i].FixtureID)
}

// elementIndex parses the index i out of a path "list[i]..." with i < n.
func elementIndex(field, list string, n int) (int, bool) {
	rest, ok := strings.CutPrefix(field, list+"[")
	if !ok {
		return 0, false
	}
	idx, _, _ := strings.Cut(rest, "]")
	i, err := strconv.Atoi(idx)
	if err != nil || i < 0 || i >= n {
		return 0, false
	}
	return i, true
}

// plannerListProblem checks what the validator cannot: each planner's text, and
// that no two planners share an ID (their reports would be indistinguishable).
func plannerListProblem(planners []PlannerRef) *Error {
	first := make(map[string]int, len(planners))
	for i, p := range planners {
		field := fmt.Sprintf("planners[%d]", i)
		if pp := p.problem(field); pp != nil {
			return pp
		}
		if j, dup := first[p.ID]; dup {
			return newError(CodeInvalidArgument, field+".id", nil,
				"planner ID %q is used twice (also by planners[%d]); give each planner its own ID", p.ID, j)
		}
		first[p.ID] = i
	}
	return nil
}

func duplicateAppProblem(appIDs []string) *Error {
	for i, id := range appIDs {
		if j := slices.Index(appIDs[:i], id); j >= 0 {
			return newError(CodeInvalidArgument, fmt.Sprintf("appIds[%d]", i), nil,
				"app %q is listed twice (also at appIds[%d]); list each app once", id, j)
		}
	}
	return nil
}

// observedPlan is a validated observed input, indexed for aggregation.
type observedPlan struct {
	appIDs           []string // sorted
	journeyIDs       []string // sorted; journey[i] indexes it
	planner          []int    // planner index of trial i
	journey          []int    // journey index of trial i
	trialsPerPlanner []int
}

// observedTrialsPlan validates in and indexes its trials by planner and journey.
func observedTrialsPlan(in CompareObservedTrialsInput) (*observedPlan, *Error) {
	switch {
	case len(in.Planners) > MaxPlanners:
		return nil, newError(CodeLimitExceeded, "planners", nil, "has %d planners; the limit is %d", len(in.Planners), MaxPlanners)
	case len(in.Trials) > MaxObservedTrials:
		return nil, newError(CodeLimitExceeded, "trials", nil, "has %d trials; the limit is %d", len(in.Trials), MaxObservedTrials)
	}
	if problems := validateStruct(in); len(problems) > 0 {
		p := problems[0]
		if pp := plannersProblem(p, in.Planners); pp != nil {
			return nil, pp
		}
		if tp := trialFixtureProblem(p, in.Trials); tp != nil {
			return nil, tp
		}
		return nil, p
	}
	if p := plannerListProblem(in.Planners); p != nil {
		return nil, p
	}
	plannerIndex := make(map[string]int, len(in.Planners))
	plannerIDs := make([]string, len(in.Planners))
	for i, p := range in.Planners {
		plannerIndex[p.ID] = i
		plannerIDs[i] = p.ID
	}
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
	for i := range in.Trials {
		tr := &in.Trials[i]
		// The path is built only for an error: this loop runs once per trial.
		field := func(name string) string { return fmt.Sprintf("trials[%d].%s", i, name) }
		p, ok := plannerIndex[tr.PlannerID]
		if !ok {
			return nil, newError(CodeInvalidArgument, field("plannerId"), plannerIDs,
				"%q is not one of the input's planners; add it to planners or use one of the allowed values", tr.PlannerID)
		}
		app, fixture := owned.appByID[tr.AppID], owned.fixtureByID[tr.FixtureID]
		if mismatch := fixtureAppMismatch(app, fixture); mismatch != nil {
			mismatch.Field = field("fixtureId")
			return nil, mismatch
		}
		if tr.Recovered && !tr.RecoveryTriggered {
			return nil, newError(CodeInvalidArgument, field("recovered"), nil,
				"a run can only recover when recovery was triggered; set recoveryTriggered to true or recovered to false")
		}
		if ref, ok := owned.journeyByID[tr.JourneyID]; ok && (ref.AppID != tr.AppID || ref.FixtureID != tr.FixtureID) {
			return nil, newError(CodeFixtureAppMismatch, field("journeyId"), nil,
				"reference journey %q runs on app %q with fixture %q, not app %q with fixture %q; record it with its own app and fixture",
				ref.ID, ref.AppID, ref.FixtureID, tr.AppID, tr.FixtureID)
		}
		if j, seen := firstJourney[tr.JourneyID]; !seen {
			firstJourney[tr.JourneyID] = i
		} else if other := &in.Trials[j]; other.AppID != tr.AppID || other.FixtureID != tr.FixtureID {
			return nil, newError(CodeInvalidArgument, field("journeyId"), nil,
				"journey %q ran on app %q with fixture %q in trials[%d] but on app %q with fixture %q here; a journey belongs to one app and fixture, so give the other journey its own ID",
				tr.JourneyID, other.AppID, other.FixtureID, j, tr.AppID, tr.FixtureID)
		}
		key := runKey{p, tr.JourneyID, tr.Repetition}
		if j, dup := firstRun[key]; dup {
			return nil, newError(CodeInvalidArgument, field("repetition"), nil,
				"planner %q already has repetition %d of journey %q (trials[%d]); number each run of a journey by a planner differently",
				tr.PlannerID, tr.Repetition, tr.JourneyID, j)
		}
		firstRun[key] = i
		plan.planner[i] = p
		plan.trialsPerPlanner[p]++
		apps[tr.AppID] = true
	}
	for p, n := range plan.trialsPerPlanner {
		if n == 0 {
			return nil, newError(CodeInvalidArgument, fmt.Sprintf("planners[%d]", p), nil,
				"planner %q has no trials; add its trials or remove it from planners", in.Planners[p].ID)
		}
	}
	plan.journeyIDs = make([]string, 0, len(firstJourney))
	for id := range firstJourney {
		plan.journeyIDs = append(plan.journeyIDs, id)
	}
	slices.Sort(plan.journeyIDs)
	journeyIndex := make(map[string]int, len(plan.journeyIDs))
	for j, id := range plan.journeyIDs {
		journeyIndex[id] = j
	}
	for i := range in.Trials {
		plan.journey[i] = journeyIndex[in.Trials[i].JourneyID]
	}
	for id := range apps {
		plan.appIDs = append(plan.appIDs, id)
	}
	slices.Sort(plan.appIDs)
	return plan, nil
}

// trialTally is the benchmark runner's aggregation: both sources of trials feed it
// one planner at a time, so modeled and observed reports cannot drift apart. Its
// buffers are reused across planners.
type trialTally struct {
	runs, passes []int     // per journey index
	latencies    []float64 // one per trial, in milliseconds
	passAtK      []float64 // scratch: sum over journeys of pass^k, per k
	passed       int
	inputTokens  int
	outputTokens int
	triggered    int
	recovered    int
}

func (t *trialTally) reset(journeys, trials int) {
	t.runs = resize(t.runs, journeys)
	t.passes = resize(t.passes, journeys)
	t.latencies = slices.Grow(t.latencies[:0], trials)
	t.passed, t.inputTokens, t.outputTokens, t.triggered, t.recovered = 0, 0, 0, 0, 0
}

// resize returns s with length n, all zero, reusing its array when it can.
func resize[T any](s []T, n int) []T {
	s = slices.Grow(s[:0], n)[:n]
	clear(s)
	return s
}

func (t *trialTally) add(journey int, tr *Trial) {
	t.runs[journey]++
	if tr.Passed {
		t.passes[journey]++
		t.passed++
	}
	t.latencies = append(t.latencies, float64(tr.LatencyMs))
	t.inputTokens += tr.InputTokens
	t.outputTokens += tr.OutputTokens
	if tr.RecoveryTriggered {
		t.triggered++
		if tr.Recovered {
			t.recovered++
		}
	}
}

// maxRuns is the largest number of runs of one journey.
func (t *trialTally) maxRuns() int {
	most := 0
	for _, r := range t.runs {
		most = max(most, r)
	}
	return most
}

// report computes the planner's metrics. It needs at least one trial.
func (t *trialTally) report(ref PlannerRef) PlannerReport {
	n := len(t.latencies)
	journeys, minRuns, agree := 0, 0, 0
	for j, r := range t.runs {
		if r == 0 {
			continue
		}
		journeys++
		if minRuns == 0 || r < minRuns {
			minRuns = r
		}
		if c := t.passes[j]; c == 0 || c == r {
			agree++
		}
	}
	t.passAtK = resize(t.passAtK, minRuns)
	for j, r := range t.runs {
		if r > 0 {
			addPassHatK(t.passAtK, t.passes[j], r)
		}
	}
	passAtK := make([]PassAtK, minRuns)
	for k, sum := range t.passAtK {
		passAtK[k] = PassAtK{K: k + 1, Value: roundReport(sum / float64(journeys))}
	}
	slices.Sort(t.latencies)
	q := stats.Quantiles(t.latencies, 0.5, 0.9)
	total := t.inputTokens + t.outputTokens
	return PlannerReport{
		Planner:  ref,
		Trials:   n,
		Journeys: journeys,
		PassRate: newRate(t.passed, n),
		Repeatability: Repeatability{
			PassAtK:               passAtK,
			AllOutcomesAgreeShare: roundReport(float64(agree) / float64(journeys)),
		},
		MedianJourneyLatencyMs: roundReport(q[0]),
		P90JourneyLatencyMs:    roundReport(q[1]),
		TokenSpend: TokenSpend{
			InputTotal:        t.inputTokens,
			OutputTotal:       t.outputTokens,
			Total:             total,
			MeanPerJourneyRun: roundReport(float64(total) / float64(n)),
			MeanInputPerRun:   roundReport(float64(t.inputTokens) / float64(n)),
			MeanOutputPerRun:  roundReport(float64(t.outputTokens) / float64(n)),
		},
		RecoverySuccessRate: optionalRate(t.recovered, t.triggered),
	}
}

// addPassHatK adds one journey's pass^k = C(c,k)/C(n,k) to sums[k-1] for every
// k ≤ len(sums) ≤ n. It uses the product form
//
//	C(c,k)/C(n,k) = Π_{i=0}^{k-1} (c−i)/(n−i)
//
// one factor per k, so there are no factorials to overflow and the whole row costs
// O(k). The factor (c−i) reaches 0 at k = c+1, after which pass^k stays 0.
func addPassHatK(sums []float64, c, n int) {
	ratio := 1.0
	for i := range sums {
		if c-i <= 0 {
			return
		}
		ratio *= float64(c-i) / float64(n-i)
		sums[i] += ratio
	}
}

// optionalRate is newRate, or nil when n is 0: a rate over nothing is unknown,
// and reporting it as 0 or 1 would be a lie.
func optionalRate(successes, n int) *Rate {
	if n <= 0 {
		return nil
	}
	r := newRate(successes, n)
	return &r
}

// newRate is successes/n with its Wilson interval; n must be positive.
func newRate(successes, n int) Rate {
	ci, _ := wilson95(successes, n)
	return Rate{
		Value:     roundReport(float64(successes) / float64(n)),
		Successes: successes,
		N:         n,
		Wilson95:  Interval{Lower: roundReport(ci.Lower), Upper: roundReport(ci.Upper)},
	}
}

// wilson95 is the 95% Wilson score interval for x successes in n trials:
//
//	center = (p̂ + z²/2n) / (1 + z²/n)
//	half   = z·√(p̂(1−p̂)/n + z²/4n²) / (1 + z²/n)
//
// with p̂ = x/n and z = Φ⁻¹(0.975). At p̂ = 0 the lower bound is exactly 0 and at
// p̂ = 1 the upper bound is exactly 1 (floating point would otherwise miss by an
// ulp); both bounds are clamped to [0,1]. It reports false when n is 0.
func wilson95(x, n int) (Interval, bool) {
	if n <= 0 || x < 0 || x > n {
		return Interval{}, false
	}
	nf := float64(n)
	p := float64(x) / nf
	z2 := wilsonZ * wilsonZ
	denom := 1 + z2/nf
	center := (p + z2/(2*nf)) / denom
	half := wilsonZ * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / denom
	ci := Interval{Lower: max(0, center-half), Upper: min(1, center+half)}
	if x == 0 {
		ci.Lower = 0
	}
	if x == n {
		ci.Upper = 1
	}
	return ci, true
}

func roundReport(x float64) float64 {
	return math.Round(x*reportDecimals) / reportDecimals
}

// intentWeights is how hard each intent of planner-intent-v1 is for a planner in
// the model, relative to a click. Intents that need precise targeting, a second
// target, or browser state outside the page weigh more.
var intentWeights = map[string]float64{
	"navigate": 0.6, "go_back": 0.8, "click": 1.0, "fill": 1.1, "select_option": 1.3,
	"set_checked": 1.1, "press_key": 0.9, "hover": 1.2, "scroll": 1.0, "upload_file": 1.8,
	"handle_dialog": 1.6, "switch_tab": 1.7, "drag_drop": 2.2, "wait_for": 1.0,
	"extract": 1.2, "finish": 0.5,
}

// Model constants; see ComparePlanners.
const (
	assertionWeight       = 0.5
	stepMsPerWeight       = 900.0
	recoveryMsPerStrategy = 400.0
	assertionMs           = 250.0
	stepInputTokens       = 1500.0
	stepInputPerWeight    = 300.0
	stepOutputTokens      = 40.0
	stepOutputPerWeight   = 60.0
	recoveryInputPerStrat = 300.0
	recoveryOutputTokens  = 80.0
	trialStreamStride     = 0x9E3779B97F4A7C15
)

// modeledJourney is what the model needs of a compiled reference journey.
type modeledJourney struct {
	id, appID  string
	fixtureID  string
	weights    []float64 // per step node, in order
	assertions int
	maxRetries int
	strategies int
}

// referenceJourneyModels compiles every reference journey of the corpus once.
// The corpus is constant, so the models are too; they are keyed by app ID.
var referenceJourneyModels = sync.OnceValues(func() (map[string][]*modeledJourney, error) {
	models := map[string][]*modeledJourney{}
	for _, ref := range owned.ReferenceJourneys {
		res, err := CompileJourney(context.Background(), ref.clone())
		if err != nil || !res.Valid {
			return nil, internalError("compiling reference journey " + ref.ID)
		}
		models[ref.AppID] = append(models[ref.AppID], modelJourney(res.Journey))
	}
	return models, nil
})

func modelJourney(g *CompiledJourney) *modeledJourney {
	m := &modeledJourney{id: g.ID, appID: g.AppID, fixtureID: g.FixtureID, maxRetries: g.MaxRetries}
	for _, n := range g.Nodes {
		switch n.Kind {
		case NodeStep:
			m.weights = append(m.weights, intentWeights[n.Intent])
		case NodeAssertion:
			m.assertions++
		case NodeRecovery:
			m.strategies = len(n.Strategies)
		}
	}
	return m
}

// plannerTraits is a planner's effect in the model; see ComparePlanners.
type plannerTraits struct {
	lambda, rho, speed, verbosity float64
}

func traitsOf(p PlannerRef) plannerTraits {
	var buf [64 + 3*MaxIDLength]byte
	key := append(buf[:0], "automium/planner-traits/v1\x00"...)
	key = append(append(key, p.ID...), 0)
	key = append(append(key, p.Vendor...), 0)
	key = append(key, p.Model...)
	sum := sha256.Sum256(key)
	u := func(i int) float64 { return unitFloat(binary.BigEndian.Uint64(sum[8*i:])) }
	skill := 0.55 + 0.40*u(0)
	return plannerTraits{
		lambda:    0.60 * (1 - skill),
		rho:       0.50 + 0.50*skill,
		speed:     0.70 + 0.60*u(1),
		verbosity: 0.70 + 0.60*u(2),
	}
}

// trialDrawer draws modeled trials. Its scratch space is reused from one planner
// and journey to the next, so drawing allocates nothing per trial.
type trialDrawer struct {
	odds  stepOdds
	keyer trialKeyer
	trial Trial // the trial being handed out; a local would escape through add
}

// drawAll draws repetitions 1..reps of every journey by planner p, handing each
// trial and the index of its journey to add.
func (d *trialDrawer) drawAll(seed uint64, p PlannerRef, journeys []*modeledJourney, reps int, add func(journey int, tr *Trial)) {
	traits := traitsOf(p)
	for j, m := range journeys {
		d.odds.set(m, traits)
		base := d.keyer.streamBase(seed, p.ID, m.id)
		for r := 1; r <= reps; r++ {
			d.trial = m.draw(&d.odds, p.ID, traits, base, r)
			add(j, &d.trial)
		}
	}
}

// trialKeyer keys the random stream of each (seed, planner, journey); the
// repetition is mixed in per trial. It reuses one buffer so that keying every
// pair of a large comparison allocates nothing.
type trialKeyer struct{ buf []byte }

func (k *trialKeyer) streamBase(seed uint64, plannerID, journeyID string) uint64 {
	k.buf = append(k.buf[:0], "automium/modeled-trial/v1\x00"...)
	k.buf = binary.BigEndian.AppendUint64(k.buf, seed)
	k.buf = append(k.buf, plannerID...)
	k.buf = append(k.buf, 0)
	k.buf = append(k.buf, journeyID...)
	sum := sha256.Sum256(k.buf)
	return binary.BigEndian.Uint64(sum[:8])
}

// unitFloat maps 64 random bits to [0,1) using the top 53.
func unitFloat(x uint64) float64 { return float64(x>>11) / (1 << 53) }

// splitMix64 is Steele, Lea and Flood's SplitMix64: tiny, fast and good enough to
// turn a hashed key into a stream of independent-looking draws. Each trial owns one,
// so no state is shared between trials or goroutines.
type splitMix64 struct{ state uint64 }

func (s *splitMix64) float() float64 {
	s.state += 0x9E3779B97F4A7C15
	z := s.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return unitFloat(z ^ (z >> 31))
}

// stepOdds holds the per-step probabilities of one (planner, journey) pair, so the
// exponentials are computed once per pair rather than once per trial.
type stepOdds struct {
	step, retry []float64
	assertion   float64
}

func (o *stepOdds) set(m *modeledJourney, p plannerTraits) {
	o.step = resize(o.step, len(m.weights))
	o.retry = resize(o.retry, len(m.weights))
	for i, w := range m.weights {
		o.step[i] = math.Exp(-p.lambda * w)
		o.retry[i] = p.rho * o.step[i]
	}
	o.assertion = math.Exp(-p.lambda * assertionWeight)
}

// draw is one modeled trial: repetition r of journey m by planner id with traits p.
func (m *modeledJourney) draw(o *stepOdds, id string, p plannerTraits, base uint64, r int) Trial {
	rng := splitMix64{state: base + uint64(r)*trialStreamStride}
	jitterTime := 0.8 + 0.4*rng.float()
	jitterTokens := 0.9 + 0.2*rng.float()
	strategies := float64(m.strategies)
	var ms, in, out float64
	triggered, reached := false, true
	for i, w := range m.weights {
		ms += stepMsPerWeight * w
		in += stepInputTokens + stepInputPerWeight*w
		out += stepOutputTokens + stepOutputPerWeight*w
		if rng.float() < o.step[i] {
			continue
		}
		triggered = true
		ok := false
		for range m.maxRetries {
			ms += recoveryMsPerStrategy*strategies + stepMsPerWeight*w
			in += recoveryInputPerStrat*strategies + stepInputTokens + stepInputPerWeight*w
			out += recoveryOutputTokens + stepOutputTokens + stepOutputPerWeight*w
			if rng.float() < o.retry[i] {
				ok = true
				break
			}
		}
		if !ok {
			reached = false
			break
		}
	}
	passed := reached
	if reached {
		for range m.assertions {
			ms += assertionMs
			if rng.float() >= o.assertion {
				passed = false
				break
			}
		}
	}
	return Trial{
		PlannerID:         id,
		AppID:             m.appID,
		FixtureID:         m.fixtureID,
		JourneyID:         m.id,
		Repetition:        r,
		Passed:            passed,
		LatencyMs:         int(math.Round(p.speed * jitterTime * ms)),
		InputTokens:       int(math.Round(p.verbosity * jitterTokens * in)),
		OutputTokens:      int(math.Round(p.verbosity * jitterTokens * out)),
		RecoveryTriggered: triggered,
		Recovered:         triggered && reached,
	}
}
