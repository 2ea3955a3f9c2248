package automium

import (
	"slices"
	"strconv"

	"github.com/automium/automium/internal/limit"
)

// A Limit is one of the package's input bounds, as its registry lists it. The
// bounds keep bad or hostile input from costing unbounded time or memory, and
// the MCP schemas advertise them as maxItems, maxLength or maximum. Every
// string bound counts characters (Unicode code points), as JSON Schema's
// maxLength does; byte counts bound only whole messages and documents, such as
// a Playwright report. Limits lists them all: a Go caller reads a bound there
// by its Name.
type Limit struct {
	// Name is the bound's name, such as "MaxTextLength": docs/limits.md and the
	// module's own code call it so.
	Name string
	// Value is the bound.
	Value int64
	// Tag is the validate tag that applies the bound to a field as its upper
	// bound (max), such as "max_text_length"; empty for a bound that no field
	// tag applies.
	Tag string
	// Bounds says what the limit bounds, as docs/limits.md lists it.
	Bounds string
}

// limits is the one registry of the bounds. Struct tags name a bound by its
// Tag instead of repeating its number: the validator expands each Tag to
// max=Value (an alias), the schema derivation to maxLength, maxItems or
// maximum, and docs/limits.md lists the rows.
var limits = []Limit{
	{"MaxIDLength", limit.MaxIDLength, "max_id_length", "characters of an ID chosen by the caller: journey, planner (id, vendor, model)"},
	{"MaxTextLength", limit.MaxTextLength, "max_text_length", "characters of free text: goal, step and assertion values; bytes of the draft_journey goal"},
	{"MaxSteps", limit.MaxSteps, "max_steps", "steps of a journey"},
	{"MaxAssertions", limit.MaxAssertions, "max_assertions", "assertions of a journey"},
	{"MaxRecoveryRetries", limit.MaxRecoveryRetries, "max_recovery_retries", "recovery.maxRetries of a journey"},
	{"MaxArtifactEntries", limit.MaxArtifactEntries, "max_artifact_entries", "entries of an artifact manifest"},
	{"MaxPathLength", limit.MaxPathLength, "max_path_length", "characters of an artifact root or entry path"},
	{"MaxProblems", limit.MaxProblems, "", "problems one error or one invalid journey lists; the last then says how many more there were"},
	{"MaxProblemBytes", limit.MaxProblemBytes, "", "bytes of problem text one error or one invalid journey lists, counted as JSON writes it (a < is six bytes); the last problem then says how many more there were"},
	{"MaxPlanners", limit.MaxPlanners, "max_planners", "planners of a comparison"},
	{"MaxRepetitions", limit.MaxRepetitions, "max_repetitions", "repetitions of a comparison (0 or less means 1)"},
	{"MaxAssumedPassPercent", limit.MaxAssumedPassPercent, "max_assumed_pass_percent", "assumed first-attempt pass rate of a planner, in percent (at least 1)"},
	{"MaxAppIDs", limit.MaxAppIDs, "max_app_ids", "app IDs of a comparison"},
	{"MaxRetryCount", limit.MaxRetryCount, "max_retry_count", "retryCount of a replay summary"},
	{"MaxObservedTrials", limit.MaxObservedTrials, "max_observed_trials", "recorded trials of an observed comparison; tests of a Playwright report"},
	{"MaxObservedApps", limit.MaxObservedApps, "", "distinct apps of an observed comparison (trials, counts or reports)"},
	{"MaxObservedCounts", limit.MaxObservedCounts, "max_observed_counts", "rows (one per planner and journey) of a counts input"},
	{"MaxCountRuns", limit.MaxCountRuns, "max_count_runs", "evaluable runs, or not-evaluable runs, of one counts row"},
	{"MaxCountTokens", limit.MaxCountTokens, "max_count_tokens", "input or output tokens of one counts row"},
	{"MaxCountsSnapshotBytes", limit.MaxCountsSnapshotBytes, "max_counts_snapshot_bytes", "bytes of a counts snapshot (64 MiB), read from a file or given as text"},
	{"MaxPlaywrightReportBytes", limit.MaxPlaywrightReportBytes, "max_playwright_report_bytes", "bytes of a Playwright JSON report (8 MiB)"},
	{"MaxPlaywrightSuiteDepth", limit.MaxPlaywrightSuiteDepth, "", "nesting of suites in a Playwright JSON report"},
	{"MaxPlaywrightResults", limit.MaxPlaywrightResults, "", "results (attempts) of one test in a Playwright JSON report"},
	{"MaxReports", limit.MaxReports, "", "reports (shards) of one compare_reports call"},
	{"MaxDocumentDepth", limit.MaxDocumentDepth, "", "levels of JSON objects and arrays or XML elements in a report read by the bounded document reader"},
	{"MaxDocumentTokenBytes", limit.MaxDocumentTokenBytes, "", "bytes of one token of a report: a JSON string or number, an XML start tag with its attributes, a run of XML text (8 MiB)"},
	{"MaxDocumentMembers", limit.MaxDocumentMembers, "", "members of one JSON object or attributes of one XML element in a report"},
	{"MaxDocumentNameBytes", limit.MaxDocumentNameBytes, "", "bytes of a JSON member name or an XML element or attribute name in a report"},
	{"MaxXMLStartTagBytes", limit.MaxXMLStartTagBytes, "", "bytes of one XML start tag with its attributes in a report (64 KiB)"},
	{"MaxArchiveEntries", limit.MaxArchiveEntries, "", "entries of a zip archive a report comes in (an Inspect AI .eval log)"},
	{"MaxArchiveEntryBytes", limit.MaxArchiveEntryBytes, "", "bytes one entry of such an archive decompresses to, counted as it is read (8 MiB)"},
	{"MaxArchiveBytes", limit.MaxArchiveBytes, "", "bytes all the entries read of one archive decompress to (64 MiB)"},
	{"MaxTriage", limit.MaxTriage, "", "failed or not-evaluable trials of one import kept with their first error and attachments; the rest are counted"},
	{"MaxTriageErrorBytes", limit.MaxTriageErrorBytes, "", "bytes of the first error message kept of a trial"},
	{"MaxTriageAttachments", limit.MaxTriageAttachments, "", "attachment paths kept of a trial (never opened)"},
	{"MaxArtifactSizeBytes", limit.MaxArtifactSizeBytes, "max_artifact_size_bytes", "size of an artifact entry, in bytes (1 TiB)"},
	{"MaxTrialLatencyMs", limit.MaxTrialLatencyMs, "max_trial_latency_ms", "latency of one recorded trial (24 hours)"},
	{"MaxTrialTokens", limit.MaxTrialTokens, "max_trial_tokens", "input or output tokens of one recorded trial"},
	{"MaxSeed", limit.MaxSeed, "max_seed", "comparison seed (2^53-1, exact in every JSON reader)"},
	{"MaxSnapshotNodes", limit.MaxSnapshotNodes, "max_snapshot_nodes", "nodes of a semantic-snapshot-v1 snapshot (contract schema)"},
	{"MaxSnapshotTabs", limit.MaxSnapshotTabs, "max_snapshot_tabs", "tabs of a semantic-snapshot-v1 snapshot (contract schema)"},
	{"MaxNestingDepth", limit.MaxNestingDepth, "", "levels of objects and arrays in one message and in a tool's arguments"},
	{"MaxComparisonAnswerBytes", limit.MaxComparisonAnswerBytes, "", "bytes of the JSON of a comparison answer (summary, named journeys or a page; 128 KiB), rows beyond it counted in rows"},
	{"MaxMarkdownBytes", limit.MaxMarkdownBytes, "", "bytes (so tokens) of the Markdown summary of a comparison report (WriteMarkdown)"},
}

// Limits returns the package's input bounds, in the order docs/limits.md lists
// them: the one registry that the struct tags name, that validation and the
// JSON Schemas apply and that the MCP adapter reads, in memory, for bounds of
// its own. The slice is the caller's to keep.
func Limits() []Limit { return slices.Clone(limits) }

// limitTag returns the validate rule a bound's tag stands for ("max", "2000"),
// and whether tag names a bound.
func limitTag(tag string) (rule, bool) {
	i := slices.IndexFunc(limits, func(l Limit) bool { return l.Tag != "" && l.Tag == tag })
	if i < 0 {
		return rule{}, false
	}
	return rule{tag: "max", param: strconv.FormatInt(limits[i].Value, 10)}, true
}
