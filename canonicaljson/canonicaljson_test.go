package canonicaljson_test

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/automium/automium/canonicaljson"
	"github.com/google/go-cmp/cmp"
)

// TestRFC8785Examples runs the worked examples of RFC 8785 itself: section 3.2.2
// (whitespace, literals, numbers and string escaping) and section 3.2.3 (member
// sorting by UTF-16 code units).
func TestRFC8785Examples(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "section 3.2.2",
			in: `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`,
			want: `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
		},
		{
			name: "section 3.2.3 sorting",
			in: `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`,
			want: "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\",\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
		{
			name: "nested objects sort at every level, arrays keep their order",
			in:   `{"b":[{"z":1,"a":2},3,"x"],"a":{"d":{},"c":[]}}`,
			want: `{"a":{"c":[],"d":{}},"b":[{"a":2,"z":1},3,"x"]}`,
		},
		{
			name: "control characters, DEL, U+2028 and HTML characters",
			in:   `"\u0000\u0001\u001f\u007f\u2028<>&\b\t\n\f\r"`,
			want: "\"\\u0000\\u0001\\u001f\u007f\u2028<>&\\b\\t\\n\\f\\r\"",
		},
		{name: "minus zero", in: `-0.0`, want: `0`},
		{name: "integers written with exponents", in: `[1E2, 100.000, 1e-7, -1e21]`, want: `[100,100,1e-7,-1e+21]`},
		{name: "underflow to zero", in: `1e-400`, want: `0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := canonicaljson.Canonicalize([]byte(tt.in))
			if err != nil {
				t.Fatalf("Canonicalize: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Canonicalize (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRFC8785Numbers runs the number samples of RFC 8785 Appendix B: IEEE 754
// bit patterns and the text ECMAScript writes for them.
func TestRFC8785Numbers(t *testing.T) {
	tests := []struct{ bits, want string }{
		{"0000000000000000", "0"},
		{"8000000000000000", "0"},
		{"0000000000000001", "5e-324"},
		{"8000000000000001", "-5e-324"},
		{"7fefffffffffffff", "1.7976931348623157e+308"},
		{"ffefffffffffffff", "-1.7976931348623157e+308"},
		{"4340000000000000", "9007199254740992"},
		{"c340000000000000", "-9007199254740992"},
		{"4430000000000000", "295147905179352830000"},
		{"44b52d02c7e14af5", "9.999999999999997e+22"},
		{"44b52d02c7e14af6", "1e+23"},
		{"44b52d02c7e14af7", "1.0000000000000001e+23"},
		{"444b1ae4d6e2ef4e", "999999999999999700000"},
		{"444b1ae4d6e2ef4f", "999999999999999900000"},
		{"444b1ae4d6e2ef50", "1e+21"},
		{"3eb0c6f7a0b5ed8c", "9.999999999999997e-7"},
		{"3eb0c6f7a0b5ed8d", "0.000001"},
		{"41b3de4355555553", "333333333.3333332"},
		{"41b3de4355555554", "333333333.33333325"},
		{"41b3de4355555555", "333333333.3333333"},
		{"41b3de4355555556", "333333333.3333334"},
		{"41b3de4355555557", "333333333.33333343"},
		{"becbf647612f3696", "-0.0000033333333333333333"},
		{"43143ff3c1cb0959", "1424953923781206.2"},
	}
	for _, tt := range tests {
		bits, err := strconv.ParseUint(tt.bits, 16, 64)
		if err != nil {
			t.Fatal(err)
		}
		f := math.Float64frombits(bits)
		got, err := canonicaljson.AppendNumber(nil, f)
		if err != nil {
			t.Errorf("AppendNumber(%s): %v", tt.bits, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("AppendNumber(%s) = %s, want %s", tt.bits, got, tt.want)
		}
		// The same value read from its shortest Go text must come out the same.
		in := strconv.FormatFloat(f, 'g', -1, 64)
		if c, err := canonicaljson.Canonicalize([]byte(in)); err != nil || string(c) != tt.want {
			t.Errorf("Canonicalize(%s) = %s, %v; want %s", in, c, err, tt.want)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := canonicaljson.AppendNumber(nil, bad); err == nil {
			t.Errorf("AppendNumber(%v) = nil error, want one", bad)
		}
	}
}

// TestRefusesNonIJSON shows that input outside I-JSON is refused with an
// *Error, not repaired.
func TestRefusesNonIJSON(t *testing.T) {
	tests := []struct {
		name, in, reason string
	}{
		{"duplicate key", `{"a":1,"a":2}`, `duplicate member name "a"`},
		{"duplicate key spelled two ways", `{"a":1,"\u0061":2}`, `duplicate member name "a"`},
		{"lone high surrogate", `"\ud800"`, "invalid surrogate pair"},
		{"lone low surrogate", `"\udc00x"`, "invalid surrogate pair"},
		{"high surrogate then not low", `"\ud800\u0041"`, "invalid surrogate pair"},
		{"invalid UTF-8", "\"\xff\"", "invalid UTF-8"},
		{"number out of range", `1e400`, "outside the range"},
		{"leading zero", `01`, "after top-level value"},
		{"bare decimal point", `1.`, "unexpected end of input"},
		{"NaN", `NaN`, "at start of value"},
		{"trailing comma", `[1,]`, "at start of value"},
		{"trailing value", `{} {}`, "after top-level value"},
		{"raw control character", "\"a\tb\"", "expecting non-control character"},
		{"unterminated", `{"a":"b`, "unexpected end of input"},
		{"empty", ``, "unexpected end of input"},
		{"bad escape", `"\x"`, "invalid escape sequence"},
		{"too deep", strings.Repeat("[", canonicaljson.MaxDepth+1) + strings.Repeat("]", canonicaljson.MaxDepth+1), "nesting deeper than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := canonicaljson.Canonicalize([]byte(tt.in))
			var cerr *canonicaljson.Error
			if !errors.As(err, &cerr) {
				t.Fatalf("Canonicalize(%q) = %q, %v; want an *Error", tt.in, got, err)
			}
			if !strings.Contains(cerr.Reason, tt.reason) {
				t.Errorf("reason = %q, want it to contain %q", cerr.Reason, tt.reason)
			}
		})
	}
	// Exactly MaxDepth levels are fine, and brackets, quotes and long digit
	// runs inside strings count for nothing.
	deep := strings.Repeat("[", canonicaljson.MaxDepth) + strings.Repeat("]", canonicaljson.MaxDepth)
	for _, ok := range []string{deep, `["` + strings.Repeat("[{", 200) + `\"` + strings.Repeat("[", 200) + `"]`, `{"\\":"12345678901234567890"}`} {
		if _, err := canonicaljson.Canonicalize([]byte(ok)); err != nil {
			t.Errorf("Canonicalize(%.40s…): %v", ok, err)
		}
		if _, err := canonicaljson.Marshal(json.RawMessage(ok)); err != nil {
			t.Errorf("Marshal(%.40s…): %v", ok, err)
		}
	}
}

// TestErrorsStayShort shows that a long offending value is cut in the message.
func TestErrorsStayShort(t *testing.T) {
	key := strings.Repeat("k", 10000)
	_, err := canonicaljson.Canonicalize([]byte(`{"` + key + `":1,"` + key + `":2}`))
	if err == nil || len(err.Error()) > 200 {
		t.Errorf("error = %d bytes (%v), want a short error", len(err.Error()), err)
	}
}

func TestMarshal(t *testing.T) {
	got, err := canonicaljson.Marshal(map[string]any{"b": "<&>", "a": []float64{1.5, 100}, "c": struct {
		Z int `json:"z"`
		A int `json:"a"`
	}{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"a":[1.5,100],"b":"<&>","c":{"a":2,"z":1}}`, string(got)); diff != "" {
		t.Errorf("Marshal (-want +got):\n%s", diff)
	}
	if _, err := canonicaljson.Marshal(math.Inf(1)); err == nil {
		t.Error("Marshal(+Inf) = nil error, want one")
	}
}

// TestMarshalRefusesWhatItWouldRepair shows that a Go value whose JSON
// encoding/json would repair has no canonical form. encoding/json writes
// invalid UTF-8 as U+FFFD, so a grant with RunID "run-A\xff" and one with
// "run-A\xfe" shared an ID and a seal; and an integer beyond 2^53 shares its
// double with its neighbours.
func TestMarshalRefusesWhatItWouldRepair(t *testing.T) {
	type grant struct {
		RunID string `json:"runId"`
		Host  string `json:"host"`
	}
	tests := []struct {
		name   string
		v      any
		reason string
	}{
		{"invalid UTF-8 in a struct field", grant{RunID: "run-A\xff", Host: "host"}, "invalid UTF-8"},
		{"the same field edited", grant{RunID: "run-A\xfe", Host: "host"}, "invalid UTF-8"},
		{"a lone surrogate's UTF-8", "\xed\xa0\x80", "invalid UTF-8"},
		{"invalid UTF-8 in a map key", map[string]int{"k\xff": 1}, "invalid UTF-8"},
		{"invalid UTF-8 deep in a value", map[string]any{"a": []any{"ok", map[string]string{"b": "\xc0"}}}, "invalid UTF-8"},
		{"integer just beyond 2^53", int64(1<<53 + 1), "beyond 2^53"},
		{"negative integer beyond 2^53", map[string]int64{"n": -(1<<53 + 1)}, "beyond 2^53"},
		{"largest uint64", uint64(math.MaxUint64), "beyond 2^53"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := canonicaljson.Marshal(tt.v)
			var cerr *canonicaljson.Error
			if !errors.As(err, &cerr) || !strings.Contains(cerr.Reason, tt.reason) {
				t.Fatalf("Marshal = %q, %v; want an *Error whose reason contains %q", got, err, tt.reason)
			}
		})
	}
	// The integers a double holds exactly are fine, up to 2^53 itself.
	got, err := canonicaljson.Marshal([]int64{1 << 53, -(1 << 53), 123456789012345})
	if err != nil || string(got) != `[9007199254740992,-9007199254740992,123456789012345]` {
		t.Errorf("Marshal(exact integers) = %s, %v", got, err)
	}
	// Nil slices and maps stay null, and omitempty keeps encoding/json's meaning:
	// the digests of the root's types are the canonical form of their answers.
	got, err = canonicaljson.Marshal(struct {
		A []int          `json:"a"`
		M map[string]int `json:"m"`
		N int            `json:"n,omitempty"`
		S string         `json:"s,omitempty"`
	}{})
	if err != nil || string(got) != `{"a":null,"m":null}` {
		t.Errorf("Marshal(zero struct) = %s, %v; want {\"a\":null,\"m\":null}", got, err)
	}
}

// TestNumberOutOfRangeIsRefused: jsontext writes a number beyond a double as the
// largest double; RFC 8785 makes it an error, and so does Canonicalize. The
// largest double itself is fine.
func TestNumberOutOfRangeIsRefused(t *testing.T) {
	for _, in := range []string{`1e400`, `[1, -1e309]`, `{"a":{"b":[1.7976931348623157e+308, 2e308]}}`} {
		_, err := canonicaljson.Canonicalize([]byte(in))
		var cerr *canonicaljson.Error
		if !errors.As(err, &cerr) || !strings.Contains(cerr.Reason, "outside the range") {
			t.Errorf("Canonicalize(%s) error = %v, want outside the range", in, err)
			continue
		}
		if c := in[cerr.Offset]; c != '-' && (c < '0' || c > '9') {
			t.Errorf("Canonicalize(%s) offset %d points at %q, want the number", in, cerr.Offset, c)
		}
	}
	got, err := canonicaljson.Canonicalize([]byte(`[1.7976931348623157e308, "1.7976931348623157e+308"]`))
	if err != nil || string(got) != `[1.7976931348623157e+308,"1.7976931348623157e+308"]` {
		t.Errorf("Canonicalize(largest double) = %s, %v", got, err)
	}
}

// FuzzCanonicalize checks the properties the digests rely on, for any input:
// no panic; an accepted input's canonical form is valid JSON, is its own
// canonical form, and means what the input meant.
func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,false,null,"x"]}`, `-0.0`, `1E30`, `"\ud83d\ude00"`, `{"\u20ac":1,"\r":2}`,
		`[333333333.33333329, 4.50, 2e-3]`, `{"a":{"a":{"a":[]}}}`, `"\u0000\/"`, `{"a":1,"a":2}`, "\"\xff\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := canonicaljson.Canonicalize(in)
		if err != nil {
			var cerr *canonicaljson.Error
			if !errors.As(err, &cerr) {
				t.Fatalf("error %v is not an *Error", err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("canonical form %q is not valid JSON", out)
		}
		again, err := canonicaljson.Canonicalize(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("canonical form %q is not a fixed point: %q, %v", out, again, err)
		}
		var before, after any
		if err := json.Unmarshal(in, &before); err != nil {
			t.Fatalf("accepted %q that encoding/json refuses: %v", in, err)
		}
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, after); diff != "" {
			t.Fatalf("canonical form changed the value (-in +out):\n%s", diff)
		}
	})
}

// TestCompareUTF16 holds the allocation-free comparison to the definition:
// comparing the UTF-16 encodings.
func TestCompareUTF16(t *testing.T) {
	words := []string{"", "a", "ab", "b", "\r", "1", "\u0080", "ö", "€", "😀", "\ufb33", "\uffff", "\U0010ffff", "a😀", "a\ufb33", "aa"}
	for _, a := range words {
		for _, b := range words {
			want := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
			if got := canonicaljson.CompareUTF16(a, b); got != want {
				t.Errorf("CompareUTF16(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// FuzzMarshalString: a Go string has a canonical form exactly when it is valid
// UTF-8, that form reads back as the same string, and AppendString (which
// copies runs of bytes that need no escape in bulk) writes exactly it.
func FuzzMarshalString(f *testing.F) {
	for _, s := range []string{"run-A", "run-A\xff", "\xed\xa0\x80", "<>&\u2028", "\x00\x1f\"\\", "😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := canonicaljson.Marshal(map[string]string{s: s})
		if !utf8.ValidString(s) {
			if err == nil {
				t.Fatalf("Marshal(%q) = %s, want an error for invalid UTF-8", s, out)
			}
			return
		}
		if err != nil {
			t.Fatalf("Marshal(%q): %v", s, err)
		}
		var back map[string]string
		if err := json.Unmarshal(out, &back); err != nil || len(back) != 1 || back[s] != s {
			t.Fatalf("Marshal(%q) = %s, which reads back as %q (%v)", s, out, back, err)
		}
		one, _ := canonicaljson.Marshal(s)
		if got := canonicaljson.AppendString([]byte("prefix"), s); string(got) != "prefix"+string(one) {
			t.Fatalf("AppendString(%q) = %s, Marshal gives %s", s, got[len("prefix"):], one)
		}
	})
}

func FuzzCompareUTF16(f *testing.F) {
	f.Add("😀", "\ufb33")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		want := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
		if got := canonicaljson.CompareUTF16(a, b); got != want {
			t.Fatalf("CompareUTF16(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}

// BenchmarkCanonicalize measures a tool-schema-sized document.
func BenchmarkCanonicalize(b *testing.B) {
	var doc strings.Builder
	doc.WriteString(`{"type":"object","additionalProperties":false,"properties":{`)
	for i := range 100 {
		if i > 0 {
			doc.WriteString(",")
		}
		doc.WriteString(`"field` + strconv.Itoa(i) + `":{"type":"string","description":"a field \u00e9 with some text","maxLength":200,"enum":["a","b","c"]}`)
	}
	doc.WriteString(`}}`)
	in := []byte(doc.String())
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, err := canonicaljson.Canonicalize(in); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMembers(t *testing.T) {
	got, err := canonicaljson.Members([]byte(` {"b": [1.0, {"z":1,"a":2}], "a": "x"} `))
	if err != nil {
		t.Fatal(err)
	}
	want := []canonicaljson.Member{{Name: "a", Value: []byte(`"x"`)}, {Name: "b", Value: []byte(`[1,{"a":2,"z":1}]`)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Members (-want +got):\n%s", diff)
	}
	if got, err := canonicaljson.Members([]byte(`{}`)); err != nil || len(got) != 0 {
		t.Errorf("Members({}) = %v, %v; want no members", got, err)
	}
	for _, bad := range []string{`[]`, `"a"`, `{"a":1,"a":2}`, `{"a":1} x`, ``, "{\"a\":\"\xff\"}"} {
		if _, err := canonicaljson.Members([]byte(bad)); err == nil {
			t.Errorf("Members(%q) = nil error, want one", bad)
		}
	}
}
