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
// Its public surface is what an embedder needs: this package (the HTTP
// handler and its options, the recovery middleware, the connection bound) and
// package stdio (the robust stdio transport). The rest exists only because of
// go-sdk's gaps, so it is internal and can go without breaking anyone:
// the envelope door (internal/envelope: the one parse every message
// passes before go-sdk sees it, and the rendering of go-sdk's errors on the way
// out), the session record both transports keep (internal/session: the
// protocol pin, ordered initialize, the calls in flight and their
// cancellation, their count and bytes, what a session keeps, and the table
// of sessions), the stdio transport (package stdio), and, here, the HTTP handler
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
//	| Nothing bounds what is in flight: bodies and lines, calls, notifications, and what go-sdk queues behind initialize | the session record's count and bytes of each session's requests and its ordered initialize (session.Record.Enter, Limits), with each transport's policy at the bound (stdio waits for a place, HTTP answers 503); stdio's barrier ping after each window of notifications; the door's bound on a notification's params; the HTTP handler's MaxInFlight and global body budget; the bounded event store | session.Limits and the ordering in session.Record, stdio's wait for a place and its barrier.go, envelope's MaxNotificationParamsBytes, the HTTP budgets, eventstore.go (go-sdk's memory store is unbounded per stream) |
//	| Nothing bounds sessions: their number, the connections behind them, what each keeps | session.Table: the session cap and the retained-bytes budget (what go-sdk keeps of each initialize), with eviction of the least recently used idle sessions by count and by bytes (stdio's one session is a table of one); ConnLimiter; the door's bound on what initialize and logging/setLevel leave behind | session/table.go and admitSession in http.go, connlimit.go, envelope's MaxSessionParamsBytes |
//	| A connection serves both protocols at once; a call before initialize or a second one is a plain error (code 0); a reused id in flight is answered with no id; a cancellation acts in a goroutine of its own, so a late or early one cancels a later call with the id, and a cancelled call is still answered | the session record (package session), the same code for both transports: its pin (Pin.Admit), its ids in flight with their cancelled flag (Record.Cancel, Record.Cancelled) | session.Pin and the pending calls of session.Record |
//	| No panic recovery: a panicking handler ends the process (PR #1180 was declined) | [Recover], the one recovery, outermost receiving middleware of the server, so every handler on every transport is behind it | recover.go |
//
// Besides the gaps, the HTTP handler is what a network listener needs and
// go-sdk leaves to its embedder: the Host, Origin and bearer-token checks and
// the audit log. Those stay.
package transport
