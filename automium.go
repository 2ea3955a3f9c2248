// Package automium is the contract layer of Automium, a QA platform for agentic
// browser testing. It exposes the owned benchmark corpus, the frozen planner intent
// vocabulary, journey compilation, modeled run submissions, replay summaries,
// artifact manifests and planner comparison reports as plain, validated Go
// functions.
//
// Quick start:
//
//	apps, err := automium.ListApps(ctx, automium.ListAppsInput{})
//	if err != nil {
//		log.Fatal(err)
//	}
//	fmt.Println(apps.CorpusVersion, len(apps.Apps))
//
//	res, err := automium.CompileJourney(ctx, automium.CompileJourneyInput{
//		ID:        "storefront-search-add-to-cart",
//		AppID:     "storefront",
//		FixtureID: "storefront-guest-catalog",
//		Goal:      "Find a kettle and add it to the cart",
//		Steps: []automium.Step{
//			{Intent: "navigate", Value: "/"},
//			{Intent: "fill", Target: &automium.Target{Role: "searchbox", Name: "Search products"}, Value: "kettle"},
//			{Intent: "press_key", Value: "Enter"},
//			{Intent: "click", Target: &automium.Target{Role: "button", Name: "Add to cart"}},
//		},
//		Assertions: []automium.Assertion{{Kind: "text_visible", Value: "Added to cart"}},
//		Recovery:   automium.Recovery{MaxRetries: 1, Strategies: []string{"retry_step"}},
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	fmt.Println(res.Valid, res.Journey.Digest)
//
// # Modeled, never executed
//
// Version 1 models runs: nothing here launches a browser, calls a planner
// provider, opens a socket, reads a credential or touches the filesystem. The only
// data read is the corpus embedded in the binary with go:embed. Every output a
// reader could mistake for execution carries modeled: true and a notice saying so.
//
// # Determinism
//
// The same input gives byte-identical output: there is no clock, no unseeded
// randomness and no map iteration in any output. Identifiers such as run IDs and
// digests are hashes of canonical input, so repeating a call is idempotent.
//
// # Errors
//
// Every failure is an [*Error] with a stable [Code], a plain-English message that
// says how to fix the input, the JSON path of the offending field and, for closed
// sets, the allowed values. Use [errors.As] to inspect it. An input with several
// problems gets one error that lists them all in [Error.Problems], in the order
// a reader meets the fields, so a caller can fix everything in one round trip.
//
// One rule decides the channel of a problem. A problem with the input's shape
// or bounds (a value too long, a list too large, a number above its maximum) is
// always the returned error. A problem with what the input means is the
// domain's answer where the result has room for one: [CompileJourney] reports
// such problems in its result, with Valid false; the other capabilities have no
// such result, so for them it is the returned error too.
//
// A nil context is an invalid_argument error; a done context is an error with
// code canceled or deadline_exceeded that [errors.Is] matches with
// [context.Canceled] or [context.DeadlineExceeded]. Client-supplied values that a
// message quotes are cut to a short prefix with their length, so no error grows
// with the input.
//
// # Concurrency
//
// Every function in this package is safe for concurrent use: the corpus and the
// caches built on first use (the validator, reference digests, comparison
// models) are immutable once built, and no function keeps state between calls.
package automium

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Versions of the contracts this package speaks. They are part of every output that
// exposes the matching domain model, so a consumer can detect drift.
const (
	// IntentVocabularyVersion names the frozen planner intent vocabulary.
	IntentVocabularyVersion = "planner-intent-v1"
	// JourneyGraphVersion names the compiled journey graph format.
	JourneyGraphVersion = "journey-graph-v1"
	// RunSubmissionVersion names the modeled run submission format.
	RunSubmissionVersion = "run-submission-v1"
	// ReplaySummaryVersion names the replay summary format.
	ReplaySummaryVersion = "replay-summary-v1"
	// ArtifactManifestVersion names the artifact manifest format.
	ArtifactManifestVersion = "artifact-manifest-v1"
	// ComparisonReportVersion names the planner comparison report format.
	ComparisonReportVersion = "planner-comparison-v1"
)

// ModeledNotice is the one-line statement that accompanies every modeled output.
// It exists so that no agent or reader mistakes a contract-shaped answer for evidence
// of a real browser run.
const ModeledNotice = "Modeled output: nothing was enqueued, leased, executed, fetched or written; no browser or planner provider was involved."

// Code classifies an [*Error]. Codes are stable snake_case strings: clients may
// switch on them, and new codes are only ever added.
type Code string

// The error codes. Messages may change between versions; codes do not.
const (
	CodeInvalidArgument           Code = "invalid_argument"
	CodeInvalidAppID              Code = "invalid_app_id"
	CodeInvalidFixtureID          Code = "invalid_fixture_id"
	CodeFixtureAppMismatch        Code = "fixture_app_mismatch"
	CodeInvalidEnvironmentProfile Code = "invalid_environment_profile"
	CodeUnsupportedIntent         Code = "unsupported_intent"
	CodeInvalidArtifactKind       Code = "invalid_artifact_kind"
	CodeInvalidArtifactPath       Code = "invalid_artifact_path"
	CodeUnsupportedCorpusVersion  Code = "unsupported_corpus_version"
	CodeMalformedPlanner          Code = "malformed_planner"
	CodeUnsupportedResource       Code = "unsupported_resource"
	CodeUnsupportedOperation      Code = "unsupported_operation"
	CodeLimitExceeded             Code = "limit_exceeded"
	CodeInternal                  Code = "internal"
	// CodeCanceled and CodeDeadlineExceeded say the caller's context ended
	// before the call finished. errors.Is matches such an error with
	// context.Canceled and context.DeadlineExceeded respectively.
	CodeCanceled         Code = "canceled"
	CodeDeadlineExceeded Code = "deadline_exceeded"
)

// Error is the single error type returned by this package. Its fields are exported
// and JSON-tagged so that adapters can pass it on to clients unchanged.
//
// The zero value is not useful; errors are built by this package.
type Error struct {
	// Stable snake_case error code, e.g. invalid_app_id.
	Code Code `json:"code" jsonschema:"stable snake_case error code, e.g. invalid_app_id"`
	// What is wrong and how to fix it.
	Message string `json:"message" jsonschema:"what is wrong and how to fix it"`
	// JSON path of the offending input field, e.g. steps[2].intent.
	Field string `json:"field,omitempty" jsonschema:"JSON path of the offending input field, e.g. steps[2].intent"`
	// The accepted values, sorted, when the field takes a closed set.
	Allowed []string `json:"allowed,omitempty" jsonschema:"the accepted values, sorted, when the field takes a closed set"`
	// Every problem found, when there is more than one; the top-level code, message
	// and field are the first's.
	Problems []Problem `json:"problems,omitempty" jsonschema:"every problem found, when there is more than one; the top-level code, message and field are the first's"`
}

// Problem is one problem of an input: what [Error.Problems] lists, and what an
// invalid journey's [CompileJourneyResult] lists. Its fields mean what the
// [Error] fields of the same names mean.
type Problem struct {
	// Stable snake_case error code, e.g. invalid_app_id.
	Code Code `json:"code" jsonschema:"stable snake_case error code, e.g. invalid_app_id"`
	// What is wrong and how to fix it.
	Message string `json:"message" jsonschema:"what is wrong and how to fix it"`
	// JSON path of the offending input field, e.g. steps[2].intent.
	Field string `json:"field,omitempty" jsonschema:"JSON path of the offending input field, e.g. steps[2].intent"`
	// The accepted values, sorted, when the field takes a closed set.
	Allowed []string `json:"allowed,omitempty" jsonschema:"the accepted values, sorted, when the field takes a closed set"`
}

// problem is e without its list of problems.
func (e *Error) problem() Problem {
	return Problem{Code: e.Code, Message: e.Message, Field: e.Field, Allowed: e.Allowed}
}

// Join returns nil for no errors, the error itself for one, and for several
// the first with every one listed in Problems: one error for every problem of
// an input. Adapters that find problems of their own (an argument decoder, say)
// report them with it the way the capabilities do.
func Join(problems ...*Error) *Error {
	switch len(problems) {
	case 0:
		return nil
	case 1:
		return problems[0]
	}
	first := *problems[0]
	first.Problems = make([]Problem, 0, len(problems))
	for _, p := range problems {
		if len(p.Problems) > 0 {
			first.Problems = append(first.Problems, p.Problems...)
			continue
		}
		first.Problems = append(first.Problems, p.problem())
	}
	return &first
}

// Error formats the problem the way a log line needs it: the code, the field, the
// message and the allowed values, then any further problems, as in
// "automium: invalid_app_id: appId: "x" is not ... (allowed: banking, ...)".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("automium: ")
	if len(e.Problems) > 1 {
		fmt.Fprintf(&b, "%d problems: ", len(e.Problems))
		for i := range e.Problems {
			if i > 0 {
				b.WriteString("; ")
			}
			e.Problems[i].write(&b)
		}
		return b.String()
	}
	e.problem().write(&b)
	return b.String()
}

// Is makes errors.Is(err, context.Canceled) and errors.Is(err,
// context.DeadlineExceeded) true for the error of a call whose context ended, so
// a caller can test for the cause as with any Go API, and use errors.As for the
// code, with one error type.
func (e *Error) Is(target error) bool {
	switch e.Code {
	case CodeCanceled:
		return target == context.Canceled
	case CodeDeadlineExceeded:
		return target == context.DeadlineExceeded
	}
	return false
}

// write renders the problem as "code: field: message (allowed: a, b)".
func (p Problem) write(b *strings.Builder) {
	b.WriteString(string(p.Code))
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	if len(p.Allowed) > 0 {
		b.WriteString(" (allowed: ")
		b.WriteString(strings.Join(p.Allowed, ", "))
		b.WriteString(")")
	}
}

// String renders the problem as "code: field: message (allowed: a, b)".
func (p Problem) String() string {
	var b strings.Builder
	p.write(&b)
	return b.String()
}

// checkContext is the first check of every capability. A nil context is a
// programming error that would otherwise panic deep inside; a done context
// ends the call with an *Error that wraps the context's error, so that callers
// can use errors.As for the code and errors.Is for the cause alike.
func checkContext(ctx context.Context) error {
	if ctx == nil {
		return newError(CodeInvalidArgument, "", nil, "ctx is nil; pass context.Background() or the context of the request being served")
	}
	switch err := ctx.Err(); {
	case errors.Is(err, context.DeadlineExceeded):
		return newError(CodeDeadlineExceeded, "", nil, "the call's deadline passed before it finished; call it again with more time")
	case err != nil:
		return newError(CodeCanceled, "", nil, "the call was canceled before it finished; call it again with a live context")
	}
	return nil
}

// newError builds an *Error with a sorted copy of allowed, so callers never have to
// remember to sort and every message lists values in the same order.
func newError(code Code, field string, allowed []string, format string, args ...any) *Error {
	var sorted []string
	if len(allowed) > 0 {
		sorted = slices.Clone(allowed)
		slices.Sort(sorted)
	}
	return &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...), Allowed: sorted}
}

// internalError wraps a failure that no input could cause, keeping the cause out of
// the message so nothing internal leaks to a client.
func internalError(what string) *Error {
	return &Error{Code: CodeInternal, Message: "internal error while " + what + "; this is a bug in automium, please report it"}
}

// Input bounds. They keep bad or hostile input from costing unbounded time or
// memory, and the MCP schemas advertise them as maxItems/maxLength/maximum.
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
)
