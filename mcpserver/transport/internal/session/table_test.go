package session

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTableReserve: which idle sessions a new one closes, by count and by
// retained bytes, least recently used first, ties by id; busy and ordered
// sessions are never chosen.
func TestTableReserve(t *testing.T) {
	type session struct {
		id    string
		keeps int64
		busy  bool // a request in flight
		used  bool // used again after all were made
	}
	tests := []struct {
		name        string
		maxSessions int
		maxRetained int64
		sessions    []session
		reserved    int // reservations already held
		keeps       int64
		wantVictims []string
		wantOK      bool
	}{
		{"room: nothing closed", 4, 1000, []session{{id: "a", keeps: 10}}, 0, 10, nil, true},
		{"by count: the least recently used", 2, 1000, []session{{id: "a"}, {id: "b"}}, 0, 0, []string{"a"}, true},
		{"by count: a session used again is younger", 2, 1000, []session{{id: "a", used: true}, {id: "b"}}, 0, 0, []string{"b"}, true},
		{"by count: a busy session is skipped", 2, 1000, []session{{id: "a", busy: true}, {id: "b"}}, 0, 0, []string{"b"}, true},
		{"by count: all busy", 2, 1000, []session{{id: "a", busy: true}, {id: "b", busy: true}}, 0, 0, nil, false},
		{"by count: the reservations fill it", 2, 1000, []session{{id: "a"}}, 2, 0, nil, false},
		{"by bytes: as many as it takes", 10, 100, []session{{id: "a", keeps: 40}, {id: "b", keeps: 40}, {id: "c", keeps: 10}}, 0, 95,
			[]string{"a", "b", "c"}, true},
		{"by bytes: stops when it fits", 10, 100, []session{{id: "a", keeps: 40}, {id: "b", keeps: 40}, {id: "c", keeps: 10}}, 0, 50,
			[]string{"a"}, true},
		{"by bytes: more than the whole budget", 10, 100, []session{{id: "a"}}, 0, 101, nil, false},
		{"by bytes: what is busy cannot be freed", 10, 100, []session{{id: "a", keeps: 60, busy: true}, {id: "b", keeps: 10}}, 0, 50, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := NewTable(tt.maxSessions, tt.maxRetained)
			var open []string
			records := map[string]*Record{}
			for _, s := range tt.sessions {
				if _, ok := tb.Reserve(s.keeps, open); !ok {
					t.Fatalf("making %s: no room", s.id)
				}
				records[s.id] = tb.Begin(s.id, Limits{MaxBytes: 100}, s.keeps)
				records[s.id].End()
				tb.Unreserve(s.keeps)
				open = append(open, s.id)
			}
			for _, s := range tt.sessions {
				r := records[s.id]
				if s.used {
					r.Release(r.Enter(Request{Method: "ping", Size: 1}).Call)
				}
				if s.busy {
					r.Enter(Request{Method: "ping", Size: 1})
				}
			}
			for range tt.reserved {
				tb.Reserve(0, open)
			}
			victims, ok := tb.Reserve(tt.keeps, open)
			if diff := cmp.Diff(tt.wantVictims, victims); diff != "" || ok != tt.wantOK {
				t.Errorf("Reserve(%d) = %v, %v; want ok %v, victims (-want +got):\n%s", tt.keeps, victims, ok, tt.wantOK, diff)
			}
		})
	}
}

// TestTableForgetsClosedSessions: a record of a session that is no longer
// open is dropped, with what it kept, at the next reservation.
func TestTableForgetsClosedSessions(t *testing.T) {
	tb := NewTable(4, 1000)
	for _, id := range []string{"a", "b"} {
		tb.Reserve(100, nil)
		tb.Begin(id, Limits{MaxBytes: 100}, 100).End()
		tb.Unreserve(100)
	}
	tb.Reserve(0, []string{"b"})
	got := []int64{int64(tb.Len()), tb.Retained()}
	if diff := cmp.Diff([]int64{1, 100}, got); diff != "" {
		t.Errorf("records, retained bytes after a closed; (-want +got):\n%s", diff)
	}
}
