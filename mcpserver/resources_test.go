package mcpserver

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const resourceSizesFile = "resource-sizes.json"

// TestResourceSizes renders every fixed resource's body and holds the size
// resources/list gives for it (from resource-sizes.json, so that listing renders
// nothing) to the body's length. Regenerate with
//
//	go test ./mcpserver -run TestResourceSizes -update
func TestResourceSizes(t *testing.T) {
	rendered := map[string]int64{}
	for _, r := range resources() {
		rendered[r.def.URI] = int64(len(r.body()))
	}
	if *update {
		b, err := json.MarshalIndent(rendered, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(resourceSizesFile, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	listed := map[string]int64{}
	for _, r := range resources() {
		listed[r.def.URI] = r.def.Size
	}
	if diff := cmp.Diff(rendered, listed); diff != "" {
		t.Errorf("listed resource sizes are not the bodies' (-rendered +listed); run go test ./mcpserver -run TestResourceSizes -update:\n%s", diff)
	}
	if diff := cmp.Diff(rendered, resourceSizes()); diff != "" {
		t.Errorf("%s has sizes of resources that are gone (-rendered +file); run go test ./mcpserver -run TestResourceSizes -update:\n%s", resourceSizesFile, diff)
	}
}
