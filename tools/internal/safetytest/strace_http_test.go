package safetytest

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/automium/automium/internal/testsupport"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStraceWholeHTTPSession runs `automium-mcp -http 127.0.0.1:0` under
// `strace -f` through a whole session over MCP Streamable HTTP (the go-sdk
// client at 2025-11-25, with a session: every call of the stdio strace test),
// plus a sessionless request at 2026-07-28 and a request without the token,
// then SIGTERM. It proves from the kernel's side that in HTTP mode the process:
//
//   - opens only TCP sockets (AF_INET or AF_INET6, SOCK_STREAM), and binds each
//     to a loopback address only;
//   - never calls connect, so it makes no outbound connection;
//   - writes only to the connections it accepted, stderr (the banner and the
//     audit log) and the runtime's own eventfd, and nothing to stdout;
//   - and otherwise keeps every promise of TestStraceWholeSession: no file
//     created or written, no subprocess, no environment block read, no system
//     call outside the known list. The files it may read besides the runtime's
//     are /proc/sys/net/core/somaxconn, which Go's net package reads for the
//     listen backlog, and /etc/localtime, for the local time of the log lines.
//
// It exits 0 after SIGTERM, having drained.
func TestStraceWholeHTTPSession(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short, run in full by go test ./... and CI")
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (apt-get install strace); .ci/run installs it")
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "trace")
	cmd := exec.Command(strace, "-f", "-ff", "-qq", "-e", "signal=none", "-s", "64", "-o", prefix, binary(t), "-http", "127.0.0.1:0")
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	// The banner names the port and the token.
	var stderr testsupport.LockedBuffer
	banner := make(chan [2]string, 1)
	stderrDone := make(chan struct{}) // closed at stderr's end, which Wait must not precede
	go func() {
		defer close(stderrDone)
		sc := bufio.NewScanner(stderrPipe)
		sc.Buffer(nil, 1<<20)
		var url, token string
		for sc.Scan() {
			line := sc.Text()
			stderr.Write([]byte(line + "\n"))
			if m := regexp.MustCompile(`serving MCP Streamable HTTP at (http://\S+)`).FindStringSubmatch(line); m != nil {
				url = m[1]
			}
			if m := regexp.MustCompile(`bearer token for this run: (\S+)`).FindStringSubmatch(line); m != nil {
				token = m[1]
				banner <- [2]string{url, token}
			}
		}
	}()
	var url, token string
	select {
	case b := <-banner:
		url, token = b[0], b[1]
	case <-testsupport.Deadline(t):
		t.Fatalf("no banner by the test's deadline; stderr: %s", stderr.String())
	}

	ctx := testsupport.Context(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "safetytest-strace-http", Version: "v0"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer(token)}}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connecting through strace: %v; stderr: %s", err, stderr.String())
	}
	calls := sessionCalls()
	for _, c := range calls {
		data, err := sdkCall(ctx, cs, c)
		checkSDKOutcome(t, c, data, err)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}
	sessionless, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer(token)}}, nil)
	if err != nil {
		t.Fatalf("sessionless client: %v", err)
	}
	if _, err := sessionless.ListTools(ctx, nil); err != nil {
		t.Errorf("sessionless tools/list: %v", err)
	}
	sessionless.Close()
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a request without the token: HTTP %d, want 401", resp.StatusCode)
	}

	pid, err := tracedPID(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stderrDone:
	case <-testsupport.Deadline(t):
		t.Fatal("the server is still running at the test's deadline after SIGTERM")
	}
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("strace exited with status %d (the server's status); stderr: %s", code, stderr.String())
	}

	tr := readTrace(t, prefix)
	problems, net := tr.checkHTTP()
	// The trace must show the session itself, or an empty trace would pass.
	if net.listens != 1 || net.accepts == 0 || net.socketWrites < len(calls) {
		problems = append(problems, fmt.Sprintf("%d listen, %d accepted connections and %d socket writes for %d calls: the trace is incomplete",
			net.listens, net.accepts, net.socketWrites, len(calls)))
	}
	if tr.stdoutWrites != 0 {
		problems = append(problems, fmt.Sprintf("%d writes to stdout, which HTTP mode does not use", tr.stdoutWrites))
	}
	if !tr.exited {
		problems = append(problems, "no exit_group: the trace is incomplete")
	}
	if len(problems) > 0 {
		t.Errorf("the trace of %d threads breaks the HTTP safety boundary:\n  %s\n\nsystem calls seen:\n%s",
			tr.threads, strings.Join(problems, "\n  "), tr.summary())
	} else {
		t.Logf("%d threads, %d system calls, %d bind (loopback), %d accepted connections, %d socket writes, no connect; counts:\n%s",
			tr.threads, tr.total, net.binds, net.accepts, net.socketWrites, tr.summary())
	}
}

// bearer adds the token to every request of the go-sdk client.
type bearer string

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(req)
}

// tracedPID is the server's process ID: the thread whose trace file starts with
// the execve that strace made.
func tracedPID(prefix string) (int, error) {
	files, err := filepath.Glob(prefix + ".*")
	if err != nil {
		return 0, err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return 0, err
		}
		if strings.HasPrefix(string(data), "execve(") {
			return strconv.Atoi(strings.TrimPrefix(filepath.Ext(f), "."))
		}
	}
	return 0, fmt.Errorf("no trace file at %s.* starts with execve", prefix)
}

// httpNetwork counts what the HTTP rules let through.
type httpNetwork struct {
	listens, binds, accepts, socketWrites int
}

// loopbackBind matches the address of a bind to 127.0.0.0/8 or ::1, or to
// 127.0.0.1 as an IPv4-mapped IPv6 address, which Go's net package binds once to
// probe the IP stack.
var loopbackBind = regexp.MustCompile(`sin_addr=inet_addr\("127\.\d+\.\d+\.\d+"\)|inet_pton\(AF_INET6, "(::1|::ffff:127\.\d+\.\d+\.\d+)"`)

// socketOptionCalls are the calls on a socket that neither connect it nor move
// data anywhere but through the socket itself.
var socketOptionCalls = map[string]bool{
	"setsockopt": true, "getsockopt": true, "getsockname": true, "getpeername": true, "shutdown": true,
}

// checkHTTP applies the HTTP rules to the network calls, takes them out of the
// trace, and applies every rule of check to the rest.
func (tr *trace) checkHTTP() ([]string, httpNetwork) {
	var problems []string
	var n httpNetwork
	// Threads trace to separate files, so a connection may be written by a
	// thread whose file comes before the accepting thread's: collect the
	// sockets first.
	sockets := map[string]bool{}
	for _, ev := range tr.events {
		if _, err := strconv.Atoi(ev.result); err == nil && (ev.name == "socket" || ev.name == "accept4" || ev.name == "accept") {
			sockets[ev.result] = true
		}
	}
	var rest []syscallEvent
	for _, ev := range tr.events {
		fd, _, _ := strings.Cut(ev.args, ",")
		switch {
		case ev.name == "socket":
			if !(strings.HasPrefix(ev.args, "AF_INET,") || strings.HasPrefix(ev.args, "AF_INET6,")) || !strings.Contains(ev.args, "SOCK_STREAM") {
				problems = append(problems, "a socket that is not TCP: "+ev.raw)
			}
			continue
		case ev.name == "bind":
			n.binds++
			if !loopbackBind.MatchString(ev.args) {
				problems = append(problems, "bind to an address that is not loopback: "+ev.raw)
			}
			continue
		case ev.name == "listen":
			n.listens++
			continue
		case ev.name == "accept4" || ev.name == "accept":
			if _, err := strconv.Atoi(ev.result); err == nil {
				n.accepts++
			}
			continue
		case ev.name == "connect":
			problems = append(problems, "connect (an outbound connection): "+ev.raw)
			continue
		case socketOptionCalls[ev.name]:
			if !sockets[fd] {
				problems = append(problems, ev.name+" on fd "+fd+", which is not a socket of the server: "+ev.raw)
			}
			continue
		case ev.name == "write" && sockets[fd]:
			n.socketWrites++
			continue
		case ev.name == "openat" && containsAny(ev.args, []string{`"/proc/sys/net/core/somaxconn"`, `"/etc/localtime"`}):
			if !strings.Contains(ev.args, "O_RDONLY") || containsAny(ev.args, writeFlags) {
				problems = append(problems, "opened for writing: "+ev.raw)
			}
			continue
		}
		rest = append(rest, ev)
	}
	tr.events = rest
	return append(problems, tr.check()...), n
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// TestStraceHTTPRulesCatchViolations: the HTTP rules refuse what they exist to
// refuse, and let a clean loopback server through.
func TestStraceHTTPRulesCatchViolations(t *testing.T) {
	clean := []string{
		`execve("/tmp/automium-mcp", ["/tmp/automium-mcp", "-http", "127.0.0.1:0"], 0x7ffc /* 35 vars */) = 0`,
		`openat(AT_FDCWD, "/proc/sys/net/core/somaxconn", O_RDONLY|O_CLOEXEC) = 3`,
		`socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_IP) = 3`,
		`setsockopt(3, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0`,
		`bind(3, {sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr("127.0.0.1")}, 16) = 0`,
		`listen(3, 4096) = 0`,
		`getsockname(3, {sa_family=AF_INET, sin_port=htons(41234), sin_addr=inet_addr("127.0.0.1")}, [112 => 16]) = 0`,
		`write(2, "automium-mcp: serving", 21) = 21`,
		`accept4(3, {sa_family=AF_INET, sin_port=htons(50000), sin_addr=inet_addr("127.0.0.1")}, [112 => 16], SOCK_CLOEXEC|SOCK_NONBLOCK) = 7`,
		`read(7, "POST /mcp HTTP/1.1\r\n", 4096) = 20`,
		`write(7, "HTTP/1.1 200 OK\r\n", 17) = 17`,
		`exit_group(0) = ?`,
	}
	violations := map[string]string{
		`bind(3, {sa_family=AF_INET, sin_port=htons(8080), sin_addr=inet_addr("0.0.0.0")}, 16) = 0`:                          "not loopback",
		`bind(3, {sa_family=AF_INET6, sin6_port=htons(8080), sin6_addr=inet_pton(AF_INET6, "::"), sin6_scope_id=0}, 28) = 0`: "not loopback",
		`connect(3, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("93.184.216.34")}, 16) = -1 EINPROGRESS`:     "outbound connection",
		`socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0) = 9`:                                                                   "not TCP",
		`socket(AF_INET, SOCK_DGRAM|SOCK_CLOEXEC, IPPROTO_IP) = 9`:                                                           "not TCP",
		`write(9, "secret", 6) = 6`:                                "write to fd 9",
		`write(1, "{}\n", 3) = 3`:                                  "writes to stdout",
		`setsockopt(9, SOL_SOCKET, SO_REUSEADDR, [1], 4) = 0`:      "not a socket of the server",
		`openat(AT_FDCWD, "/tmp/out", O_WRONLY|O_CREAT, 0666) = 9`: "open with O_WRONLY",
		`execve("/bin/sh", ["sh"], 0xc000 /* 35 vars */) = 0`:      "execve after the first",
	}
	write := func(dir string, lines []string) ([]string, *trace) {
		if err := os.WriteFile(filepath.Join(dir, "trace.100"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		tr := readTrace(t, filepath.Join(dir, "trace"))
		problems, _ := tr.checkHTTP()
		if tr.stdoutWrites != 0 {
			problems = append(problems, fmt.Sprintf("%d writes to stdout", tr.stdoutWrites))
		}
		return problems, tr
	}
	if problems, _ := write(t.TempDir(), clean); len(problems) != 0 {
		t.Errorf("a clean trace has problems:\n%s", strings.Join(problems, "\n"))
	}
	for line, want := range violations {
		problems, _ := write(t.TempDir(), append(append([]string{}, clean[:len(clean)-1]...), line, clean[len(clean)-1]))
		if !containsAny(strings.Join(problems, "\n"), []string{want}) {
			t.Errorf("%s: problems %q, want one containing %q", line, problems, want)
		}
	}
}
