package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/testsupport"
)

// The tests run the real binary, built with CGO_ENABLED=0 as the README
// builds it, once for all test runs of the checkout until its sources change.
var buildBin = sync.OnceValues(func() (string, error) {
	return testsupport.BuildCached("github.com/automium/automium/cmd/automium")
})

// result is what one run of the binary did.
type result struct {
	Code           int
	Stdout, Stderr string
}

// automiumRun runs the binary in dir with args and an environment of env
// (nil: the test's), failing t if it does not end by the test's deadline or
// within a minute: a hang is a failure, never a wait.
func automiumRun(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	bin, err := buildBin()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = env
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("automium %q did not end within a minute", args)
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, stdout.String(), stderr.String()}
}

func fixture(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../testdata/playwright/report.json")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fixtureReport is the comparison the Go API makes of the fixture, as the
// command maps it by default.
func fixtureReport(t *testing.T, name string) automium.ComparisonReport {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	m := automium.ReportMapping{Planner: automium.ReportSource{From: automium.FromProject}, Journey: automium.ReportSource{From: automium.FromAnnotation, Name: "journey"}}
	read, err := automium.ReadReports(context.Background(), m, automium.ReportReader{Format: automium.FormatPlaywrightJSON, R: bytes.NewReader(data)})
	if err != nil {
		t.Fatal(err)
	}
	planners := []automium.PlannerRef{{ID: "baseline", Vendor: "unspecified", Model: "unspecified"}, {ID: "challenger", Vendor: "unspecified", Model: "unspecified"}}
	r, err := automium.CompareObservedTrials(context.Background(), automium.CompareObservedTrialsInput{Rows: automium.RowSelection{All: true}, CorpusVersion: automium.CorpusVersion, Planners: planners, Trials: read.Trials})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCompareFixture: on the checkout's Playwright fixture the command
// prints the library's Markdown and writes its HTML, byte for byte, exits 0,
// writes nothing on standard error when it is no terminal, and gives the
// same bytes twice.
func TestCompareFixture(t *testing.T) {
	dir := t.TempDir()
	report := fixtureReport(t, fixture(t))
	var md, page bytes.Buffer
	if err := automium.WriteMarkdown(&md, &report); err != nil {
		t.Fatal(err)
	}
	if err := automium.WriteHTML(&page, &report); err != nil {
		t.Fatal(err)
	}
	for run := range 2 {
		got := automiumRun(t, dir, nil, "compare", fixture(t), "--html", "report.html")
		if diff := cmp.Diff(result{0, md.String(), ""}, got); diff != "" {
			t.Fatalf("run %d (-want +got):\n%s", run, diff)
		}
		html, err := os.ReadFile(filepath.Join(dir, "report.html"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(html, page.Bytes()) {
			t.Errorf("run %d: the HTML differs from WriteHTML's", run)
		}
	}
	// JUnit of the same run, told apart by content, and flags after the file.
	junit, _ := filepath.Abs("../../testdata/playwright/junit.xml")
	got := automiumRun(t, dir, nil, "compare", junit, "--planner", "baseline=openai/gpt-4.1-mini", "--planner", "challenger=anthropic/claude-sonnet-4")
	if got.Code != 0 || !strings.Contains(got.Stdout, "`challenger`") {
		t.Errorf("junit: %+v", got)
	}
	// Inspect AI (a .eval zip and a JSON log) and τ²-bench, told apart by
	// content through the format table.
	evals, _ := filepath.Abs("../../testdata/agent-evals")
	for _, f := range []string{"inspect/log_streaming.eval", "inspect/2025-05-12T20-28-13-04-00_popularity.json", "tau2/gpt-4.1_telecom_default_gpt-4.1_1trials.subset-7tasks.json"} {
		from := "annotation:id"
		if strings.HasPrefix(f, "tau2/") {
			from = "annotation:task_id"
		}
		got := automiumRun(t, dir, nil, "compare", "--journey-from", from, "--app", "storefront", "--fixture", "storefront-guest-catalog", filepath.Join(evals, f))
		if got.Code != 0 || !strings.HasPrefix(got.Stdout, "## Observed comparison") {
			t.Errorf("%s: %+v", f, got)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the directory holds %d entries; want only report.html", len(entries))
	}
}

// TestCompareRefusals: bad usage and bad inputs exit 2 with one short
// message naming the file (or the flag) and what to do, and write nothing.
func TestCompareRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return name
	}
	pw, err := os.ReadFile(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	write("report.json", pw)
	junit, err := os.ReadFile(filepath.Join(filepath.Dir(fixture(t)), "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	write("junit.xml", junit) // the fixture's run, written by Playwright's JUnit reporter
	write("truncated.json", pw[:len(pw)/2])
	write("binary.json", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	write("empty.json", nil)
	write("array.json", []byte("[1, 2, 3]"))
	write("text.txt", []byte("hello, world\n"))
	write("deep.json", []byte(`{"config":{},"suites":`+strings.Repeat("[", 5000)))
	write("dup.json", []byte(`{"config":{},"suites":[],"suites":[]}`))
	write("doctype.xml", []byte(`<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><testsuites/>`))
	write("escaped.json", []byte(`{"config":{},"suites":[],"\u0073uites":[]}`))
	write("notests.json", []byte(`{"config":{},"suites":[]}`))
	// A planner read from the report, no --planner: its problem is told at
	// the test that names it, not at a flag the user never gave.
	write("bomplanner.json", bytes.Replace(pw, []byte(`"projectName": "baseline"`), []byte(`"projectName": "\ufeffbaseline"`), 1))
	write("\x1b]0;pwned\x07.json", pw[:10])
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	huge, err := os.Create(filepath.Join(dir, "huge.json"))
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file over the bound: refused from its size, never read.
	if err := huge.Truncate(maxInputBytes + 1); err != nil {
		t.Fatal(err)
	}
	huge.Close()
	unreadable := write("unreadable.json", pw)
	if err := os.Chmod(filepath.Join(dir, unreadable), 0); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link.html": "report.json", "dangling.json": "nowhere.json"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := mkfifo(fifo); errors.Is(err, errors.ErrUnsupported) {
		fifo = ""
	} else if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string // in standard error
	}{
		{"no command", nil, []string{"usage: automium"}},
		{"unknown command", []string{"comapre"}, []string{`"comapre" is not a command`}},
		{"no file", []string{"compare"}, []string{"no report files"}},
		{"unknown flag", []string{"compare", "--nope", "report.json"}, []string{"-nope"}},
		{"bad source", []string{"compare", "--journey-from", "tag", "report.json"}, []string{`--journey-from "tag" is not a source`, "tag:NAME"}},
		{"bad format", []string{"compare", "--format", "xml", "report.json"}, []string{`--format "xml"`, "junit"}},
		{"bad planner", []string{"compare", "--planner", "x", "report.json"}, []string{"ID=VENDOR/MODEL"}},
		{"margin without baseline", []string{"compare", "--margin", "5", "report.json"}, []string{"--margin needs --baseline"}},
		{"missing", []string{"compare", "missing.json"}, []string{"missing.json: no such file"}},
		{"directory", []string{"compare", "adir"}, []string{"adir: is a directory"}},
		{"device", []string{"compare", "/dev/zero"}, []string{"/dev/zero: is a device"}},
		{"huge", []string{"compare", "huge.json"}, []string{"huge.json: is 512 MiB, over the 512 MiB"}},
		{"truncated", []string{"compare", "truncated.json"}, []string{"truncated.json at ", "ends early"}},
		{"binary", []string{"compare", "binary.json"}, []string{"binary.json: holds NUL bytes"}},
		{"empty", []string{"compare", "empty.json"}, []string{"empty.json: is empty"}},
		{"wrong format by content", []string{"compare", "array.json"}, []string{"array.json: is not a report", "--format"}},
		{"text", []string{"compare", "text.txt"}, []string{"text.txt: is not a report"}},
		{"wrong format named", []string{"compare", "--format", "junit", "report.json"}, []string{"report.json"}},
		{"deep", []string{"compare", "deep.json"}, []string{"deep.json at suites"}},
		{"duplicate member", []string{"compare", "dup.json"}, []string{"dup.json"}},
		{"escaped duplicate", []string{"compare", "escaped.json"}, []string{"escaped.json"}},
		{"no test ran", []string{"compare", "notests.json"}, []string{"the reports: has 0 tests"}},
		{"doctype", []string{"compare", "doctype.xml"}, []string{"doctype.xml", "DOCTYPE"}},
		{"hostile name", []string{"compare", "\x1b]0;pwned\x07.json"}, []string{`"\x1b]0;pwned\a.json"`}},
		{"a planner not listed", []string{"compare", "--planner", "baseline=a/b", "report.json"}, []string{"report.json at suites[0]"}},
		{"output onto input", []string{"compare", "--html", "report.json", "report.json"}, []string{"--html report.json is also an input"}},
		{"output onto a directory", []string{"compare", "--html", "adir", "report.json"}, []string{"--html adir is not a regular file"}},
		{"output in no directory", []string{"compare", "--html", "nodir/x.html", "report.json"}, []string{"nodir/x.html: cannot be written"}},
		{"an empty outcome", []string{"compare", "--not-evaluable", "error,", "report.json"}, []string{`--not-evaluable "error," lists an empty outcome`}},
		{"external app without a fixture", []string{"compare", "--app", "ext:x", "report.json"}, []string{"--fixture: --app and --fixture go together"}},
		{"planner read from a report", []string{"compare", "bomplanner.json"}, []string{"bomplanner.json at suites[0].specs[0].tests[0]: ", "U+FEFF"}},
		{"too many files", append([]string{"compare"}, slicesRepeat("report.json", 65)...), []string{"65 report files"}},
		{"one run in two formats", []string{"compare", "report.json", "junit.xml"}, []string{"junit.xml: is the same run as report.json", "one run counts once"}},
		{"the same file twice", []string{"compare", "report.json", "./report.json"}, []string{"is the same run of the same test", "pass each shard once"}},
		{"a symbolic link as --html", []string{"compare", "--html", "link.html", "report.json"}, []string{"--html link.html is a symbolic link"}},
		{"a dangling link as --snapshot", []string{"compare", "--snapshot", "dangling.json", "report.json"}, []string{"--snapshot dangling.json is a symbolic link"}},
		{"a flag as --html's file", []string{"compare", "--html", "--snapshot", "s.json", "report.json"}, []string{"--html --snapshot looks like a flag", "./--snapshot"}},
		{"a file after --", []string{"compare", "--", "--html"}, []string{"--html: no such file"}},
		{"a Windows device as --html", []string{"compare", "--html", "Aux.html", "report.json"}, []string{"--html Aux.html is a device on Windows"}},
		{"a Windows device as --snapshot", []string{"compare", "--snapshot", "sub/com1 .json", "report.json"}, []string{"--snapshot sub/com1 .json is a device on Windows"}},
		{"two outputs one in any case", []string{"compare", "--html", "Out.html", "--snapshot", "out.HTML", "report.json"}, []string{"--html and --snapshot name one file out.HTML"}},
		{"--html twice", []string{"compare", "--html", "a.html", "--html", "b.html", "report.json"}, []string{`--html is given twice ("a.html", then "b.html"); give it once`}},
		{"--journey-from twice", []string{"compare", "--journey-from", "tag:journey", "report.json", "--journey-from=project"}, []string{`--journey-from is given twice ("tag:journey", then "project")`}},
		{"--margin twice", []string{"compare", "--baseline", "b.json", "--margin", "5", "--margin", "6", "report.json"}, []string{`--margin is given twice ("5", then "6")`}},
	}
	// An empty value is refused, whatever the flag, saying what to give.
	for _, f := range []struct{ flag, want string }{
		{"html", "name the file to write"}, {"snapshot", "name the file to write"}, {"baseline", "name the snapshot file to read"},
		{"format", "leave --format out"}, {"planner-from", "tag:NAME"}, {"journey-from", "tag:NAME"}, {"repetition-from", "tag:NAME"},
		{"app", "ext:NAME"}, {"fixture", "leave --fixture out"}, {"not-evaluable", "error,interrupted"},
	} {
		for _, form := range [][]string{{"--" + f.flag + "="}, {"--" + f.flag, ""}, {"-" + f.flag + "= "}} {
			tests = append(tests, struct {
				name string
				args []string
				want []string
			}{"empty " + strings.Join(form, " "), append(append([]string{"compare"}, form...), "report.json"), []string{"--" + f.flag + " is given an empty value", f.want}})
		}
	}
	// --margin takes a plain decimal above 0 and below 100, nothing a float
	// parser would also take.
	for _, m := range []string{"", "0", "0.0", "100", "100.00", "150", "1e-400", "1e2", "NaN", "nan", "Inf", "+Inf", "-5", "+5", " 5", "5 ", "5%", "0x1p-2", "5.", ".5", "5.123", "1_0", "５", "0005"} {
		tests = append(tests, struct {
			name string
			args []string
			want []string
		}{"margin " + m, []string{"compare", "--baseline", "b.json", "--margin", m, "report.json"}, []string{"--margin " + strconv.Quote(m) + " is not a margin", "above 0 and below 100"}})
	}
	if fifo != "" {
		tests = append(tests, struct {
			name string
			args []string
			want []string
		}{"fifo", []string{"compare", fifo}, []string{"fifo.json: is a FIFO"}})
	}
	if os.Geteuid() != 0 {
		tests = append(tests, struct {
			name string
			args []string
			want []string
		}{"unreadable", []string{"compare", unreadable}, []string{"unreadable.json: cannot be read (permission denied)"}})
	}
	// The full run gives every case to the built binary. Under -short the
	// cases run in this process, through run (main with its process state
	// passed in): a hundred processes cost seconds. TestCompareFixture,
	// TestCompareBaselineGate and TestCompareHelp still run the binary, its
	// exit statuses (2 included) and its standard error.
	runCase := automiumRun
	if testing.Short() {
		t.Chdir(dir)
		runCase = func(t *testing.T, _ string, _ []string, args ...string) result {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, &stdout, &stderr, false)
			return result{code, stdout.String(), stderr.String()}
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := runCase(t, dir, nil, tt.args...)
			if got.Code != exitUsage || got.Stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit 2 and nothing on stdout", got.Code, got.Stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.Stderr, w) {
					t.Errorf("stderr %q lacks %q", got.Stderr, w)
				}
			}
			if len(got.Stderr) > 2048 && !strings.Contains(got.Stderr, "usage") {
				t.Errorf("stderr is %d bytes; want a short message", len(got.Stderr))
			}
			if strings.ContainsAny(got.Stderr, "\x1b\x07") {
				t.Errorf("stderr carries a terminal control: %q", got.Stderr)
			}
		})
	}
	if data, err := os.ReadFile(filepath.Join(dir, "report.json")); err != nil || !bytes.Equal(data, pw) {
		t.Errorf("report.json changed")
	}
	if _, err := os.Stat(filepath.Join(dir, "nodir")); err == nil {
		t.Errorf("a refused run made a directory")
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere.json")); err == nil {
		t.Errorf("a refused run wrote through a dangling link")
	}
}

func slicesRepeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// junitRun writes a JUnit report of one planner, "agent", over eight
// journeys of ten runs each; journey j passes passes(j) of its runs.
func junitRun(passes func(j int) int) []byte {
	var b strings.Builder
	b.WriteString("<testsuites>\n")
	for rep := range 10 {
		fmt.Fprintf(&b, "<testsuite name=\"gate.spec.js\" timestamp=\"2026-12-01T10:00:%02dZ\" hostname=\"agent\">\n", rep)
		for j := range 8 {
			fmt.Fprintf(&b, "<testcase name=\"journey %d\" classname=\"gate.spec.js\" time=\"1.5\"><properties><property name=\"journey\" value=\"gate-journey-%d\"/></properties>", j, j)
			if rep >= passes(j) {
				b.WriteString("<failure message=\"expect(locator).toBeVisible() failed\"/>")
			}
			b.WriteString("</testcase>\n")
		}
		b.WriteString("</testsuite>\n")
	}
	b.WriteString("</testsuites>\n")
	return []byte(b.String())
}

// TestCompareBaselineGate: a snapshot of one run, compared with an unchanged
// run of the same planner, exits 0; compared with a run that regressed on
// seven of eight journeys, exits 1 and names them; a damaged or wrong
// baseline exits 2 naming the file.
func TestCompareBaselineGate(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("base.xml", junitRun(func(int) int { return 10 }))
	write("same.xml", junitRun(func(int) int { return 10 }))
	write("regressed.xml", junitRun(func(j int) int {
		if j == 7 {
			return 10
		}
		return 2 + j%3
	}))
	app := []string{"--app", "storefront", "--fixture", "storefront-guest-catalog"}
	args := func(a ...string) []string { return append(append([]string{"compare"}, app...), a...) }
	if got := automiumRun(t, dir, nil, args("--snapshot", "base.json", "base.xml")...); got.Code != 0 {
		t.Fatalf("--snapshot: %+v", got)
	}
	snap, err := os.ReadFile(filepath.Join(dir, "base.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := automiumRun(t, dir, nil, args("--baseline", "base.json", "same.xml")...)
	if got.Code != exitPass || !strings.Contains(got.Stdout, "## Gate passed") || got.Stderr != "" {
		t.Errorf("unchanged run: %+v", got)
	}
	got = automiumRun(t, dir, nil, args("--baseline", "base.json", "regressed.xml")...)
	if got.Code != exitFail || !strings.Contains(got.Stdout, "## Gate **failed**") || got.Stderr != "" {
		t.Errorf("regressed run: %+v", got)
	}
	for j := range 7 {
		if !strings.Contains(got.Stdout, fmt.Sprintf("`gate-journey-%d`", j)) {
			t.Errorf("the summary does not name gate-journey-%d:\n%s", j, got.Stdout)
		}
	}
	// A run that leaves a journey out is not evidence that it still
	// passes: the gate fails and names it.
	var dropped []string
	for _, line := range strings.SplitAfter(string(junitRun(func(int) int { return 10 })), "\n") {
		if !strings.Contains(line, `value="gate-journey-3"`) {
			dropped = append(dropped, line)
		}
	}
	write("dropped.xml", []byte(strings.Join(dropped, "")))
	if got := automiumRun(t, dir, nil, args("--baseline", "base.json", "dropped.xml")...); got.Code != exitFail ||
		!strings.Contains(got.Stdout, "did not run: `gate-journey-3`") || got.Stderr != "" {
		t.Errorf("a run without gate-journey-3: %+v", got)
	}
	if strings.Contains(got.Stdout, "regressed on: `gate-journey-7`") || strings.Contains(got.Stdout, ", `gate-journey-7`") {
		t.Errorf("the summary names the unchanged gate-journey-7 as regressed:\n%s", got.Stdout)
	}

	// A margin the flag takes decides the non-inferiority gate, named with
	// its points.
	// Eight journeys of one planner unchanged give an interval wider than
	// a few points, so only a wide margin passes.
	for _, m := range []struct {
		margin  string
		code    int
		heading string
	}{{"99.99", exitPass, "## Gate passed: non-inferior within margin (99.99 points)"}, {"2.5", exitFail, "## Gate **failed**: non-inferior within margin (2.5 points)"}, {"0.01", exitFail, "## Gate **failed**: non-inferior within margin (0.01 points)"}} {
		got := automiumRun(t, dir, nil, args("--baseline", "base.json", "--margin", m.margin, "same.xml")...)
		if got.Code != m.code || !strings.Contains(got.Stdout, m.heading) {
			t.Errorf("--margin %s: exit %d, %q", m.margin, got.Code, got.Stdout[:min(len(got.Stdout), 200)])
		}
	}
	// Failing runs that now end in an error, not evaluable, do not pass
	// the gate: counted as failures they fail it.
	write("mostly.xml", junitRun(func(int) int { return 8 }))
	if got := automiumRun(t, dir, nil, args("--snapshot", "mostly.json", "mostly.xml")...); got.Code != exitPass {
		t.Fatalf("--snapshot: %+v", got)
	}
	write("errors.xml", bytes.ReplaceAll(junitRun(func(int) int { return 2 }), []byte("<failure "), []byte("<error ")))
	got = automiumRun(t, dir, nil, args("--not-evaluable", "error", "--baseline", "mostly.json", "errors.xml")...)
	if got.Code != exitFail || !strings.Contains(got.Stdout, "had more not-evaluable runs than its baseline (the gate also counts them as failures) on: `gate-journey-0`") {
		t.Errorf("failures turned into errors: exit %d\n%s%s", got.Code, got.Stdout, got.Stderr)
	}
	write("tampered.json", bytes.Replace(snap, []byte(`"runs":`), []byte(`"runs":1`), 1))
	write("truncated-base.json", snap[:len(snap)/2])
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing baseline", args("--baseline", "nope.json", "same.xml"), []string{"nope.json: no such file"}},
		{"tampered baseline", args("--baseline", "tampered.json", "same.xml"), []string{"tampered.json"}},
		{"truncated baseline", args("--baseline", "truncated-base.json", "same.xml"), []string{"truncated-base.json"}},
		{"a report as baseline", args("--baseline", "base.xml", "same.xml"), []string{"base.xml"}},
		{"margin out of range", args("--baseline", "base.json", "--margin", "150", "same.xml"), []string{`--margin "150" is not a margin`}},
		{"a journey moved to another app", []string{"compare", "--app", "ext:shop", "--fixture", "ext:home", "--baseline", "base.json", "same.xml"},
			[]string{`the reports, against the baseline base.json: journey "gate-journey-0" of planner "agent" is on app "ext:shop" in this run but on app "storefront" in the baseline (counts[0])`, "write a new baseline"}},
		{"snapshot onto the baseline", args("--baseline", "base.json", "--snapshot", "base.json", "same.xml"), []string{"--snapshot base.json is also an input"}},
		{"a directory as baseline", args("--baseline", ".", "same.xml"), []string{".: is a directory"}},
		{"a device as baseline", args("--baseline", "/dev/null", "same.xml"), []string{"/dev/null: is a device"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := automiumRun(t, dir, nil, tt.args...)
			if got.Code != exitUsage || got.Stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit 2 and nothing on stdout", got.Code, got.Stdout)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.Stderr, w) {
					t.Errorf("stderr %q lacks %q", got.Stderr, w)
				}
			}
		})
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "base.json")); !bytes.Equal(now, snap) {
		t.Error("a run changed the baseline")
	}
}

// TestCompareBaselineRenamedPlanner: a baseline whose planner differs from
// this run's only in case is refused, not passed: apart, neither would be
// gated, and the other planner alone would decide the gate.
func TestCompareBaselineRenamedPlanner(t *testing.T) {
	dir := t.TempDir()
	pw, err := os.ReadFile(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	renamed := bytes.ReplaceAll(pw, []byte(`"projectName": "baseline"`), []byte(`"projectName": "Baseline"`))
	if err := os.WriteFile(filepath.Join(dir, "renamed.json"), renamed, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), pw, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := automiumRun(t, dir, nil, "compare", "--snapshot", "base.json", "renamed.json"); got.Code != exitPass {
		t.Fatalf("the snapshot: exit %d, %s", got.Code, got.Stderr)
	}
	got := automiumRun(t, dir, nil, "compare", "--baseline", "base.json", "report.json")
	if got.Code != exitUsage || !strings.Contains(got.Stderr, `planner "baseline" of this run differs from planner "Baseline" of the baseline only in case`) {
		t.Errorf("exit %d, stderr %q; want exit 2 naming the renamed planner", got.Code, got.Stderr)
	}
}

// TestCompareOutputModes: an output replaced keeps its permissions, a new
// one is 0644, and the directory holds nothing else afterwards (no
// temporary file left behind).
func TestCompareOutputModes(t *testing.T) {
	dir := t.TempDir()
	pw, err := os.ReadFile(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), pw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "old.html"), []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := automiumRun(t, dir, nil, "compare", "--html", "old.html", "--snapshot", "new.json", "report.json"); got.Code != exitPass {
		t.Fatalf("exit %d: %s", got.Code, got.Stderr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]os.FileMode{}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = info.Mode()
	}
	want := map[string]os.FileMode{"report.json": 0o644, "old.html": 0o600, "new.json": 0o644}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the directory (-want +got):\n%s", diff)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "old.html")); !bytes.HasPrefix(data, []byte("<!DOCTYPE html>")) {
		t.Errorf("old.html was not replaced: %.40q", data)
	}
}

// TestCompareHelp: every spelling of help prints the flags on standard
// output and exits 0, whatever else is on the line.
func TestCompareHelp(t *testing.T) {
	for _, args := range [][]string{{"compare", "-h"}, {"compare", "--h"}, {"compare", "-help"}, {"compare", "--help"}, {"compare", "report.json", "--help"}, {"compare", "--html=", "-h"}} {
		got := automiumRun(t, t.TempDir(), nil, args...)
		if diff := cmp.Diff(result{Code: exitPass, Stderr: ""}, result{Code: got.Code, Stderr: got.Stderr}); diff != "" {
			t.Errorf("%q (-want +got):\n%s", args, diff)
		}
		if !strings.HasPrefix(got.Stdout, "usage: automium compare") || !strings.Contains(got.Stdout, "-margin POINTS") {
			t.Errorf("%q: stdout %.80q is not the help", args, got.Stdout)
		}
	}
}
