// Package automium is the contract layer of Automium, a QA platform for agentic
// browser testing. It exposes the owned benchmark corpus, the frozen planner intent
// vocabulary, journey compilation, modeled run submissions, replay summaries,
// artifact manifests and planner comparison reports as plain, validated Go
// functions. The documents exchanged with the rest of a platform (planner
// requests and decisions, semantic snapshots, replay events) and their checks
// are package [github.com/automium/automium/contract], which builds on this one.
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
//			{Intent: automium.IntentNavigate, Value: "/"},
//			{Intent: automium.IntentFill, Target: &automium.Target{Role: automium.RoleSearchbox, Name: "Search products"}, Value: "kettle"},
//			{Intent: automium.IntentPressKey, Value: "Enter"},
//			{Intent: automium.IntentClick, Target: &automium.Target{Role: automium.RoleButton, Name: "Add to cart"}},
//		},
//		Assertions: []automium.Assertion{{Kind: automium.AssertTextVisible, Value: "Added to cart"}},
//		Recovery:   automium.Recovery{MaxRetries: 1, Strategies: []automium.RecoveryStrategy{automium.RecoveryRetryStep}},
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
// data is the corpus compiled in as Go values (corpus_data.go, which go generate
// writes from corpus/corpus.json). Every output a
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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
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
	ComparisonReportVersion = "planner-comparison-v3"
	// PlannerAdapterVersion names the contract between the runtime and a planner
	// backend: one PlannerRequest in, one PlannerDecision out.
	PlannerAdapterVersion = "planner-adapter-v1"
	// SemanticSnapshotVersion names the accessibility-tree snapshot format planners
	// see instead of raw DOM.
	SemanticSnapshotVersion = "semantic-snapshot-v1"
	// CorpusVersion is the version of the owned benchmark corpus embedded in this
	// build. Comparison reports and listings carry it so results from different
	// corpora are never mixed silently.
	CorpusVersion = "owned-corpus-2026.11"
	// PlaywrightSpecVersion names the format of an exported Playwright Test spec:
	// the mapping of every intent, assertion and recovery strategy in
	// docs/playwright-export.md. The same journey and options give the same bytes
	// within a version.
	PlaywrightSpecVersion = "playwright-spec-v1"
	// ReplayEventVersion names the replay event contract a replay stream speaks.
	ReplayEventVersion = "replay-event-v1"
)

// The notices an output carries in its notice field, so that no agent or
// reader mistakes a contract-shaped or aggregated answer for evidence of a
// run that Automium made.
const (
	// ModeledNotice is the one-line statement that accompanies every modeled output.
	// It exists so that no agent or reader mistakes a contract-shaped answer for evidence
	// of a real browser run.
	ModeledNotice = "Modeled output: nothing was enqueued, leased, executed, fetched or written; no browser or planner provider was involved."
	// ModeledComparisonNotice accompanies every modeled comparison report. Every
	// planner draws from one shared model, so the numbers must not be read as a
	// ranking of the real planners they are named after.
	ModeledComparisonNotice = "Modeled output: every trial is a deterministic draw from one documented model shared by every planner (an A/A baseline: differences are chance), no planner was called and no journey was executed, so these numbers do not rank real planners."
	// ModeledAssumedNotice replaces [ModeledComparisonNotice] when the caller
	// stated assumed pass rates: the draws then follow the caller's assumptions,
	// not an A/A baseline, and still measure nothing.
	ModeledAssumedNotice = "Modeled output: every trial is a deterministic draw from one documented model whose per-planner pass rates are the caller's assumed rates, no planner was called and no journey was executed, so these numbers plan an experiment and do not rank real planners."
	// ObservedNotice accompanies every observed comparison report. Automium only
	// aggregates what it is given, so the report must not read as if automium had run
	// or checked those trials.
	ObservedNotice = "Observed output: aggregated from trials recorded elsewhere and supplied by the caller; automium executed nothing and did not verify them."
)

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

// Error is the single error type returned by this package. It holds the
// problems of one call, at least one, in the order documented at [Problem]; the
// first leads, so e.Code, e.Message, e.Field and e.Allowed are the first
// problem's. Build one with [Join].
//
// Its JSON form, which the MCP adapter passes on to clients, is the leading
// problem's code, message, field and allowed values, plus "problems" listing
// every problem when there is more than one.
type Error struct {
	// Problem is the first problem found, which leads.
	Problem
	// rest are the problems after the first, in order.
	rest []Problem
}

// Problem is one problem of an input: what [Error.Problems] lists, and what an
// invalid journey's [CompileJourneyResult] lists.
//
// A problem keeps the client value it is about as data, not as text: its
// message is written from that data by one renderer, which quotes every client
// value cut to a short prefix and its length (so no message grows with the
// input) and, through [Problem.MessageIn], names capabilities in the words of
// its reader. Message is that rendering in Go words.
//
// Problems are listed in one order everywhere, by the root package and by the
// MCP adapter alike: by path, each step of a path ranked as the input's
// declared fields are (the order its JSON Schema lists them) and list elements
// by index, a field before the fields below it; problems at one path in the
// order they were found; a path the input type does not have (an unknown
// property) after the paths it has, in the order found.
type Problem struct {
	Code    Code     `json:"code" jsonschema:"stable snake_case error code, e.g. invalid_app_id"`
	Message string   `json:"message" jsonschema:"what is wrong and how to fix it"`
	Field   string   `json:"field,omitempty" jsonschema:"JSON path of the offending input field, e.g. steps[2].intent"`
	Allowed []string `json:"allowed,omitempty" jsonschema:"the accepted values, sorted, when the field takes a closed set"`

	// path is where the problem is; Field is its rendering.
	path Path
	// text is the message as data; Message is its rendering in Go words.
	text echo.Message
}

// ClientValue marks a string a client sent among the arguments of a message
// ([NewProblem]): the renderer writes it cut to a short prefix and its length,
// whatever the verb, so that no message grows with the input.
type ClientValue = echo.Value

// NewProblem makes a problem at a path. The format is the caller's own words;
// every client value among args must be a [ClientValue]. Allowed is copied and
// sorted.
//
// It is how adapters (an argument decoder, say) report problems of their own
// the way the capabilities do; [Join] makes them one error.
func NewProblem(code Code, at Path, allowed []string, format string, args ...any) Problem {
	return newProblem(code, at, allowed, echo.Msg(format, args...))
}

// newProblem renders a problem's message once, in Go words, and its path.
func newProblem(code Code, at Path, allowed []string, text echo.Message) Problem {
	var sorted []string
	if len(allowed) > 0 {
		sorted = slices.Clone(allowed)
		slices.Sort(sorted)
	}
	return Problem{Code: code, Message: text.Render(nil), Field: at.String(), Allowed: sorted, path: at, text: text}
}

// Path is where the problem is.
func (p Problem) Path() Path { return p.path }

// MessageIn renders the message with capabilities named by words instead of
// by their Go names: the MCP adapter names them as tools. A problem made
// without this package's constructors (a literal) has only its Message.
func (p Problem) MessageIn(words func(goName string) string) string {
	if p.text.IsZero() {
		return p.Message
	}
	return p.text.Render(words)
}

// Equal reports whether p and q say the same: code, message, field and allowed
// values. It lets go-cmp compare problems by what a reader sees.
func (p Problem) Equal(q Problem) bool {
	return p.Code == q.Code && p.Message == q.Message && p.Field == q.Field && slices.Equal(p.Allowed, q.Allowed)
}

// Err returns the problem as an error.
func (p Problem) Err() *Error { return &Error{Problem: p} }

// Problems lists every problem of the error, the leading one first.
func (e *Error) Problems() []Problem {
	out := make([]Problem, 0, 1+len(e.rest))
	return append(append(out, e.Problem), e.rest...)
}

// Join returns nil when there are no problems, and otherwise one *Error that
// holds them all, in the order given, cut to [MaxProblems] problems and
// [MaxProblemBytes] of text (the last listed then says how many more there
// were). Its result is a plain error so that "no problems" is a nil error,
// never a nil *Error inside a non-nil error.
func Join(problems ...Problem) error {
	if len(problems) == 0 {
		return nil
	}
	// The first problem is always listed; a problem's text is bounded (client
	// values are cut), so one is far below the budget.
	keep, size := 1, problemBytes(problems[0])
	for keep < len(problems) && keep < limit.MaxProblems {
		size += problemBytes(problems[keep])
		if size > limit.MaxProblemBytes-noteBytes {
			break
		}
		keep++
	}
	if keep < len(problems) {
		if keep == limit.MaxProblems {
			keep-- // room for the note
		}
		problems = append(slices.Clip(problems[:keep]), newProblem(CodeLimitExceeded, Path{}, nil,
			echo.Msg("%d more problems are not listed; fix these and call again", len(problems)-keep)))
	}
	return &Error{Problem: problems[0], rest: slices.Clone(problems[1:])}
}

// noteBytes is room for the note that says how many problems were not listed.
const noteBytes = 256

// problemBytes is the size of p's text as JSON writes it, escaping < > & as
// encoding/json does (six bytes each): what an answer that lists p carries.
func problemBytes(p Problem) int {
	n := 48 + jsonBytes(p.Message) + jsonBytes(p.Field) // keys and punctuation
	for _, a := range p.Allowed {
		n += 3 + jsonBytes(a)
	}
	return n
}

func jsonBytes(s string) int {
	n := len(s)
	for _, r := range s {
		switch {
		case r == '<' || r == '>' || r == '&' || r < 0x20 || r == '\u2028' || r == '\u2029':
			n += 5
		case r == '"' || r == '\\':
			n++
		}
	}
	return n
}

// errorJSON is the JSON form of an Error.
type errorJSON struct {
	Code     Code      `json:"code"`
	Message  string    `json:"message"`
	Field    string    `json:"field,omitempty"`
	Allowed  []string  `json:"allowed,omitempty"`
	Problems []Problem `json:"problems,omitempty"`
}

// MarshalJSON writes the leading problem's code, message, field and allowed
// values, and every problem under "problems" when there is more than one.
func (e *Error) MarshalJSON() ([]byte, error) {
	return json.Marshal(e.wire(nil))
}

// wire is the JSON form of e, with messages in the given words.
func (e *Error) wire(words func(string) string) errorJSON {
	out := errorJSON{Code: e.Code, Message: e.MessageIn(words), Field: e.Field, Allowed: e.Allowed}
	if len(e.rest) > 0 {
		out.Problems = make([]Problem, 0, 1+len(e.rest))
		for _, p := range e.Problems() {
			p.Message = p.MessageIn(words)
			out.Problems = append(out.Problems, p)
		}
	}
	return out
}

// UnmarshalJSON reads the JSON form MarshalJSON writes, so that a Go client
// of the MCP adapter can read an error back. The problems read have a Field
// and a Message, and no path or data of their own.
func (e *Error) UnmarshalJSON(b []byte) error {
	var w errorJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if len(w.Problems) == 0 {
		w.Problems = []Problem{{Code: w.Code, Message: w.Message, Field: w.Field, Allowed: w.Allowed}}
	}
	*e = Error{Problem: w.Problems[0], rest: w.Problems[1:]}
	return nil
}

// JSONIn is the JSON form of e, as [Error.MarshalJSON] writes it, with
// capabilities named by words: the MCP adapter names them as tools.
//
// It leaves <, > and & unescaped: they are common in client values (a pasted
// snippet, a hostile name) and \u003c takes six bytes for one.
func (e *Error) JSONIn(words func(goName string) string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e.wire(words)); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Error formats the problem the way a log line needs it: the code, the field, the
// message and the allowed values, then any further problems, as in
// "automium: invalid_app_id: appId: "x" is not ... (allowed: banking, ...)".
func (e *Error) Error() string { return "automium: " + e.TextIn(nil) }

// TextIn renders the error as Error does, without its "automium: " prefix,
// with capabilities named by words.
func (e *Error) TextIn(words func(goName string) string) string {
	var b strings.Builder
	if len(e.rest) > 0 {
		fmt.Fprintf(&b, "%d problems: ", 1+len(e.rest))
		for i, p := range e.Problems() {
			if i > 0 {
				b.WriteString("; ")
			}
			p.write(&b, words)
		}
		return b.String()
	}
	e.Problem.write(&b, words)
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
func (p Problem) write(b *strings.Builder, words func(string) string) {
	b.WriteString(string(p.Code))
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	b.WriteString(p.MessageIn(words))
	if len(p.Allowed) > 0 {
		b.WriteString(" (allowed: ")
		b.WriteString(strings.Join(p.Allowed, ", "))
		b.WriteString(")")
	}
}

// String renders the problem as "code: field: message (allowed: a, b)".
func (p Problem) String() string { return p.TextIn(nil) }

// TextIn renders the problem as String does, with capabilities named by words.
func (p Problem) TextIn(words func(goName string) string) string {
	var b strings.Builder
	p.write(&b, words)
	return b.String()
}

// checkContext is the first check of every capability. A nil context is a
// programming error that would otherwise panic deep inside; a done context
// ends the call with an *Error that wraps the context's error, so that callers
// can use errors.As for the code and errors.Is for the cause alike.
func checkContext(ctx context.Context) error {
	if ctx == nil {
		return newError(CodeInvalidArgument, Path{}, nil, "ctx is nil; pass context.Background() or the context of the request being served")
	}
	switch err := ctx.Err(); {
	case errors.Is(err, context.DeadlineExceeded):
		return newError(CodeDeadlineExceeded, Path{}, nil, "the call's deadline passed before it finished; call it again with more time")
	case err != nil:
		return newError(CodeCanceled, Path{}, nil, "the call was canceled before it finished; call it again with a live context")
	}
	return nil
}

// newError builds an *Error of one problem. Its client values must be marked
// echo.Value: the one renderer quotes them (see [Problem]).
func newError(code Code, at Path, allowed []string, format string, args ...any) *Error {
	return newProblem(code, at, allowed, echo.Msg(format, args...)).Err()
}

// internalError wraps a failure that no input could cause, keeping the cause out of
// the message so nothing internal leaks to a client.
func internalError(what string) *Error {
	return newError(CodeInternal, Path{}, nil, "internal error while %s; this is a bug in automium, please report it", what)
}
