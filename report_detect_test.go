package automium

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDetectReportFormatHeads: every format's real files are told apart by their
// first 4 KiB, through the table; anything else is no format.
func TestDetectReportFormatHeads(t *testing.T) {
	head := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data[:min(len(data), 4096)])
	}
	type answer struct {
		Format ReportFormat
		OK     bool
	}
	tests := []struct {
		name, head string
		want       answer
	}{
		{"playwright json", head("testdata/playwright/report.json"), answer{FormatPlaywrightJSON, true}},
		{"playwright junit", head("testdata/playwright/junit.xml"), answer{FormatJUnit, true}},
		{"inspect .eval", head("testdata/agent-evals/inspect/log_streaming.eval"), answer{FormatInspectAI, true}},
		{"inspect json", head("testdata/agent-evals/inspect/2025-05-12T20-28-13-04-00_popularity.json"), answer{FormatInspectAI, true}},
		{"tau2", head("testdata/agent-evals/tau2/gpt-4.1_telecom_default_gpt-4.1_1trials.subset-7tasks.json"), answer{FormatTau2, true}},
		{"bom and space", "\xef\xbb\xbf \n{\"config\": {}}", answer{FormatPlaywrightJSON, true}},
		{"escaped name", `{"\u0063onfig": {}}`, answer{FormatPlaywrightJSON, true}},
		{"unknown first member", `{"suitez": []}`, answer{}},
		{"array", `[{"config": {}}]`, answer{}},
		{"name cut by the head", `{"conf`, answer{}},
		{"empty", "", answer{}},
		{"text", "hello", answer{}},
		{"nul", "\x00\x00", answer{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := DetectReportFormat([]byte(tt.head))
			if diff := cmp.Diff(tt.want, answer{f, ok}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if diff := cmp.Diff([]ReportFormat{FormatJUnit, FormatPlaywrightJSON, FormatInspectAI, FormatTau2}, ReportFormats()); diff != "" {
		t.Errorf("ReportFormats (-want +got):\n%s", diff)
	}
}
