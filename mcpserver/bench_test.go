package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/automium/automium"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkNew measures building a server once the process-wide material
// (schemas, resource bodies, prompt material) exists, which is what every New
// after the first costs.
func BenchmarkNew(b *testing.B) {
	New(nil)
	b.ReportAllocs()
	for b.Loop() {
		New(nil)
	}
}

// BenchmarkDecodeArguments measures the strict decode of a reference journey, the
// adapter's own cost before the domain function runs.
func BenchmarkDecodeArguments(b *testing.B) {
	raw := json.RawMessage(referenceJourneyJSON(b))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodeArguments[automium.CompileJourneyInput](raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallCompileJourney measures a whole tools/call round trip over an
// in-memory session: client encoding, transport, decode, compile, result.
func BenchmarkCallCompileJourney(b *testing.B) {
	cs := connect(b, New(nil), "2025-11-25")
	params := &mcp.CallToolParams{Name: "automium_compile_journey", Arguments: json.RawMessage(referenceJourneyJSON(b))}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatal(err, resultText(res))
		}
	}
}
