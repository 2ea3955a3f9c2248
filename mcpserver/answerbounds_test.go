package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"fmt"
	"github.com/automium/automium"
	"github.com/automium/automium/internal/limit"
	"strconv"
)

// costliestJourney is the largest valid journey with the costliest text: every
// step and assertion, every value and name at its bound in characters JSON
// escapes to six bytes each.
func costliestJourney() *automium.CompileJourneyInput {
	name := strings.Repeat("<", 200)
	j := &automium.CompileJourneyInput{ID: strings.Repeat("a", limit.MaxIDLength), AppID: "storefront", FixtureID: "storefront-guest-catalog", Goal: strings.Repeat("<", limit.MaxTextLength),
		Recovery: automium.Recovery{MaxRetries: limit.MaxRecoveryRetries, Strategies: []automium.RecoveryStrategy{"dismiss_dialog", "go_back", "reload_route", "replan", "re_snapshot", "retry_step"}}}
	for range limit.MaxSteps {
		j.Steps = append(j.Steps, automium.Step{Intent: "fill", Target: &automium.Target{Role: "textbox", Name: name}, Value: strings.Repeat("\x00", limit.MaxTextLength)})
	}
	for range limit.MaxAssertions {
		j.Assertions = append(j.Assertions, automium.Assertion{Kind: "element_text", Target: &automium.Target{Role: "cell", Name: name}, Value: strings.Repeat("\x00", limit.MaxTextLength)})
	}
	return j
}

// answerSizes is the bytes of a tool's result as go-sdk writes it, for a
// client with structured content and for one without (2025-03-26), and of
// the request's arguments.
func answerSizes(t *testing.T, name string, args any) (modern, legacy int, request int64) {
	t.Helper()
	var row tool
	for _, r := range tools() {
		if r.def.Name == name {
			row = r
		}
	}
	raw, ok := args.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(args); err != nil {
			t.Fatal(err)
		}
	}
	out, callErr := row.call(context.Background(), raw)
	sizes := [2]int{}
	for i, old := range []bool{false, true} {
		res := toolErrorResult(discard, name, callErr)
		if callErr == nil {
			var err error
			if res, err = answer(context.Background(), out, old); err != nil {
				t.Fatal(err)
			}
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		sizes[i] = len(b)
	}
	return sizes[0], sizes[1], int64(len(raw))
}

// TestAnswerBounds holds every tool's answer at maximal inputs to its worst
// answer in the table, for both kinds of client, and every call of the tool
// tests to the charge its request makes at admission.
func TestAnswerBounds(t *testing.T) {
	j := costliestJourney()
	planner := map[string]any{"id": strings.Repeat("<", limit.MaxIDLength), "vendor": strings.Repeat("<", limit.MaxIDLength), "model": strings.Repeat("<", limit.MaxIDLength)}
	badSteps := *j
	badSteps.Steps = nil
	for i := range limit.MaxSteps {
		badSteps.Steps = append(badSteps.Steps, automium.Step{Intent: automium.Intent(strings.Repeat("<", 60) + strconv.Itoa(i)), Value: strings.Repeat("\x00", limit.MaxTextLength)})
	}
	var entries []map[string]any
	for i := range limit.MaxArtifactEntries {
		p := longPath(fmt.Sprintf("attempt-%d/", i), ".png")
		entries = append(entries, map[string]any{"kind": "screenshot", "path": p, "size": int64(1) << 40, "sha256": strings.Repeat("a", 64)})
	}
	root := longPath("", "")
	maximal := []struct {
		name, tool string
		args       any
	}{
		{"apps", "automium_list_apps", map[string]any{}},
		{"fixtures", "automium_list_fixtures", map[string]any{}},
		{"the costliest journey", "automium_compile_journey", j},
		{"a problem in every step", "automium_compile_journey", &badSteps},
		{"unknown arguments", "automium_list_apps", hostileArguments()},
		{"the costliest journey", "automium_export_playwright_spec", map[string]any{"journey": j}},
		{"the costliest journey and planner", "automium_create_run_submission", map[string]any{"journey": j, "planner": planner, "environmentProfileId": "desktop-1440-en-us"}},
		{"the most retries", "automium_get_replay_summary", map[string]any{"runId": "run-606b700fc1c0ad13c153", "verdict": "flaky", "retryCount": limit.MaxRetryCount, "artifactManifestRef": "artifact-manifest://run-606b700fc1c0ad13c153"}},
		{"every entry at its longest", "automium_get_artifact_manifest", map[string]any{"runId": "run-606b700fc1c0ad13c153", "root": root, "entries": entries, "replay": map[string]any{"verdict": "failed", "retryCount": limit.MaxRetryCount}}},
	}
	for _, c := range maximal {
		t.Run(c.tool+"/"+c.name, func(t *testing.T) {
			modern, legacy, _ := answerSizes(t, c.tool, c.args)
			worst := answerBounds()[c.tool].worst()
			if int64(modern) > worst || int64(legacy) > worst {
				t.Errorf("answers of %d B (structured) and %d B (2025-03-26), over the worst answer of %d B", modern, legacy, worst)
			}
			t.Logf("%d B (structured), %d B (2025-03-26), of at most %d B", modern, legacy, worst)
		})
	}
	cases := callCases(t)
	// Every row's example too, so a tool without a row of its own in
	// answerBounds is held to the charge of every other request.
	for _, c := range exampleCalls() {
		cases = append(cases, callCase{name: c.Tool + " example", tool: c.Tool, args: string(c.Args)})
	}
	for _, c := range cases {
		if c.args == "-" {
			continue
		}
		t.Run("charge/"+c.name, func(t *testing.T) {
			modern, legacy, request := answerSizes(t, c.tool, json.RawMessage(c.args))
			if charge := AnswerBound("tools/call", c.tool, request); int64(max(modern, legacy)) > charge {
				t.Errorf("an answer of %d B to %d B of arguments, over its charge of %d B", max(modern, legacy), request, charge)
			}
		})
	}
}

// longPath is a path of MaxPathLength bytes, in segments a file system takes.
func longPath(prefix, suffix string) string {
	p := prefix
	for len(p)+200+1+len(suffix) < limit.MaxPathLength {
		p += strings.Repeat("a", 200) + "/"
	}
	return p + strings.Repeat("b", limit.MaxPathLength-len(p)-len(suffix)) + suffix
}

// hostileArguments are arguments of a tool that takes none, with more
// unknown names, each long, than the problems listed.
func hostileArguments() json.RawMessage {
	var b strings.Builder
	b.WriteString("{")
	for i := range 2 * limit.MaxProblems {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:1", strings.Repeat("<", 300)+strconv.Itoa(i))
	}
	b.WriteString("}")
	return json.RawMessage(b.String())
}

// TestAnswerBoundsCharge holds the admission charge between a small call's
// and the worst answer, and charges a tool outside the table as any request.
func TestAnswerBoundsCharge(t *testing.T) {
	for name, b := range answerBounds() {
		if got := AnswerBound("tools/call", name, 0); got > b.worst() || got <= 0 {
			t.Errorf("%s: a call of no bytes is charged %d B, outside (0, %d]", name, got, b.worst())
		}
		if got := AnswerBound("tools/call", name, 1<<40); got != b.worst() {
			t.Errorf("%s: a huge call is charged %d B, not its worst answer %d B", name, got, b.worst())
		}
	}
	if got := AnswerBound("tools/call", "an_embedders_tool", 10); got != otherAnswers.charge(10) {
		t.Errorf("a tool outside the table is charged %d B, not as other requests are", got)
	}
}

// TestCancelledEncodingStops: a call cancelled before its answer is encoded
// gets no answer built, only the cancellation, whatever the answer's size.
func TestCancelledEncodingStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, out := range []any{
		automium.ListAppsResult{CorpusVersion: "x"},
		automium.CompileJourneyResult{Valid: false},
		automium.PlaywrightSpec{Spec: strings.Repeat("a", 1<<20)},
	} {
		if body, err := encodeAnswer(ctx, out); err == nil || len(body) != 0 {
			t.Errorf("%T: encoded %d bytes, error %v; want nothing and the cancellation", out, len(body), err)
		}
		if _, err := answer(ctx, out, false); err == nil {
			t.Errorf("%T: a cancelled call was answered", out)
		}
	}
	body, err := encodeAnswer(context.Background(), automium.PlaywrightSpec{Spec: "<a>"})
	if want, _ := json.Marshal(automium.PlaywrightSpec{Spec: "<a>"}); err != nil || string(body) != string(want) {
		t.Errorf("encodeAnswer = %s, %v; want encoding/json's %s", body, err, want)
	}
}
