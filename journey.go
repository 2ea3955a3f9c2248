package automium

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// Requirement says whether an intent needs a target, a value or a destination.
type Requirement string

// Requirements of an intent's parameters.
const (
	Required  Requirement = "required"
	Optional  Requirement = "optional"
	Forbidden Requirement = "forbidden"
)

// Intent is one action of the frozen planner intent vocabulary. A planner may only
// choose from these, which is what makes planner decisions replayable and
// comparable across backends.
type Intent struct {
	Name        string      `json:"name" jsonschema:"intent name as used in steps[].intent"`
	Description string      `json:"description" jsonschema:"what the intent does"`
	Target      Requirement `json:"target" jsonschema:"whether a semantic target (ARIA role plus accessible name) is required, optional or forbidden"`
	Value       Requirement `json:"value" jsonschema:"whether a value is required, optional or forbidden"`
	ValueKind   string      `json:"valueKind,omitempty" jsonschema:"what the value means when one is taken"`
	ValueHint   string      `json:"valueHint,omitempty" jsonschema:"how to write the value, with the allowed values for closed sets"`
	Destination Requirement `json:"destination" jsonschema:"whether a destination target is required, optional or forbidden"`
	Capability  string      `json:"capability,omitempty" jsonschema:"app capability the intent needs; apps without it reject the intent"`
}

// Value kinds, each with its own check.
const (
	valueRoute       = "route"
	valueText        = "text"
	valueOption      = "option"
	valueBoolean     = "boolean"
	valueKey         = "key"
	valueDirection   = "direction"
	valueFixtureFile = "fixture_file_ref"
	valueDialog      = "dialog_action"
	valueTab         = "tab"
	valueAnswer      = "answer"
)

// The closed sets behind some value kinds.
var (
	booleanValues   = []string{"false", "true"}
	directionValues = []string{"bottom", "down", "top", "up"}
	dialogValues    = []string{"accept", "dismiss"}
	tabValues       = []string{"latest", "opener"}
	namedKeys       = []string{
		"ArrowDown", "ArrowLeft", "ArrowRight", "ArrowUp", "Backspace", "Delete", "End",
		"Enter", "Escape", "Home", "PageDown", "PageUp", "Space", "Tab",
	}
	keyModifiers = []string{"Alt", "Control", "Meta", "Shift"}
)

// vocabulary is planner-intent-v1. It is frozen: intents are never renamed or
// removed, and their requirements never tighten, within a vocabulary version. It is
// modelled on the action spaces of Playwright MCP, BrowserGym and WebArena, with
// targets expressed semantically (role plus accessible name), never as CSS or XPath.
var vocabulary = []Intent{
	{Name: "navigate", Description: "Open an app-relative route of the fixture's app.", Target: Forbidden, Value: Required, ValueKind: valueRoute, ValueHint: "an app-relative route starting with /, such as /cart or /search?q=kettle; absolute URLs and other hosts are rejected", Destination: Forbidden},
	{Name: "go_back", Description: "Go back one entry in the tab's history.", Target: Forbidden, Value: Forbidden, Destination: Forbidden},
	{Name: "click", Description: "Click the target element.", Target: Required, Value: Forbidden, Destination: Forbidden},
	{Name: "fill", Description: "Replace the text of an editable target with the value.", Target: Required, Value: Required, ValueKind: valueText, ValueHint: "the text to type", Destination: Forbidden},
	{Name: "select_option", Description: "Choose the option whose label is the value in a select, combobox or listbox target.", Target: Required, Value: Required, ValueKind: valueOption, ValueHint: "the visible label of the option", Destination: Forbidden},
	{Name: "set_checked", Description: "Check or uncheck a checkbox, radio or switch target.", Target: Required, Value: Required, ValueKind: valueBoolean, ValueHint: "true or false", Destination: Forbidden},
	{Name: "press_key", Description: "Press a key or chord, on the target if given or on the focused element.", Target: Optional, Value: Required, ValueKind: valueKey, ValueHint: "a key such as Enter, Escape or Tab, or a chord such as Control+A; named keys: " + strings.Join(namedKeys, ", "), Destination: Forbidden},
	{Name: "hover", Description: "Move the pointer over the target.", Target: Required, Value: Forbidden, Destination: Forbidden},
	{Name: "scroll", Description: "Scroll the page, or the target container if given.", Target: Optional, Value: Required, ValueKind: valueDirection, ValueHint: "one of: " + strings.Join(directionValues, ", "), Destination: Forbidden},
	{Name: "upload_file", Description: "Attach a fixture file to a file input target.", Target: Required, Value: Required, ValueKind: valueFixtureFile, ValueHint: "a fixture-file:// reference listed in the fixture's fileRefs; filesystem paths are rejected", Destination: Forbidden, Capability: "file-upload"},
	{Name: "handle_dialog", Description: "Accept or dismiss the open browser dialog.", Target: Forbidden, Value: Required, ValueKind: valueDialog, ValueHint: "accept or dismiss", Destination: Forbidden, Capability: "dialogs"},
	{Name: "switch_tab", Description: "Make another tab of the same app the active one.", Target: Forbidden, Value: Required, ValueKind: valueTab, ValueHint: "latest (the most recently opened tab), opener, or a tab index from 0 to 9", Destination: Forbidden, Capability: "multi-tab"},
	{Name: "drag_drop", Description: "Drag the target onto the destination.", Target: Required, Value: Forbidden, Destination: Required, Capability: "drag-drop"},
	{Name: "wait_for", Description: "Wait until the target is visible.", Target: Required, Value: Forbidden, Destination: Forbidden},
	{Name: "extract", Description: "Read the text of the target into the step history for later steps and assertions.", Target: Required, Value: Forbidden, Destination: Forbidden},
	{Name: "finish", Description: "Declare the goal reached, optionally with an answer; must be the last step.", Target: Forbidden, Value: Optional, ValueKind: valueAnswer, ValueHint: "an optional final answer", Destination: Forbidden},
}

var intentByName = func() map[string]*Intent {
	m := make(map[string]*Intent, len(vocabulary))
	for i := range vocabulary {
		m[vocabulary[i].Name] = &vocabulary[i]
	}
	return m
}()

// Vocabulary returns a copy of the frozen planner-intent-v1 vocabulary, in its
// canonical order. Prompts and schemas list it from here so they cannot drift.
func Vocabulary() []Intent { return slices.Clone(vocabulary) }

// IntentNames returns the names of the frozen vocabulary, sorted.
func IntentNames() []string { return slices.Clone(intentNames) }

var intentNames = func() []string {
	names := make([]string, len(vocabulary))
	for i, in := range vocabulary {
		names[i] = in.Name
	}
	slices.Sort(names)
	return names
}()

// targetRoles are the ARIA roles a target may name. Roles, not CSS, keep journeys
// stable across markup changes and readable by planners that see accessibility trees.
var targetRoles = []string{
	"alert", "alertdialog", "article", "banner", "button", "cell", "checkbox", "columnheader",
	"combobox", "dialog", "form", "grid", "gridcell", "heading", "img", "link", "list",
	"listbox", "listitem", "main", "menu", "menuitem", "navigation", "option", "radio",
	"region", "row", "rowheader", "searchbox", "slider", "spinbutton", "status", "switch",
	"tab", "table", "tabpanel", "textbox", "tooltip", "tree", "treeitem",
}

// recoveryStrategies are what a modeled runtime may try after a failed step.
var recoveryStrategies = []string{"dismiss_dialog", "go_back", "reload_route", "replan", "re_snapshot", "retry_step"}

// assertionSpec says what an assertion kind needs.
type assertionSpec struct {
	target, value Requirement
	valueKind     string
}

var assertionSpecs = map[string]assertionSpec{
	"url_matches":     {target: Forbidden, value: Required, valueKind: valueRoute},
	"title_contains":  {target: Forbidden, value: Required, valueKind: valueText},
	"text_visible":    {target: Forbidden, value: Required, valueKind: valueText},
	"element_visible": {target: Required, value: Forbidden},
	"element_hidden":  {target: Required, value: Forbidden},
	"element_checked": {target: Required, value: Forbidden},
	"element_value":   {target: Required, value: Required, valueKind: valueText},
	"element_text":    {target: Required, value: Required, valueKind: valueText},
}

var assertionKinds = slices.Sorted(maps.Keys(assertionSpecs))

var (
	_ = registerTag("automium_intent", CodeUnsupportedIntent, "an intent of the "+IntentVocabularyVersion+" vocabulary", func() []string { return intentNames })
	_ = registerTag("automium_role", CodeInvalidArgument, "a supported ARIA role", func() []string { return targetRoles })
	_ = registerTag("automium_recovery", CodeInvalidArgument, "a recovery strategy", func() []string { return recoveryStrategies })
	_ = registerTag("automium_assertion", CodeInvalidArgument, "an assertion kind", func() []string { return assertionKinds })
	_ = registerPattern("automium_slug", `^[a-z0-9][a-z0-9._-]*$`, "lowercase letters, digits, '.', '_' and '-', starting with a letter or digit")
)

// Target names an element semantically, the way an accessibility tree does.
type Target struct {
	Role string `json:"role" jsonschema:"ARIA role of the element, e.g. button, link, textbox" validate:"required,automium_role"`
	Name string `json:"name" jsonschema:"accessible name of the element, e.g. the button's label" validate:"required,notblank,max=200"`
}

// Step is one planner-level action of a journey.
type Step struct {
	Intent      string  `json:"intent" jsonschema:"an intent of the frozen planner-intent-v1 vocabulary" validate:"required,automium_intent"`
	Target      *Target `json:"target,omitempty" jsonschema:"semantic target, for intents that take one"`
	Destination *Target `json:"destination,omitempty" jsonschema:"drop destination, for drag_drop only"`
	Value       string  `json:"value,omitempty" jsonschema:"the intent's value, for intents that take one (route, text, option, key, ...)" validate:"max=2000"`
}

// Assertion is a check made after the steps; all must hold for the journey to pass.
type Assertion struct {
	Kind   string  `json:"kind" jsonschema:"assertion kind" validate:"required,automium_assertion"`
	Target *Target `json:"target,omitempty" jsonschema:"semantic target, for element_* kinds"`
	Value  string  `json:"value,omitempty" jsonschema:"expected text, value or app-relative route, for kinds that take one" validate:"max=2000"`
}

// Recovery bounds what happens after a failed step: at most MaxRetries retries of
// that step, each preceded by the listed strategies in order.
type Recovery struct {
	MaxRetries int      `json:"maxRetries,omitempty" jsonschema:"retries allowed per failed step, 0 to 3" validate:"min=0,max=3"`
	Strategies []string `json:"strategies" jsonschema:"recovery strategies to apply before each retry, in order" validate:"required,min=1,max=6,unique,dive,automium_recovery"`
}

// CompileJourneyInput is a journey as drafted by a person or an agent. Field names
// follow the spec: id, appId, fixtureId, goal, steps, assertions, recovery.
type CompileJourneyInput struct {
	ID         string      `json:"id" jsonschema:"journey ID: lowercase letters, digits, '.', '_' and '-'" validate:"required,max=128,automium_slug"`
	AppID      string      `json:"appId" jsonschema:"an authorized benchmark app ID (see automium_list_apps)" validate:"required,automium_app"`
	FixtureID  string      `json:"fixtureId" jsonschema:"a fixture ID of that app (see automium_list_fixtures)" validate:"required,automium_fixture"`
	Goal       string      `json:"goal" jsonschema:"what the user is trying to achieve, in one sentence" validate:"required,notblank,max=2000"`
	Steps      []Step      `json:"steps" jsonschema:"ordered planner-level steps, 1 to 200" validate:"required,min=1,max=200,dive"`
	Assertions []Assertion `json:"assertions" jsonschema:"checks that must all hold at the end, 1 to 50" validate:"required,min=1,max=50,dive"`
	Recovery   Recovery    `json:"recovery" jsonschema:"bounded recovery policy for failed steps" validate:"required"`
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

// Node kinds and edge conditions of a compiled journey graph.
const (
	NodeStep      = "step"
	NodeAssertion = "assertion"
	NodeRecovery  = "recovery"
	NodePass      = "pass"
	NodeFail      = "fail"

	EdgeSuccess = "success"
	EdgeFailure = "failure"
	EdgeRetry   = "retry"
)

// GraphNode is one node of a compiled journey.
type GraphNode struct {
	ID          string   `json:"id" jsonschema:"node ID, unique within the graph"`
	Kind        string   `json:"kind" jsonschema:"step, assertion, recovery, pass or fail"`
	Source      string   `json:"source,omitempty" jsonschema:"JSON path of the journey element the node came from"`
	Intent      string   `json:"intent,omitempty" jsonschema:"step intent"`
	Target      *Target  `json:"target,omitempty" jsonschema:"step or assertion target"`
	Destination *Target  `json:"destination,omitempty" jsonschema:"drag_drop destination"`
	Value       string   `json:"value,omitempty" jsonschema:"step or assertion value"`
	Assertion   string   `json:"assertion,omitempty" jsonschema:"assertion kind"`
	Strategies  []string `json:"strategies,omitempty" jsonschema:"recovery strategies, for recovery nodes"`
}

// GraphEdge is a transition taken when its node ends with the given outcome.
type GraphEdge struct {
	From        string `json:"from" jsonschema:"source node ID"`
	To          string `json:"to" jsonschema:"destination node ID"`
	On          string `json:"on" jsonschema:"success, failure or retry"`
	MaxAttempts int    `json:"maxAttempts,omitempty" jsonschema:"for retry edges: how many times the edge may be taken"`
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
	Digest                  string      `json:"digest" jsonschema:"sha256 of the canonical JSON of the graph with an empty digest"`
}

// CompileJourneyResult is the outcome of compiling a journey. When Valid is false,
// Errors lists every problem found, and Journey is absent.
type CompileJourneyResult struct {
	Valid   bool             `json:"valid" jsonschema:"whether the journey is valid and compiled"`
	Journey *CompiledJourney `json:"journey,omitempty" jsonschema:"the compiled journey graph, when valid"`
	Errors  []Problem        `json:"errors,omitempty" jsonschema:"every validation problem, when invalid"`
}

// CompileJourney validates a journey against the owned corpus and the frozen intent
// vocabulary and, when it is valid, compiles it to a graph.
//
// An invalid journey is not an error: the result lists every problem found in one
// pass, each with its JSON path, code, fix-it message and allowed values. The
// returned error is non-nil only when the input exceeds a size limit (code
// limit_exceeded, checked before anything is built) or ctx is done.
//
// Nothing is executed or persisted, and no planner provider is called.
func CompileJourney(ctx context.Context, in CompileJourneyInput) (CompileJourneyResult, error) {
	if err := ctx.Err(); err != nil {
		return CompileJourneyResult{}, err
	}
	if err := checkJourneySize(in); err != nil {
		return CompileJourneyResult{}, err
	}
	if problems := journeyProblems(in); len(problems) > 0 {
		errs := make([]Problem, len(problems))
		for i, p := range problems {
			errs[i] = p.problem()
		}
		return CompileJourneyResult{Valid: false, Errors: errs}, nil
	}
	g := compile(in)
	return CompileJourneyResult{Valid: true, Journey: &g}, nil
}

// checkJourneySize rejects oversized journeys before validation walks them, so a
// hostile 100,000-step journey costs a length check, not a validation pass.
func checkJourneySize(in CompileJourneyInput) error {
	switch {
	case len(in.Steps) > MaxSteps:
		return newError(CodeLimitExceeded, "steps", nil, "has %d steps; the limit is %d", len(in.Steps), MaxSteps)
	case len(in.Assertions) > MaxAssertions:
		return newError(CodeLimitExceeded, "assertions", nil, "has %d assertions; the limit is %d", len(in.Assertions), MaxAssertions)
	case len(in.Recovery.Strategies) > len(recoveryStrategies):
		return newError(CodeLimitExceeded, "recovery.strategies", nil, "has %d strategies; the limit is %d", len(in.Recovery.Strategies), len(recoveryStrategies))
	}
	return nil
}

// journeyProblems returns every problem with in: first the field rules shared with
// the schema, then the rules that relate fields to each other and to the corpus.
func journeyProblems(in CompileJourneyInput) []*Error {
	problems := validateStruct(in)
	app := owned.appByID[in.AppID]
	if app != nil {
		for i, p := range problems {
			if p.Field == "fixtureId" && p.Code == CodeInvalidFixtureID {
				problems[i] = unknownFixtureOfApp("fixtureId", app.ID, in.FixtureID)
			}
		}
	}
	fixture := owned.fixtureByID[in.FixtureID]
	if p := fixtureAppMismatch(app, fixture); p != nil {
		problems = append(problems, p)
		fixture = nil
	}
	for i, s := range in.Steps {
		problems = append(problems, stepProblems(elemPath{"steps", i}, i == len(in.Steps)-1, s, app, fixture)...)
	}
	for i, a := range in.Assertions {
		problems = append(problems, assertionProblems(elemPath{"assertions", i}, a)...)
	}
	sortProblems(problems)
	return problems
}

// journeyFieldOrder is the order in which problems are reported: the order a
// reader meets the fields in a journey, not the order the checks happen to run.
var journeyFieldOrder = []string{"id", "appId", "fixtureId", "goal", "steps", "assertions", "recovery"}

// sortProblems orders problems by top-level field, then by element index, keeping
// check order for ties. Reporting all problems of steps[2]
// together makes a long error list readable.
func sortProblems(problems []*Error) {
	key := func(field string) (int, int) {
		top, _, _ := strings.Cut(field, ".")
		name, idx, _ := strings.Cut(top, "[")
		rank := slices.Index(journeyFieldOrder, name)
		n := -1
		if idx != "" {
			n, _ = strconv.Atoi(strings.TrimSuffix(idx, "]"))
		}
		return rank, n
	}
	slices.SortStableFunc(problems, func(a, b *Error) int {
		ra, ia := key(a.Field)
		rb, ib := key(b.Field)
		if ra != rb {
			return ra - rb
		}
		return ia - ib
	})
}

// elemPath names one element of a journey list, such as steps[3]. Paths are
// rendered only when a problem is reported, so checking a valid journey builds no
// path strings: the cost of a valid step stays a few comparisons.
type elemPath struct {
	list string
	i    int
}

func (p elemPath) String() string { return p.list + "[" + strconv.Itoa(p.i) + "]" }

// field is the JSON path of a member of the element, such as steps[3].value.
func (p elemPath) field(member string) string { return p.String() + "." + member }

// stepProblems checks the rules of one step that depend on its intent. An unknown
// intent is already reported by the validator, so it is skipped here.
func stepProblems(at elemPath, last bool, s Step, app *App, fixture *Fixture) []*Error {
	intent := intentByName[s.Intent]
	if intent == nil {
		return nil
	}
	if intent.Capability != "" && app != nil && !slices.Contains(app.Capabilities, intent.Capability) {
		// The rest of the step cannot be judged for an app that cannot run it.
		return []*Error{newError(CodeUnsupportedIntent, at.field("intent"), appIntents(app),
			"intent %s needs the %s capability, which app %q lacks; use an intent the app supports", intent.Name, intent.Capability, app.ID)}
	}
	var problems []*Error
	for _, r := range [...]requirement{
		{"target", "a target", intent.Target, s.Target != nil},
		{"destination", "a destination", intent.Destination, s.Destination != nil},
		{"value", "a value", intent.Value, s.Value != ""},
	} {
		if p := r.problem(at, "intent", intent.Name); p != nil {
			problems = append(problems, p)
		}
	}
	if s.Value != "" && intent.Value != Forbidden {
		if p := valueProblem(at, intent.ValueKind, s.Value, fixture); p != nil {
			problems = append(problems, p)
		}
	}
	if intent.Name == "finish" && !last {
		problems = append(problems, newError(CodeInvalidArgument, at.field("intent"), nil, "finish ends the journey, so it may only be the last step"))
	}
	return problems
}

// appIntents lists the intents an app supports, for fix-it messages.
func appIntents(app *App) []string {
	var names []string
	for _, in := range vocabulary {
		if in.Capability == "" || slices.Contains(app.Capabilities, in.Capability) {
			names = append(names, in.Name)
		}
	}
	return names
}

func assertionProblems(at elemPath, a Assertion) []*Error {
	spec, ok := assertionSpecs[a.Kind]
	if !ok {
		return nil
	}
	var problems []*Error
	for _, r := range [...]requirement{
		{"target", "a target", spec.target, a.Target != nil},
		{"value", "a value", spec.value, a.Value != ""},
	} {
		if p := r.problem(at, "assertion", a.Kind); p != nil {
			problems = append(problems, p)
		}
	}
	if a.Value != "" && spec.value != Forbidden {
		if p := valueProblem(at, spec.valueKind, a.Value, nil); p != nil {
			problems = append(problems, p)
		}
	}
	return problems
}

// requirement is whether one member of a step or assertion (its target,
// destination or value) is present, and what its intent or kind requires of it.
type requirement struct {
	member, what string // "target", "a target"
	req          Requirement
	present      bool
}

// problem reports a missing required member or a present forbidden one, naming
// who requires it (kind "intent", name "click").
func (r requirement) problem(at elemPath, kind, name string) *Error {
	switch {
	case r.req == Required && !r.present:
		return newError(CodeInvalidArgument, at.field(r.member), nil, "%s %s needs %s", kind, name, r.what)
	case r.req == Forbidden && r.present:
		return newError(CodeInvalidArgument, at.field(r.member), nil, "%s %s takes no %s; remove it", kind, name, r.member)
	}
	return nil
}

// valueProblem checks the value of the element at against its kind. fixture may
// be nil when the fixture is unknown, in which case fixture-file references cannot
// be checked.
func valueProblem(at elemPath, kind, v string, fixture *Fixture) *Error {
	closed := func(allowed []string, what string) *Error {
		if slices.Contains(allowed, v) {
			return nil
		}
		return newError(CodeInvalidArgument, at.field("value"), allowed, "%q is not %s; use one of the allowed values", v, what)
	}
	switch kind {
	case valueRoute:
		if msg := routeProblem(v); msg != "" {
			return newError(CodeInvalidArgument, at.field("value"), nil, "%s", msg)
		}
	case valueBoolean:
		return closed(booleanValues, "a boolean")
	case valueDirection:
		return closed(directionValues, "a scroll direction")
	case valueDialog:
		return closed(dialogValues, "a dialog action")
	case valueTab:
		if len(v) == 1 && v[0] >= '0' && v[0] <= '9' {
			return nil
		}
		return closed(tabValues, "a tab reference (or a tab index from 0 to 9)")
	case valueKey:
		if !validKey(v) {
			return newError(CodeInvalidArgument, at.field("value"), namedKeys, "%q is not a key; use a named key, a single letter or digit, optionally after modifiers such as Control+ or Shift+", v)
		}
	case valueFixtureFile:
		if !strings.HasPrefix(v, "fixture-file://") {
			return newError(CodeInvalidArgument, at.field("value"), fixtureFiles(fixture), "%q is not a fixture file reference; upload_file takes a fixture-file:// reference from the fixture's fileRefs, never a path", v)
		}
		if fixture != nil && !slices.Contains(fixture.FileRefs, v) {
			return newError(CodeInvalidArgument, at.field("value"), fixture.FileRefs, "%q is not a file of fixture %q; use one of its fileRefs", v, fixture.ID)
		}
	}
	return nil
}

func fixtureFiles(f *Fixture) []string {
	if f == nil {
		return nil
	}
	return f.FileRefs
}

// routeProblem explains why v is not an app-relative route, or returns "". Routes
// must stay inside the fixture's app: v1 has no arbitrary URL access.
func routeProblem(v string) string {
	const fix = "; use an app-relative route starting with a single /, such as /cart"
	switch {
	case strings.Contains(v, "://") || hasScheme(v):
		return fmt.Sprintf("%q is an absolute URL; journeys may only navigate within the fixture's app%s", v, fix)
	case strings.HasPrefix(v, "//"):
		return fmt.Sprintf("%q names another host%s", v, fix)
	case !strings.HasPrefix(v, "/"):
		return fmt.Sprintf("%q is not app-relative%s", v, fix)
	case strings.ContainsRune(v, '\\'):
		return fmt.Sprintf("%q contains a backslash%s", v, fix)
	case strings.IndexFunc(v, unicode.IsControl) >= 0 || strings.ContainsRune(v, ' '):
		return fmt.Sprintf("%q contains spaces or control characters; percent-encode them%s", v, fix)
	}
	return ""
}

// hasScheme reports whether v starts with a URL scheme and a colon, as RFC 3986
// writes it: a letter, then letters, digits, '+', '.' or '-'. It is a loop rather
// than a regular expression because every route and artifact path is checked.
func hasScheme(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case 'a' <= c|0x20 && c|0x20 <= 'z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '.' || c == '-'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}

// validKey reports whether v is a key, optionally after modifiers: Enter, a,
// Control+Shift+K.
func validKey(v string) bool {
	key := v
	for {
		m, rest, chord := strings.Cut(key, "+")
		if !chord {
			break
		}
		if !slices.Contains(keyModifiers, m) {
			return false
		}
		key = rest
	}
	if len(key) == 1 {
		c := key[0]
		return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return slices.Contains(namedKeys, key) || len(key) >= 2 && key[0] == 'F' && fKey(key[1:])
}

func fKey(n string) bool {
	i, err := strconv.Atoi(n)
	return err == nil && i >= 1 && i <= 12 && strconv.Itoa(i) == n
}

// compile turns a valid journey into its graph. Steps run in order; each step's
// failure goes to its own recovery node when retries are allowed, which retries the
// step at most MaxRetries times before failing the journey. Assertions run after the
// last step; any failed assertion fails the journey, and the last success passes it.
func compile(in CompileJourneyInput) CompiledJourney {
	nodes := make([]GraphNode, 0, 2*len(in.Steps)+len(in.Assertions)+2)
	edges := make([]GraphEdge, 0, 4*len(in.Steps)+2*len(in.Assertions))
	retry := in.Recovery.MaxRetries > 0
	seq := make([]string, 0, len(in.Steps)+len(in.Assertions)+1)
	// Node names come from tables built once, and the copies of targets and
	// strategies are cut from one array each, so a compile allocates a fixed
	// number of times for them however long the journey is. Each strategies copy's
	// capacity ends where it does, so appending to one cannot overwrite the next.
	targets := make([]Target, 0, countTargets(in))
	copyTarget := func(t *Target) *Target {
		if t == nil {
			return nil
		}
		targets = append(targets, *t)
		return &targets[len(targets)-1]
	}
	var strategies []string
	if retry {
		strategies = make([]string, 0, len(in.Steps)*len(in.Recovery.Strategies))
	}
	for i, s := range in.Steps {
		names := stepNames.of(i)
		seq = append(seq, names.id)
		nodes = append(nodes, GraphNode{ID: names.id, Kind: NodeStep, Source: names.source, Intent: s.Intent,
			Target: copyTarget(s.Target), Destination: copyTarget(s.Destination), Value: s.Value})
		if retry {
			start := len(strategies)
			strategies = append(strategies, in.Recovery.Strategies...)
			nodes = append(nodes, GraphNode{ID: names.recovery, Kind: NodeRecovery, Source: "recovery",
				Strategies: strategies[start:len(strategies):len(strategies)]})
		}
	}
	for i, a := range in.Assertions {
		names := assertionNames.of(i)
		seq = append(seq, names.id)
		nodes = append(nodes, GraphNode{ID: names.id, Kind: NodeAssertion, Source: names.source,
			Assertion: a.Kind, Target: copyTarget(a.Target), Value: a.Value})
	}
	nodes = append(nodes, GraphNode{ID: NodePass, Kind: NodePass}, GraphNode{ID: NodeFail, Kind: NodeFail})
	seq = append(seq, NodePass)
	for i, id := range seq[:len(seq)-1] {
		edges = append(edges, GraphEdge{From: id, To: seq[i+1], On: EdgeSuccess})
		if i < len(in.Steps) && retry {
			rec := stepNames.of(i).recovery
			edges = append(edges,
				GraphEdge{From: id, To: rec, On: EdgeFailure},
				GraphEdge{From: rec, To: id, On: EdgeRetry, MaxAttempts: in.Recovery.MaxRetries},
				GraphEdge{From: rec, To: NodeFail, On: EdgeFailure})
			continue
		}
		edges = append(edges, GraphEdge{From: id, To: NodeFail, On: EdgeFailure})
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
	g.Digest = digestOf(g)
	return g
}

// countTargets counts the targets and destinations a compiled journey copies.
func countTargets(in CompileJourneyInput) int {
	n := 0
	for _, s := range in.Steps {
		if s.Target != nil {
			n++
		}
		if s.Destination != nil {
			n++
		}
	}
	for _, a := range in.Assertions {
		if a.Target != nil {
			n++
		}
	}
	return n
}

// nodeNames are the graph names of one step or assertion: its node ID, the ID of
// its recovery node (steps only) and the JSON path it came from.
type nodeNames struct{ id, recovery, source string }

// nodeNameTable holds the names of every element index a journey within the
// limits can have, built once at start-up.
type nodeNameTable struct {
	idPrefix, list string
	names          []nodeNames
}

var (
	stepNames      = newNodeNameTable("step-", "steps", MaxSteps)
	assertionNames = newNodeNameTable("assert-", "assertions", MaxAssertions)
)

func newNodeNameTable(idPrefix, list string, n int) nodeNameTable {
	t := nodeNameTable{idPrefix: idPrefix, list: list}
	t.names = make([]nodeNames, n)
	for i := range t.names {
		t.names[i] = t.build(i)
	}
	return t
}

// of returns the names of element i; past the limits, which validation rules
// out, it builds them.
func (t nodeNameTable) of(i int) nodeNames {
	if i < len(t.names) {
		return t.names[i]
	}
	return t.build(i)
}

func (t nodeNameTable) build(i int) nodeNames {
	n := strconv.Itoa(i + 1)
	return nodeNames{id: t.idPrefix + n, recovery: "recover-" + n, source: elemPath{t.list, i}.String()}
}

// digestOf hashes the canonical JSON of v. encoding/json writes struct fields in
// declaration order and sorts map keys, so equal values hash equally.
//
// The JSON is streamed into the hash rather than built with json.Marshal, which
// copies the whole document into a fresh slice (for a 200-step graph, the
// largest allocation of a compile), and the hash, encoder and output buffer are
// reused through a pool. The bytes hashed are exactly json.Marshal's.
func digestOf(v any) string {
	d := digesters.Get().(*digester)
	defer digesters.Put(d)
	d.w.h.Reset()
	d.w.held = false
	if err := d.enc.Encode(v); err != nil {
		panic("automium: digest of unmarshalable value: " + err.Error())
	}
	if !d.w.held || d.w.last != '\n' {
		panic("automium: digest: json.Encoder did not end the value with a newline")
	}
	out := append(d.out[:0], "sha256:"...)
	out = hex.AppendEncode(out, d.w.h.Sum(d.sum[:0]))
	return string(out)
}

// digester is the reusable state of one digestOf call.
type digester struct {
	w   hashWriter
	enc *json.Encoder
	sum []byte
	out []byte
}

var digesters = sync.Pool{New: func() any {
	d := &digester{w: hashWriter{h: sha256.New()}, sum: make([]byte, 0, sha256.Size), out: make([]byte, 0, len("sha256:")+2*sha256.Size)}
	d.enc = json.NewEncoder(&d.w)
	return d
}}

// hashWriter hashes what it is given except the last byte written so far, which
// it holds back: json.Encoder ends every value with a newline that json.Marshal
// does not write, and holding one byte back drops it however the encoder splits
// its writes.
type hashWriter struct {
	h    hash.Hash
	last byte
	held bool
}

func (w *hashWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if w.held {
		w.h.Write([]byte{w.last})
	}
	w.h.Write(p[:len(p)-1])
	w.last, w.held = p[len(p)-1], true
	return len(p), nil
}
