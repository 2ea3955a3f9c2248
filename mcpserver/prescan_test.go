package mcpserver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/google/go-cmp/cmp"
)

func TestPrescan(t *testing.T) {
	steps := func(n int) string {
		return `{"steps":[` + strings.TrimSuffix(strings.Repeat(`{},`, n), ",") + `]}`
	}
	tests := []struct {
		name string
		raw  string
		want *automium.Error // nil: left to the decoder
	}{
		{"empty object", `{}`, nil},
		{"at the step limit", steps(automium.MaxSteps), nil},
		{"one step over", steps(automium.MaxSteps + 1), &automium.Error{Code: automium.CodeLimitExceeded, Field: "steps"}},
		{"far over", steps(100_000), &automium.Error{Code: automium.CodeLimitExceeded, Field: "steps"}},
		{"nested list over", `{"recovery":{"strategies":["a","b","c","d","e","f","g"]}}`, &automium.Error{Code: automium.CodeLimitExceeded, Field: "recovery.strategies"}},
		{"duplicate top-level property", `{"goal":"a","goal":"b"}`, &automium.Error{Code: automium.CodeInvalidArgument, Field: "goal"}},
		{"duplicate nested property", `{"steps":[{},{"target":"","target":{}}]}`, &automium.Error{Code: automium.CodeInvalidArgument, Field: "steps[1].target"}},
		{"same name in sibling objects", `{"steps":[{"intent":"a"},{"intent":"b"}]}`, nil},
		{"duplicate unknown property", `{"x":1,"x":2}`, nil},
		{"too deep", `{"goal":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, &automium.Error{Code: automium.CodeLimitExceeded, Field: "goal" + strings.Repeat("[0]", maxScanDepth-1)}},
		{"escaped strings", `{"goal":"a\"}\\","id":"\u0062"}`, nil},
		{"malformed is left to the decoder", `{"steps":[{},`, nil},
		{"not an object", `[1,2,3]`, nil},
		{"whitespace everywhere", " { \"steps\" : [ { } , { } ] } ", nil},
	}
	root := limitsOf(reflect.TypeFor[automium.CompileJourneyInput]())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := prescan([]byte(tt.raw), root)
			if tt.want == nil {
				if got != nil {
					t.Fatalf("prescan = %+v, want nil", got)
				}
				return
			}
			if got == nil {
				t.Fatalf("prescan = nil, want %s at %q", tt.want.Code, tt.want.Field)
			}
			if diff := cmp.Diff([2]string{string(tt.want.Code), tt.want.Field}, [2]string{string(got.Code), got.Field}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got.Message == "" {
				t.Error("no message")
			}
		})
	}
}

// TestDecodeRejectsHugeJourneyWithoutDecoding checks that the largest journey the
// byte cap lets through is refused by the pre-scan, before any value is decoded.
func TestDecodeRejectsHugeJourneyWithoutDecoding(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"steps":[`)
	for b.Len() < maxArgumentBytes-8 {
		b.WriteString(`{},`)
	}
	b.WriteString(`{}]}`)
	allocs := testing.AllocsPerRun(3, func() {
		_, err := decodeArguments[automium.CompileJourneyInput](json.RawMessage(b.Bytes()))
		if e, ok := err.(*automium.Error); !ok || e.Code != automium.CodeLimitExceeded || e.Field != "steps" {
			t.Fatalf("err = %v, want limit_exceeded at steps", err)
		}
	})
	if allocs > 50 {
		t.Errorf("rejecting %d bytes of steps took %.0f allocations; it should not decode them", b.Len(), allocs)
	}
}

func BenchmarkPrescan(b *testing.B) {
	j, _ := automium.ReferenceJourney("banking-transfer-to-savings")
	raw, err := json.Marshal(j)
	if err != nil {
		b.Fatal(err)
	}
	root := limitsOf(reflect.TypeFor[automium.CompileJourneyInput]())
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if err := prescan(raw, root); err != nil {
			b.Fatal(err)
		}
	}
}
