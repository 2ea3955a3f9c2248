package safetytest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/automium/automium"
)

// TestWorstValidCall sends the heaviest call validation accepts to the real
// binary: a compile_journey of MaxSteps steps and MaxAssertions assertions whose
// every value is MaxTextLength characters of quotes, angle brackets, CJK and
// emoji (the characters JSON escapes or spells longest). It must compile, and
// its answer must stay within a small multiple of the input; the time and size
// are logged for SECURITY.md (hostile-input class 10), not asserted, since a
// timed unit test would be flaky on a shared machine.
func TestWorstValidCall(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level measurement; skipped with -short")
	}
	value := strings.Repeat(`"<漢😀`, automium.MaxTextLength/4)
	name := strings.Repeat(`"<漢😀`, 200/4)
	in := automium.CompileJourneyInput{ID: "worst-valid", AppID: "storefront", FixtureID: "storefront-guest-catalog",
		Goal:     value,
		Recovery: automium.Recovery{MaxRetries: automium.MaxRecoveryRetries, Strategies: automium.RecoveryStrategies()}}
	for range automium.MaxSteps {
		in.Steps = append(in.Steps, automium.Step{Intent: "fill", Target: &automium.Target{Role: "textbox", Name: name}, Value: value})
	}
	for range automium.MaxAssertions {
		in.Assertions = append(in.Assertions, automium.Assertion{Kind: "text_visible", Value: value})
	}
	args, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, "")
	p.initialize()
	began := time.Now()
	line := p.call(toolLine("1", "automium_compile_journey", string(args)))
	elapsed := time.Since(began)
	if got := summarize(t, line); got != "result, id 1" {
		t.Fatalf("the heaviest valid journey: %s, want a result", got)
	}
	if !strings.Contains(string(line), `"valid":true`) {
		t.Fatalf("the heaviest valid journey did not compile: %.300s", line)
	}
	// The answer carries the graph twice (structuredContent and a text block, as
	// MCP recommends), the text block JSON-escaped once more.
	if limit := 8 * len(args); len(line) > limit {
		t.Errorf("answer of %d bytes for %d bytes of arguments; want at most %d", len(line), len(args), limit)
	}
	_, peak := p.rss()
	t.Logf("heaviest valid compile_journey: %d bytes of arguments, answered in %v with %d bytes; VmHWM %d MiB", len(args), elapsed.Round(time.Millisecond), len(line), peak>>20)
}
