package automium

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/automium/automium/internal/testsupport"
	"github.com/google/go-cmp/cmp"
)

// TestDocAtKept: a kept place is the whole path while it is short, and its
// way in, a gap and its last steps past that, whatever the depth.
func TestDocAtKept(t *testing.T) {
	tests := []struct {
		levels int
		want   string
	}{
		{1, "reports[0].content.testsuites.testsuite[0].testcase[3]"},
		{3, "reports[0].content.testsuites.testsuite[0].testsuite[0].testsuite[0].testcase[3]"},
		{4, "reports[0].content.testsuites.testsuite[0]…testsuite[0].testsuite[0].testcase[3]"},
		{90, "reports[0].content.testsuites.testsuite[0]…testsuite[0].testsuite[0].testcase[3]"},
	}
	for _, tt := range tests {
		at := docAt{s: &docSteps{root: field("reports").at(0).dot("content")}}
		at = at.field("testsuites")
		for range tt.levels {
			at = at.field("testsuite").index(0)
		}
		at = at.field("testcase").index(3)
		kept := at.kept()
		if diff := cmp.Diff(tt.want, kept.String()); diff != "" {
			t.Errorf("%d levels: kept (-want +got):\n%s", tt.levels, diff)
		}
		if n := len(kept.steps); n > 4+keptHead+1+keptTail {
			t.Errorf("%d levels: kept %d steps", tt.levels, n)
		}
		if got, want := at.path().String(), "reports[0].content.testsuites"+strings.Repeat(".testsuite[0]", tt.levels)+".testcase[3]"; got != want {
			t.Errorf("%d levels: path %s, want %s", tt.levels, got, want)
		}
	}
}

// TestAttributeTwice: an attribute given twice is refused among a few (compared
// pairwise) and among many (through a set), and distinct ones are not.
func TestAttributeTwice(t *testing.T) {
	for _, n := range []int{2, attrTwiceScan, attrTwiceScan + 1, 1000} {
		var distinct strings.Builder
		for i := range n {
			fmt.Fprintf(&distinct, ` a%d="1"`, i)
		}
		doc := func(attrs string) string {
			return `<testsuite name="s" hostname="baseline"` + attrs + `><testcase name="t"><properties><property name="journey" value="storefront-search-add-to-cart"/></properties></testcase></testsuite>`
		}
		if _, err := TrialsFromJUnitReport(context.Background(), strings.NewReader(doc(distinct.String())), byHostAndProperty); err != nil {
			t.Errorf("%d distinct attributes: %v", n, err)
		}
		twice := strings.Replace(distinct.String(), fmt.Sprintf(` a%d="1"`, n-1), ` a0="2"`, 1)
		_, err := TrialsFromJUnitReport(context.Background(), strings.NewReader(doc(twice)), byHostAndProperty)
		if err == nil || !strings.Contains(err.Error(), "gives the attribute \"a0\" twice") {
			t.Errorf("%d attributes, a0 twice: %v", n, err)
		}
	}
}

// wholeDocumentDecoders are the calls that decode a whole document before
// anything is counted: a general decoder builds the tree of whatever it is
// given, which is how 8 MiB of empty Playwright tests once cost 700 MiB.
var wholeDocumentDecoders = map[string][]string{
	"json": {"Unmarshal", "UnmarshalRead", "UnmarshalDecode", "NewDecoder"},
	"xml":  {"Unmarshal", "NewDecoder", "NewTokenDecoder"},
}

// decoderAllowed are the calls outside the bounded reader that may decode
// with them, each on data that is not a document a client passed inside a
// value: file -> the enclosing functions allowed.
var decoderAllowed = map[string][]string{
	// The bounded reader itself: token by token, under the document bounds.
	"docread.go": {"newXMLDoc"},
	// A Go client reads an *Error of this package back from its own JSON.
	"automium.go": {"UnmarshalJSON"},
	// go generate reads this module's own corpus (corpus/corpus.json).
	"generate.go": {"*"},
	// Embedded, precomputed figures of this module.
	"mcpserver/resources.go": {"*"}, "mcpserver/catalog.go": {"*"},
	// One JSON-RPC id string the envelope's token reader already bounded.
	"mcpserver/transport/internal/envelope/envelope.go": {"idOf"},
	// A server's input schema, already canonicalised and bounded by binding's
	// own token reader before it is decoded.
	"binding/schema.go": {"*"},
	// A prompt's arguments, which projectPrompt already read through
	// binding's bounded item reader, matched back by name.
	"binding/catalogv2.go": {"withRest"},
}

// TestNoWholeDocumentDecoders is a vet-like check of the rule "whole-document
// decoders never see client data": outside the bounded reader (docread.go)
// and the allowed calls above, no non-test file of the root package, contract, the MCP
// adapter, its envelope and stdio transport or the binding packages calls
// json.Unmarshal, json.NewDecoder, xml.Unmarshal, xml.NewDecoder or the like.
// A document a client passes inside a value goes through jsonDoc or xmlDoc,
// which count before they keep anything.
func TestNoWholeDocumentDecoders(t *testing.T) {
	var files []string
	for _, glob := range []string{"*.go", "contract/*.go", "mcpserver/*.go", "mcpserver/transport/internal/envelope/*.go", "mcpserver/transport/stdio/*.go", "binding/*.go", "binding/dispatch/*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				for _, bad := range wholeDocumentDecoders[pkg.Name] {
					if sel.Sel.Name != bad {
						continue
					}
					checked++
					allowed := decoderAllowed[filepath.ToSlash(name)]
					if !containsString(allowed, "*") && !containsString(allowed, fn.Name.Name) {
						t.Errorf("%s: %s calls %s.%s; read a client's document with the bounded reader (docread.go) instead", fset.Position(sel.Pos()), fn.Name.Name, pkg.Name, bad)
					}
				}
				return true
			})
		}
	}
	if checked == 0 {
		t.Fatal("no decoder call found at all; the scan is looking in the wrong place")
	}
}

// depthTrials is how many trials each report of the depth test holds: enough
// that what one read costs once (the decoder, the chain of suites) is small
// beside what it costs per trial.
const depthTrials = 2000

var depthMapping = ReportMapping{
	Planner: ReportSource{From: FromProject},
	Journey: ReportSource{From: FromAnnotation, Name: "journey"},
	AppID:   "storefront", FixtureID: "storefront-guest-catalog",
}

// depthJUnit is a JUnit report of depthTrials testcases, each with members the
// reader skips, inside a chain of suites nesting levels deep (1: flat).
func depthJUnit(levels int) string {
	var b strings.Builder
	b.WriteString(`<testsuites>`)
	for range levels {
		b.WriteString(`<testsuite name="s" hostname="baseline">`)
	}
	for i := range depthTrials {
		fmt.Fprintf(&b, `<testcase name="t%d" classname="c" time="0.5"><properties><property name="journey" value="j-%d"/></properties><system-err><a><b x="1">skipped</b><b>text</b></a></system-err></testcase>`, i, i%50)
	}
	for range levels {
		b.WriteString(`</testsuite>`)
	}
	b.WriteString(`</testsuites>`)
	return b.String()
}

// depthPlaywright is a Playwright JSON report of depthTrials tests, each with
// members the reader skips, inside a chain of suites nesting levels deep.
func depthPlaywright(levels int) string {
	var b strings.Builder
	b.WriteString(`{"config":{},"suites":[`)
	for i := range levels {
		if i > 0 {
			b.WriteString(`"suites":[`)
		}
		b.WriteString(`{"title":"s",`)
	}
	b.WriteString(`"specs":[`)
	for i := range depthTrials {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"title":"t","id":"id%d","tests":[{"projectName":"baseline","status":"expected","annotations":[{"type":"journey","description":"j-%d"}],"results":[{"status":"passed","duration":500,"startTime":"2026-12-03T10:00:00.000Z","stdout":[{"text":"skipped"},{"text":"text"}]}]}]}`, i, i%50)
	}
	b.WriteString(`]`)
	for range levels {
		b.WriteString(`}]`)
	}
	b.WriteString(`}`)
	return b.String()
}

// TestReaderCostFollowsTrialsNotDepth holds what issue 36 asked: a report of
// the same trials costs the same, within 1.5x, whether its tests sit at the top
// or at the depth bound, in bytes allocated and in allocations (the CPU's
// deterministic proxy: a path copied per token, or per kept test, is an
// allocation whose size grows with the depth). It once grew 9x in memory for
// JUnit and 3.7x for JSON, and 6x in CPU.
func TestReaderCostFollowsTrialsNotDepth(t *testing.T) {
	if testsupport.RaceEnabled {
		t.Skip("allocation figures under -race are the detector's")
	}
	// The deepest chain each format allows: JUnit's testsuites, the testcase
	// and its properties, property and skipped members take 6 levels of the
	// document's bound; Playwright's suites have a bound of their own.
	cases := []struct {
		format ReportFormat
		report func(levels int) string
		deep   int
	}{
		{FormatJUnit, depthJUnit, limit.MaxDocumentDepth - 6},
		{FormatPlaywrightJSON, depthPlaywright, limit.MaxPlaywrightSuiteDepth},
	}
	for _, c := range cases {
		t.Run(string(c.format), func(t *testing.T) {
			flat, deep := c.report(1), c.report(c.deep)
			read := func(doc string) ImportedTrials {
				got, err := ReadReports(context.Background(), depthMapping, ReportReader{Format: c.format, R: strings.NewReader(doc)})
				if err != nil {
					t.Fatal(err)
				}
				return got
			}
			if f, d := read(flat), read(deep); len(f.Trials) != depthTrials || len(d.Trials) != depthTrials {
				t.Fatalf("read %d and %d trials; want %d each", len(f.Trials), len(d.Trials), depthTrials)
			}
			cost := func(doc string) (bytes uint64, allocs float64) {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				read(doc)
				runtime.ReadMemStats(&after)
				return after.TotalAlloc - before.TotalAlloc, testing.AllocsPerRun(3, func() { read(doc) })
			}
			fb, fa := cost(flat)
			db, da := cost(deep)
			t.Logf("%s: flat %d B in %.0f allocations, %d levels deep %d B in %.0f allocations", c.format, fb, fa, c.deep, db, da)
			if float64(db) > 1.5*float64(fb) {
				t.Errorf("%d levels deep allocates %d B against %d B flat (%.2fx); the bound is 1.5x", c.deep, db, fb, float64(db)/float64(fb))
			}
			if da > 1.5*fa {
				t.Errorf("%d levels deep makes %.0f allocations against %.0f flat (%.2fx); the bound is 1.5x", c.deep, da, fa, da/fa)
			}
		})
	}
}

// BenchmarkReaderDepth gives the CPU of the two shapes of
// TestReaderCostFollowsTrialsNotDepth, to compare as a ratio.
func BenchmarkReaderDepth(b *testing.B) {
	for _, c := range []struct {
		format ReportFormat
		report func(levels int) string
		deep   int
	}{
		{FormatJUnit, depthJUnit, limit.MaxDocumentDepth - 6},
		{FormatPlaywrightJSON, depthPlaywright, limit.MaxPlaywrightSuiteDepth},
	} {
		for _, levels := range []int{1, c.deep} {
			doc := c.report(levels)
			b.Run(fmt.Sprintf("%s/levels=%d", c.format, levels), func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				for b.Loop() {
					if _, err := ReadReports(context.Background(), depthMapping, ReportReader{Format: c.format, R: strings.NewReader(doc)}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
