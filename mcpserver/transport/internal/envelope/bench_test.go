package envelope

import (
	"strings"
	"testing"
)

// hostileLines are the worst lines under the 16 MiB line cap: millions of
// empty objects around the structure bound, with the id first or last, and a
// deep nest.
func hostileLines() map[string][]byte {
	const size = 16<<20 - 200
	empties := strings.TrimSuffix(strings.Repeat(`{},`, size/3), ",")
	return map[string][]byte{
		"values-id-first": []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":{"x":[` + empties + `]}}}`),
		"values-id-last":  []byte(`{"jsonrpc":"2.0","method":"ping","junk":[` + empties + `],"id":1}`),
		"depth":           []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}}}`),
	}
}

// BenchmarkHostileLine measures what the door spends on each worst line: the
// time and the bytes it allocates before refusing it.
func BenchmarkHostileLine(b *testing.B) {
	for name, line := range hostileLines() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, p := Parse(line, Limits{}); p == nil || p.Code != -32600 {
					b.Fatalf("Parse = %v, want -32600", p)
				}
			}
		})
	}
}

// BenchmarkTypicalCall is the per-call cost of the door on a typical call.
func BenchmarkTypicalCall(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"automium_list_fixtures","arguments":{"appId":"storefront"},"_meta":{"progressToken":7}}}`)
	b.ReportAllocs()
	for b.Loop() {
		m, p := Parse(line, Limits{})
		if p != nil {
			b.Fatal(p)
		}
		if _, err := m.JSONRPC(); err != nil {
			b.Fatal(err)
		}
	}
}
