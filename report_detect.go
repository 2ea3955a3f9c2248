package automium

import (
	"bytes"
	"encoding/json/jsontext"
	"slices"
)

// ReportFormats lists the report formats [ReadReports] and [CompareReports]
// read, in the format table's order.
func ReportFormats() []ReportFormat {
	out := make([]ReportFormat, len(reportFormats))
	for i, f := range reportFormats {
		out[i] = f.name
	}
	return out
}

// DetectReportFormat tells a report's format from its first bytes, as a
// command that reads files must when it is not told: each row of the format
// table recognises its own (Playwright JSON by its first member, config;
// Inspect AI by version, or a .eval zip; τ²-bench by timestamp; JUnit by
// its markup). head needs only the first few KiB of the report. It
// reports false when no format, or more than one, recognises head: then the
// caller names the format. It reads head only, and never more than the
// first member of a JSON document.
func DetectReportFormat(head []byte) (ReportFormat, bool) {
	var found []ReportFormat
	for _, f := range reportFormats {
		if f.sniff != nil && f.sniff(head) {
			found = append(found, f.name)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// trimHead drops a UTF-8 byte order mark and leading white space.
func trimHead(head []byte) []byte {
	return bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
}

// startsWithMarkup recognises an XML document: its first character is <.
func startsWithMarkup(head []byte) bool {
	head = trimHead(head)
	return len(head) > 0 && head[0] == '<'
}

// firstJSONMemberIs recognises a JSON object whose first member has one of
// the names: what a reporter that writes its members in a fixed order
// starts with.
func firstJSONMemberIs(names ...string) func(head []byte) bool {
	return func(head []byte) bool {
		head = trimHead(head)
		if len(head) == 0 || head[0] != '{' {
			return false
		}
		dec := jsontext.NewDecoder(bytes.NewReader(head))
		if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
			return false
		}
		tok, err := dec.ReadToken()
		if err != nil || tok.Kind() != '"' {
			return false
		}
		return slices.Contains(names, tok.String())
	}
}
