// Package mcpserver adapts the automium package to the Model Context Protocol, so
// that coding agents can use Automium's contract layer over stdio:
//
//	server := mcpserver.New(nil)
//	if err := server.Run(ctx, &mcp.StdioTransport{}); err != nil {
//		log.Fatal(err)
//	}
//
// # What it serves
//
// Seven tools, one per root-package capability (automium_list_apps,
// automium_list_fixtures, automium_compile_journey, automium_create_run_submission,
// automium_get_replay_summary, automium_get_artifact_manifest,
// automium_compare_planners); six fixed read-only resources (automium://apps,
// automium://fixtures, the three automium://contracts/... documents, and
// automium://contracts/tool-catalog-v1, the rule and digests of the tool
// contract, see [CatalogURI]); three
// prompts (draft_journey, debug_failed_run, compare_planner_backends); and
// completions for their app, fixture and verdict arguments.
//
// Every tool is read-only, idempotent and closed-world, and every output is
// modeled: nothing here launches a browser, calls a planner provider, opens a
// socket, reads a credential or writes a file.
//
// # Contracts
//
// Tool schemas are derived from the root package's struct tags, never written by
// hand: json gives the names, jsonschema the descriptions, and validate the
// constraints (required, enums of corpus IDs, bounds, patterns), so what an agent
// is told and what validation accepts cannot drift.
//
// # Errors
//
// A problem the caller can fix is a tool result with isError set, whose text is
// "code: field: message (allowed: ...)" followed by the same as JSON
// {"error": {...}}. Unknown tools, prompts and resources and bad prompt arguments
// are JSON-RPC errors with real codes. A panic in any handler is recovered and
// reported as an internal error; the session lives on.
package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/automium/automium"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures [New]. A nil *Options is valid and means the defaults. New
// copies what it needs, so an Options may be reused or changed afterwards.
type Options struct {
	// Logger receives the server's diagnostics, including recovered panics. It
	// must not write to stdout, which carries the protocol on stdio. Nil discards.
	Logger *slog.Logger
}

// Name is the server name reported to clients during initialization.
const Name = "automium"

// instructions walk an agent through the Developer Experience flow of the spec.
const instructions = `Automium is the contract layer of a QA platform for agentic browser testing: an owned benchmark corpus of web apps and fixtures, the frozen planner intent vocabulary planner-intent-v1, journey compilation, and modeled run submissions, replay summaries, artifact manifests and planner comparisons.

Every output is modeled. This server never launches a browser, calls a planner provider, opens a network connection, reads credentials or writes files. Never present its results as evidence of a live run.

Typical flow:
1. Read automium://apps (or call automium_list_apps) and choose an appId by its capabilities.
2. Read automium://fixtures (or call automium_list_fixtures with that appId) and choose a fixtureId of the app and one of its environmentProfileIds.
3. Get the draft_journey prompt with appId, fixtureId and goal: it lists the intents the app supports, what each needs, and a valid example journey.
4. Call automium_compile_journey. If valid is false, fix every listed problem and call it again.
5. Call automium_create_run_submission with the journey ID, app, fixture, a planner {id, vendor, model} and an environment profile. Keep runId and artifactManifestRef.
6. Call automium_get_replay_summary with runId, a verdict, retryCount and artifactManifestRef to learn which replay artifacts that outcome requires.
7. Call automium_get_artifact_manifest with runId, the fixture's artifactRoot and one entry per required artifact kind.
8. Call automium_compare_planners to compare planner backends on the reference journeys of chosen apps, at a fixed corpus version.

Use the debug_failed_run prompt to triage a failed, flaky or errored run, and compare_planner_backends to plan a comparison. The contracts are at automium://contracts/planner-adapter-v1, automium://contracts/replay-event-v1 and automium://contracts/semantic-snapshot-v1.

A failed tool call returns isError with the text "code: field: message (allowed: ...)" and the same as JSON {"error": {...}}: fix the named field and call again.`

// New returns an MCP server exposing Automium's tools, resources, prompts and
// completions. opts may be nil. The server holds no per-client state beyond the
// SDK's sessions, so one server may serve any number of sessions; like any
// *mcp.Server it is safe for concurrent use.
//
// Schemas, resource bodies and prompt material are computed once per process, the
// first time New runs. A contract that cannot be translated panics here, at
// start-up, rather than on a client's first call.
func New(opts *Options) *mcp.Server {
	return newServer(opts, tools(), prompts())
}

// newServer builds a server from its tool and prompt tables; tests add rows
// through the same machinery.
func newServer(opts *Options, toolTable []tool, promptTable []prompt) *mcp.Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Automium", Version: Version()}, &mcp.ServerOptions{
		Instructions:      instructions,
		Logger:            log,
		CompletionHandler: complete,
		// The feature set is fixed for the life of the server, so no list ever
		// changes; and the server sends no log messages to clients.
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
		},
	})

	var toolNames []string
	for _, t := range toolTable {
		s.AddTool(t.def, t.handler(log))
		toolNames = append(toolNames, t.def.Name)
	}
	catalog := catalogFor(toolTable, promptTable)
	var uris []string
	for _, r := range catalog.withResource(resources()) {
		s.AddResource(r.def, r.read)
		uris = append(uris, r.def.URI)
	}
	var promptNames []string
	for _, p := range promptTable {
		s.AddPrompt(p.def, p.handler(log))
		promptNames = append(promptNames, p.def.Name)
	}
	slices.Sort(toolNames)
	slices.Sort(uris)
	slices.Sort(promptNames)
	// recoverPanics is outermost, so it also covers the name guard.
	s.AddReceivingMiddleware(recoverPanics(log), guardNames(toolNames, promptNames, uris), catalog.advertise)
	return s
}

// guardNames answers requests for a tool, prompt or resource the server does not
// have with a JSON-RPC error that names the ones it does, so an agent can correct
// itself in one step. Unknown tools, prompts and resources are all invalid params
// (-32602): the MCP specification prescribes it for tools and prompts, and since
// SEP-2164 (go-sdk v1.7) for resources too, replacing the older -32002. Nothing
// outside the fixed resource list is ever read: file:// and every other URI end
// here.
func guardNames(toolNames, promptNames, uris []string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch r := req.(type) {
			case *mcp.CallToolRequest:
				if r.Params != nil && !slices.Contains(toolNames, r.Params.Name) {
					return nil, rpcError(jsonrpc.CodeInvalidParams, errorEnvelope{Error: &automium.Error{Code: automium.CodeUnsupportedOperation, Field: "name", Allowed: toolNames,
						Message: fmt.Sprintf("unknown tool %q; automium v1 has exactly the allowed tools", r.Params.Name)}})
				}
			case *mcp.GetPromptRequest:
				if r.Params != nil && !slices.Contains(promptNames, r.Params.Name) {
					return nil, rpcError(jsonrpc.CodeInvalidParams, errorEnvelope{Error: &automium.Error{Code: automium.CodeUnsupportedOperation, Field: "name", Allowed: promptNames,
						Message: fmt.Sprintf("unknown prompt %q; automium v1 has exactly the allowed prompts", r.Params.Name)}})
				}
			case *mcp.ReadResourceRequest:
				if r.Params != nil && !slices.Contains(uris, r.Params.URI) {
					return nil, rpcError(jsonrpc.CodeInvalidParams, errorEnvelope{URI: r.Params.URI, Error: &automium.Error{Code: automium.CodeUnsupportedResource, Field: "uri", Allowed: uris,
						Message: fmt.Sprintf("resource %q not found; automium v1 serves only the allowed fixed URIs and never reads files", r.Params.URI)}})
				}
			}
			return next(ctx, method, req)
		}
	}
}
