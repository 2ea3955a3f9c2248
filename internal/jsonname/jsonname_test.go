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
	type inner struct{}
	type sample struct {
		Plain    string
		Named    string `json:"named"`
		Optional string `json:"opt,omitempty"`
		Zero     int    `json:"zero,omitzero"`
		Skipped  string `json:"-"`
		Dash     string `json:"-,"`
		inner
		hidden string
	}
	type got struct {
		Name         string
		Optional, OK bool
	}
	var gots []got
	for _, f := range reflect.VisibleFields(reflect.TypeFor[sample]()) {
		name, optional, ok := Field(f)
		gots = append(gots, got{name, optional, ok})
	}
	want := []got{{"Plain", false, true}, {"named", false, true}, {"opt", true, true}, {"zero", true, true},
		{"", false, false}, {"-", false, true}, {"", false, false}, {"", false, false}}
	if diff := cmp.Diff(want, gots); diff != "" {
		t.Errorf("Field over sample's fields (-want +got):\n%s", diff)
	}
}
