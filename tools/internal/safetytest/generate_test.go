package safetytest

import (
	"testing"

	"github.com/automium/automium/internal/testsupport"
)

// TestGenerated holds SECURITY.md's abuse table, docs/limits.md's tables and
// the FuzzServerLines seeds to what the cases, the schemas and the scripted
// session give today (see generatedFiles). go generate ./... rewrites them.
func TestGenerated(t *testing.T) {
	testsupport.Generated(t, generatedFiles)
}
