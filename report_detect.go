package automium

// ReportFormats lists the report formats [ReadReports] and [CompareReports]
// read, in the format table's order.
func ReportFormats() []ReportFormat {
	out := make([]ReportFormat, len(reportFormats))
	for i, f := range reportFormats {
		out[i] = f.name
	}
	return out
}
