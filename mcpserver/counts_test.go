package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/automium/automium"
)

// snapshotArgs are the arguments of automium_compare_observed_trials with the
// example's trials as the text of their counts snapshot.
func snapshotArgs(t testing.TB) string {
	t.Helper()
	in := exampleCompareObservedTrials()
	in.Rows.All = true
	r, err := automium.CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	s, err := automium.SnapshotOf(r)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := automium.WriteCountsSnapshot(&text, s); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(map[string]any{"corpusVersion": in.CorpusVersion, "planners": in.Planners, "snapshot": text.String()})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// snapshotCases are the calls of the counts input over the wire.
func snapshotCases(t testing.TB) []callCase {
	args := snapshotArgs(t)
	return []callCase{
		{name: "compare observed counts from a snapshot", tool: "automium_compare_observed_trials", args: args},
		{name: "compare observed counts from a damaged snapshot", tool: "automium_compare_observed_trials",
			args:     strings.Replace(args, `\"runs\":`, `\"runs\":1`, 1),
			wantCode: automium.CodeInvalidArgument, wantField: "snapshot.digest"},
	}
}
