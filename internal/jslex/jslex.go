// Package jslex is a small lexer of JavaScript and TypeScript source, written
// for one question: what string literals does a program hold, and what is its
// shape apart from them? The exporter of Playwright specs escapes every client
// string (automium.ExportPlaywrightSpec); its tests and CI read the output
// back with this lexer, which shares no code with the escaper, and require
// the literals read to be the strings written and the tokens around them to be
// those of a harmless journey of the same steps.
//
// It reads comments, string literals with every escape ECMAScript 2024
// defines, identifiers, numbers and punctuators. It refuses what the exporter
// never writes and a breakout would need: template literals, regular
// expression literals (a / is always read as a punctuator), a raw line
// terminator inside a string, an unterminated string or comment, and any
// non-ASCII character outside a string or comment.
package jslex

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the kind of a token.
type Kind int

// The token kinds.
const (
	String Kind = iota
	Ident
	Number
	Punct
)

// Token is one token: a string's decoded value, or the source text of any
// other token.
type Token struct {
	Kind Kind
	Text string
}

// Tokens lexes src. Comments and white space are skipped.
func Tokens(src string) ([]Token, error) {
	var out []Token
	i := 0
	for i < len(src) {
		r, size := utf8.DecodeRuneInString(src[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return nil, fmt.Errorf("byte %d: invalid UTF-8", i)
		case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f':
			i += size
		case r == '/' && strings.HasPrefix(src[i:], "//"):
			end := strings.IndexAny(src[i:], "\n\r\u2028\u2029")
			if end < 0 {
				end = len(src) - i
			}
			i += end
		case r == '/' && strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, fmt.Errorf("byte %d: unterminated comment", i)
			}
			i += 2 + end + 2
		case r == '\'' || r == '"':
			s, n, err := stringLiteral(src[i:])
			if err != nil {
				return nil, fmt.Errorf("byte %d: %w", i, err)
			}
			out = append(out, Token{String, s})
			i += n
		case r == '`':
			return nil, fmt.Errorf("byte %d: a template literal", i)
		case isIdentStart(r):
			j := i + 1
			for j < len(src) && isIdentPart(rune(src[j])) {
				j++
			}
			out = append(out, Token{Ident, src[i:j]})
			i = j
		case r >= '0' && r <= '9':
			j := i + 1
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '.' || src[j] == '_') {
				j++
			}
			out = append(out, Token{Number, src[i:j]})
			i = j
		case r < 0x80 && strings.ContainsRune("{}()[];,.<>+-*/%&|^!~?:=@#", r):
			out = append(out, Token{Punct, string(r)})
			i++
		default:
			return nil, fmt.Errorf("byte %d: %q outside a string or comment", i, r)
		}
	}
	return out, nil
}

func isIdentStart(r rune) bool {
	return r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

func isIdentPart(r rune) bool { return isIdentStart(r) || r >= '0' && r <= '9' }

// errUnterminated is a string that reaches a line terminator or the end.
var errUnterminated = errors.New("unterminated string literal")

// stringLiteral decodes the literal at the start of src and returns its value
// and length in bytes. The value is built as UTF-16, as ECMAScript does, and
// a lone surrogate in it is an error: it has no UTF-8 form, so it cannot be
// the string a client sent.
func stringLiteral(src string) (string, int, error) {
	quote := src[0]
	var units []uint16
	i := 1
	for {
		if i >= len(src) {
			return "", 0, errUnterminated
		}
		r, size := utf8.DecodeRuneInString(src[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return "", 0, errors.New("invalid UTF-8 in a string")
		case r == rune(quote):
			s, err := fromUTF16(units)
			return s, i + 1, err
		case r == '\n' || r == '\r':
			return "", 0, errUnterminated
		case r == '\\':
			n, consumed, err := escape(src[i+1:])
			if err != nil {
				return "", 0, err
			}
			units = append(units, n...)
			i += 1 + consumed
			continue
		default:
			units = utf16.AppendRune(units, r)
		}
		i += size
	}
}

// escape decodes the escape after a backslash.
func escape(src string) ([]uint16, int, error) {
	if src == "" {
		return nil, 0, errUnterminated
	}
	r, size := utf8.DecodeRuneInString(src)
	simple := map[rune]uint16{'n': '\n', 'r': '\r', 't': '\t', 'b': '\b', 'f': '\f', 'v': '\v'}
	switch {
	case simple[r] != 0:
		return []uint16{simple[r]}, 1, nil
	case r == '0' && (len(src) < 2 || src[1] < '0' || src[1] > '9'):
		return []uint16{0}, 1, nil
	case r >= '0' && r <= '9':
		return nil, 0, errors.New("a legacy octal escape")
	case r == 'x':
		v, ok := hexValue(src[1:min(3, len(src))], 2)
		if !ok {
			return nil, 0, errors.New("a malformed \\x escape")
		}
		return []uint16{uint16(v)}, 3, nil
	case r == 'u' && strings.HasPrefix(src, "u{"):
		end := strings.IndexByte(src, '}')
		if end < 3 {
			return nil, 0, errors.New("a malformed \\u{} escape")
		}
		v, ok := hexValue(src[2:end], end-2)
		if !ok || v > 0x10ffff {
			return nil, 0, errors.New("a malformed \\u{} escape")
		}
		return utf16.AppendRune(nil, rune(v)), end + 1, nil
	case r == 'u':
		v, ok := hexValue(src[1:min(5, len(src))], 4)
		if !ok {
			return nil, 0, errors.New("a malformed \\u escape")
		}
		return []uint16{uint16(v)}, 5, nil
	case r == '\r' && strings.HasPrefix(src, "\r\n"):
		return nil, 2, nil // line continuation
	case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
		return nil, size, nil // line continuation
	}
	return utf16.AppendRune(nil, r), size, nil
}

func hexValue(s string, n int) (uint32, bool) {
	if len(s) != n || n == 0 || n > 6 {
		return 0, false
	}
	var v uint32
	for _, c := range []byte(s) {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint32(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | uint32(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// fromUTF16 is units as UTF-8, or an error for a lone surrogate.
func fromUTF16(units []uint16) (string, error) {
	var b strings.Builder
	for i := 0; i < len(units); i++ {
		u := rune(units[i])
		switch {
		case utf16.IsSurrogate(u) && u < 0xdc00 && i+1 < len(units) && units[i+1] >= 0xdc00 && units[i+1] <= 0xdfff:
			b.WriteRune(utf16.DecodeRune(u, rune(units[i+1])))
			i++
		case utf16.IsSurrogate(u):
			return "", fmt.Errorf("a lone surrogate U+%04X", u)
		default:
			b.WriteRune(u)
		}
	}
	return b.String(), nil
}

// Literals returns the values of the string literals of src, in order.
func Literals(src string) ([]string, error) {
	toks, err := Tokens(src)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range toks {
		if t.Kind == String {
			out = append(out, t.Text)
		}
	}
	return out, nil
}

// Shape is src's tokens with every string literal's value replaced by a
// placeholder: two programs of one shape differ only in their strings.
func Shape(src string) ([]Token, error) {
	toks, err := Tokens(src)
	if err != nil {
		return nil, err
	}
	for i := range toks {
		if toks[i].Kind == String {
			toks[i].Text = "\x00string"
		}
	}
	return toks, nil
}
