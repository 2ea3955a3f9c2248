package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/automium/automium"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resource is one of the fixed v1 resources, with its body rendered once: the
// content comes from immutable corpus and contract data, so reading it is a copy.
type resource struct {
	def  *mcp.Resource
	body string
}

func (r resource) read(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.def.URI, MIMEType: r.def.MIMEType, Text: r.body}}}, nil
}

// resources is the fixed v1 resource list. There are no templates: a URI either
// is one of these or is not found, so no request can reach the filesystem.
var resources = sync.OnceValue(func() []resource {
	ctx := context.Background()
	apps, err := automium.ListApps(ctx, automium.ListAppsInput{})
	must("automium://apps", err)
	fixtures, err := automium.ListFixtures(ctx, automium.ListFixturesInput{})
	must("automium://fixtures", err)
	list := []resource{
		fixedResource("automium://apps", "apps", "Benchmark apps",
			"The authorized benchmark apps of the owned corpus with their hosting type, rationale and UI capabilities, and the corpus version. Same content as automium_list_apps.",
			apps),
		fixedResource("automium://fixtures", "fixtures", "Benchmark fixtures and environment profiles",
			"Every fixture of the owned corpus (environment profile IDs, seed refs, account refs, file refs, artifact root, reference journey IDs) and the environment profiles they use. Same content as automium_list_fixtures without a filter.",
			fixtures),
	}
	for _, name := range automium.ContractNames() {
		doc, err := automium.Contract(ctx, automium.ContractInput{Name: name})
		must("contract "+name, err)
		list = append(list, fixedResource("automium://contracts/"+name, name, contractTitles[name],
			doc.Summary+" The document gives the contract's name, version, summary, cross-field rules and the JSON Schema of each message type.",
			doc))
	}
	return list
})

// contractTitles are the display titles of the contract resources.
var contractTitles = map[string]string{
	"planner-adapter-v1":   "Planner adapter contract",
	"replay-event-v1":      "Replay event contract",
	"semantic-snapshot-v1": "Semantic snapshot contract",
}

// fixedResource renders v as compact JSON under a fixed URI.
func fixedResource(uri, name, title, description string, v any) resource {
	body, err := json.Marshal(v)
	must(uri, err)
	return resource{
		def:  &mcp.Resource{URI: uri, Name: name, Title: title, Description: description, MIMEType: "application/json", Size: int64(len(body))},
		body: string(body),
	}
}

// must panics on a failure to build constant server material: with embedded data
// it cannot happen at run time, only in a broken build, which should not start.
func must(what string, err error) {
	if err != nil {
		panic(fmt.Sprintf("mcpserver: building %s: %v", what, err))
	}
}
