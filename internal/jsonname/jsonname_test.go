package jsonname

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

func TestField(t *testing.T) {
	// Built by hand rather than read from a struct type, so that the tags
	// encoding/json treats specially ("-" and "-,") need no struct of their own.
	field := func(name, tag string) reflect.StructField {
		f := reflect.StructField{Name: name, Tag: reflect.StructTag(tag), Type: reflect.TypeFor[string]()}
		if name[0] >= 'a' {
			f.PkgPath = "p" // unexported
		}
		return f
	}
	embedded := field("Inner", "")
	embedded.Anonymous = true
	tests := []struct {
		f            reflect.StructField
		name         string
		optional, ok bool
	}{
		{field("Plain", ""), "Plain", false, true},
		{field("Named", `json:"named"`), "named", false, true},
		{field("Optional", `json:"opt,omitempty"`), "opt", true, true},
		{field("Zero", `json:"zero,omitzero"`), "zero", true, true},
		{field("Unnamed", `json:",omitempty"`), "Unnamed", true, true},
		{field("Skipped", `json:"-"`), "", false, false},
		{field("Dash", `json:"-,"`), "-", false, true},
		{embedded, "", false, false},
		{field("hidden", `json:"hidden"`), "", false, false},
	}
	for _, tt := range tests {
		name, optional, ok := Field(tt.f)
		if diff := cmp.Diff([]any{tt.name, tt.optional, tt.ok}, []any{name, optional, ok}); diff != "" {
			t.Errorf("Field(%s %s) (-want +got):\n%s", tt.f.Name, tt.f.Tag, diff)
		}
	}
}
