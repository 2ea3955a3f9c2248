package automium

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/automium/automium/internal/closedset"
	"github.com/automium/automium/internal/echo"
)

// Requirement says whether an intent needs a target, a value or a destination.
type Requirement string

// Requirements of an intent's parameters.
const (
	Required  Requirement = "required"
	Optional  Requirement = "optional"
	Forbidden Requirement = "forbidden"
)

// Intent names one action of the frozen planner intent vocabulary
// (planner-intent-v1). A planner may only choose from these, which is what
// makes planner decisions replayable and comparable across backends; its
// string is the wire form, as in steps[].intent.
type Intent string

// The intents of planner-intent-v1, in the vocabulary's order; [Vocabulary]
// says what each needs, [Intents] lists them sorted.
const (
	IntentNavigate     Intent = "navigate"
	IntentGoBack       Intent = "go_back"
	IntentClick        Intent = "click"
	IntentFill         Intent = "fill"
	IntentSelectOption Intent = "select_option"
	IntentSetChecked   Intent = "set_checked"
	IntentPressKey     Intent = "press_key"
	IntentHover        Intent = "hover"
	IntentScroll       Intent = "scroll"
	IntentUploadFile   Intent = "upload_file"
	IntentHandleDialog Intent = "handle_dialog"
	IntentSwitchTab    Intent = "switch_tab"
	IntentDragDrop     Intent = "drag_drop"
	IntentWaitFor      Intent = "wait_for"
	IntentExtract      Intent = "extract"
	IntentFinish       Intent = "finish"
)

// IntentSpec is one intent of the vocabulary and what it needs.
type IntentSpec struct {
	Name        Intent      `json:"name" jsonschema:"intent name as used in steps[].intent"`
	Description string      `json:"description" jsonschema:"what the intent does"`
	Target      Requirement `json:"target" jsonschema:"whether a semantic target (ARIA role plus accessible name) is required, optional or forbidden"`
	Value       Requirement `json:"value" jsonschema:"whether a value is required, optional or forbidden"`
	ValueKind   string      `json:"valueKind,omitempty" jsonschema:"what the value means when one is taken"`
	ValueHint   string      `json:"valueHint,omitempty" jsonschema:"how to write the value, with the allowed values for closed sets"`
	Destination Requirement `json:"destination" jsonschema:"whether a destination target is required, optional or forbidden"`
	Capability  Capability  `json:"capability,omitempty" jsonschema:"app capability the intent needs; apps without it reject the intent"`
	TargetRoles []Role      `json:"targetRoles,omitempty" jsonschema:"the ARIA roles the target may have, for intents that act on one kind of control; absent means any target role"`
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
var vocabulary = []IntentSpec{
	{Name: "navigate", Description: "Open an app-relative route of the fixture's app.", Target: Forbidden, Value: Required, ValueKind: valueRoute, ValueHint: "an app-relative route starting with /, such as /cart or /search?q=kettle; absolute URLs and other hosts are rejected", Destination: Forbidden},
	{Name: "go_back", Description: "Go back one entry in the tab's history.", Target: Forbidden, Value: Forbidden, Destination: Forbidden},
	{Name: "click", Description: "Click the target element.", Target: Required, Value: Forbidden, Destination: Forbidden},
	{Name: "fill", Description: "Replace the text of an editable target with the value.", Target: Required, Value: Required, ValueKind: valueText, ValueHint: "the text to type", Destination: Forbidden, TargetRoles: []Role{"combobox", "searchbox", "spinbutton", "textbox"}},
	{Name: "select_option", Description: "Choose the option whose label is the value in a select, combobox or listbox target.", Target: Required, Value: Required, ValueKind: valueOption, ValueHint: "the visible label of the option", Destination: Forbidden, TargetRoles: []Role{"combobox", "listbox"}},
	{Name: "set_checked", Description: "Check or uncheck a checkbox, radio or switch target.", Target: Required, Value: Required, ValueKind: valueBoolean, ValueHint: "true or false", Destination: Forbidden, TargetRoles: []Role{"checkbox", "radio", "switch"}},
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

var intentByName = func() map[Intent]*IntentSpec {
	m := make(map[Intent]*IntentSpec, len(vocabulary))
	for i := range vocabulary {
		m[vocabulary[i].Name] = &vocabulary[i]
	}
	return m
}()

// Vocabulary returns a copy of the frozen planner-intent-v1 vocabulary, in its
// canonical order. Prompts and schemas list it from here so they cannot drift.
func Vocabulary() []IntentSpec {
	out := slices.Clone(vocabulary)
	for i := range out {
		out[i].TargetRoles = slices.Clone(out[i].TargetRoles)
	}
	return out
}

// Role is an ARIA role a target may name; its string is the wire form, as in
// target.role. Roles, not CSS, keep journeys stable across markup changes and
// readable by planners that see accessibility trees.
type Role string

// The roles a target may name; [Roles] lists them.
const (
	RoleAlert        Role = "alert"
	RoleAlertDialog  Role = "alertdialog"
	RoleArticle      Role = "article"
	RoleBanner       Role = "banner"
	RoleButton       Role = "button"
	RoleCell         Role = "cell"
	RoleCheckbox     Role = "checkbox"
	RoleColumnHeader Role = "columnheader"
	RoleCombobox     Role = "combobox"
	RoleDialog       Role = "dialog"
	RoleForm         Role = "form"
	RoleGrid         Role = "grid"
	RoleGridCell     Role = "gridcell"
	RoleHeading      Role = "heading"
	RoleImg          Role = "img"
	RoleLink         Role = "link"
	RoleList         Role = "list"
	RoleListbox      Role = "listbox"
	RoleListItem     Role = "listitem"
	RoleMain         Role = "main"
	RoleMenu         Role = "menu"
	RoleMenuItem     Role = "menuitem"
	RoleNavigation   Role = "navigation"
	RoleOption       Role = "option"
	RoleRadio        Role = "radio"
	RoleRegion       Role = "region"
	RoleRow          Role = "row"
	RoleRowHeader    Role = "rowheader"
	RoleSearchbox    Role = "searchbox"
	RoleSlider       Role = "slider"
	RoleSpinbutton   Role = "spinbutton"
	RoleStatus       Role = "status"
	RoleSwitch       Role = "switch"
	RoleTab          Role = "tab"
	RoleTable        Role = "table"
	RoleTabPanel     Role = "tabpanel"
	RoleTextbox      Role = "textbox"
	RoleTooltip      Role = "tooltip"
	RoleTree         Role = "tree"
	RoleTreeItem     Role = "treeitem"
)

// Roles returns the ARIA roles a target may name, sorted.
func Roles() []Role { return closedset.Sorted[Role](targetRoles) }

// RecoveryStrategy is what a modeled runtime may try after a failed step
// before it retries; its string is the wire form, as in recovery.strategies.
type RecoveryStrategy string

// The recovery strategies; [RecoveryStrategies] lists them.
const (
	RecoveryDismissDialog RecoveryStrategy = "dismiss_dialog"
	RecoveryGoBack        RecoveryStrategy = "go_back"
	RecoveryReloadRoute   RecoveryStrategy = "reload_route"
	RecoveryReplan        RecoveryStrategy = "replan"
	RecoveryReSnapshot    RecoveryStrategy = "re_snapshot"
	RecoveryRetryStep     RecoveryStrategy = "retry_step"
)

// RecoveryStrategies returns the recovery strategies a journey may list, sorted.
func RecoveryStrategies() []RecoveryStrategy {
	return closedset.Sorted[RecoveryStrategy](recoveryStrategies)
}

// AssertionKind is a kind of journey assertion; its string is the wire form,
// as in assertions[].kind.
type AssertionKind string

// The assertion kinds; [AssertionSpecs] says what each needs.
const (
	AssertURLMatches     AssertionKind = "url_matches"
	AssertTitleContains  AssertionKind = "title_contains"
	AssertTextVisible    AssertionKind = "text_visible"
	AssertElementVisible AssertionKind = "element_visible"
	AssertElementHidden  AssertionKind = "element_hidden"
	AssertElementChecked AssertionKind = "element_checked"
	AssertElementValue   AssertionKind = "element_value"
	AssertElementText    AssertionKind = "element_text"
)

// AssertionSpec is one kind of journey assertion and what it needs, as
// [IntentSpec] says it for steps.
type AssertionSpec struct {
	Kind      AssertionKind `json:"kind" jsonschema:"assertion kind as used in assertions[].kind"`
	Target    Requirement   `json:"target" jsonschema:"whether a semantic target is required, optional or forbidden"`
	Value     Requirement   `json:"value" jsonschema:"whether a value is required, optional or forbidden"`
	ValueKind string        `json:"valueKind,omitempty" jsonschema:"what the value means when one is taken: route (app-relative) or text"`
}

// AssertionSpecs returns every assertion kind with what it needs, sorted by kind.
func AssertionSpecs() []AssertionSpec {
	out := make([]AssertionSpec, len(assertionKinds))
	for i, k := range assertionKinds {
		spec := assertionSpecs[AssertionKind(k)]
		out[i] = AssertionSpec{Kind: AssertionKind(k), Target: spec.target, Value: spec.value, ValueKind: spec.valueKind}
	}
	return out
}

// Intents returns the intents of the frozen vocabulary, sorted.
func Intents() []Intent { return closedset.Sorted[Intent](intentNames) }

var intentNames = func() []string {
	names := make([]string, len(vocabulary))
	for i, in := range vocabulary {
		names[i] = string(in.Name)
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

var assertionSpecs = map[AssertionKind]assertionSpec{
	"url_matches":     {target: Forbidden, value: Required, valueKind: valueRoute},
	"title_contains":  {target: Forbidden, value: Required, valueKind: valueText},
	"text_visible":    {target: Forbidden, value: Required, valueKind: valueText},
	"element_visible": {target: Required, value: Forbidden},
	"element_hidden":  {target: Required, value: Forbidden},
	"element_checked": {target: Required, value: Forbidden},
	"element_value":   {target: Required, value: Required, valueKind: valueText},
	"element_text":    {target: Required, value: Required, valueKind: valueText},
}

var assertionKinds = closedset.Strings(slices.Sorted(maps.Keys(assertionSpecs)))

var (
	_ = registerTag("automium_intent", CodeUnsupportedIntent, "an intent of the "+IntentVocabularyVersion+" vocabulary", func() []string { return intentNames })
	_ = registerTag("automium_role", CodeInvalidArgument, "a supported ARIA role", func() []string { return targetRoles })
	_ = registerTag("automium_recovery", CodeInvalidArgument, "a recovery strategy", func() []string { return recoveryStrategies })
	_ = registerTag("automium_assertion", CodeInvalidArgument, "an assertion kind", func() []string { return assertionKinds })
	_ = registerPattern("automium_slug", `^[a-z0-9][a-z0-9._-]*$`, echo.Msg("lowercase letters, digits, '.', '_' and '-', starting with a letter or digit"))
)

// appIntents lists the intents an app supports, for fix-it messages.
func appIntents(app *App) []string {
	var names []string
	for _, in := range vocabulary {
		if in.Capability == "" || slices.Contains(app.Capabilities, in.Capability) {
			names = append(names, string(in.Name))
		}
	}
	return names
}

// requirement is whether one member of a step or assertion (its target,
// destination or value) is present, and what its intent or kind requires of it.
type requirement struct {
	member, what string // "target", "a target"
	req          Requirement
	present      bool
}

// problem reports a missing required member or a present forbidden one, naming
// who requires it (kind "intent", name "click"), or returns nil.
func (r requirement) problem(kind, name string) *Error {
	switch {
	case r.req == Required && !r.present:
		return newError(CodeInvalidArgument, Path{}, nil, "%s %s needs %s", kind, name, r.what)
	case r.req == Forbidden && r.present:
		return newError(CodeInvalidArgument, Path{}, nil, "%s %s takes no %s; remove it", kind, name, r.member)
	}
	return nil
}

// valueProblem checks a step's or assertion's value against its kind, or returns
// nil. fixture may be nil when the fixture is unknown, in which case
// fixture-file references cannot be checked.
func valueProblem(kind, v string, fixture *Fixture) *Error {
	closed := func(allowed []string, what string) *Error {
		if slices.Contains(allowed, v) {
			return nil
		}
		return newError(CodeInvalidArgument, Path{}, allowed, "%s is not %s; use one of the allowed values", echo.Value(v), what)
	}
	switch kind {
	case valueRoute:
		if msg, bad := routeProblem(v); bad {
			return newError(CodeInvalidArgument, Path{}, nil, "%s", msg)
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
			return newError(CodeInvalidArgument, Path{}, namedKeys, "%s is not a key; use a named key, a single letter or digit, optionally after modifiers such as Control+ or Shift+", echo.Value(v))
		}
	case valueFixtureFile:
		if !strings.HasPrefix(v, "fixture-file://") {
			return newError(CodeInvalidArgument, Path{}, fixtureFiles(fixture), "%s is not a fixture file reference; upload_file takes a fixture-file:// reference from the fixture's fileRefs, never a path", echo.Value(v))
		}
		if fixture != nil && !slices.Contains(fixture.FileRefs, v) {
			return newError(CodeInvalidArgument, Path{}, fixture.FileRefs, "%s is not a file of fixture %s; use one of its fileRefs", echo.Value(v), echo.Value(fixture.ID))
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

// routeProblem explains why v is not an app-relative route, and reports
// whether it is not. Routes must stay inside the fixture's app: v1 has no
// arbitrary URL access.
func routeProblem(v string) (echo.Message, bool) {
	const fix = "; use an app-relative route starting with a single /, such as /cart"
	bad := func(format string) (echo.Message, bool) { return echo.Msg(format+fix, echo.Value(v)), true }
	switch {
	case strings.Contains(v, "://") || hasScheme(v):
		return bad("%s is an absolute URL; journeys may only navigate within the fixture's app")
	case strings.HasPrefix(v, "//"):
		return bad("%s names another host")
	case !strings.HasPrefix(v, "/"):
		return bad("%s is not app-relative")
	case strings.ContainsRune(v, '\\'):
		return bad("%s contains a backslash")
	case strings.IndexFunc(v, unicode.IsControl) >= 0 || strings.ContainsRune(v, ' '):
		return bad("%s contains spaces or control characters; percent-encode them")
	}
	return echo.Message{}, false
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
