package automium

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
)

// A jsonPath is the JSON path of one input field as a client wrote it, such as
// steps[3].target.role. Checks build paths from their parts and never parse
// them back: the top-level field and the element of a top-level list are kept
// apart, so that problems can be put in the order a reader meets the fields
// without reading the rendered text.
type jsonPath struct {
	top   string // the top-level field, as on the wire: steps
	index int    // the element of the top-level list, or -1
	rest  string // what follows, rendered: .target.role or [2]
}

// field is the path of a top-level field.
func field(name string) jsonPath { return jsonPath{top: name, index: -1} }

// at is the path of element i of the list at p.
func (p jsonPath) at(i int) jsonPath {
	if p.index < 0 && p.rest == "" {
		p.index = i
		return p
	}
	p.rest += "[" + strconv.Itoa(i) + "]"
	return p
}

// dot is the path of the member name of the object at p.
func (p jsonPath) dot(name string) jsonPath {
	p.rest += "." + name
	return p
}

// String renders the path as clients write it.
func (p jsonPath) String() string {
	if p.index < 0 {
		return p.top + p.rest
	}
	return p.top + "[" + strconv.Itoa(p.index) + "]" + p.rest
}

// within reports whether p is q or a path below it: steps[2].target is within
// steps[2] and steps, but not within steps[20] or stepsX.
func (p jsonPath) within(q jsonPath) bool {
	if p.top != q.top {
		return false
	}
	if q.index < 0 && q.rest == "" {
		return true
	}
	if p.index != q.index {
		return false
	}
	return p.rest == q.rest || strings.HasPrefix(p.rest, q.rest) && len(p.rest) > len(q.rest) &&
		(p.rest[len(q.rest)] == '.' || p.rest[len(q.rest)] == '[')
}

// validatorPath turns the path of a validator finding, such as
// steps[3].target.role, into a jsonPath. It is the one place a path is read from
// text, and the text is the validator's (see fieldError), not ours.
func validatorPath(s string) jsonPath {
	end := strings.IndexAny(s, ".[")
	if end < 0 {
		return field(s)
	}
	p := field(s[:end])
	rest := s[end:]
	if rest[0] == '[' {
		if close := strings.IndexByte(rest, ']'); close > 0 {
			if i, err := strconv.Atoi(rest[1:close]); err == nil {
				p.index = i
				rest = rest[close+1:]
			}
		}
	}
	p.rest = rest
	return p
}

// MaxProblems bounds how many problems one error or one invalid journey lists, so
// that the answer to a hostile input stays small. The last listed problem then
// says how many more there were.
const MaxProblems = 100

// problems collects every problem with one input, each at its path, so that a
// caller can fix them all in one round trip. It reports them in the order a
// reader meets the fields: the input's field order, then element order, then
// the order the checks found them in.
type problems struct {
	order []string // the input's top-level wire names, in field order
	found []located
}

type located struct {
	at  jsonPath
	err *Error
}

// newProblems starts the collection for an input of the type of in.
func newProblems(in any) *problems {
	return &problems{order: topFields(reflect.TypeOf(in))}
}

// wireField is a struct field that reaches the wire, with its wire name.
type wireField struct {
	name  string
	index []int
}

// wireFieldsCache holds each struct type's wire fields: types are fixed, so each
// is walked once rather than on every check.
var wireFieldsCache sync.Map // reflect.Type -> []wireField

func wireFields(t reflect.Type) []wireField {
	if fields, ok := wireFieldsCache.Load(t); ok {
		return fields.([]wireField)
	}
	var fields []wireField
	if t.Kind() == reflect.Struct {
		for _, f := range reflect.VisibleFields(t) {
			if name, _, ok := jsonField(f); ok {
				fields = append(fields, wireField{name, f.Index})
			}
		}
	}
	wireFieldsCache.Store(t, fields)
	return fields
}

// topFieldsCache holds each input type's top-level wire names, for the same
// reason as wireFieldsCache: rejecting an oversized input must cost a few
// allocations, whatever the type.
var topFieldsCache sync.Map // reflect.Type -> []string

// topFields lists the wire names of a struct type's fields, in field order.
func topFields(t reflect.Type) []string {
	if names, ok := topFieldsCache.Load(t); ok {
		return names.([]string)
	}
	var names []string
	for _, f := range wireFields(t) {
		names = append(names, f.name)
	}
	topFieldsCache.Store(t, names)
	return names
}

// add records a problem at a path.
func (ps *problems) add(at jsonPath, code Code, allowed []string, format string, args ...any) {
	ps.addError(at, newError(code, "", allowed, format, args...))
}

// addError records e at a path, which becomes its Field.
func (ps *problems) addError(at jsonPath, e *Error) {
	if e == nil {
		return
	}
	e.Field = at.String()
	ps.found = append(ps.found, located{at, e})
}

// validate records what the shared validator finds in in, and every string in
// it that is not valid UTF-8.
func (ps *problems) validate(in any) {
	for _, e := range validateStruct(in) {
		ps.found = append(ps.found, located{validatorPath(e.Field), e})
	}
	checkUTF8(ps, reflect.ValueOf(in), jsonPath{index: -1})
}

// checkUTF8 reports every string under v that is not valid UTF-8. Text is hashed
// into run IDs and digests, and two different invalid byte strings must not
// collide once a JSON encoder has replaced their bad bytes with U+FFFD.
func checkUTF8(ps *problems, v reflect.Value, at jsonPath) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); !utf8.ValidString(s) {
			ps.add(at, CodeInvalidArgument, nil, "%s is not valid UTF-8; send text encoded as UTF-8", echo.Quote(s))
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			checkUTF8(ps, v.Elem(), at)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			checkUTF8(ps, v.Index(i), at.at(i))
		}
	case reflect.Struct:
		for _, f := range wireFields(v.Type()) {
			next := field(f.name)
			if at.top != "" {
				next = at.dot(f.name)
			}
			checkUTF8(ps, v.FieldByIndex(f.index), next)
		}
	}
}

// has reports whether a problem was found at at or below it.
func (ps *problems) has(at jsonPath) bool {
	return ps.first(at) != nil
}

// first returns the first problem found at at or below it, or nil.
func (ps *problems) first(at jsonPath) *Error {
	for _, l := range ps.found {
		if l.at.within(at) {
			return l.err
		}
	}
	return nil
}

// drop forgets every problem found at at or below it, for a check that says more
// about that part of the input than the validator did.
func (ps *problems) drop(at jsonPath) {
	ps.found = slices.DeleteFunc(ps.found, func(l located) bool { return l.at.within(at) })
}

// replace swaps the first problem at exactly at for e, keeping its place; with
// none there, it adds e.
func (ps *problems) replace(at jsonPath, e *Error) {
	e.Field = at.String()
	for i, l := range ps.found {
		if l.at == at {
			ps.found[i].err = e
			return
		}
	}
	ps.found = append(ps.found, located{at, e})
}

// sorted returns the problems in reading order, cut to MaxProblems.
func (ps *problems) sorted() []*Error {
	rank := func(l located) (int, int) {
		r := slices.Index(ps.order, l.at.top)
		if r < 0 {
			r = len(ps.order)
		}
		return r, l.at.index
	}
	slices.SortStableFunc(ps.found, func(a, b located) int {
		ra, ia := rank(a)
		rb, ib := rank(b)
		if ra != rb {
			return ra - rb
		}
		return ia - ib
	})
	out := make([]*Error, 0, min(len(ps.found), MaxProblems))
	for i, l := range ps.found {
		if i == MaxProblems-1 && len(ps.found) > MaxProblems {
			out = append(out, newError(CodeLimitExceeded, "", nil, "%d more problems are not listed; fix these and call again", len(ps.found)-i))
			break
		}
		out = append(out, l.err)
	}
	return out
}

// limitErr returns the problems that exceed a bound, joined, or nil. By the one
// error-channel rule (see the package doc), a bound is part of the input's shape:
// it is a caller's error even where the rest is a domain answer.
func (ps *problems) limitErr() error {
	limits := &problems{order: ps.order}
	for _, l := range ps.found {
		if l.err.Code == CodeLimitExceeded {
			limits.found = append(limits.found, l)
		}
	}
	return limits.err()
}

// list returns the problems in reading order, as the Problem values a result
// lists.
func (ps *problems) list() []Problem {
	if len(ps.found) == 0 {
		return nil
	}
	sorted := ps.sorted()
	out := make([]Problem, len(sorted))
	for i, e := range sorted {
		out[i] = e.problem()
	}
	return out
}

// err returns nil when nothing was found, and otherwise one *Error leading with
// the first problem and listing them all.
func (ps *problems) err() error {
	switch len(ps.found) {
	case 0:
		return nil
	case 1:
		return ps.found[0].err
	}
	return Join(ps.sorted()...)
}

// validateInput returns every problem the shared validator finds in in, for the
// capabilities whose input has no rules beyond its tags.
func validateInput(in any) error {
	ps := newProblems(in)
	ps.validate(in)
	return ps.err()
}
