package dispatch

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestRecordingIsComplete: a recording proves a catalog only if it holds an
// answered page for every page the read counted, and no error: a page that
// go-sdk served from its cache, an unanswered request or an error answer
// leave the catalog to be read in full next time.
func TestRecordingIsComplete(t *testing.T) {
	page := recorded{method: "tools/list", params: []byte(`{}`), result: []byte(`{"tools":[]}`), done: true}
	for _, tt := range []struct {
		name string
		edit func(r *recording)
		want bool
	}{
		{"every page answered", func(*recording) {}, true},
		{"a page from go-sdk's cache", func(r *recording) { r.count["tools/list"] = 2 }, false},
		{"a page more than counted", func(r *recording) { r.count["tools/list"] = 0 }, false},
		{"an unanswered request", func(r *recording) { r.asked[jsonrpc.ID{}] = 0 }, false},
		{"an error answer", func(r *recording) { r.bad = true }, false},
		{"a page not done", func(r *recording) { r.pages[0].done = false }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tp := &tap{}
			r := tp.record(1 << 10)
			r.pages = []recorded{page}
			r.order["tools/list"] = []int{0}
			r.count["tools/list"] = 1
			tt.edit(r)
			if got := tp.stop(r) != nil; got != tt.want {
				t.Errorf("stop kept the recording: %v, want %v", got, tt.want)
			}
		})
	}
}

// TestExpectedStaysBounded: a server that never answers cannot grow the
// table of expected answers past maxExpected, and the overflow never
// forgets a replay request still waited on (its replay would wait for its
// deadline instead of getting the answer).
func TestExpectedStaysBounded(t *testing.T) {
	tp := newTap()
	own, err := jsonrpc.MakeID(float64(1 << 40))
	if err != nil {
		t.Fatal(err)
	}
	tp.waiting[own] = &pending{ch: make(chan answer, 1)}
	tp.expect(own, true)
	for i := range 3 * maxExpected {
		id, err := jsonrpc.MakeID(float64(i))
		if err != nil {
			t.Fatal(err)
		}
		tp.expect(id, false)
		if len(tp.expected) > maxExpected {
			t.Fatalf("after %d calls, %d expected answers (bound %d)", i+1, len(tp.expected), maxExpected)
		}
	}
	if isOwn, ok := tp.expected[own]; !ok || !isOwn {
		t.Errorf("the waited-on replay request was forgotten (present %v, own %v)", ok, isOwn)
	}
}
