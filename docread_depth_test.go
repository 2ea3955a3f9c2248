package automium_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/limit"
)

// depthTrials is how many trials each report of the depth test holds: enough
// that what one read costs once (the decoder, the chain of suites) is small
// beside what it costs per trial.
const depthTrials = 2000

var depthMapping = automium.ReportMapping{
	Planner: automium.ReportSource{From: automium.FromProject},
	Journey: automium.ReportSource{From: automium.FromAnnotation, Name: "journey"},
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
	if raceEnabled {
		t.Skip("allocation figures under -race are the detector's")
	}
	// The deepest chain each format allows: JUnit's testsuites, the testcase
	// and its properties, property and skipped members take 6 levels of the
	// document's bound; Playwright's suites have a bound of their own.
	cases := []struct {
		format automium.ReportFormat
		report func(levels int) string
		deep   int
	}{
		{automium.FormatJUnit, depthJUnit, limit.MaxDocumentDepth - 6},
		{automium.FormatPlaywrightJSON, depthPlaywright, limit.MaxPlaywrightSuiteDepth},
	}
	for _, c := range cases {
		t.Run(string(c.format), func(t *testing.T) {
			flat, deep := c.report(1), c.report(c.deep)
			read := func(doc string) automium.ImportedTrials {
				got, err := automium.ReadReports(context.Background(), depthMapping, automium.ReportReader{Format: c.format, R: strings.NewReader(doc)})
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
		format automium.ReportFormat
		report func(levels int) string
		deep   int
	}{
		{automium.FormatJUnit, depthJUnit, limit.MaxDocumentDepth - 6},
		{automium.FormatPlaywrightJSON, depthPlaywright, limit.MaxPlaywrightSuiteDepth},
	} {
		for _, levels := range []int{1, c.deep} {
			doc := c.report(levels)
			b.Run(fmt.Sprintf("%s/levels=%d", c.format, levels), func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				for b.Loop() {
					if _, err := automium.ReadReports(context.Background(), depthMapping, automium.ReportReader{Format: c.format, R: strings.NewReader(doc)}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
