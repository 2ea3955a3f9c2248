// Package transport holds everything Automium's MCP server needs from a
// transport that go-sdk v1.8.0 does not give it. It knows nothing of Automium:
// it serves any *mcp.Server, imports neither the adapter (package mcpserver)
// nor the domain (package automium), and neither of them imports it. The
// binary, cmd/automium-mcp, wires the two:
//
//	server := mcpserver.New(nil) // or any *mcp.Server
//	err := server.Run(ctx, &stdio.Transport{})
//
// or, over Streamable HTTP,
//
//	handler, err := transport.NewHTTPHandler(server, &transport.HTTPOptions{Token: token})
//
// Its parts: the envelope door (package envelope: the one parse every message
// passes before go-sdk sees it, and the rendering of go-sdk's errors on the way
// out), the stdio transport (package stdio), and, here, the HTTP handler
// ([NewHTTPHandler]: the door, limits and the audit log in front of go-sdk's
// StreamableHTTPHandler), its answer renderer (rpcwriter.go), its bounded
// event store (eventstore.go) and the connection bound ([ConnLimiter]).
//
// # One row per gap
//
// Each part exists because of a gap in go-sdk v1.8.0. When go-sdk closes a
// gap, the code in its row goes, and nothing outside this package changes.
//
//	| go-sdk v1.8.0 gap | what stands in for it | what goes when it closes |
//	|---|---|---|
//	| One malformed line ends the stdio session (#1209, PR #1210) | stdio: every line passes the door; a bad one is answered and the session lives on | stdio's line reader and its parse-error answers (stdio.go); then all of package stdio once the rows below close too |
//	| Answers are lost at end of input (#1061) | stdio: end of input reports EOF only once every call read has been answered | stdio's drain (Read waiting on its places, DrainTimeout) |
//	| Params are quoted whole in -32602, Go type names and code 0 in other errors, plain-text 400s over HTTP | go-sdk's errors rendered on the way out from their code and the call's method (envelope's SDKError, SDKRefusal); over HTTP rpcwriter.go, the handler's answers to the header checks go-sdk makes first (transportHeaders) and the event store's rendering | envelope's sdkerrors.go, rpcwriter.go, transportHeaders, the event store's rendering of errors |
//	| Nothing bounds what is in flight: bodies and lines, calls, and what go-sdk queues behind initialize | stdio's places and byte budget; the HTTP handler's MaxInFlight, byte budgets and ordered initialize; the bounded event store | stdio's places, the HTTP budgets and the ordering, eventstore.go (go-sdk's memory store is unbounded per stream) |
//	| Nothing bounds sessions: their number, the connections behind them, what each keeps | the HTTP handler's session cap and retained-bytes budget (what go-sdk keeps of each initialize), with eviction of the least recently used idle sessions by count and by bytes; ConnLimiter; the door's bound on what initialize and logging/setLevel leave behind | admitSession and the session table in http.go, connlimit.go, envelope's MaxSessionParamsBytes |
//	| No panic recovery: a panicking handler ends the process (PR #1180 was declined) | [Recover], the one recovery, outermost receiving middleware of the server, so every handler on every transport is behind it | recover.go |
//
// Besides the gaps, the HTTP handler is what a network listener needs and
// go-sdk leaves to its embedder: the Host, Origin and bearer-token checks and
// the audit log. Those stay.
package transport
