package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestNotificationsWaitForTheBarrier: once a window of notifications is with
// go-sdk, the transport gives it its own ping and passes nothing more until
// that ping is answered, whose answer the client never sees; by count for
// small notifications, by bytes for large ones.
func TestNotificationsWaitForTheBarrier(t *testing.T) {
	tests := []struct {
		name       string
		pad, count int
		window     int // notifications passed before the ping
	}{
		{"small notifications, by count", 0, noteWindow + 5, noteWindow},
		{"large notifications, by bytes", 60 << 10, 25, noteWindowBytes / (60<<10 + 100)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			note := `{"jsonrpc":"2.0","method":"notifications/roots/list_changed","params":{"_meta":{"pad":"` + strings.Repeat("p", tt.pad) + `"}}}`
			in := strings.Repeat(note+"\n", tt.count) + `{"jsonrpc":"2.0","id":7,"method":"ping"}` + "\n"
			var out bytes.Buffer
			c, err := (&Transport{Reader: strings.NewReader(in), Writer: &out}).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			var kinds []string
			var barrier *jsonrpc.Request
			for barrier == nil {
				m, err := c.Read(ctx)
				if err != nil {
					t.Fatal(err)
				}
				switch r := m.(*jsonrpc.Request); {
				case r.IsCall():
					barrier = r
				default:
					kinds = append(kinds, r.Method)
				}
			}
			if len(kinds) != tt.window {
				t.Errorf("%d notifications passed before the transport's ping, want %d", len(kinds), tt.window)
			}
			if id, _ := barrier.ID.Raw().(string); barrier.Method != "ping" || !strings.HasPrefix(id, barrierPrefix) {
				t.Fatalf("after the window, Read returned %s %v, want the transport's ping", barrier.Method, barrier.ID)
			}
			next := make(chan jsonrpc.Message, 1)
			go func() {
				m, _ := c.Read(ctx)
				next <- m
			}()
			select {
			case m := <-next:
				t.Fatalf("Read returned %v while the transport's ping was unanswered", m)
			case <-time.After(50 * time.Millisecond): // only a chance to fail; passing proves nothing timed
			}
			if err := c.Write(ctx, &jsonrpc.Response{ID: barrier.ID, Result: json.RawMessage(`{}`)}); err != nil {
				t.Fatal(err)
			}
			if out.Len() != 0 {
				t.Errorf("the answer to the transport's ping reached the client: %q", out.String())
			}
			rest := []jsonrpc.Message{<-next}
			for {
				m := rest[len(rest)-1].(*jsonrpc.Request)
				if m.IsCall() {
					break
				}
				m2, err := c.Read(ctx)
				if err != nil {
					t.Fatal(err)
				}
				rest = append(rest, m2)
			}
			var got []string
			for _, m := range rest {
				r := m.(*jsonrpc.Request)
				got = append(got, fmt.Sprintf("%s %v", r.Method, r.ID.Raw()))
			}
			want := slices.Repeat([]string{"notifications/roots/list_changed <nil>"}, tt.count-tt.window)
			want = append(want, "ping 7")
			if tt.count-tt.window > tt.window {
				t.Fatalf("test table: the rest needs another barrier")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("after the ping's answer (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBarrierNeedsNoPlace: the transport's ping takes no place, so that when
// every place is held by a call whose handler awaits the client (an
// elicitation, say), a full window of notifications does not stop the
// client's answer behind it: the handler gets it and the place frees up.
// Before, the ping waited for a place that only that answer could free.
func TestBarrierNeedsNoPlace(t *testing.T) {
	note := `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`
	in := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + strings.Repeat(note+"\n", noteWindow+1) +
		`{"jsonrpc":"2.0","id":"s1","result":{}}` + "\n"
	var out syncBuffer
	c, err := (&Transport{Reader: strings.NewReader(in), Writer: &out, MaxInFlight: 1}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan jsonrpc.Message)
	go func() {
		defer close(got)
		for {
			m, err := c.Read(ctx)
			if err != nil {
				return
			}
			got <- m
		}
	}()
	var seen []string
	for len(seen) == 0 || seen[len(seen)-1] != "response s1" {
		var m jsonrpc.Message
		select {
		case m = <-got:
		case <-time.After(10 * time.Second):
			// Only a chance to fail, which ends the test instead of its binary.
			t.Fatalf("after %d messages, with the one place held, nothing more reached the SDK", len(seen))
		}
		switch m := m.(type) {
		case nil:
			t.Fatal("Read failed")
		case *jsonrpc.Response:
			seen = append(seen, fmt.Sprint("response ", m.ID.Raw()))
		case *jsonrpc.Request:
			if id, _ := m.ID.Raw().(string); strings.HasPrefix(id, barrierPrefix) {
				seen = append(seen, "barrier")
				if err := c.Write(ctx, &jsonrpc.Response{ID: m.ID, Result: json.RawMessage(`{}`)}); err != nil {
					t.Fatal(err)
				}
				continue
			}
			seen = append(seen, fmt.Sprint(m.Method, " ", m.ID.Raw()))
		}
	}
	want := []string{"ping 1"}
	want = append(want, slices.Repeat([]string{"notifications/roots/list_changed <nil>"}, noteWindow)...)
	want = append(want, "barrier", "notifications/roots/list_changed <nil>", "response s1")
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if out.Len() != 0 {
		t.Errorf("the client saw %q", out.Bytes())
	}
}
