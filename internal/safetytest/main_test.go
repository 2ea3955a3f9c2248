// Package safetytest proves, against the real automium-mcp binary and against
// mcpserver over the real stdio transport, the promises SECURITY.md makes: what the
// process never does (strace), how it answers hostile or malformed input, that it
// stays correct under concurrency, flat in memory and identical across processes.
// It holds only tests; SECURITY.md names the test behind each promise.
package safetytest

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// update rewrites the generated blocks of SECURITY.md and docs/limits.md instead
// of comparing them.
var update = flag.Bool("update", false, "rewrite the generated parts of SECURITY.md and docs/limits.md")

// repoRoot is the module root, where SECURITY.md and docs/ live.
const repoRoot = "../.."

// buildDir holds the binary; TestMain removes it.
var buildDir string

// serverBinary is automium-mcp, built on first use with CGO_ENABLED=0 so that it
// is statically linked: the strace allowlist then needs no dynamic loader or
// libc. It is built lazily, not in TestMain, because fuzzing runs TestMain in
// every worker process and the fuzz target does not need the binary.
var serverBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "automium-safetytest-")
	if err != nil {
		return "", err
	}
	buildDir = dir
	path := filepath.Join(dir, "automium-mcp")
	build := exec.Command("go", "build", "-o", path, "github.com/automium/automium/cmd/automium-mcp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building automium-mcp: %v\n%s", err, out)
	}
	if err := checkStatic(path); err != nil {
		return "", err
	}
	return path, nil
})

// binary returns the path of the built server, failing t if it cannot be built.
func binary(t testing.TB) string {
	t.Helper()
	path, err := serverBinary()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// checkStatic fails when the binary asks for a program interpreter (a dynamic
// loader), which would make the loader and libc legitimate reads under strace.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked; the strace allowlist assumes CGO_ENABLED=0", path)
		}
	}
	return nil
}

// Lines every raw session starts with.
const (
	initializeLine  = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"safetytest","version":"0"}}}`
	initializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// process is automium-mcp driven over plain pipes, one JSON-RPC message per line,
// the way any client program drives it.
type process struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte
	stderr *lockedBuffer

	exited  chan struct{} // closed once the process has exited and waitErr is set
	waitErr error
}

// lockedBuffer is a bytes.Buffer that several goroutines write, such as os/exec's
// copying goroutine or a transport's writers, while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// start runs the binary with extra environment variables and working directory
// (both optional).
func start(t testing.TB, dir string, env ...string) *process {
	t.Helper()
	p := &process{t: t, cmd: exec.Command(binary(t)), lines: make(chan []byte, 64), stderr: &lockedBuffer{}, exited: make(chan struct{})}
	p.cmd.Dir = dir
	if len(env) > 0 {
		p.cmd.Env = append(os.Environ(), env...)
	}
	p.cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer close(p.lines)
		r := bufio.NewReaderSize(stdout, 1<<20)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				p.lines <- bytes.TrimSuffix(line, []byte("\n"))
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		<-readDone
		p.waitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.stdin.Close()
		go func() {
			for range p.lines {
			}
		}()
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// send writes each line followed by a newline.
func (p *process) send(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.stdin, l+"\n"); err != nil {
			p.t.Fatalf("writing to the server: %v; stderr: %s", err, p.stderr)
		}
	}
}

// next returns the next line the server writes.
func (p *process) next() []byte {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("the server closed stdout; stderr: %s", p.stderr)
		}
		return line
	case <-time.After(60 * time.Second):
		p.t.Fatalf("no response within 60s; stderr: %s", p.stderr)
	}
	return nil
}

// call sends one request line and returns the response line.
func (p *process) call(line string) []byte {
	p.t.Helper()
	p.send(line)
	return p.next()
}

// initialize performs the 2025-11-25 handshake and checks its answer.
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
	p.stdin.Close()
	timeout := time.After(30 * time.Second)
	for open := true; open; {
		select {
		case line, ok := <-p.lines:
			if ok {
				p.t.Errorf("unexpected line after the last response: %.300s", line)
			}
			open = ok
		case <-timeout:
			p.t.Fatalf("the server did not exit within 30s of end of input")
		}
	}
	<-p.exited
	if p.waitErr != nil {
		p.t.Errorf("exit: %v; stderr: %s", p.waitErr, p.stderr)
	}
}

// rss returns the resident set size and its high-water mark, in bytes, from
// /proc/<pid>/status of the server.
func (p *process) rss() (current, peak int64) {
	p.t.Helper()
	return procRSS(p.t, p.cmd.Process.Pid)
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
