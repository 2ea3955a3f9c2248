package binding_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/automium/automium/binding"
)

// BenchmarkAuthorize measures the authorizations of a long plan of calls to
// one tool, the cost the broker adds before each dispatch once it has resolved
// the tool's schema.
func BenchmarkAuthorize(b *testing.B) {
	p := plan(b)
	p.Steps = nil
	for i := range binding.MaxPlanCalls {
		p.Steps = append(p.Steps, []binding.Call{{Tool: "click", Arguments: json.RawMessage(fmt.Sprintf(`{"target":"button:%d"}`, i))}})
	}
	grants := issue(b, p, nil)
	calls := make([]binding.LiveCall, len(grants))
	for i, g := range grants {
		calls[i] = live(b, g)
	}
	br := brokerAt(b, issuedAt)
	i := 0
	for b.Loop() {
		if i == len(grants) {
			b.StopTimer()
			br, i = brokerAt(b, issuedAt), 0
			b.StartTimer()
		}
		if _, err := br.Authorize(grants[i], calls[i]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkIssuePlan measures issuing a plan of three sealed grants.
func BenchmarkIssuePlan(b *testing.B) {
	p := plan(b)
	key := binding.SealKey{ID: "k1", Secret: testSecret}
	for b.Loop() {
		if _, err := binding.IssuePlan(p, &key); err != nil {
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
