// Package jsonname holds the one rule by which Automium decides that two JSON
// member names are the same name spelled in another case. go-sdk decodes
// with a case-insensitive matcher, so the envelope door and binding's catalog
// check both refuse a name beside its case variant; one rule keeps the two from
// disagreeing about what a variant is. It also holds the one reading of a Go
// struct field's json tag (Field), which the root package's schemas and
// walks and the tests of every package with wire types share. It is a leaf
// with no dependencies.
package jsonname

import (
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fold maps a name to one spelling per case-insensitive class: each rune to
// the least rune of its Unicode simple-folding orbit, the equivalence that
// strings.EqualFold and encoding/json's name matching use ("K", "k" and the
// Kelvin sign fold together, as do "S", "s" and "ſ").
func Fold(s string) string {
	// ASCII without lower-case letters is its own representative: the least
	// rune of an ASCII letter's orbit is its upper case.
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || 'a' <= c && c <= 'z' {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// Field returns the wire name of a struct field and whether it is marked
// omitempty or omitzero, mirroring encoding/json. ok is false for fields that
// never reach the wire.
func Field(f reflect.StructField) (name string, optional, ok bool) {
	if !f.IsExported() || f.Anonymous {
		return "", false, false
	}
	tag := f.Tag.Get("json")
	if tag == "-" { // "-," names the member "-", as in encoding/json
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	for o := range strings.SplitSeq(opts, ",") {
		if o == "omitempty" || o == "omitzero" {
			optional = true
		}
	}
	return name, optional, true
}
