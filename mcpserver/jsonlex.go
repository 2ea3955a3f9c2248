package mcpserver

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON grammar, as the argument walker reads it: strings, numbers, and
// skipping whole values. It checks what encoding/json checks, so the walker
// calls malformed exactly the inputs encoding/json does, and it reads strings as
// encoding/json decodes them. Nothing here allocates except unquote's output.

func (w *walk) space() {
	for w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// next consumes what follows an item or member: a comma, or the closer of its
// container, in which case done is true. Anything else is a syntax error.
func (w *walk) next(closer byte) (done bool) {
	w.space()
	if w.pos < len(w.data) {
		switch w.data[w.pos] {
		case ',':
			w.pos++
			return false
		case closer:
			w.pos++
			return true
		}
	}
	w.syntaxError()
	return true
}

// str reads a string and returns its raw bytes between the quotes, and whether
// they need unquote to be read as encoding/json reads them: an escape or invalid
// UTF-8. It checks the grammar: no control characters, and only the escapes JSON
// has.
func (w *walk) str() (raw []byte, escaped bool) {
	start, ascii := w.pos+1, true
	for i := start; i < len(w.data); i++ {
		switch c := w.data[i]; {
		case c == '"':
			w.pos = i + 1
			raw = w.data[start:i]
			return raw, escaped || !ascii && !utf8.Valid(raw)
		case c >= utf8.RuneSelf:
			ascii = false
		case c == '\\':
			escaped = true
			i++
			if i >= len(w.data) {
				break
			}
			switch w.data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(w.data) || !isHex(w.data[i+1:i+5]) {
					w.syntaxError()
					return nil, false
				}
				i += 4
			default:
				w.syntaxError()
				return nil, false
			}
		case c < 0x20:
			w.syntaxError()
			return nil, false
		}
	}
	w.syntaxError()
	return nil, false
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// unquote appends to dst the string whose raw JSON bytes (grammar checked) are
// raw, as encoding/json decodes it: escapes resolved, and each invalid UTF-8 byte
// and each unpaired surrogate replaced by U+FFFD. replaced reports whether any
// was: two different invalid strings would otherwise read as one.
func unquote(dst, raw []byte) (out []byte, replaced bool) {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			switch e := raw[i+1]; e {
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				r := hex4(raw[i+2 : i+6])
				i += 6
				if utf16.IsSurrogate(r) {
					if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
						if pair := utf16.DecodeRune(r, hex4(raw[i+2:i+6])); pair != unicode.ReplacementChar {
							dst = utf8.AppendRune(dst, pair)
							i += 6
							continue
						}
					}
					r, replaced = unicode.ReplacementChar, true
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default: // " \ /
				dst = append(dst, e)
			}
			i += 2
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				dst, replaced = utf8.AppendRune(dst, unicode.ReplacementChar), true
			} else {
				dst = append(dst, raw[i:i+size]...)
			}
			i += size
		}
	}
	return dst, replaced
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// number reads a number literal, checking the JSON grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (w *walk) number() []byte {
	d, start, i := w.data, w.pos, w.pos
	digits := func() bool {
		j := i
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		w.syntaxError()
		return nil
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			w.syntaxError()
			return nil
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			w.syntaxError()
			return nil
		}
	}
	w.pos = i
	return d[start:i]
}

// skip reads past one value without decoding it, checking its grammar and its
// depth; it allocates nothing.
func (w *walk) skip(depth int) {
	w.space()
	if w.pos >= len(w.data) {
		w.syntaxError()
		return
	}
	switch c := w.data[w.pos]; c {
	case '{', '[':
		if depth >= maxScanDepth {
			w.tooDeep()
			return
		}
		w.pos++
		closer := byte(']')
		if c == '{' {
			closer = '}'
		}
		w.space()
		if w.pos < len(w.data) && w.data[w.pos] == closer {
			w.pos++
			return
		}
		for !w.stop {
			if c == '{' {
				w.space()
				if w.pos >= len(w.data) || w.data[w.pos] != '"' {
					w.syntaxError()
					return
				}
				if w.str(); w.stop {
					return
				}
				w.space()
				if w.pos >= len(w.data) || w.data[w.pos] != ':' {
					w.syntaxError()
					return
				}
				w.pos++
			}
			w.skip(depth + 1)
			if w.stop || w.next(closer) {
				return
			}
		}
	case '"':
		w.str()
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(w.data)-w.pos >= len(lit) && string(w.data[w.pos:w.pos+len(lit)]) == lit {
				w.pos += len(lit)
				return
			}
		}
		w.syntaxError()
	default:
		w.number()
	}
}
