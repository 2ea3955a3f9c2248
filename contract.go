package automium

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/automium/automium/internal/limit"
)

// NodeState is an ARIA state a snapshot node may report; its string is the
// wire form, as in states.
type NodeState string

// The node states, sorted.
const (
	StateBusy     NodeState = "busy"
	StateChecked  NodeState = "checked"
	StateDisabled NodeState = "disabled"
	StateExpanded NodeState = "expanded"
	StateFocused  NodeState = "focused"
	StateInvalid  NodeState = "invalid"
	StateMixed    NodeState = "mixed"
	StatePressed  NodeState = "pressed"
	StateReadonly NodeState = "readonly"
	StateRequired NodeState = "required"
	StateSelected NodeState = "selected"
)

// RedactionReason says why a snapshot value was withheld from the planner;
// its string is the wire form.
type RedactionReason string

// The redaction reasons.
const (
	RedactionCredential RedactionReason = "credential"
	RedactionPII        RedactionReason = "pii"
	RedactionSecret     RedactionReason = "secret"
)

// RedactedField is the part of a snapshot node that was withheld; its string
// is the wire form.
type RedactedField string

// The parts of a node that may be withheld.
const (
	RedactedName  RedactedField = "name"
	RedactedValue RedactedField = "value"
)

// nodeStates are the ARIA states a snapshot node may report, the ones Playwright's
// aria snapshots and browser accessibility trees expose.
var nodeStates = []string{
	"busy", "checked", "disabled", "expanded", "focused", "invalid", "mixed",
	"pressed", "readonly", "required", "selected",
}

// redactionReasons say why a snapshot value was withheld from the planner.
var redactionReasons = []string{"credential", "pii", "secret"}

var (
	_ = registerTag("automium_node_state", CodeInvalidArgument, "an accessibility node state", func() []string { return nodeStates })
	_ = registerTag("automium_redaction_reason", CodeInvalidArgument, "a redaction reason", func() []string { return redactionReasons })
	_ = registerTag("automium_contract", CodeUnsupportedResource, "a contract of this version", ContractNames)
)

// SemanticSnapshot is a semantic-snapshot-v1 snapshot: what a planner sees of the
// page, as an accessibility tree of roles and accessible names rather than markup,
// so decisions survive CSS and DOM changes. Values the planner must not see are
// replaced and listed in Redactions; a snapshot cut short at MaxSnapshotNodes says
// so with Truncated.
//
// A SemanticSnapshot is a plain value, safe to share between goroutines once built.
type SemanticSnapshot struct {
	SnapshotID string              `json:"snapshotId" jsonschema:"snapshot ID, unique within the run; replay events link to it with snapshotRef" validate:"required,max_id_length,automium_slug"`
	Page       SnapshotPage        `json:"page" jsonschema:"the page the snapshot was taken of" validate:"required"`
	Tabs       []SnapshotTab       `json:"tabs,omitempty" jsonschema:"open tabs, for multi-tab apps; the active one is marked" validate:"omitempty,max_snapshot_tabs,dive"`
	Nodes      []SnapshotNode      `json:"nodes" jsonschema:"accessibility-tree nodes in document order, 1 to 2000" validate:"required,min=1,max_snapshot_nodes,dive"`
	Truncated  bool                `json:"truncated,omitempty" jsonschema:"whether nodes were left out to stay within the node limit"`
	Redactions []SnapshotRedaction `json:"redactions,omitempty" jsonschema:"values withheld from the planner, by node ref" validate:"omitempty,max_snapshot_nodes,dive"`
}

// SnapshotPage identifies the page of a snapshot. Routes are app-relative: a
// snapshot never carries the host the app runs on.
type SnapshotPage struct {
	Route string `json:"route" jsonschema:"app-relative route of the page, e.g. /search?q=kettle" validate:"required,max_text_length"`
	Title string `json:"title,omitempty" jsonschema:"document title" validate:"omitempty,max_text_length"`
}

// SnapshotTab is one open tab.
type SnapshotTab struct {
	Index  int    `json:"index,omitempty" jsonschema:"0-based tab index, as switch_tab takes it" validate:"min=0,max=15"`
	Route  string `json:"route" jsonschema:"app-relative route of the tab" validate:"required,max_text_length"`
	Title  string `json:"title,omitempty" jsonschema:"document title of the tab" validate:"omitempty,max_text_length"`
	Active bool   `json:"active,omitempty" jsonschema:"whether this is the tab the snapshot's nodes come from"`
}

// SnapshotNode is one node of the accessibility tree.
type SnapshotNode struct {
	Ref      string      `json:"ref" jsonschema:"node reference, unique within the snapshot, e.g. e12; decisions may name it as targetRef" validate:"required,max=32,automium_slug"`
	Role     string      `json:"role" jsonschema:"ARIA role, e.g. button, textbox, heading, generic" validate:"required,notblank,max=64"`
	Name     string      `json:"name,omitempty" jsonschema:"accessible name" validate:"omitempty,max_text_length"`
	Value    string      `json:"value,omitempty" jsonschema:"current value of an editable or range node; redacted values are listed in redactions" validate:"omitempty,max_text_length"`
	States   []NodeState `json:"states,omitempty" jsonschema:"ARIA states that hold, sorted: busy, checked, disabled, expanded, focused, invalid, mixed, pressed, readonly, required, selected" validate:"omitempty,max=11,unique,dive,automium_node_state"`
	Visible  bool        `json:"visible,omitempty" jsonschema:"whether the node is rendered and in the viewport or scrollable to; absent means hidden"`
	Depth    int         `json:"depth,omitempty" jsonschema:"depth in the tree, 0 for top-level nodes" validate:"min=0,max=64"`
	Children []string    `json:"children,omitempty" jsonschema:"refs of the child nodes, in order" validate:"omitempty,max_snapshot_nodes,dive,max=32"`
}

// SnapshotRedaction marks a value withheld from the planner.
type SnapshotRedaction struct {
	Ref    string          `json:"ref" jsonschema:"ref of the node whose value or name was withheld" validate:"required,max=32,automium_slug"`
	Field  RedactedField   `json:"field" jsonschema:"which part was withheld: name or value" validate:"required,oneof=name value"`
	Reason RedactionReason `json:"reason" jsonschema:"why: credential, pii or secret" validate:"required,automium_redaction_reason"`
}

// PlannerRequest is what the runtime sends a planner backend under
// planner-adapter-v1 for each decision: the goal, what the page looks like now,
// what happened so far and which intents are allowed.
//
// A PlannerRequest is a plain value, safe to share between goroutines once built.
type PlannerRequest struct {
	RunID                   string                `json:"runId" jsonschema:"run ID the decision is for" validate:"required,automium_run_id"`
	Attempt                 int                   `json:"attempt" jsonschema:"attempt number, from 1" validate:"required,min=1,max=11"`
	IntentVocabularyVersion string                `json:"intentVocabularyVersion" jsonschema:"intent vocabulary the decision must use" validate:"required,oneof=planner-intent-v1"`
	Goal                    string                `json:"goal" jsonschema:"the journey goal, in one sentence" validate:"required,notblank,max_text_length"`
	Snapshot                SemanticSnapshot      `json:"snapshot" jsonschema:"semantic-snapshot-v1 snapshot of the current page" validate:"required"`
	History                 []PlannerHistoryEntry `json:"history,omitempty" jsonschema:"earlier decisions of this attempt and their outcomes, oldest first" validate:"omitempty,max_steps,dive"`
	AllowedIntents          []Intent              `json:"allowedIntents" jsonschema:"intents the planner may choose now; a subset of the vocabulary the app supports" validate:"required,min=1,max=32,unique,dive,automium_intent"`
}

// PlannerHistoryEntry is one earlier step of the attempt, as the planner is told:
// its own decision, rationale included, and how carrying it out went.
type PlannerHistoryEntry struct {
	StepIndex int             `json:"stepIndex,omitempty" jsonschema:"0-based step index" validate:"min=0,max=199"`
	Decision  PlannerDecision `json:"decision" jsonschema:"the decision made at that step; redacted values are replaced" validate:"required"`
	Outcome   EventStatus     `json:"outcome" jsonschema:"succeeded, failed or skipped" validate:"required,oneof=failed skipped succeeded"`
	Error     string          `json:"error,omitempty" jsonschema:"why it failed, when it did" validate:"omitempty,max_text_length"`
}

// PlannerDecision is a planner backend's answer under planner-adapter-v1: one
// intent of the allowed set, with its target and value as the intent requires
// (see [Vocabulary]), the planner's rationale and what the call cost in tokens.
//
// A PlannerDecision is a plain value, safe to share between goroutines once built.
type PlannerDecision struct {
	Intent      Intent     `json:"intent" jsonschema:"an intent from the request's allowedIntents" validate:"required,automium_intent"`
	Target      *Target    `json:"target,omitempty" jsonschema:"semantic target (role and accessible name), for intents that take one"`
	TargetRef   string     `json:"targetRef,omitempty" jsonschema:"ref of the snapshot node the target resolves to, when the planner knows it" validate:"omitempty,max=32,automium_slug"`
	Destination *Target    `json:"destination,omitempty" jsonschema:"for drag_drop only"`
	Value       string     `json:"value,omitempty" jsonschema:"the intent's value, for intents that take one" validate:"omitempty,max_text_length"`
	Rationale   string     `json:"rationale,omitempty" jsonschema:"why the planner chose this, in a sentence or two" validate:"omitempty,max_text_length"`
	Usage       TokenUsage `json:"usage,omitzero" jsonschema:"tokens the planner call consumed"`
}

// TokenUsage is what one planner call cost, as the provider reported it.
type TokenUsage struct {
	InputTokens  int `json:"inputTokens,omitempty" jsonschema:"input tokens, 0 to 100000000; planner prompt tokens spent on the run" validate:"min=0,max=10000000"`
	OutputTokens int `json:"outputTokens,omitempty" jsonschema:"completion tokens, including reasoning" validate:"min=0,max=10000000"`
}

// ContractInput names a contract.
type ContractInput struct {
	Name string `json:"name" jsonschema:"contract name: planner-adapter-v1, replay-event-v1 or semantic-snapshot-v1" validate:"required,automium_contract"`
}

// ContractDocument is a compact, self-contained description of one contract:
// enough for an agent to produce or consume conforming JSON without reading source.
//
// Documents are built once and shared; Contract returns a deep copy, so callers may
// modify what they get.
type ContractDocument struct {
	Name    string         `json:"name" jsonschema:"contract name, e.g. replay-event-v1"`
	Version string         `json:"version" jsonschema:"contract major version; a contract never changes incompatibly within one"`
	Summary string         `json:"summary" jsonschema:"what the contract is for, in a sentence or two"`
	Rules   []string       `json:"rules" jsonschema:"rules that span fields and are not expressed by the schemas"`
	Types   []ContractType `json:"types" jsonschema:"the contract's message types, each with its JSON Schema"`
}

// ContractType is one message type of a contract.
type ContractType struct {
	Name        string          `json:"name" jsonschema:"Go type name, e.g. PlannerRequest"`
	Description string          `json:"description" jsonschema:"the role the type plays in the contract"`
	Schema      json.RawMessage `json:"schema" jsonschema:"JSON Schema (draft 2020-12) derived from the Go type and its validate tags"`
}

// contractSpec is the hand-written part of a contract document; schemas are
// derived from the types.
type contractSpec struct {
	name, summary string
	rules         []string
	types         []contractTypeSpec
}

type contractTypeSpec struct {
	t           reflect.Type
	description string
}

var contractSpecs = []contractSpec{
	{
		name:    PlannerAdapterVersion,
		summary: "How the runtime asks a planner backend for its next step: a PlannerRequest (goal, semantic snapshot, step history, allowed intents) in, one PlannerDecision (intent, target, value, rationale, token usage) out. Every backend speaks it, which is what makes planners comparable.",
		rules: []string{
			"decision.intent must be one of request.allowedIntents.",
			"target, destination and value are present exactly as the intent requires in the " + IntentVocabularyVersion + " vocabulary, whose document lists what each intent requires; targets are semantic (ARIA role plus accessible name), never CSS or XPath.",
			"targetRef, when present, is the ref of a node in request.snapshot.",
			"navigate values are app-relative routes; upload_file values are fixture-file:// references from the fixture, never paths.",
			"usage reports the tokens of this call only, as the provider counted them.",
		},
		types: []contractTypeSpec{
			{reflect.TypeFor[PlannerRequest](), "sent to the planner backend before each step"},
			{reflect.TypeFor[PlannerDecision](), "the planner backend's answer: the next step"},
		},
	},
	{
		name:    ReplayEventVersion,
		summary: "One event of a run's replay stream (replay-stream://<runId>), one JSON object per line, on six lanes: planner, executor, runtime, assertion, worker and artifact. Replays are read lane by lane to triage a run.",
		rules: []string{
			"seq starts at 1 and increases by exactly 1 per event over the whole run, across attempts; a gap means a lost event.",
			"attempt starts at 1 and is retry number + 1.",
			"type is namespaced by its lane: the part before the dot equals lane.",
			"the type decides the single payload member that is set: planner.decision=decision, executor.action=action, runtime.navigation=navigation, runtime.dialog=dialog, runtime.console=console, runtime.recovery=recovery, assertion.checked=assertion, worker.attempt_finished=attempt; planner.request, runtime.snapshot, worker.attempt_started and artifact.recorded carry none.",
			"status failed requires error, and only failed events carry one.",
			"startedAtMs is milliseconds from the start of the run, never a wall clock.",
			"snapshotRef names a semantic-snapshot-v1 snapshotId; artifactRefs name entries of the run's " + ArtifactManifestVersion + " manifest by kind and path.",
		},
		types: []contractTypeSpec{
			{reflect.TypeFor[ReplayEvent](), "one event of a replay stream"},
		},
	},
	{
		name:    SemanticSnapshotVersion,
		summary: "What a planner sees of a page: an accessibility tree of nodes with ref, role, accessible name, states and visibility, plus the page route and title and the open tabs, with markers for truncation and redaction. It replaces raw DOM so decisions survive markup changes.",
		rules: []string{
			"ref is unique within a snapshot; children name refs of nodes in the same snapshot.",
			"routes are app-relative; a snapshot never carries the host the app runs on.",
			"when nodes were cut to stay within the node limit, truncated is true.",
			"a redacted name or value is replaced before the planner sees it and listed in redactions with its node ref and reason.",
			"at most one tab is active, and the nodes come from it.",
		},
		types: []contractTypeSpec{
			{reflect.TypeFor[SemanticSnapshot](), "a snapshot of one page"},
		},
	},
}

// ContractNames returns the names of the contracts [Contract] serves, sorted.
func ContractNames() []string {
	names := make([]string, len(contractSpecs))
	for i, c := range contractSpecs {
		names[i] = c.name
	}
	slices.Sort(names)
	return names
}

// ContractSummary returns the summary of the named contract, the one its
// document gives, without building the document and its schemas: a listing of
// contracts needs only this, and stays cheap.
func ContractSummary(name string) (string, bool) {
	for _, c := range contractSpecs {
		if c.name == name {
			return c.summary, true
		}
	}
	return "", false
}

// contractDocuments builds every document once: the types are fixed at compile
// time, so the schemas are too.
var contractDocuments = sync.OnceValues(func() (map[string]ContractDocument, error) {
	docs := make(map[string]ContractDocument, len(contractSpecs))
	for _, c := range contractSpecs {
		doc := ContractDocument{Name: c.name, Version: "1", Summary: c.summary, Rules: c.rules}
		for _, ts := range c.types {
			schema, err := jsonSchema(ts.t)
			if err != nil {
				return nil, err
			}
			doc.Types = append(doc.Types, ContractType{Name: ts.t.Name(), Description: ts.description, Schema: schema})
		}
		docs[c.name] = doc
	}
	return docs, nil
})

// Contract returns the named contract: planner-adapter-v1, replay-event-v1 or
// semantic-snapshot-v1. Its schemas are derived from the Go types of this package
// and their validate tags, so they cannot drift from what the package checks. An
// unknown name is an unsupported_resource error listing the names there are.
func Contract(ctx context.Context, in ContractInput) (ContractDocument, error) {
	if err := checkContext(ctx); err != nil {
		return ContractDocument{}, err
	}
	if len(in.Name) > limit.MaxIDLength && utf8.RuneCountInString(in.Name) > limit.MaxIDLength {
		return ContractDocument{}, newError(CodeLimitExceeded, field("name"), nil, "is too long; the limit is %d characters", limit.MaxIDLength)
	}
	if err := validateInput(in); err != nil {
		return ContractDocument{}, err
	}
	docs, err := contractDocuments()
	if err != nil {
		return ContractDocument{}, internalError("deriving contract schemas")
	}
	doc := docs[in.Name]
	doc.Rules = slices.Clone(doc.Rules)
	doc.Types = slices.Clone(doc.Types)
	for i := range doc.Types {
		doc.Types[i].Schema = slices.Clone(doc.Types[i].Schema)
	}
	return doc, nil
}
