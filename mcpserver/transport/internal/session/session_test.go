package session

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/automium/automium/mcpserver/transport/internal/envelope"
)

const v2026 = "2026-07-28"

var (
	undecided   = Pin{}
	handshake   = Pin{Kind: Handshake}
	sessionless = Pin{Kind: Sessionless, Version: v2026}
)

// TestPinAdmit: the one-protocol rule, across every kind of session.
func TestPinAdmit(t *testing.T) {
	sessionlessInHandshake := `this session began with initialize; a call carrying protocol version "2026-07-28" in _meta belongs to a sessionless session: start a new one`
	tests := []struct {
		name            string
		pin             Pin
		method, version string
		want            Pin
		wantWhy         string
	}{
		{"initialize pins the handshake", undecided, "initialize", "", handshake, ""},
		{"a sessionless call pins its version", undecided, "tools/list", v2026, sessionless, ""},
		{"a sessionless initialize pins sessionless", undecided, "initialize", v2026, sessionless, ""},
		{"an unsupported version decides nothing", undecided, "tools/list", "2099-01-01", undecided, ""},
		{"a handshake version decides nothing", undecided, "ping", "2025-11-25", undecided, ""},
		{"ping before initialize", undecided, "ping", "", undecided, ""},
		{"logging/setLevel before initialize", undecided, "logging/setLevel", "", undecided, ""},
		{"a call before initialize", undecided, "tools/list", "", undecided, `"tools/list" was sent before initialize; send initialize first`},
		{"a case variant is not ping", undecided, "PING", "", undecided, `"PING" was sent before initialize; send initialize first`},
		{"initialize again", handshake, "initialize", "", handshake, InitializeAgainReason},
		{"a sessionless call in a handshake session", handshake, "tools/list", v2026, handshake, sessionlessInHandshake},
		{"a sessionless ping in a handshake session", handshake, "ping", v2026, handshake, sessionlessInHandshake},
		{"a sessionless initialize in a handshake session", handshake, "initialize", v2026, handshake, sessionlessInHandshake},
		{"an unsupported version in a handshake session", handshake, "tools/list", "2099-01-01", handshake, ""},
		{"a plain call in a handshake session", handshake, "tools/list", "", handshake, ""},
		{"the same version in a sessionless session", sessionless, "tools/list", v2026, sessionless, ""},
		{"ping without a version in a sessionless session", sessionless, "ping", "", sessionless, ""},
		{"initialize in a sessionless session", sessionless, "initialize", "", sessionless,
			"this session speaks the sessionless protocol 2026-07-28, which has no initialize"},
		{"a call without the version in a sessionless session", sessionless, "tools/list", "", sessionless,
			"this session speaks the sessionless protocol 2026-07-28; every call must carry io.modelcontextprotocol/protocolVersion in params._meta"},
		{"another sessionless version", Pin{Kind: Sessionless, Version: "2026-08-01"}, "tools/list", v2026, Pin{Kind: Sessionless, Version: "2026-08-01"},
			`this session speaks protocol 2026-08-01; a call carrying protocol version "2026-07-28" in _meta belongs to another session`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := tt.pin.Admit(tt.method, tt.version)
			if diff := cmp.Diff(struct {
				Pin Pin
				Why string
			}{tt.want, tt.wantWhy}, struct {
				Pin Pin
				Why string
			}{got, why}); diff != "" {
				t.Errorf("%+v.Admit(%q, %q) (-want +got):\n%s", tt.pin, tt.method, tt.version, diff)
			}
		})
	}
}

func id(t *testing.T, v any) jsonrpc.ID {
	t.Helper()
	i, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// outcome names what Enter decided, for comparing.
func outcome(e Entry) string {
	switch {
	case e.Call != nil:
		return "entered"
	case e.Refusal != "":
		return "refused: " + e.Refusal
	case e.Busy:
		return "busy"
	case e.Wait != nil:
		return "wait"
	}
	return "nothing"
}

// TestRecordEnter: steps on one record, each step's outcome as Enter, Cancel
// or Cancelled reports it.
func TestRecordEnter(t *testing.T) {
	type step struct {
		do      string // enter, release (the call entered by step n), answer-refused, cancel, notify
		q       Request
		n       int
		cancel  string // the id a cancellation names, as the client wrote it; notify's method after notifications/
		want    string
		wantPin Pin
	}
	init1 := Request{Method: "initialize", ID: id(t, float64(1)), IsCall: true, Size: 10, Keeps: 7}
	call := func(method string, i any, size int64) Request {
		return Request{Method: method, ID: id(t, i), IsCall: true, Size: size}
	}
	tests := []struct {
		name   string
		limits Limits
		steps  []step
	}{
		{"a duplicate id is refused while in flight, and admitted once released", Limits{MaxBytes: 100}, []step{
			{do: "enter", q: init1, want: "entered", wantPin: handshake},
			{do: "release", n: 0, want: "released", wantPin: handshake},
			{do: "enter", q: call("tools/list", float64(2), 1), want: "entered", wantPin: handshake},
			{do: "enter", q: call("tools/call", float64(2), 1), want: "refused: " + DuplicateIDReason, wantPin: handshake},
			{do: "enter", q: call("tools/call", "2", 1), want: "entered", wantPin: handshake}, // "2" is not 2
			{do: "release", n: 2, want: "released", wantPin: handshake},
			{do: "enter", q: call("tools/call", float64(2), 1), want: "entered", wantPin: handshake},
		}},
		{"an initialize orders the session until it is released", Limits{MaxBytes: 100}, []step{
			{do: "enter", q: init1, want: "entered", wantPin: handshake},
			{do: "enter", q: call("ping", float64(2), 1), want: "wait", wantPin: handshake},
			{do: "enter", q: Request{Method: "notifications/initialized"}, want: "wait", wantPin: handshake},
			{do: "enter", q: call("initialize", float64(3), 1), want: "wait", wantPin: handshake},
			{do: "release", n: 0, want: "released", wantPin: handshake},
			{do: "enter", q: call("initialize", float64(3), 1), want: "refused: " + InitializeAgainReason, wantPin: handshake},
		}},
		{"an initialize go-sdk refused unpins the session", Limits{MaxBytes: 100}, []step{
			{do: "enter", q: init1, want: "entered", wantPin: handshake},
			{do: "answer-refused", n: 0, want: "answered", wantPin: undecided},
			{do: "release", n: 0, want: "released", wantPin: undecided},
			{do: "enter", q: call("initialize", float64(1), 1), want: "entered", wantPin: handshake},
		}},
		{"a cancellation marks a call in flight; a stray one is dropped", Limits{MaxBytes: 100}, []step{
			{do: "enter", q: init1, want: "entered", wantPin: handshake},
			{do: "release", n: 0, want: "released", wantPin: handshake},
			{do: "enter", q: call("tools/call", float64(5), 1), want: "entered", wantPin: handshake},
			{do: "cancel", cancel: `"5"`, want: "dropped", wantPin: handshake}, // a string names another call
			{do: "cancelled", n: 2, want: "not cancelled", wantPin: handshake},
			{do: "cancel", cancel: `6`, want: "dropped", wantPin: handshake},
			{do: "cancel", cancel: `5.9`, want: "passed", wantPin: handshake}, // go-sdk reads it as 5
			{do: "cancelled", n: 2, want: "cancelled", wantPin: handshake},
			{do: "cancel", cancel: `5`, want: "passed", wantPin: handshake},
			{do: "cancel", cancel: `1e400`, want: "passed", wantPin: handshake}, // go-sdk refuses these itself
			{do: "cancel", cancel: `true`, want: "passed", wantPin: handshake},
			{do: "release", n: 2, want: "released", wantPin: handshake},
			{do: "cancel", cancel: `5`, want: "dropped", wantPin: handshake}, // answered: names no call in flight
		}},
		{"notifications/initialized passes once initialized, each before", Limits{MaxBytes: 100}, []step{
			{do: "notify", cancel: "initialized", want: "passed", wantPin: undecided},
			{do: "notify", cancel: "initialized", want: "passed", wantPin: undecided},
			{do: "enter", q: init1, want: "entered", wantPin: handshake},
			{do: "release", n: 2, want: "released", wantPin: handshake},
			{do: "notify", cancel: "initialized", want: "passed", wantPin: handshake},
			{do: "notify", cancel: "initialized", want: "dropped", wantPin: handshake},
			{do: "notify", cancel: "progress", want: "passed", wantPin: handshake},
		}},
		{"the limits: a call alone always fits; then by count and by bytes", Limits{MaxCalls: 2, MaxBytes: 10, MaxUnplaced: 1}, []step{
			{do: "enter", q: Request{Method: "ping", ID: id(t, "a"), IsCall: true, Size: 50}, want: "entered", wantPin: undecided},
			{do: "enter", q: call("ping", "b", 1), want: "busy", wantPin: undecided},
			{do: "release", n: 0, want: "released", wantPin: undecided},
			{do: "enter", q: call("ping", "c", 5), want: "entered", wantPin: undecided},
			{do: "enter", q: call("ping", "d", 5), want: "entered", wantPin: undecided},
			{do: "enter", q: call("ping", "e", 0), want: "busy", wantPin: undecided},
			{do: "enter", q: Request{Method: "subscriptions/listen", Version: v2026, ID: id(t, "l1"), IsCall: true, Unplaced: true}, want: "entered", wantPin: sessionless},
			{do: "enter", q: Request{Method: "subscriptions/listen", Version: v2026, ID: id(t, "l2"), IsCall: true, Unplaced: true},
				want: "refused: 1 subscriptions/listen calls are already open", wantPin: sessionless},
		}},
		{"an answer's bound is charged at admission: a call alone still fits", Limits{MaxCalls: 4, MaxBytes: 10}, []step{
			{do: "enter", q: Request{Method: "ping", ID: id(t, "a"), IsCall: true, Size: 2, Answer: 50}, want: "entered", wantPin: undecided},
			{do: "enter", q: call("ping", "b", 1), want: "busy", wantPin: undecided},
			{do: "release", n: 0, want: "released", wantPin: undecided},
			{do: "enter", q: Request{Method: "ping", ID: id(t, "c"), IsCall: true, Size: 2, Answer: 4}, want: "entered", wantPin: undecided},
			{do: "enter", q: Request{Method: "ping", ID: id(t, "d"), IsCall: true, Size: 2, Answer: 3}, want: "busy", wantPin: undecided},
			{do: "enter", q: Request{Method: "ping", ID: id(t, "e"), IsCall: true, Size: 2, Answer: 2}, want: "entered", wantPin: undecided},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := NewTable(1, 1<<20)
			r := tb.Open("", tt.limits, Pin{})
			calls := map[int]*Call{}
			for i, s := range tt.steps {
				var got string
				switch s.do {
				case "enter":
					e := r.Enter(s.q)
					calls[i], got = e.Call, outcome(e)
				case "release":
					r.Release(calls[s.n])
					got = "released"
				case "answer-refused":
					if r.Answered(calls[s.n].id, true) != calls[s.n] {
						t.Fatalf("step %d: Answered did not return the call", i)
					}
					got = "answered"
				case "cancel":
					view, problem := envelope.Parse([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+s.cancel+`}}`), envelope.Limits{})
					if problem != nil {
						t.Fatalf("step %d: the door refused the cancellation: %v", i, problem.Message)
					}
					got = map[bool]string{true: "passed", false: "dropped"}[r.Notify(view)]
				case "notify":
					view, problem := envelope.Parse([]byte(`{"jsonrpc":"2.0","method":"notifications/`+s.cancel+`"}`), envelope.Limits{})
					if problem != nil {
						t.Fatalf("step %d: the door refused the notification: %v", i, problem.Message)
					}
					got = map[bool]string{true: "passed", false: "dropped"}[r.Notify(view)]
				case "cancelled":
					got = map[bool]string{true: "cancelled", false: "not cancelled"}[r.Cancelled(calls[s.n])]
				}
				if diff := cmp.Diff(s.want+" "+s.wantPin.Kind, got+" "+r.Pin().Kind); diff != "" {
					t.Errorf("step %d (%s %s): (-want +got):\n%s", i, s.do, s.q.Method, diff)
				}
			}
		})
	}
}

// TestRecordRetained: an initialize charges what go-sdk keeps to the table,
// once, and an initialize go-sdk refused gives it back.
// TestHoldChargesOnlyTheExcess: an answer within the bound admission
// charged adds nothing; one over it adds the difference, once.
func TestHoldChargesOnlyTheExcess(t *testing.T) {
	tb := NewTable(1, 1<<20)
	r := tb.Open("", Limits{MaxCalls: 4, MaxBytes: 100}, Pin{})
	c := r.Enter(Request{Method: "ping", ID: id(t, "a"), IsCall: true, Size: 10, Answer: 40}).Call
	held := func() int64 { tb.mu.Lock(); defer tb.mu.Unlock(); return r.bytes }
	r.Hold(c, 30)
	if got := held(); got != 50 {
		t.Errorf("an answer within its bound: %d bytes held, want 50", got)
	}
	r.Hold(c, 60)
	if got := held(); got != 70 {
		t.Errorf("an answer over its bound: %d bytes held, want 70", got)
	}
	r.Release(c)
	if got := held(); got != 0 {
		t.Errorf("after release: %d bytes held, want 0", got)
	}
}

func TestRecordRetained(t *testing.T) {
	tb := NewTable(1, 1<<20)
	r := tb.Open("", Limits{MaxBytes: 100}, Pin{})
	var got []int64
	e := r.Enter(Request{Method: "initialize", ID: id(t, float64(1)), IsCall: true, Size: 10, Keeps: 300})
	got = append(got, tb.Retained())
	r.Answered(e.Call.id, true)
	r.Release(e.Call)
	got = append(got, tb.Retained())
	e = r.Enter(Request{Method: "initialize", ID: id(t, float64(2)), IsCall: true, Size: 10, Keeps: 200})
	r.Answered(e.Call.id, false)
	r.Release(e.Call)
	got = append(got, tb.Retained())
	if diff := cmp.Diff([]int64{300, 0, 200}, got); diff != "" {
		t.Errorf("retained bytes after initialize, its refusal, a second one (-want +got):\n%s", diff)
	}
}
