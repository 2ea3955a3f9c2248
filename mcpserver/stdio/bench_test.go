package stdio

import (
	"fmt"
	"testing"
)

// BenchmarkRequestRoundTrip measures one tools/call through the transport and a
// real server, from the request line written to the response line read.
func BenchmarkRequestRoundTrip(b *testing.B) {
	s := serve(b, &Transport{})
	s.initialize()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`, i+1))
		if r := s.next(); r.Error != nil {
			b.Fatal(r.Error)
		}
	}
}
