package safetytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// summarize describes a response line: its outcome and its id.
func summarize(t testing.TB, line []byte) string {
	t.Helper()
	r := parse(t, line)
	id := string(r.ID)
	if len(id) > 40 {
		id = fmt.Sprintf("<%d-byte string>", len(id))
	}
	switch {
	case r.Error != nil:
		return fmt.Sprintf("error %d, id %s", r.Error.Code, id)
	case r.Result == nil:
		return "neither result nor error, id " + id
	}
	var tr toolResult
	if json.Unmarshal(r.Result, &tr) == nil && tr.IsError {
		return fmt.Sprintf("isError %s, id %s", tr.errorCode(), id)
	}
	return "result, id " + id
}

// TestProtocolAbuse sends each abuse case to the real binary over a raw pipe and
// checks every response, then sends the same valid request after each case and
// requires the answer given before any abuse, byte for byte. The cases, with
// the responses they must get, are the table in SECURITY.md (abuseTable, which
// go generate ./... writes and TestGenerated holds the document to).
func TestProtocolAbuse(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short, run in full by go test ./... and CI")
	}
	run := func(p *process, cases []abuseCase, baseline []byte) {
		for _, c := range cases {
			p.send(c.lines...)
			var got []string
			for range c.want {
				got = append(got, summarize(t, p.next()))
			}
			// Responses to one case may come in either order (the transport
			// answers what it rejects itself at once).
			if !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(c.want))) {
				t.Errorf("%s: got %q, want %q", c.name, got, c.want)
			}
			if baseline != nil {
				if after := p.call(checkLine); !bytes.Equal(after, baseline) {
					t.Errorf("%s: the next valid request got\n%.500s\nwant, as before any abuse,\n%.500s", c.name, after, baseline)
				}
			}
		}
	}

	p := start(t, "")
	run(p, beforeInitializeCases, nil)
	p.initialize()
	baseline := p.call(checkLine)
	if s := summarize(t, baseline); s != `result, id "check"` {
		t.Fatalf("check request before any abuse: %s", s)
	}
	run(p, abuseCases(), baseline)
	p.close()
}
