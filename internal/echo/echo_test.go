package echo

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestQuote(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"short", "kanban", `"kanban"`},
		{"exactly the prefix", strings.Repeat("a", MaxPrefix), `"` + strings.Repeat("a", MaxPrefix) + `"`},
		{"one byte over", strings.Repeat("a", MaxPrefix+1), `"` + strings.Repeat("a", MaxPrefix) + `"… (41 bytes)`},
		{"cut on a rune boundary", strings.Repeat("a", MaxPrefix-1) + "é" + "zz", `"` + strings.Repeat("a", MaxPrefix-1) + `"… (43 bytes)`},
		{"invalid UTF-8 escaped", "p\xff", `"p\xff"`},
		{"control characters escaped", "a\nb\x00", `"a\nb\x00"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Quote(tt.in)); diff != "" {
				t.Errorf("Quote (-want +got):\n%s", diff)
			}
		})
	}
}

// TestQuoteIsBounded is the promise SECURITY.md relies on: whatever the value, the
// quoted form is short, printable and valid UTF-8.
func TestQuoteIsBounded(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("<", 7<<20),
		strings.Repeat("\xff", 1<<20),
		strings.Repeat("\x00", 1<<20),
		strings.Repeat("😀", 1<<18),
	} {
		got := Quote(in)
		if len(got) > 4*MaxPrefix+32 || !utf8.ValidString(got) {
			t.Errorf("Quote of %d bytes gave %d bytes (valid UTF-8: %v)", len(in), len(got), utf8.ValidString(got))
		}
	}
}

func FuzzQuote(f *testing.F) {
	f.Add("kanban")
	f.Add(strings.Repeat("é", 40))
	f.Fuzz(func(t *testing.T, s string) {
		got := Quote(s)
		if len(got) > 4*MaxPrefix+32 || !utf8.ValidString(got) {
			t.Fatalf("Quote(%d bytes) = %d bytes", len(s), len(got))
		}
	})
}
