package automium

import (
	"context"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/automium/automium/internal/closedset"
	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
	"golang.org/x/text/unicode/norm"
)

// Target names an element semantically, the way an accessibility tree does.
type Target struct {
	Role Role   `json:"role" jsonschema:"e.g. button" validate:"required,automium_role"`
	Name string `json:"name" jsonschema:"e.g. a button's label" validate:"required,notblank,max=200"`
}

// Step is one planner-level action of a journey.
type Step struct {
	Intent      Intent  `json:"intent" jsonschema:"intent; one of the planner-intent-v1 vocabulary (see its resource)" validate:"required,automium_intent"`
	Target      *Target `json:"target,omitempty" jsonschema:"for intents that take one"`
	Destination *Target `json:"destination,omitempty" jsonschema:"for drag_drop only"`
	Value       string  `json:"value,omitempty" jsonschema:"route, text, option or key" validate:"max_text_length"`
}

// Assertion is a check made after the steps; all must hold for the journey to pass.
type Assertion struct {
	Kind   AssertionKind `json:"kind" jsonschema:"assertion kind" validate:"required,automium_assertion"`
	Target *Target       `json:"target,omitempty" jsonschema:"for element_* kinds"`
	Value  string        `json:"value,omitempty" jsonschema:"expected text, value or route" validate:"max_text_length"`
}

// Recovery bounds what happens after a failed step: at most MaxRetries retries of
// that step, each preceded by the listed strategies in order.
type Recovery struct {
	MaxRetries int                `json:"maxRetries,omitempty" jsonschema:"retries per failed step, 0 to 3" validate:"min=0,max_recovery_retries"`
	Strategies []RecoveryStrategy `json:"strategies,omitempty" jsonschema:"tried in order before each retry; at least one when maxRetries is above 0, none when it is 0" validate:"omitempty,max=6,unique,dive,automium_recovery"`
}

// CompileJourneyInput is a journey as drafted by a person or an agent. Field names
// follow the spec: id, appId, fixtureId, goal, steps, assertions, recovery.
type CompileJourneyInput struct {
	ID         string      `json:"id" jsonschema:"journey ID" validate:"required,max_id_length,automium_slug"`
	AppID      string      `json:"appId" jsonschema:"see ListApps" validate:"required,max_id_length,automium_app_or_ext"`
	FixtureID  string      `json:"fixtureId" jsonschema:"see ListFixtures" validate:"required,max_id_length,automium_fixture_or_ext"`
	Goal       string      `json:"goal" jsonschema:"one sentence" validate:"required,notblank,max_text_length"`
	Steps      []Step      `json:"steps" jsonschema:"in order, 1 to 200" validate:"required,min=1,max_steps,dive"`
	Assertions []Assertion `json:"assertions" jsonschema:"all must hold at the end, 1 to 50" validate:"required,min=1,max_assertions,dive"`
	Recovery   Recovery    `json:"recovery,omitzero" jsonschema:"recovery policy; absent, or maxRetries 0, means a failed step fails the journey"`
}

func (in CompileJourneyInput) clone() CompileJourneyInput {
	c := in
	c.Steps = make([]Step, len(in.Steps))
	for i, s := range in.Steps {
		c.Steps[i] = Step{Intent: s.Intent, Value: s.Value, Target: cloneTarget(s.Target), Destination: cloneTarget(s.Destination)}
	}
	c.Assertions = make([]Assertion, len(in.Assertions))
	for i, a := range in.Assertions {
		c.Assertions[i] = Assertion{Kind: a.Kind, Value: a.Value, Target: cloneTarget(a.Target)}
	}
	c.Recovery.Strategies = slices.Clone(in.Recovery.Strategies)
	return c
}

func cloneTarget(t *Target) *Target {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}

// NodeKind is what a node of a compiled journey graph stands for.
type NodeKind string

// The node kinds.
const (
	NodeStep      NodeKind = "step"
	NodeAssertion NodeKind = "assertion"
	NodeRecovery  NodeKind = "recovery"
	NodePass      NodeKind = "pass"
	NodeFail      NodeKind = "fail"
)

// EdgeKind is the outcome of a node that takes an edge of a compiled journey.
type EdgeKind string

// The edge kinds.
const (
	EdgeSuccess EdgeKind = "success"
	EdgeFailure EdgeKind = "failure"
	EdgeRetry   EdgeKind = "retry"
)

// GraphNode is one node of a compiled journey.
type GraphNode struct {
	ID          string             `json:"id" jsonschema:"node ID, unique within the graph"`
	Kind        NodeKind           `json:"kind" jsonschema:"step, assertion, recovery, pass or fail"`
	Source      string             `json:"source,omitempty" jsonschema:"JSON path of the journey element the node came from"`
	Intent      Intent             `json:"intent,omitempty" jsonschema:"step intent"`
	Target      *Target            `json:"target,omitempty" jsonschema:"step or assertion target"`
	Destination *Target            `json:"destination,omitempty" jsonschema:"drag_drop destination"`
	Value       string             `json:"value,omitempty" jsonschema:"step or assertion value"`
	Assertion   AssertionKind      `json:"assertion,omitempty" jsonschema:"assertion kind"`
	Strategies  []RecoveryStrategy `json:"strategies,omitempty" jsonschema:"recovery strategies, for recovery nodes"`
}

// GraphEdge is a transition taken when its node ends with the given outcome.
type GraphEdge struct {
	From        string   `json:"from" jsonschema:"source node ID"`
	To          string   `json:"to" jsonschema:"destination node ID"`
	On          EdgeKind `json:"on" jsonschema:"success, failure or retry"`
	MaxAttempts int      `json:"maxAttempts,omitempty" jsonschema:"for retry edges: how many times the edge may be taken"`
}

// CompiledJourney is a journey compiled to a versioned graph. Its digest covers
// every other field, so two compilations agree exactly when their digests do.
type CompiledJourney struct {
	GraphVersion            string      `json:"graphVersion" jsonschema:"compiled graph format version"`
	IntentVocabularyVersion string      `json:"intentVocabularyVersion" jsonschema:"planner intent vocabulary version"`
	CorpusVersion           string      `json:"corpusVersion" jsonschema:"owned corpus version"`
	ID                      string      `json:"id" jsonschema:"journey ID"`
	AppID                   string      `json:"appId" jsonschema:"app ID"`
	FixtureID               string      `json:"fixtureId" jsonschema:"fixture ID"`
	Goal                    string      `json:"goal" jsonschema:"journey goal"`
	Entry                   string      `json:"entry" jsonschema:"ID of the first node"`
	Nodes                   []GraphNode `json:"nodes" jsonschema:"graph nodes: steps, assertions, recovery, and the pass and fail terminals"`
	Edges                   []GraphEdge `json:"edges" jsonschema:"graph edges, in node order"`
	MaxRetries              int         `json:"maxRetries" jsonschema:"retries allowed per failed step"`
	Digest                  string      `json:"digest" jsonschema:"sha256: and the lowercase hex SHA-256 of the RFC 8785 form of this journey object with digest set to \"\" (docs/digests.md)"`
}

// CompileJourneyResult is the outcome of compiling a journey. When Valid is false,
// Errors lists every problem found, and Journey is absent.
type CompileJourneyResult struct {
	Valid   bool             `json:"valid" jsonschema:"whether the journey is valid and compiled"`
	Journey *CompiledJourney `json:"journey,omitempty" jsonschema:"the compiled journey graph, when valid"`
	Errors  []Problem        `json:"errors,omitempty" jsonschema:"every validation problem, when invalid"`
	// ExternalAppIDs and NotChecked say when the journey's app is outside
	// the corpus (ext:…), and which of the corpus's checks could not apply to
	// it (docs/external-apps.md).
	ExternalAppIDs []string `json:"externalAppIds,omitempty" jsonschema:"the journey's app, when it is outside the corpus (ext:…)"`
	NotChecked     []string `json:"notChecked,omitempty" jsonschema:"corpus checks that did not apply to an app outside the corpus"`
}

// Err returns nil for a valid journey and otherwise one [*Error] listing every
// problem, for callers that treat an invalid journey as a failure: checking only
// CompileJourney's error would miss Valid: false.
func (r CompileJourneyResult) Err() error {
	if r.Valid {
		return nil
	}
	if len(r.Errors) == 0 {
		return internalError("compiling a journey that is neither valid nor has problems")
	}
	return Join(r.Errors...)
}

// CompileJourney validates a journey against the owned corpus and the frozen intent
// vocabulary and, when it is valid, compiles it to a graph.
//
// A journey of a team's own app names it and its fixture ext:… (see
// docs/external-apps.md): the corpus's checks of that app (its capabilities,
// its fixture's files, that the fixture is the app's) cannot apply, and the
// result says so in ExternalAppIDs and NotChecked.
//
// An invalid journey is not an error: the result lists every problem found in one
// pass, each with its JSON path, code, fix-it message and allowed values (see
// [CompileJourneyResult.Err] to treat it as one). The returned error is non-nil
// only when the input breaks a bound (code limit_exceeded: too many steps, text
// too long, too many retries; every such problem is listed, and the oversized
// lists are checked before anything walks them) or ctx is done or nil.
//
// Nothing is executed or persisted, and no planner provider is called.
func CompileJourney(ctx context.Context, in CompileJourneyInput) (CompileJourneyResult, error) {
	if err := checkContext(ctx); err != nil {
		return CompileJourneyResult{}, err
	}
	if err := journeySizeProblems(in); err != nil {
		return CompileJourneyResult{}, err
	}
	ps := journeyProblems(in)
	if err := ps.limitErr(); err != nil {
		return CompileJourneyResult{}, err
	}
	ext, notChecked := externalJourney(in)
	if errs := ps.list(); len(errs) > 0 {
		return CompileJourneyResult{Valid: false, Errors: errs, ExternalAppIDs: ext, NotChecked: notChecked}, nil
	}
	g, err := compile(in)
	if err != nil {
		return CompileJourneyResult{}, err
	}
	want, isRef, err := referenceDigest(in.ID)
	if err != nil {
		return CompileJourneyResult{}, err
	}
	if isRef && g.Digest != want {
		// A run binds a reference journey by its ID alone, so that ID must not
		// name another body, app or fixture.
		ref := owned().journeyByID[in.ID]
		return CompileJourneyResult{Valid: false, Errors: []Problem{newError(CodeInvalidArgument, field("id"), nil,
			"%s is the ID of a reference journey of app %s and fixture %s, and this journey differs from it; give your journey its own ID",
			echo.Value(in.ID), ref.AppID, ref.FixtureID).Problem}}, nil
	}
	return CompileJourneyResult{Valid: true, Journey: &g, ExternalAppIDs: ext, NotChecked: notChecked}, nil
}

// externalJourney returns what a compile answer says of a journey of an app
// outside the corpus: the app, and the corpus's checks that did not apply to
// it. A journey of a corpus app gets nil, nil.
func externalJourney(in CompileJourneyInput) (ext, notChecked []string) {
	if !isExternal(in.AppID) {
		return nil, nil
	}
	return []string{in.AppID}, []string{NotCheckedCapabilities, NotCheckedFixtureFiles, NotCheckedFixtureOfApp}
}

// journeySizeProblems rejects oversized journeys before validation walks them, so
// a hostile 100,000-step journey costs a length check, not a validation pass.
func journeySizeProblems(in CompileJourneyInput) error {
	ps := newProblems(in)
	if len(in.Steps) > limit.MaxSteps {
		ps.add(field("steps"), CodeLimitExceeded, nil, "has %d steps; the limit is %d", len(in.Steps), limit.MaxSteps)
	}
	if len(in.Assertions) > limit.MaxAssertions {
		ps.add(field("assertions"), CodeLimitExceeded, nil, "has %d assertions; the limit is %d", len(in.Assertions), limit.MaxAssertions)
	}
	if len(in.Recovery.Strategies) > len(recoveryStrategies) {
		ps.add(field("recovery").dot("strategies"), CodeLimitExceeded, nil, "has %d strategies; the limit is %d", len(in.Recovery.Strategies), len(recoveryStrategies))
	}
	return ps.err()
}

// journeyProblems collects every problem with in: the field rules shared with the
// schema, and the rules that relate fields to each other and to the corpus.
func journeyProblems(in CompileJourneyInput) *problems {
	ps := newProblems(in)
	ps.validate(in, field("fixtureId"))
	// An app outside the corpus (ext:…) has no entry: app and fixture are nil,
	// and the checks that need them (capabilities, fixture files) do not apply.
	app := owned().appByID[in.AppID]
	fixture, _ := ps.fixtureOfAppOrExt(field("fixtureId"), reflect.TypeOf(in), in.AppID, in.FixtureID)
	ps.lineProblems(field("goal"), in.Goal)
	for i, s := range in.Steps {
		at := field("steps").at(i)
		ps.targetLineProblems(at, "target", s.Target)
		ps.targetLineProblems(at, "destination", s.Destination)
		stepProblems(ps, at, i == len(in.Steps)-1, s, app, fixture)
	}
	for i, a := range in.Assertions {
		at := field("assertions").at(i)
		ps.targetLineProblems(at, "target", a.Target)
		assertionProblems(ps, at, a)
	}
	strategies := field("recovery").dot("strategies")
	switch r := in.Recovery; {
	case ps.has(field("recovery")):
	case r.MaxRetries > 0 && len(r.Strategies) == 0:
		ps.add(strategies, CodeInvalidArgument, recoveryStrategies, "maxRetries is %d, so list at least one strategy to apply before each retry, such as retry_step", r.MaxRetries)
	case r.MaxRetries == 0 && len(r.Strategies) > 0:
		ps.add(strategies, CodeInvalidArgument, nil, "strategies apply only before retries, and maxRetries is 0; remove them, or allow retries")
	}
	return ps
}

// targetLineProblems checks the accessible name of t, if any, the member of
// at, as one line. It makes the name's path only for a name that is not
// one line: a 200-step journey made thousands of paths it never used.
func (ps *problems) targetLineProblems(at Path, member string, t *Target) {
	if t == nil {
		return
	}
	if _, bad := lineProblem(t.Name); bad {
		ps.lineProblems(at.dot(member).dot("name"), t.Name)
	}
}

// lineProblems records, at at, what keeps s from being one line of visible
// text (see lineProblem), unless at already has a problem (blank, too long,
// not UTF-8).
func (ps *problems) lineProblems(at Path, s string) {
	if ps.has(at) {
		return
	}
	if msg, bad := lineProblem(s); bad {
		ps.addProblem(newProblem(CodeInvalidArgument, at, nil, msg))
	}
}

// lineProblemAt reports, as a problem at at, what keeps s from being one line of
// visible text: the rule a journey's goal and accessible names and a planner
// reference follow (controls, format characters, line separators, white space
// at either end and runs of white space are refused). It lets an adapter that
// takes such text another way, as the MCP prompts do, refuse what the tools
// refuse.
func lineProblemAt(at Path, s string) (Problem, bool) {
	msg, bad := lineProblem(s)
	if !bad {
		return Problem{}, false
	}
	return newProblem(CodeInvalidArgument, at, nil, msg), true
}

// lineProblem explains what keeps s from being one line of text that reads as
// it is hashed, and reports whether anything does. A goal, an accessible name
// and a planner reference are read by people and hashed into a journey's
// digest or a run ID, so two texts that look alike must not be two texts:
// what a reader cannot see is refused rather than repaired, as everywhere
// else. That is a control character (NUL, tab, newline, DEL, C1); a format
// character (Cf: bidi controls, zero-width spaces and joiners, the soft
// hyphen, the byte order mark) or a line or paragraph separator; white space
// at either end; a run of white space, which an accessible name collapses
// into one space, so "Add to cart " and "Add  to cart" name what "Add to cart"
// names; and text not in NFC, since canonically equivalent strings (é and
// e + U+0301) are one text by Unicode's definition but two to a hash.
// Characters that show (letters, marks, symbols, NBSP between words) are
// text. Lookalikes from different scripts (Latin a, Cyrillic а) are not
// refused: goals and names mix scripts legitimately.
func lineProblem(s string) (echo.Message, bool) {
	const fix = "; write one line of visible text"
	prevSpace := false
	for i, r := range s {
		space := unicode.IsSpace(r)
		switch {
		case unicode.IsControl(r):
			return echo.Msg("%s contains the control character U+%04X (such as NUL, a tab or a line break)"+fix, echo.Value(s), r), true
		case unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			return echo.Msg("%s contains U+%04X, an invisible format or line-breaking character (a bidi control, a zero-width space or joiner, a soft hyphen or a byte order mark), so it reads as other text than it is"+fix, echo.Value(s), r), true
		case space && (i == 0 || i+utf8.RuneLen(r) == len(s)):
			return echo.Msg("%s has leading or trailing spaces, which a reader does not see; remove them", echo.Value(s)), true
		case space && prevSpace:
			return echo.Msg("%s has a run of white space, which reads as one space; write one", echo.Value(s)), true
		}
		prevSpace = space
	}
	if !norm.NFC.IsNormalString(s) {
		return echo.Msg("%s is not in Unicode normalization form C (NFC): it spells a character as a base and a combining mark where a precomposed character exists (e and U+0301 for U+00E9), or uses a singleton such as the Ohm sign, so it reads like text it is not; write it in NFC", echo.Value(s)), true
	}
	return echo.Message{}, false
}

// stepProblems checks the rules of one step that depend on its intent. An unknown
// intent is already reported by the validator, so it is skipped here.
func stepProblems(ps *problems, at Path, last bool, s Step, app *App, fixture *Fixture) {
	intent := intentByName[s.Intent]
	if intent == nil {
		return
	}
	if intent.Capability != "" && app != nil && !slices.Contains(app.Capabilities, intent.Capability) {
		// The rest of the step cannot be judged for an app that cannot run it.
		ps.add(at.dot("intent"), CodeUnsupportedIntent, appIntents(app),
			"intent %s needs the %s capability, which app %s lacks; use an intent the app supports", intent.Name, intent.Capability, echo.Value(app.ID))
		return
	}
	if s.Target != nil && len(intent.TargetRoles) > 0 && slices.Contains(targetRoles, string(s.Target.Role)) && !slices.Contains(intent.TargetRoles, s.Target.Role) {
		ps.add(at.dot("target").dot("role"), CodeInvalidArgument, closedset.Strings(intent.TargetRoles),
			"intent %s acts on a %s, not a %s; target an element with one of the allowed roles", intent.Name, strings.Join(closedset.Strings(intent.TargetRoles), ", "), s.Target.Role)
	}
	for _, r := range [...]requirement{
		{"target", "a target", intent.Target, s.Target != nil},
		{"destination", "a destination", intent.Destination, s.Destination != nil},
		{"value", "a value", intent.Value, s.Value != ""},
	} {
		if e := r.problem("intent", string(intent.Name)); e != nil {
			ps.addError(at.dot(r.member), e) // the path is made only for a problem
		}
	}
	if s.Value != "" && intent.Value != Forbidden {
		if e := valueProblem(intent.ValueKind, s.Value, fixture); e != nil {
			ps.addError(at.dot("value"), e) // the path is made only for a problem
		}
	}
	if intent.Name == IntentFinish && !last {
		ps.add(at.dot("intent"), CodeInvalidArgument, nil, "finish ends the journey, so it may only be the last step")
	}
}

func assertionProblems(ps *problems, at Path, a Assertion) {
	spec, ok := assertionSpecs[a.Kind]
	if !ok {
		return
	}
	for _, r := range [...]requirement{
		{"target", "a target", spec.target, a.Target != nil},
		{"value", "a value", spec.value, a.Value != ""},
	} {
		if e := r.problem("assertion", string(a.Kind)); e != nil {
			ps.addError(at.dot(r.member), e) // the path is made only for a problem
		}
	}
	if a.Value != "" && spec.value != Forbidden {
		if e := valueProblem(spec.valueKind, a.Value, nil); e != nil {
			ps.addError(at.dot("value"), e) // the path is made only for a problem
		}
	}
}

// compile turns a valid journey into its graph. Steps run in order; each step's
// failure goes to its own recovery node when retries are allowed, which retries the
// step at most MaxRetries times before failing the journey. Assertions run after the
// last step; any failed assertion fails the journey, and the last success passes it.
//
// The digest is that of the graph's canonical JSON with the digest member the
// empty string (docs/digests.md); the error says that could not be computed,
// which the checks before compile make a bug.
func compile(in CompileJourneyInput) (CompiledJourney, error) {
	nodes := make([]GraphNode, 0, 2*len(in.Steps)+len(in.Assertions)+2)
	edges := make([]GraphEdge, 0, 4*len(in.Steps)+2*len(in.Assertions))
	retry := in.Recovery.MaxRetries > 0
	seq := make([]string, 0, len(in.Steps)+len(in.Assertions)+1)
	for i, s := range in.Steps {
		id := stepNodeID(i)
		seq = append(seq, id)
		nodes = append(nodes, GraphNode{ID: id, Kind: NodeStep, Source: field("steps").at(i).String(), Intent: s.Intent,
			Target: cloneTarget(s.Target), Destination: cloneTarget(s.Destination), Value: s.Value})
		if retry {
			nodes = append(nodes, GraphNode{ID: recoveryNodeID(i), Kind: NodeRecovery, Source: "recovery",
				Strategies: slices.Clone(in.Recovery.Strategies)})
		}
	}
	for i, a := range in.Assertions {
		id := "assert-" + strconv.Itoa(i+1)
		seq = append(seq, id)
		nodes = append(nodes, GraphNode{ID: id, Kind: NodeAssertion, Source: field("assertions").at(i).String(),
			Assertion: a.Kind, Target: cloneTarget(a.Target), Value: a.Value})
	}
	nodes = append(nodes, GraphNode{ID: string(NodePass), Kind: NodePass}, GraphNode{ID: string(NodeFail), Kind: NodeFail})
	seq = append(seq, string(NodePass))
	for i, id := range seq[:len(seq)-1] {
		edges = append(edges, GraphEdge{From: id, To: seq[i+1], On: EdgeSuccess})
		if i < len(in.Steps) && retry {
			rec := recoveryNodeID(i)
			edges = append(edges,
				GraphEdge{From: id, To: rec, On: EdgeFailure},
				GraphEdge{From: rec, To: id, On: EdgeRetry, MaxAttempts: in.Recovery.MaxRetries},
				GraphEdge{From: rec, To: string(NodeFail), On: EdgeFailure})
			continue
		}
		edges = append(edges, GraphEdge{From: id, To: string(NodeFail), On: EdgeFailure})
	}
	g := CompiledJourney{
		GraphVersion:            JourneyGraphVersion,
		IntentVocabularyVersion: IntentVocabularyVersion,
		CorpusVersion:           CorpusVersion,
		ID:                      in.ID,
		AppID:                   in.AppID,
		FixtureID:               in.FixtureID,
		Goal:                    in.Goal,
		Entry:                   seq[0],
		Nodes:                   nodes,
		Edges:                   edges,
		MaxRetries:              in.Recovery.MaxRetries,
	}
	digest, err := journeyDigest(&g)
	if err != nil {
		return CompiledJourney{}, internalError("computing the digest of a journey")
	}
	g.Digest = digest
	return g, nil
}

// referenceDigest returns the compiled digest of the reference journey id, and
// whether id names one. Each digest is computed on its first use and kept (the
// corpus is constant): compiling every reference journey for the first call
// that needed one of them cost that call 2 to 4 ms.
func referenceDigest(id string) (string, bool, error) {
	digest, ok := owned().journeyDigests[id]
	if !ok {
		return "", false, nil
	}
	d, err := digest()
	return d, true, err
}

// stepNodeID and recoveryNodeID name the nodes of step i, counting from 1 as a
// reader of the graph does.
func stepNodeID(i int) string     { return "step-" + strconv.Itoa(i+1) }
func recoveryNodeID(i int) string { return "recover-" + strconv.Itoa(i+1) }
