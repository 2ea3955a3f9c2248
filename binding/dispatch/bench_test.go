package dispatch_test

import (
	"context"
	"encoding/json"
	"fmt"
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
// in-memory server of 10, 100 and 1,000 tools, unchanged between calls. The
// goal (docs/performance.md) is 1,000 tools at most 5× 10 tools.
func BenchmarkDispatch(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			f := newFixture(uiIdentity, clickSchema)
			for i := range n - 3 {
				f.server.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool%04d", i), Description: "Press a key of the VM's keyboard",
					InputSchema: json.RawMessage(failSchema)},
					func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return &mcp.CallToolResult{}, nil
					})
			}
			ctx := context.Background()
			st, ct := mcp.NewInMemoryTransports()
			ss, err := f.server.Connect(ctx, st, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			pinnedCatalog := func() binding.Catalog {
				st, ct := mcp.NewInMemoryTransports()
				ss, err := f.server.Connect(ctx, st, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer ss.Close()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "planner", Version: "v1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
				if err != nil {
					b.Fatal(err)
				}
				defer cs.Close()
				c, err := dispatch.ListCatalog(ctx, cs, 10_000, 100)
				if err != nil {
					b.Fatal(err)
				}
				return c
			}()
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
			d := dispatch.New(broker, nil)
			srv, err := d.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.Dispatch(ctx, grants[0], click("button:Sign in")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
