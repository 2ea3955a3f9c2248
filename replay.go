package automium

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
)

// Verdict is how a run ended, modelled on Playwright's test outcomes. A run is
// flaky when an attempt failed and a retry then passed; passed means the first
// attempt passed.
type Verdict string

// The verdicts; [Verdicts] lists them.
const (
	VerdictPassed  Verdict = "passed"
	VerdictFailed  Verdict = "failed"
	VerdictFlaky   Verdict = "flaky"
	VerdictError   Verdict = "error"
	VerdictSkipped Verdict = "skipped"
)

var verdicts = []string{string(VerdictError), string(VerdictFailed), string(VerdictFlaky), string(VerdictPassed), string(VerdictSkipped)}

// Verdicts returns every verdict, sorted.
func Verdicts() []Verdict { return typedSet[Verdict](verdicts) }

// Lane is the part of the system that emitted a replay event. Triage reads a
// replay lane by lane, e.g. planner decisions beside executor actions.
type Lane string

// The lanes; [Lanes] lists them.
const (
	LanePlanner   Lane = "planner"
	LaneExecutor  Lane = "executor"
	LaneRuntime   Lane = "runtime"
	LaneAssertion Lane = "assertion"
	LaneWorker    Lane = "worker"
	LaneArtifact  Lane = "artifact"
)

var lanes = []string{string(LaneArtifact), string(LaneAssertion), string(LaneExecutor), string(LanePlanner), string(LaneRuntime), string(LaneWorker)}

// Lanes returns every lane, sorted.
func Lanes() []Lane { return typedSet[Lane](lanes) }

// EventType is a replay-event-v1 event type, namespaced by its lane
// (planner.decision); its string is the wire form, as in type.
type EventType string

// The event types; [EventTypes] lists them.
const (
	EventPlannerRequest    EventType = "planner.request"
	EventPlannerDecision   EventType = "planner.decision"
	EventExecutorAction    EventType = "executor.action"
	EventRuntimeNavigation EventType = "runtime.navigation"
	EventRuntimeDialog     EventType = "runtime.dialog"
	EventRuntimeConsole    EventType = "runtime.console"
	EventRuntimeSnapshot   EventType = "runtime.snapshot"
	EventRuntimeRecovery   EventType = "runtime.recovery"
	EventAssertionChecked  EventType = "assertion.checked"
	EventAttemptStarted    EventType = "worker.attempt_started"
	EventAttemptFinished   EventType = "worker.attempt_finished"
	EventArtifactRecorded  EventType = "artifact.recorded"
)

// EventTypes returns every replay-event-v1 event type, sorted.
func EventTypes() []EventType { return typedSet[EventType](replayEventTypeNames) }

// EventStatus is what became of what a replay event records; its string is
// the wire form, as in status. A failed event carries an error; info marks
// events that record something rather than attempt it, such as a console
// message. A planner history entry's outcome is one of the first three.
type EventStatus string

// The event statuses.
const (
	StatusSucceeded EventStatus = "succeeded"
	StatusFailed    EventStatus = "failed"
	StatusSkipped   EventStatus = "skipped"
	StatusInfo      EventStatus = "info"
)

// ConsoleLevel is the level of a browser console message; its string is the
// wire form.
type ConsoleLevel string

// The console levels.
const (
	ConsoleDebug   ConsoleLevel = "debug"
	ConsoleLog     ConsoleLevel = "log"
	ConsoleInfo    ConsoleLevel = "info"
	ConsoleWarning ConsoleLevel = "warning"
	ConsoleError   ConsoleLevel = "error"
)

// DialogType is the kind of a browser dialog; its string is the wire form.
type DialogType string

// The dialog types.
const (
	DialogAlert        DialogType = "alert"
	DialogBeforeUnload DialogType = "beforeunload"
	DialogConfirm      DialogType = "confirm"
	DialogPrompt       DialogType = "prompt"
)

// DialogAction is what was done with a browser dialog; its string is the wire
// form.
type DialogAction string

// The dialog actions.
const (
	DialogAccept  DialogAction = "accept"
	DialogDismiss DialogAction = "dismiss"
)

// replayEventTypes maps each replay-event-v1 type, namespaced by its lane, to the
// payload member it carries ("" for none). The type decides the payload, so a
// consumer switches on type and reads one member, as with a tagged union.
var replayEventTypes = map[EventType]string{
	"planner.request":         "",
	"planner.decision":        "decision",
	"executor.action":         "action",
	"runtime.navigation":      "navigation",
	"runtime.dialog":          "dialog",
	"runtime.console":         "console",
	"runtime.snapshot":        "",
	"runtime.recovery":        "recovery",
	"assertion.checked":       "assertion",
	"worker.attempt_started":  "",
	"worker.attempt_finished": "attempt",
	"artifact.recorded":       "",
}

var replayEventTypeNames = wireStrings(slices.Sorted(maps.Keys(replayEventTypes)))

// eventStatuses are the event statuses, sorted.
var eventStatuses = []string{string(StatusFailed), string(StatusInfo), string(StatusSkipped), string(StatusSucceeded)}

var (
	_ = registerTag("automium_verdict", CodeInvalidArgument, "a replay verdict", func() []string { return verdicts })
	_ = registerTag("automium_lane", CodeInvalidArgument, "a replay event lane", func() []string { return lanes })
	_ = registerTag("automium_event_type", CodeInvalidArgument, "a "+ReplayEventVersion+" event type", func() []string { return replayEventTypeNames })
	_ = registerTag("automium_event_status", CodeInvalidArgument, "a replay event status", func() []string { return eventStatuses })
)

// GetReplaySummaryInput is what a caller knows about a finished run.
type GetReplaySummaryInput struct {
	RunID               string  `json:"runId" jsonschema:"run ID from CreateRunSubmission" validate:"required,automium_run_id"`
	Verdict             Verdict `json:"verdict" jsonschema:"Playwright's verdict" validate:"required,automium_verdict"`
	RetryCount          int     `json:"retryCount,omitempty" jsonschema:"retries after the first attempt, 0 to 10; flaky needs at least 1, passed and skipped need 0" validate:"min=0,max_retry_count"`
	ArtifactManifestRef string  `json:"artifactManifestRef" jsonschema:"artifact-manifest://<runId>" validate:"required,max=256"`
}

// GetReplaySummaryResult is a contract-shaped replay summary: what a replay of the
// run consists of and which artifacts triage needs.
type GetReplaySummaryResult struct {
	SchemaVersion               string         `json:"schemaVersion" jsonschema:"replay summary format version"`
	RunID                       string         `json:"runId" jsonschema:"run ID"`
	Verdict                     Verdict        `json:"verdict" jsonschema:"run verdict"`
	RetryCount                  int            `json:"retryCount" jsonschema:"retries after the first attempt"`
	Attempts                    int            `json:"attempts" jsonschema:"attempts the run made: retryCount + 1, or 0 when skipped"`
	ArtifactManifestRef         string         `json:"artifactManifestRef" jsonschema:"artifact manifest reference of the run"`
	ReplayStreamRef             string         `json:"replayStreamRef" jsonschema:"replay-stream://<runId>: the run's event stream"`
	ReplayEventVersion          string         `json:"replayEventVersion" jsonschema:"contract the replay stream's events follow"`
	RequiredReplayArtifactKinds []ArtifactKind `json:"requiredReplayArtifactKinds" jsonschema:"artifact kinds a complete replay of this run must include, sorted"`
	Modeled                     bool           `json:"modeled" jsonschema:"always true: the summary was derived from the input; no replay file or artifact was read"`
	Notice                      string         `json:"notice" jsonschema:"one-line statement that nothing was read, fetched or executed"`
}

// GetReplaySummary builds the replay summary of a run from its verdict and retry
// count. It reads no replay file, fetches no artifact and needs no persistence.
//
// The verdict and retries must agree the way they do in Playwright: flaky means a
// retry passed after a failure, so it needs retryCount >= 1; passed means the first
// attempt passed, and skipped runs are never retried, so both need retryCount 0.
// artifactManifestRef must be artifact-manifest://<runId> for the same run; a
// reference to another run is an invalid_argument error, never silently accepted.
//
// requiredReplayArtifactKinds follows one rule, cumulative and sorted:
//
//   - skipped: report only, since nothing ran;
//   - any other verdict: replay_events and report;
//   - failed, flaky and error add what triage of a failure needs: trace,
//     screenshot, console_log, network_har, semantic_snapshot and dom_snapshot;
//   - retryCount > 0 adds trace and video, as Playwright records them on retries.
func GetReplaySummary(ctx context.Context, in GetReplaySummaryInput) (GetReplaySummaryResult, error) {
	if err := checkContext(ctx); err != nil {
		return GetReplaySummaryResult{}, err
	}
	if err := replaySummaryProblems(in); err != nil {
		return GetReplaySummaryResult{}, err
	}
	attempts := in.RetryCount + 1
	if in.Verdict == VerdictSkipped {
		attempts = 0
	}
	return GetReplaySummaryResult{
		SchemaVersion:               ReplaySummaryVersion,
		RunID:                       in.RunID,
		Verdict:                     in.Verdict,
		RetryCount:                  in.RetryCount,
		Attempts:                    attempts,
		ArtifactManifestRef:         in.ArtifactManifestRef,
		ReplayStreamRef:             ReplayStreamRefScheme + in.RunID,
		ReplayEventVersion:          ReplayEventVersion,
		RequiredReplayArtifactKinds: requiredReplayArtifactKinds(in.Verdict, in.RetryCount),
		Modeled:                     true,
		Notice:                      ModeledNotice,
	}, nil
}

// RequiredReplayArtifactKinds returns, sorted, the artifact kinds a run with this
// verdict and retry count must record: the rule documented on [GetReplaySummary].
// An unknown verdict gets the kinds of a passed run; [GetReplaySummary] is where
// a verdict is checked.
func RequiredReplayArtifactKinds(verdict Verdict, retryCount int) []ArtifactKind {
	return requiredReplayArtifactKinds(verdict, retryCount)
}

// requiredReplayArtifactKinds applies the rule documented on [GetReplaySummary].
func requiredReplayArtifactKinds(verdict Verdict, retries int) []ArtifactKind {
	if verdict == VerdictSkipped {
		return []ArtifactKind{ArtifactReport}
	}
	kinds := []ArtifactKind{ArtifactReplayEvents, ArtifactReport}
	switch verdict {
	case VerdictFailed, VerdictFlaky, VerdictError:
		kinds = append(kinds, "console_log", "dom_snapshot", "network_har", "screenshot", "semantic_snapshot", "trace")
	}
	if retries > 0 {
		kinds = append(kinds, "trace", "video")
	}
	slices.Sort(kinds)
	return slices.Compact(kinds)
}

// replaySummaryProblems returns every problem with in.
func replaySummaryProblems(in GetReplaySummaryInput) error {
	ps := newProblems(in)
	refAt := field("artifactManifestRef")
	ps.validate(in, refAt)
	verdictRetryProblems(ps, field("verdict"), field("retryCount"), in.Verdict, in.RetryCount)
	// manifestRefProblem says more about artifactManifestRef than the generic
	// rules, but only a valid run ID says what the reference should be.
	if ps.has(field("runId")) {
		ps.checkField(refAt, reflect.TypeOf(in), "artifactManifestRef", in.ArtifactManifestRef)
		return ps.err()
	}
	ps.addError(refAt, manifestRefProblem(in.ArtifactManifestRef, in.RunID))
	return ps.err()
}

// verdictRetryProblems records where a verdict and a retry count disagree, the
// way they do in Playwright: flaky means a retry passed after a failure, passed
// means the first attempt did, and skipped runs are never retried.
func verdictRetryProblems(ps *problems, verdictAt, retriesAt Path, verdict Verdict, retries int) {
	if ps.has(verdictAt) || ps.has(retriesAt) {
		return
	}
	switch {
	case verdict == VerdictFlaky && retries == 0:
		ps.add(retriesAt, CodeInvalidArgument, nil, "a flaky run passed on a retry after failing, so retryCount must be at least 1; use verdict passed if the first attempt passed")
	case verdict == VerdictPassed && retries > 0:
		ps.add(retriesAt, CodeInvalidArgument, nil, "a run that passed only after %d retries is flaky; use verdict flaky, or retryCount 0 if the first attempt passed", retries)
	case verdict == VerdictSkipped && retries > 0:
		ps.add(retriesAt, CodeInvalidArgument, nil, "a skipped run is never retried; use retryCount 0")
	}
}

// maxRefLength bounds references such as artifactManifestRef; the validate tag
// repeats it, and a test keeps the two equal.
const maxRefLength = 256

// manifestRefProblem checks that ref is the artifact manifest reference of
// runID, a valid run ID, or returns nil.
func manifestRefProblem(ref, runID string) *Error {
	want := ArtifactManifestRefScheme + runID
	switch {
	case ref == want:
		return nil
	case ref == "":
		return newError(CodeInvalidArgument, Path{}, nil, "is required; use %s", want)
	case len(ref) > maxRefLength && utf8.RuneCountInString(ref) > maxRefLength:
		return newError(CodeLimitExceeded, Path{}, nil, "is too long; the limit is %d characters", maxRefLength)
	case !strings.HasPrefix(ref, ArtifactManifestRefScheme):
		return newError(CodeInvalidArgument, Path{}, nil, "%s is not an artifact manifest reference; use %s, as a run submission returns it", echo.Value(ref), want)
	}
	return newError(CodeInvalidArgument, Path{}, nil, "%s names run %s, not %q; use %s, the manifest of the same run",
		echo.Value(ref), echo.Value(strings.TrimPrefix(ref, ArtifactManifestRefScheme)), runID, want)
}

// ReplayEvent is one event of a replay-event-v1 stream: a run's replay is the
// sequence of its events, one JSON object per line.
//
// The contract, beyond what the field tags say:
//
//   - seq starts at 1 and increases by exactly 1 per event over the whole run,
//     across attempts, so a gap means a lost event;
//   - attempt starts at 1 and is retry number + 1;
//   - type is namespaced by its lane ("planner.decision" is on lane planner);
//   - the type decides which single payload member is set (see
//     [ReplayEventPayload]); types without a payload leave it out;
//   - status failed requires error, and only failed events carry one;
//   - timing is relative: startedAtMs is the offset from the start of the run, never
//     a wall clock, so replays of equal runs are byte-identical;
//   - snapshotRef names a semantic-snapshot-v1 snapshotId, and artifactRefs name
//     entries of the run's artifact manifest by kind and path.
//
// A ReplayEvent is a plain value, safe to share between goroutines once built.
type ReplayEvent struct {
	RunID         string              `json:"runId" jsonschema:"run ID the event belongs to" validate:"required,automium_run_id"`
	Attempt       int                 `json:"attempt" jsonschema:"attempt number, 1 for the first attempt and retry + 1 after" validate:"required,min=1,max=11"`
	JourneyNodeID string              `json:"journeyNodeId,omitempty" jsonschema:"compiled journey node the event belongs to, e.g. step-3 or assert-1; absent for run-level events" validate:"omitempty,max_id_length,automium_slug"`
	StepIndex     *int                `json:"stepIndex,omitempty" jsonschema:"0-based index of the journey step, matching steps[i]; absent outside steps" validate:"omitempty,min=0,max=199"`
	Seq           int                 `json:"seq" jsonschema:"1-based position in the run's stream; gap-free and strictly increasing across attempts" validate:"required,min=1,max=1000000"`
	Lane          Lane                `json:"lane" jsonschema:"emitter: planner, executor, runtime, assertion, worker or artifact" validate:"required,automium_lane"`
	Type          EventType           `json:"type" jsonschema:"event type namespaced by its lane, e.g. planner.decision or executor.action" validate:"required,automium_event_type"`
	StartedAtMs   int64               `json:"startedAtMs,omitempty" jsonschema:"start, in milliseconds from the start of the run; never a wall clock" validate:"min=0,max=86400000"`
	DurationMs    int64               `json:"durationMs,omitempty" jsonschema:"duration in milliseconds" validate:"min=0,max=86400000"`
	Status        EventStatus         `json:"status" jsonschema:"succeeded, failed, skipped or info" validate:"required,automium_event_status"`
	Error         *EventError         `json:"error,omitempty" jsonschema:"what went wrong; present exactly when status is failed"`
	SnapshotRef   string              `json:"snapshotRef,omitempty" jsonschema:"snapshotId of the semantic-snapshot-v1 snapshot the event saw or produced" validate:"omitempty,max_id_length"`
	ArtifactRefs  []ArtifactRef       `json:"artifactRefs,omitempty" jsonschema:"artifacts of the run's manifest that the event recorded or relies on" validate:"omitempty,max=16,dive"`
	Payload       *ReplayEventPayload `json:"payload,omitempty" jsonschema:"typed payload; the event type decides which single member is set"`
}

// EventError says why a replay event failed.
type EventError struct {
	Code    string `json:"code" jsonschema:"stable snake_case error code, e.g. target_not_found or timeout" validate:"required,max=64,automium_slug"`
	Message string `json:"message" jsonschema:"what went wrong, for a human" validate:"required,notblank,max_text_length"`
}

// ArtifactRef points at one entry of a run's artifact manifest.
type ArtifactRef struct {
	Kind ArtifactKind `json:"kind" jsonschema:"artifact kind of the manifest entry" validate:"required,automium_artifact_kind"`
	Path string       `json:"path" jsonschema:"path of the manifest entry, relative to the manifest root" validate:"required,max_path_length"`
}

// ReplayEventPayload is the typed payload of a replay event: a tagged union whose
// tag is the event type. Exactly the member the type names is set:
//
//	planner.decision         decision
//	executor.action          action
//	runtime.navigation       navigation
//	runtime.dialog           dialog
//	runtime.console          console
//	runtime.recovery         recovery
//	assertion.checked        assertion
//	worker.attempt_finished  attempt
//
// planner.request, runtime.snapshot, worker.attempt_started and artifact.recorded
// carry no payload: their content is the snapshot or artifacts they reference.
type ReplayEventPayload struct {
	Decision   *PlannerDecision   `json:"decision,omitempty" jsonschema:"for planner.decision: the planner-adapter-v1 decision"`
	Action     *Step              `json:"action,omitempty" jsonschema:"for executor.action: the step the executor performed"`
	Navigation *NavigationPayload `json:"navigation,omitempty" jsonschema:"for runtime.navigation: where the page went"`
	Dialog     *DialogPayload     `json:"dialog,omitempty" jsonschema:"for runtime.dialog: the dialog and how it was handled"`
	Console    *ConsolePayload    `json:"console,omitempty" jsonschema:"for runtime.console: one console message"`
	Recovery   *RecoveryPayload   `json:"recovery,omitempty" jsonschema:"for runtime.recovery: the recovery strategy applied before a retry"`
	Assertion  *AssertionPayload  `json:"assertion,omitempty" jsonschema:"for assertion.checked: the check and its result"`
	Attempt    *AttemptPayload    `json:"attempt,omitempty" jsonschema:"for worker.attempt_finished: how the attempt ended"`
}

// NavigationPayload records a page navigation within the fixture's app.
type NavigationPayload struct {
	Route string `json:"route" jsonschema:"app-relative route the page arrived at, e.g. /cart" validate:"required,max_text_length"`
	Title string `json:"title,omitempty" jsonschema:"document title after navigation" validate:"omitempty,max_text_length"`
}

// DialogPayload records a JavaScript dialog and the response to it.
type DialogPayload struct {
	DialogType DialogType   `json:"dialogType" jsonschema:"alert, beforeunload, confirm or prompt" validate:"required,oneof=alert beforeunload confirm prompt"`
	Message    string       `json:"message,omitempty" jsonschema:"the dialog's message" validate:"omitempty,max_text_length"`
	Action     DialogAction `json:"action" jsonschema:"accept or dismiss" validate:"required,oneof=accept dismiss"`
}

// ConsolePayload records one browser console message.
type ConsolePayload struct {
	Level ConsoleLevel `json:"level" jsonschema:"debug, error, info, log or warning" validate:"required,oneof=debug error info log warning"`
	Text  string       `json:"text" jsonschema:"message text, truncated to 2000 characters" validate:"required,max_text_length"`
}

// RecoveryPayload records a recovery strategy applied after a failed step.
type RecoveryPayload struct {
	Strategy RecoveryStrategy `json:"strategy" jsonschema:"recovery strategy of the journey's recovery policy" validate:"required,automium_recovery"`
	Retry    int              `json:"retry" jsonschema:"which retry of the step this prepares, from 1" validate:"required,min=1,max_recovery_retries"`
}

// AssertionPayload records one journey assertion and its outcome.
type AssertionPayload struct {
	Kind     AssertionKind `json:"kind" jsonschema:"assertion kind" validate:"required,automium_assertion"`
	Target   *Target       `json:"target,omitempty" jsonschema:"for element_* kinds"`
	Expected string        `json:"expected,omitempty" jsonschema:"expected text, value or route" validate:"omitempty,max_text_length"`
	Actual   string        `json:"actual,omitempty" jsonschema:"what was observed" validate:"omitempty,max_text_length"`
	Passed   bool          `json:"passed,omitempty" jsonschema:"whether the assertion held; absent means it did not"`
}

// AttemptPayload records how one attempt of a run ended.
type AttemptPayload struct {
	Verdict Verdict `json:"verdict" jsonschema:"verdict of this attempt: passed, failed, error or skipped" validate:"required,oneof=error failed passed skipped"`
}
