package automium

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Versions of the two contracts defined in this file; the third,
// [ReplayEventVersion], lives with the replay types.
const (
	// PlannerAdapterVersion names the contract between the runtime and a planner
	// backend: one PlannerRequest in, one PlannerDecision out.
	PlannerAdapterVersion = "planner-adapter-v1"
	// SemanticSnapshotVersion names the accessibility-tree snapshot format planners
	// see instead of raw DOM.
	SemanticSnapshotVersion = "semantic-snapshot-v1"
)

// Bounds of the contract types. A planner's context is finite, so snapshots and
// histories are bounded too, and a truncated snapshot says so.
const (
	MaxSnapshotNodes = 2000
	MaxSnapshotTabs  = 16
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
	SnapshotID string              `json:"snapshotId" jsonschema:"snapshot ID, unique within the run; replay events link to it with snapshotRef" validate:"required,max=128,automium_slug"`
	Page       SnapshotPage        `json:"page" jsonschema:"the page the snapshot was taken of" validate:"required"`
	Tabs       []SnapshotTab       `json:"tabs,omitempty" jsonschema:"open tabs, for multi-tab apps; the active one is marked" validate:"omitempty,max=16,dive"`
	Nodes      []SnapshotNode      `json:"nodes" jsonschema:"accessibility-tree nodes in document order, 1 to 2000" validate:"required,min=1,max=2000,dive"`
	Truncated  bool                `json:"truncated,omitempty" jsonschema:"whether nodes were left out to stay within the node limit"`
	Redactions []SnapshotRedaction `json:"redactions,omitempty" jsonschema:"values withheld from the planner, by node ref" validate:"omitempty,max=2000,dive"`
}

// SnapshotPage identifies the page of a snapshot. Routes are app-relative: a
// snapshot never carries the host the app runs on.
type SnapshotPage struct {
	Route string `json:"route" jsonschema:"app-relative route of the page, e.g. /search?q=kettle" validate:"required,max=2000"`
	Title string `json:"title,omitempty" jsonschema:"document title" validate:"omitempty,max=2000"`
}

// SnapshotTab is one open tab.
type SnapshotTab struct {
	Index  int    `json:"index,omitempty" jsonschema:"0-based tab index, as switch_tab takes it" validate:"min=0,max=15"`
	Route  string `json:"route" jsonschema:"app-relative route of the tab" validate:"required,max=2000"`
	Title  string `json:"title,omitempty" jsonschema:"document title of the tab" validate:"omitempty,max=2000"`
	Active bool   `json:"active,omitempty" jsonschema:"whether this is the tab the snapshot's nodes come from"`
}

// SnapshotNode is one node of the accessibility tree.
type SnapshotNode struct {
	Ref      string   `json:"ref" jsonschema:"node reference, unique within the snapshot, e.g. e12; decisions may name it as targetRef" validate:"required,max=32,automium_slug"`
	Role     string   `json:"role" jsonschema:"ARIA role, e.g. button, textbox, heading, generic" validate:"required,notblank,max=64"`
	Name     string   `json:"name,omitempty" jsonschema:"accessible name" validate:"omitempty,max=2000"`
	Value    string   `json:"value,omitempty" jsonschema:"current value of an editable or range node; redacted values are listed in redactions" validate:"omitempty,max=2000"`
	States   []string `json:"states,omitempty" jsonschema:"ARIA states that hold, sorted: busy, checked, disabled, expanded, focused, invalid, mixed, pressed, readonly, required, selected" validate:"omitempty,max=11,unique,dive,automium_node_state"`
	Visible  bool     `json:"visible,omitempty" jsonschema:"whether the node is rendered and in the viewport or scrollable to; absent means hidden"`
	Depth    int      `json:"depth,omitempty" jsonschema:"depth in the tree, 0 for top-level nodes" validate:"min=0,max=64"`
	Children []string `json:"children,omitempty" jsonschema:"refs of the child nodes, in order" validate:"omitempty,max=2000,dive,max=32"`
}

// SnapshotRedaction marks a value withheld from the planner.
type SnapshotRedaction struct {
	Ref    string `json:"ref" jsonschema:"ref of the node whose value or name was withheld" validate:"required,max=32,automium_slug"`
	Field  string `json:"field" jsonschema:"which part was withheld: name or value" validate:"required,oneof=name value"`
	Reason string `json:"reason" jsonschema:"why: credential, pii or secret" validate:"required,automium_redaction_reason"`
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
	Goal                    string                `json:"goal" jsonschema:"the journey goal, in one sentence" validate:"required,notblank,max=2000"`
	Snapshot                SemanticSnapshot      `json:"snapshot" jsonschema:"semantic-snapshot-v1 snapshot of the current page" validate:"required"`
	History                 []PlannerHistoryEntry `json:"history,omitempty" jsonschema:"earlier decisions of this attempt and their outcomes, oldest first" validate:"omitempty,max=200,dive"`
	AllowedIntents          []string              `json:"allowedIntents" jsonschema:"intents the planner may choose now; a subset of the vocabulary the app supports" validate:"required,min=1,max=32,unique,dive,automium_intent"`
}

// PlannerHistoryEntry is one earlier step of the attempt, as the planner is told:
// its own decision, rationale included, and how carrying it out went.
type PlannerHistoryEntry struct {
	StepIndex int             `json:"stepIndex,omitempty" jsonschema:"0-based step index" validate:"min=0,max=199"`
	Decision  PlannerDecision `json:"decision" jsonschema:"the decision made at that step; redacted values are replaced" validate:"required"`
	Outcome   string          `json:"outcome" jsonschema:"succeeded, failed or skipped" validate:"required,oneof=failed skipped succeeded"`
	Error     string          `json:"error,omitempty" jsonschema:"why it failed, when it did" validate:"omitempty,max=2000"`
}

// PlannerDecision is a planner backend's answer under planner-adapter-v1: one
// intent of the allowed set, with its target and value as the intent requires
// (see [Vocabulary]), the planner's rationale and what the call cost in tokens.
//
// A PlannerDecision is a plain value, safe to share between goroutines once built.
type PlannerDecision struct {
	Intent      string     `json:"intent" jsonschema:"an intent from the request's allowedIntents" validate:"required,automium_intent"`
	Target      *Target    `json:"target,omitempty" jsonschema:"semantic target (role and accessible name), for intents that take one"`
	TargetRef   string     `json:"targetRef,omitempty" jsonschema:"ref of the snapshot node the target resolves to, when the planner knows it" validate:"omitempty,max=32,automium_slug"`
	Destination *Target    `json:"destination,omitempty" jsonschema:"drop destination, for drag_drop only"`
	Value       string     `json:"value,omitempty" jsonschema:"the intent's value, for intents that take one" validate:"omitempty,max=2000"`
	Rationale   string     `json:"rationale,omitempty" jsonschema:"why the planner chose this, in a sentence or two" validate:"omitempty,max=2000"`
	Usage       TokenUsage `json:"usage,omitzero" jsonschema:"tokens the planner call consumed"`
}

// TokenUsage is what one planner call cost, as the provider reported it.
type TokenUsage struct {
	InputTokens  int `json:"inputTokens,omitempty" jsonschema:"prompt tokens" validate:"min=0,max=10000000"`
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
			"target, destination and value are present exactly as the intent requires in " + IntentVocabularyVersion + " (see Vocabulary); targets are semantic (ARIA role plus accessible name), never CSS or XPath.",
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

// contractDocuments builds every document once: the types are fixed at compile
// time, so the schemas are too.
var contractDocuments = sync.OnceValues(func() (map[string]ContractDocument, error) {
	docs := make(map[string]ContractDocument, len(contractSpecs))
	for _, c := range contractSpecs {
		doc := ContractDocument{Name: c.name, Version: "1", Summary: c.summary, Rules: c.rules}
		for _, ts := range c.types {
			schema, err := JSONSchema(ts.t)
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
	if err := ctx.Err(); err != nil {
		return ContractDocument{}, err
	}
	if len(in.Name) > MaxIDLength {
		return ContractDocument{}, newError(CodeLimitExceeded, "name", nil, "is too long; the limit is %d characters", MaxIDLength)
	}
	if err := firstProblem(in); err != nil {
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

// JSONSchema derives the JSON Schema (draft 2020-12) of the Go type t from its
// struct tags: json gives property names and optionality, jsonschema the
// descriptions, and validate the keywords (required, enums of oneof and of this
// package's closed-set tags, patterns, length, item and value bounds, uniqueness).
// Contracts and the MCP adapter both derive their schemas here, so a schema
// promises exactly what validation accepts.
//
// It fails on a validate rule with no JSON Schema translation, so an
// untranslatable rule is caught by tests, not shipped as a silently looser schema.
// The schemas of this package's capability and contract types ship precomputed
// (see schemas.go), so a server pays nothing for them at start-up; a test keeps
// them equal to what derivation gives. The result is the caller's to keep. It is
// safe for concurrent use.
func JSONSchema(t reflect.Type) (json.RawMessage, error) {
	if s, ok := precomputedSchema(t); ok {
		return s, nil
	}
	return deriveSchema(t)
}

// deriveSchema is JSONSchema without the precomputed schemas.
func deriveSchema(t reflect.Type) (json.RawMessage, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{})
	if err != nil {
		return nil, err
	}
	if err := annotate(s, t, t.String()); err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// rule is one validate tag term, such as max=64 (tag "max", param "64").
type rule struct{ tag, param string }

// parseValidate splits a validate tag into levels: the rules of the field itself,
// then one level per dive (the rules of its items, of their items, ...). Cross-field
// and or-ed rules have no JSON Schema equivalent, so they are reported rather than
// silently dropped.
func parseValidate(tag string) ([][]rule, error) {
	levels := [][]rule{nil}
	if tag == "" {
		return levels, nil
	}
	for term := range strings.SplitSeq(tag, ",") {
		if strings.Contains(term, "|") {
			return nil, fmt.Errorf("or-ed rule %q has no JSON Schema translation", term)
		}
		name, param, _ := strings.Cut(term, "=")
		if name == "dive" {
			levels = append(levels, nil)
			continue
		}
		levels[len(levels)-1] = append(levels[len(levels)-1], rule{tag: name, param: param})
	}
	return levels, nil
}

// jsonField returns the wire name of a struct field and whether it is marked
// omitempty or omitzero, mirroring encoding/json. ok is false for fields that
// never reach the wire.
func jsonField(f reflect.StructField) (name string, optional, ok bool) {
	if !f.IsExported() || f.Anonymous {
		return "", false, false
	}
	tag, hasTag := f.Tag.Lookup("json")
	name, opts, _ := strings.Cut(tag, ",")
	if hasTag && name == "-" && opts == "" {
		return "", false, false
	}
	if name == "" {
		name = f.Name
	}
	for o := range strings.SplitSeq(opts, ",") {
		if o == "omitempty" || o == "omitzero" {
			optional = true
		}
	}
	return name, optional, true
}

// hasRule reports whether rules holds tag.
func hasRule(rules []rule, tag string) bool {
	return slices.ContainsFunc(rules, func(r rule) bool { return r.tag == tag })
}

// annotate walks the Go type t and its schema s in step, translating the validate
// tag of every struct field into JSON Schema keywords. where names the position
// for error messages ("automium.CompileJourneyInput.steps").
func annotate(s *jsonschema.Schema, t reflect.Type, where string) error {
	// Nothing this package writes or reads uses null: an optional value is absent,
	// and a present list is an array, possibly empty. Saying so keeps schemas to
	// one type per value, which the single-type dialects of some model providers
	// require.
	dropNullAlternative(s)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if s.Items != nil {
			return annotate(s.Items, t.Elem(), where+"[]")
		}
	case reflect.Map:
		if s.AdditionalProperties != nil {
			return annotate(s.AdditionalProperties, t.Elem(), where+"{}")
		}
	case reflect.Struct:
		var required []string
		for _, f := range reflect.VisibleFields(t) {
			name, optional, ok := jsonField(f)
			if !ok {
				continue
			}
			prop := s.Properties[name]
			if prop == nil {
				continue // a type jsonschema-go replaced wholesale, such as time.Time
			}
			at := where + "." + name
			levels, err := parseValidate(f.Tag.Get("validate"))
			if err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
			if !optional || hasRule(levels[0], "required") {
				required = append(required, name)
			}
			ft := f.Type
			target := prop
			for i, rules := range levels {
				if i > 0 {
					for ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if (ft.Kind() != reflect.Slice && ft.Kind() != reflect.Array && ft.Kind() != reflect.Map) || target == nil {
						return fmt.Errorf("%s: dive on a %s", at, ft.Kind())
					}
					ft = ft.Elem()
					if target.Items != nil {
						target = target.Items
					} else {
						target = target.AdditionalProperties
					}
				}
				if err := applyRules(target, ft, rules); err != nil {
					return fmt.Errorf("%s: %w", at, err)
				}
			}
			if err := annotate(prop, f.Type, at); err != nil {
				return err
			}
		}
		s.Required = required
	}
	return nil
}

// applyRules adds the keywords for one level of validate rules to s, the schema of
// a value of Go type t.
func applyRules(s *jsonschema.Schema, t reflect.Type, rules []rule) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	kind := t.Kind()
	collection := kind == reflect.Slice || kind == reflect.Array || kind == reflect.Map
	number := func(p string) (float64, error) {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return 0, fmt.Errorf("bad numeric parameter %q", p)
		}
		return f, nil
	}
	count := func(p string) (int, error) {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad length parameter %q", p)
		}
		return n, nil
	}
	// bound sets a lower (lower=true) or upper bound in the keyword that fits the
	// kind: length for strings, item count for collections, value for numbers.
	bound := func(p string, lower bool) error {
		switch {
		case kind == reflect.String || collection:
			n, err := count(p)
			if err != nil {
				return err
			}
			switch {
			case kind == reflect.String && lower:
				s.MinLength = &n
			case kind == reflect.String:
				s.MaxLength = &n
			case kind == reflect.Map && lower:
				s.MinProperties = &n
			case kind == reflect.Map:
				s.MaxProperties = &n
			case lower:
				s.MinItems = &n
			default:
				s.MaxItems = &n
			}
		case isNumber(kind):
			f, err := number(p)
			if err != nil {
				return err
			}
			if lower {
				s.Minimum = &f
			} else {
				s.Maximum = &f
			}
		default:
			return fmt.Errorf("min/max on a %s", kind)
		}
		return nil
	}
	setPattern := func(p string) error {
		if s.Pattern != "" && s.Pattern != p {
			return fmt.Errorf("two patterns on one value (%q and %q)", s.Pattern, p)
		}
		s.Pattern = p
		return nil
	}
	for _, r := range rules {
		var err error
		switch r.tag {
		case "omitempty", "omitzero", "omitnil":
			// Optionality comes from the json tag.
		case "required":
			// The property is listed as required by annotate, and annotate has
			// already ruled out null. A required string may not be empty either.
			if kind == reflect.String && s.MinLength == nil {
				one := 1
				s.MinLength = &one
			}
		case "notblank":
			if kind != reflect.String {
				return fmt.Errorf("notblank on a %s has no JSON Schema translation", kind)
			}
			err = setPattern(`\S`)
		case "min", "gte":
			err = bound(r.param, true)
		case "max", "lte":
			err = bound(r.param, false)
		case "len":
			if err = bound(r.param, true); err == nil {
				err = bound(r.param, false)
			}
		case "gt", "lt":
			if !isNumber(kind) {
				return fmt.Errorf("%s on a %s has no JSON Schema translation", r.tag, kind)
			}
			var f float64
			if f, err = number(r.param); err == nil {
				if r.tag == "gt" {
					s.ExclusiveMinimum = &f
				} else {
					s.ExclusiveMaximum = &f
				}
			}
		case "oneof":
			s.Enum = nil
			for _, v := range strings.Fields(r.param) {
				if isNumber(kind) {
					f, err := number(v)
					if err != nil {
						return err
					}
					s.Enum = append(s.Enum, f)
				} else {
					s.Enum = append(s.Enum, v)
				}
			}
		case "unique":
			if kind != reflect.Slice && kind != reflect.Array {
				return fmt.Errorf("unique on a %s has no JSON Schema translation", kind)
			}
			s.UniqueItems = true
		case "hexadecimal":
			err = setPattern(`^(0[xX])?[0-9a-fA-F]+$`)
		default:
			if values, ok := TagValues(r.tag); ok {
				s.Enum = make([]any, len(values))
				for i, v := range values {
					s.Enum[i] = v
				}
				continue
			}
			if p, ok := tagPattern(r.tag); ok {
				if err := setPattern(p); err != nil {
					return err
				}
				continue
			}
			return fmt.Errorf("validate rule %q has no JSON Schema translation; teach contract.go about it", r.tag)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func isNumber(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// dropNullAlternative turns a ["null", T] type union into plain T.
func dropNullAlternative(s *jsonschema.Schema) {
	if len(s.Types) == 0 {
		return
	}
	rest := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
	if len(rest) == 1 {
		s.Type, s.Types = rest[0], nil
	} else {
		s.Types = rest
	}
}
