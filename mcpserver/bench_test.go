package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/limit"
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

// BenchmarkDecodeArguments measures reading tool arguments, the adapter's own
// cost before the domain function runs, against json.Unmarshal of the same bytes
// into the same type, which checks none of what the walker checks. The walker's
// goal is to cost less than that one plain decode.
func BenchmarkDecodeArguments(b *testing.B) {
	for _, in := range []struct {
		name string
		raw  []byte
	}{
		{"reference journey", []byte(referenceJourneyJSON(b))},
		{"200 steps", journeyOfSteps(b, limit.MaxSteps)},
	} {
		b.Run(in.name+"/walker", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.raw)))
			for b.Loop() {
				if _, err := decodeArguments[automium.CompileJourneyInput](in.raw); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/json.Unmarshal", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.raw)))
			for b.Loop() {
				var out automium.CompileJourneyInput
				if err := json.Unmarshal(in.raw, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRefuseHostileArguments measures refusing the most expensive arguments
// the 8 MiB cap lets through: millions of empty objects under a bounded name, its
// escaped spelling or an unknown name. Each costs one pass over the bytes.
func BenchmarkRefuseHostileArguments(b *testing.B) {
	for _, key := range []string{"steps", `st\u0065ps`, "junk"} {
		var raw bytes.Buffer
		raw.WriteString(`{"` + key + `":[`)
		for raw.Len()+8 < maxArgumentBytes {
			raw.WriteString(`{},`)
		}
		raw.WriteString(`{}]}`)
		b.Run(key, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(raw.Len()))
			for b.Loop() {
				if _, err := decodeArguments[automium.CompileJourneyInput](raw.Bytes()); err == nil {
					b.Fatal("hostile arguments accepted")
				}
			}
		})
	}
}

// journeyOfSteps is the reference journey with n fill steps.
func journeyOfSteps(tb testing.TB, n int) []byte {
	step := map[string]any{"intent": "fill", "target": map[string]any{"role": "searchbox", "name": "Search products"}, "value": "kettle"}
	raw := withJourney(tb, func(j map[string]any) {
		steps := make([]any, n)
		for i := range steps {
			steps[i] = step
		}
		j["steps"] = steps
	})
	return []byte(raw)
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

// maximalJourney is the heaviest valid compile_journey (SECURITY.md's worst
// valid call): the most steps and assertions, each with the longest value, made
// of quotes, backslashes, '<', CJK and emoji, and a retry on every step.
func maximalJourney(tb testing.TB) []byte {
	tb.Helper()
	unit := []rune(`"\<日本語テキスト😀🚀`)
	value := make([]rune, 2000)
	for i := range value {
		value[i] = unit[i%len(unit)]
	}
	text := string(value)
	in := automium.CompileJourneyInput{ID: "maximal", AppID: "storefront", FixtureID: "storefront-guest-catalog",
		Goal: text, Recovery: automium.Recovery{MaxRetries: 3, Strategies: []automium.RecoveryStrategy{"retry_step"}}}
	for range limit.MaxSteps {
		in.Steps = append(in.Steps, automium.Step{Intent: "fill", Target: &automium.Target{Role: "textbox", Name: "Field"}, Value: text})
	}
	for range limit.MaxAssertions {
		in.Assertions = append(in.Assertions, automium.Assertion{Kind: "text_visible", Value: text})
	}
	raw, err := json.Marshal(in)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// BenchmarkMaximalCompileJourney measures the server's side of the worst valid
// call: the tool handler (walker, validation, compile, the answer's encoding) and
// the SDK's encoding of the result it returns, the bytes the transport writes.
func BenchmarkMaximalCompileJourney(b *testing.B) {
	raw := maximalJourney(b)
	var h mcp.ToolHandler
	for _, t := range tools() {
		if t.def.Name == "automium_compile_journey" {
			h = t.handler(slog.New(slog.DiscardHandler))
		}
	}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "automium_compile_journey", Arguments: raw}}
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		res, err := h(context.Background(), req)
		if err != nil || res.IsError {
			b.Fatalf("not a valid compile: %v %v", err, res.Content)
		}
		if _, err := json.Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHeavyCalls measures the server's side of the harness's heaviest
// peer workloads (tools/automium-bench): the tool handler and the SDK's
// encoding of its result, which both sides of the harness's ratio pay.
// "/encode only" is what a server replaying the same answer pays.
func BenchmarkHeavyCalls(b *testing.B) {
	j, ok := automium.ReferenceJourney("storefront-search-add-to-cart")
	if !ok {
		b.Fatal("reference journey gone")
	}
	long := j
	long.ID += "-max-steps"
	long.Steps = nil
	for len(long.Steps) < limit.MaxSteps {
		for _, s := range j.Steps {
			if s.Intent != "finish" && len(long.Steps) < limit.MaxSteps {
				long.Steps = append(long.Steps, s)
			}
		}
	}
	apps, err := automium.ListApps(context.Background(), automium.ListAppsInput{})
	if err != nil {
		b.Fatal(err)
	}
	compare := automium.ComparePlannersInput{CorpusVersion: automium.CorpusVersion, Repetitions: limit.MaxRepetitions}
	for _, a := range apps.Apps {
		compare.AppIDs = append(compare.AppIDs, a.ID)
	}
	for i := range limit.MaxPlanners {
		compare.Planners = append(compare.Planners, automium.PlannerRef{ID: fmt.Sprintf("planner-%02d", i), Vendor: "vendor", Model: fmt.Sprintf("model-%d", i)})
	}
	for _, c := range []struct {
		name, tool string
		args       any
	}{
		{"compile 200 steps", "automium_compile_journey", long},
		{"compare maximal", "automium_compare_planners", compare},
	} {
		raw, err := json.Marshal(c.args)
		if err != nil {
			b.Fatal(err)
		}
		var h mcp.ToolHandler
		for _, t := range tools() {
			if t.def.Name == c.tool {
				h = t.handler(slog.New(slog.DiscardHandler))
			}
		}
		req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: c.tool, Arguments: raw}}
		res, err := h(context.Background(), req)
		if err != nil || res.IsError {
			b.Fatalf("%s failed: %v %v", c.name, err, res.Content)
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := h(context.Background(), req)
				if err != nil || res.IsError {
					b.Fatal(err)
				}
				if _, err := json.Marshal(res); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/encode only", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
