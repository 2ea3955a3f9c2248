package automium

import (
	"slices"
	"strconv"

	"github.com/automium/automium/internal/nesting"
)

// Input bounds. They keep bad or hostile input from costing unbounded time or
// memory, and the MCP schemas advertise them as maxItems/maxLength/maximum.
//
// Every string limit of the module counts characters (Unicode code points), as
// JSON Schema's maxLength does: the validate tags, the checks of this package,
// the MCP adapter's argument walker and its prompt arguments alike. Byte
// counts bound only whole messages, such as the raw arguments of a call.
// Each is listed in limits below, which is what struct tags, schemas,
// validation and docs/limits.md read: a new bound is a constant and a row
// there, then go generate ./....
const (
	MaxIDLength          = 128
	MaxTextLength        = 2000
	MaxSteps             = 200
	MaxAssertions        = 50
	MaxRecoveryRetries   = 3
	MaxArtifactEntries   = 256
	MaxPathLength        = 512
	MaxPlanners          = 16
	MaxRepetitions       = 100
	MaxAppIDs            = 32
	MaxRetryCount        = 10
	MaxObservedTrials    = 100_000
	MaxArtifactSizeBytes = 1 << 40
	// MaxTrialLatencyMs (24 hours) and MaxTrialTokens bound one observed trial, so
	// that the token totals of MaxObservedTrials trials stay exact in a float64
	// and in every JSON reader.
	MaxTrialLatencyMs = 86_400_000
	MaxTrialTokens    = 100_000_000
	// MaxSeed is 2^53-1: a larger comparison seed would not survive a round trip
	// through JSON readers that hold numbers as float64.
	MaxSeed = 1<<53 - 1

	// MaxAssumedPassPercent is the most an assumed first-attempt pass rate
	// of a modeled comparison may be, in percent (see AssumedPassRate).
	MaxAssumedPassPercent = 99
	// MaxNestingDepth is how deeply a message a client sends, and the arguments
	// in it, may nest objects and arrays: the stdio transport checks each line
	// against it, the MCP adapter's argument walker each call's arguments, and
	// canonicaljson allows twice as much, for the JSON Schemas in a catalog.
	MaxNestingDepth = nesting.MaxDepth
)

// Bounds of a Playwright JSON report. A report of MaxObservedTrials tests with
// their results fits in far less than MaxPlaywrightReportBytes; the size bound
// also bounds nesting, names and every list.
const (
	// MaxPlaywrightReportBytes bounds a report's size: 8 MiB, half of one MCP
	// message, so the report fits inline in a tool call with its escaping.
	MaxPlaywrightReportBytes = 8 << 20
	// MaxPlaywrightSuiteDepth bounds how deeply suites nest (files, describe
	// blocks within them).
	MaxPlaywrightSuiteDepth = 32
	// MaxPlaywrightResults bounds the results (attempts) of one test: the first
	// run and up to MaxRetryCount retries.
	MaxPlaywrightResults = 1 + MaxRetryCount
)

// Bounds of the contract types. A planner's context is finite, so snapshots and
// histories are bounded too, and a truncated snapshot says so.
const (
	MaxSnapshotNodes = 2000
	MaxSnapshotTabs  = 16
)

// A Limit is one of the package's input bounds, as its registry lists it.
type Limit struct {
	// Name is the constant's name, such as "MaxTextLength".
	Name string
	// Value is the constant's value.
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
	{"MaxIDLength", MaxIDLength, "max_id_length", "characters of an ID chosen by the caller: journey, planner (id, vendor, model)"},
	{"MaxTextLength", MaxTextLength, "max_text_length", "characters of free text: goal, step and assertion values; bytes of the draft_journey goal"},
	{"MaxSteps", MaxSteps, "max_steps", "steps of a journey"},
	{"MaxAssertions", MaxAssertions, "max_assertions", "assertions of a journey"},
	{"MaxRecoveryRetries", MaxRecoveryRetries, "max_recovery_retries", "recovery.maxRetries of a journey"},
	{"MaxArtifactEntries", MaxArtifactEntries, "max_artifact_entries", "entries of an artifact manifest"},
	{"MaxPathLength", MaxPathLength, "max_path_length", "characters of an artifact root or entry path"},
	{"MaxProblems", MaxProblems, "", "problems one error or one invalid journey lists; the last then says how many more there were"},
	{"MaxProblemBytes", MaxProblemBytes, "", "bytes of problem text one error or one invalid journey lists, counted as JSON writes it (a < is six bytes); the last problem then says how many more there were"},
	{"MaxPlanners", MaxPlanners, "max_planners", "planners of a comparison"},
	{"MaxRepetitions", MaxRepetitions, "max_repetitions", "repetitions of a comparison (0 or less means 1)"},
	{"MaxAssumedPassPercent", MaxAssumedPassPercent, "max_assumed_pass_percent", "assumed first-attempt pass rate of a planner, in percent (at least 1)"},
	{"MaxAppIDs", MaxAppIDs, "max_app_ids", "app IDs of a comparison"},
	{"MaxRetryCount", MaxRetryCount, "max_retry_count", "retryCount of a replay summary"},
	{"MaxObservedTrials", MaxObservedTrials, "max_observed_trials", "recorded trials of an observed comparison; tests of a Playwright report"},
	{"MaxPlaywrightReportBytes", MaxPlaywrightReportBytes, "max_playwright_report_bytes", "bytes of a Playwright JSON report (8 MiB)"},
	{"MaxPlaywrightSuiteDepth", MaxPlaywrightSuiteDepth, "", "nesting of suites in a Playwright JSON report"},
	{"MaxPlaywrightResults", MaxPlaywrightResults, "", "results (attempts) of one test in a Playwright JSON report"},
	{"MaxReports", MaxReports, "", "reports (shards) of one compare_reports call"},
	{"MaxDocumentDepth", MaxDocumentDepth, "", "levels of JSON objects and arrays or XML elements in a report read by the bounded document reader"},
	{"MaxDocumentTokenBytes", MaxDocumentTokenBytes, "", "bytes of one token of a report: a JSON string or number, an XML start tag with its attributes, a run of XML text (8 MiB)"},
	{"MaxDocumentMembers", MaxDocumentMembers, "", "members of one JSON object or attributes of one XML element in a report"},
	{"MaxDocumentNameBytes", MaxDocumentNameBytes, "", "bytes of a JSON member name or an XML element or attribute name in a report"},
	{"MaxXMLStartTagBytes", MaxXMLStartTagBytes, "", "bytes of one XML start tag with its attributes in a report (64 KiB)"},
	{"MaxTriage", MaxTriage, "", "failed or not-evaluable trials of one import kept with their first error and attachments; the rest are counted"},
	{"MaxTriageErrorBytes", MaxTriageErrorBytes, "", "bytes of the first error message kept of a trial"},
	{"MaxTriageAttachments", MaxTriageAttachments, "", "attachment paths kept of a trial (never opened)"},
	{"MaxArtifactSizeBytes", MaxArtifactSizeBytes, "max_artifact_size_bytes", "size of an artifact entry, in bytes (1 TiB)"},
	{"MaxTrialLatencyMs", MaxTrialLatencyMs, "max_trial_latency_ms", "latency of one recorded trial (24 hours)"},
	{"MaxTrialTokens", MaxTrialTokens, "max_trial_tokens", "input or output tokens of one recorded trial"},
	{"MaxSeed", MaxSeed, "max_seed", "comparison seed (2^53-1, exact in every JSON reader)"},
	{"MaxSnapshotNodes", MaxSnapshotNodes, "max_snapshot_nodes", "nodes of a semantic-snapshot-v1 snapshot (contract schema)"},
	{"MaxSnapshotTabs", MaxSnapshotTabs, "max_snapshot_tabs", "tabs of a semantic-snapshot-v1 snapshot (contract schema)"},
	{"MaxNestingDepth", MaxNestingDepth, "", "levels of objects and arrays in one message and in a tool's arguments"},
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
