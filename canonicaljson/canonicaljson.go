// Package canonicaljson writes JSON in the one canonical form of RFC 8785, the
// JSON Canonicalization Scheme (JCS), so that two programs in any two languages
// that hash or sign "the same JSON" hash or sign the same bytes.
//
// The canonical form of a JSON value is:
//
//   - objects with their members sorted by key, comparing keys as sequences of
//     UTF-16 code units (so U+1F600, a surrogate pair, sorts before U+FB33);
//   - no whitespace between tokens;
//   - numbers in the shortest form that reads back as the same IEEE 754 double,
//     written as ECMAScript's Number.prototype.toString writes it (4.50 is 4.5,
//     1E30 is 1e+30, -0 is 0);
//   - strings with only '"', '\\' and the control characters U+0000 to U+001F
//     escaped, the short escapes \b \t \n \f \r where they exist and lowercase
//     \u00xx otherwise; every other character, including '/', DEL, U+2028 and
//     non-ASCII text, is written as itself in UTF-8;
//   - literals null, true and false as they are.
//
// Input must be I-JSON (RFC 7493), as RFC 8785 requires: valid UTF-8, no lone
// surrogate escapes, no duplicate member names, and numbers within the range of
// a double. Anything else is refused with an [*Error] rather than silently
// repaired, because a repair (encoding/json turns a lone surrogate into U+FFFD
// and keeps the last of two duplicate keys) would let two different inputs share
// one digest, or let a checker and a consumer read one input differently.
//
// Numbers are read as doubles, as RFC 8785 prescribes: an integer beyond 2^53
// comes out as the nearest double (12345678901234567890 is written
// 12345678901234567000). Callers that bind such values should send them as
// strings.
package canonicaljson

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
)

// MaxDepth is the deepest nesting of arrays and objects Canonicalize accepts. It
// bounds the recursion, so no input can exhaust the stack; real arguments and
// tool schemas nest a handful of levels.
const MaxDepth = 128

// Error reports why an input has no canonical form. Offset is the byte offset in
// the input where the problem was found.
type Error struct {
	Offset int
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("canonicaljson: at byte %d: %s", e.Offset, e.Reason)
}

// Canonicalize returns the RFC 8785 canonical form of the single JSON value in
// data. Leading and trailing whitespace is allowed; anything else after the value
// is an error. The input is not modified and the result is a new slice.
func Canonicalize(data []byte) ([]byte, error) {
	if !utf8.Valid(data) {
		return nil, &Error{Offset: firstInvalidUTF8(data), Reason: "invalid UTF-8"}
	}
	p := parser{data: data}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.errorf("unexpected %q after the JSON value", p.data[p.pos])
	}
	out := make([]byte, 0, len(data))
	return v.appendTo(out), nil
}

// Marshal encodes v with encoding/json and returns its canonical form. It is the
// way to canonicalize Go values: struct field order, map order and the
// encoder's HTML escaping do not show in the result.
func Marshal(v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("canonicaljson: %w", err)
	}
	return Canonicalize(data)
}

// Member is one member of a JSON object: its name and its value in canonical
// form.
type Member struct {
	Name  string
	Value []byte
}

// Members parses data, which must hold one JSON object, under the same rules as
// [Canonicalize], and returns its members in canonical order, each value in
// canonical form. It lets a caller pick fields out of an object it must also
// canonicalize, without parsing it twice.
func Members(data []byte) ([]Member, error) {
	if !utf8.Valid(data) {
		return nil, &Error{Offset: firstInvalidUTF8(data), Reason: "invalid UTF-8"}
	}
	p := parser{data: data}
	p.skipSpace()
	if p.pos >= len(p.data) || p.data[p.pos] != '{' {
		return nil, p.errorf("want a JSON object")
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return nil, p.errorf("unexpected %q after the JSON value", p.data[p.pos])
	}
	out := make([]Member, len(v.members))
	for i, m := range v.members {
		out[i] = Member{Name: m.key, Value: m.val.appendTo(nil)}
	}
	return out, nil
}

// value is a parsed JSON value. Scalars keep their canonical text; objects keep
// their members in sorted order.
type value struct {
	kind    byte // 'l' literal or number (text is canonical), 's' string, 'a' array, 'o' object
	text    string
	items   []value
	members []member
}

type member struct {
	key string
	val value
}

func (v value) appendTo(out []byte) []byte {
	switch v.kind {
	case 'l':
		return append(out, v.text...)
	case 's':
		return AppendString(out, v.text)
	case 'a':
		out = append(out, '[')
		for i, it := range v.items {
			if i > 0 {
				out = append(out, ',')
			}
			out = it.appendTo(out)
		}
		return append(out, ']')
	default:
		out = append(out, '{')
		for i, m := range v.members {
			if i > 0 {
				out = append(out, ',')
			}
			out = AppendString(out, m.key)
			out = append(out, ':')
			out = m.val.appendTo(out)
		}
		return append(out, '}')
	}
}

// AppendString appends s as a canonical JSON string. s must be valid UTF-8;
// invalid bytes are written as they are, so callers canonicalizing untrusted
// text should use [Canonicalize].
func AppendString(out []byte, s string) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			out = append(out, '\\', '"')
		case c == '\\':
			out = append(out, '\\', '\\')
		case c >= 0x20:
			out = append(out, c)
		case c == '\b':
			out = append(out, '\\', 'b')
		case c == '\t':
			out = append(out, '\\', 't')
		case c == '\n':
			out = append(out, '\\', 'n')
		case c == '\f':
			out = append(out, '\\', 'f')
		case c == '\r':
			out = append(out, '\\', 'r')
		default:
			const hex = "0123456789abcdef"
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	return append(out, '"')
}

// AppendNumber appends f in ECMAScript's Number.prototype.toString form, which is
// RFC 8785's number form. NaN and infinities have no JSON form and are an error.
func AppendNumber(out []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return out, fmt.Errorf("canonicaljson: %v has no JSON form", f)
	}
	if f == 0 { // both zeros
		return append(out, '0'), nil
	}
	if f < 0 {
		out = append(out, '-')
		f = -f
	}
	// The shortest digits that read back as f, and the decimal exponent: 'e'
	// with precision -1 gives d.ddde±x.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	mant, exp, _ := bytes.Cut(e, []byte{'e'})
	digits := make([]byte, 0, len(mant))
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	x, _ := strconv.Atoi(string(exp))
	k, n := len(digits), x+1 // ECMA-262 Number::toString: k digits, point after n
	switch {
	case k <= n && n <= 21:
		out = append(out, digits...)
		for range n - k {
			out = append(out, '0')
		}
	case 0 < n && n <= 21:
		out = append(out, digits[:n]...)
		out = append(out, '.')
		out = append(out, digits[n:]...)
	case -6 < n && n <= 0:
		out = append(out, '0', '.')
		for range -n {
			out = append(out, '0')
		}
		out = append(out, digits...)
	default:
		out = append(out, digits[0])
		if k > 1 {
			out = append(out, '.')
			out = append(out, digits[1:]...)
		}
		out = append(out, 'e')
		if n-1 >= 0 {
			out = append(out, '+')
		}
		out = strconv.AppendInt(out, int64(n-1), 10)
	}
	return out, nil
}

// parser is a strict RFC 8259 parser with the I-JSON restrictions. It is written
// out rather than built on encoding/json because encoding/json repairs what
// I-JSON forbids (lone surrogates, duplicate keys) instead of refusing it.
type parser struct {
	data []byte
	pos  int
	// items and members are scratch stacks: the elements of the arrays and
	// objects being parsed, innermost last. Each array or object is copied out
	// at its exact size when it ends, so parsing allocates no growing slices.
	items   []value
	members []member
}

func (p *parser) errorf(format string, args ...any) *Error {
	return &Error{Offset: p.pos, Reason: fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (value, error) {
	if p.pos >= len(p.data) {
		return value{}, p.errorf("unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{' || c == '[':
		if depth >= MaxDepth {
			return value{}, p.errorf("nesting deeper than %d", MaxDepth)
		}
		if c == '{' {
			return p.object(depth + 1)
		}
		return p.array(depth + 1)
	case c == '"':
		s, err := p.string()
		return value{kind: 's', text: s}, err
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	default:
		return value{}, p.errorf("unexpected %q where a JSON value should start", c)
	}
}

func (p *parser) literal(word string) (value, error) {
	if end := p.pos + len(word); end > len(p.data) || string(p.data[p.pos:end]) != word {
		return value{}, p.errorf("invalid literal; want %s", word)
	}
	p.pos += len(word)
	return value{kind: 'l', text: word}, nil
}

func (p *parser) array(depth int) (value, error) {
	p.pos++ // [
	v := value{kind: 'a', items: []value{}}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	base := len(p.items)
	defer func() { p.items = p.items[:base] }()
	for {
		p.skipSpace()
		it, err := p.value(depth)
		if err != nil {
			return value{}, err
		}
		p.items = append(p.items, it)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return value{}, p.errorf("unexpected end of input in an array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			v.items = slices.Clone(p.items[base:])
			return v, nil
		default:
			return value{}, p.errorf("unexpected %q in an array; want ',' or ']'", p.data[p.pos])
		}
	}
}

func (p *parser) object(depth int) (value, error) {
	p.pos++ // {
	v := value{kind: 'o', members: []member{}}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	base := len(p.members)
	defer func() { p.members = p.members[:base] }()
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return value{}, p.errorf("want a member name in double quotes")
		}
		key, err := p.string()
		if err != nil {
			return value{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return value{}, p.errorf("want ':' after a member name")
		}
		p.pos++
		p.skipSpace()
		val, err := p.value(depth)
		if err != nil {
			return value{}, err
		}
		p.members = append(p.members, member{key: key, val: val})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return value{}, p.errorf("unexpected end of input in an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			continue
		case '}':
			p.pos++
		default:
			return value{}, p.errorf("unexpected %q in an object; want ',' or '}'", p.data[p.pos])
		}
		break
	}
	v.members = slices.Clone(p.members[base:])
	slices.SortFunc(v.members, func(a, b member) int { return CompareUTF16(a.key, b.key) })
	for i := 1; i < len(v.members); i++ {
		if v.members[i].key == v.members[i-1].key {
			return value{}, p.errorf("duplicate member name %s", echo.Quote(v.members[i].key))
		}
	}
	return v, nil
}

// string reads a JSON string and returns its decoded text.
func (p *parser) string() (string, error) {
	p.pos++ // opening quote
	var b []byte
	start := p.pos
	for {
		if p.pos >= len(p.data) {
			return "", p.errorf("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			if b == nil {
				s := string(p.data[start:p.pos])
				p.pos++
				return s, nil
			}
			b = append(b, p.data[start:p.pos]...)
			p.pos++
			return string(b), nil
		case c < 0x20:
			return "", p.errorf("unescaped control character %#02x in a string", c)
		case c == '\\':
			b = append(b, p.data[start:p.pos]...)
			r, err := p.escape()
			if err != nil {
				return "", err
			}
			b = utf8.AppendRune(b, r)
			start = p.pos
		default:
			p.pos++
		}
	}
}

// escape reads one escape sequence, a surrogate pair counting as one, and
// returns the character it stands for.
func (p *parser) escape() (rune, error) {
	if p.pos+1 >= len(p.data) {
		return 0, p.errorf("unterminated escape")
	}
	c := p.data[p.pos+1]
	p.pos += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, err := p.hex4()
		if err != nil {
			return 0, err
		}
		switch {
		case 0xDC00 <= r && r <= 0xDFFF:
			return 0, p.errorf("lone low surrogate \\u%04x", r)
		case 0xD800 <= r && r <= 0xDBFF:
			if p.pos+1 >= len(p.data) || p.data[p.pos] != '\\' || p.data[p.pos+1] != 'u' {
				return 0, p.errorf("lone high surrogate \\u%04x", r)
			}
			p.pos += 2
			lo, err := p.hex4()
			if err != nil {
				return 0, err
			}
			if lo < 0xDC00 || lo > 0xDFFF {
				return 0, p.errorf("high surrogate \\u%04x not followed by a low surrogate", r)
			}
			return utf16.DecodeRune(r, lo), nil
		}
		return r, nil
	default:
		p.pos--
		return 0, p.errorf("invalid escape \\%c", c)
	}
}

func (p *parser) hex4() (rune, error) {
	if p.pos+4 > len(p.data) {
		return 0, p.errorf("truncated \\u escape")
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, p.errorf("invalid hex digit %q in a \\u escape", c)
		}
		r = r<<4 | rune(d)
	}
	p.pos += 4
	return r, nil
}

// number reads a number with RFC 8259's grammar and returns its canonical text.
func (p *parser) number() (value, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && '0' <= p.data[p.pos] && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return value{}, p.errorf("want a digit")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return value{}, p.errorf("want a digit after the decimal point")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return value{}, p.errorf("want a digit in the exponent")
		}
	}
	raw := p.data[start:p.pos]
	if isShortInteger(raw) {
		// A plain integer of at most 15 digits is exact in a double and
		// ECMAScript writes it as it is.
		return value{kind: 'l', text: string(raw)}, nil
	}
	text := string(raw)
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		// ParseFloat fails only on range here; the grammar was checked above.
		return value{}, &Error{Offset: start, Reason: fmt.Sprintf("number %s is outside the range of an IEEE 754 double", echo.Quote(text))}
	}
	out, err := AppendNumber(nil, f)
	if err != nil {
		return value{}, &Error{Offset: start, Reason: err.Error()}
	}
	return value{kind: 'l', text: string(out)}, nil
}

// isShortInteger reports whether raw, a number the grammar accepted, is an
// integer of 1 to 15 digits other than -0: its canonical form is itself.
func isShortInteger(raw []byte) bool {
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
		if len(digits) == 1 && digits[0] == '0' {
			return false
		}
	}
	if len(digits) == 0 || len(digits) > 15 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func firstInvalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}

// CompareUTF16 compares a and b as sequences of UTF-16 code units, the order
// RFC 8785 sorts object members in. It differs from Go's string order (code
// points) only for characters above U+FFFF against U+E000 to U+FFFF. Use it to
// sort anything else that must agree with JCS across languages. It allocates
// nothing.
func CompareUTF16(a, b string) int {
	// Skip the common prefix; the order is decided by the characters where the
	// strings first differ, which start at the same offset in both.
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	if i == len(a) || i == len(b) {
		return cmp.Compare(len(a), len(b))
	}
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	ra, _ := utf8.DecodeRuneInString(a[i:])
	rb, _ := utf8.DecodeRuneInString(b[i:])
	ha, la := utf16Units(ra)
	hb, lb := utf16Units(rb)
	if ha != hb {
		return cmp.Compare(ha, hb)
	}
	return cmp.Compare(la, lb)
}

// utf16Units returns the one or two UTF-16 code units of r; the second is 0
// when there is one.
func utf16Units(r rune) (uint16, uint16) {
	if r < 0x10000 {
		return uint16(r), 0
	}
	r -= 0x10000
	return uint16(0xD800 + r>>10), uint16(0xDC00 + r&0x3FF)
}
