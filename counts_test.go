package automium

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
)

// countsEquivalence checks one trial input: the report of its snapshot's
// counts is, byte for byte, the report of its trials with every latency
// unknown, and its pairs (verdicts, intervals, Fisher p, flags) are the
// trials' own pairs.
func countsEquivalence(t *testing.T, name string, in CompareObservedTrialsInput) {
	t.Helper()
	ctx := context.Background()
	fromTrials, err := CompareObservedTrials(ctx, in)
	if err != nil {
		t.Fatalf("%s: trials: %v", name, err)
	}
	snap, err := SnapshotOf(fromTrials)
	if err != nil {
		t.Fatalf("%s: SnapshotOf: %v", name, err)
	}
	fromCounts, err := CompareObservedTrials(ctx, CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: snap.CorpusVersion, Planners: snap.Planners, Counts: snap.Counts})
	if err != nil {
		t.Fatalf("%s: counts: %v", name, err)
	}
	unknown := in
	unknown.MatchedRounds = false
	unknown.Trials = append([]Trial(nil), in.Trials...)
	for i := range unknown.Trials {
		unknown.Trials[i].LatencyUnknown, unknown.Trials[i].LatencyMs = true, 0
	}
	want, err := CompareObservedTrials(ctx, unknown)
	if err != nil {
		t.Fatalf("%s: trials without latency: %v", name, err)
	}
	if got, want := mustJSON(t, fromCounts), mustJSON(t, want); !bytes.Equal(got, want) {
		t.Errorf("%s: the report from counts differs from the trials' with latency unknown:\n%s", name, cmp.Diff(string(want), string(got)))
	}
	if !in.MatchedRounds {
		if got, want := mustJSON(t, fromCounts.Pairs), mustJSON(t, fromTrials.Pairs); !bytes.Equal(got, want) {
			t.Errorf("%s: pairs from counts differ from the trials':\n%s", name, cmp.Diff(string(want), string(got)))
		}
	}
	// And the snapshot survives its file form.
	var buf bytes.Buffer
	if err := WriteCountsSnapshot(&buf, snap); err != nil {
		t.Fatalf("%s: WriteCountsSnapshot: %v", name, err)
	}
	back, err := ReadCountsSnapshot(context.Background(), &buf)
	if err != nil {
		t.Fatalf("%s: ReadCountsSnapshot: %v", name, err)
	}
	if diff := cmp.Diff(snap, back); diff != "" {
		t.Errorf("%s: snapshot round trip (-wrote +read):\n%s", name, diff)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCountsEqualTrials runs the equivalence over the oracle's inputs (the
// same seeded generator and issue 26's cases, matched rounds included, whose
// counts pair by journeys), 100 more seeded inputs of up to 16 planners, and
// inputs with long rows.
func TestCountsEqualTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("a seeded sweep of 100 inputs and long rows; skipped with -short")
	}
	input := func(ids []string, trials []Trial, matched bool) CompareObservedTrialsInput {
		in := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Trials: trials, MatchedRounds: matched}
		for _, id := range ids {
			in.Planners = append(in.Planners, PlannerRef{ID: id, Vendor: "v", Model: "m"})
		}
		return in
	}
	rng := rand.New(rand.NewPCG(2026, 26)) // the oracle's inputs (TestOracleCases)
	for n := range 300 {
		ids, trials := randomTrials(rng, 2+n%3, 1+rng.IntN(30))
		matched := n%5 == 4
		if matched {
			for i := range trials {
				trials[i].Attempts = 0
			}
		}
		countsEquivalence(t, fmt.Sprintf("oracle random-%03d", n), input(ids, trials, matched))
	}
	for _, c := range whyCases() {
		countsEquivalence(t, "oracle "+c.name, input(c.planners, c.trials, false))
	}
	rng = rand.New(rand.NewPCG(38, 1))
	n := 100
	if testing.Short() {
		n = 40
	}
	for k := range n {
		ids, trials := randomTrials(rng, 1+k%limit.MaxPlanners, 1+rng.IntN(40))
		countsEquivalence(t, fmt.Sprintf("random-%03d", k), input(ids, trials, false))
	}
	// Rows of up to 100 runs: pass^k to 100, Fisher on large tables.
	for k := range 4 {
		var trials []Trial
		for j := range 6 {
			trials = append(trials, countsTrials("a", fmt.Sprintf("j%d", j), 90-7*j-k, 100, false)...)
			trials = append(trials, countsTrials("b", fmt.Sprintf("j%d", j), 60+5*j+k, 100-j, true)...)
		}
		countsEquivalence(t, fmt.Sprintf("long-%d", k), input([]string{"a", "b"}, trials, false))
	}
}

// TestCountsLongRows: rows of MaxCountRuns runs, which no trial input has,
// give finite figures and pass^k up to MaxRepetitions.
func TestCountsLongRows(t *testing.T) {
	in := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: []PlannerRef{{ID: "a", Vendor: "v", Model: "m"}, {ID: "b", Vendor: "v", Model: "m"}}}
	for j := range 12 {
		id := fmt.Sprintf("j%02d", j)
		in.Counts = append(in.Counts,
			JourneyCounts{PlannerID: "a", AppID: cmpApp, JourneyID: id, Runs: limit.MaxCountRuns, Passes: 480, FirstAttemptPasses: 470},
			JourneyCounts{PlannerID: "b", AppID: cmpApp, JourneyID: id, Runs: limit.MaxCountRuns, Passes: 250 + j, FirstAttemptPasses: 250 + j})
	}
	r, err := CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(r.Planners[0].Repeatability.PassAtK); got != limit.MaxRepetitions {
		t.Errorf("pass^k has %d values; want %d", got, limit.MaxRepetitions)
	}
	for rows, want := range map[int]int{1: 100, 1000: 100, 1001: 99, 12_500: 8, 100_000: 1} {
		if got := passAtKBound(rows); got != want {
			t.Errorf("passAtKBound(%d) = %d; want %d", rows, got, want)
		}
	}
	p := r.Pairs[0]
	if p.Verdict != PairABetter {
		t.Errorf("verdict %q; want %q", p.Verdict, PairABetter)
	}
	for _, row := range p.Journeys {
		if row.Flag != FlagRegressed || !(row.FisherP >= 0 && row.FisherP < 1e-6) {
			t.Errorf("journey %s: flag %q, Fisher p %v; want regressed with a tiny finite p", row.JourneyID, row.Flag, row.FisherP)
		}
	}
	// A balanced table at the bound: the weights stay finite (p is 1).
	if got := fisherExact(250, limit.MaxCountRuns, 250, limit.MaxCountRuns); got != 1 {
		t.Errorf("fisherExact(250/500, 250/500) = %v; want 1", got)
	}
}

// TestCountsProblems: each broken row is refused with its code and path.
func TestCountsProblems(t *testing.T) {
	valid := func() CompareObservedTrialsInput {
		return CompareObservedTrialsInput{Rows: RowSelection{All: true},
			CorpusVersion: CorpusVersion,
			Planners:      []PlannerRef{{ID: "a", Vendor: "v", Model: "m"}, {ID: "b", Vendor: "v", Model: "m"}},
			Counts: []JourneyCounts{
				{PlannerID: "a", AppID: cmpApp, JourneyID: "j1", Runs: 3, Passes: 2, FirstAttemptPasses: 1},
				{PlannerID: "b", AppID: cmpApp, JourneyID: "j1", Runs: 3, Passes: 3, FirstAttemptPasses: 3},
			},
		}
	}
	if _, err := CompareObservedTrials(context.Background(), valid()); err != nil {
		t.Fatalf("valid input: %v", err)
	}
	tests := []struct {
		name   string
		modify func(*CompareObservedTrialsInput)
		want   errShape
	}{
		{"neither trials nor counts", func(in *CompareObservedTrialsInput) { in.Counts = nil }, errShape{CodeInvalidArgument, "trials"}},
		{"both", func(in *CompareObservedTrialsInput) { in.Trials = []Trial{cmpTrial("a", "j1", 1)} }, errShape{CodeInvalidArgument, "counts"}},
		{"matched rounds", func(in *CompareObservedTrialsInput) { in.MatchedRounds = true }, errShape{CodeInvalidArgument, "matchedRounds"}},
		{"too many rows", func(in *CompareObservedTrialsInput) {
			in.Counts = make([]JourneyCounts, limit.MaxObservedCounts+1)
		}, errShape{CodeLimitExceeded, "counts"}},
		{"unknown planner", func(in *CompareObservedTrialsInput) { in.Counts[1].PlannerID = "c" }, errShape{CodeInvalidArgument, "counts[1].plannerId"}},
		{"planner without rows", func(in *CompareObservedTrialsInput) { in.Counts[1].PlannerID = "a"; in.Counts[1].JourneyID = "j2" }, errShape{CodeInvalidArgument, "planners[1]"}},
		{"duplicate row", func(in *CompareObservedTrialsInput) {
			in.Counts = append(in.Counts, in.Counts[0])
		}, errShape{CodeInvalidArgument, "counts[2].journeyId"}},
		{"no runs", func(in *CompareObservedTrialsInput) {
			in.Counts[0] = JourneyCounts{PlannerID: "a", AppID: cmpApp, JourneyID: "j1"}
		}, errShape{CodeInvalidArgument, "counts[0].runs"}},
		{"passes above runs", func(in *CompareObservedTrialsInput) { in.Counts[0].Passes = 4 }, errShape{CodeInvalidArgument, "counts[0].passes"}},
		{"first passes above passes", func(in *CompareObservedTrialsInput) { in.Counts[0].FirstAttemptPasses = 3 }, errShape{CodeInvalidArgument, "counts[0].firstAttemptPasses"}},
		{"negative runs", func(in *CompareObservedTrialsInput) { in.Counts[0].Runs = -1 }, errShape{CodeInvalidArgument, "counts[0].runs"}},
		{"runs above the bound", func(in *CompareObservedTrialsInput) { in.Counts[0].Runs = limit.MaxCountRuns + 1 }, errShape{CodeLimitExceeded, "counts[0].runs"}},
		{"tokens above the bound", func(in *CompareObservedTrialsInput) { in.Counts[0].InputTokens = limit.MaxCountTokens + 1 }, errShape{CodeLimitExceeded, "counts[0].inputTokens"}},
		{"tokens of unknown runs", func(in *CompareObservedTrialsInput) { in.Counts[0].TokensUnknown = 3; in.Counts[0].InputTokens = 5 }, errShape{CodeInvalidArgument, "counts[0].tokensUnknown"}},
		{"recovered without trigger", func(in *CompareObservedTrialsInput) { in.Counts[0].Recovered = 1 }, errShape{CodeInvalidArgument, "counts[0].recovered"}},
		{"triggered above runs", func(in *CompareObservedTrialsInput) { in.Counts[0].RecoveryTriggered = 4 }, errShape{CodeInvalidArgument, "counts[0].recoveryTriggered"}},
		{"journey on two apps", func(in *CompareObservedTrialsInput) { in.Counts[1].AppID = "docs-portal" }, errShape{CodeInvalidArgument, "counts[1].journeyId"}},
		{"unknown app", func(in *CompareObservedTrialsInput) { in.Counts[0].AppID = "nope" }, errShape{CodeInvalidAppID, "counts[0].appId"}},
		{"bad journey ID", func(in *CompareObservedTrialsInput) { in.Counts[0].JourneyID = "Not A Slug" }, errShape{CodeInvalidArgument, "counts[0].journeyId"}},
		{"invalid UTF-8", func(in *CompareObservedTrialsInput) { in.Counts[0].PlannerID = "a\xff" }, errShape{CodeInvalidArgument, "counts[0].plannerId"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := valid()
			tt.modify(&in)
			_, err := CompareObservedTrials(context.Background(), in)
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("err = %v; want an *Error", err)
			}
			if diff := cmp.Diff(tt.want, errShape{e.Code, e.Field}); diff != "" {
				t.Errorf("error (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

// TestReadCountsSnapshotHostile: every damaged or hostile snapshot is a coded,
// bounded error, never a panic.
func TestReadCountsSnapshotHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("every damaged snapshot; skipped with -short")
	}
	in := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: []PlannerRef{{ID: "a", Vendor: "v", Model: "m"}}, Trials: countsTrials("a", "j1", 2, 3, false)}
	r, err := CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := SnapshotOf(r)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteCountsSnapshot(&buf, snap); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	huge := strings.Repeat("x", 1<<20)
	tests := []struct {
		name string
		doc  string
		want errShape
	}{
		{"empty", "", errShape{CodeInvalidArgument, ""}},
		{"not JSON", "<xml/>", errShape{CodeInvalidArgument, ""}},
		{"truncated", good[:len(good)/2], errShape{CodeInvalidArgument, "counts[0].appId"}},
		{"array", "[]", errShape{CodeInvalidArgument, ""}},
		{"unknown member", strings.Replace(good, `"format"`, `"extra": 1, "format"`, 1), errShape{CodeInvalidArgument, "extra"}},
		{"case variant", strings.Replace(good, `"format"`, `"Format"`, 1), errShape{CodeInvalidArgument, "Format"}},
		{"duplicate member", strings.Replace(good, `"format"`, `"digest": "x", "format"`, 1), errShape{CodeInvalidArgument, "digest"}},
		{"long unknown name", strings.Replace(good, `"format"`, `"`+huge+`": 1, "format"`, 1), errShape{CodeLimitExceeded, ""}},
		{"deep nesting", strings.Repeat("[", 100_000), errShape{CodeInvalidArgument, ""}},
		{"invalid UTF-8", strings.Replace(good, `"v"`, "\"v\xff\"", 1), errShape{CodeInvalidArgument, "planners[0].vendor"}},
		{"wrong format", strings.Replace(good, CountsSnapshotVersion, "automium-counts-v9", 1), errShape{CodeInvalidArgument, "format"}},
		{"changed count", strings.Replace(good, `"runs":3`, `"runs":4`, 1), errShape{CodeInvalidArgument, "digest"}},
		{"impossible count", strings.Replace(good, `"passes":2`, `"passes":9`, 1), errShape{CodeInvalidArgument, "counts[0].passes"}},
		{"huge number", strings.Replace(good, `"runs":3`, `"runs":1e400`, 1), errShape{CodeInvalidArgument, "counts[0].runs"}},
		{"fraction", strings.Replace(good, `"runs":3`, `"runs":2.5`, 1), errShape{CodeInvalidArgument, "counts[0].runs"}},
		{"string count", strings.Replace(good, `"runs":3`, `"runs":"3"`, 1), errShape{CodeInvalidArgument, "counts[0].runs"}},
		{"missing digest", strings.Replace(good, `"digest"`, `"digest_"`, 1), errShape{CodeInvalidArgument, "digest_"}},
		{"two documents", good + good, errShape{CodeInvalidArgument, ""}},
		{"too big", "", errShape{CodeLimitExceeded, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r io.Reader = strings.NewReader(tt.doc)
			if tt.name == "too big" {
				r = io.MultiReader(strings.NewReader(good), spaces{})
			}
			_, err := ReadCountsSnapshot(context.Background(), r)
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("err = %v; want an *Error", err)
			}
			if diff := cmp.Diff(tt.want, errShape{e.Code, e.Field}); diff != "" {
				t.Errorf("error (-want +got):\n%s\n%v", diff, err)
			}
			t.Log(err)
			if n := len(err.Error()); n > 1000 {
				t.Errorf("error is %d bytes; want a short one", n)
			}
		})
	}
	// An escaped member name is the same name: JSON's meaning, not its bytes,
	// is what the digest covers.
	if _, err := ReadCountsSnapshot(context.Background(), strings.NewReader(strings.Replace(good, `"format"`, `"form\u0061t"`, 1))); err != nil {
		t.Errorf("a name spelled with an escape: %v", err)
	}
}

// spaces is an endless JSON whitespace reader.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestSnapshotOfRefusesModeled: modeled draws are no baseline.
func TestSnapshotOfRefusesModeled(t *testing.T) {
	r, err := ComparePlanners(context.Background(), ComparePlannersInput{CorpusVersion: CorpusVersion, AppIDs: []string{cmpApp}, Planners: []PlannerRef{{ID: "a", Vendor: "v", Model: "m"}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = SnapshotOf(r)
	if e, ok := err.(*Error); !ok || e.Code != CodeInvalidArgument || e.Field != "basis" {
		t.Errorf("SnapshotOf(modeled) = %v; want invalid_argument at basis", err)
	}
}

// TestSnapshotInput: the text of a snapshot is an input, as the MCP tool
// takes counts: its rows of the input's planners are compared, in the
// input's order, and its problems are placed under snapshot.
func TestSnapshotInput(t *testing.T) {
	ctx := context.Background()
	ids, trials := randomTrials(rand.New(rand.NewPCG(38, 2)), 3, 12)
	in := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Trials: trials}
	for _, id := range ids {
		in.Planners = append(in.Planners, PlannerRef{ID: id, Vendor: "v", Model: "m"})
	}
	r, err := CompareObservedTrials(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := SnapshotOf(r)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := WriteCountsSnapshot(&text, snap); err != nil {
		t.Fatal(err)
	}
	// Two of the three planners, in the other order.
	two := []PlannerRef{in.Planners[2], in.Planners[0]}
	var want CompareObservedTrialsInput
	want.CorpusVersion, want.Planners, want.Rows = CorpusVersion, two, RowSelection{All: true}
	for _, c := range snap.Counts {
		if c.PlannerID != in.Planners[1].ID {
			want.Counts = append(want.Counts, c)
		}
	}
	wantReport, err := CompareObservedTrials(ctx, want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := CompareObservedTrials(ctx, CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: two, Snapshot: text.String()})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustJSON(t, got), mustJSON(t, wantReport)) {
		t.Errorf("the snapshot's text gives another report than its counts")
	}
	tests := []struct {
		name string
		in   CompareObservedTrialsInput
		want errShape
	}{
		{"not JSON", CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: two, Snapshot: "{"}, errShape{CodeInvalidArgument, "snapshot"}},
		{"damaged", CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: two, Snapshot: strings.Replace(text.String(), `"runs":`, `"runs":1`, 1)}, errShape{CodeInvalidArgument, "snapshot.digest"}},
		{"with trials", CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: two, Snapshot: text.String(), Trials: trials}, errShape{CodeInvalidArgument, "snapshot"}},
		{"no planner of it", CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: []PlannerRef{{ID: "zz", Vendor: "v", Model: "m"}}, Snapshot: text.String()}, errShape{CodeInvalidArgument, "planners"}},
		{"a planner not in it", CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Planners: append(two, PlannerRef{ID: "zz", Vendor: "v", Model: "m"}), Snapshot: text.String()}, errShape{CodeInvalidArgument, "planners[2]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompareObservedTrials(ctx, tt.in)
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("err = %v; want an *Error", err)
			}
			if diff := cmp.Diff(tt.want, errShape{e.Code, e.Field}); diff != "" {
				t.Errorf("error (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

// TestNewCountsSnapshot: counts in any order give the snapshot SnapshotOf
// gives.
func TestNewCountsSnapshot(t *testing.T) {
	ids, trials := randomTrials(rand.New(rand.NewPCG(38, 3)), 4, 20)
	in := CompareObservedTrialsInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, Trials: trials}
	for _, id := range ids {
		in.Planners = append(in.Planners, PlannerRef{ID: id, Vendor: "v", Model: "m"})
	}
	r, err := CompareObservedTrials(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := SnapshotOf(r)
	if err != nil {
		t.Fatal(err)
	}
	shuffled := append([]JourneyCounts(nil), want.Counts...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	got, err := NewCountsSnapshot(CorpusVersion, in.Planners, shuffled)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NewCountsSnapshot (-SnapshotOf +got):\n%s", diff)
	}
	shuffled[0].Passes = shuffled[0].Runs + 1
	if _, err := NewCountsSnapshot(CorpusVersion, in.Planners, shuffled); err == nil {
		t.Error("NewCountsSnapshot took impossible counts")
	}
}

// TestScaleDocSQL: docs/scale.md shows the query CI runs on DuckDB, as it is.
func TestScaleDocSQL(t *testing.T) {
	sql, err := os.ReadFile("tools/duckcounts/counts.sql")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("docs/scale.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(doc, []byte("```sql\n"+string(sql)+"```")) {
		t.Error("docs/scale.md does not show tools/duckcounts/counts.sql as it is; copy the file into its sql block")
	}
}

// TestCountsOfExternalApps holds the trials of apps outside the corpus (ext:)
// to the counts path as well: their report has a snapshot, which compares as
// their trials do. Counts once took corpus app IDs only, so a report of ext:
// trials could not be kept as a baseline.
func TestCountsOfExternalApps(t *testing.T) {
	planners := []PlannerRef{{ID: "a", Vendor: "v", Model: "m"}, {ID: "b", Vendor: "v", Model: "m"}}
	var trials []Trial
	for j := range 12 {
		for _, p := range planners {
			trials = append(trials, Trial{PlannerID: p.ID, AppID: "ext:acme-notes", FixtureID: "ext:acme-notes-empty", JourneyID: fmt.Sprintf("notes-%d", j), Repetition: 1, Passed: p.ID == "a" || j%3 == 0})
		}
	}
	countsEquivalence(t, "ext: apps", CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: planners, Trials: trials, Rows: RowSelection{All: true}})
	for _, bad := range []string{"EXT:acme-notes", "ext:storefront", "ext:" + strings.Repeat("a", 125), "ext:a--b"} {
		_, err := CompareObservedTrials(context.Background(), CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: planners,
			Counts: []JourneyCounts{{PlannerID: "a", AppID: bad, JourneyID: "j", Runs: 1}, {PlannerID: "b", AppID: bad, JourneyID: "j", Runs: 1}}})
		if err == nil || !strings.Contains(err.Error(), "counts[0].appId") {
			t.Errorf("counts of app %q: %v, want a problem at counts[0].appId", bad, err)
		}
	}
}

// TestCountsPlannerTwins names a snapshot's or a counts row's planner in
// another case or character form: refused, naming the planner meant, as a
// trial naming one is.
func TestCountsPlannerTwins(t *testing.T) {
	planners := []PlannerRef{{ID: "base", Vendor: "v", Model: "m"}, {ID: "Cand", Vendor: "v", Model: "m"}}
	var trials []Trial
	for j := range 12 {
		for _, p := range planners {
			trials = append(trials, Trial{PlannerID: p.ID, AppID: "storefront", FixtureID: "storefront-guest-catalog", JourneyID: fmt.Sprintf("j%d", j), Repetition: 1, Passed: p.ID == "base"})
		}
	}
	ctx := context.Background()
	r, err := CompareObservedTrials(ctx, CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: planners, Trials: trials, Rows: RowSelection{All: true}})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := SnapshotOf(r)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := WriteCountsSnapshot(&text, snap); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		planners []PlannerRef
		want     string
	}{
		{"upper case", []PlannerRef{{ID: "BASE", Vendor: "v", Model: "m"}, {ID: "Cand", Vendor: "v", Model: "m"}}, `planners[0].id: "BASE" is not one of the snapshot's planners: it differs from the snapshot's planner "base" only in case`},
		{"fullwidth", []PlannerRef{{ID: "base", Vendor: "v", Model: "m"}, {ID: "ｃａｎｄ", Vendor: "v", Model: "m"}}, `planners[1].id: "ｃａｎｄ" is not one of the snapshot's planners: it differs from the snapshot's planner "Cand" only in case`},
		{"twins among the planners", []PlannerRef{{ID: "base", Vendor: "v", Model: "m"}, {ID: "Base", Vendor: "v", Model: "m"}}, `planners[1].id: planner ID "Base" differs from "base" (planners[0])`},
	}
	for _, tt := range tests {
		_, err := CompareObservedTrials(ctx, CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: tt.planners, Snapshot: text.String()})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v\nwant it to say %s", tt.name, err, tt.want)
		}
	}
	counts := append([]JourneyCounts(nil), snap.Counts...)
	counts[0].PlannerID = "BASE"
	_, err = CompareObservedTrials(ctx, CompareObservedTrialsInput{CorpusVersion: CorpusVersion, Planners: planners, Counts: counts})
	if want := `counts[0].plannerId: "BASE" is not one of the input's planners: it differs from planner "base" only in case`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a counts row naming a case variant: %v\nwant it to say %s", err, want)
	}
}
