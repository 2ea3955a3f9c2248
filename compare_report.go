package automium

// ComparisonReport compares planners trial by trial. It is the output of both
// [ComparePlanners] and [CompareObservedTrials], which share one aggregation, so
// modeled and observed reports read the same way and differ only in basis, notice
// and seed. Planners appear in input order, which lets a caller put its baseline
// first. All floats are rounded to 6 decimals.
type ComparisonReport struct {
	// Comparison report format version.
	ReportVersion string `json:"reportVersion" jsonschema:"comparison report format version"`
	// Owned corpus version the trials belong to.
	CorpusVersion string `json:"corpusVersion" jsonschema:"owned corpus version the trials belong to"`
	// Modeled (deterministic draws from a documented model) or observed (trials
	// supplied by the caller).
	Basis Basis `json:"basis" jsonschema:"modeled (deterministic draws from a documented model) or observed (trials supplied by the caller)"`
	// True when the trials are modeled draws, not measurements of any real planner.
	Modeled bool `json:"modeled" jsonschema:"true when the trials are modeled draws, not measurements of any real planner"`
	// One-line statement of what the numbers are and are not.
	Notice string `json:"notice" jsonschema:"one-line statement of what the numbers are and are not"`
	// Seed of the modeled draws; absent for observed reports.
	Seed uint64 `json:"seed,omitempty" jsonschema:"seed of the modeled draws; absent for observed reports"`
	// Apps whose journeys were compared, sorted.
	AppIDs []string `json:"appIds" jsonschema:"apps whose journeys were compared, sorted"`
	// Runs per journey per planner; for observed reports the largest number of runs
	// any planner made of one journey.
	Repetitions int `json:"repetitions" jsonschema:"runs per journey per planner; for observed reports the largest number of runs any planner made of one journey"`
	// One report per planner, in input order.
	Planners []PlannerReport `json:"planners" jsonschema:"one report per planner, in input order"`
	// One paired comparison per pair of planners over the runs they share, in input
	// order (planner 1 with 2, 3, …, then 2 with 3, …); empty with one planner.
	Pairs []PairedComparison `json:"pairs" jsonschema:"one paired comparison per pair of planners over the runs they share, in input order (planner 1 with 2, 3, …, then 2 with 3, …); empty with one planner"`
	// Planners no other planner beats on pass rate, median latency and tokens per run
	// at once (the Pareto set), in input order.
	ParetoPlannerIDs []string `json:"paretoPlannerIds" jsonschema:"planners no other planner beats on pass rate, median latency and tokens per run at once (the Pareto set), in input order"`
}

// PlannerReport holds the metrics of one planner.
type PlannerReport struct {
	// The planner these metrics are about.
	Planner PlannerRef `json:"planner" jsonschema:"the planner these metrics are about"`
	// Number of journey runs aggregated.
	Trials int `json:"trials" jsonschema:"number of journey runs aggregated"`
	// Number of distinct journeys run.
	Journeys int `json:"journeys" jsonschema:"number of distinct journeys run"`
	// Passed runs over all runs, with a 95% Wilson score interval.
	PassRate Rate `json:"passRate" jsonschema:"passed runs over all runs, with a 95% Wilson score interval"`
	// How reliably the planner passes the same journey again.
	Repeatability Repeatability `json:"repeatability" jsonschema:"how reliably the planner passes the same journey again"`
	// Median latency of one journey run, in milliseconds.
	MedianJourneyLatencyMs float64 `json:"medianJourneyLatencyMs" jsonschema:"median latency of one journey run, in milliseconds"`
	// 90th percentile latency of one journey run, in milliseconds (linear
	// interpolation, R-7).
	P90JourneyLatencyMs float64 `json:"p90JourneyLatencyMs" jsonschema:"90th percentile latency of one journey run, in milliseconds (linear interpolation, R-7)"`
	// Planner tokens spent, in total and per journey run.
	TokenSpend TokenSpend `json:"tokenSpend" jsonschema:"planner tokens spent, in total and per journey run"`
	// Runs whose recovery succeeded over runs that triggered recovery, with a 95%
	// Wilson interval; absent when no run triggered recovery.
	RecoverySuccessRate *Rate `json:"recoverySuccessRate,omitempty" jsonschema:"runs whose recovery succeeded over runs that triggered recovery, with a 95% Wilson interval; absent when no run triggered recovery"`
}

// Rate is a proportion with its denominator and a 95% Wilson score interval. The
// Wilson interval, unlike the textbook p̂ ± z·SE, stays inside [0,1] and is
// meaningful at p̂ = 0 or 1 and for small n, which is where planner comparisons
// usually live.
type Rate struct {
	// Successes divided by n.
	Value float64 `json:"value" jsonschema:"successes divided by n"`
	// Number of successes.
	Successes int `json:"successes" jsonschema:"number of successes"`
	// Denominator: the number of trials the rate is over.
	N int `json:"n" jsonschema:"denominator: the number of trials the rate is over"`
	// 95% Wilson score interval for the rate.
	Wilson95 Interval `json:"wilson95" jsonschema:"95% Wilson score interval for the rate"`
}

// Interval is a closed interval within [0,1].
type Interval struct {
	// Lower bound.
	Lower float64 `json:"lower" jsonschema:"lower bound"`
	// Upper bound.
	Upper float64 `json:"upper" jsonschema:"upper bound"`
}

// Repeatability measures consistency across repeated runs of the same journey.
type Repeatability struct {
	// Tau-bench pass^k for k = 1 up to the smallest number of runs of any of the
	// planner's journeys.
	PassAtK []PassAtK `json:"passAtK" jsonschema:"tau-bench pass^k for k = 1 up to the smallest number of runs of any of the planner's journeys"`
	// Share of journeys whose runs all passed or all failed.
	AllOutcomesAgreeShare float64 `json:"allOutcomesAgreeShare" jsonschema:"share of journeys whose runs all passed or all failed"`
}

// PassAtK is tau-bench's pass^k: the chance that k runs of a journey, drawn
// without replacement from its runs, all pass, averaged over journeys.
type PassAtK struct {
	// Number of runs that must all pass.
	K int `json:"k" jsonschema:"number of runs that must all pass"`
	// Mean over journeys of C(c,k)/C(n,k), c passes in n runs.
	Value float64 `json:"value" jsonschema:"mean over journeys of C(c,k)/C(n,k), c passes in n runs"`
}

// TokenSpend is the planner's token use.
type TokenSpend struct {
	// Input (prompt) tokens over all runs.
	InputTotal int `json:"inputTotal" jsonschema:"input (prompt) tokens over all runs"`
	// Output (completion) tokens over all runs.
	OutputTotal int `json:"outputTotal" jsonschema:"output (completion) tokens over all runs"`
	// Input plus output tokens over all runs.
	Total int `json:"total" jsonschema:"input plus output tokens over all runs"`
	// Total tokens per journey run.
	MeanPerJourneyRun float64 `json:"meanPerJourneyRun" jsonschema:"total tokens per journey run"`
	// Input tokens per journey run.
	MeanInputPerRun float64 `json:"meanInputPerRun" jsonschema:"input tokens per journey run"`
	// Output tokens per journey run.
	MeanOutputPerRun float64 `json:"meanOutputPerRun" jsonschema:"output tokens per journey run"`
	// Total tokens over all runs divided by the passed runs: what one passed journey
	// costs, failures included; absent when no run passed.
	PerPassedRun *float64 `json:"perPassedRun,omitempty" jsonschema:"total tokens over all runs divided by the passed runs: what one passed journey costs, failures included; absent when no run passed"`
}

func newComparisonReport(basis Basis, appIDs []string, reps, planners int) ComparisonReport {
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

// finish adds what compares the planners with each other, once every planner's
// report is in: the paired comparisons (runs[p] are planner p's runs of each
// journey) and the Pareto set.
func (r *ComparisonReport) finish(planners []PlannerRef, runs [][]journeyRuns) {
	r.Pairs = pairedComparisons(r.Basis, planners, runs)
	r.ParetoPlannerIDs = paretoPlannerIDs(r.Planners)
}
