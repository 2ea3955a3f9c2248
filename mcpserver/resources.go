package mcpserver

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/automium/automium"
	"github.com/automium/automium/contract"
	"github.com/automium/automium/internal/echo"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resource is one of the fixed resources. Its body is rendered on its first
// read and kept: the content comes from immutable corpus and contract data, so
// every later read is a copy. Rendering all of them took 2 to 3 ms of every
// start (the corpus decode, and encoding/json learning each type), and most
// sessions read one or two of them, or none.
type resource struct {
	def  *mcp.Resource
	body func() string
}

func (r resource) read(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.def.URI, MIMEType: r.def.MIMEType, Text: r.body()}}}, nil
}

// resources is the fixed resource list: the spec's five v1 resources and the
// vocabulary. With the one template below, a URI either names one of these or a
// reference journey, or is not found, so no request can reach the filesystem.
var resources = sync.OnceValue(func() []resource {
	list := []resource{
		fixedResource("automium://apps", "apps", "Benchmark apps",
			"The authorized benchmark apps of the owned corpus with their hosting type, rationale and UI capabilities, and the corpus version. Same content as automium_list_apps. An app of your own is not listed: journeys, trials and report mappings name it ext:<name> (docs/external-apps.md).",
			func() (any, error) { return automium.ListApps(context.Background(), automium.ListAppsInput{}) }),
		fixedResource("automium://fixtures", "fixtures", "Benchmark fixtures and environment profiles",
			"Every fixture of the owned corpus (environment profile IDs, seed refs, account refs, file refs, artifact root, reference journey IDs) and the environment profiles they use. Same content as automium_list_fixtures without a filter. Read a reference journey at "+journeysURITemplate+".",
			func() (any, error) { return automium.ListFixtures(context.Background(), automium.ListFixturesInput{}) }),
		fixedResource(vocabularyURI, automium.IntentVocabularyVersion, "Planner intent vocabulary and journey rules",
			"The rules of a journey for automium_compile_journey: every intent of the frozen "+automium.IntentVocabularyVersion+" vocabulary with the target, destination and value it needs and the app capability it requires, the target roles, the assertion kinds and what each needs, bounded recovery and the limits, each with an example from a reference journey. Read it before drafting a journey.",
			func() (any, error) { return vocabulary(), nil }),
	}
	for _, name := range contract.Names() {
		summary, ok := contract.Summary(name)
		if !ok {
			panic("mcpserver: contract " + name + " is listed but has no summary")
		}
		list = append(list, fixedResource("automium://contracts/"+name, name, contractTitles[name],
			summary+" The document gives the contract's name, version, summary, cross-field rules and the JSON Schema of each message type."+contractSeeAlso[name],
			func() (any, error) {
				return contract.Get(context.Background(), contract.GetInput{Name: name})
			}))
	}
	return list
})

// contractTitles are the display titles of the contract resources.
var contractTitles = map[string]string{
	"planner-adapter-v1":   "Planner adapter contract",
	"replay-event-v1":      "Replay event contract",
	"semantic-snapshot-v1": "Semantic snapshot contract",
}

// contractSeeAlso points a contract's readers at the resources its rules rely
// on, by URI: the contract text itself is the root package's and speaks in Go
// terms.
var contractSeeAlso = map[string]string{
	"planner-adapter-v1": " What each intent requires is at " + vocabularyURI + ".",
}

// fixedResource is the resource at a fixed URI whose body is render's value as
// compact JSON. Its listing gives the body's size from resourceSizes, so
// listing does not render it.
func fixedResource(uri, name, title, description string, render func() (any, error)) resource {
	return resource{
		def: &mcp.Resource{URI: uri, Name: name, Title: title, Description: description, MIMEType: "application/json", Size: resourceSize(uri)},
		body: sync.OnceValue(func() string {
			v, err := render()
			must(uri, err)
			return string(mustJSON(v))
		}),
	}
}

// precomputedSizes holds the byte size of every fixed resource's body, which
// resources/list gives as each resource's size. go generate ./... writes
// it, and TestResourceSizes renders every body and fails when one no longer
// has its listed size.
//
//go:embed resource-sizes.json
var precomputedSizes []byte

var resourceSizes = sync.OnceValue(func() map[string]int64 {
	var sizes map[string]int64
	must("the precomputed resource sizes", json.Unmarshal(precomputedSizes, &sizes))
	return sizes
})

// resourceSize returns the size of the body at uri. A resource without one is
// a new resource whose size was never written: a build defect, which panics at
// start-up (and in every test) rather than listing a wrong size.
func resourceSize(uri string) int64 {
	size, ok := resourceSizes()[uri]
	if !ok {
		panic("mcpserver: no precomputed size for resource " + uri + "; run go generate ./...")
	}
	return size
}

// journeysTemplate serves the checked-in reference journeys, one per URI. Its
// handler looks the ID up in the root package's list and reads nothing else.
var journeysTemplate = &mcp.ResourceTemplate{
	URITemplate: journeysURITemplate,
	Name:        "reference-journeys",
	Title:       "Reference journeys",
	Description: "A checked-in reference journey of the owned corpus, by ID: the argument object of automium_compile_journey, and it compiles. IDs are listed in " + vocabularyURI + " and in each fixture's referenceJourneyIds (automium://fixtures); completion suggests them.",
	MIMEType:    "application/json",
}

// journeyBodies are the reference journeys rendered once, by ID.
var journeyBodies = sync.OnceValue(func() map[string]string {
	bodies := map[string]string{}
	for _, id := range automium.ReferenceJourneyIDs() {
		j, ok := automium.ReferenceJourney(id)
		if !ok {
			panic("mcpserver: reference journey " + id + " is listed but missing")
		}
		body, err := json.Marshal(j)
		must("reference journey "+id, err)
		bodies[id] = string(body)
	}
	return bodies
})

// readJourney answers a read of automium://journeys/{id}. An unknown ID is
// invalid params (-32602), as an unknown resource is, naming the IDs there are.
func readJourney(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, _ := strings.CutPrefix(uri, journeysURIPrefix)
	body, ok := journeyBodies()[id]
	if !ok {
		return nil, rpcError(jsonrpc.CodeInvalidParams, errorEnvelope{URI: echo.URI(uri), Error: problem(automium.CodeUnsupportedResource, automium.PathOf("uri"), automium.ReferenceJourneyIDs(),
			"%s is not a reference journey; use %s with one of the allowed IDs", echo.Value(id), journeysURITemplate)})
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: body}}}, nil
}

// must panics on a failure to build constant server material: with embedded data
// it cannot happen at run time, only in a broken build, which should not start.
func must(what string, err error) {
	if err != nil {
		panic(fmt.Sprintf("mcpserver: building %s: %v", what, err))
	}
}
