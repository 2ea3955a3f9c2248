package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/automium/automium/internal/testsupport"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests run the real binary, built once by TestMain (testsupport: static,
// as the README builds it), the way MCP clients do.

// binary is the automium-mcp built for this test run.
var binary string

func TestMain(m *testing.M) {
	path, err := testsupport.BuildBinary()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = path
	os.Exit(testsupport.Main(m))
}

// fixture is e2e/calls.json, the arguments the Inspector end-to-end test uses, so
// that both clients exercise the same calls.
type fixture struct {
	Tools map[string]struct {
		Good       map[string]any `json:"good"`
		GoodExpect map[string]any `json:"goodExpect"`
		Bad        map[string]any `json:"bad"`
		BadCode    string         `json:"badCode"`
	} `json:"tools"`
	Prompts map[string]struct {
		Good map[string]string `json:"good"`
		Bad  map[string]string `json:"bad"`
	} `json:"prompts"`
}

func loadFixture(t *testing.T) fixture {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "e2e", "calls.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("e2e/calls.json: %v", err)
	}
	return f
}

// toolErrorCode is the Automium error code in an isError result's JSON text block.
func toolErrorCode(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		text, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		var body struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(text.Text), &body) == nil && body.Error.Code != "" {
			return body.Error.Code
		}
	}
	return ""
}

// TestSDKClient runs a whole session through mcp.CommandTransport at the protocol
// versions real clients send: the two initialize-era versions, and the SDK default
// (sessionless 2026-07-28, which skips initialize).
func TestSDKClient(t *testing.T) {
	f := loadFixture(t)
	for _, version := range []string{"2025-06-18", "2025-11-25", ""} {
		name := "protocol=" + version
		if version == "" {
			name = "protocol=SDK-default"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			cmd := exec.Command(binary)
			client := mcp.NewClient(&mcp.Implementation{Name: "automium-mcp-test", Version: "v0"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			init := cs.InitializeResult()
			if init.ServerInfo == nil || init.ServerInfo.Name != "automium" {
				t.Errorf("server info = %+v, want name automium", init.ServerInfo)
			}
			if version != "" && init.ProtocolVersion != version {
				t.Errorf("negotiated protocol %q, want %q", init.ProtocolVersion, version)
			}

			checkSDKSession(t, ctx, cs, f)

			if err := cs.Close(); err != nil {
				t.Errorf("closing the session: %v", err)
			}
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("exit status %d after the client closed stdin, want 0", code)
			}
		})
	}
}

// checkSDKSession lists and calls everything the server offers through cs, with
// the good and bad arguments of e2e/calls.json, whatever the transport.
func checkSDKSession(t *testing.T, ctx context.Context, cs *mcp.ClientSession, f fixture) {
	t.Helper()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	toolNames := namesOf(tools.Tools, func(t *mcp.Tool) string { return t.Name })
	checkCovered(t, "tools", f.Tools, toolNames)
	for _, name := range toolNames {
		call := f.Tools[name]
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: call.Good})
		if err != nil {
			t.Errorf("%s with good arguments: %v", name, err)
		} else if res.IsError || res.StructuredContent == nil {
			t.Errorf("%s with good arguments: isError=%v, structured=%v: %v", name, res.IsError, res.StructuredContent != nil, res.Content)
		} else {
			got := res.StructuredContent.(map[string]any)
			for k, want := range call.GoodExpect {
				if !cmp.Equal(want, got[k]) {
					t.Errorf("%s: %s = %v, want %v", name, k, got[k], want)
				}
			}
		}
		if call.Bad == nil {
			t.Errorf("%s has no bad call in e2e/calls.json: give its row a refusal (refuses, in mcpserver/tools.go), then go generate ./...", name)
			continue
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: call.Bad})
		if err != nil {
			t.Errorf("%s with bad arguments: %v, want an isError result", name, err)
		} else if code := toolErrorCode(res); !res.IsError || code != call.BadCode {
			t.Errorf("%s with bad arguments: isError=%v code=%q, want isError and %q", name, res.IsError, code, call.BadCode)
		}
	}

	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resources.Resources) != 7 {
		t.Errorf("got %d resources, want the spec's 5, the vocabulary and the tool catalog", len(resources.Resources))
	}
	for _, r := range resources.Resources {
		got, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI})
		if err != nil {
			t.Errorf("reading %s: %v", r.URI, err)
			continue
		}
		if len(got.Contents) != 1 || got.Contents[0].MIMEType != "application/json" || !json.Valid([]byte(got.Contents[0].Text)) {
			t.Errorf("reading %s: want one application/json document, got %+v", r.URI, got.Contents)
		}
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///etc/passwd"})
	if wantCode(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("reading file:///etc/passwd: %v, want a -32602 error", err)
	}

	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	promptNames := namesOf(prompts.Prompts, func(p *mcp.Prompt) string { return p.Name })
	checkCovered(t, "prompts", f.Prompts, promptNames)
	for _, name := range promptNames {
		got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: f.Prompts[name].Good})
		if err != nil || len(got.Messages) == 0 {
			t.Errorf("prompt %s: %v, want messages", name, err)
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: f.Prompts[name].Bad}); wantCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("prompt %s with bad arguments: %v, want a -32602 error", name, err)
		}
	}
}

// namesOf lists the names of what the server listed.
func namesOf[T any](items []T, name func(T) string) []string {
	var names []string
	for _, it := range items {
		names = append(names, name(it))
	}
	return names
}

// checkCovered fails unless the fixture has an entry for exactly the listed names.
func checkCovered[V any](t *testing.T, what string, fixture map[string]V, listed []string) {
	t.Helper()
	if diff := cmp.Diff(slices.Sorted(maps.Keys(fixture)), slices.Sorted(slices.Values(listed))); diff != "" {
		t.Errorf("%s (-e2e/calls.json +server):\n%s", what, diff)
	}
}

// wantCode is the JSON-RPC code of a client error, or 0.
func wantCode(err error) int64 {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return 0
}

// rawProcess is the binary driven through plain pipes, as any client program
// does (testsupport.Process).
type rawProcess struct {
	*testsupport.Process
	t *testing.T
}

func startRaw(t *testing.T) *rawProcess {
	t.Helper()
	return &rawProcess{Process: testsupport.Start(t, exec.Command(binary)), t: t}
}

func (p *rawProcess) send(lines ...string) { p.t.Helper(); p.Send(lines...) }

// rawResponse is one line of the server's stdout.
type rawResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *struct {
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *jsonrpc.Error `json:"error"`
}

func (p *rawProcess) next() rawResponse {
	p.t.Helper()
	line := p.nextRaw()
	var r rawResponse
	if err := json.Unmarshal(line, &r); err != nil || r.JSONRPC != "2.0" {
		p.t.Fatalf("stdout line is not JSON-RPC (%v): %s", err, line)
	}
	return r
}

// nextRaw is the next stdout line, unparsed.
func (p *rawProcess) nextRaw() []byte {
	p.t.Helper()
	line, ok := p.Next()
	if !ok {
		p.t.Fatalf("stdout closed; stderr: %s", p.Stderr)
	}
	return line
}

// wait waits for the process to exit and returns its exit status.
func (p *rawProcess) wait() int {
	p.t.Helper()
	for range p.Lines() {
	}
	p.Wait()
	return p.Cmd.ProcessState.ExitCode()
}

const (
	initializeLine  = testsupport.InitializeLine
	initializedLine = testsupport.InitializedLine
)

// TestBurstThenEOF is go-sdk issue 1061 against the real binary: a client writes
// initialize and a burst of tool calls, closes stdin at once, and must still get
// every response and a clean exit.
func TestBurstThenEOF(t *testing.T) {
	f := loadFixture(t)
	names := slices.Sorted(maps.Keys(f.Tools))
	const runs, burst = 5, 20
	for run := range runs {
		p := startRaw(t)
		p.send(initializeLine, initializedLine)
		for i := range burst {
			name := names[i%len(names)]
			args, err := json.Marshal(f.Tools[name].Good)
			if err != nil {
				t.Fatal(err)
			}
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, i+1, name, args))
		}
		p.CloseInput()
		answered := map[string]bool{}
		for line := range p.Lines() {
			var r rawResponse
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatalf("run %d: stdout line is not JSON: %s", run, line)
			}
			if r.Error != nil || r.Result == nil || r.Result.IsError {
				t.Errorf("run %d: id %s failed: %s", run, r.ID, line)
			}
			answered[string(r.ID)] = true
		}
		if len(answered) != burst+1 {
			t.Errorf("run %d: %d of %d requests answered", run, len(answered), burst+1)
		}
		if code := p.wait(); code != 0 {
			t.Errorf("run %d: exit status %d, want 0", run, code)
		}
		if p.Stderr.Len() != 0 {
			t.Errorf("run %d: a clean session wrote to stderr: %s", run, p.Stderr)
		}
	}
}

func TestMalformedLineKeepsTheSession(t *testing.T) {
	p := startRaw(t)
	p.send(initializeLine, initializedLine)
	if r := p.next(); string(r.ID) != `"init"` || r.Error != nil {
		t.Fatalf("initialize: %+v", r)
	}
	p.send(`{not json`, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	r := p.next()
	if string(r.ID) != "null" || r.Error == nil || r.Error.Code != jsonrpc.CodeParseError {
		t.Errorf("malformed line: got id %s error %+v, want id null and -32700", r.ID, r.Error)
	}
	if r := p.next(); string(r.ID) != "1" || r.Error != nil || r.Result == nil {
		t.Errorf("request after the malformed line: got %+v, want a result for id 1", r)
	}
	p.CloseInput()
	if code := p.wait(); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
}

func TestSignalsExitCleanly(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			p := startRaw(t)
			p.send(initializeLine) // once answered, the server is up and its handlers are installed
			p.next()
			if err := p.Cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(); code != 0 || p.Stderr.Len() != 0 {
				t.Errorf("after %v: exit status %d, stderr %q; want 0 and nothing", sig, code, p.Stderr)
			}
		})
	}
}

// TestClosedStdout: a client that closes the server's stdout has gone away. That
// must end the session like closing stdin does, not kill the server with SIGPIPE.
func TestClosedStdout(t *testing.T) {
	cmd := exec.Command(binary)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	io.WriteString(stdin, initializeLine+"\n"+initializedLine+"\n"+`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`+"\n")
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("killed by %v, want a normal exit", ws.Signal())
		}
		if code := cmd.ProcessState.ExitCode(); code != 0 || stderr.Len() != 0 {
			t.Errorf("exit status %d, stderr %q; want 0 and nothing", code, stderr.String())
		}
	case <-testsupport.Deadline(t):
		cmd.Process.Kill()
		t.Fatal("still running at the test's deadline after its stdout and stdin were closed")
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		args       []string
		wantStatus int
		wantStdout string // prefix
		wantStderr string // substring
	}{
		{[]string{"-version"}, 0, "automium-mcp ", ""},
		// Help asked for is output: stdout, status 0, nothing on stderr.
		{[]string{"-help"}, 0, "Usage: automium-mcp", ""},
		{[]string{"-h"}, 0, "Usage: automium-mcp", ""},
		{[]string{"--help"}, 0, "Usage: automium-mcp", ""},
		{[]string{"-bogus"}, 2, "", "flag provided but not defined: -bogus"},
		{[]string{"serve"}, 2, "", `unexpected argument "serve"`},
		{[]string{"-log-level", "debug", "-version"}, 0, "automium-mcp ", ""},
		{[]string{"-log-level", "ERROR", "-version"}, 0, "automium-mcp ", ""},
		{[]string{"-log-level", "loud"}, 2, "", `-log-level "loud": want debug, info, warn or error`},
		{[]string{"-token-fd", "0"}, 2, "", "need -http"},
		{[]string{"-http", "127.0.0.1:0", "-token-fd", "2"}, 2, "", "-token-fd 2 is stdout or stderr"},
		{[]string{"-http", "127.0.0.1:0", "-token-fd", "0", "-insecure-no-auth-loopback-testing"}, 2, "", "exclude each other"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(binary, tt.args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatal(err)
			}
			if got := cmd.ProcessState.ExitCode(); got != tt.wantStatus {
				t.Errorf("exit status %d, want %d", got, tt.wantStatus)
			}
			if !strings.HasPrefix(stdout.String(), tt.wantStdout) || (tt.wantStdout == "" && stdout.Len() != 0) {
				t.Errorf("stdout %q, want it to start with %q", stdout.String(), tt.wantStdout)
			}
			if !strings.Contains(stderr.String(), tt.wantStderr) || (tt.wantStderr == "" && stderr.Len() != 0) {
				t.Errorf("stderr %q, want it to contain %q", stderr.String(), tt.wantStderr)
			}
		})
	}
}

// TestUndrainedStderrKeepsTheSession: a client that never reads stderr must not
// stop the protocol. Each duplicate notifications/initialized made go-sdk log
// an error; about 790 of them once filled the 64 KiB pipe and hung the session,
// so a following ping went unanswered. The flood is ten times that, in several
// shapes (the session's record now drops the duplicates before go-sdk logs
// them; each logging/setLevel still logs), and the ping must still be answered.
func TestUndrainedStderrKeepsTheSession(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short, run in full by go test ./... and CI")
	}
	floods := []struct{ name, line string }{
		{"duplicate initialized", initializedLine},
		{"unknown notification", `{"jsonrpc":"2.0","method":"notifications/automium-unknown"}`},
		{"initialized with params", `{"jsonrpc":"2.0","method":"notifications/initialized","params":{"x":"` + strings.Repeat("y", 512) + `"}}`},
		{"logging/setLevel", `{"jsonrpc":"2.0","id":%d,"method":"logging/setLevel","params":{"level":"debug"}}`},
	}
	for _, tt := range floods {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binary, "-log-level", "debug")
			stderr, err := cmd.StderrPipe() // never read
			if err != nil {
				t.Fatal(err)
			}
			defer stderr.Close()
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			lines := make(chan []byte, 4)
			go func() {
				defer close(lines)
				r := bufio.NewReader(stdout)
				for {
					line, err := r.ReadBytes('\n')
					if err != nil {
						return
					}
					lines <- line
				}
			}()
			go func() {
				w := bufio.NewWriter(stdin)
				fmt.Fprintln(w, initializeLine)
				fmt.Fprintln(w, initializedLine)
				for i := range 8000 {
					if strings.Contains(tt.line, "%d") {
						fmt.Fprintf(w, tt.line+"\n", i)
					} else {
						fmt.Fprintln(w, tt.line)
					}
				}
				fmt.Fprintln(w, `{"jsonrpc":"2.0","id":"after","method":"ping"}`)
				_ = w.Flush()
			}()
			timeout := time.After(30 * time.Second)
			for {
				select {
				case line, ok := <-lines:
					if !ok {
						t.Fatal("stdout closed before the ping was answered")
					}
					if bytes.Contains(line, []byte(`"id":"after"`)) {
						return
					}
				case <-timeout:
					t.Fatal("the ping after the flood got no answer in 30 s: the session is held up by its undrained stderr")
				}
			}
		})
	}
}

// TestTerminalHintSaysWhatNext: a person who started the server at a terminal
// reads what to do next from where they are. Under go run they are in a
// clone, and the hint gives the README's one command, word for word, which
// builds the binary and shows a tool answer; an installed binary is started
// by name.
func TestTerminalHintSaysWhatNext(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var quickStart string
	for line := range strings.SplitSeq(string(readme), "\n") {
		if strings.HasPrefix(line, "CGO_ENABLED=0 GOTOOLCHAIN=go1.27.3 go build ") && strings.Contains(line, " -o automium-mcp ") {
			quickStart = line
			break
		}
	}
	if quickStart == "" {
		t.Fatal("README.md has no quick-start command that builds automium-mcp and calls a tool")
	}
	if hint := terminalHint(true); !strings.Contains(hint, "  "+quickStart+"\n") || !strings.Contains(hint, "waits for a client") {
		t.Errorf("the go run hint does not give the README's quick-start command %q:\n%s", quickStart, hint)
	}
	if hint := terminalHint(false); !strings.Contains(hint, "--cli automium-mcp --method tools/call") || strings.Contains(hint, "go build") {
		t.Errorf("the installed binary's hint should start it by name, not build it:\n%s", hint)
	}
}
