package automium

import (
	"reflect"
	"slices"
	"strings"

	"github.com/automium/automium/internal/echo"
)

// The contract types are what other programs exchange: a runtime and a planner
// backend (PlannerRequest, PlannerDecision), a recorder and a replay viewer
// (ReplayEvent), a browser driver and a planner (SemanticSnapshot). Their
// Validate methods apply the validate tags and the contract rules the tags
// cannot say, as [Contract] documents them, and report every problem at once,
// so a program on either side checks a message the same way.

// Validate checks s against the semantic-snapshot-v1 contract: its field rules,
// refs unique within the snapshot, children and redactions naming refs of the
// snapshot, app-relative routes, and at most one active tab.
func (s SemanticSnapshot) Validate() error {
	ps := newProblems(s)
	ps.validate(s)
	snapshotProblems(ps, Path{}, s)
	return ps.err()
}

// snapshotProblems records the snapshot rules the tags cannot say, under at
// (the snapshot's own path; the zero path for a snapshot on its own).
func snapshotProblems(ps *problems, at Path, s SemanticSnapshot) {
	under := at.dot
	refs := make(map[string]int, len(s.Nodes))
	for i, n := range s.Nodes {
		if j, dup := refs[n.Ref]; dup && n.Ref != "" {
			ps.add(under("nodes").at(i).dot("ref"), CodeInvalidArgument, nil, "ref %s is also the ref of nodes[%d]; refs are unique within a snapshot", echo.Value(n.Ref), j)
			continue
		}
		refs[n.Ref] = i
	}
	for i, n := range s.Nodes {
		for k, c := range n.Children {
			if _, ok := refs[c]; !ok {
				ps.add(under("nodes").at(i).dot("children").at(k), CodeInvalidArgument, nil, "%s is not the ref of a node of this snapshot", echo.Value(c))
			}
		}
	}
	for i, r := range s.Redactions {
		if _, ok := refs[r.Ref]; !ok && r.Ref != "" {
			ps.add(under("redactions").at(i).dot("ref"), CodeInvalidArgument, nil, "%s is not the ref of a node of this snapshot", echo.Value(r.Ref))
		}
	}
	if msg, bad := routeProblem(s.Page.Route); s.Page.Route != "" && bad {
		ps.add(under("page").dot("route"), CodeInvalidArgument, nil, "%s", msg)
	}
	active := -1
	for i, tab := range s.Tabs {
		if msg, bad := routeProblem(tab.Route); tab.Route != "" && bad {
			ps.add(under("tabs").at(i).dot("route"), CodeInvalidArgument, nil, "%s", msg)
		}
		if !tab.Active {
			continue
		}
		if active >= 0 {
			ps.add(under("tabs").at(i).dot("active"), CodeInvalidArgument, nil, "tabs[%d] is already the active tab; at most one tab is active", active)
			continue
		}
		active = i
	}
}

// Validate checks d against the planner-adapter-v1 contract on its own: its
// field rules, and the target, destination and value its intent requires in the
// vocabulary. [PlannerRequest.Check] checks a decision against its request.
func (d PlannerDecision) Validate() error {
	ps := newProblems(d)
	ps.validate(d)
	decisionProblems(ps, Path{}, d)
	return ps.err()
}

// decisionProblems records what d's intent requires of it, under at.
func decisionProblems(ps *problems, at Path, d PlannerDecision) {
	under := at.dot
	intent := intentByName[d.Intent]
	if intent == nil {
		return
	}
	for _, r := range [...]requirement{
		{"target", "a target", intent.Target, d.Target != nil},
		{"destination", "a destination", intent.Destination, d.Destination != nil},
		{"value", "a value", intent.Value, d.Value != ""},
	} {
		ps.addError(under(r.member), r.problem("intent", string(intent.Name)))
	}
	if d.Value != "" && intent.Value != Forbidden && intent.ValueKind != valueFixtureFile {
		ps.addError(under("value"), valueProblem(intent.ValueKind, d.Value, nil))
	}
}

// Validate checks r against the planner-adapter-v1 contract: its field rules,
// its snapshot's rules, and every decision of its history.
func (r PlannerRequest) Validate() error {
	ps := newProblems(r)
	ps.validate(r)
	snapshotProblems(ps, field("snapshot"), r.Snapshot)
	for i, h := range r.History {
		decisionProblems(ps, field("history").at(i).dot("decision"), h.Decision)
	}
	return ps.err()
}

// Check validates a planner's decision d as the answer to r: d on its own,
// then the rules that relate the two. The intent must be one of the request's
// allowedIntents, and a targetRef must name a node of the request's snapshot.
func (r PlannerRequest) Check(d PlannerDecision) error {
	ps := newProblems(d)
	ps.validate(d)
	decisionProblems(ps, Path{}, d)
	if d.Intent != "" && !ps.has(field("intent")) && !slices.Contains(r.AllowedIntents, d.Intent) {
		ps.add(field("intent"), CodeUnsupportedIntent, wireStrings(r.AllowedIntents), "%s is not one of the request's allowedIntents; use one of the allowed values", echo.Value(d.Intent))
	}
	if d.TargetRef != "" && !slices.ContainsFunc(r.Snapshot.Nodes, func(n SnapshotNode) bool { return n.Ref == d.TargetRef }) {
		ps.add(field("targetRef"), CodeInvalidArgument, nil, "%s is not the ref of a node of the request's snapshot", echo.Value(d.TargetRef))
	}
	return ps.err()
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
			ps.add(field("type"), CodeInvalidArgument, nil, "type %s belongs to lane %s, not %s; the part before the dot is the lane", echo.Value(e.Type), echo.Value(lane), echo.Value(string(e.Lane)))
		}
	}
	if want, known := replayEventTypes[e.Type]; known {
		set := payloadMembers(e.Payload)
		switch {
		case want == "" && len(set) > 0:
			ps.add(field("payload"), CodeInvalidArgument, nil, "type %s carries no payload, but %s is set; remove it", e.Type, strings.Join(set, ", "))
		case want != "" && !slices.Equal(set, []string{want}):
			ps.add(field("payload"), CodeInvalidArgument, nil, "type %s carries exactly the payload member %s, not [%s]", e.Type, want, strings.Join(set, ", "))
		}
	}
	switch {
	case e.Status == "failed" && e.Error == nil:
		ps.add(field("error"), CodeInvalidArgument, nil, "a failed event says why: set error with a code and a message")
	case e.Status != "failed" && e.Error != nil:
		ps.add(field("error"), CodeInvalidArgument, nil, "only failed events carry an error; remove it, or set status to failed")
	}
	if e.Payload != nil && e.Payload.Decision != nil {
		decisionProblems(ps, field("payload").dot("decision"), *e.Payload.Decision)
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
	for _, f := range wireFields(v.Type()) {
		if !v.FieldByIndex(f.index).IsNil() {
			set = append(set, f.name)
		}
	}
	return set
}
