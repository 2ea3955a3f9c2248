package main

import (
	"github.com/automium/automium"
)

// formatNames are the formats compare reads, from the library's format table.
func formatNames() []string {
	var out []string
	for _, f := range automium.ReportFormats() {
		out = append(out, string(f))
	}
	return out
}

func knownFormat(f automium.ReportFormat) bool {
	for _, k := range automium.ReportFormats() {
		if k == f {
			return true
		}
	}
	return false
}

// formatOf tells a report's format from its first bytes, by the table.
func formatOf(head []byte) (automium.ReportFormat, bool) {
	return automium.DetectReportFormat(head)
}
