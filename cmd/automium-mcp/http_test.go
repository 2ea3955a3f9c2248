package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/automium/automium/internal/testsupport"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpProcess is the binary serving -http on a free loopback port.
type httpProcess struct {
	t     *testing.T
	cmd   *exec.Cmd
	url   string
	token string
	// mu guards stderr; the reader takes it for each line, so a test that
	// holds it stops the reading and the server's lines queue behind the pipe.
	mu     sync.Mutex
	stderr bytes.Buffer
	done   chan struct{} // closed when stderr reaches EOF
}

var (
	bannerURL   = regexp.MustCompile(`serving MCP Streamable HTTP at (http://\S+)`)
	bannerToken = regexp.MustCompile(`bearer token for this run: (\S+)`)
)

// startHTTP starts the binary with -http 127.0.0.1:0 and args, and waits for the
// banner, which names the port and, unless args say otherwise, the token.
func startHTTP(t *testing.T, stdin io.Reader, args ...string) *httpProcess {
	t.Helper()
	p := &httpProcess{t: t, cmd: exec.Command(binary, append([]string{"-http", "127.0.0.1:0"}, args...)...), done: make(chan struct{})}
	p.cmd.Stdin = stdin
	if startHook != nil {
		startHook(p.cmd)
	}
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); p.cmd.Wait() })
	ready := make(chan struct{})
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		signaled := false
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.Write(sc.Bytes())
			p.stderr.WriteByte('\n')
			p.mu.Unlock()
			if !signaled && strings.Contains(sc.Text(), "automium-mcp: VS Code") {
				signaled = true
				close(ready)
			}
		}
		if !signaled {
			close(ready)
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("no banner within 30 s")
	}
	text := p.stderrText()
	m := bannerURL.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no URL in the banner: %s", text)
	}
	p.url = m[1]
	if m := bannerToken.FindStringSubmatch(text); m != nil {
		p.token = m[1]
	}
	return p
}

func (p *httpProcess) stderrText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// stop signals the process and returns its exit status.
func (p *httpProcess) stop(sig os.Signal) int {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
	return p.waitExit()
}

// waitExit waits for the process to exit and returns its status. It reads
// stderr to its end first: Wait closes the pipe, so a Wait that ran before
// the reader was done would lose the last lines, such as the audit lines
// the server flushes as it exits.
func (p *httpProcess) waitExit() int {
	p.t.Helper()
	select {
	case <-p.done:
	case <-testsupport.Deadline(p.t):
		p.t.Fatalf("stderr still open at the test's deadline; stderr:\n%s", p.stderrText())
	}
	p.cmd.Wait()
	return p.cmd.ProcessState.ExitCode()
}

// rpc is one raw JSON-RPC POST as the seed 003 harness sends it.
type rpc struct {
	status      int
	contentType string
	session     string
	message     json.RawMessage // the JSON-RPC response, from a JSON body or the event stream
}

func (p *httpProcess) post(t *testing.T, session, body string) rpc {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, p.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if p.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := rpc{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), session: resp.Header.Get("Mcp-Session-Id")}
	switch {
	case strings.HasPrefix(r.contentType, "application/json"):
		r.message = data
	case strings.HasPrefix(r.contentType, "text/event-stream"):
		for _, line := range strings.Split(string(data), "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok && strings.TrimSpace(d) != "" {
				r.message = json.RawMessage(strings.TrimSpace(d))
			}
		}
	}
	return r
}

// TestHTTPSeedProfile is the seed 003 MCP conformance profile against the real
// binary: raw JSON-RPC POSTs to /mcp, answered as JSON or as an event stream,
// with the Mcp-Session-Id of initialize reused on every later request.
func TestHTTPSeedProfile(t *testing.T) {
	f := loadFixture(t)
	for _, mode := range []struct {
		name, contentType string
		args              []string
	}{
		{"sse", "text/event-stream", nil},
		{"json", "application/json", []string{"-http-json"}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			p := startHTTP(t, nil, mode.args...)
			check := func(what string, r rpc) map[string]any {
				t.Helper()
				if r.status < 200 || r.status > 299 {
					t.Fatalf("%s: HTTP %d, want 2xx", what, r.status)
				}
				if !strings.HasPrefix(r.contentType, mode.contentType) {
					t.Errorf("%s: Content-Type %q, want %s", what, r.contentType, mode.contentType)
				}
				var msg struct {
					Result map[string]any `json:"result"`
				}
				if err := json.Unmarshal(r.message, &msg); err != nil || msg.Result == nil {
					t.Fatalf("%s: no JSON-RPC result (%v): %s", what, err, r.message)
				}
				return msg.Result
			}

			init := p.post(t, "", initializeLine)
			result := check("initialize", init)
			info, _ := result["serverInfo"].(map[string]any)
			if name, _ := info["name"].(string); name == "" {
				t.Errorf("initialize: serverInfo.name is empty: %v", info)
			}
			if version, _ := info["version"].(string); version == "" {
				t.Errorf("initialize: serverInfo.version is empty: %v", info)
			}
			if _, ok := result["capabilities"].(map[string]any); !ok {
				t.Errorf("initialize: no capabilities object: %v", result)
			}
			session := init.session
			if session == "" {
				t.Fatal("initialize: no Mcp-Session-Id")
			}
			if r := p.post(t, session, initializedLine); r.status != http.StatusAccepted {
				t.Errorf("notifications/initialized: HTTP %d, want 202", r.status)
			}

			result = check("tools/list", p.post(t, session, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			tools, _ := result["tools"].([]any)
			if len(tools) == 0 {
				t.Fatal("tools/list: no tools")
			}
			for i, raw := range tools {
				tool, _ := raw.(map[string]any)
				name, _ := tool["name"].(string)
				description, _ := tool["description"].(string)
				schema, ok := tool["inputSchema"].(map[string]any)
				if name == "" || description == "" || !ok || schema == nil {
					t.Errorf("tools[%d]: want a name, a description and an inputSchema object: %v", i, tool)
					continue
				}
				args, err := json.Marshal(f.Tools[name].Good)
				if err != nil {
					t.Fatal(err)
				}
				call := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i+2, name, args)
				result := check("tools/call "+name, p.post(t, session, call))
				content, _ := result["content"].([]any)
				if len(content) == 0 {
					t.Errorf("tools/call %s: no content", name)
					continue
				}
				first, _ := content[0].(map[string]any)
				text, _ := first["text"].(string)
				// The text is a Markdown summary or the JSON itself; the
				// structured content is the JSON object.
				if _, ok := result["structuredContent"].(map[string]any); first["type"] != "text" || text == "" || !ok {
					t.Errorf("tools/call %s: content[0] = %.200v, want a text block and a structuredContent object", name, first)
				}
			}

			// The session is real: another ID is not accepted in its place.
			if r := p.post(t, "not-"+session, `{"jsonrpc":"2.0","id":99,"method":"tools/list"}`); r.status != http.StatusNotFound {
				t.Errorf("tools/list with an unknown session: HTTP %d, want 404", r.status)
			}
			if code := p.stop(syscall.SIGTERM); code != 0 {
				t.Errorf("exit status %d after SIGTERM, want 0; stderr:\n%s", code, p.stderrText())
			}
		})
	}
}

// bearerTransport adds the token to every request of the go-sdk client.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(req)
}

// TestHTTPSDKClient runs the same session as TestSDKClient through the go-sdk's
// Streamable HTTP client: at its default protocol (2026-07-28, sessionless) and
// pinned to 2025-11-25 (with a session).
func TestHTTPSDKClient(t *testing.T) {
	f := loadFixture(t)
	p := startHTTP(t, nil)
	for _, tt := range []struct{ version, want string }{{"", "2026-07-28"}, {"2025-11-25", "2025-11-25"}} {
		t.Run("protocol="+tt.want, func(t *testing.T) {
			ctx := context.Background()
			client := mcp.NewClient(&mcp.Implementation{Name: "automium-mcp-http-test", Version: "v0"}, nil)
			transport := &mcp.StreamableClientTransport{Endpoint: p.url, HTTPClient: &http.Client{Transport: bearerTransport{p.token}}}
			cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: tt.version})
			if err != nil {
				t.Fatal(err)
			}
			init := cs.InitializeResult()
			if init.ServerInfo == nil || init.ServerInfo.Name != "automium" {
				t.Errorf("server info = %+v, want name automium", init.ServerInfo)
			}
			if init.ProtocolVersion != tt.want {
				t.Errorf("negotiated protocol %q, want %q", init.ProtocolVersion, tt.want)
			}
			checkSDKSession(t, ctx, cs, f)
			if err := cs.Close(); err != nil {
				t.Errorf("closing the session: %v", err)
			}
		})
	}
	if code := p.stop(syscall.SIGINT); code != 0 {
		t.Errorf("exit status %d after SIGINT, want 0; stderr:\n%s", code, p.stderrText())
	}
	if !strings.Contains(p.stderrText(), `"method":"tools/call"`) {
		t.Errorf("no audit line for a tools/call on stderr:\n%.2000s", p.stderrText())
	}
}

// TestHTTPAnswersEqualStdio: every tool, resource and prompt answer, good or
// bad, is byte for byte the same over HTTP as over stdio, at 2025-11-25.
func TestHTTPAnswersEqualStdio(t *testing.T) {
	f := loadFixture(t)
	var requests []string
	for _, name := range slices.Sorted(maps.Keys(f.Tools)) {
		for _, args := range []map[string]any{f.Tools[name].Good, f.Tools[name].Bad} {
			data, err := json.Marshal(map[string]any{"name": name, "arguments": args})
			if err != nil {
				t.Fatal(err)
			}
			requests = append(requests, `"method":"tools/call","params":`+string(data))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(f.Prompts)) {
		for _, args := range []map[string]string{f.Prompts[name].Good, f.Prompts[name].Bad} {
			data, err := json.Marshal(map[string]any{"name": name, "arguments": args})
			if err != nil {
				t.Fatal(err)
			}
			requests = append(requests, `"method":"prompts/get","params":`+string(data))
		}
	}
	for _, uri := range []string{"automium://apps", "automium://fixtures", "automium://contracts/planner-adapter-v1", "automium://contracts/replay-event-v1", "automium://contracts/semantic-snapshot-v1", "file:///etc/passwd"} {
		requests = append(requests, `"method":"resources/read","params":{"uri":"`+uri+`"}`)
	}
	requests = append(requests, `"method":"tools/list"`, `"method":"resources/list"`, `"method":"prompts/list"`)

	stdio := startRaw(t)
	stdio.send(initializeLine, initializedLine)
	stdio.next()
	web := startHTTP(t, nil)
	session := web.post(t, "", initializeLine).session
	web.post(t, session, initializedLine)

	for i, r := range requests {
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, i+1, r)
		stdio.send(line)
		stdioLine := stdio.nextRaw()
		httpAnswer := web.post(t, session, line)
		if httpAnswer.status != http.StatusOK {
			t.Errorf("%.80s: HTTP %d", r, httpAnswer.status)
			continue
		}
		if diff := cmp.Diff(string(stdioLine), string(httpAnswer.message)); diff != "" {
			t.Errorf("%.80s: the answers differ (-stdio +http):\n%.2000s", r, diff)
		}
	}
	stdio.CloseInput()
	stdio.wait()
}

// TestHTTPRefusesNonLoopback: only loopback addresses are served, and the
// refusal comes before any socket is opened.
func TestHTTPRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:8080", "example.com:8080", "[fe80::1%lo]:0", "127.0.0.1"} {
		t.Run(addr, func(t *testing.T) {
			var stderr bytes.Buffer
			cmd := exec.Command(binary, "-http", addr)
			cmd.Stderr = &stderr
			cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			want := "loopback only"
			if addr == "127.0.0.1" {
				want = "want HOST:PORT"
			}
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("stderr %q, want it to say %q", stderr.String(), want)
			}
		})
	}
}

// TestHTTPShutdownWithOpenStream: SIGTERM ends open event streams and exits 0
// once the requests in flight are answered.
func TestHTTPShutdownWithOpenStream(t *testing.T) {
	p := startHTTP(t, nil)
	session := p.post(t, "", initializeLine).session
	p.post(t, session, initializedLine)
	req, err := http.NewRequest(http.MethodGet, p.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	if stream.StatusCode != http.StatusOK {
		t.Fatalf("GET: HTTP %d, want 200", stream.StatusCode)
	}
	if code := p.stop(syscall.SIGTERM); code != 0 {
		t.Errorf("exit status %d, want 0; stderr:\n%s", code, p.stderrText())
	}
}

// TestHTTPTokenFD: a fixed token comes on an inherited file descriptor (stdin or
// another), is never printed, and is the only one accepted.
func TestHTTPTokenFD(t *testing.T) {
	const token = "fixed-token-0123456789"
	t.Run("stdin", func(t *testing.T) {
		p := startHTTP(t, strings.NewReader(token+"\n"), "-token-fd", "0")
		checkFixedToken(t, p, token)
	})
	t.Run("fd 3", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, token)
		w.Close()
		p := startHTTPWith(t, func(cmd *exec.Cmd) { cmd.ExtraFiles = []*os.File{r} }, "-token-fd", "3")
		r.Close()
		checkFixedToken(t, p, token)
	})
	t.Run("bad token", func(t *testing.T) {
		var stderr bytes.Buffer
		cmd := exec.Command(binary, "-http", "127.0.0.1:0", "-token-fd", "0")
		cmd.Stdin = strings.NewReader("too short\n")
		cmd.Stderr = &stderr
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(stderr.String(), "16 to 1024 characters") {
			t.Errorf("exit status %d, stderr %q; want 2 and a message about the token", code, stderr.String())
		}
	})
}

func checkFixedToken(t *testing.T, p *httpProcess, token string) {
	t.Helper()
	if strings.Contains(p.stderrText(), token) {
		t.Errorf("the fixed token was printed:\n%s", p.stderrText())
	}
	if r := p.post(t, "", initializeLine); r.status != http.StatusUnauthorized {
		t.Errorf("without the token: HTTP %d, want 401", r.status)
	}
	p.token = token
	if r := p.post(t, "", initializeLine); r.status != http.StatusOK {
		t.Errorf("with the fixed token: HTTP %d, want 200", r.status)
	}
}

// startHTTPWith is startHTTP with a hook on the command before it starts.
func startHTTPWith(t *testing.T, hook func(*exec.Cmd), args ...string) *httpProcess {
	t.Helper()
	saved := startHook
	startHook = hook
	defer func() { startHook = saved }()
	return startHTTP(t, nil, args...)
}

// startHook, when set, changes the command startHTTP runs; tests that use it do
// not run in parallel.
var startHook func(*exec.Cmd)

// TestHTTPNoAuthWarnsAndLogLevel: the no-auth mode is announced in the banner
// always, and logged as a warning unless -log-level is above warn.
func TestHTTPNoAuthWarnsAndLogLevel(t *testing.T) {
	for _, tt := range []struct {
		level    string
		wantWarn bool
	}{{"warn", true}, {"info", true}, {"error", false}} {
		t.Run(tt.level, func(t *testing.T) {
			p := startHTTP(t, nil, "-insecure-no-auth-loopback-testing", "-log-level", tt.level)
			if r := p.post(t, "", initializeLine); r.status != http.StatusOK {
				t.Errorf("initialize without a token: HTTP %d, want 200", r.status)
			}
			p.stop(syscall.SIGTERM)
			text := p.stderrText()
			if !strings.Contains(text, "NO AUTHENTICATION") {
				t.Errorf("the banner does not announce the no-auth mode:\n%s", text)
			}
			if got := strings.Contains(text, `"level":"WARN","msg":"serving WITHOUT authentication`); got != tt.wantWarn {
				t.Errorf("warning logged = %v, want %v at -log-level %s:\n%s", got, tt.wantWarn, tt.level, text)
			}
			if !strings.Contains(text, `"outcome":"ok"`) {
				t.Errorf("-log-level %s silenced the audit log:\n%s", tt.level, text)
			}
		})
	}
}

// TestHTTPAuditBacklogSurvivesShutdown: no audit line is lost on SIGTERM. The
// test stops reading stderr while it sends 1,500 calls, so most of their audit
// lines are still queued in the server when the signal arrives; it then reads
// stderr to its end, and every call has its line.
func TestHTTPAuditBacklogSurvivesShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short, run in full by go test ./... and CI")
	}
	const calls = 1500
	p := startHTTP(t, nil)
	session := p.post(t, "", initializeLine).session
	p.post(t, session, initializedLine)
	p.mu.Lock()
	for i := range calls {
		call := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"automium_list_apps","arguments":{}}}`, i+2)
		if r := p.post(t, session, call); r.status != http.StatusOK {
			p.mu.Unlock()
			t.Fatalf("call %d: HTTP %d, want 200", i+2, r.status)
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.mu.Unlock()
		t.Fatal(err)
	}
	p.mu.Unlock()
	if code := p.waitExit(); code != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0", code)
	}
	got := strings.Count(p.stderrText(), `"method":"tools/call","name":"automium_list_apps","outcome":"ok"`)
	if got != calls {
		text := p.stderrText()
		t.Errorf("%d audit lines for %d calls; the end of stderr:\n%s", got, calls, text[max(0, len(text)-2000):])
	}
}

// TestHTTPHeaderLimit: headers beyond 64 KiB are refused before the handler.
func TestHTTPHeaderLimit(t *testing.T) {
	p := startHTTP(t, nil)
	for _, tt := range []struct {
		size int
		want int
	}{{1 << 10, http.StatusOK}, {100 << 10, http.StatusRequestHeaderFieldsTooLarge}} {
		req, err := http.NewRequest(http.MethodPost, p.url, strings.NewReader(initializeLine))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+p.token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("X-Padding", strings.Repeat("a", tt.size))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%d bytes of headers: HTTP %d, want %d", tt.size, resp.StatusCode, tt.want)
		}
	}
}

// TestHTTPShutdownDrains: a request in flight when SIGTERM arrives (its body
// still arriving) is answered, and then the process exits 0.
func TestHTTPShutdownDrains(t *testing.T) {
	p := startHTTP(t, nil)
	session := p.post(t, "", initializeLine).session
	p.post(t, session, initializedLine)

	body, send := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, p.url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	type answer struct {
		status int
		body   string
		err    error
	}
	answered := make(chan answer, 1)
	// With "Expect: 100-continue" the client sends the body only once the
	// handler starts reading it, so when the first write below returns, the
	// request is in flight in the handler (not queued in the listener's backlog
	// or on an idle keep-alive connection, which a shutdown may close).
	req.Header.Set("Expect", "100-continue")
	fresh := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
	go func() {
		resp, err := fresh.Do(req)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		answered <- answer{resp.StatusCode, string(data), err}
	}()
	const call = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"automium_list_apps","arguments":{}}}`
	io.WriteString(send, call[:30])

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Shutdown has begun once the listener refuses new connections.
	addr := strings.TrimSuffix(strings.TrimPrefix(p.url, "http://"), "/mcp")
	for i := 0; ; i++ {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		conn.Close()
		if i == 1000 {
			t.Fatal("the listener still accepts connections 10 s after SIGTERM")
		}
		time.Sleep(10 * time.Millisecond)
	}
	io.WriteString(send, call[30:])
	send.Close()
	a := <-answered
	if a.err != nil || a.status != http.StatusOK || !strings.Contains(a.body, `"id":7,"result"`) {
		t.Errorf("the request in flight: status %d, error %v, body %.200q; want 200 and its result; stderr:\n%s", a.status, a.err, a.body, p.stderrText())
	}
	if code := p.waitExit(); code != 0 {
		t.Errorf("exit status %d, want 0; stderr:\n%s", code, p.stderrText())
	}
}
