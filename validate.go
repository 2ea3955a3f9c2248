package automium

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/go-playground/validator/v10"
	"github.com/go-playground/validator/v10/non-standard/validators"
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
	if _, dup := customTags[tag]; dup {
		panic("automium: validate tag registered twice: " + tag)
	}
	customTags[tag] = customTag{code: code, noun: noun, values: values}
	return struct{}{}
}

// typedSet returns a sorted copy of a closed set as its Go type, for the
// accessors (Verdicts, Lanes, ...) that let Go callers list a set without
// knowing validate tag names.
func typedSet[T ~string](values []string) []T {
	out := make([]T, len(values))
	for i, v := range values {
		out[i] = T(v)
	}
	slices.Sort(out)
	return out
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

// patternTag is a validate tag backed by a regular expression, advertised to
// schemas as a pattern. The expression is compiled with the validator, on first
// use, not at package initialisation, which every start of a program pays.
type patternTag struct {
	expr string
	desc string
}

var patternTags = map[string]patternTag{}

// registerPattern adds a pattern-backed validate tag during package initialisation.
func registerPattern(tag, expr, desc string) struct{} {
	if _, dup := patternTags[tag]; dup {
		panic("automium: validate tag registered twice: " + tag)
	}
	patternTags[tag] = patternTag{expr: expr, desc: desc}
	return struct{}{}
}

// tagPattern returns the regular expression behind a pattern validate tag of this
// package, and whether the tag is one, so JSONSchema can advertise it as a pattern.
func tagPattern(tag string) (string, bool) {
	t, ok := patternTags[tag]
	if !ok {
		return "", false
	}
	return t.expr, true
}

func newValidator() *validator.Validate {
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
		// of being scanned (or, for ContractNames, rebuilt) on every validation.
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

// validateStruct runs the shared validator over in and converts every field error
// into an *Error, in the order the validator reports them (struct field order).
func validateStruct(in any) []*Error {
	err := validatorOnce().Struct(in)
	if err == nil {
		return nil
	}
	var fieldErrs validator.ValidationErrors
	if !errors.As(err, &fieldErrs) {
		return []*Error{internalError("validating input")}
	}
	out := make([]*Error, 0, len(fieldErrs))
	for _, fe := range fieldErrs {
		e := fieldError(fe)
		if fe.Tag() == "required" {
			closedSetHint(e, reflect.TypeOf(in), fe.StructNamespace())
		}
		out = append(out, e)
	}
	return out
}

// closedSetHint completes the error for a missing field that takes a value from a
// closed set: the validator reports only the failed required rule, but the fix is
// to pick one of the set's values, so the error names them.
func closedSetHint(e *Error, root reflect.Type, structNamespace string) {
	t := root
	var tag string
	segments := strings.Split(structNamespace, ".")
	for _, seg := range segments[1:] {
		name, indexed := strings.CutSuffix(seg, "]")
		name, _, _ = strings.Cut(name, "[")
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		f, ok := t.FieldByName(name)
		if !ok {
			return
		}
		t, tag = f.Type, f.Tag.Get("validate")
		if indexed {
			for t.Kind() == reflect.Pointer {
				t = t.Elem()
			}
			t = t.Elem()
		}
	}
	for rule := range strings.SplitSeq(tag, ",") {
		if ct, ok := customTags[rule]; ok {
			e.Allowed = slices.Sorted(slices.Values(ct.values()))
			e.Message = "is required: use " + ct.noun + ", one of the allowed values"
			return
		}
	}
}

// fieldPath strips the root struct name from a validator namespace, giving the JSON
// path a client wrote: "CompileJourneyInput.steps[2].intent" becomes "steps[2].intent".
func fieldPath(namespace string) string {
	_, path, found := strings.Cut(namespace, ".")
	if !found {
		return namespace
	}
	return path
}

// fieldError turns one validator failure into a plain-English *Error. The
// validator's own Error() text is for debugging only and never reaches a client.
func fieldError(fe validator.FieldError) *Error {
	field := fieldPath(fe.Namespace())
	value := fe.Value()
	if t, ok := customTags[fe.Tag()]; ok {
		allowed := t.values()
		return newError(t.code, field, allowed, "%q is not %s; use one of the allowed values", fmt.Sprint(value), t.noun)
	}
	if t, ok := patternTags[fe.Tag()]; ok {
		return newError(CodeInvalidArgument, field, nil, "%q is not valid; use %s", fmt.Sprint(value), t.desc)
	}
	isCollection := func() bool {
		k := fe.Kind()
		return k == reflect.Slice || k == reflect.Array || k == reflect.Map
	}
	switch fe.Tag() {
	case "notblank":
		return newError(CodeInvalidArgument, field, nil, "is blank; it needs some text that is not just spaces")
	case "required":
		return newError(CodeInvalidArgument, field, nil, "is required and must not be empty")
	case "oneof":
		allowed := strings.Fields(fe.Param())
		return newError(CodeInvalidArgument, field, allowed, "%q is not allowed; use one of the allowed values", fmt.Sprint(value))
	case "max", "lte":
		switch {
		case isCollection():
			return newError(CodeLimitExceeded, field, nil, "has too many items; the limit is %s, send fewer", fe.Param())
		case fe.Kind() == reflect.String:
			return newError(CodeLimitExceeded, field, nil, "is too long; the limit is %s characters, shorten it", fe.Param())
		default:
			return newError(CodeLimitExceeded, field, nil, "is %v, above the limit of %s; use a smaller value", value, fe.Param())
		}
	case "min", "gte":
		switch {
		case isCollection():
			return newError(CodeInvalidArgument, field, nil, "needs at least %s item(s)", fe.Param())
		case fe.Kind() == reflect.String:
			return newError(CodeInvalidArgument, field, nil, "must be at least %s characters long", fe.Param())
		default:
			return newError(CodeInvalidArgument, field, nil, "is %v, below the minimum of %s", value, fe.Param())
		}
	case "unique":
		return newError(CodeInvalidArgument, field, nil, "contains duplicates; every item must be unique")
	case "hexadecimal", "len":
		return newError(CodeInvalidArgument, field, nil, "must be %s", describeTag(fe))
	}
	return newError(CodeInvalidArgument, field, nil, "fails the %q rule", fe.Tag())
}

func describeTag(fe validator.FieldError) string {
	switch fe.Tag() {
	case "hexadecimal":
		return "hexadecimal digits only"
	case "len":
		return "exactly " + fe.Param() + " characters long"
	}
	return fe.Tag()
}
