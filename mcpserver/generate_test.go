package mcpserver

import (
	"testing"

	"github.com/automium/automium/internal/testsupport"
)

// TestGenerated holds this package's generated files to what the server gives
// today (see generatedFiles): the advertised schemas to the root package's
// schemas, compacted, the catalog digests, the resource sizes, the prompt and
// resource goldens and the README's inventory. The schemas and
// digests are the tool contract: a difference here is a contract change, to be
// named in review. go generate ./... rewrites them.
func TestGenerated(t *testing.T) {
	testsupport.Generated(t, generatedFiles)
}
