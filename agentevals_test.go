package automium

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/zstd"

	"github.com/automium/automium/internal/limit"
)

// The samples of testdata/agent-evals (README.md there): real files Inspect
// AI and τ²-bench wrote. Their journeys are no reference journeys, so the
// mappings name an app and fixture of the corpus for them.
const agentEvalDir = "testdata/agent-evals"

var (
	inspectMapping = ReportMapping{
		Planner: ReportSource{From: FromProject},
		Journey: ReportSource{From: FromAnnotation, Name: "id"},
		AppID:   "helpdesk", FixtureID: "helpdesk-agent-queue",
	}
	tau2Mapping = ReportMapping{
		Planner: ReportSource{From: FromProject},
		Journey: ReportSource{From: FromAnnotation, Name: "task_id"},
		AppID:   "helpdesk", FixtureID: "helpdesk-agent-queue",
	}
)

// agentEvalCount is what one sample file holds, as the samples' README and
// count_outcomes.py count it.
type agentEvalCount struct {
	Trials, Pass, Fail, NotEvaluable int
	Tokens                           int // input + output; -1 when unknown
	LatencyKnown                     int
}

func readAgentEval(t testing.TB, name string) (ImportedTrials, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(agentEvalDir, name))
	if err != nil {
		t.Fatal(err)
	}
	format, m := FormatInspectAI, inspectMapping
	if strings.HasPrefix(name, "tau2/") {
		format, m = FormatTau2, tau2Mapping
	}
	return ReadReports(context.Background(), m, ReportReader{Format: format, R: bytes.NewReader(data)})
}

func countOf(read ImportedTrials) agentEvalCount {
	c := agentEvalCount{Trials: len(read.Trials), Tokens: -1}
	for _, tr := range read.Trials {
		switch {
		case tr.NotEvaluable:
			c.NotEvaluable++
		case tr.Passed:
			c.Pass++
		default:
			c.Fail++
		}
		if !tr.TokensUnknown {
			c.Tokens = max(c.Tokens, 0) + tr.InputTokens + tr.OutputTokens
		}
		if !tr.LatencyUnknown {
			c.LatencyKnown++
		}
	}
	return c
}

// TestAgentEvalSamples: each real file reads to the counts its README states
// (and count_outcomes.py recounts: TestAgentEvalCountsMatchPython).
func TestAgentEvalSamples(t *testing.T) {
	t.Parallel() // it waits for python3
	tests := []struct {
		file    string
		want    agentEvalCount
		planner string
	}{
		{"inspect/2025-05-12T20-28-13-04-00_popularity.json", agentEvalCount{Trials: 3, Pass: 2, Fail: 1, Tokens: 198, LatencyKnown: 3}, "openai/gpt-4o-mini"},
		{"inspect/log_streaming.eval", agentEvalCount{Trials: 4, Pass: 3, Fail: 1, Tokens: 258}, "azureai/Meta-Llama-3-1-405B-Instruct-jqf"},
		{"inspect/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval", agentEvalCount{Trials: 10, Pass: 8, Fail: 2, Tokens: 640}, "openai/gpt-4o-mini"},
		// Unscored: no verdict, so not evaluable.
		{"inspect/2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval", agentEvalCount{Trials: 10, NotEvaluable: 10, Tokens: 640}, "openai/gpt-4o-mini"},
		{"tau2/gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json", agentEvalCount{Trials: 20, Pass: 16, Fail: 4, Tokens: 1_759_244, LatencyKnown: 20}, "gpt-4.1-2025-04-14"},
		{"tau2/gpt-4.1_telecom_default_gpt-4.1_1trials.subset-7tasks.json", agentEvalCount{Trials: 7, Pass: 2, Fail: 5, Tokens: tau2Tokens(t, "tau2/gpt-4.1_telecom_default_gpt-4.1_1trials.subset-7tasks.json"), LatencyKnown: 7}, "gpt-4.1"},
		{"tau2/ft-gpt-4.1-2025-04-14-sierra-tau2-full-sft-BzrYdMNm_telecom_default_gpt-4.1_1trials.subset-7tasks.json", agentEvalCount{Trials: 7, Pass: 5, Fail: 2, Tokens: tau2Tokens(t, "tau2/ft-gpt-4.1-2025-04-14-sierra-tau2-full-sft-BzrYdMNm_telecom_default_gpt-4.1_1trials.subset-7tasks.json"), LatencyKnown: 7}, "ft:gpt-4.1-2025-04-14:sierra:tau2-full-sft:BzrYdMNm"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			read, err := readAgentEval(t, tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, countOf(read)); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
			if read.NotEvaluable != tc.want.NotEvaluable || read.Tests != tc.want.Trials {
				t.Errorf("import: tests %d, notEvaluable %d", read.Tests, read.NotEvaluable)
			}
			for _, tr := range read.Trials {
				if tr.PlannerID != tc.planner || !slugID(tr.JourneyID) || tr.Repetition < 1 {
					t.Fatalf("trial %+v: want planner %s, a journey ID, a repetition", tr, tc.planner)
				}
			}
		})
	}
}

// tau2Tokens sums the assistant messages' usage of a τ² file with
// encoding/json, apart from the reader: the 4-trial file's 1,759,244 is the
// README's figure, the others are this sum. One python3 run sums every file.
func tau2Tokens(t *testing.T, name string) int {
	t.Helper()
	sums, err := tau2TokenSums()
	if err != nil {
		requireTool(t, "python3", err)
		return -1
	}
	n, ok := sums[filepath.Join(agentEvalDir, name)]
	if !ok {
		t.Fatalf("python3 summed no %s", name)
	}
	return n
}

var tau2TokenSums = sync.OnceValues(func() (map[string]int, error) {
	files, err := filepath.Glob(filepath.Join(agentEvalDir, "tau2", "*.json"))
	if err != nil {
		return nil, err
	}
	out, err := exec.Command("python3", append([]string{"-c", `
import json,sys
for f in sys.argv[1:]:
	d=json.load(open(f))
	print(f, sum(m["usage"]["prompt_tokens"]+m["usage"]["completion_tokens"] for s in d["simulations"] for m in s["messages"] if m["role"]=="assistant" and m.get("usage")))
`}, files...)...).Output()
	if err != nil {
		return nil, err
	}
	sums := make(map[string]int)
	for line := range strings.Lines(string(out)) {
		f, n, _ := strings.Cut(strings.TrimSpace(line), " ")
		if sums[f], err = strconv.Atoi(n); err != nil {
			return nil, fmt.Errorf("python3 printed %q: %v", line, err)
		}
	}
	return sums, nil
})

// requireTool skips a test that needs an outside program when it is absent,
// unless AUTOMIUM_REQUIRE_TOOLS is set, as .ci/run sets it: there the
// independent check must run.
func requireTool(t *testing.T, tool string, err error) {
	t.Helper()
	if os.Getenv("AUTOMIUM_REQUIRE_TOOLS") != "" {
		t.Fatalf("%s: %v (AUTOMIUM_REQUIRE_TOOLS is set: .ci/run installs it)", tool, err)
	}
	t.Skipf("%s is not available here (%v); .ci/run installs it and sets AUTOMIUM_REQUIRE_TOOLS", tool, err)
}

// TestAgentEvalCountsMatchPython: count_outcomes.py, standard library Python
// that shares no code with the readers, recounts every sample; its pass,
// fail and not-evaluable (with unscored) counts, and Inspect's tokens, are
// the Go readers' counts.
func TestAgentEvalCountsMatchPython(t *testing.T) {
	t.Parallel() // it waits for python3
	out, err := exec.Command("python3", filepath.Join(agentEvalDir, "count_outcomes.py"), agentEvalDir).Output()
	if err != nil {
		requireTool(t, "python3", err)
	}
	// Each file's block: its name, then "tokens=N" (Inspect) and
	// "outcomes={'fail': 1, 'pass': 2}".
	blocks := regexp.MustCompile(`(?m)^(\S+\.(?:json|eval))$`).FindAllStringSubmatchIndex(string(out), -1)
	if len(blocks) != 7 {
		t.Fatalf("count_outcomes.py printed %d files, want 7:\n%s", len(blocks), out)
	}
	outcome := regexp.MustCompile(`'(\w+)': (\d+)`)
	for i, bl := range blocks {
		name := string(out[bl[2]:bl[3]])
		end := len(out)
		if i+1 < len(blocks) {
			end = blocks[i+1][0]
		}
		text := string(out[bl[1]:end])
		_, outcomes, _ := strings.Cut(text, "outcomes={")
		outcomes, _, _ = strings.Cut(outcomes, "}")
		py := agentEvalCount{Tokens: -1}
		for _, m := range outcome.FindAllStringSubmatch(outcomes, -1) {
			n, _ := strconv.Atoi(m[2])
			switch m[1] {
			case "pass":
				py.Pass += n
			case "fail":
				py.Fail += n
			case "not_evaluable", "unscored":
				py.NotEvaluable += n
			default:
				t.Fatalf("%s: outcome %s has no counterpart", name, m[1])
			}
			py.Trials += n
		}
		dir := "tau2/"
		if m := regexp.MustCompile(`tokens=(\d+)`).FindStringSubmatch(text); m != nil {
			py.Tokens, _ = strconv.Atoi(m[1])
			dir = "inspect/"
		}
		read, err := readAgentEval(t, dir+name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := countOf(read)
		got.LatencyKnown = 0
		// τ²'s durations, summed by Python, are the trials' latencies (each
		// rounded to the millisecond).
		if m := regexp.MustCompile(`sum_duration_s=([0-9.]+)`).FindStringSubmatch(text); m != nil {
			want, _ := strconv.ParseFloat(m[1], 64)
			ms := 0
			for _, tr := range read.Trials {
				ms += tr.LatencyMs
			}
			if math.Abs(float64(ms)/1000-want) > 0.05+0.0005*float64(len(read.Trials)) {
				t.Errorf("%s: latencies sum to %d ms; Python's durations to %g s", name, ms, want)
			}
		}
		if py.Tokens < 0 {
			got.Tokens = -1
		}
		if diff := cmp.Diff(py, got); diff != "" {
			t.Errorf("%s: Python's counts (-) against the Go reader's (+):\n%s", name, diff)
		}
		t.Logf("%s: %+v", name, got)
	}
}

// TestTau2PassHatK: pass^k recomputed from the 4-trial file's trials, by
// hand here and by the comparison's own pass^k, is the published 0.80 for
// k = 1..4.
func TestTau2PassHatK(t *testing.T) {
	const name = "tau2/gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json"
	read, err := readAgentEval(t, name)
	if err != nil {
		t.Fatal(err)
	}
	runs, passes := map[string]int{}, map[string]int{}
	for _, tr := range read.Trials {
		runs[tr.JourneyID]++
		passes[tr.JourneyID] += b2i(tr.Passed)
	}
	choose := func(n, k int) float64 {
		c := 1.0
		for i := range k {
			c = c * float64(n-i) / float64(i+1)
		}
		return c
	}
	for k := 1; k <= 4; k++ {
		sum := 0.0
		for j, n := range runs {
			sum += choose(passes[j], k) / choose(n, k)
		}
		if got := sum / float64(len(runs)); math.Abs(got-0.80) > 1e-12 {
			t.Errorf("pass^%d = %g; published 0.80", k, got)
		}
	}
	data, _ := os.ReadFile(filepath.Join(agentEvalDir, name))
	got, err := CompareReports(context.Background(), CompareReportsInput{
		CorpusVersion: CorpusVersion,
		Planners:      []PlannerRef{{ID: "gpt-4.1-2025-04-14", Vendor: "openai", Model: "gpt-4.1-2025-04-14"}},
		Reports:       []ReportContent{{Format: FormatTau2, Content: string(data)}},
		Mapping:       tau2Mapping,
	})
	if err != nil {
		t.Fatal(err)
	}
	pk := got.Comparison.Planners[0].Repeatability.PassAtK
	if len(pk) != 4 {
		t.Fatalf("pass^k for k = 1..%d; want 1..4", len(pk))
	}
	for _, p := range pk {
		if math.Abs(p.Value-0.80) > 1e-12 {
			t.Errorf("comparison pass^%d = %g; published 0.80", p.K, p.Value)
		}
	}
}

// TestAgentEvalCompareReports: the base and fine-tuned τ² subsets, and the
// Llama and gpt-4o-mini Inspect logs (a .eval as base64, a JSON log as
// text), compare end to end through CompareReports.
func TestAgentEvalCompareReports(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(agentEvalDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	base, ft := "gpt-4.1", "ft:gpt-4.1-2025-04-14:sierra:tau2-full-sft:BzrYdMNm"
	got, err := CompareReports(context.Background(), CompareReportsInput{
		CorpusVersion: CorpusVersion,
		Planners:      []PlannerRef{{ID: base, Vendor: "openai", Model: "gpt-4.1"}, {ID: ft, Vendor: "openai", Model: ft}},
		Reports: []ReportContent{
			{Format: FormatTau2, Content: read("tau2/gpt-4.1_telecom_default_gpt-4.1_1trials.subset-7tasks.json")},
			{Format: FormatTau2, Content: read("tau2/ft-gpt-4.1-2025-04-14-sierra-tau2-full-sft-BzrYdMNm_telecom_default_gpt-4.1_1trials.subset-7tasks.json")},
		},
		Mapping: tau2Mapping,
	})
	if err != nil {
		t.Fatal(err)
	}
	c := got.Comparison
	if got.Import.TrialCount != 14 || c.Planners[0].PassRate.Successes != 2 || c.Planners[1].PassRate.Successes != 5 {
		t.Fatalf("import %+v, passes %d and %d; want 14 trials, 2 and 5", got.Import, c.Planners[0].PassRate.Successes, c.Planners[1].PassRate.Successes)
	}
	// The README's 2x2: 2 both pass, 3 only the fine-tuned passes, 2 both
	// fail; the mean difference base - fine-tuned is -3/7.
	if p := c.Pairs[0]; p.SharedJourneys != 7 || math.Abs(p.MeanDifference+3.0/7) > 1e-6 {
		t.Errorf("pair: shared %d, mean difference %g; want 7 and %g", p.SharedJourneys, p.MeanDifference, -3.0/7)
	}

	llama, mini := "azureai/Meta-Llama-3-1-405B-Instruct-jqf", "openai/gpt-4o-mini"
	got, err = CompareReports(context.Background(), CompareReportsInput{
		CorpusVersion: CorpusVersion,
		Planners:      []PlannerRef{{ID: llama, Vendor: "azureai", Model: "Meta-Llama-3-1-405B-Instruct"}, {ID: mini, Vendor: "openai", Model: "gpt-4o-mini"}},
		Reports: []ReportContent{
			{Format: FormatInspectAI, Encoding: "base64", Content: base64.StdEncoding.EncodeToString([]byte(read("inspect/log_streaming.eval")))},
			{Format: FormatInspectAI, Content: read("inspect/2025-05-12T20-28-13-04-00_popularity.json")},
		},
		Mapping: inspectMapping,
	})
	if err != nil {
		t.Fatal(err)
	}
	c = got.Comparison
	// Samples 1 and 2 are shared: Llama 1 of 2 and 2 of 2 first-attempt
	// passes, gpt-4o-mini both pass; sample 3 only gpt-4o-mini ran.
	if p := c.Pairs[0]; p.SharedJourneys != 2 || p.JourneysOnlyB != 1 || math.Abs(p.MeanDifference+0.25) > 1e-12 {
		t.Errorf("pair: shared %d, only B %d, mean difference %g; want 2, 1, -0.25", p.SharedJourneys, p.JourneysOnlyB, p.MeanDifference)
	}
	if got.Import.TrialCount != 7 {
		t.Errorf("import %+v; want 7 trials", got.Import)
	}
}

// TestInspectZstd: the scored .eval, its entries transcoded to Zstandard
// (zip method 93, Inspect's default since 0.3.206) by the zstd command-line
// tool, an independent producer, reads to the same trials as the deflate
// original.
func TestInspectZstd(t *testing.T) {
	t.Parallel() // it waits for zstd
	if _, err := exec.LookPath("zstd"); err != nil {
		requireTool(t, "zstd", err)
	}
	for _, name := range []string{"inspect/log_streaming.eval", "inspect/2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"} {
		data, err := os.ReadFile(filepath.Join(agentEvalDir, name))
		if err != nil {
			t.Fatal(err)
		}
		transcoded := zstdZip(t, data)
		want, err := TrialsFromInspectLog(context.Background(), bytes.NewReader(data), inspectMapping)
		if err != nil {
			t.Fatal(err)
		}
		got, err := TrialsFromInspectLog(context.Background(), bytes.NewReader(transcoded), inspectMapping)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: zstd against deflate (-want +got):\n%s", name, diff)
		}
	}
	// A frame that asks for a 128 MiB window (the CLI's --long=27, the
	// size unknown from a pipe) is refused: the decoder's memory stays
	// within one entry's bound.
	data, err := os.ReadFile(filepath.Join(agentEvalDir, "inspect/log_streaming.eval"))
	if err != nil {
		t.Fatal(err)
	}
	// Only the headers (header.json, _journal/start.json: a read reads one)
	// are so compressed, from a pipe (from a file zstd fits the window to the
	// size); the rest is stored.
	wide := transcodeZip(t, data, func(raw []byte) (uint16, []byte) {
		if !bytes.HasPrefix(raw, []byte("{")) || !bytes.Contains(raw, []byte(`"eval"`)) {
			return zip.Store, raw
		}
		cmd := exec.Command("zstd", "-q", "-c", "--long=27", "--no-content-size")
		cmd.Stdin = bytes.NewReader(raw)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return zipMethodZstd, out
	})
	_, err = TrialsFromInspectLog(context.Background(), bytes.NewReader(wide), inspectMapping)
	var ae *Error
	if !errors.As(err, &ae) || ae.Code != CodeLimitExceeded || !strings.Contains(ae.Message, "window") {
		t.Errorf("a 128 MiB window: err = %v; want limit_exceeded naming the window", err)
	}
}

// zstdZip transcodes every entry of a zip to Zstandard with one run of the
// zstd command-line tool over all of them (one run per entry cost a second).
func zstdZip(t testing.TB, data []byte, flags ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	var files []string
	transcodeZip(t, data, func(raw []byte) (uint16, []byte) {
		name := filepath.Join(dir, strconv.Itoa(len(files)))
		if err := os.WriteFile(name, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
		return zip.Store, raw
	})
	cmd := exec.Command("zstd", append(append([]string{"-q"}, flags...), files...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("zstd: %v\n%s", err, out)
	}
	i := 0
	return transcodeZip(t, data, func([]byte) (uint16, []byte) {
		out, err := os.ReadFile(files[i] + ".zst")
		if err != nil {
			t.Fatal(err)
		}
		i++
		return zipMethodZstd, out
	})
}

// transcodeZip rewrites every entry of a zip with compress, keeping names,
// order and CRC-32s.
func transcodeZip(t testing.TB, data []byte, compress func(raw []byte) (uint16, []byte)) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		method, body := compress(raw)
		w, err := zw.CreateRaw(&zip.FileHeader{Name: f.Name, Method: method, CRC32: f.CRC32, CompressedSize64: uint64(len(body)), UncompressedSize64: uint64(len(raw))})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// inspectArchive is a .eval of a header and the given entries, deflated.
func inspectArchive(t testing.TB, entries ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range append([][2]string{{"header.json", `{"eval":{"model":"m"}}`}}, entries...) {
		w, err := zw.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, e[1])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const inspectSample = `{"id":1,"epoch":1,"scores":{"match":{"value":"C"}}}`

// TestInspectArchiveBounds: every bound of the archive reader holds, each
// with its coded error: the entries of the central directory, an entry's
// decompressed size (claimed or real, the zip bomb), all entries' together,
// the compression methods, a damaged entry, and the document bounds inside.
func TestInspectArchiveBounds(t *testing.T) {
	spaces := func(n int) string { return `{"id":1,"epoch":1,` + strings.Repeat(" ", n) + `"scores":{}}` }
	many := make([][2]string, limit.MaxArchiveEntries)
	for i := range many {
		many[i] = [2]string{fmt.Sprintf("x/%d", i), ""}
	}
	// Entries alike whose sum is over the bound, deflated once.
	total := func() []byte {
		one := inspectArchive(t, [2]string{"samples/0_epoch_1.json", spaces(limit.MaxArchiveEntryBytes - 64)})
		zr, err := zip.NewReader(bytes.NewReader(one), int64(len(one)))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := zr.File[1].OpenRaw()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(raw)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		if err := zw.Copy(zr.File[0]); err != nil {
			t.Fatal(err)
		}
		for i := range limit.MaxArchiveBytes/(limit.MaxArchiveEntryBytes-64) + 1 {
			h := zr.File[1].FileHeader
			h.Name = fmt.Sprintf("samples/%d_epoch_1.json", i)
			w, err := zw.CreateRaw(&h)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(body)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}()
	// A bomb whose central directory says it is small: archive/zip stops
	// at the size claimed, and the reader says the entry is damaged.
	bomb := lieAboutSize(t, inspectArchive(t, [2]string{"samples/1_epoch_1.json", spaces(limit.MaxArchiveEntryBytes + 1)}), "samples/1_epoch_1.json")
	crc := transcodeZip(t, inspectArchive(t, [2]string{"samples/1_epoch_1.json", inspectSample}), func(raw []byte) (uint16, []byte) {
		return zip.Store, bytes.Replace(raw, []byte(`"C"`), []byte(`"I"`), 1)
	})
	bzip := transcodeZip(t, inspectArchive(t), func(raw []byte) (uint16, []byte) { return 12, raw })
	deep := `{"id":1,"epoch":1,"x":` + strings.Repeat("[", limit.MaxDocumentDepth+1) + strings.Repeat("]", limit.MaxDocumentDepth+1) + `}`
	tests := []struct {
		name string
		data []byte
		code Code
		want string
	}{
		{"entries", inspectArchive(t, many...), CodeLimitExceeded, "entries; an archive may have at most"},
		{"bomb claimed", inspectArchive(t, [2]string{"samples/1_epoch_1.json", spaces(limit.MaxArchiveEntryBytes + 1)}), CodeLimitExceeded, "says it holds"},
		{"bomb real", bomb, CodeInvalidArgument, "does not match its central directory record"},
		{"total", total, CodeLimitExceeded, "decompresses to more than"},
		{"method", bzip, CodeInvalidArgument, "zip method 12"},
		{"crc", crc, CodeInvalidArgument, "does not match its central directory record"},
		{"depth", inspectArchive(t, [2]string{"samples/1_epoch_1.json", deep}), CodeLimitExceeded, ""},
		{"not a zip", []byte("PK\x03\x04 nothing"), CodeInvalidArgument, "is not a zip archive"},
		{"no header", func() []byte {
			var b bytes.Buffer
			zw := zip.NewWriter(&b)
			zw.Create("samples/1_epoch_1.json")
			zw.Close()
			return b.Bytes()
		}(), CodeInvalidArgument, "neither header.json"},
		{"too large", append([]byte("PK"), make([]byte, limit.MaxPlaywrightReportBytes)...), CodeLimitExceeded, "is larger than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TrialsFromInspectLog(context.Background(), bytes.NewReader(tc.data), inspectMapping)
			var ae *Error
			if !errors.As(err, &ae) || ae.Code != tc.code || !strings.Contains(ae.Message, tc.want) {
				t.Fatalf("err = %v; want %s with %q", err, tc.code, tc.want)
			}
		})
	}
}

// lieAboutSize sets the uncompressed size the central directory and the
// local header give for an entry to 1 byte.
func lieAboutSize(t testing.TB, data []byte, name string) []byte {
	t.Helper()
	out := bytes.Clone(data)
	for _, h := range []struct {
		magic                   string
		sizeAt, nameLen, nameAt int
	}{{"PK\x01\x02", 24, 28, 46}, {"PK\x03\x04", 22, 26, 30}} {
		for i := bytes.Index(out, []byte(h.magic)); i >= 0; {
			n := int(out[i+h.nameLen]) | int(out[i+h.nameLen+1])<<8
			if i+h.nameAt+n <= len(out) && string(out[i+h.nameAt:i+h.nameAt+n]) == name {
				copy(out[i+h.sizeAt:], []byte{1, 0, 0, 0})
			}
			j := bytes.Index(out[i+4:], []byte(h.magic))
			if j < 0 {
				break
			}
			i += 4 + j
		}
	}
	return out
}

// TestInspectSampleOutcomes: which values pass, what is not evaluable, and
// the mapping's passScores, over a JSON log.
func TestInspectSampleOutcomes(t *testing.T) {
	log := func(samples ...string) string {
		return `{"version":2,"eval":{"model":"m"},"samples":[` + strings.Join(samples, ",") + `]}`
	}
	sample := func(id int, rest string) string {
		return fmt.Sprintf(`{"id":%d,"epoch":1%s}`, id, rest)
	}
	tests := []struct {
		name   string
		value  string
		pass   []string
		passed bool
		notEv  bool
	}{
		{"C", `,"scores":{"s":{"value":"C"}}`, nil, true, false},
		{"I", `,"scores":{"s":{"value":"I"}}`, nil, false, false},
		{"P", `,"scores":{"s":{"value":"P"}}`, nil, false, false},
		{"1.0", `,"scores":{"s":{"value":1.0}}`, nil, true, false},
		{"0", `,"scores":{"s":{"value":0}}`, nil, false, false},
		{"true", `,"scores":{"s":{"value":true}}`, nil, true, false},
		{"0.5 mapped", `,"scores":{"s":{"value":0.5}}`, []string{"0.50", "C"}, true, false},
		{"C unmapped", `,"scores":{"s":{"value":"C"}}`, []string{"1"}, false, false},
		{"bare NaN", `,"scores":{"s":{"value":NaN}}`, nil, false, true},
		{"null", `,"scores":{"s":{"value":null}}`, nil, false, true},
		{"no scores", ``, nil, false, true},
		{"empty scores", `,"scores":{}`, nil, false, true},
		{"list", `,"scores":{"s":{"value":[1]}}`, nil, false, false},
		{"first scorer", `,"scores":{"a":{"value":"I"},"b":{"value":"C"}}`, nil, false, false},
		{"error", `,"scores":{"s":{"value":"C"}},"error":{"message":"boom"}`, nil, false, true},
		{"NaN in a string", `,"scores":{"s":{"value":"NaN"}}`, nil, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := inspectMapping
			m.PassScores = tc.pass
			got, err := TrialsFromInspectLog(context.Background(), strings.NewReader(log(sample(1, tc.value))), m)
			if err != nil {
				t.Fatal(err)
			}
			if tr := got.Trials[0]; tr.Passed != tc.passed || tr.NotEvaluable != tc.notEv {
				t.Errorf("passed %v, not evaluable %v; want %v, %v", tr.Passed, tr.NotEvaluable, tc.passed, tc.notEv)
			}
		})
	}
}

// TestAgentEvalProblems: what the readers refuse, coded, at the place.
func TestAgentEvalProblems(t *testing.T) {
	tests := []struct {
		name   string
		format ReportFormat
		m      ReportMapping
		doc    string
		field  string
		want   string
	}{
		{"tau2 no simulations", FormatTau2, tau2Mapping, `{"info":{}}`, "report", "is not a τ²-bench results file"},
		{"tau2 both lists", FormatTau2, tau2Mapping, `{"simulations":[],"simulation_index":[]}`, "report.simulation_index", "second list"},
		{"tau2 no trial", FormatTau2, tau2Mapping, `{"info":{"agent_info":{"llm":"m"}},"simulations":[{"task_id":"a"}]}`, "report.simulations[0].trial", "is missing"},
		{"tau2 bad trial", FormatTau2, tau2Mapping, `{"simulations":[{"task_id":"a","trial":-1}]}`, "report.simulations[0].trial", "whole number"},
		{"tau2 trial twice", FormatTau2, tau2Mapping, `{"info":{"agent_info":{"llm":"m"}},"simulations":[{"task_id":"a","trial":0},{"task_id":"a","trial":0}]}`, "report.simulations[1]", "already is"},
		{"tau2 no model", FormatTau2, tau2Mapping, `{"simulations":[{"task_id":"a","trial":0}]}`, "report.simulations[0]", "info.agent_info.llm"},
		{"tau2 tag", FormatTau2, ReportMapping{Planner: ReportSource{From: FromProject}, Journey: ReportSource{From: FromTag, Name: "j"}, AppID: "helpdesk", FixtureID: "helpdesk-agent-queue"}, `{}`, "report", "records no tags"},
		{"inspect no samples", FormatInspectAI, inspectMapping, `{"eval":{"model":"m"}}`, "report", "has no samples"},
		{"inspect Infinity", FormatInspectAI, inspectMapping, `{"eval":{"model":"m"},"samples":[{"id":1,"epoch":1,"total_time":Infinity}]}`, "report.samples[0].total_time", "not valid JSON"},
		{"inspect no epoch", FormatInspectAI, inspectMapping, `{"eval":{"model":"m"},"samples":[{"id":1}]}`, "report.samples[0].epoch", "is missing"},
		{"inspect no journey", FormatInspectAI, inspectMapping, `{"eval":{"model":"m"},"samples":[{"id":{},"epoch":1}]}`, "report.samples[0]", "a sample member"},
		{"pass score blank", FormatInspectAI, func() ReportMapping { m := inspectMapping; m.PassScores = []string{"C", " "}; return m }(), `{}`, "passScores[1]", "1 to 128 bytes"},
		{"pass scores many", FormatInspectAI, func() ReportMapping { m := inspectMapping; m.PassScores = make([]string, 17); return m }(), `{}`, "passScores", "the limit is 16"},
		{"inspect bad time", FormatInspectAI, inspectMapping, `{"eval":{"model":"m"},"samples":[{"id":1,"epoch":1,"total_time":-1}]}`, "report.samples[0].total_time", "seconds"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readOneReport(context.Background(), strings.NewReader(tc.doc), tc.m, tc.format)
			var ae *Error
			if !errors.As(err, &ae) || ae.Field != tc.field || !strings.Contains(ae.Message, tc.want) {
				t.Fatalf("err = %v (field %q); want at %s %q", err, fieldOf(err), tc.field, tc.want)
			}
		})
	}
}

func fieldOf(err error) string {
	var ae *Error
	if errors.As(err, &ae) {
		return ae.Field
	}
	return ""
}

// TestTau2SimulationIndex: a results folder's results.json, whose
// simulation_index carries the verdicts without messages, reads to the
// verdicts of the monolithic file (the index is built here from it).
func TestTau2SimulationIndex(t *testing.T) {
	const name = "tau2/gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json"
	full, err := readAgentEval(t, name)
	if err != nil {
		t.Fatal(err)
	}
	var index []string
	for i, tr := range full.Trials {
		reward := "0.0"
		if tr.Passed {
			reward = "1.0"
		}
		index = append(index, fmt.Sprintf(`{"id":"s%d","task_id":%q,"trial":%d,"reward":%s,"termination_reason":"agent_stop","agent_cost":0.01,"duration":%g}`,
			i, "task "+tr.JourneyID, tr.Repetition-1, reward, float64(tr.LatencyMs)/1000))
	}
	index = append(index, `{"id":"x","task_id":"broken","trial":0,"reward":0,"termination_reason":"infrastructure_error","duration":1}`)
	doc := `{"timestamp":"2026-03-01T00:00:00","info":{"agent_info":{"llm":"gpt-4.1-2025-04-14"}},"simulation_index":[` + strings.Join(index, ",") + `]}`
	got, err := TrialsFromTau2Results(context.Background(), strings.NewReader(doc), tau2Mapping)
	if err != nil {
		t.Fatal(err)
	}
	c := countOf(got)
	if want := (agentEvalCount{Trials: 21, Pass: 16, Fail: 4, NotEvaluable: 1, Tokens: -1, LatencyKnown: 21}); c != want {
		t.Errorf("counts %+v; want %+v", c, want)
	}
}

// TestJourneySlug: a producer's ID becomes a journey ID, distinct IDs stay
// distinct, a journey ID stays itself.
func TestJourneySlug(t *testing.T) {
	ids := []string{"1", "popularity-3", "[mobile_data_issue]bad_vpn[PERSONA:Easy]", "[mobile_data_issue]bad_vpn[persona:easy]",
		"_x", "Ünïcödé", "", strings.Repeat("A", 300), strings.Repeat("A", 301), "a b", "a-b"}
	seen := map[string]string{}
	for _, id := range ids {
		s := journeySlug(id)
		if !slugID(s) || !automiumSlug.MatchString(s) {
			t.Errorf("journeySlug(%q) = %q, not a journey ID", id, s)
		}
		if prev, ok := seen[s]; ok {
			t.Errorf("%q and %q both become %q", prev, id, s)
		}
		seen[s] = id
	}
	if got := journeySlug("[mobile_data_issue]bad_vpn[PERSONA:Easy]"); !strings.HasPrefix(got, "mobile_data_issue-bad_vpn-persona-easy-") {
		t.Errorf("slug %q", got)
	}
	for _, id := range []string{"1", "popularity-3", "a-b"} {
		if journeySlug(id) != id {
			t.Errorf("journeySlug(%q) = %q; a journey ID stays itself", id, journeySlug(id))
		}
	}
}

var automiumSlug = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// TestNaNToNull: a bare NaN outside strings is null; inside a string, after
// an escaped quote, or as part of a longer word it is left alone.
func TestNaNToNull(t *testing.T) {
	tests := map[string]string{
		`{"v":NaN}`:             `{"v":null}`,
		`[NaN,NaN]`:             `[null,null]`,
		`{"v":"NaN"}`:           `{"v":"NaN"}`,
		`{"v":"a\"NaN"}`:        `{"v":"a\"NaN"}`,
		`{"v":"a\\",NaN:NaN}`:   `{"v":"a\\",null:null}`,
		`NaNaN`:                 `nullaN`,
		`Na`:                    `Na`,
		`{"NaN":Infinity}`:      `{"NaN":Infinity}`,
		strings.Repeat("N", 10): strings.Repeat("N", 10),
	}
	for in, want := range tests {
		for _, size := range []int{1, 2, 3, 4096} {
			got, err := io.ReadAll(chunked{&nanToNull{br: bufio.NewReader(strings.NewReader(in))}, size})
			if err != nil || string(got) != want {
				t.Errorf("%s (reads of %d): %q, %v; want %q", in, size, got, err, want)
			}
		}
	}
}

// chunked reads at most n bytes a call.
type chunked struct {
	r io.Reader
	n int
}

func (c chunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// checkImport holds what every reader promises, whatever the bytes: trials
// or a coded *Error with a bounded field and message, no panic, and the
// import's counts consistent and within their bounds.
func checkImport(t *testing.T, got ImportedTrials, err error) {
	t.Helper()
	if err == nil {
		if len(got.Trials) == 0 || len(got.Trials) > limit.MaxObservedTrials || len(got.Sources) != len(got.Trials) ||
			got.Tests < len(got.Trials)+got.Skipped || got.NotEvaluable > len(got.Trials) || len(got.Triage) > limit.MaxTriage {
			t.Fatalf("inconsistent result %+v", got)
		}
		for _, tr := range got.Trials {
			if !slugID(tr.JourneyID) || tr.Repetition < 1 || tr.Repetition > limit.MaxRepetitions || tr.LatencyMs < 0 || tr.LatencyMs > limit.MaxTrialLatencyMs ||
				tr.InputTokens > limit.MaxTrialTokens || tr.OutputTokens > limit.MaxTrialTokens || tr.Passed && tr.NotEvaluable {
				t.Fatalf("trial out of bounds: %+v", tr)
			}
		}
		return
	}
	var ae *Error
	if !errors.As(err, &ae) || ae.Code == "" {
		t.Fatalf("err = %v; want a coded *Error", err)
	}
	if len(ae.Message) > 600 || len(ae.Field) > 600 {
		t.Fatalf("unbounded error: field %d bytes, message %d bytes", len(ae.Field), len(ae.Message))
	}
}

// FuzzTrialsFromInspectLog: JSON logs and .eval archives, a real one and
// small hand-made ones (a zstd entry, a stored one, a bare NaN) as seeds. (Go
// minimizes each new input for up to a minute by default, so a few seconds
// of fuzzing run few inputs; -fuzzminimizetime=0 runs thousands.)
func FuzzTrialsFromInspectLog(f *testing.F) {
	for _, name := range []string{"inspect/log_streaming.eval"} {
		data, err := os.ReadFile(filepath.Join(agentEvalDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	small := inspectArchive(f, [2]string{"samples/1_epoch_1.json", inspectSample}, [2]string{"samples/2_epoch_1/sample.json", `{"id":"two","epoch":1,"scores":{"s":{"value":NaN}}}`})
	f.Add(small)
	f.Add(transcodeZip(f, small, func(raw []byte) (uint16, []byte) { return zip.Store, raw }))
	f.Add(transcodeZip(f, small, func(raw []byte) (uint16, []byte) {
		enc, _ := zstd.NewWriter(nil)
		defer enc.Close()
		return zipMethodZstd, enc.EncodeAll(raw, nil)
	}))
	f.Add([]byte(`{"eval":{"model":"m"},"samples":[{"id":1,"epoch":1,"scores":{"s":{"value":NaN}},"model_usage":{"m":{"input_tokens":1,"output_tokens":2}},"total_time":0.5}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := TrialsFromInspectLog(context.Background(), bytes.NewReader(data), inspectMapping)
		checkImport(t, got, err)
	})
}

// FuzzTrialsFromTau2Results: monolithic results and simulation_index.
func FuzzTrialsFromTau2Results(f *testing.F) {
	// The real files are read by the tests above; a seed of hundreds of
	// KiB slows the fuzzer to a few inputs a second, so the seeds are the
	// real file's shape, small.
	f.Add([]byte(tau2Seed))
	f.Add([]byte(`{"info":{"agent_info":{"llm":"m"}},"simulation_index":[{"task_id":"[a]b","trial":0,"reward":1.0,"termination_reason":"infrastructure_error","duration":2}]}`))
	f.Add([]byte(`{"info":{"agent_info":{"llm":"m"}},"simulations":[{"task_id":"a","trial":1,"reward_info":{"reward":0.9999999},"messages":[{"role":"assistant","usage":{"prompt_tokens":5,"completion_tokens":1}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := TrialsFromTau2Results(context.Background(), bytes.NewReader(data), tau2Mapping)
		checkImport(t, got, err)
	})
}

// tau2Seed is one simulation of the 4-trial file, its messages cut to two.
const tau2Seed = `{"timestamp":"2025-07-29T10:00:00","info":{"git_commit":"21e5e571","num_trials":4,"agent_info":{"implementation":"llm_agent_solo","llm":"gpt-4.1-2025-04-14","llm_args":{"temperature":0.0}},"user_info":{"implementation":"dummy_user","llm":"gpt-4.1-2025-04-14"},"environment_info":{"domain_name":"telecom"}},"tasks":[{"id":"[mobile_data_issue]data_saver_mode_on|data_usage_exceeded[PERSONA:Easy]"}],` +
	`"simulations":[{"id":"7b0f","task_id":"[mobile_data_issue]data_saver_mode_on|data_usage_exceeded[PERSONA:Easy]","timestamp":"2025-07-29T10:00:01","start_time":"2025-07-29T10:00:01","end_time":"2025-07-29T10:00:09","duration":7.996979875009856,"termination_reason":"agent_stop","agent_cost":0.034873999999999995,"user_cost":0.0,` +
	`"reward_info":{"reward":0.0,"reward_basis":["ENV_ASSERTION"]},"messages":[{"role":"assistant","content":"Hi","usage":{"prompt_tokens":4210,"completion_tokens":12},"cost":0.0087},{"role":"tool","content":"ok","usage":null}],"trial":3,"seed":300}]}`

// TestDetectReportFormat: every real file of every format is named from its
// first bytes; what no producer writes is not.
func TestDetectReportFormat(t *testing.T) {
	tests := map[string]ReportFormat{
		"testdata/playwright/report.json": FormatPlaywrightJSON,
		"testdata/playwright/junit.xml":   FormatJUnit,
	}
	for _, dir := range []string{"inspect", "tau2"} {
		entries, err := os.ReadDir(filepath.Join(agentEvalDir, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			tests[filepath.Join(agentEvalDir, dir, e.Name())] = map[string]ReportFormat{"inspect": FormatInspectAI, "tau2": FormatTau2}[dir]
		}
	}
	for path, want := range tests {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := DetectReportFormat(data); !ok || got != want {
			t.Errorf("%s: %q, %v; want %s", path, got, ok, want)
		}
		if got, ok := DetectReportFormat(append([]byte("\xef\xbb\xbf\n "), data[:min(len(data), 100)]...)); !ok || got != want {
			t.Errorf("%s after a byte order mark: %q, %v; want %s", path, got, ok, want)
		}
	}
	for _, head := range []string{"", "{}", `{"suites":[]}`, `["config"]`, "PK\x05\x06", `{"version":2}`, `{"timestamp":1}`, "\x00<"} {
		if got, ok := DetectReportFormat([]byte(head)); ok {
			t.Errorf("%q: detected %s; want none", head, got)
		}
	}
}
