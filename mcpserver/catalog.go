package mcpserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/automium/automium/binding"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CatalogURI is the contract resource that states the tool-catalog-v1 rule and
// Automium's own digests.
const CatalogURI = "automium://contracts/" + binding.CatalogRule

// CatalogMetaKey is the key under which the initialize result's _meta (and,
// for sessionless clients, the server/discover result's) carries Automium's
// catalog digest: {"rule": "tool-catalog-v1", "protocolVersion": ..., "digest":
// "sha256:..."}.
//
// The digest goes in _meta rather than serverInfo because serverInfo is the
// protocol's closed Implementation object (name, title, description, version,
// websiteUrl, icons): a digest there would have to pose as a version or a
// description, which clients display and compare as such. _meta is the
// protocol's place for extension data, and the key follows its naming rule (a
// prefix, a slash, a name).
const CatalogMetaKey = "automium/" + binding.CatalogRule

// catalogResourceDef is the listing of the contract resource. Its listing, not
// its body, is part of the catalog, so the digest does not depend on itself.
func catalogResourceDef() *mcp.Resource {
	return &mcp.Resource{
		URI: CatalogURI, Name: binding.CatalogRule, Title: "Tool catalog contract",
		Description: "The tool-catalog-v1 rule: how a server's tools, resources, prompts and protocol version are " +
			"serialized (RFC 8785) and hashed (SHA-256) into one contract digest that a client can pin, and " +
			"Automium's own digest for each protocol version it speaks.",
		MIMEType: "application/json",
	}
}

// serverCatalog is a server's tool-catalog-v1 digests, one per protocol
// version, and the contract resource that states them.
type serverCatalog struct {
	digests  map[string]string // protocol version → digest
	resource resource
}

// catalogDigests computes the digests of the server built from these tables.
// The tool, resource and prompt listings are serialized exactly as the SDK
// writes them into tools/list, resources/list and prompts/list, so a client
// computing the digest from those answers gets the same value (a session test
// checks this for every protocol version).
func catalogDigests(toolTable []tool, resourceTable []resource, promptTable []prompt) map[string]string {
	var c binding.Catalog
	for _, t := range toolTable {
		c.Tools = append(c.Tools, mustJSON(t.def))
	}
	for _, r := range resourceTable {
		c.Resources = append(c.Resources, mustJSON(r.def))
	}
	c.Resources = append(c.Resources, mustJSON(catalogResourceDef()))
	for _, p := range promptTable {
		c.Prompts = append(c.Prompts, mustJSON(p.def))
	}
	digests, err := c.Digests(mcp.SupportedProtocolVersions()...)
	must("the tool catalog digest", err)
	return digests
}

// newServerCatalog builds the catalog of a server whose digests are these: the
// contract resource that states them.
func newServerCatalog(digests map[string]string) serverCatalog {
	doc := catalogContract{
		Name:    binding.CatalogRule,
		Version: "1",
		Summary: "A contract digest of what an MCP server advertises, so that a client can pin the exact tool " +
			"contract it was tested against and notice any change: the SHA-256 of one canonical JSON document " +
			"built from the server's tools/list, resources/list and prompts/list answers and the negotiated " +
			"protocol version.",
		// The rule in binding's words, which docs/binding.md carries too, then
		// what only this server does: where it advertises its digest.
		Rules: append(binding.CatalogRules(),
			`This server advertises the digest for the negotiated protocol version in the initialize result's _meta under "`+CatalogMetaKey+`" (and in server/discover's _meta for the requested version), and lists every version's digest under "digests" here. A client should compute the digest itself from the list answers rather than trust the advertised one.`),
		MetaKey:   CatalogMetaKey,
		Server:    binding.ServerIdentity{Name: Name, Version: Version()},
		Digests:   digests,
		Reference: "Go: github.com/automium/automium/binding.Catalog.Digest computes this rule. The dispatcher in binding/dispatch pins its successor, tool-catalog-v2 (binding.Catalog.DigestV2), which also covers resource templates and every other member, and verifies it from a live session before each call.",
	}
	def := catalogResourceDef()
	body := mustJSON(doc)
	def.Size = int64(len(body))
	return serverCatalog{digests: digests, resource: resource{def: def, body: func() string { return string(body) }}}
}

// catalogContract is the body of the contract resource.
type catalogContract struct {
	Name      string                 `json:"name"`
	Version   string                 `json:"version"`
	Summary   string                 `json:"summary"`
	Rules     []string               `json:"rules"`
	MetaKey   string                 `json:"metaKey"`
	Server    binding.ServerIdentity `json:"server"`
	Digests   map[string]string      `json:"digests"`
	Reference string                 `json:"reference"`
}

// advertise adds the digest for the session's protocol version to the
// initialize and server/discover results.
func (c serverCatalog) advertise(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		var version string
		switch r := res.(type) {
		case *mcp.InitializeResult:
			version = r.ProtocolVersion
		case *mcp.DiscoverResult:
			if dr, ok := req.(*mcp.ServerRequest[*mcp.DiscoverParams]); ok {
				version = dr.ProtocolVersion()
			}
		default:
			return res, nil
		}
		digest, ok := c.digests[version]
		if !ok {
			return res, nil
		}
		meta := res.GetMeta()
		if meta == nil {
			meta = map[string]any{}
		}
		meta[CatalogMetaKey] = map[string]string{"rule": binding.CatalogRule, "protocolVersion": version, "digest": digest}
		res.SetMeta(meta)
		return res, nil
	}
}

// precomputedDigests are the digests of the server New builds, computed by
// catalogDigests when the tables last changed. Computing them at start cost
// about 2 ms, a fifth of spawn → initialized; go generate ./... writes this
// file and TestGenerated computes the digests again and fails when a tool,
// resource or prompt listing, or the SDK's protocol versions, change.
//
//go:embed tool-catalog-v1.json
var precomputedDigests []byte

// defaultCatalog is the catalog of the server New builds.
var defaultCatalog = sync.OnceValue(func() serverCatalog {
	var digests map[string]string
	must("the precomputed tool-catalog-v1 digests", json.Unmarshal(precomputedDigests, &digests))
	return newServerCatalog(digests)
})

// CatalogDigests returns the tool-catalog-v1 digest of the server [New] builds
// for each protocol version it speaks, keyed by version. The map is a copy.
func CatalogDigests() map[string]string { return maps.Clone(defaultCatalog().digests) }

// VersionReport is what `automium-mcp -version` prints: the program name, the
// version (see [Version]), the MCP server name, then the server's contract
// digest for each protocol version it speaks, newest first, one per line.
func VersionReport(program string) string {
	s := fmt.Sprintf("%s %s (MCP server %q)\n", program, Version(), Name)
	digests := CatalogDigests()
	versions := slices.Sorted(maps.Keys(digests))
	slices.Reverse(versions)
	for _, v := range versions {
		s += fmt.Sprintf("%s %s (protocol %s)\n", binding.CatalogRule, digests[v], v)
	}
	return s
}

// mustJSON marshals constant server material.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	must(fmt.Sprintf("%T", v), err)
	return b
}

// catalogFor returns the catalog of a server built from these tables: the
// default one, computed once per process, for the tables [New] uses.
func catalogFor(toolTable []tool, promptTable []prompt) serverCatalog {
	if sameTable(toolTable, tools()) && sameTable(promptTable, prompts()) {
		return defaultCatalog()
	}
	return newServerCatalog(catalogDigests(toolTable, resources(), promptTable))
}

// sameTable reports whether a and b are the same slice (not merely equal).
func sameTable[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// withResource returns list with the contract resource added, leaving list
// itself untouched.
func (c serverCatalog) withResource(list []resource) []resource {
	return append(slices.Clip(list), c.resource)
}
