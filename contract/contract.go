// Package contract holds the documents Automium exchanges with the rest of a
// browser-testing platform, and checks them: what a runtime sends a planner
// backend and what the backend answers ([PlannerRequest], [PlannerDecision],
// planner-adapter-v1), what a browser driver shows a planner of a page
// ([SemanticSnapshot], semantic-snapshot-v1), and what a recorder writes for a
// replay viewer ([ReplayEvent], replay-event-v1). [Get] describes each
// contract as a document with JSON Schemas derived from these types, which is
// what the MCP server serves as contract://<name>.
//
// The root package, github.com/automium/automium, holds the domain: journeys,
// runs, comparisons and the intent vocabulary these documents use ([automium.Intent],
// [automium.Target], [automium.Step]). This package builds on it; the root
// package does not import this one.
//
// Each type's Validate method applies its validate tags and the contract rules
// the tags cannot say, and reports every problem at once as an
// [*automium.Error], with the codes, words and order of the root package's
// capabilities, so a program on either side of a contract checks a message the
// same way.
package contract

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/check"
	"github.com/automium/automium/internal/limit"
)

// GetInput names a contract.
type GetInput struct {
	Name string `json:"name" jsonschema:"contract name: planner-adapter-v1, replay-event-v1 or semantic-snapshot-v1" validate:"required,automium_contract"`
}

// Document is a compact, self-contained description of one contract: enough
// for an agent to produce or consume conforming JSON without reading source.
//
// Documents are built once and shared; [Get] returns a deep copy, so callers
// may modify what they get.
type Document struct {
	Name    string        `json:"name" jsonschema:"contract name, e.g. replay-event-v1"`
	Version string        `json:"version" jsonschema:"contract major version; a contract never changes incompatibly within one"`
	Summary string        `json:"summary" jsonschema:"what the contract is for, in a sentence or two"`
	Rules   []string      `json:"rules" jsonschema:"rules that span fields and are not expressed by the schemas"`
	Types   []MessageType `json:"types" jsonschema:"the contract's message types, each with its JSON Schema"`
}

// MessageType is one message type of a contract.
type MessageType struct {
	Name        string          `json:"name" jsonschema:"Go type name, e.g. PlannerRequest"`
	Description string          `json:"description" jsonschema:"the role the type plays in the contract"`
	Schema      json.RawMessage `json:"schema" jsonschema:"JSON Schema (draft 2020-12) derived from the Go type and its validate tags"`
}

var _ = check.RegisterTag("automium_contract", string(automium.CodeUnsupportedResource), "a contract of this version", Names)

// spec is the hand-written part of a contract document; schemas are derived
// from the types.
type spec struct {
	name, summary string
	rules         []string
	types         []typeSpec
}

type typeSpec struct {
	t           reflect.Type
	description string
}

var specs = []spec{
	{
		name:    automium.PlannerAdapterVersion,
		summary: "How the runtime asks a planner backend for its next step: a PlannerRequest (goal, semantic snapshot, step history, allowed intents) in, one PlannerDecision (intent, target, value, rationale, token usage) out. Every backend speaks it, which is what makes planners comparable.",
		rules: []string{
			"decision.intent must be one of request.allowedIntents.",
			"target, destination and value are present exactly as the intent requires in the " + automium.IntentVocabularyVersion + " vocabulary, whose document lists what each intent requires; targets are semantic (ARIA role plus accessible name), never CSS or XPath.",
			"targetRef, when present, is the ref of a node in request.snapshot.",
			"navigate values are app-relative routes; upload_file values are fixture-file:// references from the fixture, never paths.",
			"usage reports the tokens of this call only, as the provider counted them.",
		},
		types: []typeSpec{
			{reflect.TypeFor[PlannerRequest](), "sent to the planner backend before each step"},
			{reflect.TypeFor[PlannerDecision](), "the planner backend's answer: the next step"},
		},
	},
	{
		name:    automium.ReplayEventVersion,
		summary: "One event of a run's replay stream (replay-stream://<runId>), one JSON object per line, on six lanes: planner, executor, runtime, assertion, worker and artifact. Replays are read lane by lane to triage a run.",
		rules: []string{
			"seq starts at 1 and increases by exactly 1 per event over the whole run, across attempts; a gap means a lost event.",
			"attempt starts at 1 and is retry number + 1.",
			"type is namespaced by its lane: the part before the dot equals lane.",
			"the type decides the single payload member that is set: planner.decision=decision, executor.action=action, runtime.navigation=navigation, runtime.dialog=dialog, runtime.console=console, runtime.recovery=recovery, assertion.checked=assertion, worker.attempt_finished=attempt; planner.request, runtime.snapshot, worker.attempt_started and artifact.recorded carry none.",
			"status failed requires error, and only failed events carry one.",
			"startedAtMs is milliseconds from the start of the run, never a wall clock.",
			"snapshotRef names a semantic-snapshot-v1 snapshotId; artifactRefs name entries of the run's " + automium.ArtifactManifestVersion + " manifest by kind and path.",
		},
		types: []typeSpec{
			{reflect.TypeFor[ReplayEvent](), "one event of a replay stream"},
		},
	},
	{
		name:    automium.SemanticSnapshotVersion,
		summary: "What a planner sees of a page: an accessibility tree of nodes with ref, role, accessible name, states and visibility, plus the page route and title and the open tabs, with markers for truncation and redaction. It replaces raw DOM so decisions survive markup changes.",
		rules: []string{
			"ref is unique within a snapshot; children name refs of nodes in the same snapshot.",
			"routes are app-relative; a snapshot never carries the host the app runs on.",
			"when nodes were cut to stay within the node limit, truncated is true.",
			"a redacted name or value is replaced before the planner sees it and listed in redactions with its node ref and reason.",
			"at most one tab is active, and the nodes come from it.",
		},
		types: []typeSpec{
			{reflect.TypeFor[SemanticSnapshot](), "a snapshot of one page"},
		},
	},
}

// Names returns the names of the contracts [Get] describes, sorted.
func Names() []string {
	names := make([]string, len(specs))
	for i, c := range specs {
		names[i] = c.name
	}
	slices.Sort(names)
	return names
}

// Summary returns the summary of the named contract, the one its document
// gives, without building the document and its schemas: a listing of
// contracts needs only this, and stays cheap.
func Summary(name string) (string, bool) {
	for _, c := range specs {
		if c.name == name {
			return c.summary, true
		}
	}
	return "", false
}

// documents builds every document once: the types are fixed at compile time,
// so the schemas are too.
var documents = sync.OnceValues(func() (map[string]Document, error) {
	docs := make(map[string]Document, len(specs))
	for _, c := range specs {
		doc := Document{Name: c.name, Version: "1", Summary: c.summary, Rules: c.rules}
		for _, ts := range c.types {
			schema, err := jsonSchema(ts.t)
			if err != nil {
				return nil, err
			}
			doc.Types = append(doc.Types, MessageType{Name: ts.t.Name(), Description: ts.description, Schema: schema})
		}
		docs[c.name] = doc
	}
	return docs, nil
})

// Get returns the named contract: planner-adapter-v1, replay-event-v1 or
// semantic-snapshot-v1. Its schemas are derived from the Go types of this
// package and their validate tags, so they cannot drift from what the package
// checks. An unknown name is an unsupported_resource error listing the names
// there are.
func Get(ctx context.Context, in GetInput) (Document, error) {
	if err := check.Context(ctx); err != nil {
		return Document{}, err
	}
	if len(in.Name) > limit.MaxIDLength && utf8.RuneCountInString(in.Name) > limit.MaxIDLength {
		return Document{}, automium.NewProblem(automium.CodeLimitExceeded, automium.PathOf("name"), nil, "is too long; the limit is %d characters", limit.MaxIDLength).Err()
	}
	ps := newProblems(in)
	ps.validate(in)
	if err := ps.err(); err != nil {
		return Document{}, err
	}
	docs, err := documents()
	if err != nil {
		return Document{}, automium.NewProblem(automium.CodeInternal, automium.Path{}, nil, "internal error while %s; this is a bug in automium, please report it", "deriving contract schemas").Err()
	}
	doc := docs[in.Name]
	doc.Rules = slices.Clone(doc.Rules)
	doc.Types = slices.Clone(doc.Types)
	for i := range doc.Types {
		doc.Types[i].Schema = slices.Clone(doc.Types[i].Schema)
	}
	return doc, nil
}
