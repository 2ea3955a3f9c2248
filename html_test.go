package automium

import (
	"bytes"
	"context"
	"os"
	"testing"
)

func fixtureComparison(t testing.TB) ComparisonReport {
	t.Helper()
	got, err := CompareReports(context.Background(), CompareReportsInput{CorpusVersion: CorpusVersion, Planners: pwPlanners,
		Reports: []ReportContent{{Format: FormatPlaywrightJSON, Content: string(realPlaywrightReport(t))}}, Mapping: byProjectAndTag})
	if err != nil {
		t.Fatal(err)
	}
	return got.Comparison
}

func TestWriteHTMLScratch(t *testing.T) {
	r := fixtureComparison(t)
	var b bytes.Buffer
	if err := WriteHTML(&b, &r); err != nil {
		t.Fatal(err)
	}
	os.WriteFile("/tmp/cli-scratch.html", b.Bytes(), 0o644)
}
