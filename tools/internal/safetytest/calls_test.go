package safetytest

import (
	"encoding/json"
	"testing"

	"github.com/automium/automium"
)

// checkOutcome reports whether a response line ends the way c expects.
func checkOutcome(t testing.TB, c call, line []byte) {
	t.Helper()
	r := parse(t, line)
	got := wantResult
	switch {
	case r.Error != nil:
		got = wantRPCError
		if r.Error.Code == 0 {
			t.Errorf("%s: error code 0: %.300s", c.name, line)
		}
	case c.method == "tools/call":
		var tr toolResult
		if err := json.Unmarshal(r.Result, &tr); err != nil {
			t.Fatalf("%s: result is not a tool result: %v", c.name, err)
		}
		if tr.IsError {
			got = wantIsError
			if code := tr.errorCode(); code == "?" || code == string(automium.CodeInternal) {
				t.Errorf("%s: isError without a usable automium error code: %.300s", c.name, line)
			}
		} else if tr.StructuredContent == nil {
			t.Errorf("%s: a successful tool result without structuredContent: %.300s", c.name, line)
		}
	}
	if got != c.want {
		t.Errorf("%s: got %v, want %v: %.500s", c.name, got, c.want, line)
	}
}

// TestSessionCallsEveryTool: the scripted session, which the strace tests
// trace and the memory, concurrency and determinism tests replay, calls every
// tool the server lists with arguments it accepts. SECURITY.md promises that
// the traced session calls every tool; the session takes each tool's call
// from the tool table's row, and this test fails when it misses one.
func TestSessionCallsEveryTool(t *testing.T) {
	listed, err := listTools()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, tl := range listed {
		want = append(want, tl.Name)
	}
	called := map[string]bool{}
	for _, c := range toolCalls() {
		var p struct{ Name string }
		if err := json.Unmarshal(c.params, &p); err != nil {
			t.Fatal(err)
		}
		if c.want == wantResult {
			called[p.Name] = true
		}
	}
	var missed []string
	for _, name := range want {
		if !called[name] {
			missed = append(missed, name)
		}
	}
	if len(missed) > 0 || len(want) == 0 {
		t.Errorf("the scripted session never calls %v with good arguments (of the %d tools listed)", missed, len(want))
	}
}
