package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
	"github.com/automium/automium/internal/modversion"
	"github.com/automium/automium/internal/winname"
)

// maxInputBytes bounds what one run reads, all report files together: the
// most one comparison over the MCP tool carries (MaxReports reports of
// MaxPlaywrightReportBytes each), 512 MiB. The reader's memory does not grow
// with it (it keeps what trials need); the time to read does, so a huge or
// endlessly growing file is refused rather than read for minutes.
const maxInputBytes = int64(limit.MaxReports) * limit.MaxPlaywrightReportBytes

// progressStep is how often, in bytes read, a terminal sees progress; files
// smaller than it show none.
const progressStep = 32 << 20

// maxShownProblems bounds the problems an error prints; the last line says
// how many more there were.
const maxShownProblems = 8

const compareUsage = `usage: automium compare [flags] REPORT...

Compares the planners of the report files (Playwright JSON, JUnit XML,
Inspect AI logs, τ²-bench results; told apart by content or --format) and writes a Markdown summary on standard output.
Exit status: 0 when the gate passes (no --baseline: always), 1 when it fails,
2 for bad usage (a flag's value, such as an empty one) or a bad input.

Flags:
`

// compareOptions are the flags of compare.
type compareOptions struct {
	format                                   string
	plannerFrom, journeyFrom, repetitionFrom string
	app, fixture, notEvaluable               string
	planners                                 plannerFlags
	html, snapshot, baseline                 string
	margin                                   marginFlag
}

// marginFlag is --margin: percentage points written as a plain decimal (at
// most three digits, a point and at most two decimals), above 0 and below
// 100. A float parser would take 1e-400 (0, the other gate), NaN, Inf,
// 0x1p-2 or +5; this takes only what the help shows.
type marginFlag struct {
	points float64
	set    bool
}

func (m *marginFlag) String() string {
	if m == nil || !m.set {
		return ""
	}
	return strconv.FormatFloat(m.points, 'f', -1, 64)
}

func (m *marginFlag) Set(v string) error {
	if m.set {
		return &usageError{fmt.Sprintf("--margin is given twice (%s, then %s); give it once", quote(m.String()), quote(v))}
	}
	if !marginSyntax.MatchString(v) {
		return &usageError{fmt.Sprintf("--margin %s is not a margin; give percentage points as a plain decimal above 0 and below 100, such as 5 or 2.5 (no sign, exponent, %% or spaces)", quote(v))}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0 && f < 100) {
		return &usageError{fmt.Sprintf("--margin %s is not a margin; give percentage points above 0 and below 100, such as 5 (leave --margin out for the default gate, not decisively worse)", quote(v))}
	}
	m.points, m.set = f, true
	return nil
}

// onceString is a flag of one string value: given twice (--html a.html
// --html b.html), it is refused rather than the last one silently winning.
type onceString struct {
	p    *string
	name string
	set  bool
}

func (s *onceString) String() string {
	if s == nil || s.p == nil {
		return ""
	}
	return *s.p
}

func (s *onceString) Set(v string) error {
	if s.set {
		return &usageError{fmt.Sprintf("--%s is given twice (%s, then %s); give it once", s.name, quote(*s.p), quote(v))}
	}
	*s.p, s.set = v, true
	return nil
}

var marginSyntax = regexp.MustCompile(`^[0-9]{1,3}(\.[0-9]{1,2})?$`)

// emptyFixes say, for each flag that takes a value, what to give instead of
// an empty one: --html= writes nowhere, --format= reads as no format, and
// neither is what the user meant.
var emptyFixes = map[string]string{
	"format":          "name a format (" + strings.Join(formatNames(), ", ") + "), or leave --format out to tell them apart by content",
	"planner-from":    "write project, tag:NAME or annotation:NAME, or leave the flag out for project",
	"journey-from":    "write project, tag:NAME or annotation:NAME, or leave the flag out for annotation:journey",
	"repetition-from": "write tag:NAME or annotation:NAME, or leave the flag out for report order",
	"app":             "name a corpus app or ext:NAME, or leave --app out",
	"fixture":         "name the fixture, or leave --fixture out",
	"not-evaluable":   "list outcomes such as error,interrupted, or write none",
	"html":            "name the file to write, such as --html report.html, or leave --html out",
	"snapshot":        "name the file to write, such as --snapshot baseline.json, or leave --snapshot out",
	"baseline":        "name the snapshot file to read, such as --baseline baseline.json, or leave --baseline out",
}

// fileFlags name a file; a value that starts with "-" is a flag typed
// without the file name before it (--html --baseline b.json), not a file.
var fileFlags = []string{"html", "snapshot", "baseline"}

// checkFlagValues refuses a flag given an empty value (--html=, --format "")
// and a file flag whose value looks like another flag.
func checkFlagValues(fs *flag.FlagSet, set map[string]string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		v, ok := set[f.Name]
		if err != nil || !ok {
			return
		}
		if strings.TrimSpace(v) == "" {
			err = &usageError{fmt.Sprintf("--%s is given an empty value; %s", f.Name, emptyFixes[f.Name])}
			return
		}
		if slices.Contains(fileFlags, f.Name) && strings.HasPrefix(v, "-") {
			err = &usageError{fmt.Sprintf("--%s %s looks like a flag, not a file; give the file name after --%s (for a file whose name starts with -, write ./%s)", f.Name, quoteName(v), f.Name, quoteName(v))}
		}
	})
	return err
}

// plannerFlags collects --planner ID=VENDOR/MODEL, in order.
type plannerFlags []automium.PlannerRef

func (p *plannerFlags) String() string { return "" }

func (p *plannerFlags) Set(v string) error {
	id, rest, ok := strings.Cut(v, "=")
	vendor, model, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || strings.TrimSpace(id) == "" || strings.TrimSpace(vendor) == "" || strings.TrimSpace(model) == "" {
		return fmt.Errorf("%s is not ID=VENDOR/MODEL; write, for example, baseline=openai/gpt-4.1-mini", quote(v))
	}
	*p = append(*p, automium.PlannerRef{ID: id, Vendor: vendor, Model: model})
	return nil
}

func compareCommand(ctx context.Context, args []string, stdout, stderr io.Writer, progress bool) int {
	var o compareOptions
	fs := flag.NewFlagSet("automium compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&onceString{p: &o.format, name: "format"}, "format", "`FORMAT` of every report: "+strings.Join(formatNames(), " or ")+"; default: told apart by content")
	o.plannerFrom = "project"
	fs.Var(&onceString{p: &o.plannerFrom, name: "planner-from"}, "planner-from", "where a test's planner is: `SOURCE` project, tag:NAME or annotation:NAME")
	o.journeyFrom = "annotation:journey"
	fs.Var(&onceString{p: &o.journeyFrom, name: "journey-from"}, "journey-from", "where a test's journey is: `SOURCE` project, tag:NAME or annotation:NAME")
	fs.Var(&onceString{p: &o.repetitionFrom, name: "repetition-from"}, "repetition-from", "where a test's repetition is (`SOURCE` tag:NAME or annotation:NAME); default: its place in report order")
	fs.Var(&onceString{p: &o.app, name: "app"}, "app", "`APP` of journeys that are not reference journeys: a corpus app or ext:NAME")
	fs.Var(&onceString{p: &o.fixture, name: "fixture"}, "fixture", "`FIXTURE` of journeys that are not reference journeys, with --app")
	fs.Var(&onceString{p: &o.notEvaluable, name: "not-evaluable"}, "not-evaluable", "comma-separated `OUTCOMES` that are not evaluable: error, interrupted, timedOut, or none; default: interrupted (and, in Inspect AI logs, a sample error), so that a thrown error stays a failure")
	fs.Var(&o.planners, "planner", "a planner as `ID=VENDOR/MODEL`, once per planner, in the order to compare; default: every planner of the reports, in order of appearance, vendor and model \"unspecified\"")
	fs.Var(&onceString{p: &o.html, name: "html"}, "html", "also write the HTML report to `FILE`")
	fs.Var(&onceString{p: &o.snapshot, name: "snapshot"}, "snapshot", "also write this run's counts to `FILE`, a baseline for a later --baseline")
	fs.Var(&onceString{p: &o.baseline, name: "baseline"}, "baseline", "compare each planner with its earlier run in the snapshot `FILE`; exit 1 when one is decisively worse, did not run a planner or journey the baseline evaluated, or fails with its runs that became not evaluable counted as failures")
	fs.Var(&o.margin, "margin", "with --baseline, a non-inferiority margin in percentage `POINTS`, a plain decimal above 0 and below 100 such as 5 or 2.5: a planner passes only when the 95% interval's lower bound of (this run − baseline) is above −POINTS")
	help := fs.Bool("h", false, "print this help")

	files, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		*help, err = true, nil // -help and --help, which the flag package knows
	}
	if err == nil && !*help {
		err = checkFlagValues(fs, map[string]string{
			"format": o.format, "planner-from": o.plannerFrom, "journey-from": o.journeyFrom, "repetition-from": o.repetitionFrom,
			"app": o.app, "fixture": o.fixture, "not-evaluable": o.notEvaluable, "html": o.html, "snapshot": o.snapshot, "baseline": o.baseline,
		})
	}
	if err != nil {
		fmt.Fprintf(stderr, "automium compare: %s\nRun automium compare -h for the flags.\n", echo.Cut(flagErrorText(err), 300))
		return exitUsage
	}
	if *help {
		fmt.Fprint(stdout, compareUsage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return exitPass
	}
	c := &comparer{o: o, stderr: stderr, progress: progress}
	code, err := c.run(ctx, files, stdout)
	if err != nil {
		fmt.Fprint(stderr, c.describe(err))
	}
	return code
}

// flagErrorText is a flag error as the user reads it: a flag's own refusal
// (--margin's) without the flag package's "invalid value ... for flag"
// before it, which would say the value twice.
func flagErrorText(err error) string {
	var ue *usageError
	if errors.As(err, &ue) {
		return ue.msg
	}
	msg := err.Error()
	if m := ownRefusal.FindStringSubmatchIndex(msg); m != nil && msg[m[2]:m[3]] == msg[m[4]:m[5]] {
		return msg[m[4]-2:]
	}
	return msg
}

// ownRefusal finds a flag's own refusal, which names the flag, in the flag
// package's error.
var ownRefusal = regexp.MustCompile(`^invalid value .* for flag -([a-z-]+): --([a-z-]+)[ ]`)

// parseInterleaved parses flags before, between and after the file names,
// as people type them (automium compare report.json --html out.html); after
// "--" everything is a file name.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	rest := args
	for {
		before := len(rest)
		if err := fs.Parse(rest); err != nil {
			return nil, err
		}
		rest = fs.Args()
		if len(rest) == 0 {
			return files, nil
		}
		if consumed := before - len(rest); consumed > 0 && args[len(args)-len(rest)-1] == "--" {
			return append(files, rest...), nil
		}
		files = append(files, rest[0])
		rest = rest[1:]
	}
}

// comparer is one run of compare.
type comparer struct {
	o        compareOptions
	stderr   io.Writer
	progress bool
	inputs   []*inputFile
	read     int64 // bytes read of all inputs, against maxInputBytes
}

// inputFile is one report file, open and checked to be a regular file.
type inputFile struct {
	name   string
	f      *os.File
	info   os.FileInfo
	format automium.ReportFormat
	r      *boundedReader
}

// usageError is bad usage: a flag's value, a missing file name.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// fileError is a problem of one named file, said without a place in it.
type fileError struct {
	name, msg string
}

func (e *fileError) Error() string { return quoteName(e.name) + ": " + e.msg }

func (c *comparer) run(ctx context.Context, files []string, stdout io.Writer) (int, error) {
	defer c.closeAll()
	m, err := c.mapping()
	if err != nil {
		return exitUsage, err
	}
	if len(files) == 0 {
		return exitUsage, &usageError{"no report files; name one or more, for example automium compare report.json"}
	}
	if len(files) > limit.MaxReports {
		return exitUsage, &usageError{fmt.Sprintf("%d report files; compare at most %d at once (the shards of one run)", len(files), limit.MaxReports)}
	}
	if err := c.checkOutputs(files); err != nil {
		return exitUsage, err
	}
	margin := c.o.margin.points / 100
	if c.o.margin.set && c.o.baseline == "" {
		return exitUsage, &usageError{"--margin needs --baseline: it is the gate against an earlier run"}
	}
	for _, name := range files {
		in, err := c.open(name, maxInputBytes)
		if err != nil {
			return exitUsage, err
		}
		if err := c.detect(in); err != nil {
			return exitUsage, err
		}
		c.inputs = append(c.inputs, in)
	}
	readers := make([]automium.ReportReader, len(c.inputs))
	for i, in := range c.inputs {
		readers[i] = automium.ReportReader{Format: in.format, R: in.r}
	}
	imported, err := automium.ReadReports(ctx, m, readers...)
	if err != nil {
		return exitUsage, c.readError(err)
	}
	c.endProgress()
	planners := c.o.planners
	var plannerSources []string // where each planner read from the reports is first
	if len(planners) == 0 {
		planners, plannerSources, err = plannersOf(imported.Trials, imported.Sources)
		if err != nil {
			return exitUsage, err
		}
	}
	report, err := automium.CompareObservedTrials(ctx, automium.CompareObservedTrialsInput{Rows: automium.RowSelection{All: true}, CorpusVersion: automium.CorpusVersion, Planners: planners, Trials: imported.Trials})
	if err != nil {
		return exitUsage, placeTrials(err, imported.Sources, plannerSources)
	}
	gate := exitPass
	var base *baselineResult
	if c.o.baseline != "" {
		if base, err = c.compareBaseline(ctx, report, margin); err != nil {
			return exitUsage, err
		}
		if !base.pass() {
			gate = exitFail
		}
	}
	if c.o.snapshot != "" {
		if err := writeSnapshot(c.o.snapshot, report); err != nil {
			return exitUsage, err
		}
	}
	if c.o.html != "" {
		write := func(w io.Writer) error { return automium.WriteHTML(w, &report) }
		if base != nil {
			write = func(w io.Writer) error { return automium.WriteBaselineHTML(w, &report, &base.r) }
		}
		if err := writeFileAtomic(c.o.html, write); err != nil {
			return exitUsage, err
		}
	}
	out := bufio.NewWriter(stdout)
	if base != nil {
		if err := base.writeMarkdown(out); err != nil {
			return exitUsage, err
		}
	}
	if err := automium.WriteMarkdown(out, &report); err != nil {
		return exitUsage, err
	}
	if err := out.Flush(); err != nil {
		return exitUsage, fmt.Errorf("writing standard output: %w", err)
	}
	return gate, nil
}

// mapping turns the mapping flags into a ReportMapping.
func (c *comparer) mapping() (automium.ReportMapping, error) {
	var m automium.ReportMapping
	var err error
	if m.Planner, err = parseSource("--planner-from", c.o.plannerFrom); err != nil {
		return m, err
	}
	if m.Journey, err = parseSource("--journey-from", c.o.journeyFrom); err != nil {
		return m, err
	}
	if c.o.repetitionFrom != "" {
		s, err := parseSource("--repetition-from", c.o.repetitionFrom)
		if err != nil {
			return m, err
		}
		m.Repetition = &s
	}
	m.AppID, m.FixtureID = c.o.app, c.o.fixture
	if c.o.notEvaluable != "" {
		for _, o := range strings.Split(c.o.notEvaluable, ",") {
			if strings.TrimSpace(o) == "" {
				return m, &usageError{fmt.Sprintf("--not-evaluable %s lists an empty outcome; write outcomes separated by single commas, such as error,interrupted, or none", quote(c.o.notEvaluable))}
			}
			m.NotEvaluable = append(m.NotEvaluable, automium.Outcome(strings.TrimSpace(o)))
		}
	}
	if c.o.format != "" && !knownFormat(automium.ReportFormat(c.o.format)) {
		return m, &usageError{fmt.Sprintf("--format %s is not a report format; use %s", quote(c.o.format), strings.Join(formatNames(), " or "))}
	}
	return m, nil
}

// parseSource reads project, tag:NAME or annotation:NAME.
func parseSource(flagName, v string) (automium.ReportSource, error) {
	from, name, hasName := strings.Cut(v, ":")
	switch automium.SourceFrom(from) {
	case automium.FromProject:
		if !hasName {
			return automium.ReportSource{From: automium.FromProject}, nil
		}
	case automium.FromTag, automium.FromAnnotation:
		if hasName && strings.TrimSpace(name) != "" {
			return automium.ReportSource{From: automium.SourceFrom(from), Name: name}, nil
		}
	}
	return automium.ReportSource{}, &usageError{fmt.Sprintf("%s %s is not a source; write project, tag:NAME or annotation:NAME (for example tag:journey)", flagName, quote(v))}
}

// checkOutputs refuses an output that is an input, two outputs that are one
// file, and an output that exists but is not a regular file: a run must not
// destroy what it reads, and writes only the files it is told to write.
func (c *comparer) checkOutputs(files []string) error {
	outs := []struct{ flag, name string }{{"--html", c.o.html}, {"--snapshot", c.o.snapshot}}
	reads := append([]string{c.o.baseline}, files...)
	for i, o := range outs {
		if o.name == "" {
			continue
		}
		if winname.Reserved(filepath.Base(o.name)) {
			return &usageError{fmt.Sprintf("%s %s is a device on Windows (CON, PRN, AUX, NUL, COM1, LPT1 and the like, with any extension), not a file; name another file", o.flag, quoteName(o.name))}
		}
		// Lstat: a symbolic link in the output's place is refused, not
		// followed, so the command never writes where it was not told to.
		info, err := os.Lstat(o.name)
		if err == nil && info.Mode()&os.ModeSymlink != 0 {
			return &usageError{fmt.Sprintf("%s %s is a symbolic link; the command does not write through links, so name the file itself or remove the link", o.flag, quoteName(o.name))}
		}
		if err == nil && !info.Mode().IsRegular() {
			return &usageError{fmt.Sprintf("%s %s is not a regular file; name a file to write", o.flag, quoteName(o.name))}
		}
		for _, r := range reads {
			if r != "" && sameFile(o.name, r, false) {
				return &usageError{fmt.Sprintf("%s %s is also an input; write the output to another file", o.flag, quoteName(o.name))}
			}
		}
		for _, p := range outs[:i] {
			if p.name != "" && sameFile(o.name, p.name, true) {
				return &usageError{fmt.Sprintf("%s and %s name one file %s; give each output its own file", p.flag, o.flag, quoteName(o.name))}
			}
		}
	}
	return nil
}

// sameFile reports whether two names are one file: the same file on disk, or,
// for a file not yet written, the same clean path; with fold, the same in any
// case, since on Windows and macOS report.html and Report.html are one file.
func sameFile(a, b string, fold bool) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(ia, ib)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && (absA == absB || fold && strings.EqualFold(absA, absB))
}

// open opens a regular file for reading, bounded by limit bytes. A directory,
// a FIFO, a device (/dev/zero) or a socket is refused before a byte is read,
// and the open itself does not block on a FIFO (openFlags); the check is
// repeated on the open file, which is what is read.
func (c *comparer) open(name string, limit int64) (*inputFile, error) {
	info, err := os.Stat(name)
	if err != nil {
		return nil, &fileError{name, statMessage(err)}
	}
	if msg := notRegular(info); msg != "" {
		return nil, &fileError{name, msg}
	}
	f, err := os.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, &fileError{name, statMessage(err)}
	}
	info, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, &fileError{name, statMessage(err)}
	}
	if msg := notRegular(info); msg != "" {
		f.Close()
		return nil, &fileError{name, msg}
	}
	if info.Size() > limit {
		f.Close()
		return nil, &fileError{name, fmt.Sprintf("is %s, over the %s a run reads; split the run into fewer, smaller reports", mib(info.Size()), mib(limit))}
	}
	in := &inputFile{name: name, f: f, info: info}
	in.r = &boundedReader{c: c, in: in, limit: limit, r: bufio.NewReaderSize(f, 64<<10)}
	return in, nil
}

func notRegular(info os.FileInfo) string {
	switch mode := info.Mode(); {
	case mode.IsRegular():
		return ""
	case mode.IsDir():
		return "is a directory; name the report files in it (for example dir/*.json)"
	case mode&os.ModeNamedPipe != 0:
		return "is a FIFO; write it to a regular file first (a pipe or process substitution is one)"
	case mode&os.ModeDevice != 0:
		return "is a device, not a report file; name a regular file"
	}
	return "is not a regular file; name a report file"
}

func statMessage(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "no such file; check the name and the working directory"
	case errors.Is(err, os.ErrPermission):
		return "cannot be read (permission denied); make it readable"
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return "cannot be opened: " + pe.Err.Error()
	}
	return "cannot be opened: " + err.Error()
}

// detect tells a report's format from its first bytes, unless --format says.
func (c *comparer) detect(in *inputFile) error {
	if c.o.format != "" {
		in.format = automium.ReportFormat(c.o.format)
		return nil
	}
	head, err := in.r.r.Peek(4096)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return &fileError{in.name, "cannot be read: " + readErrText(err)}
	}
	format, ok := formatOf(head)
	if !ok {
		if bytes.IndexByte(head, 0) >= 0 {
			return &fileError{in.name, "holds NUL bytes: it is binary, not a report; name a report of one of " + strings.Join(formatNames(), ", ")}
		}
		if len(bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))) == 0 {
			return &fileError{in.name, "is empty; the test run wrote no report, or wrote it elsewhere"}
		}
		return &fileError{in.name, "is not a report Automium reads (" + strings.Join(formatNames(), ", ") + "); check the file, or name its format with --format"}
	}
	in.format = format
	return nil
}

func readErrText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// boundedReader reads one input file: it stops at its limit (the file may
// grow after its size was checked) and shows progress on a terminal.
type boundedReader struct {
	c     *comparer
	in    *inputFile
	r     *bufio.Reader
	limit int64
	n     int64
	over  bool
	err   error // the first read error of the file itself
	shown int64
}

// errTooLarge stops the report reader at the bound.
var errTooLarge = errors.New("input over its bound")

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.c.read >= maxInputBytes || b.n >= b.limit {
		b.over = true
		return 0, errTooLarge
	}
	p = p[:min(int64(len(p)), b.limit-b.n, maxInputBytes-b.c.read)]
	n, err := b.r.Read(p)
	b.n += int64(n)
	b.c.read += int64(n)
	if err != nil && !errors.Is(err, io.EOF) && b.err == nil {
		b.err = err
	}
	if b.c.progress && b.in.info.Size() >= progressStep && b.n-b.shown >= progressStep {
		b.shown = b.n
		fmt.Fprintf(b.c.stderr, "\rautomium: reading %s: %s of %s", quoteName(b.in.name), mib(b.n), mib(b.in.info.Size()))
	}
	return n, err
}

func (c *comparer) endProgress() {
	for _, in := range c.inputs {
		if in.r.shown > 0 {
			fmt.Fprintln(c.stderr)
			return
		}
	}
}

func (c *comparer) closeAll() {
	for _, in := range c.inputs {
		in.f.Close()
	}
}

// readError says what stopped the reports' reader: the file itself (too
// large, unreadable) where that is the cause, else the reader's problems.
func (c *comparer) readError(err error) error {
	c.endProgress()
	for _, in := range c.inputs {
		if in.r.over {
			return &fileError{in.name, fmt.Sprintf("is over the %s a run reads, all reports together; split the run into fewer, smaller reports", mib(maxInputBytes))}
		}
		if in.r.err != nil {
			return &fileError{in.name, "cannot be read: " + readErrText(in.r.err)}
		}
	}
	return err
}

// plannersOf lists the planners of the trials in order of appearance, with
// vendor and model unspecified: a report names planners by ID only. It also
// returns where each is first (sources[i] is trial i's test), so that a
// problem of a planner no --planner gave is told at a test that names it.
func plannersOf(trials []automium.Trial, sources []string) ([]automium.PlannerRef, []string, error) {
	var out []automium.PlannerRef
	var where []string
	seen := map[string]bool{}
	for i, t := range trials {
		if seen[t.PlannerID] {
			continue
		}
		seen[t.PlannerID] = true
		if len(out) == limit.MaxPlanners {
			return nil, nil, &usageError{fmt.Sprintf("the reports name more than %d planners; compare at most %d at once, chosen with --planner (check --planner-from)", limit.MaxPlanners, limit.MaxPlanners)}
		}
		out = append(out, automium.PlannerRef{ID: t.PlannerID, Vendor: "unspecified", Model: "unspecified"})
		src := ""
		if i < len(sources) {
			src = sources[i]
		}
		where = append(where, src)
	}
	if len(out) == 0 {
		return nil, nil, &usageError{"the reports hold no test that ran (every test was skipped, or there is none); nothing to compare"}
	}
	return out, where, nil
}

// placedError is a library error about one file: its problems' places are
// in that file.
type placedError struct {
	file string
	err  error
}

func (e *placedError) Error() string { return e.err.Error() }

// placeTrials moves a comparison's problems at trials[i] to the test they
// came from, in its report.
func placeTrials(err error, sources, plannerSources []string) error {
	var ae *automium.Error
	if !errors.As(err, &ae) {
		return err
	}
	return &trialsError{err: ae, sources: sources, plannerSources: plannerSources}
}

type trialsError struct {
	err     *automium.Error
	sources []string
	// plannerSources, when the planners were read from the reports, is
	// where each is first: planners[i] is no flag the user gave.
	plannerSources []string
}

func (e *trialsError) Error() string { return e.err.Error() }

// describe renders an error for standard error: a few lines, each naming the
// file and the place, bounded whatever the input.
func (c *comparer) describe(err error) string {
	var b strings.Builder
	prefix := "automium compare: "
	var (
		ue *usageError
		fe *fileError
		pe *placedError
		te *trialsError
		ae *automium.Error
	)
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(&b, "%s%s\nRun automium compare -h for the flags.\n", prefix, ue.msg)
		return b.String()
	case errors.As(err, &fe):
		fmt.Fprintf(&b, "%s%s\n", prefix, fe.Error())
		return b.String()
	case errors.As(err, &pe) && errors.As(pe.err, &ae):
		c.writeProblems(&b, ae, func(field string) string {
			if field == thisRun {
				return "the reports, against the baseline " + quoteName(pe.file)
			}
			return quoteName(pe.file) + placeSuffix(field)
		})
		return b.String()
	case errors.As(err, &te):
		c.writeProblems(&b, te.err, func(field string) string {
			if i, rest, ok := trialIndex(field); ok && i < len(te.sources) {
				return c.place(te.sources[i]) + rest
			}
			if i, ok := plannerIndex(field); ok && i < len(te.plannerSources) && te.plannerSources[i] != "" {
				return c.place(te.plannerSources[i])
			}
			return c.place(field)
		})
		return b.String()
	case errors.As(err, &ae):
		c.writeProblems(&b, ae, c.place)
		return b.String()
	}
	fmt.Fprintf(&b, "%s%s\n", prefix, echo.Cut(err.Error(), 500))
	return b.String()
}

func (c *comparer) writeProblems(b *strings.Builder, ae *automium.Error, place func(string) string) {
	ps := ae.Problems()
	shown := 0
	for i := 0; i < len(ps); {
		// One message at many places (every test of a planner not listed)
		// is said once, with the first place and a count.
		j := i + 1
		for j < len(ps) && ps[j].Message == ps[i].Message && ps[j].Code == ps[i].Code {
			j++
		}
		if shown == maxShownProblems {
			fmt.Fprintf(b, "automium compare: and %d more problems\n", len(ps)-i)
			return
		}
		p := ps[i]
		more := ""
		if j-i > 1 {
			more = fmt.Sprintf(" (and at %d more places)", j-i-1)
		}
		allowed := ""
		if len(p.Allowed) > 0 {
			list := p.Allowed
			if len(list) > 12 {
				list = append(list[:12:12], fmt.Sprintf("and %d more", len(p.Allowed)-12))
			}
			allowed = "; allowed: " + strings.Join(list, ", ")
		}
		fmt.Fprintf(b, "automium compare: %s: %s%s (%s)%s\n", place(p.Field), c.names(p.Message), allowed, p.Code, more)
		shown++
		i = j
	}
}

// place names where a library path is: reports[i].content.X is file i at X;
// a mapping field is the flag that set it.
func (c *comparer) place(field string) string {
	if rest, ok := strings.CutPrefix(field, "reports["); ok {
		if n, tail, ok := strings.Cut(rest, "]"); ok {
			if i, err := strconv.Atoi(n); err == nil && i >= 0 && i < len(c.inputs) {
				tail = strings.TrimPrefix(tail, ".content")
				return quoteName(c.inputs[i].name) + placeSuffix(strings.TrimPrefix(tail, "."))
			}
		}
	}
	for _, f := range []struct{ field, flag string }{
		{"mapping.planner", "--planner-from"}, {"mapping.journey", "--journey-from"}, {"mapping.repetition", "--repetition-from"},
		{"mapping.appId", "--app"}, {"mapping.fixtureId", "--fixture"}, {"mapping.notEvaluable", "--not-evaluable"},
		{"planner", "--planner-from"}, {"journey", "--journey-from"}, {"repetition", "--repetition-from"},
		{"appId", "--app"}, {"fixtureId", "--fixture"}, {"notEvaluable", "--not-evaluable"},
		{"planners", "--planner"},
	} {
		if field == f.field || strings.HasPrefix(field, f.field+".") || strings.HasPrefix(field, f.field+"[") {
			return f.flag
		}
	}
	if field == "" || field == "reports" {
		return "the reports"
	}
	return field
}

// names replaces the report paths a message quotes with the file names.
func (c *comparer) names(msg string) string {
	for _, f := range []struct{ field, flag string }{
		{"mapping.planner", "--planner-from"}, {"mapping.journey", "--journey-from"}, {"mapping.repetition", "--repetition-from"},
		{"mapping.appId", "--app"}, {"mapping.fixtureId", "--fixture"}, {"mapping.notEvaluable", "--not-evaluable"},
		{"add it to planners", "add it with --planner"},
		{"give appId and fixtureId in the mapping", "give --app and --fixture"},
		{"appId and fixtureId go together", "--app and --fixture go together"},
	} {
		msg = strings.ReplaceAll(msg, f.field, f.flag)
	}
	for i := len(c.inputs) - 1; i >= 0; i-- {
		p := "reports[" + strconv.Itoa(i) + "].content"
		msg = strings.ReplaceAll(msg, p+".", quoteName(c.inputs[i].name)+" at ")
		msg = strings.ReplaceAll(msg, p, quoteName(c.inputs[i].name))
	}
	return msg
}

// trialIndex reads i of trials[i]...: a trial's member has no counterpart in
// its test, so the test's place alone says where to look.
func trialIndex(field string) (int, string, bool) {
	rest, ok := strings.CutPrefix(field, "trials[")
	if !ok {
		return 0, "", false
	}
	n, _, ok := strings.Cut(rest, "]")
	i, err := strconv.Atoi(n)
	if !ok || err != nil || i < 0 {
		return 0, "", false
	}
	return i, "", true
}

// plannerIndex reads i of planners[i]...
func plannerIndex(field string) (int, bool) {
	rest, ok := strings.CutPrefix(field, "planners[")
	if !ok {
		return 0, false
	}
	n, _, ok := strings.Cut(rest, "]")
	i, err := strconv.Atoi(n)
	return i, ok && err == nil && i >= 0
}

func placeSuffix(field string) string {
	if field == "" {
		return ""
	}
	return " at " + field
}

// writeFileAtomic writes a file through a temporary file in its directory,
// renamed over it when complete: a failed run leaves the old file or none,
// never half of one.
//
// The file keeps the permissions it had (a new one is 0644). A symbolic link
// that took the file's place since checkOutputs is replaced, never written
// through: rename replaces the link itself.
func writeFileAtomic(name string, write func(io.Writer) error) error {
	perm := os.FileMode(0o644)
	if info, err := os.Lstat(name); err == nil && info.Mode().IsRegular() {
		perm = info.Mode().Perm()
	}
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return &fileError{name, "cannot be written: " + readErrText(err) + "; check that its directory exists and is writable"}
	}
	w := bufio.NewWriter(tmp)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return &fileError{name, "cannot be written: " + readErrText(err)}
	}
	return nil
}

// quote quotes a value the user typed, bounded.
func quote(s string) string { return echo.Quote(s) }

// quoteName shows a file name as typed when it is plain, else quoted and
// cut, so that a name with control characters cannot rewrite the terminal.
func quoteName(s string) string {
	if len(s) <= 200 && utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) || unicode.Is(unicode.Bidi_Control, r) }) {
		return s
	}
	return echo.Quote(s)
}

func mib(n int64) string {
	if n < 1<<20 {
		return strconv.FormatInt(n, 10) + " bytes"
	}
	return strconv.FormatInt(n>>20, 10) + " MiB"
}

// version is the module's version in this binary.
func version() string {
	bi, _ := debug.ReadBuildInfo()
	return modversion.Of(bi, "github.com/automium/automium")
}
