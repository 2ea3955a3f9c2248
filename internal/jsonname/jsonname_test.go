package jsonname

import (
	"strings"
	"testing"
)

// TestFold: names fold together exactly when strings.EqualFold says they are
// equal, including the non-ASCII members of ASCII letters' orbits.
func TestFold(t *testing.T) {
	names := []string{"id", "ID", "Id", "method", "METHOD", "k", "K", "\u212a", "s", "S", "\u017f",
		"ı", "I", "i", "İ", "ß", "ẞ", "inputSchema", "INPUTSCHEMA", "_meta", "_META", "a\xffb", "", "Σ", "σ", "ς"}
	for _, a := range names {
		for _, b := range names {
			if got, want := Fold(a) == Fold(b), strings.EqualFold(a, b); got != want {
				t.Errorf("Fold(%q) == Fold(%q) is %v, strings.EqualFold says %v", a, b, got, want)
			}
		}
	}
}
