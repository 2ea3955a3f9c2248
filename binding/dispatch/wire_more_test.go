package dispatch_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOwnWireMoreVariants: peers beyond TestOwnWireRefusesAsGoSDK's, each
// given the same outcome over the dispatcher's own transport as over
// go-sdk's, and taken as byte-identical only when the line is the
// expected one.
func TestOwnWireMoreVariants(t *testing.T) {
	ok3 := []automium.Code{"", "", ""}
	stale := []automium.Code{"", binding.CodeCatalogStale}
	drift := []automium.Code{"", binding.CodeContractDrift}
	var prev []byte // the round-1 answer, for a peer that replays it
	for _, tt := range []struct {
		name      string
		limit     int
		script    func(round int, method string, id, line []byte, cancel func()) [][]byte
		want      wireOutcome
		identical int // -1: depends on when the replay ends
	}{
		{"a byte order mark before the answer", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{append([]byte("\xef\xbb\xbf"), line...)}
		}), wireOutcome{stale, 1, 1}, 0},
		{"a NUL after the answer", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, "}\n", "}\x00\n")}
		}), wireOutcome{stale, 1, 1}, 0},
		{"a NUL inside a string of the result", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, "Click an element", "Click an\x00element")}
		}), wireOutcome{stale, 1, 1}, 0},
		{"a raw U+2028 for a space, same meaning elsewhere", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, "Click an element", "Click\u2028an element")}
		}), wireOutcome{drift, 1, 1}, 0},
		{"invalid UTF-8 inside the description", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, "Click an element", "Click \xff\xfe element")}
		}), wireOutcome{drift, 1, 1}, 0},
		{"a tab before the expected line", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{append([]byte("\t "), line...)}
		}), wireOutcome{ok3, 3, 3}, 2},
		{"a form feed before the answer", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{append([]byte("\f"), line...)}
		}), wireOutcome{stale, 1, 1}, 0},
		{"two carriage returns before the newline", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, "}\n", "}\r\r\n")}
		}), wireOutcome{ok3, 3, 3}, 0},
		{"a space after the answer", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, "}\n", "} \n")}
		}), wireOutcome{stale, 1, 1}, 0},
		{"the answer as one line, then pretty-printed, then one line again", 0, func(round int, method string, id, line []byte, _ func()) [][]byte {
			if round == 2 && method == "tools/list" {
				return [][]byte{edit(line, `"result":`, "\n  \"result\":\n  ")}
			}
			return honest
		}, wireOutcome{ok3, 3, 3}, 0},
		{"the next replay's ID in an extra member", 0, onRound(func(id, line []byte) [][]byte {
			next := strings.TrimSuffix(string(id), `"`) + `0"`
			return [][]byte{edit(line, `"result":`, `"x":`+next+`,"result":`)}
		}), wireOutcome{ok3, 3, 3}, 0},
		{"the tools answer carries the call's answer, same ID", 0, func(round int, method string, id, line []byte, _ func()) [][]byte {
			if method == "tools/list" && round >= 1 {
				return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[]}}` + "\n")}
			}
			return honest
		}, wireOutcome{[]automium.Code{binding.CodeContractDrift}, 0, 0}, 0},
		{"the replay answered with the previous replay's bytes", 0, func(round int, method string, id, line []byte, _ func()) [][]byte {
			if method != "tools/list" {
				return honest
			}
			if round == 1 {
				prev = bytes.Clone(line)
				return honest
			}
			if round >= 2 {
				return [][]byte{prev, line} // the first with the ID of round 1
			}
			return honest
		}, wireOutcome{ok3, 3, 1}, 1},
		{"an ID spelled 1.0 for go-sdk's calls", 0, func(round int, method string, id, line []byte, _ func()) [][]byte {
			if id[0] == '"' {
				return honest
			}
			return [][]byte{bytes.Replace(line, []byte(`"id":`+string(id)), []byte(`"id":`+string(id)+".0"), 1)}
		}, wireOutcome{ok3, 3, 3}, 2},
		{"an ID spelled 1e0 for go-sdk's calls", 0, func(round int, method string, id, line []byte, _ func()) [][]byte {
			if id[0] == '"' {
				return honest
			}
			return [][]byte{bytes.Replace(line, []byte(`"id":`+string(id)), []byte(`"id":`+string(id)+"e0"), 1)}
		}, wireOutcome{ok3, 3, 3}, 2},
		{"an answer to the next replay request before it is written", 0, onRound(func(id, line []byte) [][]byte {
			if id[0] != '"' {
				return honest
			}
			next := strings.TrimSuffix(string(id), `"`) + `0"` // not the next, but one the tap will send
			return [][]byte{line, bytes.Replace(line, id, []byte(next), 1)}
		}), wireOutcome{ok3, 3, 0}, -1},
		{"nesting past encoding/json's depth outside the result", 0, onRound(func(id, line []byte) [][]byte {
			deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
			return [][]byte{edit(line, `"result":`, `"x":`+deep+`,"result":`)}
		}), wireOutcome{stale, 1, 1}, 0},
		{"a line exactly at a bound of 8 KiB", 8 << 10, onRound(func(id, line []byte) [][]byte {
			pad := (8 << 10) - len(line) + 1 - len(`"x":"",`)
			return [][]byte{edit(line, `"result":`, `"x":"`+strings.Repeat("x", pad)+`","result":`)}
		}), wireOutcome{ok3, 3, 3}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) { compareWires(t, tt.limit, tt.script, tt.want, tt.identical) })
	}
}

// stopsReading is the stdin of a server that stops reading: once stop
// is called, each Write runs onBlock and blocks until Close.
type stopsReading struct {
	net.Conn
	mu      sync.Mutex
	onBlock func()
	closed  chan struct{}
	once    sync.Once
}

func (w *stopsReading) stop(onBlock func()) {
	w.mu.Lock()
	w.onBlock = onBlock
	w.mu.Unlock()
}

func (w *stopsReading) Write(p []byte) (int, error) {
	w.mu.Lock()
	f := w.onBlock
	w.mu.Unlock()
	if f == nil {
		return w.Conn.Write(p)
	}
	f()
	<-w.closed
	return 0, io.ErrClosedPipe
}

func (w *stopsReading) Close() error {
	w.once.Do(func() { close(w.closed) })
	return w.Conn.Close()
}

// TestPeerThatStopsReading: a server that stops reading its input blocks
// the dispatcher's writes; the dispatch still ends with its context (here
// ended as the write blocks, as VerifyTimeout ends it), refused before
// anything was sent, and Close returns. Over go-sdk's IOTransport the
// same dispatch waits until the session is closed: go-sdk's Write does
// not watch its context once it writes.
func TestPeerThatStopsReading(t *testing.T) {
	f := newFixture(uiIdentity, clickSchema)
	g := grants(t, click("button:Sign in"))
	client := servePeer(cannedResults(t, f), nil)
	w := &stopsReading{Conn: client, closed: make(chan struct{})}
	d := dispatch.New(newBroker(t, issuedAt), nil)
	srv, err := d.Connect(context.Background(), &dispatch.IOTransport{Reader: client, Writer: w}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.stop(cancel)
	if _, err := d.Dispatch(ctx, g[0], click("button:Sign in")); codeOf(err) != binding.CodeCatalogStale {
		t.Errorf("dispatch to a server that stopped reading: %v, want %s", err, binding.CodeCatalogStale)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestIOTransportMisuse: an IOTransport without its streams is refused at
// Connect with a code and the whole hint (go-sdk's wrapping of a
// transport's error cut it to 40 bytes), never a panic.
func TestIOTransportMisuse(t *testing.T) {
	r, w := io.Pipe()
	defer r.Close()
	for _, tt := range []struct {
		name string
		tr   mcp.Transport
		want string
	}{
		{"zero", &dispatch.IOTransport{}, "set Reader to the server's output and Writer to its input"},
		{"no Reader", &dispatch.IOTransport{Writer: w}, "set Reader to the server's output and Writer to its input"},
		{"no Writer", &dispatch.IOTransport{Reader: r}, "set Reader to the server's output and Writer to its input"},
		{"typed nil", (*dispatch.IOTransport)(nil), "the transport is nil"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := dispatch.New(newBroker(t, issuedAt), nil)
			_, err := d.Connect(context.Background(), tt.tr, nil)
			if codeOf(err) != binding.CodeServerUnknown || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Connect: %v, want %s saying %q", err, binding.CodeServerUnknown, tt.want)
			}
		})
	}
}

// TestCloseDuringReplay: a session closed while its catalog is being
// replayed (before the second page of tools is asked for) refuses the
// dispatch with a code, sends nothing, and does not hang, over both wires.
func TestCloseDuringReplay(t *testing.T) {
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			f := newPagedFixture()
			g := choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: pinnedOf(t, f)}},
				[]binding.Call{click("button:Sign in")}, []binding.Call{click("button:Next")}, []binding.Call{click("button:Back")})
			d := dispatch.New(newBroker(t, issuedAt), nil)
			srv := connectWith(t, d, f, p.new, func(ct mcp.Transport) mcp.Transport { return ct })
			for i, c := range []binding.Call{click("button:Sign in"), click("button:Next")} {
				if _, err := d.Dispatch(context.Background(), g[i], c); err != nil {
					t.Fatalf("dispatch %d: %v", i, err)
				}
			}
			var tools atomic.Int64
			dispatch.SetPageHook(func(_ context.Context, method string) {
				if method == "tools/list" && tools.Add(1) == 2 {
					srv.Close()
				}
			})
			defer dispatch.SetPageHook(nil)
			if _, err := d.Dispatch(context.Background(), g[2], click("button:Back")); codeOf(err) != binding.CodeServerUnknown && codeOf(err) != binding.CodeCatalogStale {
				t.Errorf("dispatch during a closed replay: %v, want %s or %s", err, binding.CodeServerUnknown, binding.CodeCatalogStale)
			}
			if got := f.received(); len(got) != 2 {
				t.Errorf("the server received %q, want the two calls before the close", got)
			}
		})
	}
}
