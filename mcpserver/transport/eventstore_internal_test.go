package transport

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// storeOp is one call on the event store; open, add or close.
type storeOp struct {
	op, session, stream string
	data                string
}

// TestEventStoreBound: after every call the store charges itself at most its
// bound, what each stream and event costs included; beyond it the oldest
// streams are forgotten whole, so a replay never starts at the wrong event, and
// a closed session's streams go at once.
func TestEventStoreBound(t *testing.T) {
	streamCost := func(session, stream string) int64 {
		return eventStoreStreamCost + int64(len(session)+len(stream))
	}
	eventCost := func(data string) int64 { return eventStoreEventCost + int64(len(data)) }
	big := strings.Repeat("x", 1000)
	tests := []struct {
		name     string
		max      int64
		ops      []storeOp
		want     map[string][]string // "session/stream" -> the events After(-1) gives; absent: not held
		retained int64
	}{
		{
			name: "within the bound, everything is kept",
			max:  1 << 20,
			ops: []storeOp{
				{"open", "s1", "a", ""}, {"add", "s1", "a", ""}, {"add", "s1", "a", "one"}, {"add", "s1", "a", "two"},
				{"open", "s2", "b", ""}, {"add", "s2", "b", "three"},
			},
			want: map[string][]string{"s1/a": {"", "one", "two"}, "s2/b": {"three"}},
			retained: streamCost("s1", "a") + eventCost("") + eventCost("one") + eventCost("two") +
				streamCost("s2", "b") + eventCost("three"),
		},
		{
			name: "the oldest stream goes whole, whichever session it is in",
			max:  2*streamCost("s1", "a") + 2*eventCost(big),
			ops: []storeOp{
				{"open", "s1", "a", ""}, {"add", "s1", "a", big},
				{"open", "s2", "b", ""}, {"add", "s2", "b", big},
				{"add", "s1", "a", "more"}, // over the bound: s1/a, the oldest, goes
			},
			want:     map[string][]string{"s1/a": nil, "s2/b": {big}},
			retained: streamCost("s2", "b") + eventCost(big),
		},
		{
			name: "a forgotten stream is not recreated by a later event",
			max:  streamCost("s1", "a") + eventCost(big),
			ops: []storeOp{
				{"open", "s1", "a", ""}, {"add", "s1", "a", big},
				{"open", "s1", "b", ""}, // s1/a goes
				{"add", "s1", "a", "late"},
			},
			want:     map[string][]string{"s1/a": nil, "s1/b": {}},
			retained: streamCost("s1", "b"),
		},
		{
			name: "an event larger than the bound is not kept, nor its stream",
			max:  4096,
			ops: []storeOp{
				{"open", "s1", "a", ""}, {"add", "s1", "a", strings.Repeat("y", 5000)},
				{"open", "s1", "b", ""}, {"add", "s1", "b", "small"},
			},
			want:     map[string][]string{"s1/a": nil, "s1/b": {"small"}},
			retained: streamCost("s1", "b") + eventCost("small"),
		},
		{
			name: "a closed session's streams go at once",
			max:  1 << 20,
			ops: []storeOp{
				{"open", "s1", "a", ""}, {"add", "s1", "a", "one"},
				{"open", "s2", "b", ""}, {"add", "s2", "b", "two"},
				{"close", "s1", "", ""},
			},
			want:     map[string][]string{"s1/a": nil, "s2/b": {"two"}},
			retained: streamCost("s2", "b") + eventCost("two"),
		},
		{
			name: "streams opened without events still count, and go",
			max:  3 * streamCost("s1", "0"),
			ops: []storeOp{
				{"open", "s1", "0", ""}, {"open", "s1", "1", ""}, {"open", "s1", "2", ""}, {"open", "s1", "3", ""},
			},
			want:     map[string][]string{"s1/0": nil, "s1/1": {}, "s1/2": {}, "s1/3": {}},
			retained: 3 * streamCost("s1", "0"),
		},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newEventStore(tt.max)
			for i, op := range tt.ops {
				switch op.op {
				case "open":
					_ = s.Open(ctx, op.session, op.stream)
				case "add":
					_ = s.Append(ctx, op.session, op.stream, []byte(op.data))
				case "close":
					_ = s.SessionClosed(ctx, op.session)
				}
				if got := s.retained(); got > tt.max || got < 0 {
					t.Fatalf("after op %d (%v): %d bytes retained, bound %d", i, op, got, tt.max)
				}
			}
			got := map[string][]string{}
			for key := range tt.want {
				session, stream, _ := strings.Cut(key, "/")
				var events []string
				held := true
				for data, err := range s.After(ctx, session, stream, -1) {
					if err != nil {
						held = false
						if !errors.Is(err, errEventsNotRetained) || strings.Contains(err.Error(), session) {
							t.Errorf("%s: error %q, want errEventsNotRetained naming no session", key, err)
						}
						break
					}
					events = append(events, string(data))
				}
				if held && events == nil {
					events = []string{}
				}
				got[key] = events
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("retained events (-want +got):\n%s", diff)
			}
			if got := s.retained(); got != tt.retained {
				t.Errorf("retained %d bytes, want %d", got, tt.retained)
			}
		})
	}
}

// TestEventStoreAfter: After gives the events after the one a client last saw,
// by go-sdk's numbering from the stream's first event, and nothing past the end.
func TestEventStoreAfter(t *testing.T) {
	ctx := context.Background()
	s := newEventStore(1 << 20)
	_ = s.Open(ctx, "s", "a")
	for _, d := range []string{"", "e1", "e2", "e3"} {
		if err := s.Append(ctx, "s", "a", []byte(d)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		index int
		want  []string
	}{
		{-1, []string{"", "e1", "e2", "e3"}},
		{0, []string{"e1", "e2", "e3"}},
		{2, []string{"e3"}},
		{3, nil},
		{99, nil},
	} {
		var got []string
		for data, err := range s.After(ctx, "s", "a", tt.index) {
			if err != nil {
				t.Fatalf("After(%d): %v", tt.index, err)
			}
			got = append(got, string(data))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("After(%d) (-want +got):\n%s", tt.index, diff)
		}
	}
	if err := s.Append(ctx, "s", "unopened", []byte("x")); !errors.Is(err, errEventsNotRetained) {
		t.Errorf("Append to a stream never opened: %v, want errEventsNotRetained", err)
	}
}

// TestEventStoreCopiesData: the store keeps its own copy of an event, so a
// caller reusing its buffer cannot change what is replayed.
func TestEventStoreCopiesData(t *testing.T) {
	ctx := context.Background()
	s := newEventStore(1 << 20)
	_ = s.Open(ctx, "s", "a")
	buf := []byte("original")
	_ = s.Append(ctx, "s", "a", buf)
	copy(buf, "changed!")
	for data, err := range s.After(ctx, "s", "a", -1) {
		if err != nil || string(data) != "original" {
			t.Errorf("replayed %q, %v; want %q", data, err, "original")
		}
	}
}

// TestEventStoreRendersErrors: the store keeps an error as the client reads it
// live, rendered for the method of the call that opened the stream (which the
// handler passes in the context go-sdk opens the stream with); anything else
// is kept as go-sdk wrote it.
func TestEventStoreRendersErrors(t *testing.T) {
	ctx := withCallMethod(context.Background(), "tools/cal")
	s := newEventStore(1 << 20)
	_ = s.Open(ctx, "s", "a")
	in := []string{
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not handled"}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":0,"message":"plain"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"\"error\""}]}}`,
	}
	for _, d := range in {
		_ = s.Append(ctx, "s", "a", []byte(d))
	}
	var got []string
	for data, err := range s.After(ctx, "s", "a", -1) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(data))
	}
	want := []string{
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: \"tools/cal\""}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error: the server failed to answer the call of \"tools/cal\"; this is a bug, please report it"}}`,
		in[2],
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kept events (-want +got):\n%s", diff)
	}
}
