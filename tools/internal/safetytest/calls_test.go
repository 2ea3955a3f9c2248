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
