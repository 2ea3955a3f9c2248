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
// repaired, because a repair (encoding/json turns invalid UTF-8 and a lone
// surrogate into U+FFFD and keeps the last of two duplicate keys) would let two
// different inputs share one digest, or let a checker and a consumer read one
// input differently. The same holds for Go values given to [Marshal]: a string
// that is not valid UTF-8 is an error, never U+FFFD.
//
// Numbers in JSON text are read as doubles, as RFC 8785 prescribes: an integer
// beyond 2^53 comes out as the nearest double (12345678901234567890 is written
// 12345678901234567000). Callers that bind such values should send them as
// strings. [Marshal] refuses a Go integer beyond 2^53 instead, since it would
// share its canonical form with its neighbours.
//
// The work is done by the standard library's encoding/json/jsontext, which is
// strict by default and implements RFC 8785 in [jsontext.Value.Canonicalize];
// this package adds the depth bound, refuses numbers a double cannot hold
// (jsontext saturates them), and reports every failure as an [*Error] whose
// message is bounded whatever the input.
package canonicaljson

import (
	"bytes"
	"cmp"
	jsonv1 "encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/nesting"
)

// MaxDepth is the deepest nesting of arrays and objects Canonicalize accepts. It
// bounds the work on hostile input; real arguments and tool schemas nest a
// handful of levels. It is twice the bound on a message (internal/nesting,
// MaxNestingDepth of automium.Limits) because a catalog holds JSON Schemas, which nest
// two levels (properties, then a property's schema) for every level of the
// arguments they describe.
const MaxDepth = 2 * nesting.MaxDepth

// maxReason bounds the text of an [Error]: jsontext quotes pieces of the input
// in its messages, and a duplicate name can be as long as the input.
const maxReason = 160

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
	v := jsontext.Value(bytes.Clone(data))
	if err := v.Canonicalize(); err != nil {
		return nil, wrap(err)
	}
	if err := checkStructure(data, false); err != nil {
		return nil, err
	}
	return v, nil
}

// checkStructure reads data, which is JSON that jsontext accepts, once and
// without allocating, skipping strings. It refuses what jsontext accepts and
// RFC 8785 or this package does not: nesting deeper than MaxDepth (jsontext
// allows 10,000 levels), a number beyond the range of a double (jsontext writes
// the largest double), and, with exactInts, an integer beyond 2^53, which a
// double cannot hold exactly.
func checkStructure(data []byte, exactInts bool) error {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++ // the escaped byte, which may be a quote
				}
			}
		case c == '[' || c == '{':
			depth++
			if depth > MaxDepth {
				return &Error{Offset: i, Reason: fmt.Sprintf("nesting deeper than %d", MaxDepth)}
			}
		case c == ']' || c == '}':
			depth--
		case c == '-' || '0' <= c && c <= '9':
			start := i
			integer := true
			for i+1 < len(data) && strings.IndexByte("0123456789.eE+-", data[i+1]) >= 0 {
				i++
				if c := data[i]; c == '.' || c == 'e' || c == 'E' {
					integer = false
				}
			}
			if err := checkNumber(data[start:i+1], start, integer, exactInts); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxExact is 2^53: every integer of at most this magnitude is exact in a double.
const maxExact = 1 << 53

// checkNumber refuses the number text at offset if it is beyond the range of a
// double or, with exactInts, an integer beyond 2^53. Only a number with an
// exponent, or with at least as many digits as the largest finite double has
// before its point (309: 2e308 has that many and is out of range), can be out
// of range, so most numbers cost a length check.
func checkNumber(text []byte, offset int, integer, exactInts bool) error {
	digits := len(text)
	if text[0] == '-' {
		digits--
	}
	switch {
	case integer && exactInts && digits >= 16:
		if n, err := strconv.ParseInt(string(text), 10, 64); err == nil && -maxExact <= n && n <= maxExact {
			return nil
		}
		return &Error{Offset: offset, Reason: fmt.Sprintf("integer %s is beyond 2^53, which a double cannot hold exactly; send it as a string", echo.Quote(string(text)))}
	case digits >= 309 || bytes.ContainsAny(text, "eE"):
		if f, err := strconv.ParseFloat(string(text), 64); err != nil || math.IsInf(f, 0) {
			return &Error{Offset: offset, Reason: fmt.Sprintf("number %s is outside the range of an IEEE 754 double", echo.Quote(string(text)))}
		}
	}
	return nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// wrap turns a jsontext error into an [*Error] with a bounded reason.
func wrap(err error) *Error {
	var serr *jsontext.SyntacticError
	if !errors.As(err, &serr) {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return &Error{Reason: "unexpected end of input"}
		}
		return &Error{Reason: bound(err.Error())}
	}
	e := &Error{Offset: int(serr.ByteOffset)}
	switch {
	case errors.Is(serr.Err, jsontext.ErrDuplicateName):
		e.Reason = "duplicate member name " + echo.Quote(serr.JSONPointer.LastToken())
	case errors.Is(serr.Err, io.ErrUnexpectedEOF):
		e.Reason = "unexpected end of input"
	case serr.Err != nil:
		e.Reason = bound(serr.Err.Error())
	default:
		e.Reason = bound(serr.Error())
	}
	return e
}

// bound cuts s to maxReason bytes on a rune boundary.
func bound(s string) string {
	if len(s) <= maxReason {
		return s
	}
	cut := maxReason
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Marshal returns the canonical form of the JSON of v, or an [*Error]. The JSON is what
// encoding/json writes for v (the field names and omitempty rules of its struct
// tags, nil slices and maps as null), with three differences that keep two
// values from sharing one form: a string or map key that is not valid UTF-8 is
// an error rather than U+FFFD, so is a duplicate member name, and so is an
// integer beyond 2^53, which a double cannot hold. Struct field order, map order
// and the encoder's HTML escaping do not show in the result.
func Marshal(v any) ([]byte, error) {
	data, err := jsonv2.Marshal(v, jsonv1.DefaultOptionsV1(),
		jsontext.AllowInvalidUTF8(false), jsontext.AllowDuplicateNames(false), jsontext.EscapeForHTML(false))
	if err != nil {
		// The encoder's errors (invalid UTF-8, an unsupported type, NaN) name
		// no input bytes, so bounding them keeps them short whatever v holds.
		return nil, &Error{Reason: bound("the value has no JSON form: " + err.Error())}
	}
	if err := checkStructure(data, true); err != nil {
		return nil, err
	}
	// data is this call's own, so it is canonicalized in place.
	canonical := jsontext.Value(data)
	if err := canonical.Canonicalize(); err != nil {
		return nil, wrap(err)
	}
	return canonical, nil
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
// canonicalize, with the same rules for both.
func Members(data []byte) ([]Member, error) {
	canonical, err := Canonicalize(data)
	if err != nil {
		return nil, err
	}
	if canonical[0] != '{' {
		i := 0
		for i < len(data) && isSpace(data[i]) {
			i++
		}
		return nil, &Error{Offset: i, Reason: "want a JSON object"}
	}
	// The canonical form is valid and sorted, so reading it back cannot fail
	// and its members come out in canonical order, each value canonical.
	dec := jsontext.NewDecoder(bytes.NewReader(canonical))
	if _, err := dec.ReadToken(); err != nil {
		return nil, wrap(err)
	}
	var out []Member
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, wrap(err)
		}
		name := tok.String() // before the next read voids tok
		val, err := dec.ReadValue()
		if err != nil {
			return nil, wrap(err)
		}
		out = append(out, Member{Name: name, Value: bytes.Clone(val)})
	}
	if out == nil {
		out = []Member{}
	}
	return out, nil
}

// AppendString appends s as a canonical JSON string. s must be valid UTF-8;
// invalid bytes are written as they are, so callers canonicalizing untrusted
// text should use [Canonicalize].
func AppendString(out []byte, s string) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		// Copy the run of bytes that need no escape in one append: most
		// strings are one run.
		run := i
		for i < len(s) && s[i] >= 0x20 && s[i] != '"' && s[i] != '\\' {
			i++
		}
		out = append(out, s[run:i]...)
		if i == len(s) {
			break
		}
		c := s[i]
		switch {
		case c == '"':
			out = append(out, '\\', '"')
		case c == '\\':
			out = append(out, '\\', '\\')
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
	return jsontext.AppendFloat(out, f, 64), nil
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
