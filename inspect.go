package automium

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/automium/automium/internal/echo"
	"github.com/automium/automium/internal/limit"
)

// inspectFormat is the table row of Inspect AI eval logs.
var inspectFormat = reportFormat{
	name:         FormatInspectAI,
	read:         (*trialBuilder).readInspect,
	noTags:       "an Inspect AI log, which records no tags; map the planner from project (the model) and the journey from annotation id",
	project:      "eval.model (the model evaluated)",
	annotation:   "a sample member %s holding the %s",
	slugJourneys: true,
	// A log written as JSON starts with its version; a .eval log is a zip.
	sniff: func(head []byte) bool {
		return bytes.HasPrefix(head, []byte("PK\x03\x04")) || firstJSONMemberIs("version")(head)
	},
}

// defaultPassScores are the score values that pass when the mapping gives no
// passScores: Inspect's CORRECT ("C"), and 1 and true, which its value_to_float
// also reads as correct. Partial ("P"), no answer ("N"), incorrect ("I"), 0,
// false and any other value fail.
var defaultPassScores = []string{"C", "1", "true"}

// zipMethodZstd is the zip compression method of Zstandard (APPNOTE 4.4.5),
// which Inspect's writer uses by default since 0.3.206.
const zipMethodZstd = 93

// TrialsFromInspectLog reads an Inspect AI eval log and makes one [Trial] of
// each sample, that is each sample ID in each epoch. r is the JSON log (one
// EvalLog with its samples inline) or the bytes of a .eval archive (a zip:
// header.json and one samples/<id>_epoch_<n>.json, or
// samples/<id>_epoch_<n>/sample.json, per sample). An archive is read from
// memory through its central directory, never by scanning local headers: at
// most MaxPlaywrightReportBytes of it, MaxArchiveEntries entries, each
// entry's JSON at most MaxArchiveEntryBytes decompressed and all of them
// MaxArchiveBytes, with entries compressed by deflate, stored or Zstandard
// (the writer's default since Inspect 0.3.206; decoded with a bounded
// window); each entry's JSON goes through the bounded document reader. A
// bare NaN, which Inspect writes for an unscored value and strict JSON does
// not allow, is read as null. A sample becomes a trial as follows:
//
//   - planner: the mapping's project is eval.model (as "openai/gpt-4o-mini");
//     an annotation named N is the sample's member N (a string or number),
//     so the journey is mapped from annotation id;
//   - journey: the value mapped, made a journey ID as [TrialsFromTau2Results]
//     does (an integer sample ID is one already);
//   - repetition: epoch (from 1), unless the mapping reads a repetition;
//   - passed: the value of the sample's first scorer is one of the mapping's
//     passScores, compared as text (numbers in their shortest decimal form,
//     so 1.0 is "1"; booleans as true and false); by default C, 1 and true
//     pass, and every other value (I, P, N, 0, false, a list or an object)
//     fails;
//   - notEvaluable: a sample with an error (outcome error, as the mapping's
//     notEvaluable lists it; by default it is not evaluable); and, always, a
//     sample no scorer scored (no scores, an empty scores, a null or NaN
//     value), which has no verdict to count;
//   - latencyMs: total_time (seconds); latencyUnknown without it (logs
//     before about Inspect 0.3.60 have none);
//   - tokens: input_tokens and output_tokens summed over the sample's
//     model_usage, tokensUnknown without it.
//
// Errors are *Error values at paths into the log; in an archive, under the
// entry's name.
func TrialsFromInspectLog(ctx context.Context, r io.Reader, m ReportMapping) (ImportedTrials, error) {
	return readOneReport(ctx, r, m, FormatInspectAI)
}

// inspectRead reads one Inspect log into a builder: the samples wait until
// the log's model is known (eval comes before samples in a JSON log, but
// nothing requires it, and header.json may come last in an archive).
type inspectRead struct {
	b       *trialBuilder
	ctx     context.Context
	notes   []string
	pass    []string
	model   string
	records []*testRecord
	total   int64 // bytes decompressed so far, in an archive
}

func (b *trialBuilder) readInspect(ctx context.Context, r io.Reader, root Path) error {
	ir := &inspectRead{b: b, ctx: ctx, notes: b.wanted(FromAnnotation), pass: defaultPassScores}
	if len(b.mapping.PassScores) > 0 {
		ir.pass = make([]string, len(b.mapping.PassScores))
		for i, s := range b.mapping.PassScores {
			if n, ok := decimal(s); ok {
				s = formatNumber(n)
			}
			ir.pass[i] = s
		}
	}
	br := bufio.NewReader(r)
	head, _ := br.Peek(4)
	var err error
	if bytes.HasPrefix(head, []byte("PK")) {
		err = ir.archive(br, root)
	} else {
		d := newJSONDoc(ctx, &nanToNull{br: br}, root, "an Inspect AI log")
		err = ir.log(d, root)
	}
	if err != nil {
		return err
	}
	for _, t := range ir.records {
		t.project = ir.model
		if err := b.add(t); err != nil {
			return err
		}
	}
	return nil
}

// log reads a JSON log: eval.model and the samples.
func (ir *inspectRead) log(d *jsonDoc, root Path) error {
	saw := false
	if err := d.object(root, func(name string, at Path) error {
		switch name {
		case "eval":
			return ir.eval(d, at)
		case "samples":
			saw = true
			if d.dec.PeekKind() == 'n' {
				return d.skip(at)
			}
			return d.array(at, func(_ int, at Path) error { return ir.sample(d, at) })
		}
		return d.skip(at)
	}); err != nil {
		return err
	}
	if err := d.end(); err != nil {
		return err
	}
	if !saw {
		return newError(CodeInvalidArgument, root, nil, "has no samples: it is not an Inspect AI log with its samples; pass the log Inspect wrote (inspect log convert turns a .eval into JSON)")
	}
	return nil
}

// eval reads the eval member: the model.
func (ir *inspectRead) eval(d *jsonDoc, at Path) error {
	return d.object(at, func(name string, at Path) error {
		if name != "model" || d.dec.PeekKind() != '"' {
			return d.skip(at)
		}
		s, err := d.str(at)
		ir.model = echo.Cut(s, keptValueBytes)
		return err
	})
}

// sample reads one sample and keeps its record.
func (ir *inspectRead) sample(d *jsonDoc, at Path) error {
	if ir.b.out.Tests+len(ir.records) >= limit.MaxObservedTrials {
		return newError(CodeLimitExceeded, at, nil, "is sample number %d; one call reads at most %d", ir.b.out.Tests+len(ir.records)+1, limit.MaxObservedTrials)
	}
	t := &testRecord{at: at, attempts: 1}
	ir.records = append(ir.records, t)
	scored, sawEpoch := false, false
	var value string
	valueOK, errored := false, false
	err := d.object(at, func(name string, at Path) error {
		switch name {
		case "scores":
			if d.dec.PeekKind() != '{' {
				return d.skip(at)
			}
			first := true
			return d.object(at, func(_ string, at Path) error {
				if !first || d.dec.PeekKind() != '{' {
					return d.skip(at)
				}
				first = false
				return d.object(at, func(name string, at Path) error {
					if name != "value" {
						return d.skip(at)
					}
					kind := d.dec.PeekKind()
					v, ok, err := scalarText(d, at)
					scored = kind != 'n'
					value, valueOK = v, ok
					return err
				})
			})
		case "model_usage":
			if d.dec.PeekKind() != '{' {
				return d.skip(at)
			}
			return d.object(at, func(_ string, at Path) error {
				if d.dec.PeekKind() != '{' {
					return d.skip(at)
				}
				return d.object(at, func(name string, at Path) error {
					i := 0
					switch {
					case d.dec.PeekKind() != '0':
						return d.skip(at)
					case name == "output_tokens":
						i = 1
					case name != "input_tokens":
						return d.skip(at)
					}
					n, err := d.num(at)
					if err == nil {
						t.keepToken(i, formatNumber(n), at)
					}
					return err
				})
			})
		case "error":
			switch d.dec.PeekKind() {
			case 'n':
				return d.skip(at)
			case '"':
				s, err := d.str(at)
				errored = true
				t.keepError(s)
				return err
			case '{':
				errored = true
				return d.object(at, func(name string, at Path) error {
					if name != "message" || d.dec.PeekKind() != '"' {
						return d.skip(at)
					}
					s, err := d.str(at)
					t.keepError(s)
					return err
				})
			}
			return d.skip(at)
		}
		known := name == "epoch" || name == "total_time"
		if !known && !containsString(ir.notes, name) {
			return d.skip(at)
		}
		v, ok, err := scalarText(d, at)
		if err != nil || !ok {
			return err
		}
		if containsString(ir.notes, name) {
			t.keep(string(FromAnnotation)+"\x00"+name, v)
		}
		switch name {
		case "epoch":
			n, ok := wholeNumber(v)
			if !ok || n < 1 || n > limit.MaxRepetitions {
				return newError(CodeInvalidArgument, at, nil, "is %s; an epoch is a whole number from 1 to %d", echo.Value(v), limit.MaxRepetitions)
			}
			t.rep, sawEpoch = int(n), true
		case "total_time":
			sec, ok := junitSeconds(v)
			if !ok {
				return newError(CodeInvalidArgument, at, nil, "is %s; a sample's total_time is seconds, from 0 to %d", echo.Value(v), limit.MaxTrialLatencyMs/1000)
			}
			t.ms, t.msKnown = sec*1000, true
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !sawEpoch {
		return newError(CodeInvalidArgument, at.Field("epoch"), nil, "is missing; every Inspect sample has its epoch; pass the log unedited")
	}
	switch {
	case errored:
		t.errored, t.outcome = true, OutcomeError
	case !scored:
		t.noVerdict = true
	case valueOK && containsString(ir.pass, value):
		t.passed = true
	default:
		if valueOK {
			t.keepError("score " + value)
		}
	}
	return nil
}

// archive reads a .eval archive from memory, entry by entry through its
// central directory.
func (ir *inspectRead) archive(r io.Reader, root Path) error {
	raw, err := io.ReadAll(io.LimitReader(r, limit.MaxPlaywrightReportBytes+1))
	if err != nil {
		return newError(CodeInvalidArgument, root, nil, "could not be read: %s", echo.Value(err.Error()))
	}
	if len(raw) > limit.MaxPlaywrightReportBytes {
		return newError(CodeLimitExceeded, root, nil, "is larger than %d bytes; split the run into smaller logs", limit.MaxPlaywrightReportBytes)
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	// An entry name with ".." or a drive letter only matters to whoever
	// writes the entry out; nothing here is written or opened.
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return newError(CodeInvalidArgument, root, nil, "is not a zip archive a reader can list (%s); pass the .eval file Inspect wrote, unedited", echo.Value(err.Error()))
	}
	if len(zr.File) > limit.MaxArchiveEntries {
		return newError(CodeLimitExceeded, root, nil, "has %d entries; an archive may have at most %d", len(zr.File), limit.MaxArchiveEntries)
	}
	zr.RegisterDecompressor(zipMethodZstd, zstdDecompressor)
	// The log's own header: the last header.json the central directory
	// lists (an edited log appends a new one), else the journal's start,
	// which an unfinished run has alone.
	var header *zip.File
	for _, f := range zr.File {
		if f.Name == "header.json" || header == nil && f.Name == "_journal/start.json" {
			header = f
		}
	}
	if header == nil {
		return newError(CodeInvalidArgument, root, nil, "has neither header.json nor _journal/start.json: it is not an Inspect AI .eval log")
	}
	if err := ir.entry(header, root, func(d *jsonDoc, at Path) error {
		return d.object(at, func(name string, at Path) error {
			if name == "eval" {
				return ir.eval(d, at)
			}
			return d.skip(at)
		})
	}); err != nil {
		return err
	}
	for _, f := range zr.File {
		if !inspectSampleEntry(f.Name) {
			continue
		}
		if err := ir.entry(f, root, ir.sample); err != nil {
			return err
		}
	}
	return nil
}

// inspectSampleEntry reports whether an entry is a sample:
// samples/<id>_epoch_<n>.json, or samples/<id>_epoch_<n>/sample.json as
// recent versions store a large sample.
func inspectSampleEntry(name string) bool {
	rest, ok := strings.CutPrefix(name, "samples/")
	if !ok {
		return false
	}
	dir, file, nested := strings.Cut(rest, "/")
	if nested {
		return file == "sample.json" && dir != ""
	}
	return strings.HasSuffix(rest, ".json") && len(rest) > len(".json")
}

// entry reads one JSON entry of an archive under the archive's bounds.
func (ir *inspectRead) entry(f *zip.File, root Path, read func(d *jsonDoc, at Path) error) error {
	at := root.Field(f.Name)
	if f.UncompressedSize64 > limit.MaxArchiveEntryBytes {
		return newError(CodeLimitExceeded, at, nil, "says it holds %d bytes; an entry may hold at most %d", f.UncompressedSize64, limit.MaxArchiveEntryBytes)
	}
	if f.Method != zip.Store && f.Method != zip.Deflate && f.Method != zipMethodZstd {
		return newError(CodeInvalidArgument, at, nil, "is compressed with zip method %d; an Inspect log's entries are stored, deflated (8) or Zstandard (93)", f.Method)
	}
	rc, err := f.Open()
	if err != nil {
		return newError(CodeInvalidArgument, at, nil, "cannot be opened (%s); pass the .eval file Inspect wrote, unedited", echo.Value(err.Error()))
	}
	defer rc.Close()
	in := &archiveBytes{r: rc, left: limit.MaxArchiveEntryBytes, ir: ir}
	d := newJSONDoc(ir.ctx, &nanToNull{br: bufio.NewReader(in)}, at, "an Inspect AI log entry")
	err = read(d, at)
	if err == nil {
		err = d.end()
	}
	if err == nil {
		// Read to the end, so that the reader checks the entry's CRC-32
		// and size against the central directory.
		_, _ = io.Copy(io.Discard, in)
	}
	if in.err != nil && !in.over {
		return newError(CodeInvalidArgument, at, nil, "does not match its central directory record (%s): the archive is damaged; pass the .eval file Inspect wrote, unedited", echo.Value(in.err.Error()))
	}
	if in.over {
		return newError(CodeLimitExceeded, at, nil, "decompresses to more than %d bytes, or the archive's entries to more than %d in all; an Inspect log's entries are far smaller",
			limit.MaxArchiveEntryBytes, limit.MaxArchiveBytes)
	}
	return err
}

// archiveBytes counts the bytes one entry decompresses to, against the
// entry's bound and the archive's, and stops at the first byte past either:
// a zip bomb costs at most those bytes of work, whatever its headers say.
type archiveBytes struct {
	r    io.Reader
	left int64
	ir   *inspectRead
	over bool
	err  error // the decompressor's error, EOF aside: a damaged entry
}

var errArchiveTooLarge = errors.New("archive entry too large")

func (a *archiveBytes) Read(p []byte) (int, error) {
	if a.over {
		return 0, errArchiveTooLarge
	}
	n, err := a.r.Read(p)
	if err != nil && err != io.EOF && a.err == nil {
		a.err = err
	}
	a.left -= int64(n)
	a.ir.total += int64(n)
	if a.left < 0 || a.ir.total > limit.MaxArchiveBytes {
		a.over = true
		return 0, errArchiveTooLarge
	}
	return n, err
}

// zstdDecompressor decodes a Zstandard entry with a bounded window and
// memory, one goroutine, so that a frame cannot claim more than an entry may
// hold.
func zstdDecompressor(r io.Reader) io.ReadCloser {
	dec, err := zstd.NewReader(r,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(limit.MaxArchiveEntryBytes),
		zstd.WithDecoderMaxMemory(limit.MaxArchiveEntryBytes))
	if err != nil {
		return io.NopCloser(errReader{err})
	}
	return dec.IOReadCloser()
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// nanToNull passes a JSON document through, reading each bare NaN outside a
// string as null: Python's json module writes float('nan') as NaN, which
// strict JSON (and jsontext) refuses, and Inspect writes it for an unscored
// value. Infinity and -Infinity stay refused. It keeps two bytes of state.
type nanToNull struct {
	br  *bufio.Reader
	in  bool // inside a string
	esc bool // after a backslash inside a string
	out []byte
}

var nullBytes = []byte("null")

func (n *nanToNull) Read(p []byte) (int, error) {
	i := 0
	for i < len(p) {
		if len(n.out) > 0 {
			c := copy(p[i:], n.out)
			n.out, i = n.out[c:], i+c
			continue
		}
		c, err := n.br.ReadByte()
		if err != nil {
			if i > 0 {
				return i, nil
			}
			return 0, err
		}
		switch {
		case n.in:
			switch {
			case n.esc:
				n.esc = false
			case c == '\\':
				n.esc = true
			case c == '"':
				n.in = false
			}
		case c == '"':
			n.in = true
		case c == 'N':
			if next, _ := n.br.Peek(2); string(next) == "aN" {
				_, _ = n.br.Discard(2)
				n.out = nullBytes
				continue
			}
		}
		p[i] = c
		i++
	}
	return i, nil
}
