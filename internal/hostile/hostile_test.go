package hostile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStringFields(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"b":{"type":"string"},
		"a":{"type":"array","items":{"type":"object","properties":{"v":{"type":["null","string"]},"n":{"type":"integer"}}}},
		"c":{"type":"object","properties":{"d":{"type":"string"}}}}}`)
	got, err := StringFields(schema)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"a", "", "v"}, {"b"}, {"c", "d"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("StringFields (-want +got):\n%s", diff)
	}
}

// TestArgs: the head and tail around a value are the JSON of Object.
func TestArgs(t *testing.T) {
	for _, path := range [][]string{{"goal"}, {"steps", "", "target", "text"}, {"appIds", ""}} {
		head, tail, ok := Args(path)
		if !ok {
			t.Fatalf("%q: not ok", path)
		}
		var got any
		if err := json.Unmarshal([]byte(head+"<v>"+tail), &got); err != nil {
			t.Fatalf("%q: %s<v>%s: %v", path, head, tail, err)
		}
		var want any
		raw, _ := json.Marshal(Object(path, "<v>"))
		json.Unmarshal(raw, &want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", path, diff)
		}
	}
	if _, _, ok := Args([]string{"", "x"}); ok {
		t.Errorf("a path starting at an array item is ok")
	}
}

func TestCheck(t *testing.T) {
	lt := Value{"lt", "<", 1 << 10}
	tests := []struct {
		name   string
		answer string
		v      Value
		want   string // a part of the problem, "" for none
	}{
		{"quote at the bound", `"<` + strings.Repeat("<", 39) + `"`, lt, ""},
		{"raw over", strings.Repeat("<", 41), lt, `quotes 41 units of the client value as "<"`},
		{"escaped over", strings.Repeat(`\u003c`, 41), lt, `as "\\u003c"`},
		{"upper-case escape over", strings.Repeat(`\u003C`, 50), lt, `quotes 50 units`},
		{"escaped twice over", strings.Repeat(`\\u003c`, 41), lt, `as "\\\\u003c"`},
		{"letter over", "a" + strings.Repeat("x", 41), Value{"x", "x", 1 << 20}, `quotes 41 units`},
		{"too long", strings.Repeat("a", MaxAnswerBytes+1), lt, "answer is 65537 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check([]byte(tt.answer), tt.v, 40)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("Check = %q, want one holding %q", got, tt.want)
			}
		})
	}
}
