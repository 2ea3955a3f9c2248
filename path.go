package automium

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/jsonname"
)

// A Path is the JSON path of one input field as a client wrote it, such as
// steps[3].target.role; the zero Path is the input itself. It is the one path
// type of the module: the root package's checks, the MCP adapter's argument
// walker and the binding package build problems at Paths, from their parts,
// and nothing ever parses a path back from its text.
//
// A Path is immutable: Field and Index return new paths and never change the
// one they extend, so a path can be kept and extended freely.
type Path struct {
	steps []pathStep
}

// pathStep is one step of a path: a member name, or, when elem is set, a list
// index. "" is a member name like any other ({"":1}), not an index. A gap
// stands for steps left out: the bounded place a document reader keeps of a
// test deep in a report (docAt.kept) names its way in and its last steps, and
// the line or byte of the report says the rest.
type pathStep struct {
	name  string
	index int
	elem  bool
	gap   bool
}

// PathOf is the path of a top-level field of the input.
func PathOf(name string) Path { return Path{}.Field(name) }

// Field is the path of the member name of the object at p.
func (p Path) Field(name string) Path { return p.with(pathStep{name: name}) }

// Index is the path of element i of the list at p.
func (p Path) Index(i int) Path { return p.with(pathStep{index: i, elem: true}) }

func (p Path) with(st pathStep) Path {
	steps := make([]pathStep, len(p.steps)+1)
	copy(steps, p.steps)
	steps[len(p.steps)] = st
	return Path{steps: steps}
}

// field is the path of a top-level field; at and dot extend a path.
func field(name string) Path        { return PathOf(name) }
func (p Path) at(i int) Path        { return p.Index(i) }
func (p Path) dot(name string) Path { return p.Field(name) }

// within reports whether p is q or a path below it: steps[2].target is within
// steps[2] and steps, but not within steps[20] or stepsX.
func (p Path) within(q Path) bool {
	return len(q.steps) <= len(p.steps) && slices.Equal(q.steps, p.steps[:len(q.steps)])
}

// String renders the path as clients write it: steps[3].target.role. A member
// name that is not a plain identifier (one the input type does not have, such
// as a hostile property name) is rendered through the bounded quote, so a path
// is never longer than a few hundred bytes a step, whatever the client sent.
func (p Path) String() string {
	if len(p.steps) == 1 && !p.steps[0].elem && plainName(p.steps[0].name) {
		return p.steps[0].name
	}
	var b strings.Builder
	for i, st := range p.steps {
		switch {
		case st.gap:
			b.WriteString("…")
		case st.elem:
			b.WriteString("[" + strconv.Itoa(st.index) + "]")
		case i > 0 && !p.steps[i-1].gap:
			b.WriteString(".")
			fallthrough
		default:
			if plainName(st.name) {
				b.WriteString(st.name)
			} else {
				b.WriteString(echo.Quote(st.name))
			}
		}
	}
	return b.String()
}

// plainName reports whether a member name can be written in a path as itself:
// short, and made of ASCII letters, digits, _, - and $.
func plainName(name string) bool {
	return name != "" && len(name) <= echo.MaxPrefix && strings.IndexFunc(name, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '$' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)))
	}) < 0
}

// sortProblems puts problems of an input of type t in the one order of
// problems (see [Problem]): by path, member names ranked as t declares its
// fields (the order its JSON Schema lists them) and list elements by index, a
// path before the paths below it, names t does not have after those it has;
// problems at one path keep the order they were found in.
func sortProblems(t reflect.Type, problems []Problem) {
	if len(problems) < 2 {
		return
	}
	type ranked struct {
		rank []int
		p    Problem
	}
	rs := make([]ranked, len(problems))
	for i, p := range problems {
		rs[i] = ranked{pathRank(t, p.path), p}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return slices.Compare(a.rank, b.rank) })
	for i := range rs {
		problems[i] = rs[i].p
	}
}

// pathRank ranks each step of p under type t: a member by its place among t's
// wire fields (one past the last for a name t does not have), an element by its
// index. Comparing ranks as sequences gives the one order of problems.
func pathRank(t reflect.Type, p Path) []int {
	rank := make([]int, len(p.steps))
	for i, st := range p.steps {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if st.gap {
			rank[i], t = 0, nil
			continue
		}
		if st.elem {
			rank[i] = st.index
			if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
				t = t.Elem()
			} else {
				t = nil
			}
			continue
		}
		var fields []wireField
		if t != nil {
			fields = wireFields(t)
		}
		j := slices.IndexFunc(fields, func(f wireField) bool { return f.name == st.name })
		if j < 0 {
			rank[i], t = len(fields), nil
			continue
		}
		rank[i], t = j, t.FieldByIndex(fields[j].index).Type
	}
	return rank
}

// problems collects every problem with one input, each at its path, so that a
// caller can fix them all in one round trip. It reports them in the one order of
// problems (see [Problem]).
type problems struct {
	typ   reflect.Type // the input's type, which ranks its paths
	found []Problem
}

// newProblems starts the collection for an input of the type of in.
func newProblems(in any) *problems {
	return &problems{typ: reflect.TypeOf(in)}
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
			if name, _, ok := jsonname.Field(f); ok {
				fields = append(fields, wireField{name, f.Index})
			}
		}
	}
	wireFieldsCache.Store(t, fields)
	return fields
}

// add records a problem at a path. Client values among args must be marked
// echo.Value; the one renderer quotes them.
func (ps *problems) add(at Path, code Code, allowed []string, format string, args ...any) {
	ps.found = append(ps.found, newProblem(code, at, allowed, echo.Msg(format, args...)))
}

// addProblem records p, made by a check that knows its own path.
func (ps *problems) addProblem(p Problem) {
	ps.found = append(ps.found, p)
}

// validate records what the shared validator finds in in, and every string in
// it that is not valid UTF-8.
//
// Fields at the paths of except are left to the caller, which checks them
// itself (see validateStruct); every string is still checked for UTF-8.
func (ps *problems) validate(in any, except ...Path) {
	ps.found = append(ps.found, validateStruct(in, except...)...)
	w := utf8Walk{ps: ps, except: except}
	w.check(reflect.ValueOf(in))
}

// utf8Walk reports every string under a value that is not valid UTF-8. Text
// is hashed into run IDs and digests, and two different invalid byte strings
// must not collide once a JSON encoder has replaced their bad bytes with
// U+FFFD.
//
// It keeps the path it is at as a stack of steps and makes a Path only for a
// string it reports: making one for every value it passed cost a 200-step
// compile a third of its validation (December 2).
type utf8Walk struct {
	ps     *problems
	except []Path
	steps  []pathStep
}

func (w *utf8Walk) check(v reflect.Value) {
	if slices.ContainsFunc(w.except, func(q Path) bool { return matches(w.steps, q) }) {
		return
	}
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); !utf8.ValidString(s) {
			w.ps.add(Path{steps: slices.Clone(w.steps)}, CodeInvalidArgument, nil, "%s is not valid UTF-8; send text encoded as UTF-8", echo.Value(s))
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			w.check(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			w.steps = append(w.steps, pathStep{index: i, elem: true})
			w.check(v.Index(i))
			w.steps = w.steps[:len(w.steps)-1]
		}
	case reflect.Struct:
		for _, f := range wireFields(v.Type()) {
			w.steps = append(w.steps, pathStep{name: f.name})
			w.check(v.FieldByIndex(f.index))
			w.steps = w.steps[:len(w.steps)-1]
		}
	}
}

// has reports whether a problem was found at at or below it: a check that
// relates fields leaves alone a field that already has its problem.
func (ps *problems) has(at Path) bool {
	return slices.ContainsFunc(ps.found, func(p Problem) bool { return p.path.within(at) })
}

// flagged answers has(list.at(i)) for each of the n elements of the list at
// list, in one pass over the problems. A loop asking has of each element
// scanned every problem for each: n elements each with a problem cost n²
// path comparisons (100,000 trials of unknown planners, 2 minutes).
func (ps *problems) flagged(list Path, n int) []bool {
	out := make([]bool, n)
	k := len(list.steps)
	for _, p := range ps.found {
		if len(p.path.steps) <= k || !p.path.within(list) {
			continue
		}
		if st := p.path.steps[k]; st == (pathStep{index: st.index, elem: true}) && st.index >= 0 && st.index < n {
			out[st.index] = true
		}
	}
	return out
}

// sorted returns the problems in the one order.
func (ps *problems) sorted() []Problem {
	sortProblems(ps.typ, ps.found)
	return ps.found
}

// limitErr returns the problems that exceed a bound, joined, or nil. By the one
// error-channel rule (see the package doc), a bound is part of the input's shape:
// it is a caller's error even where the rest is a domain answer.
func (ps *problems) limitErr() error {
	var limits []Problem
	for _, p := range ps.sorted() {
		if p.Code == CodeLimitExceeded {
			limits = append(limits, p)
		}
	}
	return Join(limits...)
}

// list returns the problems in the one order, cut to MaxProblems, as the
// Problem values a result lists.
func (ps *problems) list() []Problem {
	if len(ps.found) == 0 {
		return nil
	}
	if err := ps.err(); err != nil {
		return err.(*Error).Problems()
	}
	return nil
}

// err returns nil when nothing was found, and otherwise one *Error holding
// every problem in the one order.
func (ps *problems) err() error {
	return Join(ps.sorted()...)
}

// validateInput returns every problem the shared validator finds in in, for the
// capabilities whose input has no rules beyond its tags.
func validateInput(in any) error {
	ps := newProblems(in)
	ps.validate(in)
	return ps.err()
}

// addError records the one problem of e at at: e was made by a check that
// does not know where in an input its value sits (a value rule shared by
// several fields, say), so its path is given here, once, before it is listed.
func (ps *problems) addError(at Path, e *Error) {
	if e == nil {
		return
	}
	p := e.Problem
	p.path, p.Field = at, at.String()
	ps.found = append(ps.found, p)
}

// under is p placed under at: a problem of a value that an input carries at
// at, such as the journey of a run submission, found by the check of that
// value on its own. Its message is the same; only where it is changes.
func (p Problem) under(at Path) Problem {
	steps := make([]pathStep, 0, len(at.steps)+len(p.path.steps))
	p.path = Path{steps: append(append(steps, at.steps...), p.path.steps...)}
	p.Field = p.path.String()
	return p
}
