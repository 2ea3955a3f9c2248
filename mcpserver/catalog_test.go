package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCatalogDigestLive computes the digest the way any client would, from a
// live session's list answers, for every protocol version a client may
// negotiate, and checks it is the digest the server computed at start,
// advertises in initialize and serves in its contract resource.
func TestCatalogDigestLive(t *testing.T) {
	ctx := context.Background()
	want := CatalogDigests()
	for _, v := range append([]string{""}, mcp.SupportedProtocolVersions()...) {
		t.Run("protocol "+v, func(t *testing.T) {
			cs := connect(t, New(nil), v)
			init := cs.InitializeResult()
			catalog, err := dispatch.ListCatalog(ctx, cs, 1000, 10)
			if err != nil {
				t.Fatal(err)
			}
			got, err := catalog.Digest()
			if err != nil {
				t.Fatal(err)
			}
			if got != want[init.ProtocolVersion] {
				t.Errorf("digest from the list answers = %s, computed at start = %s", got, want[init.ProtocolVersion])
			}
			// The go-sdk client keeps initialize's _meta, but not server/discover's.
			if init.ProtocolVersion < "2026-07-28" {
				adv, _ := init.Meta[CatalogMetaKey].(map[string]any)
				if adv["digest"] != got || adv["protocolVersion"] != init.ProtocolVersion || adv["rule"] != binding.CatalogRule {
					t.Errorf("initialize _meta[%q] = %v, want the digest %s", CatalogMetaKey, init.Meta[CatalogMetaKey], got)
				}
			}
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: CatalogURI})
			if err != nil {
				t.Fatal(err)
			}
			var doc catalogContract
			if err := json.Unmarshal([]byte(res.Contents[0].Text), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Digests[init.ProtocolVersion] != got || doc.Server.Name != Name || doc.Server.Version != Version() {
				t.Errorf("contract resource: server %v, digests %v; want %s for %s", doc.Server, doc.Digests, got, init.ProtocolVersion)
			}
			// The served rule is binding's, which docs/binding.md carries too,
			// plus this server's own: where it advertises the digest.
			if rules := binding.CatalogRules(); len(doc.Rules) != len(rules)+1 || !slices.Equal(doc.Rules[:len(rules)], rules) ||
				!strings.Contains(doc.Rules[len(rules)], CatalogMetaKey) {
				t.Errorf("contract resource rules = %q; want binding.CatalogRules() and the _meta rule", doc.Rules)
			}
		})
	}
}

// TestCatalogAdvertisedOnDiscover: sessionless clients learn the digest from
// server/discover, for the protocol version they request.
func TestCatalogAdvertisedOnDiscover(t *testing.T) {
	c := defaultCatalog()
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return &mcp.DiscoverResult{}, nil }
	req := &mcp.ServerRequest[*mcp.DiscoverParams]{Params: &mcp.DiscoverParams{Meta: mcp.Meta{mcp.MetaKeyProtocolVersion: "2026-07-28"}}}
	res, err := c.advertise(next)(context.Background(), "server/discover", req)
	if err != nil {
		t.Fatal(err)
	}
	adv, _ := res.GetMeta()[CatalogMetaKey].(map[string]string)
	if adv["digest"] != c.digests["2026-07-28"] || adv["protocolVersion"] != "2026-07-28" {
		t.Errorf("discover _meta = %v, want the 2026-07-28 digest %s", res.GetMeta(), c.digests["2026-07-28"])
	}
}

// TestCatalogFollowsTheTables: a server built with another tool table has
// another digest, so the digest is of the server as built, not a constant.
func TestCatalogFollowsTheTables(t *testing.T) {
	extra := append(tools()[:len(tools()):len(tools())], tools()[0])
	extra[len(extra)-1].def = &mcp.Tool{Name: "automium_extra", InputSchema: tools()[0].def.InputSchema}
	other := catalogFor(extra, prompts())
	if other.digests["2025-11-25"] == defaultCatalog().digests["2025-11-25"] {
		t.Error("a server with an extra tool has the default digest")
	}
	if got := catalogFor(tools(), prompts()); got.digests["2025-11-25"] != defaultCatalog().digests["2025-11-25"] {
		t.Error("the default tables do not give the default digest")
	}
}

func TestVersionReport(t *testing.T) {
	got := VersionReport("automium-mcp")
	want := "automium-mcp " + Version() + " (MCP server \"automium\")\n" +
		"tool-catalog-v1 " + CatalogDigests()["2026-07-28"] + " (protocol 2026-07-28)\n"
	if len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("VersionReport =\n%s\nwant it to start with\n%s", got, want)
	}
}
