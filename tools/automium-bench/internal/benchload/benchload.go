// Package benchload is the one record automium-bench fills its peers with
// (sdkpeer and floorpeer read it from a bench_load call's arguments).
package benchload

import "encoding/json"

// Load says what a peer answers: a call with this tool name and these
// argument bytes gets Text as its one text block and Structured as its
// structured content. Since issue 36 the two differ (a Markdown summary and
// JSON), so a peer must serve each exactly.
type Load struct {
	Tool       string          `json:"tool"`
	Args       json.RawMessage `json:"args"`
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured"`
}
