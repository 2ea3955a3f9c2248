package automium

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/automium/automium/canonicaljson"
	"github.com/automium/automium/internal/adapter"
	"github.com/google/go-cmp/cmp"
)

// TestJourneyJSONMatchesReflection holds the two hand-written JSON forms of a
// compiled journey to the reflection encoders they stand for, byte for byte:
// its digest to canonicaljson.Marshal's (whose output the digest vectors hold
// to JavaScript's canonicalize) and the answer of a valid compile to
// encoding/json's, for every reference journey and for graphs that set every
// field, with strings that need escaping (HTML-significant, control, line
// separators), sort differently in UTF-16 than in UTF-8, or are not UTF-8.
func TestJourneyJSONMatchesReflection(t *testing.T) {
	var graphs []CompiledJourney
	for _, id := range ReferenceJourneyIDs() {
		in, _ := ReferenceJourney(id)
		res, err := CompileJourney(context.Background(), in)
		if err != nil || res.Journey == nil {
			t.Fatalf("compiling %s: %v", id, err)
		}
		graphs = append(graphs, *res.Journey)
	}
	full := everyFieldGraph()
	graphs = append(graphs, full, CompiledJourney{}, CompiledJourney{Nodes: []GraphNode{}, Edges: []GraphEdge{}})
	for _, text := range []string{"", `"quoted" \ back`, "\x00\x1f\b\t\n\f\r\x7f", "<>&\u2028\u2029", "日本語😀\ufb33\U0010ffff", "/", "a\xffb", "\xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf", "\ufffd\u00e9\u200b\ufeff"} {
		g := full
		g.Nodes = append([]GraphNode(nil), full.Nodes...)
		g.Edges = append([]GraphEdge(nil), full.Edges...)
		g.Goal, g.ID, g.Digest = text, text, text
		g.Nodes[0].Value, g.Nodes[0].Source = text, text
		g.Nodes[0].Target = &Target{Role: Role(text), Name: text}
		g.Edges[0].To = text
		graphs = append(graphs, g)
	}
	for i, g := range graphs {
		want, wantErr := digestOf(g)
		got, gotErr := journeyDigest(&g)
		if (gotErr != nil) != (wantErr != nil) || got != want {
			t.Errorf("graph %d (%.40q): journeyDigest = %q, %v; digestOf = %q, %v", i, g.Goal, got, gotErr, want, wantErr)
		}
		// The answer's form: what the MCP adapter writes for a valid
		// result, against encoding/json's bytes for the same result.
		res := CompileJourneyResult{Valid: true, Journey: &g}
		wantJSON, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []any{res, &res} {
			gotJSON, ok := adapter.AppendJSON([]byte("prefix"), v)
			if !ok || !bytes.HasPrefix(gotJSON, []byte("prefix")) {
				t.Fatalf("graph %d: AppendJSON(%T) = %v, %.20q; want the result after the prefix", i, v, ok, gotJSON)
			}
			if diff := cmp.Diff(string(wantJSON), string(gotJSON[len("prefix"):])); diff != "" {
				t.Errorf("graph %d (%.40q): AppendJSON(%T) (-encoding/json +hand-written):\n%s", i, g.Goal, v, diff)
			}
		}
	}
	// What the hand-written form does not write goes through encoding/json.
	for _, v := range []any{CompileJourneyResult{Errors: []Problem{{Code: CodeInvalidArgument}}}, CompileJourneyResult{Valid: true}, ListAppsResult{}, nil} {
		if got, ok := adapter.AppendJSON(nil, v); ok {
			t.Errorf("AppendJSON(%#v) = %q, true; want false", v, got)
		}
	}
	// Every field of the graph types is set in full, so a field added
	// without its line in journey_digest.go changes the digests above.
	var unset []string
	for _, v := range []any{full, full.Nodes[0], full.Nodes[0].Target, full.Nodes[0].Destination, full.Edges[0]} {
		rv := reflect.Indirect(reflect.ValueOf(v))
		for i := range rv.NumField() {
			if rv.Field(i).IsZero() {
				unset = append(unset, rv.Type().Name()+"."+rv.Type().Field(i).Name)
			}
		}
	}
	if diff := cmp.Diff([]string(nil), unset); diff != "" {
		t.Errorf("fields the test graph leaves unset (-want +got):\n%s", diff)
	}
}

// everyFieldGraph is a graph in which every field of every graph type is set,
// in its first node and edge; it need not be a valid journey.
func everyFieldGraph() CompiledJourney {
	return CompiledJourney{
		GraphVersion: JourneyGraphVersion, IntentVocabularyVersion: IntentVocabularyVersion, CorpusVersion: CorpusVersion,
		ID: "every-field", AppID: "storefront", FixtureID: "storefront-guest-catalog", Goal: "set every field",
		Entry: "n1", MaxRetries: 3, Digest: "sha256:" + strings.Repeat("0", 64),
		Nodes: []GraphNode{
			{ID: "n1", Kind: NodeKind("step"), Source: "steps[0]", Intent: IntentDragDrop, Target: &Target{Role: "listitem", Name: "Card"},
				Destination: &Target{Role: "list", Name: "Done"}, Value: "v", Assertion: AssertionKind("text_visible"),
				Strategies: []RecoveryStrategy{"retry_step", "reload_page"}},
			{ID: "n2", Kind: NodeKind("pass")},
		},
		Edges: []GraphEdge{{From: "n1", To: "n2", On: EdgeKind("retry"), MaxAttempts: 2}, {From: "n1", To: "n2", On: EdgeKind("success")}},
	}
}

// FuzzJourneyDigest holds journeyDigest to digestOf on graphs made of fuzzed
// strings and integers in every field, set or empty, nil or not: the same
// digest, and an error from one exactly when the other has one (a string
// that is not UTF-8, an integer beyond 2^53). The seeds are the escape
// classes, the UTF-16 order traps and the integer bounds.
func FuzzJourneyDigest(f *testing.F) {
	for _, s := range []string{"", `"\`, "\x00\x1f\b\t\n\f\r\x7f", "<>&\u2028\u2029\ufffd", "\U0001f600\ufb33", "\xed\xa0\x80", "a\xff", "\xf4\x90\x80\x80"} {
		f.Add(s, s, s, s, int64(0), int64(1<<53), uint8(0xff))
	}
	f.Add("a", "b", "c", "d", int64(-1<<53), int64(1<<53+1), uint8(0))
	f.Add("a", "b", "c", "d", int64(-1<<63), int64(1<<63-1), uint8(0x55))
	f.Fuzz(func(t *testing.T, a, b, c, d string, n, m int64, mask uint8) {
		on := func(bit uint) bool { return mask&(1<<bit) != 0 }
		target := func(bit uint, role, name string) *Target {
			if !on(bit) {
				return nil
			}
			return &Target{Role: Role(role), Name: name}
		}
		var strategies []RecoveryStrategy
		if on(2) {
			strategies = []RecoveryStrategy{RecoveryStrategy(a), RecoveryStrategy(d)}
		} else if on(3) {
			strategies = []RecoveryStrategy{}
		}
		g := CompiledJourney{
			GraphVersion: a, IntentVocabularyVersion: b, CorpusVersion: c, ID: d, AppID: a + b, FixtureID: b + c,
			Goal: c + d, Entry: d + a, MaxRetries: int(n), Digest: b,
			Nodes: []GraphNode{
				{ID: a, Kind: NodeKind(b), Source: c, Intent: Intent(d), Target: target(0, a, b), Destination: target(1, c, d),
					Value: a + d, Assertion: AssertionKind(b + c), Strategies: strategies},
				{ID: d, Kind: NodeKind(c)},
			},
			Edges: []GraphEdge{{From: a, To: b, On: EdgeKind(c), MaxAttempts: int(m)}, {From: d, To: c, On: EdgeKind(a)}},
		}
		if on(4) {
			g.Nodes = nil
		}
		if on(5) {
			g.Edges = nil
		} else if on(6) {
			g.Edges = []GraphEdge{}
		}
		want, wantErr := digestOf(g)
		got, gotErr := journeyDigest(&g)
		if (gotErr != nil) != (wantErr != nil) || got != want {
			t.Errorf("journeyDigest = %q, %v; digestOf = %q, %v", got, gotErr, want, wantErr)
		}
	})
}

// digestOfAnswer computes a digest the way docs/digests.md tells an outside
// verifier to: from the JSON of the answer, through RFC 8785, hashed with
// SHA-256. It shares no code with digestOf beyond canonicaljson's
// Canonicalize, which the JavaScript check of testdata/digests holds to an
// independent implementation.
func digestOfAnswer(t *testing.T, answer any) string {
	t.Helper()
	data, err := json.Marshal(answer)
	if err != nil {
		t.Fatal(err)
	}
	canonical, err := canonicaljson.Canonicalize(data)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestRowJSONMatchesReflection holds the hand-written JSON of a comparison's
// journey rows (writeSized, rowSizer) to encoding/json's bytes: every row of a full
// comparison with matched rounds, and rows that set every field, with
// strings that need escaping and numbers at each change of form.
func TestRowJSONMatchesReflection(t *testing.T) {
	in := ComparePlannersInput{Rows: RowSelection{All: true}, CorpusVersion: CorpusVersion, AppIDs: owned().appIDs, Repetitions: 7, Planners: []PlannerRef{
		{ID: "a<&>", Vendor: "v", Model: "m"}, {ID: "b", Vendor: "v", Model: "m"}}}
	report, err := ComparePlanners(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if whole, err := json.Marshal(report); err != nil || jsonSize(&report) != len(whole) {
		t.Errorf("jsonSize = %d, encoding/json wrote %d bytes (%v)", jsonSize(&report), len(whole), err)
	}
	var planner []PlannerJourneyRow
	for _, p := range report.Planners {
		planner = append(planner, p.JourneyRows...)
	}
	var pair []PairJourneyRow
	for _, p := range report.Pairs {
		pair = append(pair, p.Journeys...)
	}
	latency := 1234.5
	fullPlanner := PlannerJourneyRow{JourneyID: "j", AppID: "a", Runs: 1, Passes: 2, FirstAttemptPasses: 3, RescuedByRetry: 4, NotEvaluable: 5,
		PassAtK: []float64{1, 0.5}, MedianLatencyMs: &latency, LatencyUnknown: 6, InputTokens: 7, OutputTokens: 8, TokensUnknown: 9, RecoveryTriggered: 10, Recovered: 11}
	fullPair := PairJourneyRow{JourneyID: "j", ARuns: 1, APasses: 2, BRuns: 3, BPasses: 4, MatchedRuns: 5, APassedOnly: 6, BPassedOnly: 7, FisherP: 0.25, Flag: JourneyFlag("f")}
	planner = append(planner, fullPlanner, PlannerJourneyRow{}, PlannerJourneyRow{PassAtK: []float64{}})
	pair = append(pair, fullPair, PairJourneyRow{})
	texts := []string{`"quoted" \ back`, "\x00\x1f\b\t\n\f\r\x7f", "<>&\u2028\u2029", "日本語😀\U0010ffff", "a\xffb", "\xed\xa0\x80"}
	numbers := []float64{0, math.Copysign(0, -1), 1e-7, 1e-6, 123456789.125, 1e20, 1e21, 5e-324, math.MaxFloat64, -2.5e-9, 0.1 + 0.2}
	for i, text := range texts {
		x := numbers[i%len(numbers)]
		p := fullPlanner
		p.JourneyID, p.AppID, p.PassAtK, p.MedianLatencyMs = text, text, numbers, &x
		planner = append(planner, p)
		q := fullPair
		q.JourneyID, q.Flag, q.FisherP = text, JourneyFlag(text), numbers[(i+5)%len(numbers)]
		pair = append(pair, q)
	}
	for _, x := range numbers {
		q := fullPair
		q.FisherP = x
		pair = append(pair, q)
	}
	var w journeyWriter
	var sizer rowSizer
	check := func(ref rowRef, v any) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		rows, pairs := [][]PlannerJourneyRow{planner}, [][]PairJourneyRow{pair}
		var n int
		if ref.pair < 0 {
			n = writeSized(&w, plannerRowMembers, &planner[ref.index])
		} else {
			n = writeSized(&w, pairRowMembers, &pair[ref.index])
		}
		if n != len(want) || string(w.out) != string(want) {
			t.Errorf("row %+v: hand-written %d bytes %q, encoding/json %d bytes %q", ref, n, w.out, len(want), want)
		}
		for range 2 { // measured, then looked up
			if n := sizer.size(ref, rows, pairs); n != len(want) {
				t.Errorf("row %+v: size %d, encoding/json %d bytes %q", ref, n, len(want), want)
			}
		}
	}
	for i := range planner {
		check(rowRef{planner: 0, pair: -1, index: i}, &planner[i])
	}
	for i := range pair {
		check(rowRef{pair: 0, index: i}, &pair[i])
	}
	// Every field is set in the full rows, so a field added without its
	// line in compare_rows.go changes the bytes above.
	for _, v := range []any{fullPlanner, fullPair} {
		rv := reflect.ValueOf(v)
		for i := range rv.NumField() {
			if rv.Field(i).IsZero() {
				t.Errorf("%s.%s is not set in the full row", rv.Type().Name(), rv.Type().Field(i).Name)
			}
		}
	}
}

// TestJourneyDigestChunks holds the digest, which hashes the canonical form
// in chunks of digestChunk bytes, to digestOf's hash of the whole form, for
// graphs of several chunks whose values are long and whose multi-byte runes
// and escapes straddle every chunk boundary (each graph shifts them by one
// byte), and whose one string that is not UTF-8 comes after a chunk was
// hashed (the error must still be the answer).
func TestJourneyDigestChunks(t *testing.T) {
	units := []string{"😀", "日", "é", "\u2028", "\x00", `"`, `\`, "<", "a", "\ufb33"}
	shifts := 24
	if testing.Short() {
		shifts = 6
	}
	for shift := range shifts {
		for _, unit := range units {
			g := everyFieldGraph()
			base := g.Nodes[0]
			g.Nodes = nil
			text := strings.Repeat("x", shift) + strings.Repeat(unit, 3*digestChunk/len(unit))
			for i := range 8 {
				n := base
				n.ID = fmt.Sprintf("n%d", i)
				n.Value = text[:len(text)-i*len(unit)]
				n.Target = &Target{Role: "textbox", Name: strings.Repeat(unit, i+1)}
				g.Nodes = append(g.Nodes, n)
			}
			g.Goal = text
			want, wantErr := digestOf(g)
			got, gotErr := journeyDigest(&g)
			if wantErr != nil || gotErr != nil || got != want {
				t.Errorf("shift %d, unit %q: journeyDigest = %q, %v; digestOf = %q, %v", shift, unit, got, gotErr, want, wantErr)
			}
			g.Nodes[len(g.Nodes)-1].Value = "\xff" // not UTF-8, after several chunks
			if _, err := journeyDigest(&g); err == nil {
				t.Errorf("shift %d, unit %q: a value that is not UTF-8 past the first chunk has a digest", shift, unit)
			}
		}
	}
}
