package mcpserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResourceSizes renders every fixed resource's body and holds the size
// resources/list gives for it (from resource-sizes.json, so that listing renders
// nothing) to the body's length. go generate ./... rewrites the file.
func TestResourceSizes(t *testing.T) {
	rendered, listed := map[string]int64{}, map[string]int64{}
	for _, r := range resources() {
		rendered[r.def.URI] = int64(len(r.body()))
		listed[r.def.URI] = r.def.Size
	}
	if diff := cmp.Diff(rendered, listed); diff != "" {
		t.Errorf("listed resource sizes are not the bodies' (-rendered +listed); run go generate ./...:\n%s", diff)
	}
}
