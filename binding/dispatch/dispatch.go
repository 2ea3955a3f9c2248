// Package dispatch calls MCP tools only through a [binding.Broker]. It is the
// go-sdk client side of package binding: a [Dispatcher] connects to MCP servers
// over any mcp.Transport, reads each server's identity and computes its live
// tool-catalog-v1 digest after initialize, and sends a tool call only after the
// broker has authorized it against its grant.
//
// The set of servers is fixed by the program that calls [Dispatcher.Connect];
// a model's decision can only name one of them, so a model cannot add a
// server. Routing is by exact identity, and the broker then checks the
// identity and the catalog digest against the grant, so an identically named
// tool on another server, or on the same server after its contract changed,
// never receives the call.
//
// Automium's own MCP server (package mcpserver) never dispatches anything; this
// package is for the programs that will, such as a live run coordinator driving a
// synthetic-UI server.
package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/automium/automium/internal/echo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures a [Dispatcher]. A nil *Options means the defaults.
type Options struct {
	// Client is the identity the dispatcher gives servers in initialize.
	// Default: {Name: "automium-dispatch", Version: "v1"}.
	Client *mcp.Implementation
	// MaxCatalogItems bounds the tools, resources and prompts read from one
	// server, and MaxCatalogPages the pages, so a server that pages forever
	// cannot hold the dispatcher. Defaults: 10,000 and 1,000.
	MaxCatalogItems int
	MaxCatalogPages int
}

// Dispatcher routes granted calls to the servers it connected to. It is safe for
// concurrent use; the broker serializes the authorizations themselves.
type Dispatcher struct {
	broker *binding.Broker
	opts   Options

	mu      sync.Mutex
	servers []*Server
}

// New returns a dispatcher that authorizes every call with broker.
func New(broker *binding.Broker, opts *Options) *Dispatcher {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Client == nil {
		o.Client = &mcp.Implementation{Name: "automium-dispatch", Version: "v1"}
	}
	if o.MaxCatalogItems <= 0 {
		o.MaxCatalogItems = 10_000
	}
	if o.MaxCatalogPages <= 0 {
		o.MaxCatalogPages = 1_000
	}
	return &Dispatcher{broker: broker, opts: o}
}

// Server is one connected MCP server as the dispatcher observed it. Its methods
// are safe for concurrent use.
type Server struct {
	session  *mcp.ClientSession
	identity binding.ServerIdentity
	limits   Options

	mu      sync.Mutex
	catalog binding.Catalog
	digest  string
	changed bool // a list_changed notification arrived since the catalog was read
}

// Identity returns the identity the server reported in initialize.
func (s *Server) Identity() binding.ServerIdentity { return s.identity }

// CatalogDigest returns the tool-catalog-v1 digest of the server's catalog as
// last read.
func (s *Server) CatalogDigest() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.digest
}

// Close ends the session with the server.
func (s *Server) Close() error { return s.session.Close() }

// Connect connects to a server over t, reads its identity, lists its catalog and
// computes the catalog digest. opts may be nil (the SDK's default protocol
// negotiation). It refuses a server that reports no identity, or the identity
// of a server already connected: routing must name exactly one server.
func (d *Dispatcher) Connect(ctx context.Context, t mcp.Transport, opts *mcp.ClientSessionOptions) (*Server, error) {
	srv := &Server{limits: d.opts}
	markChanged := func() {
		srv.mu.Lock()
		srv.changed = true
		srv.mu.Unlock()
	}
	client := mcp.NewClient(d.opts.Client, &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { markChanged() },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { markChanged() },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { markChanged() },
	})
	cs, err := client.Connect(ctx, t, opts)
	if err != nil {
		return nil, fmt.Errorf("dispatch: connect: %w", err)
	}
	srv.session = cs
	init := cs.InitializeResult()
	if init == nil || init.ServerInfo == nil || init.ServerInfo.Name == "" || init.ServerInfo.Version == "" {
		cs.Close()
		return nil, &automium.Error{Code: binding.CodeServerUnknown, Field: "serverInfo", Message: "the server reported no name and version; an unidentified server cannot be bound"}
	}
	srv.identity = binding.ServerIdentity{Name: init.ServerInfo.Name, Version: init.ServerInfo.Version}
	if err := srv.refresh(ctx); err != nil {
		cs.Close()
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, other := range d.servers {
		if other.identity == srv.identity {
			cs.Close()
			return nil, &automium.Error{Code: binding.CodeServerAmbiguous, Field: "serverInfo",
				Message: fmt.Sprintf("already connected to a server that reports %s; calls could not be routed to exactly one", echo.Quote(srv.identity.String()))}
		}
	}
	d.servers = append(d.servers, srv)
	return srv, nil
}

// refresh reads the catalog again and recomputes its digest.
func (s *Server) refresh(ctx context.Context) error {
	s.mu.Lock()
	s.changed = false
	s.mu.Unlock()
	c, err := ListCatalog(ctx, s.session, s.limits.MaxCatalogItems, s.limits.MaxCatalogPages)
	if err != nil {
		return err
	}
	digest, err := c.Digest()
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.catalog, s.digest = c, digest
	s.mu.Unlock()
	return nil
}

// live returns the server's catalog and digest, read again first if the server
// announced a change since the last read.
func (s *Server) live(ctx context.Context) (binding.Catalog, string, error) {
	s.mu.Lock()
	changed := s.changed
	s.mu.Unlock()
	if changed {
		if err := s.refresh(ctx); err != nil {
			return binding.Catalog{}, "", err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.catalog, s.digest, nil
}

// Dispatch sends call to the server it names, as authorized by grant, and
// returns the server's result. Nothing is sent unless the broker authorizes
// the call against the grant and the live server; a refusal is an
// *automium.Error with the broker's code. Once authorized, the grant is
// consumed: a call that then fails (a transport error, or a result with
// isError) is not retried under the same grant.
func (d *Dispatcher) Dispatch(ctx context.Context, grant binding.Grant, call binding.Call) (*mcp.CallToolResult, error) {
	srv := d.server(call.Server)
	if srv == nil {
		return nil, &automium.Error{Code: binding.CodeServerUnknown, Field: "server",
			Message: fmt.Sprintf("no connected server reports %s; a call can only go to a server the dispatcher was given", echo.Quote(call.Server.String()))}
	}
	catalog, digest, err := srv.live(ctx)
	if err != nil {
		return nil, err
	}
	schema, _ := catalog.InputSchema(call.Tool)
	args, err := d.broker.Authorize(grant, binding.LiveCall{
		Server: srv.identity, CatalogDigest: digest, InputSchema: schema, Tool: call.Tool, Arguments: call.Arguments,
	})
	if err != nil {
		return nil, err
	}
	return srv.session.CallTool(ctx, &mcp.CallToolParams{Name: grant.Tool, Arguments: json.RawMessage(args)})
}

func (d *Dispatcher) server(id binding.ServerIdentity) *Server {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, s := range d.servers {
		if s.identity == id {
			return s
		}
	}
	return nil
}

// ListCatalog reads a session's catalog: every page of tools/list,
// resources/list and prompts/list the server's capabilities announce, each item
// as JSON, with the negotiated protocol version. It stops with an error past
// maxItems items or maxPages pages per list.
func ListCatalog(ctx context.Context, cs *mcp.ClientSession, maxItems, maxPages int) (binding.Catalog, error) {
	init := cs.InitializeResult()
	if init == nil {
		return binding.Catalog{}, fmt.Errorf("dispatch: the session is not initialized")
	}
	c := binding.Catalog{ProtocolVersion: init.ProtocolVersion}
	caps := init.Capabilities
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	var err error
	if caps.Tools != nil {
		c.Tools, err = pages(ctx, "tools/list", maxItems, maxPages, func(cursor string) ([]*mcp.Tool, string, error) {
			r, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Tools, r.NextCursor, nil
		})
		if err != nil {
			return c, err
		}
	}
	if caps.Resources != nil {
		c.Resources, err = pages(ctx, "resources/list", maxItems, maxPages, func(cursor string) ([]*mcp.Resource, string, error) {
			r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Resources, r.NextCursor, nil
		})
		if err != nil {
			return c, err
		}
	}
	if caps.Prompts != nil {
		c.Prompts, err = pages(ctx, "prompts/list", maxItems, maxPages, func(cursor string) ([]*mcp.Prompt, string, error) {
			r, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Prompts, r.NextCursor, nil
		})
	}
	return c, err
}

// pages reads every page of one list, as JSON items.
func pages[T any](ctx context.Context, method string, maxItems, maxPages int, page func(cursor string) ([]T, string, error)) ([]json.RawMessage, error) {
	var items []json.RawMessage
	cursor := ""
	for n := 0; ; n++ {
		if n == maxPages {
			return nil, fmt.Errorf("dispatch: %s: more than %d pages", method, maxPages)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		got, next, err := page(cursor)
		if err != nil {
			return nil, fmt.Errorf("dispatch: %s: %w", method, err)
		}
		for _, it := range got {
			if len(items) == maxItems {
				return nil, fmt.Errorf("dispatch: %s: more than %d items", method, maxItems)
			}
			raw, err := json.Marshal(it)
			if err != nil {
				return nil, fmt.Errorf("dispatch: %s: %w", method, err)
			}
			items = append(items, raw)
		}
		if next == "" {
			return items, nil
		}
		cursor = next
	}
}
