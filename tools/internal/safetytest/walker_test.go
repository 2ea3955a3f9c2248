package safetytest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestArgumentNamesAreReadOnce checks, against the real binary, that tool
// arguments are read as one input: a property name means the same whether or not
// it is escaped, so an escape can neither add a second value for a property nor
// hide one, and a case variant is not a property.
func TestArgumentNamesAreReadOnce(t *testing.T) {
	planner := `{"id":"baseline","vendor":"openai","model":"gpt-4.1-mini"}`
	submission := func(planners string) string {
		return `{"journeyId":"storefront-search-add-to-cart","appId":"storefront","fixtureId":"storefront-guest-catalog",` + planners + `,"environmentProfileId":"desktop-1440-en-us"}`
	}
	tests := []struct {
		name, tool, args, want string
	}{
		{"app ID twice, once escaped", "automium_list_fixtures", `{"appId":"kanban","app\u0049d":"banking"}`, "rpc -32600"},
		{"app ID escaped once", "automium_list_fixtures", `{"app\u0049d":"banking"}`, ""},
		{"planner twice, once escaped", "automium_create_run_submission", submission(`"planner":` + planner + `,"pl\u0061nner":` + planner), "rpc -32600"},
		{"planner twice, of two kinds", "automium_create_run_submission", submission(`"planner":` + planner + `,"pl\u0061nner":"x"`), "rpc -32600"},
		{"app ID in another case", "automium_list_fixtures", `{"AppID":"banking"}`, "invalid_argument AppID"},
		{"empty app ID", "automium_list_fixtures", `{"appId":""}`, "invalid_argument appId"},
		{"null app ID", "automium_list_fixtures", `{"appId":null}`, "invalid_argument appId"},
	}
	p := start(t, "")
	p.initialize()
	for i, tt := range tests {
		r := parse(t, p.call(toolLine(fmt.Sprint(i+1), tt.tool, tt.args)))
		if r.Error != nil {
			// A name twice, however escaped, is refused by the door before
			// the walker sees the arguments.
			if got := fmt.Sprintf("rpc %d", r.Error.Code); got != tt.want {
				t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
			}
			continue
		}
		var tr toolResult
		if r.Error != nil || json.Unmarshal(r.Result, &tr) != nil {
			t.Fatalf("%s: not a tool result: %+v", tt.name, r)
		}
		got := ""
		if tr.IsError {
			got = tr.errorCode() + " " + errorField(tr)
		}
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
		if tt.want == "" && (!strings.Contains(string(tr.StructuredContent), `"appId":"banking"`) || strings.Contains(string(tr.StructuredContent), `"appId":"kanban"`)) {
			t.Errorf("%s: the escaped name was not read as appId: %.300s", tt.name, r.Result)
		}
	}
	p.close()
}

// errorField is the field of an isError tool result's automium error.
func errorField(r toolResult) string {
	for _, c := range r.Content {
		var body struct {
			Error struct {
				Field string `json:"field"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(c.Text), &body) == nil && body.Error.Field != "" {
			return body.Error.Field
		}
	}
	return ""
}

// TestHostileArgumentNamesCostOnePass measures, against the real binary, the most
// a tool call's arguments can cost under the 8 MiB cap whatever name holds them:
// millions of empty objects under a bounded name, its escaped spelling, a case
// variant or an unknown name are each refused after one pass over the bytes, in
// the same time and memory. Over stdio the transport's structure bound refuses
// such a line (-32600) before the argument walker sees it; over HTTP the walker
// does (mcpserver TestHostileArgumentsCostOnePass). Before either, the escaped
// name cost seconds and hundreds of MiB (SECURITY.md records both).
func TestHostileArgumentNamesCostOnePass(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 8 MiB of arguments per case; skipped with -short")
	}
	const argumentCap = 8 << 20
	for _, tt := range []struct{ key, want string }{
		{"steps", "error -32600, id 1"},
		{`st\u0065ps`, "error -32600, id 1"},
		{"Steps", "error -32600, id 1"},
		{"junk", "error -32600, id 1"},
	} {
		t.Run(tt.key, func(t *testing.T) {
			p := start(t, "")
			p.initialize()
			_, idle := p.rss()
			n := (argumentCap - len(`{"`+tt.key+`":[]}`) + 1) / len(`{},`)
			args := `{"` + tt.key + `":[` + strings.TrimSuffix(strings.Repeat(`{},`, n), ",") + `]}`
			began := time.Now()
			line := p.call(toolLine("1", "automium_compile_journey", args))
			elapsed := time.Since(began)
			if r := summarize(t, line); r != tt.want {
				t.Errorf("%d bytes under %q: %s, want %s", len(args), tt.key, r, tt.want)
			}
			if r := summarize(t, p.call(checkLine)); r != `result, id "check"` {
				t.Errorf("request after the hostile arguments: %s", r)
			}
			_, peak := p.rss()
			t.Logf("%d empty objects under %q (%d bytes): answered in %v with %d bytes; VmHWM %.0f MiB (idle %.0f MiB)",
				n, tt.key, len(args), elapsed.Round(time.Millisecond), len(line), float64(peak)/(1<<20), float64(idle)/(1<<20))
			if peak > 160<<20 {
				t.Errorf("peak RSS %.0f MiB, want at most 160 MiB: are the values decoded before they are refused?", float64(peak)/(1<<20))
			}
			if len(line) > 4<<10 {
				t.Errorf("the answer is %d bytes; errors must stay small", len(line))
			}
			p.close()
		})
	}
}
