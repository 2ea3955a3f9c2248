package mcpserver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/echo"
)

// maxArgumentBytes bounds the raw arguments of one tool call, so a hostile call
// costs a length check rather than a parse. It is set above the largest valid
// input: a journey at every automium.Max* bound whose text is written entirely
// in \u escapes of surrogate pairs, 12 bytes a character (TestLargestValidInput).
const maxArgumentBytes = 8 << 20

// decodeArguments reads tool arguments into In with the input type's walker (see
// walker.go), in one pass. Missing or null arguments mean an empty object. Every
// problem of the input's shape and bounds is reported together, as one
// *automium.Error whose Problems list them in input order; the domain function
// then validates what the values mean.
func decodeArguments[In any](raw json.RawMessage) (In, error) {
	var in In
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if len(raw) > maxArgumentBytes {
		return in, problem(automium.CodeLimitExceeded, automium.Path{}, nil, "the arguments are %d bytes; the limit is %d bytes", len(raw), maxArgumentBytes)
	}
	w := walk{data: raw}
	if c := raw[0]; c != '{' {
		if w.skip(0); w.syntax || w.pos != len(raw) {
			return in, notJSON()
		}
		return in, problem(automium.CodeInvalidArgument, automium.Path{}, nil, "the arguments are %s; send a JSON object whose properties are the tool's input fields", kindName(c))
	}
	w.value(walkerOf(reflect.TypeFor[In]()), reflect.ValueOf(&in).Elem(), 0)
	if !w.stop {
		w.space()
		w.syntax = w.syntax || w.pos != len(raw)
	}
	if w.syntax {
		return in, notJSON()
	}
	// The walk finds problems in document order; they are listed in the one
	// order of problems, the root package's.
	automium.SortProblems(reflect.TypeFor[In](), w.problems)
	if w.more {
		w.problems = append(w.problems, automium.NewProblem(automium.CodeLimitExceeded, automium.Path{}, nil,
			"more than %d problems; fix these and call again to see the rest", len(w.problems)))
	}
	return in, automium.Join(w.problems...)
}

func notJSON() *automium.Error {
	return problem(automium.CodeInvalidArgument, automium.Path{}, nil, "the arguments are not valid JSON; send one JSON object")
}

// walk is one pass of a walker over raw arguments.
type walk struct {
	data []byte
	pos  int
	// path is the position of the value being read, one step per open
	// container, reused as the walk goes so that a valid walk builds no strings;
	// it is rendered only for a problem.
	path     []pathStep
	problems []automium.Problem
	// stop ends the walk: the JSON is malformed (syntax), nests too deep, or
	// enough problems are listed (more).
	stop, syntax, more bool
	// scratch holds an unescaped string or property name.
	scratch []byte
}

// pathStep is one step of the walk's path: a property name, or an array index
// when name is empty.
type pathStep struct {
	name  string
	index int
}

// at is the walk's path as an automium.Path, the one path type: built only
// for a problem. A name the input type does not know is kept as sent; the
// Path renders it cut, so a hostile name cannot make a path long.
func (w *walk) at() automium.Path {
	var p automium.Path
	for _, st := range w.path {
		if st.name == "" {
			p = p.Index(st.index)
		} else {
			p = p.Field(st.name)
		}
	}
	return p
}

// problem records a problem at the current path. The walk lists at most
// automium.MaxProblems, the one cap of the module, the last saying that more
// were not looked for; then it stops.
func (w *walk) problem(code automium.Code, allowed []string, format string, args ...any) {
	if len(w.problems) == automium.MaxProblems-1 {
		w.more, w.stop = true, true
		return
	}
	w.problems = append(w.problems, automium.NewProblem(code, w.at(), allowed, format, args...))
}

func (w *walk) syntaxError() { w.stop, w.syntax = true, true }

// kindName names the JSON kind a value starting with c has.
func kindName(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// accepts reports whether a value starting with c has the node's JSON kind.
func (n *wnode) accepts(c byte) bool {
	switch n.kind {
	case wObject:
		return c == '{'
	case wArray:
		return c == '['
	case wString:
		return c == '"'
	}
	return c == '-' || '0' <= c && c <= '9'
}

// kindWanted names the node's JSON kind for messages.
func (n *wnode) kindWanted() string {
	switch n.kind {
	case wObject:
		return "an object"
	case wArray:
		return "an array"
	case wString:
		return "a string"
	case wUint:
		return "a non-negative integer"
	}
	return "an integer"
}

// value reads the value at w.pos, whose node is n, into v.
func (w *walk) value(n *wnode, v reflect.Value, depth int) {
	w.space()
	if w.pos >= len(w.data) {
		w.syntaxError()
		return
	}
	c := w.data[w.pos]
	if !n.accepts(c) {
		w.mismatch(n, c)
		w.skip(depth)
		return
	}
	if (c == '{' || c == '[') && depth >= maxScanDepth {
		w.tooDeep()
		return
	}
	if n.ptr {
		p := reflect.New(n.typ)
		v.Set(p)
		v = p.Elem()
	}
	switch n.kind {
	case wObject:
		w.object(n, v, depth)
	case wArray:
		w.array(n, v, depth)
	case wString:
		w.stringValue(n, v)
	default:
		w.integerValue(n, v)
	}
}

func (w *walk) mismatch(n *wnode, c byte) {
	got := kindName(c)
	if n.planner {
		// The specification lists malformed planner metadata as an error of
		// its own.
		w.problem(automium.CodeMalformedPlanner, nil,
			`must be an object with id, vendor and model, e.g. {"id":"baseline","vendor":"openai","model":"gpt-4.1-mini"}, not %s`, got)
		return
	}
	if c == 'n' && n.optional {
		w.problem(automium.CodeInvalidArgument, nil, "must be %s, not null; to leave it unset, omit the property", n.kindWanted())
		return
	}
	w.problem(automium.CodeInvalidArgument, nil, "must be %s, not %s", n.kindWanted(), got)
}

func (w *walk) tooDeep() {
	w.problem(automium.CodeLimitExceeded, nil, "nests deeper than %d levels; no input of this tool does", maxScanDepth)
	w.stop = true
}

func (w *walk) object(n *wnode, v reflect.Value, depth int) {
	w.pos++ // {
	w.space()
	if w.pos < len(w.data) && w.data[w.pos] == '}' {
		w.pos++
		return
	}
	var seen uint64
	w.path = append(w.path, pathStep{})
	defer func() { w.path = w.path[:len(w.path)-1] }()
	for !w.stop {
		w.space()
		if w.pos >= len(w.data) || w.data[w.pos] != '"' {
			w.syntaxError()
			return
		}
		start := w.pos
		key, escaped := w.str()
		if w.stop {
			return
		}
		if escaped {
			w.scratch, _ = unquote(w.scratch[:0], key)
			key = w.scratch
		}
		w.space()
		if w.pos >= len(w.data) || w.data[w.pos] != ':' {
			w.syntaxError()
			return
		}
		w.pos++
		i, known := n.byName[string(key)]
		switch {
		case !known:
			w.unknown(n, string(key))
			w.skip(depth + 1)
		case seen&(1<<i) != 0:
			w.path[len(w.path)-1] = pathStep{name: n.fields[i].name}
			if raw := w.data[start+1 : w.pos]; !bytes.HasPrefix(raw, []byte(n.fields[i].name+`"`)) {
				w.problem(automium.CodeInvalidArgument, nil, "appears twice in the same object (one spelling is %s, which names the same property once unescaped); send each property once",
					echo.Value(raw[:bytes.LastIndexByte(raw, '"')]))
			} else {
				w.problem(automium.CodeInvalidArgument, nil, "appears twice in the same object; send each property once")
			}
			w.skip(depth + 1)
		default:
			seen |= 1 << i
			f := &n.fields[i]
			w.path[len(w.path)-1] = pathStep{name: f.name}
			w.value(f.node, v.FieldByIndex(f.index), depth+1)
		}
		if w.stop || w.next('}') {
			return
		}
	}
}

// unknown reports a property name the object does not have, naming the property
// it is a case variant of, if any. The name is the last step of the problem's
// path, which renders it (cut when it is not plain), so the message does not
// repeat it.
func (w *walk) unknown(n *wnode, name string) {
	w.path[len(w.path)-1] = pathStep{name: name}
	switch i, variant := n.byFold[strings.ToLower(name)]; {
	case len(n.fields) == 0:
		w.problem(automium.CodeInvalidArgument, nil, "is not a property here; this tool takes no arguments, send {}")
	case variant:
		w.problem(automium.CodeInvalidArgument, n.allowed, "is not a property here; property names are case-sensitive, use %q", n.fields[i].name)
	default:
		w.problem(automium.CodeInvalidArgument, n.allowed, "is not a property here; remove it or use one of the allowed property names")
	}
}

func (w *walk) array(n *wnode, v reflect.Value, depth int) {
	w.pos++ // [
	w.space()
	if w.pos < len(w.data) && w.data[w.pos] == ']' {
		w.pos++
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		return
	}
	w.path = append(w.path, pathStep{})
	defer func() { w.path = w.path[:len(w.path)-1] }()
	for i := 0; !w.stop; i++ {
		if n.maxItems >= 0 && i == n.maxItems {
			// The array itself is at fault, not the item being counted; the
			// rest is skipped, not decoded.
			w.path = w.path[:len(w.path)-1]
			w.problem(automium.CodeLimitExceeded, nil, "has more than %d items; the limit is %d, send fewer", n.maxItems, n.maxItems)
			w.path = append(w.path, pathStep{})
			for !w.stop {
				w.skip(depth + 1)
				if w.stop || w.next(']') {
					return
				}
			}
			return
		}
		if i == v.Cap() {
			v.Grow(max(4, i/2))
		}
		v.SetLen(i + 1)
		w.path[len(w.path)-1] = pathStep{index: i}
		w.value(n.elem, v.Index(i), depth+1)
		if w.stop || w.next(']') {
			return
		}
	}
}

func (w *walk) stringValue(n *wnode, v reflect.Value) {
	raw, escaped := w.str()
	if w.stop {
		return
	}
	s, invalid := raw, false
	if escaped {
		// encoding/json's reading: escapes resolved, each invalid byte and
		// unpaired surrogate a U+FFFD, which is refused below: "p\xff" and
		// "p\xfe" would otherwise be one planner ID, one run ID.
		w.scratch, invalid = unquote(w.scratch[:0], raw)
		s = w.scratch
	}
	switch {
	case invalid:
		w.problem(automium.CodeInvalidArgument, nil, "is not valid UTF-8 text (it has an invalid byte or an unpaired \\u surrogate); send text encoded as UTF-8")
	case n.maxLength >= 0 && len(s) > n.maxLength && utf8.RuneCount(s) > n.maxLength:
		w.problem(automium.CodeLimitExceeded, nil, "is too long; the limit is %d characters, shorten it", n.maxLength)
	case n.emptyRefused && len(s) == 0:
		if len(n.enum) > 0 {
			w.problem(automium.CodeInvalidArgument, n.enum, "is empty; omit the property to leave it unset, or use one of the allowed values")
		} else {
			w.problem(automium.CodeInvalidArgument, nil, "is empty; omit the property to leave it unset, or give a value")
		}
	case len(w.problems) == 0:
		v.SetString(string(s))
	}
}

// echoNumber is a number literal as a message shows it: as written when
// short, else a client value the renderer cuts.
func echoNumber(lit []byte) any {
	if len(lit) <= echo.MaxPrefix {
		return string(lit)
	}
	return echo.Value(lit)
}

func (w *walk) integerValue(n *wnode, v reflect.Value) {
	lit := w.number()
	if w.stop {
		return
	}
	x, ok := parseInteger(lit)
	switch {
	case !ok:
		w.problem(automium.CodeInvalidArgument, nil, "must be an integer, not %s", echoNumber(lit))
	case x.less(n.min):
		w.problem(automium.CodeInvalidArgument, nil, "is %s, below the minimum of %s", echoNumber(lit), n.min)
	case n.max.less(x):
		w.problem(automium.CodeLimitExceeded, nil, "is %s, above the limit of %s; use a smaller value", echoNumber(lit), n.max)
	case n.kind == wUint:
		v.SetUint(x.mag)
	case x.neg:
		v.SetInt(int64(-x.mag)) // two's complement: right for -2^63 too
	default:
		v.SetInt(int64(x.mag))
	}
}
