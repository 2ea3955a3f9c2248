package schemaref

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInline(t *testing.T) {
	tests := []struct {
		name, schema string
		want         string // JSON, or "" when an error is wanted
		wantErr      string
	}{
		{"no refs", `{"type":"object","properties":{"a":{"type":"string"}}}`,
			`{"type":"object","properties":{"a":{"type":"string"}}}`, ""},
		{"a ref with its description", `{"type":"object","properties":{"a":{"$ref":"#/$defs/s","description":"the a"},"b":{"$ref":"#/$defs/s"}},"$defs":{"s":{"type":"string","maxLength":3}}}`,
			`{"type":"object","properties":{"a":{"type":"string","maxLength":3,"description":"the a"},"b":{"type":"string","maxLength":3}}}`, ""},
		{"refs inside definitions", `{"type":"array","items":{"$ref":"#/$defs/o"},"$defs":{"o":{"type":"object","properties":{"t":{"$ref":"#/$defs/s"}}},"s":{"type":"string"}}}`,
			`{"type":"array","items":{"type":"object","properties":{"t":{"type":"string"}}}}`, ""},
		{"a ref to no definition", `{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, "", "names no definition"},
		{"a remote ref", `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`, "", "names no definition"},
		{"an exponential fan-out", `{"$ref":"#/$defs/d0","$defs":{` + fanOut(20) + `}}`, "", "more than"},
		{"a loop of refs", `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`, "", "deeper than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Inline(json.RawMessage(tt.schema))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("inlined (-want +got):\n%s", diff)
			}
		})
	}
}

// fanOut is a chain of n definitions, each referring to the next twice: 2^n
// nodes once inlined.
func fanOut(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"d%d":{"type":"object","properties":{"a":{"$ref":"#/$defs/d%d"},"b":{"$ref":"#/$defs/d%d"}}}`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `,"d%d":{"type":"string"}`, n)
	return b.String()
}

// TestInlineCatalogPointers: an object written as its type and a description
// ending "as PATH in TOOL" (or "as TOOL takes it") gets the members listed
// there; an object that says anything else of itself is no pointer, whatever
// its description ends with; a pointer to nothing is an error.
func TestInlineCatalogPointers(t *testing.T) {
	const first = `{"type":"object","properties":{"a":{"type":"object","properties":{"x":{"type":"object","properties":{"m":{"type":"string"}}}}},"l":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}}}}}`
	for _, tt := range []struct {
		name    string
		second  string
		want    string // the second tool's y, inlined
		wantErr bool
	}{
		{"a nested property", `{"type":"object","properties":{"y":{"type":"object","description":"as a.x in first"}}}`,
			`{"type":"object","description":"as a.x in first","properties":{"m":{"type":"string"}}}`, false},
		{"the items of a list", `{"type":"object","properties":{"y":{"type":"object","description":"the rows, as l[] in first"}}}`,
			`{"type":"object","description":"the rows, as l[] in first","properties":{"n":{"type":"integer"}}}`, false},
		{"a whole input", `{"type":"object","properties":{"y":{"type":"object","description":"as first takes it"}}}`,
			`{"type":"object","description":"as first takes it","properties":{"a":{"type":"object","properties":{"x":{"type":"object","properties":{"m":{"type":"string"}}}}},"l":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}}}}}`, false},
		{"a map whose description ends like a pointer", `{"type":"object","properties":{"y":{"type":"object","description":"labels, as given","additionalProperties":{"type":"string"}}}}`,
			`{"type":"object","description":"labels, as given","additionalProperties":{"type":"string"}}`, false},
		{"a property the tool lacks", `{"type":"object","properties":{"y":{"type":"object","description":"as a.z in first"}}}`, ``, true},
		{"a tool the catalog lacks", `{"type":"object","properties":{"y":{"type":"object","description":"as a.x in third"}}}`, ``, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := InlineCatalog(map[string]any{"first": json.RawMessage(first), "second": json.RawMessage(tt.second)})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			var want any
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			y := got["second"]["properties"].(map[string]any)["y"]
			if diff := cmp.Diff(want, y); diff != "" {
				t.Errorf("second.y inlined (-want +got):\n%s", diff)
			}
		})
	}
}
