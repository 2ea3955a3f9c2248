// Package limit holds the module's input bounds as constants, so that the
// root package, its MCP adapter and the programs of this module name one number
// for each. Go users read them through automium.Limits, the one public list of
// the bounds, with the validate tag and what each bounds; the constants are
// internal so that the root package's API lists each bound once.
package limit

import "github.com/automium/automium/internal/nesting"

// Input bounds. They keep bad or hostile input from costing unbounded time or
// memory, and the MCP schemas advertise them as maxItems/maxLength/maximum.
//
// Every string limit of the module counts characters (Unicode code points), as
// JSON Schema's maxLength does: the validate tags, the checks of this package,
// the MCP adapter's argument walker and its prompt arguments alike. Byte
// counts bound only whole messages, such as the raw arguments of a call.
// Each is a row of the root package's registry (automium.Limits), which is
// what struct tags, schemas, validation and docs/limits.md read: a new bound
// is a constant here and a row there, then go generate ./....
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

// Bounds of one document read by the bounded reader.
const (
	// MaxDocumentDepth bounds how deeply a document nests: JSON objects and
	// arrays, or XML elements. A Playwright report nests its 32 levels of suites
	// two JSON levels each, plus a test's results, errors and locations.
	MaxDocumentDepth = 100
	// MaxDocumentTokenBytes bounds one token: a JSON string or number, an XML
	// element's start tag with its attributes, or one run of character data.
	// The reader holds at most one token, so this, and not the document's size,
	// bounds what it buffers.
	MaxDocumentTokenBytes = 8 << 20
	// MaxDocumentMembers bounds the members of one JSON object and the
	// attributes of one XML element: the JSON decoder remembers an object's
	// names to refuse one given twice.
	MaxDocumentMembers = 1024
	// MaxDocumentNameBytes bounds a JSON member name and an XML element or
	// attribute name.
	MaxDocumentNameBytes = 256
	// MaxXMLStartTagBytes bounds one XML start tag with its attributes:
	// encoding/xml builds every attribute of a tag before it returns any, at
	// some 60 bytes each, so an 8 MiB tag of a=” once cost 250 MiB.
	MaxXMLStartTagBytes = 64 << 10
)

// MaxProblems and MaxProblemBytes bound the problems one error or one invalid
// journey lists, in number and in text counted as JSON writes it (a < takes
// six bytes there), so that the answer to a hostile input stays small: an MCP
// answer carries the list twice (readable and as JSON) under 64 KiB. The last
// listed problem then says how many more there were. They are the one cap of
// the module: the MCP adapter's argument walker lists problems under them too.
const (
	MaxProblems     = 100
	MaxProblemBytes = 24 << 10
)

// Bounds of what is kept of one report, for triage.
const (
	// MaxTriage bounds the failed or not-evaluable trials whose first error
	// message and attachments one import keeps; the rest are counted.
	MaxTriage = 100
	// MaxTriageErrorBytes bounds a kept error message.
	MaxTriageErrorBytes = 300
	// MaxTriageAttachments bounds the attachments kept of one trial.
	MaxTriageAttachments = 4
)

// MaxReports bounds the reports (shards) of one comparison.
const MaxReports = 64

// Bounds of an archive a report comes in (an Inspect AI .eval log, a zip),
// beside the bounds of the documents inside it: the archive itself is at
// most MaxPlaywrightReportBytes.
const (
	// MaxArchiveEntries bounds the entries its central directory lists: an
	// Inspect log has one per sample and epoch, and a few more.
	MaxArchiveEntries = 16384
	// MaxArchiveEntryBytes bounds what one entry decompresses to, counted as
	// it is read (a header's claim is checked too, never trusted): as much
	// as a whole report may hold.
	MaxArchiveEntryBytes = MaxPlaywrightReportBytes
	// MaxArchiveBytes bounds what all the entries read decompress to, so that
	// a zip bomb of many small entries costs at most that much work.
	MaxArchiveBytes = 8 * MaxPlaywrightReportBytes
)

// Bounds of a counts input (automium-counts-v1): one row per planner and
// journey instead of one per run.
const (
	// MaxObservedCounts bounds the rows of a counts input, as MaxObservedTrials
	// bounds trials: a report has at most one journey row per input row either
	// way, so a counts input answers no more rows than trials do.
	MaxObservedCounts = 100_000
	// MaxObservedApps bounds the distinct apps of an observed comparison
	// (trials or counts): each planner carries one rollup per app in every
	// answer, so more apps than this could not fit the comparison answer's
	// bound even with every pair left out.
	MaxObservedApps = 16
	// MaxCountRuns bounds the evaluable and the not-evaluable runs of one row.
	// Fisher's exact test of a journey builds one weight per table, and its
	// weights stay finite in float64 up to 500 runs a side (C(1000,500) is
	// about 2.7e299); it also bounds a pair's work to 1,001 weights per journey.
	MaxCountRuns = 500
	// MaxCountTokens bounds the input or output tokens of one row: 100 runs at
	// MaxTrialTokens, so that the totals of MaxObservedCounts rows stay exact
	// in a float64 (2e15, below 2^53).
	MaxCountTokens = 10_000_000_000
	// MaxCountsSnapshotBytes bounds a snapshot file read by ReadCountsSnapshot
	// (64 MiB): MaxObservedCounts rows with IDs of the longest length fit.
	MaxCountsSnapshotBytes = 64 << 20
)

// Bounds of answers: what the comparison capabilities and their Markdown
// summary write, whatever the input within the bounds above.
const (
	// MaxComparisonAnswerBytes bounds the JSON of a comparison answer (the
	// summary, the rows of named journeys, every page) as encoding/json
	// writes it: 128 KiB.
	MaxComparisonAnswerBytes = 128 << 10
	// MaxMarkdownBytes bounds the Markdown summary of a comparison report. A
	// byte-level BPE tokenizer never makes more tokens than a text has
	// bytes, so it is also a bound on the summary's tokens.
	MaxMarkdownBytes = 6000
)
