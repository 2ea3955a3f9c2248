package binding_test

import (
	"testing"
)

// BenchmarkAuthorize measures one authorization of a granted call, the cost the
// broker adds before each dispatch.
func BenchmarkAuthorize(b *testing.B) {
	g := issue(b, plan(b), nil)[0]
	call := live(b, g)
	for b.Loop() {
		br := brokerAt(b, issuedAt)
		if _, err := br.Authorize(g, call); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCatalogDigest measures the digest of a small catalog.
func BenchmarkCatalogDigest(b *testing.B) {
	c := uiCatalog(false)
	for b.Loop() {
		if _, err := c.Digest(); err != nil {
			b.Fatal(err)
		}
	}
}
