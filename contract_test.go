package automium

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

func TestContractNames(t *testing.T) {
	want := []string{"planner-adapter-v1", "replay-event-v1", "semantic-snapshot-v1"}
	if diff := cmp.Diff(want, ContractNames()); diff != "" {
		t.Errorf("ContractNames (-want +got):\n%s", diff)
	}
	if got, _ := tagValues("automium_contract"); !slices.Equal(got, want) {
		t.Errorf("automium_contract = %v, want %v", got, want)
	}
}

func TestContract(t *testing.T) {
	wantTypes := map[string][]string{
		PlannerAdapterVersion:   {"PlannerRequest", "PlannerDecision"},
		ReplayEventVersion:      {"ReplayEvent"},
		SemanticSnapshotVersion: {"SemanticSnapshot"},
	}
	for _, name := range ContractNames() {
		doc, err := Contract(context.Background(), ContractInput{Name: name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc.Name != name || doc.Version != "1" || doc.Summary == "" || len(doc.Rules) == 0 {
			t.Errorf("%s: incomplete document: name %q, version %q, summary %q, %d rules", name, doc.Name, doc.Version, doc.Summary, len(doc.Rules))
		}
		if summary, ok := ContractSummary(name); !ok || summary != doc.Summary {
			t.Errorf("ContractSummary(%q) = %q, %v; want the document's %q", name, summary, ok, doc.Summary)
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
	if summary, ok := ContractSummary("planner-adapter-v0"); ok || summary != "" {
		t.Errorf("ContractSummary of an unknown contract = %q, %v; want \"\", false", summary, ok)
	}
}

func TestContractDeterministicAndCopied(t *testing.T) {
	ctx := context.Background()
	in := ContractInput{Name: ReplayEventVersion}
	first, _ := Contract(ctx, in)
	firstJSON, _ := json.Marshal(first)
	first.Rules[0] = "changed"
	first.Types[0].Schema[0] = 'X'
	first.Types[0].Name = "changed"
	again, _ := Contract(ctx, in)
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
		{"", errorShape{CodeInvalidArgument, "name"}},
		{"replay-event-v2", errorShape{CodeUnsupportedResource, "name"}},
		{"automium://contracts/replay-event-v1", errorShape{CodeUnsupportedResource, "name"}},
		{strings.Repeat("x", limit.MaxIDLength+1), errorShape{CodeLimitExceeded, "name"}},
	}
	for _, tt := range tests {
		_, err := Contract(context.Background(), ContractInput{Name: tt.name})
		if diff := cmp.Diff(tt.want, shapeOf(t, err)); diff != "" {
			t.Errorf("Contract(%.40q) (-want +got):\n%s", tt.name, diff)
		}
		if e := err.(*Error); tt.want.Code == CodeUnsupportedResource && !slices.Equal(e.Allowed, ContractNames()) {
			t.Errorf("Contract(%q): allowed %v, want %v", tt.name, e.Allowed, ContractNames())
		}
	}
}

// sampleContractMessages are valid instances of every contract type. They must pass
// both the validator and the derived JSON Schema, which is what keeps the two in
// agreement.
func sampleContractMessages() map[string]any {
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
		Target:    &Target{Role: "button", Name: "Add to cart"},
		TargetRef: "e3",
		Rationale: "The kettle is listed; adding it to the cart is the next step.",
		Usage:     TokenUsage{InputTokens: 1840, OutputTokens: 52},
	}
	step := 3
	return map[string]any{
		"PlannerRequest": PlannerRequest{
			RunID: testRunID, Attempt: 1, IntentVocabularyVersion: IntentVocabularyVersion,
			Goal: "Find a kettle and add it to the cart", Snapshot: snapshot,
			History: []PlannerHistoryEntry{
				{StepIndex: 0, Decision: PlannerDecision{Intent: "navigate", Value: "/"}, Outcome: "succeeded"},
				{StepIndex: 1, Decision: PlannerDecision{Intent: "fill", Target: &Target{Role: "searchbox", Name: "Search products"}, Value: "kettle"}, Outcome: "failed", Error: "not editable"},
			},
			AllowedIntents: []Intent{"click", "fill", "finish", "navigate", "press_key"},
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
	for _, name := range ContractNames() {
		doc, err := Contract(context.Background(), ContractInput{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		for _, ct := range doc.Types {
			sample, ok := samples[ct.Name]
			if !ok {
				t.Errorf("no sample message for %s", ct.Name)
				continue
			}
			if problems := validateStruct(sample); len(problems) > 0 {
				t.Errorf("%s sample fails validation: %v", ct.Name, problems[0])
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
	if p, _ := tagPattern("automium_run_id"); s.Properties["runId"].Pattern != p {
		t.Errorf("runId pattern = %q, want %q", s.Properties["runId"].Pattern, p)
	}
	if m := s.Properties["seq"].Minimum; m == nil || *m != 1 {
		t.Errorf("seq minimum = %v, want 1", m)
	}
	if diff := cmp.Diff([]string{"runId", "attempt", "seq", "lane", "type", "status"}, s.Required); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
}

// TestRequiredMeansTheSame enforces the tag rule on every input and contract type
// of this file set: a field that the schema lists as required (no omitempty or
// omitzero) carries validate:"required", and a field with validate:"required" is
// required on the wire.
func TestRequiredMeansTheSame(t *testing.T) {
	roots := []reflect.Type{
		reflect.TypeFor[CreateRunSubmissionInput](),
		reflect.TypeFor[GetReplaySummaryInput](),
		reflect.TypeFor[GetArtifactManifestInput](),
		reflect.TypeFor[ContractInput](),
		reflect.TypeFor[PlannerRequest](),
		reflect.TypeFor[PlannerDecision](),
		reflect.TypeFor[ReplayEvent](),
		reflect.TypeFor[SemanticSnapshot](),
	}
	seen := map[reflect.Type]bool{}
	var walk func(typ reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for _, f := range reflect.VisibleFields(typ) {
			name, optional, ok := jsonField(f)
			if !ok {
				continue
			}
			required := slices.Contains(strings.Split(f.Tag.Get("validate"), ","), "required")
			if optional == required {
				t.Errorf("%s.%s: json optional=%v but validate required=%v", typ.Name(), name, optional, required)
			}
			if f.Tag.Get("jsonschema") == "" {
				t.Errorf("%s.%s: no jsonschema description", typ.Name(), name)
			}
			walk(f.Type)
		}
	}
	for _, r := range roots {
		walk(r)
	}
}

// A validate rule with no JSON Schema translation is an error, not a silently
// looser schema.
func TestJSONSchemaRejectsUntranslatableRules(t *testing.T) {
	type bad struct {
		A string `json:"a" validate:"required,email"`
	}
	if _, err := jsonSchema(reflect.TypeFor[bad]()); err == nil {
		t.Error("JSONSchema accepted a validate rule it cannot translate")
	}
	type twoPatterns struct {
		A string `json:"a" validate:"required,automium_slug,automium_run_id"`
	}
	if _, err := jsonSchema(reflect.TypeFor[twoPatterns]()); err == nil {
		t.Error("JSONSchema accepted two patterns on one value, which one schema pattern cannot express")
	}
}

// TestSchemasAdvertiseLimits keeps the literal bounds in validate tags equal to the
// exported constants that documentation and callers rely on.
func TestSchemasAdvertiseLimits(t *testing.T) {
	type bounds struct {
		Maximum   *float64 `json:"maximum"`
		MaxItems  *int     `json:"maxItems"`
		MaxLength *int     `json:"maxLength"`
	}
	props := func(typ reflect.Type) map[string]bounds {
		raw, err := jsonSchema(typ)
		if err != nil {
			t.Fatal(err)
		}
		var s struct {
			Properties map[string]bounds `json:"properties"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		return s.Properties
	}
	num := func(f *float64) int {
		if f == nil {
			return -1
		}
		return int(*f)
	}
	deref := func(n *int) int {
		if n == nil {
			return -1
		}
		return *n
	}
	replay := props(reflect.TypeFor[GetReplaySummaryInput]())
	manifest := props(reflect.TypeFor[GetArtifactManifestInput]())
	entry := props(reflect.TypeFor[ArtifactEntry]())
	event := props(reflect.TypeFor[ReplayEvent]())
	snapshot := props(reflect.TypeFor[SemanticSnapshot]())
	request := props(reflect.TypeFor[PlannerRequest]())
	history := props(reflect.TypeFor[PlannerHistoryEntry]())
	planner := props(reflect.TypeFor[PlannerRef]())
	got := map[string]int{
		"retryCount":          num(replay["retryCount"].Maximum),
		"entries":             deref(manifest["entries"].MaxItems),
		"root":                deref(manifest["root"].MaxLength),
		"entry.path":          deref(entry["path"].MaxLength),
		"entry.size":          num(entry["size"].Maximum),
		"event.attempt":       num(event["attempt"].Maximum),
		"event.stepIndex":     num(event["stepIndex"].Maximum),
		"snapshot.nodes":      deref(snapshot["nodes"].MaxItems),
		"snapshot.tabs":       deref(snapshot["tabs"].MaxItems),
		"request.attempt":     num(request["attempt"].Maximum),
		"request.history":     deref(request["history"].MaxItems),
		"history.stepIndex":   num(history["stepIndex"].Maximum),
		"planner.id":          deref(planner["id"].MaxLength),
		"planner.vendor":      deref(planner["vendor"].MaxLength),
		"planner.model":       deref(planner["model"].MaxLength),
		"artifactManifestRef": deref(replay["artifactManifestRef"].MaxLength),
	}
	want := map[string]int{
		"retryCount":          limit.MaxRetryCount,
		"entries":             limit.MaxArtifactEntries,
		"root":                limit.MaxPathLength,
		"entry.path":          limit.MaxPathLength,
		"entry.size":          limit.MaxArtifactSizeBytes,
		"event.attempt":       limit.MaxRetryCount + 1,
		"event.stepIndex":     limit.MaxSteps - 1,
		"snapshot.nodes":      limit.MaxSnapshotNodes,
		"snapshot.tabs":       limit.MaxSnapshotTabs,
		"request.attempt":     limit.MaxRetryCount + 1,
		"request.history":     limit.MaxSteps,
		"history.stepIndex":   limit.MaxSteps - 1,
		"planner.id":          limit.MaxIDLength,
		"planner.vendor":      limit.MaxIDLength,
		"planner.model":       limit.MaxIDLength,
		"artifactManifestRef": maxRefLength,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema bounds differ from the constants (-want +got):\n%s", diff)
	}
}
