package contract

import (
	"slices"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/closedset"
	"github.com/automium/automium/internal/echo"
)

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
	AllowedIntents          []automium.Intent     `json:"allowedIntents" jsonschema:"intents the planner may choose now; a subset of the vocabulary the app supports" validate:"required,min=1,max=32,unique,dive,automium_intent"`
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
// (see [automium.Vocabulary]), the planner's rationale and what the call cost in tokens.
//
// A PlannerDecision is a plain value, safe to share between goroutines once built.
type PlannerDecision struct {
	Intent      automium.Intent  `json:"intent" jsonschema:"an intent from the request's allowedIntents" validate:"required,automium_intent"`
	Target      *automium.Target `json:"target,omitempty" jsonschema:"semantic target (role and accessible name), for intents that take one"`
	TargetRef   string           `json:"targetRef,omitempty" jsonschema:"ref of the snapshot node the target resolves to, when the planner knows it" validate:"omitempty,max=32,automium_slug"`
	Destination *automium.Target `json:"destination,omitempty" jsonschema:"for drag_drop only"`
	Value       string           `json:"value,omitempty" jsonschema:"the intent's value, for intents that take one" validate:"omitempty,max_text_length"`
	Rationale   string           `json:"rationale,omitempty" jsonschema:"why the planner chose this, in a sentence or two" validate:"omitempty,max_text_length"`
	Usage       TokenUsage       `json:"usage,omitzero" jsonschema:"tokens the planner call consumed"`
}

// TokenUsage is what one planner call cost, as the provider reported it.
type TokenUsage struct {
	InputTokens  int `json:"inputTokens,omitempty" jsonschema:"input tokens, 0 to 100000000; planner prompt tokens spent on the run" validate:"min=0,max=10000000"`
	OutputTokens int `json:"outputTokens,omitempty" jsonschema:"completion tokens, including reasoning" validate:"min=0,max=10000000"`
}

// Validate checks d against the planner-adapter-v1 contract on its own: its
// field rules, and the target, destination and value its intent requires in the
// vocabulary. [PlannerRequest.Check] checks a decision against its request.
func (d PlannerDecision) Validate() error {
	ps := newProblems(d)
	ps.validate(d)
	ps.decision(automium.Path{}, d)
	return ps.err()
}

// Validate checks r against the planner-adapter-v1 contract: its field rules,
// its snapshot's rules, and every decision of its history.
func (r PlannerRequest) Validate() error {
	ps := newProblems(r)
	ps.validate(r)
	snapshotProblems(ps, field("snapshot"), r.Snapshot)
	for i, h := range r.History {
		ps.decision(field("history").Index(i).Field("decision"), h.Decision)
	}
	return ps.err()
}

// Check validates a planner's decision d as the answer to r: d on its own,
// then the rules that relate the two. The intent must be one of the request's
// allowedIntents, and a targetRef must name a node of the request's snapshot.
func (r PlannerRequest) Check(d PlannerDecision) error {
	ps := newProblems(d)
	ps.validate(d)
	ps.decision(automium.Path{}, d)
	if d.Intent != "" && !ps.has(field("intent")) && !slices.Contains(r.AllowedIntents, d.Intent) {
		ps.add(field("intent"), automium.CodeUnsupportedIntent, closedset.Strings(r.AllowedIntents), "%s is not one of the request's allowedIntents; use one of the allowed values", echo.Value(d.Intent))
	}
	if d.TargetRef != "" && !slices.ContainsFunc(r.Snapshot.Nodes, func(n SnapshotNode) bool { return n.Ref == d.TargetRef }) {
		ps.add(field("targetRef"), automium.CodeInvalidArgument, nil, "%s is not the ref of a node of the request's snapshot", echo.Value(d.TargetRef))
	}
	return ps.err()
}
