package dispatch_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireOutcome is what a dispatcher made of a peer's answers: the code of
// each dispatch up to the first refusal, the calls the peer received, the
// verifications proved by a replay, and (on the dispatcher's own
// transport) whether one of the replayed answers was taken as
// byte-identical.
type wireOutcome struct {
	Codes    []automium.Code
	Calls    int
	Replayed uint64
}

// runWire connects a dispatcher to a canned peer that applies script to
// its answers, over the dispatcher's own transport (own) or go-sdk's, and
// dispatches three granted clicks. The list is asked for at connect (round
// 0), then once before each dispatch; a round the script leaves out is
// answered honestly. cancel, when the script calls it, ends the context of
// the dispatch in progress.
func runWire(t *testing.T, own bool, limit int, script func(round int, method string, id, line []byte, cancel func()) [][]byte) (wireOutcome, uint64) {
	t.Helper()
	f := newFixture(uiIdentity, clickSchema)
	g := grants(t, click("button:Sign in"), click("button:Next"), click("button:Back"))
	var mu sync.Mutex
	cancel := func() {}
	calls := 0
	client := servePeer(cannedResults(t, f), func(round int, method string, id, line []byte) [][]byte {
		if method == "tools/call" {
			mu.Lock()
			calls++
			mu.Unlock()
		}
		mu.Lock()
		c := cancel
		mu.Unlock()
		if out := script(round, method, id, line, c); out != nil {
			return out
		}
		return [][]byte{line}
	})
	var ct mcp.Transport = &mcp.IOTransport{Reader: client, Writer: client, MaxLineLength: limit}
	if own {
		ct = &dispatch.IOTransport{Reader: client, Writer: client, MaxLineLength: limit}
	}
	d := dispatch.New(newBroker(t, issuedAt), nil)
	srv, err := d.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer srv.Close()
	var out wireOutcome
	for i, c := range []binding.Call{click("button:Sign in"), click("button:Next"), click("button:Back")} {
		ctx, stop := context.WithCancel(context.Background())
		mu.Lock()
		cancel = stop
		mu.Unlock()
		_, err := d.Dispatch(ctx, g[i], c)
		stop()
		code := codeOf(err)
		if code == binding.CodeServerUnknown {
			// A peer whose bytes end the session is refused as unverified
			// or as gone, depending on which the dispatcher notices
			// first; either sends nothing.
			code = binding.CodeCatalogStale
		}
		out.Codes = append(out.Codes, code)
		if err != nil {
			break
		}
	}
	mu.Lock()
	out.Calls = calls
	mu.Unlock()
	out.Replayed = dispatch.Replayed(srv)
	return out, dispatch.Identical(srv)
}

// honest, when a script returns it for a round, answers that round as an
// honest peer does.
var honest [][]byte

// onRound applies change to the answers of tools/list from round 2 (the
// replay before the second dispatch, after a first replay whose answer
// was decoded in full): the round in which the dispatcher's own transport
// compares bytes.
func onRound(change func(id, line []byte) [][]byte) func(int, string, []byte, []byte, func()) [][]byte {
	return func(round int, method string, id, line []byte, _ func()) [][]byte {
		if round < 2 || method != "tools/list" {
			return honest
		}
		return change(id, line)
	}
}

// edit is line with old replaced by new once (it must occur).
func edit(line []byte, old, new string) []byte {
	if !bytes.Contains(line, []byte(old)) {
		panic("edit: " + old + " is not in the line")
	}
	return bytes.Replace(line, []byte(old), []byte(new), 1)
}

// resultOf is the result the honest line carries.
func resultOf(line []byte) string {
	s := string(line)
	return strings.TrimSuffix(s[strings.Index(s, `"result":`)+len(`"result":`):], "}\n")
}

// TestOwnWireRefusesAsGoSDK: the dispatcher's own transport gives a
// hostile or unusual peer exactly the outcome go-sdk's transport gives it
// (the same refusals, calls and replays), and takes an answer as unchanged
// without decoding it only when its line is byte for byte the expected
// one. Each peer differs from an honest one only in the tools/list answer
// of one replay, the first compared as bytes.
func TestOwnWireRefusesAsGoSDK(t *testing.T) {
	ok3 := []automium.Code{"", "", ""}
	for _, tt := range []struct {
		name   string
		limit  int // MaxLineLength; 0: the default
		script func(round int, method string, id, line []byte, cancel func()) [][]byte
		want   wireOutcome
		// identical is how many answers the own transport took as
		// byte-identical lines, undecoded; -1 where it depends on when
		// the replay ends (a second answer after it ended is not seen
		// as unexpected), so that only the codes and calls are checked.
		identical int
	}{
		{"honest", 0, onRound(func(id, line []byte) [][]byte { return honest }),
			wireOutcome{ok3, 3, 3}, 2},
		{"one byte of the result changed, same length", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, "Click an element", "Xlick an element")}
		}), wireOutcome{[]automium.Code{"", binding.CodeContractDrift}, 1, 1}, 0},
		{"the envelope's keys in another order", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{[]byte(`{"result":` + resultOf(line) + `,"id":` + string(id) + `,"jsonrpc":"2.0"}` + "\n")}
		}), wireOutcome{ok3, 3, 3}, 0},
		{"whitespace inside the result", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, `"result":{`, `"result":{ `)}
		}), wireOutcome{ok3, 3, 2}, 0},
		{"whitespace around the envelope's members", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, `"jsonrpc":"2.0",`, `"jsonrpc" : "2.0" , `)}
		}), wireOutcome{ok3, 3, 3}, 0},
		{"an escaped id key", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, `"id":`, `"\u0069d":`)}
		}), wireOutcome{ok3, 3, 3}, 0},
		{"an escaped result key", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, `"result":`, `"r\u0065sult":`)}
		}), wireOutcome{ok3, 3, 3}, 0},
		{"an id key in capitals", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, `"id":`, `"ID":`)}
		}), wireOutcome{[]automium.Code{"", binding.CodeCatalogStale}, 1, 1}, 0},
		{"a result key in capitals", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, `"result":`, `"Result":`)}
		}), wireOutcome{[]automium.Code{"", binding.CodeCatalogStale}, 1, 1}, 0},
		{"the id key twice, the first another ID", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, `"id":`, `"id":"automium-verify-999999","id":`)}
		}), wireOutcome{ok3, 3, 3}, 0},
		{"the result key twice, the last drifted", 0, onRound(func(id, line []byte) [][]byte {
			drifted := strings.Replace(resultOf(line), "Click an element", "Xlick an element", 1)
			return [][]byte{edit(line, "}\n", `,"result":`+drifted+"}\n")}
		}), wireOutcome{[]automium.Code{"", binding.CodeContractDrift}, 1, 1}, 0},
		{"the answer twice, the second drifted", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{line, edit(line, "Click an element", "Xlick an element")}
		}), wireOutcome{ok3, 3, 2}, -1},
		{"a drifted answer to the same ID first", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, "Click an element", "Xlick an element"), line}
		}), wireOutcome{[]automium.Code{"", binding.CodeContractDrift}, 1, 1}, 0},
		{"an answer to an ID never sent first", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{bytes.Replace(line, id, []byte(`"automium-verify-999999"`), 1), line}
		}), wireOutcome{ok3, 3, 1}, 1},
		{"split into single bytes", 0, onRound(func(id, line []byte) [][]byte {
			parts := make([][]byte, len(line))
			for i := range line {
				parts[i] = line[i : i+1]
			}
			return parts
		}), wireOutcome{ok3, 3, 3}, 2},
		{"merged with a notification in one write", 0, onRound(func(id, line []byte) [][]byte {
			note := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}` + "\n"
			return [][]byte{append([]byte(note), line...)}
		}), wireOutcome{ok3, 3, 3}, 2},
		{"blank lines and a carriage return", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{append([]byte("\n  \n"), edit(line, "}\n", "}\r\n")...)}
		}), wireOutcome{ok3, 3, 3}, 2},
		{"an error for an answer", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32603,"message":"busy"}}` + "\n")}
		}), wireOutcome{[]automium.Code{"", binding.CodeCatalogStale}, 1, 1}, 0},
		{"the answer over several lines", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, `"result":`, "\n\"result\":\n")}
		}), wireOutcome{ok3, 3, 3}, 0},
		{"the answer in a batch", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{[]byte("[" + strings.TrimSuffix(string(line), "\n") + "]\n")}
		}), wireOutcome{ok3, 3, 3}, 0},
		{"two answers on one line", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{append(bytes.TrimSuffix(line, []byte("\n")), line...)}
		}), wireOutcome{[]automium.Code{"", binding.CodeCatalogStale}, 1, 1}, 0},
		{"a line past MaxLineLength", 4096, onRound(func(id, line []byte) [][]byte {
			return [][]byte{edit(line, `"result":{`, `"result":{"_meta":{"pad":"`+strings.Repeat("x", 8192)+`"},`)}
		}), wireOutcome{[]automium.Code{"", binding.CodeCatalogStale}, 1, 1}, 0},
		{"not a JSON-RPC message", 0, onRound(func(id, line []byte) [][]byte {
			return [][]byte{[]byte(`{"jsonrpc":"1.0","id":` + string(id) + `,"result":{}}` + "\n")}
		}), wireOutcome{[]automium.Code{"", binding.CodeCatalogStale}, 1, 1}, 0},
		{"the ID's bytes in another member, the real ID escaped", 0, idElsewhere(),
			wireOutcome{ok3, 3, 1}, 0},
		{"no answer at all", 0, func(round int, method string, id, line []byte, cancel func()) [][]byte {
			if round == 2 && method == "tools/list" {
				cancel() // the caller gives up; the peer never answers
				return [][]byte{}
			}
			return honest
		}, wireOutcome{[]automium.Code{"", binding.CodeCatalogStale}, 1, 1}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) { compareWires(t, tt.limit, tt.script, tt.want, tt.identical) })
	}
}

// compareWires runs script over the own transport and go-sdk's, and
// requires want over the own one, the same outcome over both, and
// identical answers taken as byte-identical lines (-1: not checked, nor
// the replays, which then depend on when the replay ends).
func compareWires(t *testing.T, limit int, script func(round int, method string, id, line []byte, cancel func()) [][]byte, want wireOutcome, identical int) {
	t.Helper()
	got, same := runWire(t, true, limit, script)
	sdk, _ := runWire(t, false, limit, script)
	if identical < 0 {
		got.Replayed, sdk.Replayed, want.Replayed = 0, 0, 0
	} else if same != uint64(identical) {
		t.Errorf("%d answers taken as byte-identical lines, want %d", same, identical)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("own transport (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(sdk, got); diff != "" {
		t.Errorf("own transport against go-sdk's (-go-sdk +own):\n%s", diff)
	}
}

// idElsewhere is a peer whose replayed answers carry the request's ID in
// an extra member, "x", and the real ID escaped (so its bytes differ from
// the ID's): from the second replay on, the real ID is the first replay's,
// then the honest answer follows. A template learnt at the "x" member
// would take the forged answer for the current request's; the check
// under another ID refuses to learn one, so the forged answer is decoded,
// unexpected, and spoils the replay.
func idElsewhere() func(int, string, []byte, []byte, func()) [][]byte {
	var first string
	return func(round int, method string, id, line []byte, _ func()) [][]byte {
		if round == 0 && method == "tools/list" {
			first = "" // a new connection: the script serves both transports
		}
		if round < 1 || method != "tools/list" || id[0] != '"' {
			return honest
		}
		escaped := strings.ReplaceAll(string(id), "-", `\u002d`)
		if first == "" {
			first = escaped
			return [][]byte{edit(line, `"id":`+string(id), `"x":`+string(id)+`,"id":`+escaped)}
		}
		return [][]byte{edit(line, `"id":`+string(id), `"x":`+string(id)+`,"id":`+first), line}
	}
}

// TestExpectedLinesAreBounded: the lines the own transport keeps to compare
// answers with count against a budget as large as MaxCatalogBytes, so a
// server whose envelopes carry far more than their results (here an extra
// member outside the result) cannot make the dispatcher hold more than
// twice the bound between calls: past it, the answers are decoded at each
// replay, and the catalog is still proved by them.
func TestExpectedLinesAreBounded(t *testing.T) {
	for _, tt := range []struct {
		name    string
		padding int
		want    [2]uint64 // replays, answers taken as byte-identical lines
	}{
		{"envelope within the bound", 4 << 10, [2]uint64{3, 2}},
		{"envelope past the bound", 20 << 10, [2]uint64{3, 0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(uiIdentity, clickSchema)
			g := grants(t, click("button:Sign in"), click("button:Next"), click("button:Back"))
			pad := `"x":"` + strings.Repeat("x", tt.padding) + `",`
			client := servePeer(cannedResults(t, f), func(_ int, method string, _, line []byte) [][]byte {
				if method == "tools/list" {
					return [][]byte{edit(line, `"result":`, pad+`"result":`)}
				}
				return [][]byte{line}
			})
			d := dispatch.New(newBroker(t, issuedAt), &dispatch.Options{MaxCatalogBytes: 16 << 10})
			srv, err := d.Connect(context.Background(), &dispatch.IOTransport{Reader: client, Writer: client}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatalf("Connect: %v", err)
			}
			defer srv.Close()
			for i, c := range []binding.Call{click("button:Sign in"), click("button:Next"), click("button:Back")} {
				if _, err := d.Dispatch(context.Background(), g[i], c); err != nil {
					t.Fatalf("dispatch %d: %v", i, err)
				}
			}
			if diff := cmp.Diff(tt.want, [2]uint64{dispatch.Replayed(srv), dispatch.Identical(srv)}); diff != "" {
				t.Errorf("replays, byte-identical answers (-want +got):\n%s", diff)
			}
		})
	}
}
