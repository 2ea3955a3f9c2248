package jslex

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLiterals holds the decoding of every escape ECMAScript defines, and the
// refusal of what the exporter never writes.
func TestLiterals(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []string
	}{
		{`f('a', "b") // 'not a literal'`, []string{"a", "b"}},
		{`/* 'no' */ x = '\'\"\\\n\r\t\b\f\v\0';`, []string{"'\"\\\n\r\t\b\f\v\x00"}},
		{`'\x41\u0042\u{43}\u{1F600}\ud83d\ude00\q'`, []string{"ABC😀😀q"}},
		{"'a\\\nb'", []string{"ab"}},
		{"'\u2028'", []string{"\u2028"}},
		{"'日本' + 1.5", []string{"日本"}},
	} {
		got, err := Literals(c.src)
		if err != nil {
			t.Errorf("Literals(%q): %v", c.src, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("Literals(%q) (-want +got):\n%s", c.src, diff)
		}
	}
	for _, src := range []string{
		"'a", "'a\nb'", `'\x4'`, `'\u12'`, `'\u{110000}'`, `'\01'`, "`x`", "/* open", "'\\ud800'", "x é", "'\xff'",
	} {
		if got, err := Literals(src); err == nil {
			t.Errorf("Literals(%q) = %q, want an error", src, got)
		}
	}
}

// TestShape holds that only string values are hidden.
func TestShape(t *testing.T) {
	a, err := Shape(`f('x', 1);`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Shape(`f('y', 1);`)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Shape(`f('y', 2);`)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(a, b) || cmp.Equal(a, c) {
		t.Errorf("shapes: %v %v %v", a, b, c)
	}
}
