// Package echo cuts client-supplied values before they go into a message.
//
// A client decides how long the values it sends are, so an error that quotes one
// whole can be made as large as the input: a 7 MiB bad value once made a 182 MiB
// answer line, because JSON escaping multiplied every byte. Every message that
// repeats something a client sent — tool errors, prompt errors, JSON-RPC errors,
// completion answers and log lines — quotes it through [Quote], so no message is
// ever bigger than a small fixed size.
package echo

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxPrefix is how many bytes of a value [Quote] shows. It is enough to recognise
// an ID or a mistyped word and small enough that dozens of quoted values fit in one
// short message.
const MaxPrefix = 40

// Quote returns s as a Go-quoted string, cut to at most MaxPrefix bytes on a rune
// boundary; a cut value is followed by an ellipsis and its full length in bytes.
// Invalid UTF-8 and control characters come out escaped, so the result is always
// printable, valid UTF-8, and at most a few hundred bytes long.
func Quote(s string) string {
	if len(s) <= MaxPrefix {
		return strconv.Quote(s)
	}
	cut := MaxPrefix
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}

// Cut returns s cut to at most n bytes on a rune boundary and followed by an
// ellipsis if it was longer, with invalid UTF-8 replaced by U+FFFD: a
// client's text kept as data (the first error message of a failed test),
// bounded, unquoted.
func Cut(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
