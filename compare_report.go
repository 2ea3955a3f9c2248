package automium

// ComparisonReport compares planners trial by trial. It is the output of both
// [ComparePlanners] and [CompareObservedTrials], which share one aggregation, so
// modeled and observed reports read the same way and differ only in basis, notice
// and seed. Planners appear in input order, which lets a caller put its baseline
// first. All floats are rounded to 6 decimals.
type ComparisonReport struct {
	ReportVersion        string             `json:"reportVersion" jsonschema:"comparison report format version"`
	CorpusVersion        string             `json:"corpusVersion" jsonschema:"owned corpus version the trials belong to"`
	Basis                Basis              `json:"basis" jsonschema:"modeled (deterministic draws from a documented model) or observed (trials supplied by the caller)"`
	Modeled              bool               `json:"modeled" jsonschema:"true when the trials are modeled draws, not measurements of any real planner"`
	Notice               string             `json:"notice" jsonschema:"one-line statement of what the numbers are and are not"`
	Seed                 uint64             `json:"seed,omitempty" jsonschema:"seed of the modeled draws; absent for observed reports"`
	AppIDs               []string           `json:"appIds" jsonschema:"apps whose journeys were compared, sorted"`
	ExternalAppIDs       []string           `json:"externalAppIds,omitempty" jsonschema:"those of appIds outside the corpus (ext:…)"`
	NotChecked           []string           `json:"notChecked,omitempty" jsonschema:"corpus checks that did not apply to them"`
	Repetitions          int                `json:"repetitions" jsonschema:"runs per journey per planner; for observed reports the most runs of one journey by one planner"`
	RepetitionsRequested *int               `json:"repetitionsRequested,omitempty" jsonschema:"repetitions asked for, when they differ from those used (below 1 means 1)"`
	AssumedPassRates     []AssumedPassRate  `json:"assumedPassRates,omitempty" jsonschema:"the assumed rates the draws followed"`
	MatchedRounds        bool               `json:"matchedRounds,omitempty" jsonschema:"whether the caller declared matched rounds"`
	SharedJourneys       int                `json:"sharedJourneys" jsonschema:"journeys every planner ran evaluably: the shared workload"`
	Planners             []PlannerReport    `json:"planners" jsonschema:"one report per planner, in input order"`
	Pairs                []PairedComparison `json:"pairs" jsonschema:"one comparison per pair of planners over the journeys both ran, in input order; empty with one planner"`
	ParetoPlannerIDs     []string           `json:"paretoPlannerIds" jsonschema:"Pareto set over the shared workload (first-attempt pass rate, median latency, tokens per run), input order; empty if modeled or nothing shared"`
	RowsOmitted          int                `json:"rowsOmitted,omitempty" jsonschema:"journey rows left out; every figure is from every row"`
	FlaggedRowsOmitted   int                `json:"flaggedRowsOmitted,omitempty" jsonschema:"flagged pair rows among them"`
	PairsOmitted         int                `json:"pairsOmitted,omitempty" jsonschema:"pairs left out: only when planner IDs are too long for every pair to fit"`
	AppRollupsOmitted    int                `json:"appRollupsOmitted,omitempty" jsonschema:"planners' app rollups left out: only when long planner references over many apps leave them no room"`
	// Pages is how many pages the rows selected take (RowSelection.Page);
	// not on the wire, where rows are selected only by naming journeys.
	Pages int `json:"-"`
}

// PlannerReport holds the metrics of one planner. Runs are evaluable runs:
// not-evaluable trials are counted in notEvaluable and leave every other figure.
// Pass^k, the first-attempt pass rate and the pair comparisons count first
// attempts; passRate counts final outcomes, retries included.
type PlannerReport struct {
	Planner                PlannerRef          `json:"planner" jsonschema:"the planner these metrics are about"`
	Trials                 int                 `json:"trials" jsonschema:"trials given, not-evaluable ones included"`
	Journeys               int                 `json:"journeys" jsonschema:"distinct journeys with an evaluable run"`
	NotEvaluable           int                 `json:"notEvaluable" jsonschema:"trials that ended on an infrastructure error"`
	RescuedByRetry         int                 `json:"rescuedByRetry" jsonschema:"runs that failed their first attempt and passed on a retry"`
	PassRate               Rate                `json:"passRate" jsonschema:"passed runs (final outcome) over evaluable runs, with a 95% Wilson interval"`
	FirstAttemptPassRate   Rate                `json:"firstAttemptPassRate" jsonschema:"runs passed on the first attempt over evaluable runs, with a 95% Wilson interval"`
	Repeatability          Repeatability       `json:"repeatability" jsonschema:"how reliably the planner passes the same journey again, by first attempts"`
	MedianJourneyLatencyMs float64             `json:"medianJourneyLatencyMs" jsonschema:"median latency of one run in ms, over runs with a known latency"`
	P90JourneyLatencyMs    float64             `json:"p90JourneyLatencyMs" jsonschema:"90th percentile latency of one run in ms (R-7)"`
	LatencyUnknown         int                 `json:"latencyUnknown,omitempty" jsonschema:"evaluable runs with unknown latency, left out of the latency figures"`
	TokenSpend             TokenSpend          `json:"tokenSpend" jsonschema:"planner tokens spent, in total and per run, over runs with known tokens"`
	TokensUnknown          int                 `json:"tokensUnknown,omitempty" jsonschema:"evaluable runs with unknown tokens, left out of the token figures"`
	RecoverySuccessRate    *Rate               `json:"recoverySuccessRate,omitempty" jsonschema:"runs whose recovery succeeded over runs that triggered it, with a 95% Wilson interval; absent if none did"`
	SharedWorkload         *WorkloadFigures    `json:"sharedWorkload,omitempty" jsonschema:"figures on the shared workload, as the Pareto set compares them; absent if nothing is shared"`
	Apps                   []AppRollup         `json:"apps" jsonschema:"sums of journeyRows by app"`
	JourneyRows            []PlannerJourneyRow `json:"journeyRows" jsonschema:"one row per journey, sorted by ID; the figures above recompute from them"`
}

// WorkloadFigures are a planner's figures on the shared workload.
type WorkloadFigures struct {
	Journeys               int     `json:"journeys" jsonschema:"shared journeys"`
	Runs                   int     `json:"runs" jsonschema:"evaluable runs of them"`
	FirstAttemptPassRate   float64 `json:"firstAttemptPassRate" jsonschema:"first-attempt passes over those runs"`
	MedianJourneyLatencyMs float64 `json:"medianJourneyLatencyMs" jsonschema:"median latency of those runs in ms (R-7)"`
	MeanTokensPerRun       float64 `json:"meanTokensPerRun" jsonschema:"tokens per run over those runs with known tokens"`
}

// AppRollup sums a planner's journey rows of one app.
type AppRollup struct {
	AppID              string `json:"appId" jsonschema:"app ID"`
	Journeys           int    `json:"journeys" jsonschema:"journeys with an evaluable run"`
	Runs               int    `json:"runs" jsonschema:"evaluable runs"`
	Passes             int    `json:"passes" jsonschema:"passed runs (final outcome)"`
	FirstAttemptPasses int    `json:"firstAttemptPasses" jsonschema:"runs passed on the first attempt"`
	RescuedByRetry     int    `json:"rescuedByRetry" jsonschema:"runs passed on a retry"`
	NotEvaluable       int    `json:"notEvaluable" jsonschema:"not-evaluable trials"`
}

// PlannerJourneyRow is one planner's figures on one journey.
type PlannerJourneyRow struct {
	JourneyID          string    `json:"journeyId" jsonschema:"journey ID"`
	AppID              string    `json:"appId" jsonschema:"its app"`
	Runs               int       `json:"runs" jsonschema:"evaluable runs"`
	Passes             int       `json:"passes" jsonschema:"passed runs (final outcome)"`
	FirstAttemptPasses int       `json:"firstAttemptPasses" jsonschema:"runs passed on the first attempt"`
	RescuedByRetry     int       `json:"rescuedByRetry,omitempty" jsonschema:"runs passed on a retry"`
	NotEvaluable       int       `json:"notEvaluable,omitempty" jsonschema:"not-evaluable trials"`
	PassAtK            []float64 `json:"passAtK" jsonschema:"pass^k by first attempts for the planner's k = 1, 2, …"`
	MedianLatencyMs    *float64  `json:"medianLatencyMs,omitempty" jsonschema:"median latency in ms (R-7); absent if none is known"`
	LatencyUnknown     int       `json:"latencyUnknown,omitempty" jsonschema:"runs with unknown latency"`
	InputTokens        int       `json:"inputTokens" jsonschema:"input tokens of runs with known tokens"`
	OutputTokens       int       `json:"outputTokens" jsonschema:"output tokens of runs with known tokens"`
	TokensUnknown      int       `json:"tokensUnknown,omitempty" jsonschema:"runs with unknown tokens"`
	RecoveryTriggered  int       `json:"recoveryTriggered,omitempty" jsonschema:"runs that triggered recovery"`
	Recovered          int       `json:"recovered,omitempty" jsonschema:"of those, runs that recovered"`
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
	PassAtK               []PassAtK `json:"passAtK" jsonschema:"tau-bench pass^k by first attempts, k = 1 to the fewest runs of any journey"`
	AllOutcomesAgreeShare float64   `json:"allOutcomesAgreeShare" jsonschema:"share of journeys whose first attempts all agreed, none rescued by a retry"`
}

// PassAtK is tau-bench's pass^k: the chance that k runs of a journey, drawn
// without replacement from its runs, all pass, averaged over journeys.
type PassAtK struct {
	K     int     `json:"k" jsonschema:"number of runs that must all pass"`
	Value float64 `json:"value" jsonschema:"mean over journeys of C(c,k)/C(n,k), c passes in n runs"`
}

// TokenSpend is the planner's token use.
type TokenSpend struct {
	InputTotal        int      `json:"inputTotal" jsonschema:"input (prompt) tokens over all runs"`
	OutputTotal       int      `json:"outputTotal" jsonschema:"output (completion) tokens over all runs"`
	Total             int      `json:"total" jsonschema:"input plus output tokens over all runs"`
	MeanPerJourneyRun float64  `json:"meanPerJourneyRun" jsonschema:"total tokens per journey run"`
	MeanInputPerRun   float64  `json:"meanInputPerRun" jsonschema:"input tokens per journey run"`
	MeanOutputPerRun  float64  `json:"meanOutputPerRun" jsonschema:"output tokens per journey run"`
	PerPassedRun      *float64 `json:"perPassedRun,omitempty" jsonschema:"total tokens over all runs divided by the passed runs: what one passed journey costs, failures included; absent when no run passed"`
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
// report is in: the pair comparisons (runs[p] are planner p's runs of each
// journey) and the Pareto set over the shared workload.
func (r *ComparisonReport) finish(planners []PlannerRef, runs [][]journeyRuns, info *journeyInfo) {
	for _, s := range info.shared {
		r.SharedJourneys += b2i(s)
	}
	r.Pairs = pairComparisons(r.Basis, r.MatchedRounds, planners, runs, info.ids)
	r.ParetoPlannerIDs = []string{}
	if !r.Modeled && r.SharedJourneys > 0 {
		r.ParetoPlannerIDs = paretoPlannerIDs(r.Planners)
	}
}
