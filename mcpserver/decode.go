package mcpserver

import (
	"bytes"
	"encoding/json"
	"encoding/json/jsontext"
	"io"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/jsonint"
	"github.com/automium/automium/internal/limit"
)

// maxArgumentBytes bounds the raw arguments of one tool call, so a hostile call
// costs a length check rather than a parse. It is set above the largest valid
// input: a journey at every bound of automium.Limits whose text is written entirely
// in \u escapes of surrogate pairs, 12 bytes a character (TestLargestValidInput).
const maxArgumentBytes = 8 << 20

// decodeArguments reads tool arguments into In with the input type's walker (see
// walker.go), in one pass of encoding/json/jsontext's tokenizer. Missing or null
// arguments mean an empty object. Every problem of the input's shape and bounds
// is reported together, as one *automium.Error whose Problems list them in the
// one order of problems; the domain function then validates what the values
// mean.
func decodeArguments[In any](raw json.RawMessage) (In, error) {
	in, err, _ := decodeArgumentsRead[In](raw)
	return in, err
}

// decodeArgumentsRead is decodeArguments that also says whether the walk read
// the whole argument object: true unless the arguments are too large, not a
// JSON object, malformed, nested too deep or past the problem cap. When it
// did, in holds every value of the right shape, and what those values mean
// can be checked in the same answer as the shape (see withMeaning).
func decodeArgumentsRead[In any](raw json.RawMessage) (in In, err error, read bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if len(raw) > maxArgumentBytes {
		return in, problem(automium.CodeLimitExceeded, automium.Path{}, nil, "the arguments are %d bytes; the limit is %d bytes", len(raw), maxArgumentBytes), false
	}
	w := newWalk(raw)
	defer w.release()
	if k := w.dec.PeekKind(); k != '{' {
		if w.skip(); w.syntax || !w.atEOF() {
			return in, notJSON(), false
		}
		return in, problem(automium.CodeInvalidArgument, automium.Path{}, nil, "the arguments are %s; send a JSON object whose properties are the tool's input fields", kindName(byte(k))), false
	}
	w.value(walkerOf(reflect.TypeFor[In]()), reflect.ValueOf(&in).Elem())
	if !w.stop && !w.atEOF() {
		w.syntaxError()
	}
	if w.syntax {
		return in, notJSON(), false
	}
	// The walk finds problems in document order; they are listed in the one
	// order of problems, the root package's.
	adapter.SortProblems(reflect.TypeFor[In](), w.problems)
	if w.more {
		w.problems = append(w.problems, automium.NewProblem(automium.CodeLimitExceeded, automium.Path{}, nil,
			"more than %d problems; fix these and call again to see the rest", len(w.problems)))
	}
	return in, automium.Join(w.problems...), !w.stop
}

func notJSON() *automium.Error {
	return problem(automium.CodeInvalidArgument, automium.Path{}, nil, "the arguments are not valid JSON; send one JSON object")
}

// walk is one pass of a walker over raw arguments.
type walk struct {
	// dec tokenizes the arguments: the standard library's reader, which
	// checks the grammar and resolves escapes. It is told to let duplicate
	// names and invalid UTF-8 through, because the walk refuses both itself,
	// as problems at their paths, and goes on to list the rest; it compares
	// names after unescaping, as every JSON reader must.
	dec *jsontext.Decoder
	// path is the position of the value being read, one step per open
	// container, reused as the walk goes so that a valid walk builds no paths;
	// it becomes an automium.Path only for a problem.
	path     []pathStep
	problems []automium.Problem
	// stop ends the walk: the JSON is malformed (syntax), nests too deep, or
	// enough problems are listed (more).
	stop, syntax, more bool
	// scratch holds an unescaped string or property name.
	scratch []byte
}

// decoders are reused across calls: a decoder's state is a few hundred bytes
// that a small call would otherwise allocate each time.
var decoders = sync.Pool{New: func() any { return new(jsontext.Decoder) }}

func newWalk(raw []byte) *walk {
	dec := decoders.Get().(*jsontext.Decoder)
	// A bytes.Buffer is read in place, not copied.
	dec.Reset(bytes.NewBuffer(raw), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return &walk{dec: dec}
}

// release returns the decoder to the pool, reading nothing more of the input.
func (w *walk) release() {
	w.dec.Reset(bytes.NewBuffer(nil))
	decoders.Put(w.dec)
	w.dec = nil
}

// atEOF reports whether nothing but white space follows the value read: a
// second value, or trailing bytes, make the arguments not JSON.
func (w *walk) atEOF() bool {
	_, err := w.dec.ReadToken()
	return err == io.EOF
}

// pathStep is one step of the walk's path: a property name, or, when elem is
// set, an array index ("" is a property name like any other).
type pathStep struct {
	name  string
	index int
	elem  bool
}

// at is the walk's path as an automium.Path, the one path type: built only
// for a problem. A name the input type does not know is kept as sent; the
// Path renders it cut, so a hostile name cannot make a path long.
func (w *walk) at() automium.Path {
	var p automium.Path
	for _, st := range w.path {
		if st.elem {
			p = p.Index(st.index)
		} else {
			p = p.Field(st.name)
		}
	}
	return p
}

// problem records a problem at the current path. The walk lists at most
// limit.MaxProblems, the one cap of the module, the last saying that more
// were not looked for; then it stops.
func (w *walk) problem(code automium.Code, allowed []string, format string, args ...any) {
	if len(w.problems) == limit.MaxProblems-1 {
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
	case wBool:
		return c == 't' || c == 'f'
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
	case wBool:
		return "true or false"
	}
	return "an integer"
}

// value reads the next value, whose node is n, into v.
func (w *walk) value(n *wnode, v reflect.Value) {
	k := w.dec.PeekKind()
	if k == 0 {
		w.syntaxError()
		return
	}
	if !n.accepts(byte(k)) {
		w.mismatch(n, byte(k))
		w.skip()
		return
	}
	if (k == '{' || k == '[') && w.dec.StackDepth() >= maxScanDepth {
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
		w.object(n, v)
	case wArray:
		w.array(n, v)
	case wString:
		w.stringValue(n, v)
	case wBool:
		w.boolValue(v)
	default:
		w.integerValue(n, v)
	}
}

// token reads one token, which must be the delimiter want.
func (w *walk) token(want jsontext.Kind) bool {
	tok, err := w.dec.ReadToken()
	if err != nil || tok.Kind() != want {
		w.syntaxError()
		return false
	}
	return true
}

// skip reads past one value without decoding it; the tokenizer checks its
// grammar, the walk its depth.
func (w *walk) skip() {
	base := w.dec.StackDepth()
	for {
		switch w.dec.PeekKind() {
		case '{', '[':
			if w.dec.StackDepth() >= maxScanDepth {
				w.tooDeep()
				return
			}
			if _, err := w.dec.ReadToken(); err != nil {
				w.syntaxError()
				return
			}
		case 0:
			w.syntaxError()
			return
		default:
			if _, err := w.dec.ReadToken(); err != nil {
				w.syntaxError()
				return
			}
		}
		if w.dec.StackDepth() == base {
			return
		}
	}
}

// boolValue reads true or false; accepts has seen its kind.
func (w *walk) boolValue(v reflect.Value) {
	tok, err := w.dec.ReadToken()
	if err != nil {
		w.syntaxError()
		return
	}
	v.SetBool(tok.Bool())
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

func (w *walk) object(n *wnode, v reflect.Value) {
	if !w.token('{') {
		return
	}
	var seen uint64
	w.path = append(w.path, pathStep{})
	defer func() { w.path = w.path[:len(w.path)-1] }()
	for !w.stop {
		if w.dec.PeekKind() == '}' {
			w.token('}')
			return
		}
		rawName, err := w.dec.ReadValue()
		if err != nil {
			w.syntaxError()
			return
		}
		// The name as every reader resolves it: escapes decoded. Invalid
		// UTF-8 in a name makes it no property of any input.
		var nameErr error
		w.scratch, nameErr = jsontext.AppendUnquote(w.scratch[:0], rawName)
		i, known := n.byName[string(w.scratch)] // no allocation for the lookup
		switch {
		case !known || nameErr != nil:
			w.unknown(n, string(w.scratch))
			w.skip()
		case seen&(1<<i) != 0:
			w.path[len(w.path)-1] = pathStep{name: n.fields[i].name}
			if quoted := rawName[1 : len(rawName)-1]; string(quoted) != n.fields[i].name {
				w.problem(automium.CodeInvalidArgument, nil, "appears twice in the same object (one spelling is %s, which names the same property once unescaped); send each property once",
					echo.Value(quoted))
			} else {
				w.problem(automium.CodeInvalidArgument, nil, "appears twice in the same object; send each property once")
			}
			w.skip()
		default:
			seen |= 1 << i
			f := &n.fields[i]
			w.path[len(w.path)-1] = pathStep{name: f.name}
			w.value(f.node, v.FieldByIndex(f.index))
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

func (w *walk) array(n *wnode, v reflect.Value) {
	if !w.token('[') {
		return
	}
	if w.dec.PeekKind() == ']' {
		w.token(']')
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		return
	}
	w.path = append(w.path, pathStep{})
	defer func() { w.path = w.path[:len(w.path)-1] }()
	for i := 0; !w.stop; i++ {
		if w.dec.PeekKind() == ']' {
			w.token(']')
			return
		}
		if n.maxItems >= 0 && i == n.maxItems {
			// The array itself is at fault, not the item being counted; the
			// rest is skipped, not decoded.
			w.path = w.path[:len(w.path)-1]
			w.problem(automium.CodeLimitExceeded, nil, "has more than %d items; the limit is %d, send fewer", n.maxItems, n.maxItems)
			w.path = append(w.path, pathStep{})
			for !w.stop && w.dec.PeekKind() != ']' {
				w.skip()
			}
			if !w.stop {
				w.token(']')
			}
			return
		}
		if i == v.Cap() {
			v.Grow(max(4, i/2))
		}
		v.SetLen(i + 1)
		w.path[len(w.path)-1] = pathStep{index: i, elem: true}
		w.value(n.elem, v.Index(i))
	}
}

func (w *walk) stringValue(n *wnode, v reflect.Value) {
	raw, err := w.dec.ReadValue()
	if err != nil {
		w.syntaxError()
		return
	}
	// The tokenizer lets invalid UTF-8 and unpaired \u surrogates through
	// (see walk.dec); unquoting reports them, and they are refused: "p\xff"
	// and "p\xfe" would otherwise be one planner ID, one run ID.
	var invalid error
	w.scratch, invalid = jsontext.AppendUnquote(w.scratch[:0], raw)
	s := w.scratch
	switch {
	case invalid != nil:
		w.problem(automium.CodeInvalidArgument, nil, "is not valid UTF-8 text (it has an invalid byte or an unpaired \\u surrogate); send text encoded as UTF-8")
	case n.maxLength >= 0 && len(s) > n.maxLength && utf8.RuneCount(s) > n.maxLength:
		w.problem(automium.CodeLimitExceeded, nil, "is too long; the limit is %d characters, shorten it", n.maxLength)
	case n.emptyRefused && len(s) == 0:
		if len(n.enum) > 0 {
			w.problem(automium.CodeInvalidArgument, n.enum, "is empty; omit the property to leave it unset, or use one of the allowed values")
		} else {
			w.problem(automium.CodeInvalidArgument, nil, "is empty; omit the property to leave it unset, or give a value")
		}
	default:
		// Set even after a problem elsewhere, so that what the other values
		// mean is checked in the same answer (see withMeaning).
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
	lit, err := w.dec.ReadValue()
	if err != nil {
		w.syntaxError()
		return
	}
	x, ok := jsonint.Parse(lit)
	switch {
	case !ok:
		w.problem(automium.CodeInvalidArgument, nil, "must be an integer, not %s", echoNumber(lit))
	case x.Less(n.min):
		w.problem(automium.CodeInvalidArgument, nil, "is %s, below the minimum of %s", echoNumber(lit), n.min)
	case n.max.Less(x):
		w.problem(automium.CodeLimitExceeded, nil, "is %s, above the limit of %s; use a smaller value", echoNumber(lit), n.max)
	case n.kind == wUint:
		v.SetUint(x.Mag)
	case x.Neg:
		v.SetInt(int64(-x.Mag)) // two's complement: right for -2^63 too
	default:
		v.SetInt(int64(x.Mag))
	}
}
