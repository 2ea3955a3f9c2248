package contract

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/check"
	"github.com/automium/automium/internal/limit"
	"github.com/automium/automium/internal/testsupport"
)

const testRunID = "run-0123456789abcdef0123"

// problem is the code and field of one problem, what the tests compare.
type problem struct {
	Code  automium.Code
	Field string
}

type errorShape = problem

// shapeOf returns the code and field of err, failing the test if err is not
// an *automium.Error.
func shapeOf(t *testing.T, err error) errorShape {
	t.Helper()
	var e *automium.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T (%v), want *automium.Error", err, err)
	}
	return errorShape{Code: e.Code, Field: e.Field}
}

// errorProblems returns the code and field of every problem of err.
func errorProblems(t *testing.T, err error) []problem {
	t.Helper()
	var e *automium.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want *automium.Error", err)
	}
	var out []problem
	for _, p := range e.Problems() {
		out = append(out, problem{p.Code, p.Field})
	}
	return out
}

// schemaEnum returns the enum the schema of typ advertises for its property
// prop: a closed set's values, as a client sees them.
func schemaEnum(t *testing.T, typ reflect.Type, prop string) []string {
	t.Helper()
	raw, err := jsonSchema(typ)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s.Properties[prop].Enum
}

// runIDPattern is the pattern the root package's schemas give a run ID.
func runIDPattern(t *testing.T) string {
	t.Helper()
	raw, err := adapter.JSONSchema(reflect.TypeFor[automium.GetReplaySummaryInput]())
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties map[string]struct {
			Pattern string `json:"pattern"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s.Properties["runId"].Pattern
}

func TestContractNames(t *testing.T) {
	want := []string{"planner-adapter-v1", "replay-event-v1", "semantic-snapshot-v1"}
	if diff := cmp.Diff(want, Names()); diff != "" {
		t.Errorf("ContractNames (-want +got):\n%s", diff)
	}
	if got := schemaEnum(t, reflect.TypeFor[GetInput](), "name"); !slices.Equal(got, want) {
		t.Errorf("automium_contract = %v, want %v", got, want)
	}
}

func TestContract(t *testing.T) {
	wantTypes := map[string][]string{
		automium.PlannerAdapterVersion:   {"PlannerRequest", "PlannerDecision"},
		automium.ReplayEventVersion:      {"ReplayEvent"},
		automium.SemanticSnapshotVersion: {"SemanticSnapshot"},
	}
	for _, name := range Names() {
		doc, err := Get(context.Background(), GetInput{Name: name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc.Name != name || doc.Version != "1" || doc.Summary == "" || len(doc.Rules) == 0 {
			t.Errorf("%s: incomplete document: name %q, version %q, summary %q, %d rules", name, doc.Name, doc.Version, doc.Summary, len(doc.Rules))
		}
		if summary, ok := Summary(name); !ok || summary != doc.Summary {
			t.Errorf("Summary(%q) = %q, %v; want the document's %q", name, summary, ok, doc.Summary)
		}
		var types []string
		for _, ct := range doc.Types {
			types = append(types, ct.Name)
			var s jsonschema.Schema
			if err := json.Unmarshal(ct.Schema, &s); err != nil {
				t.Errorf("%s.%s: schema does not decode: %v", name, ct.Name, err)
				continue
			}
			if s.Type != "object" || len(s.Required) == 0 || ct.Description == "" {
				t.Errorf("%s.%s: schema type %q, required %v, description %q", name, ct.Name, s.Type, s.Required, ct.Description)
			}
			if _, err := s.Resolve(nil); err != nil {
				t.Errorf("%s.%s: schema does not resolve: %v", name, ct.Name, err)
			}
		}
		if diff := cmp.Diff(wantTypes[name], types); diff != "" {
			t.Errorf("%s: types (-want +got):\n%s", name, diff)
		}
	}
}

func TestContractSummaryUnknown(t *testing.T) {
	if summary, ok := Summary("planner-adapter-v0"); ok || summary != "" {
		t.Errorf("Summary of an unknown contract = %q, %v; want \"\", false", summary, ok)
	}
}

func TestContractDeterministicAndCopied(t *testing.T) {
	ctx := context.Background()
	in := GetInput{Name: automium.ReplayEventVersion}
	first, _ := Get(ctx, in)
	firstJSON, _ := json.Marshal(first)
	first.Rules[0] = "changed"
	first.Types[0].Schema[0] = 'X'
	first.Types[0].Name = "changed"
	again, _ := Get(ctx, in)
	againJSON, _ := json.Marshal(again)
	if string(firstJSON) != string(againJSON) {
		t.Error("a caller's changes to a contract document leaked into the next call")
	}
}

func TestContractValidation(t *testing.T) {
	tests := []struct {
		name string
		want errorShape
	}{
		{"", errorShape{automium.CodeInvalidArgument, "name"}},
		{"replay-event-v2", errorShape{automium.CodeUnsupportedResource, "name"}},
		{"automium://contracts/replay-event-v1", errorShape{automium.CodeUnsupportedResource, "name"}},
		{strings.Repeat("x", limit.MaxIDLength+1), errorShape{automium.CodeLimitExceeded, "name"}},
	}
	for _, tt := range tests {
		_, err := Get(context.Background(), GetInput{Name: tt.name})
		if diff := cmp.Diff(tt.want, shapeOf(t, err)); diff != "" {
			t.Errorf("Contract(%.40q) (-want +got):\n%s", tt.name, diff)
		}
		if e := err.(*automium.Error); tt.want.Code == automium.CodeUnsupportedResource && !slices.Equal(e.Allowed, Names()) {
			t.Errorf("Contract(%q): allowed %v, want %v", tt.name, e.Allowed, Names())
		}
	}
}

// sampleContractMessages are valid instances of every contract type. They must pass
// both the validator and the derived JSON Schema, which is what keeps the two in
// agreement.
func sampleContractMessages() map[string]interface{ Validate() error } {
	snapshot := SemanticSnapshot{
		SnapshotID: "snap-3",
		Page:       SnapshotPage{Route: "/search?q=kettle", Title: "Search results"},
		Tabs:       []SnapshotTab{{Index: 0, Route: "/search?q=kettle", Title: "Search results", Active: true}},
		Nodes: []SnapshotNode{
			{Ref: "e1", Role: "main", Visible: true, Children: []string{"e2", "e3"}},
			{Ref: "e2", Role: "searchbox", Name: "Search products", Value: "kettle", States: []NodeState{"focused"}, Visible: true, Depth: 1},
			{Ref: "e3", Role: "button", Name: "Add to cart", Visible: true, Depth: 1},
		},
		Truncated:  true,
		Redactions: []SnapshotRedaction{{Ref: "e2", Field: "value", Reason: "pii"}},
	}
	decision := PlannerDecision{
		Intent:    "click",
		Target:    &automium.Target{Role: "button", Name: "Add to cart"},
		TargetRef: "e3",
		Rationale: "The kettle is listed; adding it to the cart is the next step.",
		Usage:     TokenUsage{InputTokens: 1840, OutputTokens: 52},
	}
	step := 3
	return map[string]interface{ Validate() error }{
		"PlannerRequest": PlannerRequest{
			RunID: testRunID, Attempt: 1, IntentVocabularyVersion: automium.IntentVocabularyVersion,
			Goal: "Find a kettle and add it to the cart", Snapshot: snapshot,
			History: []PlannerHistoryEntry{
				{StepIndex: 0, Decision: PlannerDecision{Intent: "navigate", Value: "/"}, Outcome: "succeeded"},
				{StepIndex: 1, Decision: PlannerDecision{Intent: "fill", Target: &automium.Target{Role: "searchbox", Name: "Search products"}, Value: "kettle"}, Outcome: "failed", Error: "not editable"},
			},
			AllowedIntents: []automium.Intent{"click", "fill", "finish", "navigate", "press_key"},
		},
		"PlannerDecision":  decision,
		"SemanticSnapshot": snapshot,
		"ReplayEvent": ReplayEvent{
			RunID: testRunID, Attempt: 2, JourneyNodeID: "step-4", StepIndex: &step, Seq: 31,
			Lane: LanePlanner, Type: "planner.decision", StartedAtMs: 5400, DurationMs: 912, Status: "succeeded",
			SnapshotRef: "snap-3", Payload: &ReplayEventPayload{Decision: &decision},
		},
	}
}

func TestContractSchemasAcceptValidMessages(t *testing.T) {
	samples := sampleContractMessages()
	for _, name := range Names() {
		doc, err := Get(context.Background(), GetInput{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		for _, ct := range doc.Types {
			sample, ok := samples[ct.Name]
			if !ok {
				t.Errorf("no sample message for %s", ct.Name)
				continue
			}
			if err := sample.Validate(); err != nil {
				t.Errorf("%s sample fails validation: %v", ct.Name, err)
			}
			var s jsonschema.Schema
			if err := json.Unmarshal(ct.Schema, &s); err != nil {
				t.Fatal(err)
			}
			resolved, err := s.Resolve(nil)
			if err != nil {
				t.Fatal(err)
			}
			var instance any
			b, _ := json.Marshal(sample)
			if err := json.Unmarshal(b, &instance); err != nil {
				t.Fatal(err)
			}
			if err := resolved.Validate(instance); err != nil {
				t.Errorf("%s sample fails its schema: %v\n%s", ct.Name, err, b)
			}
		}
	}
}

// The schemas carry the closed sets and bounds of the validate tags.
func TestContractSchemaKeywords(t *testing.T) {
	raw, err := jsonSchema(reflect.TypeFor[ReplayEvent]())
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Enum    []string `json:"enum"`
			Pattern string   `json:"pattern"`
			Minimum *float64 `json:"minimum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(lanes, s.Properties["lane"].Enum); diff != "" {
		t.Errorf("lane enum (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(replayEventTypeNames, s.Properties["type"].Enum); diff != "" {
		t.Errorf("type enum (-want +got):\n%s", diff)
	}
	if p := runIDPattern(t); s.Properties["runId"].Pattern != p {
		t.Errorf("runId pattern = %q, want %q", s.Properties["runId"].Pattern, p)
	}
	if m := s.Properties["seq"].Minimum; m == nil || *m != 1 {
		t.Errorf("seq minimum = %v, want 1", m)
	}
	if diff := cmp.Diff([]string{"runId", "attempt", "seq", "lane", "type", "status"}, s.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
}

// TestRequiredMeansTheSame enforces the tag rule on every contract type, as
// the root package's test of the same name does on its inputs: a field that the schema lists as required (no omitempty or
// omitzero) carries validate:"required", and a field with validate:"required" is
// required on the wire.
func TestRequiredMeansTheSame(t *testing.T) {
	roots := []reflect.Type{
		reflect.TypeFor[GetInput](),
		reflect.TypeFor[PlannerRequest](),
		reflect.TypeFor[PlannerDecision](),
		reflect.TypeFor[ReplayEvent](),
		reflect.TypeFor[SemanticSnapshot](),
	}
	testsupport.RequiredMeansTheSame(t, roots...)
}

func validSnapshot() SemanticSnapshot {
	return SemanticSnapshot{
		SnapshotID: "snap-1",
		Page:       SnapshotPage{Route: "/cart"},
		Nodes: []SnapshotNode{
			{Ref: "e1", Role: "main", Children: []string{"e2"}},
			{Ref: "e2", Role: "button", Name: "Checkout", Depth: 1},
		},
	}
}

func validRequest() PlannerRequest {
	return PlannerRequest{RunID: testRunID, Attempt: 1, IntentVocabularyVersion: automium.IntentVocabularyVersion, Goal: "Check out",
		Snapshot: validSnapshot(), AllowedIntents: []automium.Intent{"click", "finish"}}
}

// TestContractValidate checks each contract type's Validate against its
// contract rules, one failing case per rule and a valid message that passes.
func TestContractValidate(t *testing.T) {
	click := PlannerDecision{Intent: "click", Target: &automium.Target{Role: "button", Name: "Checkout"}, TargetRef: "e2"}
	tests := []struct {
		name     string
		validate func() error
		want     []problem
	}{
		{"valid snapshot", validSnapshot().Validate, nil},
		{"duplicate ref", func() error { s := validSnapshot(); s.Nodes[1].Ref = "e1"; return s.Validate() }, []problem{{automium.CodeInvalidArgument, "nodes[0].children[0]"}, {automium.CodeInvalidArgument, "nodes[1].ref"}}},
		{"child names no node", func() error { s := validSnapshot(); s.Nodes[0].Children = []string{"e9"}; return s.Validate() }, []problem{{automium.CodeInvalidArgument, "nodes[0].children[0]"}}},
		{"absolute route", func() error { s := validSnapshot(); s.Page.Route = "https://evil.example/"; return s.Validate() }, []problem{{automium.CodeInvalidArgument, "page.route"}}},
		{"two active tabs", func() error {
			s := validSnapshot()
			s.Tabs = []SnapshotTab{{Route: "/a", Active: true}, {Index: 1, Route: "/b", Active: true}}
			return s.Validate()
		}, []problem{{automium.CodeInvalidArgument, "tabs[1].active"}}},
		{"valid decision", click.Validate, nil},
		{"decision missing its target", PlannerDecision{Intent: "click"}.Validate, []problem{{automium.CodeInvalidArgument, "target"}}},
		{"valid request", validRequest().Validate, nil},
		{"request with a bad snapshot", func() error { r := validRequest(); r.Snapshot.Nodes[0].Children = []string{"e9"}; return r.Validate() }, []problem{{automium.CodeInvalidArgument, "snapshot.nodes[0].children[0]"}}},
		{"decision answers the request", func() error { return validRequest().Check(click) }, nil},
		{"intent not allowed", func() error {
			return validRequest().Check(PlannerDecision{Intent: "go_back"})
		}, []problem{{automium.CodeUnsupportedIntent, "intent"}}},
		{"targetRef not in the snapshot", func() error { d := click; d.TargetRef = "e9"; return validRequest().Check(d) }, []problem{{automium.CodeInvalidArgument, "targetRef"}}},
		{"valid event", ReplayEvent{RunID: testRunID, Attempt: 1, Seq: 1, Lane: LanePlanner, Type: "planner.decision", Status: "succeeded", Payload: &ReplayEventPayload{Decision: &click}}.Validate, nil},
		{"type of another lane", ReplayEvent{RunID: testRunID, Attempt: 1, Seq: 1, Lane: LaneExecutor, Type: "planner.request", Status: "info"}.Validate, []problem{{automium.CodeInvalidArgument, "type"}}},
		{"payload the type does not carry", ReplayEvent{RunID: testRunID, Attempt: 1, Seq: 1, Lane: LanePlanner, Type: "planner.request", Status: "info", Payload: &ReplayEventPayload{Decision: &click}}.Validate, []problem{{automium.CodeInvalidArgument, "payload"}}},
		{"failed without an error", ReplayEvent{RunID: testRunID, Attempt: 1, Seq: 1, Lane: LaneWorker, Type: "worker.attempt_started", Status: "failed"}.Validate, []problem{{automium.CodeInvalidArgument, "error"}}},
		{"error without failing", ReplayEvent{RunID: testRunID, Attempt: 1, Seq: 1, Lane: LaneWorker, Type: "worker.attempt_started", Status: "info", Error: &EventError{Code: "x", Message: "y"}}.Validate, []problem{{automium.CodeInvalidArgument, "error"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.validate()
			var got []problem
			if err != nil {
				got = errorProblems(t, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

// The event type table, the lanes and the payload union agree: every type is
// namespaced by a lane, every payload member a type names exists, and every member
// is named by some type.
func TestReplayEventTypes(t *testing.T) {
	members := map[string]bool{}
	pt := reflect.TypeFor[ReplayEventPayload]()
	for i := range pt.NumField() {
		name, _, _ := strings.Cut(pt.Field(i).Tag.Get("json"), ",")
		members[name] = false
	}
	for typ, member := range replayEventTypes {
		lane, name, ok := strings.Cut(string(typ), ".")
		if !ok || name == "" || !slices.Contains(lanes, lane) {
			t.Errorf("event type %q is not namespaced by a lane", typ)
		}
		if member == "" {
			continue
		}
		if _, ok := members[member]; !ok {
			t.Errorf("event type %q names payload member %q, which ReplayEventPayload lacks", typ, member)
		}
		members[member] = true
	}
	for m, used := range members {
		if !used {
			t.Errorf("payload member %q is named by no event type", m)
		}
	}
	for _, lane := range lanes {
		if !slices.ContainsFunc(replayEventTypeNames, func(typ string) bool { return strings.HasPrefix(typ, lane+".") }) {
			t.Errorf("lane %q has no event type", lane)
		}
	}
	want := []string{"artifact", "assertion", "executor", "planner", "runtime", "worker"}
	if got := schemaEnum(t, reflect.TypeFor[ReplayEvent](), "lane"); !slices.Equal(got, want) {
		t.Errorf("lanes = %v, want %v", got, want)
	}
}

// A well-formed event passes the shared validator, and a broken one fails it with
// JSON paths, so the tags on the contract types are live rules.
func TestReplayEventValidates(t *testing.T) {
	step := 2
	ev := ReplayEvent{
		RunID: testRunID, Attempt: 1, JourneyNodeID: "step-3", StepIndex: &step, Seq: 7,
		Lane: LaneExecutor, Type: "executor.action", StartedAtMs: 1200, DurationMs: 85, Status: "failed",
		Error:        &EventError{Code: "target_not_found", Message: "no button named Add to cart"},
		SnapshotRef:  "snap-7",
		ArtifactRefs: []ArtifactRef{{Kind: "screenshot", Path: "attempt-1/step-3.png"}},
		Payload:      &ReplayEventPayload{Action: &automium.Step{Intent: "click", Target: &automium.Target{Role: "button", Name: "Add to cart"}}},
	}
	if problems := check.Validate[automium.Problem](ev); len(problems) > 0 {
		t.Fatalf("valid event has problems: %v", problems)
	}
	ev.Lane = "browser"
	ev.Payload.Action.Intent = "tap"
	var got []errorShape
	for _, p := range check.Validate[automium.Problem](ev) {
		got = append(got, errorShape{p.Code, p.Field})
	}
	want := []errorShape{{automium.CodeInvalidArgument, "lane"}, {automium.CodeUnsupportedIntent, "payload.action.intent"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
