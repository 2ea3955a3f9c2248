// Package safetytest proves, against the real automium-mcp binary and against
// mcpserver over the real stdio transport, the promises SECURITY.md makes: what the
// process never does (strace), how it answers hostile or malformed input, that it
// stays correct under concurrency, flat in memory and identical across processes.
// It holds only tests; SECURITY.md names the test behind each promise.
package safetytest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/automium/automium/internal/testsupport"
)

// repoRoot is the module root, where SECURITY.md and docs/ live.
const repoRoot = "../../.."

// binary returns the path of the built server (testsupport.Binary: static,
// built once per test process, on first use).
func binary(t testing.TB) string { return testsupport.Binary(t) }

func TestMain(m *testing.M) { os.Exit(testsupport.Main(m)) }

// Lines every raw session starts with (testsupport: the protocol version the
// tests speak).
const (
	initializeLine  = testsupport.InitializeLine
	initializedLine = testsupport.InitializedLine
)

// process is automium-mcp driven over plain pipes, one JSON-RPC message per line,
// the way any client program drives it (testsupport.Process).
type process struct {
	*testsupport.Process
	t testing.TB
}

// start runs the binary with extra environment variables and working directory
// (both optional).
func start(t testing.TB, dir string, env ...string) *process {
	t.Helper()
	cmd := exec.Command(binary(t))
	cmd.Dir = dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	return &process{Process: testsupport.Start(t, cmd), t: t}
}

// send writes each line followed by a newline.
func (p *process) send(lines ...string) { p.t.Helper(); p.Send(lines...) }

// next returns the next line the server writes.
func (p *process) next() []byte {
	p.t.Helper()
	line, ok := p.Next()
	if !ok {
		p.t.Fatalf("the server closed stdout; stderr: %s", p.Stderr)
	}
	return line
}

// call sends one request line and returns the response line.
func (p *process) call(line string) []byte {
	p.t.Helper()
	p.send(line)
	return p.next()
}

// initialize performs the handshake and checks its answer.
func (p *process) initialize() {
	p.t.Helper()
	r := parse(p.t, p.call(initializeLine))
	if string(r.ID) != `"init"` || r.Error != nil || r.Result == nil {
		p.t.Fatalf("initialize: %+v", r)
	}
	p.send(initializedLine)
}

// close ends the input and checks that the server answers everything and exits
// with status 0.
func (p *process) close() {
	p.t.Helper()
	p.CloseInput()
	for line := range p.Lines() {
		p.t.Errorf("unexpected line after the last response: %.300s", line)
	}
	if err := p.Wait(); err != nil {
		p.t.Errorf("exit: %v; stderr: %s", err, p.Stderr)
	}
}

// rss returns the resident set size and its high-water mark, in bytes, from
// /proc/<pid>/status of the server.
func (p *process) rss() (current, peak int64) {
	p.t.Helper()
	return procRSS(p.t, p.Cmd.Process.Pid)
}

func procRSS(t testing.TB, pid int) (current, peak int64) {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the server's status: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		field, value, ok := strings.Cut(line, ":")
		if !ok || (field != "VmRSS" && field != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			t.Fatalf("parsing %s %q: %v", field, value, err)
		}
		if field == "VmRSS" {
			current = kb << 10
		} else {
			peak = kb << 10
		}
	}
	if current == 0 || peak == 0 {
		t.Fatalf("no VmRSS/VmHWM in /proc/%d/status", pid)
	}
	return current, peak
}

// response is one JSON-RPC response line as a client reads it.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func parse(t testing.TB, line []byte) response {
	t.Helper()
	var r response
	if err := json.Unmarshal(line, &r); err != nil || r.JSONRPC != "2.0" {
		t.Fatalf("not a JSON-RPC 2.0 line (%v): %.300s", err, line)
	}
	return r
}

// toolResult is the part of a tools/call result the tests look at.
type toolResult struct {
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Content           []struct {
		Text string `json:"text"`
	} `json:"content"`
}

// errorCode is the automium error code of an isError tool result, or "".
func (r toolResult) errorCode() string {
	if !r.IsError {
		return ""
	}
	for _, c := range r.Content {
		var body struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal([]byte(c.Text), &body) == nil && body.Error.Code != "" {
			return body.Error.Code
		}
	}
	return "?"
}
