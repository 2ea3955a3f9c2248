package automium

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
	return PlannerRequest{RunID: testRunID, Attempt: 1, IntentVocabularyVersion: IntentVocabularyVersion, Goal: "Check out",
		Snapshot: validSnapshot(), AllowedIntents: []Intent{"click", "finish"}}
}

// TestContractValidate checks each contract type's Validate against its
// contract rules, one failing case per rule and a valid message that passes.
func TestContractValidate(t *testing.T) {
	click := PlannerDecision{Intent: "click", Target: &Target{Role: "button", Name: "Checkout"}, TargetRef: "e2"}
	tests := []struct {
		name     string
		validate func() error
		want     []problem
	}{
		{"valid snapshot", validSnapshot().Validate, nil},
		{"duplicate ref", func() error { s := validSnapshot(); s.Nodes[1].Ref = "e1"; return s.Validate() }, []problem{{CodeInvalidArgument, "nodes[0].children[0]"}, {CodeInvalidArgument, "nodes[1].ref"}}},
		{"child names no node", func() error { s := validSnapshot(); s.Nodes[0].Children = []string{"e9"}; return s.Validate() }, []problem{{CodeInvalidArgument, "nodes[0].children[0]"}}},
		{"absolute route", func() error { s := validSnapshot(); s.Page.Route = "https://evil.example/"; return s.Validate() }, []problem{{CodeInvalidArgument, "page.route"}}},
		{"two active tabs", func() error {
			s := validSnapshot()
			s.Tabs = []SnapshotTab{{Route: "/a", Active: true}, {Index: 1, Route: "/b", Active: true}}
			return s.Validate()
		}, []problem{{CodeInvalidArgument, "tabs[1].active"}}},
		{"valid decision", click.Validate, nil},
		{"decision missing its target", PlannerDecision{Intent: "click"}.Validate, []problem{{CodeInvalidArgument, "target"}}},
		{"valid request", validRequest().Validate, nil},
		{"request with a bad snapshot", func() error { r := validRequest(); r.Snapshot.Nodes[0].Children = []string{"e9"}; return r.Validate() }, []problem{{CodeInvalidArgument, "snapshot.nodes[0].children[0]"}}},
		{"decision answers the request", func() error { return validRequest().Check(click) }, nil},
		{"intent not allowed", func() error {
			return validRequest().Check(PlannerDecision{Intent: "go_back"})
		}, []problem{{CodeUnsupportedIntent, "intent"}}},
		{"targetRef not in the snapshot", func() error { d := click; d.TargetRef = "e9"; return validRequest().Check(d) }, []problem{{CodeInvalidArgument, "targetRef"}}},
		{"valid event", ReplayEvent{RunID: testRunID, Attempt: 1, Seq: 1, Lane: LanePlanner, Type: "planner.decision", Status: "succeeded", Payload: &ReplayEventPayload{Decision: &click}}.Validate, nil},
		{"type of another lane", ReplayEvent{RunID: testRunID, Attempt: 1, Seq: 1, Lane: LaneExecutor, Type: "planner.request", Status: "info"}.Validate, []problem{{CodeInvalidArgument, "type"}}},
		{"payload the type does not carry", ReplayEvent{RunID: testRunID, Attempt: 1, Seq: 1, Lane: LanePlanner, Type: "planner.request", Status: "info", Payload: &ReplayEventPayload{Decision: &click}}.Validate, []problem{{CodeInvalidArgument, "payload"}}},
		{"failed without an error", ReplayEvent{RunID: testRunID, Attempt: 1, Seq: 1, Lane: LaneWorker, Type: "worker.attempt_started", Status: "failed"}.Validate, []problem{{CodeInvalidArgument, "error"}}},
		{"error without failing", ReplayEvent{RunID: testRunID, Attempt: 1, Seq: 1, Lane: LaneWorker, Type: "worker.attempt_started", Status: "info", Error: &EventError{Code: "x", Message: "y"}}.Validate, []problem{{CodeInvalidArgument, "error"}}},
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
