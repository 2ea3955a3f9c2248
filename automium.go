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
// sets, the allowed values. Use [errors.As] to inspect it.
//
// # Concurrency
//
// Every function in this package is safe for concurrent use: the corpus is
// immutable after package initialisation and no function keeps state between calls.
package automium

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
	"github.com/go-playground/validator/v10/non-standard/validators"
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
)

// Error is the single error type returned by this package. Its fields are exported
// and JSON-tagged so that adapters can pass it on to clients unchanged.
//
// The zero value is not useful; errors are built by this package.
type Error struct {
	// Code is the stable classification of the problem.
	Code Code `json:"code" jsonschema:"stable snake_case error code, e.g. invalid_app_id"`
	// Message says what is wrong and how to fix it, in plain English.
	Message string `json:"message" jsonschema:"what is wrong and how to fix it"`
	// Field is the JSON path of the offending input, such as steps[2].intent.
	Field string `json:"field,omitempty" jsonschema:"JSON path of the offending input field, e.g. steps[2].intent"`
	// Allowed lists the accepted values, sorted, when the field takes a closed set.
	Allowed []string `json:"allowed,omitempty" jsonschema:"the accepted values, sorted, when the field takes a closed set"`
	// Problems lists every problem found when there is more than one, in input
	// order; Code, Message, Field and Allowed are then those of the first. A caller
	// that fixes one problem at a time would need a round trip per problem, so an
	// input's shape and bound problems are reported together.
	Problems []Error `json:"problems,omitempty" jsonschema:"every problem found, when there is more than one; the top-level code, message and field are the first's"`
}

// joinProblems returns nil for no problems, the problem itself for one, and for
// several the first with every problem listed in Problems.
func joinProblems(problems []*Error) *Error {
	switch len(problems) {
	case 0:
		return nil
	case 1:
		return problems[0]
	}
	first := *problems[0]
	first.Problems = make([]Error, len(problems))
	for i, p := range problems {
		first.Problems[i] = *p
	}
	return &first
}

// Error formats the problem as "automium: field: message".
func (e *Error) Error() string {
	if e.Field == "" {
		return "automium: " + e.Message
	}
	return "automium: " + e.Field + ": " + e.Message
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

// validator is the process-wide validator. It is built once, on first use, because
// the validator caches struct metadata per instance and custom tags must all be
// registered (by the package-level registerTag calls in each file) before it is
// built.
var validatorOnce = sync.OnceValue(newValidator)

// customTag describes a validate tag backed by a closed set that this package
// owns. The set doubles as the JSON Schema enum and the error's allowed values.
type customTag struct {
	code   Code
	noun   string
	values func() []string
}

// customTags maps each corpus- or vocabulary-backed validate tag to its closed set.
// Adapters read it through [TagValues] so schemas and validation cannot drift.
var customTags = map[string]customTag{}

// registerTag adds a custom validate tag. It runs during package initialisation
// only, from each file that owns a closed set, so the set lives next to its domain.
func registerTag(tag string, code Code, noun string, values func() []string) struct{} {
	if _, dup := customTags[tag]; dup {
		panic("automium: validate tag registered twice: " + tag)
	}
	customTags[tag] = customTag{code: code, noun: noun, values: values}
	return struct{}{}
}

// TagValues returns the closed set behind a custom validate tag of this package,
// sorted, and whether the tag is one. Adapters use it to turn validate tags into
// JSON Schema enums, so that what a schema advertises is exactly what validation
// accepts.
func TagValues(tag string) ([]string, bool) {
	t, ok := customTags[tag]
	if !ok {
		return nil, false
	}
	v := slices.Clone(t.values())
	slices.Sort(v)
	return v, true
}

// patternTag is a validate tag backed by a regular expression, advertised to
// schemas as a pattern.
type patternTag struct {
	re   *regexp.Regexp
	desc string
}

var patternTags = map[string]patternTag{}

// registerPattern adds a pattern-backed validate tag during package initialisation.
func registerPattern(tag, expr, desc string) struct{} {
	if _, dup := patternTags[tag]; dup {
		panic("automium: validate tag registered twice: " + tag)
	}
	patternTags[tag] = patternTag{re: regexp.MustCompile(expr), desc: desc}
	return struct{}{}
}

// tagPattern returns the regular expression behind a pattern validate tag of this
// package, and whether the tag is one, so JSONSchema can advertise it as a pattern.
func tagPattern(tag string) (string, bool) {
	t, ok := patternTags[tag]
	if !ok {
		return "", false
	}
	return t.re.String(), true
}

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	for tag, t := range customTags {
		// The closed sets are fixed by the end of package initialisation, before
		// the validator is first built, so each becomes a set once, here, instead
		// of being scanned (or, for ContractNames, rebuilt) on every validation.
		values := t.values()
		set := make(map[string]struct{}, len(values))
		for _, s := range values {
			set[s] = struct{}{}
		}
		err := v.RegisterValidation(tag, func(fl validator.FieldLevel) bool {
			_, ok := set[fl.Field().String()]
			return ok
		})
		if err != nil {
			panic("automium: registering validate tag " + tag + ": " + err.Error())
		}
	}
	// Required text must say something: the validator's required accepts "  ".
	if err := v.RegisterValidation("notblank", validators.NotBlank); err != nil {
		panic("automium: registering validate tag notblank: " + err.Error())
	}
	for tag, t := range patternTags {
		re := t.re
		err := v.RegisterValidation(tag, func(fl validator.FieldLevel) bool {
			return re.MatchString(fl.Field().String())
		})
		if err != nil {
			panic("automium: registering validate tag " + tag + ": " + err.Error())
		}
	}
	return v
}

// validateStruct runs the shared validator over in and converts every field error
// into an *Error, in the order the validator reports them (struct field order).
func validateStruct(in any) []*Error {
	err := validatorOnce().Struct(in)
	if err == nil {
		return nil
	}
	var fieldErrs validator.ValidationErrors
	if !errors.As(err, &fieldErrs) {
		return []*Error{internalError("validating input")}
	}
	out := make([]*Error, 0, len(fieldErrs))
	for _, fe := range fieldErrs {
		e := fieldError(fe)
		if fe.Tag() == "required" {
			closedSetHint(e, reflect.TypeOf(in), fe.StructNamespace())
		}
		out = append(out, e)
	}
	return out
}

// closedSetHint completes the error for a missing field that takes a value from a
// closed set: the validator reports only the failed required rule, but the fix is
// to pick one of the set's values, so the error names them.
func closedSetHint(e *Error, root reflect.Type, structNamespace string) {
	t := root
	var tag string
	segments := strings.Split(structNamespace, ".")
	for _, seg := range segments[1:] {
		name, indexed := strings.CutSuffix(seg, "]")
		name, _, _ = strings.Cut(name, "[")
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		f, ok := t.FieldByName(name)
		if !ok {
			return
		}
		t, tag = f.Type, f.Tag.Get("validate")
		if indexed {
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			t = t.Elem()
		}
	}
	for rule := range strings.SplitSeq(tag, ",") {
		if ct, ok := customTags[rule]; ok {
			e.Allowed = slices.Sorted(slices.Values(ct.values()))
			e.Message = "is required: use " + ct.noun + ", one of the allowed values"
			return
		}
	}
}

// firstProblem validates in and returns the first problem as an error, for the
// functions whose contract is a single error rather than a list of problems.
func firstProblem(in any) error {
	if problems := validateStruct(in); len(problems) > 0 {
		return problems[0]
	}
	return nil
}

// fieldPath strips the root struct name from a validator namespace, giving the JSON
// path a client wrote: "CompileJourneyInput.steps[2].intent" becomes "steps[2].intent".
func fieldPath(namespace string) string {
	_, path, found := strings.Cut(namespace, ".")
	if !found {
		return namespace
	}
	return path
}

// fieldError turns one validator failure into a plain-English *Error. The
// validator's own Error() text is for debugging only and never reaches a client.
func fieldError(fe validator.FieldError) *Error {
	field := fieldPath(fe.Namespace())
	value := fe.Value()
	if t, ok := customTags[fe.Tag()]; ok {
		allowed := t.values()
		return newError(t.code, field, allowed, "%q is not %s; use one of the allowed values", fmt.Sprint(value), t.noun)
	}
	if t, ok := patternTags[fe.Tag()]; ok {
		return newError(CodeInvalidArgument, field, nil, "%q is not valid; use %s", fmt.Sprint(value), t.desc)
	}
	isCollection := func() bool {
		k := fe.Kind()
		return k == reflect.Slice || k == reflect.Array || k == reflect.Map
	}
	switch fe.Tag() {
	case "notblank":
		return newError(CodeInvalidArgument, field, nil, "is blank; it needs some text that is not just spaces")
	case "required":
		return newError(CodeInvalidArgument, field, nil, "is required and must not be empty")
	case "oneof":
		allowed := strings.Fields(fe.Param())
		return newError(CodeInvalidArgument, field, allowed, "%q is not allowed; use one of the allowed values", fmt.Sprint(value))
	case "max", "lte":
		switch {
		case isCollection():
			return newError(CodeLimitExceeded, field, nil, "has too many items; the limit is %s, send fewer", fe.Param())
		case fe.Kind() == reflect.String:
			return newError(CodeLimitExceeded, field, nil, "is too long; the limit is %s characters, shorten it", fe.Param())
		default:
			return newError(CodeLimitExceeded, field, nil, "is %v, above the limit of %s; use a smaller value", value, fe.Param())
		}
	case "min", "gte":
		switch {
		case isCollection():
			return newError(CodeInvalidArgument, field, nil, "needs at least %s item(s)", fe.Param())
		case fe.Kind() == reflect.String:
			return newError(CodeInvalidArgument, field, nil, "must be at least %s characters long", fe.Param())
		default:
			return newError(CodeInvalidArgument, field, nil, "is %v, below the minimum of %s", value, fe.Param())
		}
	case "unique":
		return newError(CodeInvalidArgument, field, nil, "contains duplicates; every item must be unique")
	case "hexadecimal", "len":
		return newError(CodeInvalidArgument, field, nil, "must be %s", describeTag(fe))
	}
	return newError(CodeInvalidArgument, field, nil, "fails the %q rule", fe.Tag())
}

func describeTag(fe validator.FieldError) string {
	switch fe.Tag() {
	case "hexadecimal":
		return "hexadecimal digits only"
	case "len":
		return "exactly " + fe.Param() + " characters long"
	}
	return fe.Tag()
}
