package dispatch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The lists of a catalog, by method.
var lists = []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"}

// newPagedFixture is the synthetic-UI fixture with seven tools, five
// resources, five templates and five prompts, served two to a page, so every
// list has three or more pages.
func newPagedFixture() *fixture {
	f := newFixture(uiIdentity, clickSchema)
	f.server = mcp.NewServer(&mcp.Implementation{Name: uiIdentity.Name, Version: uiIdentity.Version}, &mcp.ServerOptions{PageSize: 2})
	for _, name := range []string{"click", "fail", "hang"} {
		tool := name
		f.server.AddTool(&mcp.Tool{Name: tool, Description: "the " + tool + " tool", InputSchema: jsonSchema(tool)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f.mu.Lock()
			f.calls = append(f.calls, req.Params.Name+" "+string(req.Params.Arguments))
			f.mu.Unlock()
			return &mcp.CallToolResult{}, nil
		})
	}
	for i := range 4 {
		f.server.AddTool(&mcp.Tool{Name: fmt.Sprintf("extra%d", i), Description: "an extra tool", InputSchema: jsonSchema("fail")},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	for i := range 5 {
		f.server.AddResource(&mcp.Resource{URI: fmt.Sprintf("ui://screen/%d", i), Name: fmt.Sprintf("screen%d", i), Description: "a screen"},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{}, nil
			})
		f.server.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: fmt.Sprintf("ui://window/%d/{id}", i), Name: fmt.Sprintf("window%d", i), Description: "a window"},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{}, nil
			})
		f.server.AddPrompt(&mcp.Prompt{Name: fmt.Sprintf("describe%d", i), Description: "describe"},
			func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{}, nil
			})
	}
	return f
}

func jsonSchema(tool string) json.RawMessage {
	if tool == "click" {
		return json.RawMessage(clickSchema)
	}
	return json.RawMessage(failSchema)
}

// cursorOf is a list request's cursor.
func cursorOf(req mcp.Request) string {
	switch p := req.GetParams().(type) {
	case *mcp.ListToolsParams:
		return p.Cursor
	case *mcp.ListResourcesParams:
		return p.Cursor
	case *mcp.ListResourceTemplatesParams:
		return p.Cursor
	case *mcp.ListPromptsParams:
		return p.Cursor
	}
	return ""
}

// driftOn makes page `page` (1 = the first) of list `method` describe its
// first item differently while silent is set, without any notification;
// page 0 means the last page. It counts the pages it served of each list.
// The changed answer is as long as the unchanged one, so only a comparison
// of every byte tells them apart.
// sameLength is s with its first byte changed, as long as s.
func sameLength(s string) string {
	b := []byte(s) // every item of the paged fixture has a description
	if b[0] == 'X' {
		b[0] = 'Y'
	} else {
		b[0] = 'X'
	}
	return string(b)
}

func driftOn(f *fixture, method string, page int, silent *atomic.Bool) *sync.Map {
	served := new(sync.Map)
	var mu sync.Mutex
	at := map[string]int{}
	f.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, m string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, m, req)
			if err != nil || !strings.HasSuffix(m, "/list") {
				return res, err
			}
			mu.Lock()
			if cursorOf(req) == "" {
				at[m] = 0
			}
			at[m]++
			n := at[m]
			mu.Unlock()
			v, _ := served.LoadOrStore(m, new(atomic.Int64))
			v.(*atomic.Int64).Add(1)
			if m != method || !silent.Load() {
				return res, err
			}
			switch r := res.(type) {
			case *mcp.ListToolsResult:
				if n == page || (page == 0 && r.NextCursor == "") {
					c, t := *r, *r.Tools[0]
					t.Description = sameLength(t.Description)
					c.Tools = append([]*mcp.Tool{&t}, r.Tools[1:]...)
					return &c, nil
				}
			case *mcp.ListResourcesResult:
				if n == page || (page == 0 && r.NextCursor == "") {
					c, x := *r, *r.Resources[0]
					x.Description = sameLength(x.Description)
					c.Resources = append([]*mcp.Resource{&x}, r.Resources[1:]...)
					return &c, nil
				}
			case *mcp.ListResourceTemplatesResult:
				if n == page || (page == 0 && r.NextCursor == "") {
					c, x := *r, *r.ResourceTemplates[0]
					x.Description = sameLength(x.Description)
					c.ResourceTemplates = append([]*mcp.ResourceTemplate{&x}, r.ResourceTemplates[1:]...)
					return &c, nil
				}
			case *mcp.ListPromptsResult:
				if n == page || (page == 0 && r.NextCursor == "") {
					c, x := *r, *r.Prompts[0]
					x.Description = sameLength(x.Description)
					c.Prompts = append([]*mcp.Prompt{&x}, r.Prompts[1:]...)
					return &c, nil
				}
			}
			return res, err
		}
	})
	return served
}

// TestSilentDriftOnAnyPage: a silent change on the first, second or last
// page of any of the four lists is contract drift, and nothing is sent; the
// unchanged paged catalog dispatches. A re-read that dropped a page, read
// only the first, or reused a digest it had not proved would let one through.
func TestSilentDriftOnAnyPage(t *testing.T) {
	for _, method := range lists {
		for _, page := range []int{1, 2, 0} {
			name := fmt.Sprintf("%s page %d", method, page)
			if page == 0 {
				name = method + " last page"
			}
			t.Run(name, func(t *testing.T) {
				f := newPagedFixture()
				silent := new(atomic.Bool)
				driftOn(f, method, page, silent)
				g := choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: pinnedOf(t, f)}},
					[]binding.Call{click("button:Sign in")}, []binding.Call{click("button:Next")})
				d := dispatch.New(newBroker(t, issuedAt), nil)
				connect(t, d, f)
				if _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); err != nil {
					t.Fatalf("the unchanged paged catalog: %v", err)
				}
				silent.Store(true)
				if _, err := d.Dispatch(context.Background(), g[1], click("button:Next")); codeOf(err) != binding.CodeContractDrift {
					t.Errorf("silent change: error %v, want %s", err, binding.CodeContractDrift)
				}
				if got := f.received(); len(got) != 1 {
					t.Errorf("the server received %q, want only the first call", got)
				}
			})
		}
	}
}

// endless makes every tools/list answer name a next page, up to 1,100
// pages: past the default bound, and few enough that a dispatcher without
// the bound ends its read (and fails the test) rather than hang.
func endless(f *fixture) *atomic.Int64 {
	n := new(atomic.Int64)
	f.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, m string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.ListToolsParams); ok {
				p.Cursor = "" // every page is the first, again
			}
			res, err := next(ctx, m, req)
			if r, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				n.Add(1)
				c := *r
				c.NextCursor = fmt.Sprintf("page-%d", n.Load())
				if n.Load() >= 1100 {
					c.NextCursor = ""
				}
				return &c, nil
			}
			return res, err
		}
	})
	return n
}

// connectErr connects d to f and returns the error.
func connectErr(t *testing.T, d *dispatch.Dispatcher, f *fixture) error {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	srv, err := d.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err == nil {
		srv.Close()
	}
	return err
}

// wantBound checks that err is catalog_stale and names the bound whole.
func wantBound(t *testing.T, err error, bound string) {
	t.Helper()
	if codeOf(err) != binding.CodeCatalogStale || !strings.Contains(err.Error(), bound) {
		t.Errorf("error %v, want %s naming %q", err, binding.CodeCatalogStale, bound)
	}
}

// untimed is the default options but the timeout: a loaded machine (or
// -race) may take longer than the default 10 s to read 1,000 pages or 5 MiB,
// and the test is about the other bounds. The default timeout is tested
// apart, by the deadline every page is read under.
var untimed = &dispatch.Options{VerifyTimeout: time.Hour}

// TestDefaultBounds: the defaults bound a read as documented, each bound
// named with its figure in the refusal: 1,000 pages (exactly 1,000 are
// asked for), 10,000 items, 4 MiB for all lists together, and a 10-second
// deadline on every page.
func TestDefaultBounds(t *testing.T) {
	t.Run("pages", func(t *testing.T) {
		if testing.Short() {
			t.Skip("reading 1,000 pages takes a second; under -short TestItemAndByteBoundsAreExact holds the page bound (3 and 4 pages) and \"items\" its default")
		}
		f := newFixture(uiIdentity, clickSchema)
		n := endless(f)
		wantBound(t, connectErr(t, dispatch.New(newBroker(t, issuedAt), untimed), f), "tools/list has more than 1000 pages (MaxCatalogPages)")
		if got := n.Load(); got != 1000 {
			t.Errorf("the dispatcher asked for %d pages, want 1000", got)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		f := newFixture(uiIdentity, clickSchema)
		for i := range 5 {
			f.server.AddTool(&mcp.Tool{Name: fmt.Sprintf("big%d", i), Description: strings.Repeat("d", 1<<20), InputSchema: jsonSchema("fail")},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{}, nil
				})
		}
		wantBound(t, connectErr(t, dispatch.New(newBroker(t, issuedAt), untimed), f), "larger than 4194304 bytes (MaxCatalogBytes)")
	})
	t.Run("items", func(t *testing.T) {
		items, pages := dispatch.DefaultLimits()
		if items != 10_000 || pages != 1_000 {
			t.Errorf("default items, pages = %d, %d", items, pages)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		f := newFixture(uiIdentity, clickSchema)
		type seen struct {
			deadline, after time.Time
			ok              bool
		}
		var mu sync.Mutex
		var got []seen
		dispatch.SetPageHook(func(ctx context.Context, method string) {
			d, ok := ctx.Deadline()
			mu.Lock()
			got = append(got, seen{d, time.Now(), ok})
			mu.Unlock()
		})
		defer dispatch.SetPageHook(nil)
		before := time.Now()
		if err := connectErr(t, dispatch.New(newBroker(t, issuedAt), nil), f); err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			t.Fatal("no page was read")
		}
		for _, s := range got {
			// The deadline was set between before and the page: it is
			// 10 s after some instant in that interval.
			if !s.ok || s.deadline.Before(before.Add(10*time.Second)) || s.deadline.After(s.after.Add(10*time.Second)) {
				t.Errorf("a page read under deadline %v (set: %v), want 10 s after a time in [%v, %v]", s.deadline, s.ok, before, s.after)
			}
		}
	})
}

// TestItemAndByteBoundsAreExact: a catalog of exactly MaxCatalogItems tools
// is read and one more is refused; a catalog of exactly MaxCatalogBytes is
// read and one byte less is refused, although every list alone fits: the
// budget is for all lists together.
func TestItemAndByteBoundsAreExact(t *testing.T) {
	f := newPagedFixture()
	c := pinnedOf(t, f)
	total := 0
	for _, l := range [][][]byte{rawsOf(c.Tools), rawsOf(c.Resources), rawsOf(c.ResourceTemplates), rawsOf(c.Prompts)} {
		for _, it := range l {
			total += len(it)
		}
	}
	for _, tt := range []struct {
		opts  dispatch.Options
		bound string // "" when the read succeeds
	}{
		{dispatch.Options{MaxCatalogItems: len(c.Tools)}, ""},
		{dispatch.Options{MaxCatalogItems: len(c.Tools) - 1}, fmt.Sprintf("tools/list has more than %d items (MaxCatalogItems)", len(c.Tools)-1)},
		{dispatch.Options{MaxCatalogBytes: total}, ""},
		{dispatch.Options{MaxCatalogBytes: total - 1}, fmt.Sprintf("larger than %d bytes (MaxCatalogBytes)", total-1)},
		{dispatch.Options{MaxCatalogPages: 4}, ""}, // seven tools, two a page
		{dispatch.Options{MaxCatalogPages: 3}, "tools/list has more than 3 pages (MaxCatalogPages)"},
	} {
		err := connectErr(t, dispatch.New(newBroker(t, issuedAt), &tt.opts), f)
		if tt.bound == "" {
			if err != nil {
				t.Errorf("%+v: %v", tt.opts, err)
			}
			continue
		}
		wantBound(t, err, tt.bound)
	}
}

func rawsOf[T ~[]byte](items []T) [][]byte {
	out := make([][]byte, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}

// TestListCacheOfEveryList: under protocol 2026-07-28 go-sdk caches every
// list answer for its ttlMs; a silent change of any list behind an hour's
// TTL is refused, and the server answers each list again for the check.
func TestListCacheOfEveryList(t *testing.T) {
	for _, method := range lists {
		t.Run(method, func(t *testing.T) {
			f := newPagedFixture()
			silent := new(atomic.Bool)
			served := driftOn(f, method, 1, silent)
			f.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, m string, req mcp.Request) (mcp.Result, error) {
					res, err := next(ctx, m, req)
					switch r := res.(type) {
					case *mcp.InitializeResult:
						r.ProtocolVersion = "2026-07-28"
					case *mcp.ListToolsResult:
						r.TTLMs = 3_600_000
					case *mcp.ListResourcesResult:
						r.TTLMs = 3_600_000
					case *mcp.ListResourceTemplatesResult:
						r.TTLMs = 3_600_000
					case *mcp.ListPromptsResult:
						r.TTLMs = 3_600_000
					}
					return res, err
				}
			})
			pin := pinnedOf(t, f)
			pin.ProtocolVersion = "2026-07-28"
			g := choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: pin}}, []binding.Call{click("button:Sign in")})
			d := dispatch.New(newBroker(t, issuedAt), nil)
			connect(t, d, f)
			v, _ := served.Load(method)
			before := v.(*atomic.Int64).Load()
			silent.Store(true)
			if _, err := d.Dispatch(context.Background(), g[0], click("button:Sign in")); codeOf(err) != binding.CodeContractDrift {
				t.Errorf("silent change behind a cached %s: error %v, want %s", method, err, binding.CodeContractDrift)
			}
			if after := v.(*atomic.Int64).Load(); after == before {
				t.Errorf("the check did not ask the server for %s; it came from go-sdk's cache", method)
			}
			if got := f.received(); len(got) != 0 {
				t.Errorf("the server received %q", got)
			}
		})
	}
}

// TestReplayProvesOnlyWhatItRecorded: a catalog read in full is recorded,
// and a later byte-identical replay of that recording proves that catalog
// and no other. The server goes from catalog A to B and back to A, each time
// silently; the grant pins B. A's recording must not prove B again, and
// the schemas of A must not be used to check a call against B.
func TestReplayProvesOnlyWhatItRecorded(t *testing.T) {
	f := newFixture(uiIdentity, clickSchema)
	silent := lieSilently(f)
	silent.Store(true)
	b := pinnedOf(t, f) // B: a looser click, where "" is a target
	silent.Store(false)
	g := choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: b}},
		[]binding.Call{click("")}, []binding.Call{click("button:Next")})
	d := dispatch.New(newBroker(t, issuedAt), nil)
	srv := connect(t, d, f)
	ctx := context.Background()
	if _, err := d.Dispatch(ctx, g[0], click("")); codeOf(err) != binding.CodeContractDrift {
		t.Fatalf("A against a grant for B: error %v, want %s", err, binding.CodeContractDrift)
	}
	silent.Store(true)
	if _, err := d.Dispatch(ctx, g[0], click("")); err != nil {
		t.Fatalf("B, checked against B's schema: %v", err)
	}
	silent.Store(false)
	if _, err := d.Dispatch(ctx, g[1], click("button:Next")); codeOf(err) != binding.CodeContractDrift {
		t.Errorf("back to A: error %v, want %s", err, binding.CodeContractDrift)
	}
	if got := f.received(); len(got) != 1 {
		t.Errorf("the server received %q, want only the call under B", got)
	}
	if n := dispatch.Replayed(srv); n != 1 {
		t.Errorf("%d reads were proved by a replay, want 1 (A's first verification)", n)
	}
}

// TestUnchangedCatalogIsReplayed: every verification of an unchanged paged
// catalog is proved by a byte-identical replay, not a full read.
func TestUnchangedCatalogIsReplayed(t *testing.T) {
	f := newPagedFixture()
	g := choices(t, []binding.PinnedServer{{Identity: uiIdentity, Catalog: pinnedOf(t, f)}},
		[]binding.Call{click("button:Sign in")}, []binding.Call{click("button:Next")})
	d := dispatch.New(newBroker(t, issuedAt), nil)
	srv := connect(t, d, f)
	for i, c := range []binding.Call{click("button:Sign in"), click("button:Next")} {
		if _, err := d.Dispatch(context.Background(), g[i], c); err != nil {
			t.Fatal(err)
		}
	}
	if n := dispatch.Replayed(srv); n != 2 {
		t.Errorf("%d of 2 verifications were proved by a replay", n)
	}
}

// TestLargeAnswersAreNotRecorded: answers larger in raw bytes than
// MaxCatalogBytes (here, a result's _meta that is no part of the catalog)
// are not kept for a replay: every verification reads in full, and a server
// cannot make the dispatcher hold more than the bound between calls.
func TestLargeAnswersAreNotRecorded(t *testing.T) {
	f := newFixture(uiIdentity, clickSchema)
	f.server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.ListToolsResult); ok {
				r.Meta = mcp.Meta{"padding": strings.Repeat("x", 8<<10)}
			}
			return res, err
		}
	})
	g := grants(t, click("button:Sign in"), click("button:Next"))
	d := dispatch.New(newBroker(t, issuedAt), &dispatch.Options{MaxCatalogBytes: 8 << 10})
	srv := connect(t, d, f)
	for i, c := range []binding.Call{click("button:Sign in"), click("button:Next")} {
		if _, err := d.Dispatch(context.Background(), g[i], c); err != nil {
			t.Fatal(err)
		}
	}
	if n := dispatch.Replayed(srv); n != 0 {
		t.Errorf("%d verifications were replays of answers larger than MaxCatalogBytes, want 0", n)
	}
}

// TestStreamableIsReadInFull: the tap cannot wrap go-sdk's streamable HTTP
// client (its connection is told about the session through an unexported
// method), so such a server is verified by a full read before every call,
// and dispatches work.
func TestStreamableIsReadInFull(t *testing.T) {
	f := newFixture(uiIdentity, clickSchema)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return f.server }, nil))
	t.Cleanup(hs.Close)
	g := grants(t, click("button:Sign in"), click("button:Next"))
	d := dispatch.New(newBroker(t, issuedAt), nil)
	srv, err := d.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	for i, c := range []binding.Call{click("button:Sign in"), click("button:Next")} {
		if _, err := d.Dispatch(context.Background(), g[i], c); err != nil {
			t.Fatal(err)
		}
	}
	if n := dispatch.Replayed(srv); n != 0 {
		t.Errorf("%d verifications were replays over streamable HTTP, want 0", n)
	}
	if got := f.received(); len(got) != 2 {
		t.Errorf("the server received %q, want both calls", got)
	}
}
