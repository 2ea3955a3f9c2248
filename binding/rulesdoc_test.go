package binding_test

import (
	"os"
	"strings"
	"testing"

	"github.com/automium/automium/binding"
)

// TestCatalogRulesV2Documented: docs/binding.md states the tool-catalog-v2
// rule in CatalogRulesV2's words, one bullet each, in order.
func TestCatalogRulesV2Documented(t *testing.T) {
	doc, err := os.ReadFile("../docs/binding.md")
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, r := range binding.CatalogRulesV2() {
		want.WriteString("- " + r + "\n")
	}
	if !strings.Contains(string(doc), "### tool-catalog-v2\n") || !strings.Contains(string(doc), want.String()) {
		t.Errorf("docs/binding.md does not carry the tool-catalog-v2 rules as binding.CatalogRulesV2 states them:\n%s", want.String())
	}
}
