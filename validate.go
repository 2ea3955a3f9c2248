package automium

import (
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
	"github.com/go-playground/validator/v10/non-standard/validators"

	"github.com/automium/automium/internal/echo"
)

// validator is the process-wide validator. It is built once, on first use, because
// the validator caches struct metadata per instance and custom tags must all be
// registered (by the package-level registerTag calls in each file) before it is
// built.
var validatorOnce = sync.OnceValue(newValidator)

// customTag describes a validate tag backed by a closed set that this package
// owns. The set doubles as the JSON Schema enum and the error's allowed values.
type customTag struct {
	code   Code
	noun   string
	values func() []string
}

// customTags maps each corpus- or vocabulary-backed validate tag to its closed set.
// The schema translator reads it through tagValues, so schemas and validation
// cannot drift.
var customTags = map[string]customTag{}

// registerTag adds a custom validate tag. It runs during package initialisation
// only, from each file that owns a closed set, so the set lives next to its domain.
func registerTag(tag string, code Code, noun string, values func() []string) struct{} {
	if validatorBuilt {
		panic("automium: validate tag registered after the validator was built: " + tag)
	}
	if _, dup := customTags[tag]; dup {
		panic("automium: validate tag registered twice: " + tag)
	}
	customTags[tag] = customTag{code: code, noun: noun, values: values}
	return struct{}{}
}

// tagValues returns the closed set behind a custom validate tag of this package,
// sorted, and whether the tag is one. The schema translator turns validate tags
// into JSON Schema enums with it, so that what a schema advertises is exactly
// what validation accepts.
func tagValues(tag string) ([]string, bool) {
	t, ok := customTags[tag]
	if !ok {
		return nil, false
	}
	v := slices.Clone(t.values())
	slices.Sort(v)
	return v, true
}

// externalTags maps each validate tag that takes a corpus ID or an ID outside
// the corpus (ext:…, see external.go) to the closed-set tag of the corpus IDs.
// Its schema is the pattern both forms share; a value without the prefix must
// still be in the corpus, and is refused with the corpus's values otherwise.
var externalTags = map[string]string{}

// registerExternalTag adds such a tag during package initialisation. base
// may be registered later in initialisation: the validator checks it.
func registerExternalTag(tag, base string) struct{} {
	if _, dup := externalTags[tag]; dup {
		panic("automium: validate tag registered twice: " + tag)
	}
	externalTags[tag] = base
	return struct{}{}
}

// validOrExternal reports whether s is one of corpus or a well-formed
// external ID.
func validOrExternal(s string, set map[string]struct{}, corpus []string) bool {
	if _, ok := set[s]; ok {
		return true
	}
	if !isExternal(s) {
		return false
	}
	_, bad := externalProblem(s, corpus)
	return !bad
}

// patternTag is a validate tag backed by a regular expression, advertised to
// schemas as a pattern. The expression is compiled with the validator, on first
// use, not at package initialisation, which every start of a program pays.
type patternTag struct {
	expr string
	desc echo.Message
}

var patternTags = map[string]patternTag{}

// registerPattern adds a pattern-backed validate tag during package initialisation.
func registerPattern(tag, expr string, desc echo.Message) struct{} {
	if _, dup := patternTags[tag]; dup {
		panic("automium: validate tag registered twice: " + tag)
	}
	patternTags[tag] = patternTag{expr: expr, desc: desc}
	return struct{}{}
}

// tagPattern returns the regular expression behind a pattern validate tag of this
// package, and whether the tag is one, so jsonSchema can advertise it as a pattern.
func tagPattern(tag string) (string, bool) {
	t, ok := patternTags[tag]
	if !ok {
		return "", false
	}
	return t.expr, true
}

// validatorBuilt is set once the validator is built: a tag registered after
// that (by the contract package, say, if the root package validated during
// its initialisation) would be missing from it, so registerTag refuses.
var validatorBuilt bool

func newValidator() *validator.Validate {
	validatorBuilt = true
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	for tag, t := range customTags {
		// The closed sets are fixed by the end of package initialisation, before
		// the validator is first built, so each becomes a set once, here, instead
		// of being scanned (or, for the contract names, rebuilt) on every validation.
		values := t.values()
		set := make(map[string]struct{}, len(values))
		for _, s := range values {
			set[s] = struct{}{}
		}
		err := v.RegisterValidation(tag, func(fl validator.FieldLevel) bool {
			_, ok := set[fl.Field().String()]
			return ok
		})
		if err != nil {
			panic("automium: registering validate tag " + tag + ": " + err.Error())
		}
	}
	for tag, base := range externalTags {
		if _, ok := customTags[base]; !ok {
			panic("automium: external tag " + tag + " on an unknown closed set " + base)
		}
		values := customTags[base].values()
		set := make(map[string]struct{}, len(values))
		for _, s := range values {
			set[s] = struct{}{}
		}
		err := v.RegisterValidation(tag, func(fl validator.FieldLevel) bool {
			return validOrExternal(fl.Field().String(), set, values)
		})
		if err != nil {
			panic("automium: registering validate tag " + tag + ": " + err.Error())
		}
	}
	// A bound's tag is max=<its value> (limits.go).
	for _, l := range limits {
		if l.Tag != "" {
			v.RegisterAlias(l.Tag, "max="+strconv.FormatInt(l.Value, 10))
		}
	}
	// Required text must say something: the validator's required accepts "  ".
	if err := v.RegisterValidation("notblank", validators.NotBlank); err != nil {
		panic("automium: registering validate tag notblank: " + err.Error())
	}
	for tag, t := range patternTags {
		re := regexp.MustCompile(t.expr)
		err := v.RegisterValidation(tag, func(fl validator.FieldLevel) bool {
			return re.MatchString(fl.Field().String())
		})
		if err != nil {
			panic("automium: registering validate tag " + tag + ": " + err.Error())
		}
	}
	return v
}

// A fieldPlan is how one wire field of a struct type is validated: the rules of
// its validate tag that apply to the field itself, and, after a dive, those
// that apply to each element. Plans are built once per type (see planOf), so
// that a check walks the input with its own Path in hand and never reads a
// path back from the validator's text.
type fieldPlan struct {
	name   string
	index  []int
	typ    reflect.Type // the field's type, pointers removed
	rules  string       // the rules before any dive, for the field itself
	dive   bool         // the rules after a dive apply to each element
	elem   string       // the rules after the dive
	nested bool         // the field (or, with dive, its elements) is a struct to walk
	tag    string       // the whole validate tag, for messages that name its closed set
}

var plansCache sync.Map // reflect.Type -> []fieldPlan

// planOf returns the plans of a struct type's wire fields, in field order.
func planOf(t reflect.Type) []fieldPlan {
	if plans, ok := plansCache.Load(t); ok {
		return plans.([]fieldPlan)
	}
	var plans []fieldPlan
	for _, wf := range wireFields(t) {
		sf := t.FieldByIndex(wf.index)
		tag := sf.Tag.Get("validate")
		rules, elem, dive := strings.Cut(tag, ",dive")
		if strings.HasPrefix(tag, "dive") {
			rules, elem, dive = "", strings.TrimPrefix(tag, "dive"), true
		}
		elem = strings.TrimPrefix(elem, ",")
		ft := deref(sf.Type)
		walked := ft
		if dive {
			walked = deref(ft.Elem())
		}
		plans = append(plans, fieldPlan{name: wf.name, index: wf.index, typ: ft, rules: rules, dive: dive, elem: elem,
			nested: walked.Kind() == reflect.Struct, tag: tag})
	}
	plansCache.Store(t, plans)
	return plans
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// anyIndex in a path given to validate's except stands for every element.
const anyIndex = -1

// matches reports whether the steps of a path are those of the pattern q,
// whose anyIndex steps match any element.
func matches(steps []pathStep, q Path) bool {
	if len(steps) != len(q.steps) {
		return false
	}
	for i, st := range q.steps {
		if st.name != steps[i].name || st.elem != steps[i].elem || st.elem && st.index != anyIndex && st.index != steps[i].index {
			return false
		}
	}
	return true
}

// validateStruct returns what the shared validator's rules find in in, each
// problem made once at its path, except at the paths of except: the fields a
// capability checks itself, because it can say more about them than the
// generic rules (an unknown fixture of a known app lists that app's fixtures).
func validateStruct(in any, except ...Path) []Problem {
	w := ruleWalk{except: except, remember: maxRemembered}
	w.fields(reflect.ValueOf(in))
	return w.out
}

// ruleWalk is one pass of the tag rules over an input. Its path is a stack
// reused as the walk goes, frozen into a Path only for a problem, so a valid
// input costs no path allocations.
type ruleWalk struct {
	out    []Problem
	path   []pathStep
	except []Path
	// passed holds the strings that already passed a set of rules in this
	// walk. Rules checked one value at a time see nothing else (no other
	// field, no state), so a string that passed once passes again: the
	// 48,000 trials of a large comparison repeat a few hundred planner, app
	// and journey IDs, and each repeat skipped is a validator call and
	// often a regular expression match saved. Failures are checked again
	// each time, so every problem keeps its own path. Numbers are not kept:
	// they repeat less, and the map cost more than the validator saved.
	passed map[passedString]struct{}
	// remember bounds passed (0: nothing is remembered). The IDs worth
	// remembering are a few hundred; distinct strings are not, and
	// remembering each of them cost seven times what validation allocates
	// without the set (100,000 trials of distinct IDs: 77.6 MB, not 10.4).
	remember int
}

// maxRemembered is the bound of a walk's remembered strings: 4,096 of
// them, a few hundred kilobytes, hold the 662 strings of the largest
// observed comparison (BenchmarkCompareObservedLargest), 6 times over.
const maxRemembered = 4096

// passedString is a string value, its type and the rules it passed.
type passedString struct {
	rules, value string
	typ          reflect.Type
}

// check is checkRules for a value of the walk, skipping a string that
// already passed the same rules.
func (w *ruleWalk) check(v reflect.Value, rules, tag string, t reflect.Type) bool {
	if rules == "" || v.Kind() != reflect.String || w.remember == 0 {
		return checkRules(&w.out, w.at, v, rules, tag, t)
	}
	key := passedString{rules: rules, value: v.String(), typ: v.Type()}
	if _, ok := w.passed[key]; ok {
		return true
	}
	if !checkRules(&w.out, w.at, v, rules, tag, t) {
		return false
	}
	if w.passed == nil {
		w.passed = map[passedString]struct{}{}
	}
	if len(w.passed) < w.remember {
		w.passed[key] = struct{}{}
	}
	return true
}

func (w *ruleWalk) excepted() bool {
	return slices.ContainsFunc(w.except, func(q Path) bool { return matches(w.path, q) })
}

func (w *ruleWalk) at() Path { return Path{steps: slices.Clone(w.path)} }

// fields checks the fields of the struct v by their plans.
func (w *ruleWalk) fields(v reflect.Value) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	for _, f := range planOf(v.Type()) {
		w.path = append(w.path, pathStep{name: f.name})
		w.field(f, v.FieldByIndex(f.index))
		w.path = w.path[:len(w.path)-1]
	}
}

func (w *ruleWalk) field(f fieldPlan, fv reflect.Value) {
	if w.excepted() || !w.check(fv, f.rules, f.tag, f.typ) {
		return
	}
	switch {
	case f.dive:
		for fv.Kind() == reflect.Pointer && !fv.IsNil() {
			fv = fv.Elem()
		}
		if fv.Kind() != reflect.Slice && fv.Kind() != reflect.Array {
			return
		}
		et := deref(f.typ.Elem())
		for i := range fv.Len() {
			w.path = append(w.path, pathStep{index: i, elem: true})
			if !w.excepted() && w.check(fv.Index(i), f.elem, f.elem, et) && f.nested {
				w.fields(fv.Index(i))
			}
			w.path = w.path[:len(w.path)-1]
		}
	case f.nested:
		w.fields(fv)
	}
}

// checkRules records the first rule of rules that v, at at, breaks, and
// reports whether v passed them all (and so may be walked further). A struct
// takes only required and omitempty, which the walk checks itself; any other
// value is checked by the shared validator, one value at a time.
func checkRules(out *[]Problem, at func() Path, v reflect.Value, rules, tag string, t reflect.Type) bool {
	if rules == "" {
		return true
	}
	if t.Kind() == reflect.Struct {
		if rules == "required" && v.IsZero() {
			*out = append(*out, fieldProblem(at(), t.Kind(), "required", "", nil, tag))
			return false
		}
		return true
	}
	err := validatorOnce().Var(v.Interface(), rules)
	if err == nil {
		return true
	}
	var fieldErrs validator.ValidationErrors
	if !errors.As(err, &fieldErrs) || len(fieldErrs) == 0 {
		*out = append(*out, internalError("validating input").Problem)
		return false
	}
	fe := fieldErrs[0]
	// A bound's tag is an alias of max (limits.go): its actual tag decides.
	*out = append(*out, fieldProblem(at(), fe.Kind(), fe.ActualTag(), fe.Param(), fe.Value(), tag))
	return false
}

// checkField checks the value of one field that a capability excepted from
// validateStruct with the field's own rules, and reports whether it passed.
func (ps *problems) checkField(at Path, owner reflect.Type, wireName string, value any) bool {
	for _, f := range planOf(deref(owner)) {
		if f.name == wireName {
			return checkRules(&ps.found, func() Path { return at }, reflect.ValueOf(value), f.rules, f.tag, f.typ)
		}
	}
	panic("automium: checkField of " + owner.String() + " has no field " + wireName)
}

// fieldProblem turns one broken rule into a plain-English problem at at. The
// validator's own Error() text is for debugging only and never reaches a
// client; the value broken is passed as data, so the renderer quotes it cut.
func fieldProblem(at Path, kind reflect.Kind, tag, param string, value any, fieldTag string) Problem {
	isCollection := kind == reflect.Slice || kind == reflect.Array || kind == reflect.Map
	// A value that is not a number is a client's text; a number is bounded.
	shown := value
	if s, ok := value.(string); ok {
		shown = echo.Value(s)
	} else if v := reflect.ValueOf(value); v.IsValid() && v.Kind() == reflect.String {
		shown = echo.Value(v.String())
	}
	if base, ok := externalTags[tag]; ok {
		t := customTags[base]
		if s, isString := value.(string); isString && isExternal(s) {
			msg, _ := externalProblem(s, t.values())
			return newProblem(t.code, at, nil, msg)
		}
		return newProblem(t.code, at, t.values(), echo.Msg("%s is not %s; use one of the allowed values, or, for your own app outside the corpus, ext: and a lowercase name, such as ext:acme-notes", shown, t.noun))
	}
	if t, ok := customTags[tag]; ok {
		if s, isString := value.(string); isString && isExternal(s) && (tag == "automium_app" || tag == "automium_fixture") {
			return newProblem(t.code, at, t.values(), echo.Msg("%s is outside the corpus, and this takes %s, whose corpus entry it reads; use one of the allowed values", shown, t.noun))
		}
		return newProblem(t.code, at, t.values(), echo.Msg("%s is not %s; use one of the allowed values", shown, t.noun))
	}
	if t, ok := patternTags[tag]; ok {
		return newProblem(CodeInvalidArgument, at, nil, echo.Msg("%s is not valid; use %s", shown, t.desc))
	}
	msg := func(code Code, allowed []string, format string, args ...any) Problem {
		return newProblem(code, at, allowed, echo.Msg(format, args...))
	}
	switch tag {
	case "notblank":
		return msg(CodeInvalidArgument, nil, "is blank; it needs some text that is not just spaces")
	case "required":
		// A missing field that takes a value from a closed set: the fix is to
		// pick one of the set's values, so the problem names them.
		for rule := range strings.SplitSeq(fieldTag, ",") {
			if base, ok := externalTags[rule]; ok {
				rule = base
			}
			if ct, ok := customTags[rule]; ok {
				return msg(CodeInvalidArgument, ct.values(), "is required: use %s, one of the allowed values", ct.noun)
			}
		}
		return msg(CodeInvalidArgument, nil, "is required and must not be empty")
	case "oneof":
		return msg(CodeInvalidArgument, strings.Fields(param), "%s is not allowed; use one of the allowed values", shown)
	case "max", "lte":
		switch {
		case isCollection:
			return msg(CodeLimitExceeded, nil, "has too many items; the limit is %s, send fewer", param)
		case kind == reflect.String:
			return msg(CodeLimitExceeded, nil, "is too long; the limit is %s characters, shorten it", param)
		default:
			return msg(CodeLimitExceeded, nil, "is %v, above the limit of %s; use a smaller value", shown, param)
		}
	case "min", "gte":
		switch {
		case isCollection:
			return msg(CodeInvalidArgument, nil, "needs at least %s item(s)", param)
		case kind == reflect.String:
			return msg(CodeInvalidArgument, nil, "must be at least %s characters long", param)
		default:
			return msg(CodeInvalidArgument, nil, "is %v, below the minimum of %s", shown, param)
		}
	case "unique":
		return msg(CodeInvalidArgument, nil, "contains duplicates; every item must be unique")
	case "hexadecimal":
		return msg(CodeInvalidArgument, nil, "must be hexadecimal digits only")
	case "len":
		return msg(CodeInvalidArgument, nil, "must be exactly %s characters long", param)
	}
	return msg(CodeInvalidArgument, nil, "fails the %q rule", tag)
}
