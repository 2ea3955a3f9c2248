package dispatch_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// freshStore is a step store at which every run is always at step 0: the
// benchmark repeats one step's dispatch without issuing a plan of b.N steps.
// The memory store's own cost (a map under a mutex) is negligible beside a
// catalog read.
type freshStore struct{}

func (freshStore) Position(string) (binding.Position, error)              { return binding.Position{}, nil }
func (freshStore) Advance(string, binding.Position, string) (bool, error) { return true, nil }

// BenchmarkDispatch measures one dispatch with the default verification (the
// whole catalog read again, its digest checked, the call sent) against an
// in-memory go-sdk server of 10, 100 and 1,000 tools, unchanged between
// calls, over the dispatcher's own transport (wire=own: its answers are
// compared as bytes) and go-sdk's (wire=go-sdk: every answer decoded). The
// go-sdk server's own work (encoding its lists on every call) is part of
// each figure; BenchmarkDispatchCannedPeer leaves it out. The goal
// (docs/performance.md) is 1,000 tools at most 5× 10 tools.
func BenchmarkDispatch(b *testing.B) {
	for _, w := range pairs {
		for _, n := range []int{10, 100, 1000} {
			b.Run(fmt.Sprintf("wire=%s/tools=%d", w.name, n), func(b *testing.B) {
				f := benchFixture(n)
				st, ct := w.new()
				ss, err := f.server.Connect(context.Background(), st, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer ss.Close()
				benchDispatch(b, f, ct, nil)
			})
		}
	}
}

// BenchmarkDispatchCannedPeer is BenchmarkDispatch against a peer that
// answers every request with bytes the go-sdk server encoded once, before
// the benchmark: per request it reads one line and writes bytes it holds,
// allocating only the line's head.
// What is left is the dispatcher's cost (go-sdk's client included) and the
// pipe's, over the dispatcher's own transport and over go-sdk's.
func BenchmarkDispatchCannedPeer(b *testing.B) {
	for _, own := range []bool{true, false} {
		for _, n := range []int{10, 100, 1000} {
			b.Run(fmt.Sprintf("wire=%s/tools=%d", wireName(own), n), func(b *testing.B) {
				f := benchFixture(n)
				benchDispatch(b, f, cannedPeer(b, f, own), nil)
			})
		}
	}
}

func wireName(own bool) string {
	if own {
		return "own"
	}
	return "go-sdk"
}

// BenchmarkDispatchTrusted is BenchmarkDispatchCannedPeer with
// TrustNotifications: no list is read before the call. It is the cost of a
// dispatch without the verification, so the difference from
// BenchmarkDispatchCannedPeer is the verification's.
func BenchmarkDispatchTrusted(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			f := benchFixture(n)
			benchDispatch(b, f, cannedPeer(b, f, true), &dispatch.Options{TrustNotifications: true})
		})
	}
}

// benchFixture is the fixture's server with n tools.
func benchFixture(n int) *fixture {
	f := newFixture(uiIdentity, clickSchema)
	for i := range n - 3 {
		f.server.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool%04d", i), Description: "Press a key of the VM's keyboard",
			InputSchema: json.RawMessage(failSchema)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	return f
}

// benchDispatch measures dispatches of one granted click over ct to f's
// catalog, with opts.
func benchDispatch(b *testing.B, f *fixture, ct mcp.Transport, opts *dispatch.Options) {
	ctx := context.Background()
	pinnedCatalog, err := dispatch.ListCatalog(ctx, plannerSession(b, f), 10_000, 100)
	if err != nil {
		b.Fatal(err)
	}
	pol, _ := binding.Digest(map[string]any{"servers": []string{"synthetic-ui"}})
	grants, err := binding.IssuePlan(binding.Plan{
		Servers: []binding.PinnedServer{{Identity: uiIdentity, Catalog: pinnedCatalog}}, RunID: runID, PolicyDigest: pol, Host: host, VMUUID: vmUUID,
		IssuedAt: issuedAt, ExpiresAt: issuedAt.Add(10 * time.Minute), Steps: [][]binding.Call{{click("button:Sign in")}},
	}, nil)
	if err != nil {
		b.Fatal(err)
	}
	broker, err := binding.NewBroker(binding.BrokerOptions{RunID: runID, PolicyDigest: pol, Host: host, VMUUID: vmUUID,
		Now: func() time.Time { return issuedAt }, Steps: freshStore{}})
	if err != nil {
		b.Fatal(err)
	}
	d := dispatch.New(broker, opts)
	srv, err := d.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := d.Dispatch(ctx, grants[0], click("button:Sign in")); err != nil {
			b.Fatal(err)
		}
		n++
	}
	// Every verification but the first two (a full read, then a replay
	// that learns the expected lines) is a replay; on the own transport,
	// one whose answers were compared as bytes.
	if opts == nil && dispatch.Replayed(srv) != uint64(n) {
		b.Fatalf("%d of %d verifications were replays", dispatch.Replayed(srv), n)
	}
	if _, own := ct.(*dispatch.IOTransport); own && opts == nil && dispatch.Identical(srv) < uint64(n-1) {
		b.Fatalf("%d of %d verifications compared bytes", dispatch.Identical(srv), n)
	}
}

// cannedPeer returns a client transport to a peer that answers each request
// with the result f's server gave to the same method once, encoded then:
// the dispatcher's own transport if own, go-sdk's otherwise.
func cannedPeer(b *testing.B, f *fixture, own bool) mcp.Transport {
	client := servePeer(cannedResults(b, f), nil)
	if own {
		return &dispatch.IOTransport{Reader: client, Writer: client}
	}
	return &mcp.IOTransport{Reader: client, Writer: client}
}

// cannedResults is the result f's server gives to each method the
// dispatcher asks for, encoded once.
func cannedResults(tb testing.TB, f *fixture) map[string][]byte {
	ctx := context.Background()
	cs := plannerSession(tb, f)
	canned := map[string][]byte{}
	keep := func(method string, res any, err error) {
		if err != nil {
			tb.Fatal(err)
		}
		raw, err := json.Marshal(res)
		if err != nil {
			tb.Fatal(err)
		}
		canned[method] = raw
	}
	init := cs.InitializeResult()
	keep("initialize", init, nil)
	tools, err := cs.ListTools(ctx, nil)
	if tools != nil && tools.NextCursor != "" {
		tb.Fatal("the canned peer serves one page")
	}
	keep("tools/list", tools, err)
	if init.Capabilities.Resources != nil {
		r, err := cs.ListResources(ctx, nil)
		keep("resources/list", r, err)
		rt, err := cs.ListResourceTemplates(ctx, nil)
		keep("resources/templates/list", rt, err)
	}
	if init.Capabilities.Prompts != nil {
		p, err := cs.ListPrompts(ctx, nil)
		keep("prompts/list", p, err)
	}
	call, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "click", Arguments: json.RawMessage(`{"target":"button:Sign in"}`)})
	keep("tools/call", call, err)
	return canned
}

// servePeer serves canned results on one end of a pipe and returns the
// other. Each request gets the line {"jsonrpc":"2.0","id":ID,"result":R},
// written in three parts (so an answer arrives split), unless script is
// set: then the bytes of each answer are what script returns, given the
// request, how many times its method was asked before (round) and the
// honest line. Per request the peer reads one line and writes bytes it
// holds, allocating only the line's head.
func servePeer(canned map[string][]byte, script func(round int, method string, id, line []byte) [][]byte) net.Conn {
	peer, client := net.Pipe()
	go func() {
		defer peer.Close()
		in := bufio.NewScanner(peer)
		in.Buffer(nil, 1<<20)
		rounds := map[string]int{}
		for in.Scan() {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
				continue // a notification
			}
			res, ok := canned[req.Method]
			if !ok {
				res = []byte(`{}`)
			}
			head := append(append([]byte(`{"jsonrpc":"2.0","id":`), req.ID...), `,"result":`...)
			parts := [][]byte{head, res, []byte("}\n")}
			if script != nil {
				parts = script(rounds[req.Method], req.Method, req.ID, bytes.Join(parts, nil))
				rounds[req.Method]++
			}
			for _, part := range parts {
				if _, err := peer.Write(part); err != nil {
					return
				}
			}
		}
	}()
	return client
}
