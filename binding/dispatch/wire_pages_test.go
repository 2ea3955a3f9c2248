package dispatch_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"testing"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pageProxy sits between a go-sdk server and the dispatcher, on the bytes:
// it notes which page of which list each request asks for (the list and
// the page's index in the order of its cursors), and passes each answer
// line through swap, with the line of every page's latest answer.
type pageProxy struct {
	mu     sync.Mutex
	asked  map[string]string   // request ID -> page
	pages  map[string][]string // list -> its cursors, in the order first asked
	latest map[string][]byte   // page -> its latest honest answer line
	swap   func(page string, id []byte, latest map[string][]byte) []byte
}

func (p *pageProxy) page(method, cursor string) string {
	for i, c := range p.pages[method] {
		if c == cursor {
			return method + "#" + string(rune('1'+i))
		}
	}
	p.pages[method] = append(p.pages[method], cursor)
	return method + "#" + string(rune('0'+len(p.pages[method])))
}

// clientWriter notes each request the client writes and passes it on.
type clientWriter struct {
	p *pageProxy
	w io.WriteCloser
}

func (c clientWriter) Write(b []byte) (int, error) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Cursor string `json:"cursor"`
		} `json:"params"`
	}
	if json.Unmarshal(b, &req) == nil && req.ID != nil {
		c.p.mu.Lock()
		c.p.asked[string(req.ID)] = c.p.page(req.Method, req.Params.Cursor)
		c.p.mu.Unlock()
	}
	return c.w.Write(b)
}

func (c clientWriter) Close() error { return c.w.Close() }

// connectPaged serves f through a pageProxy, to the dispatcher over the
// own transport or go-sdk's.
func connectPaged(t *testing.T, d *dispatch.Dispatcher, f *fixture, own bool, swap func(string, []byte, map[string][]byte) []byte) *dispatch.Server {
	t.Helper()
	p := &pageProxy{asked: map[string]string{}, pages: map[string][]string{}, latest: map[string][]byte{}, swap: swap}
	toServer, fromClient := io.Pipe()
	toProxy, fromServer := io.Pipe()
	toClient, fromProxy := io.Pipe()
	go func() {
		defer fromProxy.Close()
		in := bufio.NewReader(toProxy)
		for {
			line, err := in.ReadBytes('\n')
			if err != nil {
				return
			}
			var resp struct {
				ID json.RawMessage `json:"id"`
			}
			out := line
			if json.Unmarshal(line, &resp) == nil && resp.ID != nil {
				p.mu.Lock()
				if page, ok := p.asked[string(resp.ID)]; ok {
					if s := p.swap(page, resp.ID, p.latest); s != nil {
						out = s
					}
					p.latest[page] = bytes.Clone(line)
				}
				p.mu.Unlock()
			}
			if _, err := fromProxy.Write(out); err != nil {
				return
			}
		}
	}()
	ss, err := f.server.Connect(context.Background(), &mcp.IOTransport{Reader: toServer, Writer: fromServer}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	var ct mcp.Transport = &mcp.IOTransport{Reader: toClient, Writer: clientWriter{p, fromClient}}
	if own {
		ct = &dispatch.IOTransport{Reader: toClient, Writer: clientWriter{p, fromClient}}
	}
	srv, err := d.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// withID is line with its ID (the bytes after "id":) replaced by id.
func withID(line, id []byte) []byte {
	var resp struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		panic(err)
	}
	return bytes.Replace(line, append([]byte(`"id":`), resp.ID...), append([]byte(`"id":`), id...), 1)
}

// TestReplayedPageAnsweredWithAnother: a replayed page answered with the
// bytes of another page (of the same list or of another list), under the
// replayed request's ID, is never taken as that page, not even on the own
// transport where a template learnt for one page could be offered for
// another: the replay differs, the catalog is read in full (honestly
// here) and the dispatch goes on. Only the replays are tampered with
// (string IDs), from the third dispatch on; the first is the one that
// learns templates.
func TestReplayedPageAnsweredWithAnother(t *testing.T) {
	for _, tt := range []struct {
		name     string
		page, by string
		want     uint64 // verifications proved by a replay, of 3
	}{
		{"honest", "", "", 3},
		{"tools page 2 by tools page 1", "tools/list#2", "tools/list#1", 1},
		{"tools page 1 by tools page 2", "tools/list#1", "tools/list#2", 1},
		{"tools page 4 by tools page 3", "tools/list#4", "tools/list#3", 1},
		{"prompts page 3 by templates page 3", "prompts/list#3", "resources/templates/list#3", 1},
		{"resources page 1 by templates page 1", "resources/list#1", "resources/templates/list#1", 1},
	} {
		for _, own := range []bool{true, false} {
			t.Run(tt.name+"/"+wireName(own), func(t *testing.T) {
				f := newPagedFixture()
				calls := [][]binding.Call{{click("button:Sign in")}, {click("button:Next")}, {click("button:Back")}}
				g := choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: pinnedOf(t, f)}}, calls...)
				d := dispatch.New(newBroker(t, issuedAt), nil)
				var mu sync.Mutex
				armed := false
				srv := connectPaged(t, d, f, own, func(page string, id []byte, latest map[string][]byte) []byte {
					mu.Lock()
					defer mu.Unlock()
					if !armed || id[0] != '"' || page != tt.page || latest[tt.by] == nil {
						return nil
					}
					return withID(latest[tt.by], id)
				})
				for i, c := range calls {
					if i == 1 {
						mu.Lock()
						armed = true
						mu.Unlock()
					}
					if _, err := d.Dispatch(context.Background(), g[i], c[0]); err != nil {
						t.Fatalf("dispatch %d: %v", i, err)
					}
				}
				if diff := cmp.Diff(tt.want, dispatch.Replayed(srv)); diff != "" {
					t.Errorf("verifications proved by a replay (-want +got):\n%s", diff)
				}
				if got := f.received(); len(got) != 3 {
					t.Errorf("the server received %q, want the three calls", got)
				}
			})
		}
	}
}
