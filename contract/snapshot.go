package contract

import (
	"github.com/automium/automium"
	"github.com/automium/automium/internal/check"
	"github.com/automium/automium/internal/echo"
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
	_ = check.RegisterTag("automium_node_state", string(automium.CodeInvalidArgument), "an accessibility node state", func() []string { return nodeStates })
	_ = check.RegisterTag("automium_redaction_reason", string(automium.CodeInvalidArgument), "a redaction reason", func() []string { return redactionReasons })
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

// Validate checks s against the semantic-snapshot-v1 contract: its field rules,
// refs unique within the snapshot, children and redactions naming refs of the
// snapshot, app-relative routes, and at most one active tab.
func (s SemanticSnapshot) Validate() error {
	ps := newProblems(s)
	ps.validate(s)
	snapshotProblems(ps, automium.Path{}, s)
	return ps.err()
}

// snapshotProblems records the snapshot rules the tags cannot say, under at
// (the snapshot's own path; the zero path for a snapshot on its own).
func snapshotProblems(ps *problems, at automium.Path, s SemanticSnapshot) {
	under := at.Field
	refs := make(map[string]int, len(s.Nodes))
	for i, n := range s.Nodes {
		if j, dup := refs[n.Ref]; dup && n.Ref != "" {
			ps.add(under("nodes").Index(i).Field("ref"), automium.CodeInvalidArgument, nil, "ref %s is also the ref of nodes[%d]; refs are unique within a snapshot", echo.Value(n.Ref), j)
			continue
		}
		refs[n.Ref] = i
	}
	for i, n := range s.Nodes {
		for k, c := range n.Children {
			if _, ok := refs[c]; !ok {
				ps.add(under("nodes").Index(i).Field("children").Index(k), automium.CodeInvalidArgument, nil, "%s is not the ref of a node of this snapshot", echo.Value(c))
			}
		}
	}
	for i, r := range s.Redactions {
		if _, ok := refs[r.Ref]; !ok && r.Ref != "" {
			ps.add(under("redactions").Index(i).Field("ref"), automium.CodeInvalidArgument, nil, "%s is not the ref of a node of this snapshot", echo.Value(r.Ref))
		}
	}
	if msg, bad := check.Route(s.Page.Route); s.Page.Route != "" && bad {
		ps.add(under("page").Field("route"), automium.CodeInvalidArgument, nil, "%s", msg)
	}
	active := -1
	for i, tab := range s.Tabs {
		if msg, bad := check.Route(tab.Route); tab.Route != "" && bad {
			ps.add(under("tabs").Index(i).Field("route"), automium.CodeInvalidArgument, nil, "%s", msg)
		}
		if !tab.Active {
			continue
		}
		if active >= 0 {
			ps.add(under("tabs").Index(i).Field("active"), automium.CodeInvalidArgument, nil, "tabs[%d] is already the active tab; at most one tab is active", active)
			continue
		}
		active = i
	}
}
