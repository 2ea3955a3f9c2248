package contract

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/check"
	"github.com/automium/automium/internal/closedset"
	"github.com/automium/automium/internal/echo"
)

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
func Lanes() []Lane { return closedset.Sorted[Lane](lanes) }

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
func EventTypes() []EventType { return closedset.Sorted[EventType](replayEventTypeNames) }

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

var replayEventTypeNames = closedset.Strings(slices.Sorted(maps.Keys(replayEventTypes)))

// eventStatuses are the event statuses, sorted.
var eventStatuses = []string{string(StatusFailed), string(StatusInfo), string(StatusSkipped), string(StatusSucceeded)}

var (
	_ = check.RegisterTag("automium_lane", string(automium.CodeInvalidArgument), "a replay event lane", func() []string { return lanes })
	_ = check.RegisterTag("automium_event_type", string(automium.CodeInvalidArgument), "a "+automium.ReplayEventVersion+" event type", func() []string { return replayEventTypeNames })
	_ = check.RegisterTag("automium_event_status", string(automium.CodeInvalidArgument), "a replay event status", func() []string { return eventStatuses })
)

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
	Kind automium.ArtifactKind `json:"kind" jsonschema:"artifact kind of the manifest entry" validate:"required,automium_artifact_kind"`
	Path string                `json:"path" jsonschema:"path of the manifest entry, relative to the manifest root" validate:"required,max_path_length"`
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
	Action     *automium.Step     `json:"action,omitempty" jsonschema:"for executor.action: the step the executor performed"`
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
	Strategy automium.RecoveryStrategy `json:"strategy" jsonschema:"recovery strategy of the journey's recovery policy" validate:"required,automium_recovery"`
	Retry    int                       `json:"retry" jsonschema:"which retry of the step this prepares, from 1" validate:"required,min=1,max_recovery_retries"`
}

// AssertionPayload records one journey assertion and its outcome.
type AssertionPayload struct {
	Kind     automium.AssertionKind `json:"kind" jsonschema:"assertion kind" validate:"required,automium_assertion"`
	Target   *automium.Target       `json:"target,omitempty" jsonschema:"for element_* kinds"`
	Expected string                 `json:"expected,omitempty" jsonschema:"expected text, value or route" validate:"omitempty,max_text_length"`
	Actual   string                 `json:"actual,omitempty" jsonschema:"what was observed" validate:"omitempty,max_text_length"`
	Passed   bool                   `json:"passed,omitempty" jsonschema:"whether the assertion held; absent means it did not"`
}

// AttemptPayload records how one attempt of a run ended.
type AttemptPayload struct {
	Verdict automium.Verdict `json:"verdict" jsonschema:"verdict of this attempt: passed, failed, error or skipped" validate:"required,oneof=error failed passed skipped"`
}

// Validate checks e against the replay-event-v1 contract: its field rules; a
// type namespaced by its lane; exactly the payload member its type decides
// (none for types without one); an error exactly when the status is failed.
// Sequence rules (seq gap-free, attempts increasing) span a stream, not one
// event, so they are the stream reader's to check.
func (e ReplayEvent) Validate() error {
	ps := newProblems(e)
	ps.validate(e)
	if e.Type != "" && e.Lane != "" && !ps.has(field("type")) {
		if lane, _, _ := strings.Cut(string(e.Type), "."); lane != string(e.Lane) {
			ps.add(field("type"), automium.CodeInvalidArgument, nil, "type %s belongs to lane %s, not %s; the part before the dot is the lane", echo.Value(e.Type), echo.Value(lane), echo.Value(string(e.Lane)))
		}
	}
	if want, known := replayEventTypes[e.Type]; known {
		set := payloadMembers(e.Payload)
		switch {
		case want == "" && len(set) > 0:
			ps.add(field("payload"), automium.CodeInvalidArgument, nil, "type %s carries no payload, but %s is set; remove it", e.Type, strings.Join(set, ", "))
		case want != "" && !slices.Equal(set, []string{want}):
			ps.add(field("payload"), automium.CodeInvalidArgument, nil, "type %s carries exactly the payload member %s, not [%s]", e.Type, want, strings.Join(set, ", "))
		}
	}
	switch {
	case e.Status == "failed" && e.Error == nil:
		ps.add(field("error"), automium.CodeInvalidArgument, nil, "a failed event says why: set error with a code and a message")
	case e.Status != "failed" && e.Error != nil:
		ps.add(field("error"), automium.CodeInvalidArgument, nil, "only failed events carry an error; remove it, or set status to failed")
	}
	if e.Payload != nil && e.Payload.Decision != nil {
		ps.decision(field("payload").Field("decision"), *e.Payload.Decision)
	}
	return ps.err()
}

// payloadMembers lists the wire names of the members of p that are set.
func payloadMembers(p *ReplayEventPayload) []string {
	if p == nil {
		return nil
	}
	var set []string
	v := reflect.ValueOf(*p)
	for i := range v.NumField() {
		if !v.Field(i).IsNil() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			set = append(set, name)
		}
	}
	return set
}
