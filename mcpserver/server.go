// Package mcpserver adapts the automium package to the Model Context Protocol, so
// that coding agents can use Automium's contract layer. It is the adapter and
// nothing else: tools, resources, prompts, completions, their schemas and the
// shaping of their errors. It knows no transport: a program serves a new server
// on any [mcp.Transport]. The automium-mcp binary serves it on the transports of
// package [github.com/automium/automium/mcpserver/transport], which stand in for
// what go-sdk v1.8.0 lacks (its stdio transport ends the session on one
// malformed line and drops answers at end of input):
//
//	server := mcpserver.New(nil)
//	if err := server.Run(ctx, &stdio.Transport{}); err != nil {
//		log.Fatal(err)
//	}
//
// A program that already has an *mcp.Server puts Automium's features on it with
// [Register] instead, beside its own.
//
// # What it serves
//
// One tool per root-package capability, from the one tool table in tools.go,
// with compact schemas (see internal/schemacompact; the README's generated inventory lists
// them); seven fixed read-only resources (automium://apps,
// automium://fixtures, the journey rules at automium://vocabulary/planner-intent-v1,
// the three automium://contracts/... documents, and
// automium://contracts/tool-catalog-v1, the rule and digests of the tool
// contract, see [CatalogURI]); one resource template, automium://journeys/{id},
// for the reference journeys; three prompts (draft_journey, debug_failed_run,
// compare_planner_backends); and completions for their app, fixture and verdict
// arguments and for journey IDs. Everything a prompt tells an agent about writing
// a journey is also in the resources, because most hosts show prompts only as
// commands a person triggers.
//
// Every tool is read-only, idempotent and closed-world, and every output is
// modeled: nothing here launches a browser, calls a planner provider, opens a
// socket, reads a credential or writes a file.
//
// # Contracts
//
// Tool schemas are derived from the root package's struct tags, never written by
// hand: json gives the names, jsonschema the descriptions, and validate the
// constraints (required, enums of corpus IDs, bounds named from automium.Limits,
// patterns), so what an agent is told and what validation accepts cannot drift.
// They ship precomputed in toolschemas/, with the catalog digests and resource
// sizes, so a start derives nothing: go generate ./... writes them
// (generate.go) and TestGenerated fails while one differs from a fresh
// derivation.
//
// # Errors
//
// A problem the caller can fix is a tool result with isError set, whose text is
// "code: field: message (allowed: ...)" followed by the same as JSON
// {"error": {...}}. Arguments are read in one pass that lists every problem of
// their shape and bounds together, one line each and under "problems" in the
// JSON, so a caller fixes them in one round trip. Unknown tools, prompts and
// resources and bad prompt arguments are JSON-RPC errors with real codes, naming
// what the server has. Panics are not recovered here: that is a gap of go-sdk,
// and package mcpserver/transport's Recover closes it for every handler of a
// server, Automium's and an embedder's alike.
package mcpserver

import (
	"context"
	"errors"
	"log/slog"
	"slices"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/echo"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures [New] and [Register]. A nil *Options is valid and means the
// defaults. They copy what they need, so an Options may be reused or changed
// afterwards.
type Options struct {
	// Logger receives the server's diagnostics. It
	// must not write to stdout, which carries the protocol on stdio. Nil discards.
	Logger *slog.Logger
}

// Name is the server name reported to clients during initialization.
const Name = "automium"

// Instructions are what New's server tells a client at initialization: they walk
// an agent through the Developer Experience flow of the spec. A program that
// puts Automium on its own server with [Register] may include them in its
// server's instructions.
const Instructions = `Automium is the contract layer of a QA platform for agentic browser testing: an owned benchmark corpus of web apps and fixtures, the frozen planner intent vocabulary planner-intent-v1, journey compilation and Playwright export, modeled run submissions, replay summaries and artifact manifests, and planner comparisons, modeled or of real runs.

Run submissions, replay summaries, artifact manifests and automium_compare_planners are modeled: nothing ran, so never present them as evidence of a live run. automium_compare_reports and automium_compare_observed_trials are observed: they compare real runs you recorded, which this server did not verify. This server never launches a browser, calls a planner provider, opens a network connection, reads credentials or writes files.

Typical flow:
1. Read automium://apps (or call automium_list_apps) and choose an appId by its capabilities.
2. Read automium://fixtures (or call automium_list_fixtures with that appId) and choose a fixtureId of the app and one of its environmentProfileIds.
3. Read automium://vocabulary/planner-intent-v1 for the journey rules (each intent's target, value and destination, the capability it needs, the target roles, assertion kinds and recovery), and a reference journey of the fixture at automium://journeys/{id} (IDs in the fixture's referenceJourneyIds). The draft_journey prompt gives the same for one app and fixture.
4. Call automium_compile_journey. If valid is false, fix every listed problem and call it again.
5. Call automium_create_run_submission with the app, fixture, a planner {id, vendor, model}, an environment profile and the journey. A reference journey is given by journeyId alone. A journey of your own is given whole as journey, the same object you compiled: the server keeps nothing between calls, so it compiles the journey again and binds the run to that digest (journeyDigest is only an optional cross-check; a journeyId that is not a reference journey, without journey, is refused). Keep runId and artifactManifestRef.
6. Call automium_get_replay_summary with runId, a verdict, retryCount and artifactManifestRef to learn which replay artifacts that outcome requires.
7. Call automium_get_artifact_manifest with runId, the fixture's artifactRoot and one entry per required artifact kind.
8. Call automium_compare_planners to check a comparison of planner backends on the reference journeys of chosen apps, at a fixed corpus version. Its trials are modeled draws (every planner from one shared model): it checks the pipeline and the statistics and never ranks real planners. For recorded runs, a pair's verdict is about these journeys as a sample of journeys; read each pair's per-journey rows (journeys) to see which journey regressed.
9. For real results: call automium_export_playwright_spec, run the spec with Playwright yourself, and pass its JSON or JUnit reports to automium_compare_reports with the mapping the export returned. Your own app, outside the corpus, is named ext:<name> (such as ext:acme-notes, with a fixture ext:default) in journeys, trials and mappings; answers list it in externalAppIds and the corpus checks that did not apply in notChecked.

Use the debug_failed_run prompt to triage a failed, flaky or errored run, and compare_planner_backends to plan a comparison. The contracts are at automium://contracts/planner-adapter-v1, automium://contracts/replay-event-v1 and automium://contracts/semantic-snapshot-v1.

A failed tool call returns isError with the text "code: field: message (allowed: ...)" and the same as JSON {"error": {...}}: fix the named field and call again.`

// New returns an MCP server exposing Automium's tools, resources, prompts and
// completions. opts may be nil. The server holds no per-client state beyond the
// SDK's sessions, so one server may serve any number of sessions; like any
// *mcp.Server it is safe for concurrent use.
//
// Tools, resources and prompts a caller adds to the returned server work like
// Automium's own, and error messages for unknown names list them too; add them
// before serving, because the server does not announce list changes.
//
// New does as little as it can, because every start pays for it: the tool
// schemas and resource sizes ship precomputed, and the rest (a resource's
// body, a tool's argument walker, the corpus, the validator) is built once per
// process, on the first request that needs it. The tests build all of it, so a
// contract that cannot be translated fails there, never at a client.
func New(opts *Options) *mcp.Server {
	return newServer(opts, tools(), prompts())
}

// newServer builds a server from its tool and prompt tables; tests add rows
// through the same machinery.
func newServer(opts *Options, toolTable []tool, promptTable []prompt) *mcp.Server {
	log := opts.logger()
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "Automium", Version: Version()}, &mcp.ServerOptions{
		Instructions: Instructions,
		// The SDK logs some client values itself (at info, the level of
		// logging/setLevel, whole): its logger bounds every attribute.
		Logger:            slog.New(echo.BoundLogs(log.Handler())),
		CompletionHandler: Complete,
		// Automium's feature set is fixed for the life of the server, so it
		// announces no list changes; and the server sends no log messages to
		// clients.
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
		},
	})
	// The tool-catalog-v1 digest covers the whole server, so only a server
	// New builds advertises one and serves its contract; Register leaves it
	// out, since the caller's own features are part of that server too.
	catalog := catalogFor(toolTable, promptTable)
	register(s, log, toolTable, promptTable, catalog.withResource(resources()), true)
	s.AddReceivingMiddleware(guardNames, catalog.advertise)
	return s
}

func (o *Options) logger() *slog.Logger {
	if o == nil || o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// guardNames answers requests for a tool, prompt or resource the server does not
// have with a JSON-RPC error that names the ones it does, so an agent can correct
// itself in one step. It asks the server's own registry, after the server has
// failed to find the name, so features an embedder adds work like Automium's and
// are named too. Unknown tools, prompts and resources are all invalid params
// (-32602): the MCP specification prescribes it for tools and prompts, and since
// SEP-2164 (go-sdk v1.7) for resources too, replacing the older -32002. Only
// registered resources and templates are ever read: file:// and every other URI
// end here.
// retiredTools are the tools an earlier catalog listed and this one folded
// into another: a client written against the earlier catalog is told which
// tool does the job now and how, not only that the name is unknown.
var retiredTools = map[string]struct{ tool, how string }{
	"automium_compare_playwright_report": {"automium_compare_reports",
		`with the report as one entry of reports, {"format":"playwright-json","content":...}, and the same planners and mapping`},
}

func guardNames(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		// A resource read that reaches a handler marks it: an error from a
		// handler explains itself, and only a read no handler served is the
		// SDK's not-found. The mark replaces reading the SDK's message.
		served := new(bool)
		if _, ok := req.(*mcp.ReadResourceRequest); ok {
			ctx = context.WithValue(ctx, servedKey{}, served)
		}
		res, err := next(ctx, method, req)
		werr, ok := errors.AsType[*jsonrpc.Error](err)
		if !ok || werr.Code != jsonrpc.CodeInvalidParams {
			return res, err
		}
		switch r := req.(type) {
		case *mcp.CallToolRequest:
			if names := liveToolNames(ctx, next, r.Session); r.Params != nil && !slices.Contains(names, r.Params.Name) {
				if instead, ok := retiredTools[r.Params.Name]; ok && slices.Contains(names, instead.tool) {
					return nil, rpcError(jsonrpc.CodeInvalidParams, errorEnvelope{Error: problem(automium.CodeUnsupportedOperation, automium.PathOf("name"), names,
						"%s is no longer a tool; call %s %s", r.Params.Name, instead.tool, instead.how)})
				}
				return nil, rpcError(jsonrpc.CodeInvalidParams, errorEnvelope{Error: problem(automium.CodeUnsupportedOperation, automium.PathOf("name"), names,
					"unknown tool %s; call one of the allowed tools", echo.Value(r.Params.Name))})
			}
		case *mcp.GetPromptRequest:
			if names := livePromptNames(ctx, next, r.Session); r.Params != nil && !slices.Contains(names, r.Params.Name) {
				return nil, rpcError(jsonrpc.CodeInvalidParams, errorEnvelope{Error: problem(automium.CodeUnsupportedOperation, automium.PathOf("name"), names,
					"unknown prompt %s; get one of the allowed prompts", echo.Value(r.Params.Name))})
			}
		case *mcp.ReadResourceRequest:
			// Only the SDK's own not-found answer is replaced: a template's
			// handler, such as the reference journeys', explains its own misses.
			if r.Params != nil && !*served {
				uris := liveResourceURIs(ctx, next, r.Session)
				return nil, rpcError(jsonrpc.CodeInvalidParams, errorEnvelope{URI: echo.URI(r.Params.URI), Error: problem(automium.CodeUnsupportedResource, automium.PathOf("uri"), uris,
					"resource %s not found; read one of the allowed URIs, filling in a template's {braces}; no file is ever read", echo.Value(r.Params.URI))})
			}
		}
		return res, err
	}
}

// servedKey marks, in a resources/read request's context, that a resource
// handler of this package ran (see markServed).
type servedKey struct{}

// markServed records that a resource handler ran for the request of ctx.
// Every resource and template handler this package registers calls it; a
// handler an embedder adds to a server New built does not, so a -32602 it
// returns is answered as not found, naming the URIs there are.
func markServed(ctx context.Context) {
	if served, ok := ctx.Value(servedKey{}).(*bool); ok {
		*served = true
	}
}

// maxListPages bounds how many pages of a list the guard reads to name what the
// server has; the SDK's default page holds 1,000 entries.
const maxListPages = 10

// liveToolNames lists the server's tools, sorted, through its own tools/list
// handler.
func liveToolNames(ctx context.Context, next mcp.MethodHandler, ss *mcp.ServerSession) []string {
	var names []string
	cursor := ""
	for range maxListPages {
		res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: ss, Params: &mcp.ListToolsParams{Cursor: cursor}})
		page, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok {
			break
		}
		for _, t := range page.Tools {
			names = append(names, t.Name)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	slices.Sort(names)
	return names
}

// livePromptNames lists the server's prompts, sorted, through its own
// prompts/list handler.
func livePromptNames(ctx context.Context, next mcp.MethodHandler, ss *mcp.ServerSession) []string {
	var names []string
	cursor := ""
	for range maxListPages {
		res, err := next(ctx, "prompts/list", &mcp.ListPromptsRequest{Session: ss, Params: &mcp.ListPromptsParams{Cursor: cursor}})
		page, ok := res.(*mcp.ListPromptsResult)
		if err != nil || !ok {
			break
		}
		for _, p := range page.Prompts {
			names = append(names, p.Name)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	slices.Sort(names)
	return names
}

// liveResourceURIs lists the server's resource URIs and URI templates, sorted,
// through its own list handlers.
func liveResourceURIs(ctx context.Context, next mcp.MethodHandler, ss *mcp.ServerSession) []string {
	var uris []string
	cursor := ""
	for range maxListPages {
		res, err := next(ctx, "resources/list", &mcp.ListResourcesRequest{Session: ss, Params: &mcp.ListResourcesParams{Cursor: cursor}})
		page, ok := res.(*mcp.ListResourcesResult)
		if err != nil || !ok {
			break
		}
		for _, r := range page.Resources {
			uris = append(uris, r.URI)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	cursor = ""
	for range maxListPages {
		res, err := next(ctx, "resources/templates/list", &mcp.ListResourceTemplatesRequest{Session: ss, Params: &mcp.ListResourceTemplatesParams{Cursor: cursor}})
		page, ok := res.(*mcp.ListResourceTemplatesResult)
		if err != nil || !ok {
			break
		}
		for _, t := range page.ResourceTemplates {
			uris = append(uris, t.URITemplate)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	slices.Sort(uris)
	return uris
}
