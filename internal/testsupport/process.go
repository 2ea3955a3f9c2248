package testsupport

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// ProtocolVersion is the MCP version the tests' raw sessions negotiate in
// initialize: the latest handshake version, which real clients such as the
// MCP Inspector send.
const ProtocolVersion = "2025-11-25"

// Lines a raw session starts with; the initialize request's id is "init".
const (
	InitializeLine  = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + ProtocolVersion + `","capabilities":{},"clientInfo":{"name":"automium-test","version":"0"}}}`
	InitializedLine = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

var built = sync.OnceValues(build)

// build compiles automium-mcp (through BuildCached, so once for all the test
// processes of a checkout until its sources change), with CGO_ENABLED=0 so
// that it is linked statically, and with ServerBuildTags, as the README
// builds it: the strace allowlist then needs no dynamic loader or libc. It is built on first use,
// not in TestMain, because fuzzing runs TestMain in every worker process and
// fuzz targets do not need the binary.
func build() (string, error) {
	path, err := BuildCached("github.com/automium/automium/cmd/automium-mcp", "-tags="+ServerBuildTags)
	if err != nil {
		return "", err
	}
	if err := checkStatic(path); err != nil {
		return "", err
	}
	return path, nil
}

// BuildBinary returns the path of the automium-mcp built for this test
// process, building it on the first call, for a TestMain that needs the path
// before any test runs.
func BuildBinary() (string, error) { return built() }

// Binary returns the path of the automium-mcp built for this test process,
// failing t if it cannot be built.
func Binary(t testing.TB) string {
	t.Helper()
	path, err := built()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Main runs the tests; a package whose tests use Binary calls it from
// TestMain: os.Exit(testsupport.Main(m)). The binary stays in BuildCached's
// directory for the next run.
func Main(m *testing.M) int { return m.Run() }

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

// Process is a command driven over plain pipes, one JSON-RPC message per line,
// the way any client program drives the server. Its waits have no clock of
// their own: a server that never answers fails the test at the test's
// deadline (go test -timeout), with what it wrote to stderr, so no test
// depends on how fast the machine is.
type Process struct {
	t      testing.TB
	Cmd    *exec.Cmd
	Stderr *LockedBuffer
	stdin  io.WriteCloser
	lines  chan []byte

	exited  chan struct{} // closed once the process has exited and waitErr is set
	waitErr error
}

// Start starts cmd, which must not have its standard streams set, and stops it
// when the test ends: its input is closed and, should it not exit within a
// grace period, it is killed. That is cleanup, never a verdict.
func Start(t testing.TB, cmd *exec.Cmd) *Process {
	t.Helper()
	p := &Process{t: t, Cmd: cmd, Stderr: new(LockedBuffer), lines: make(chan []byte, 64), exited: make(chan struct{})}
	cmd.Stderr = p.Stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
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
		p.waitErr = cmd.Wait()
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
			p.Cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// Send writes each line followed by a newline.
func (p *Process) Send(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.stdin, l+"\n"); err != nil {
			p.t.Fatalf("writing to the server: %v; stderr: %s", err, p.Stderr)
		}
	}
}

// Next returns the next line the process writes, and false once its output
// has ended.
func (p *Process) Next() ([]byte, bool) {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		return line, ok
	case <-Deadline(p.t):
		p.t.Fatalf("no output before the test's deadline; stderr: %s", p.Stderr)
	}
	return nil, false
}

// Stdin is the process's input, for a test that writes other than whole lines.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Lines is the process's output, one line at a time; it is closed when the
// output ends. Ranging over it waits as long as the process writes.
func (p *Process) Lines() <-chan []byte { return p.lines }

// CloseInput ends the process's input, as a client that is done does.
func (p *Process) CloseInput() { p.stdin.Close() }

// Wait waits for the process to exit, after its output has ended, and returns
// what exec.Cmd.Wait did.
func (p *Process) Wait() error {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-Deadline(p.t):
		p.t.Fatalf("still running at the test's deadline; stderr: %s", p.Stderr)
	}
	return p.waitErr
}

// deadlineMargin is how long before the test binary's deadline a wait gives
// up, leaving time to report and clean up.
const deadlineMargin = 5 * time.Second

// Deadline fires shortly before the test binary's deadline, so that a wait
// that never ends fails with a message instead of the timeout's goroutine
// dump, whatever the speed of the machine. Without a deadline (go test
// -timeout 0) it never fires.
func Deadline(t testing.TB) <-chan time.Time {
	at, ok := testDeadline(t)
	if !ok {
		return nil
	}
	return time.After(time.Until(at) - deadlineMargin)
}

// testDeadline is t's Deadline, for the kinds of test that have one.
func testDeadline(t testing.TB) (time.Time, bool) {
	d, ok := t.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return time.Time{}, false
	}
	return d.Deadline()
}

// Context returns a context that ends shortly before the test binary's
// deadline, and never without one: the bound of a test's calls, with no clock
// of its own.
func Context(t testing.TB) context.Context {
	t.Helper()
	at, ok := testDeadline(t)
	if !ok {
		return context.Background()
	}
	ctx, cancel := context.WithDeadline(context.Background(), at.Add(-deadlineMargin))
	t.Cleanup(cancel)
	return ctx
}
