package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/automium/automium/mcpserver"
	"github.com/automium/automium/mcpserver/transport"

	"github.com/automium/automium/internal/diag"
)

// HTTP server limits; transport.HTTPOptions holds the MCP ones (body, sessions,
// requests in flight, idle sessions).
const (
	// maxHeaderBytes bounds a request's headers. A client sends a handful (the
	// token, the session ID, the protocol version), far below Go's 1 MiB default.
	maxHeaderBytes = 64 << 10
	// readHeaderTimeout and readTimeout bound how long a client may take to send
	// a request: 60 s is ample for the largest body over loopback.
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 60 * time.Second
	// writeTimeout bounds one answer; every tool answers in milliseconds. Event
	// streams (GET) are exempt and end with their session instead.
	writeTimeout = 60 * time.Second
	// idleTimeout closes keep-alive connections nobody uses.
	idleTimeout = 2 * time.Minute
	// drainTimeout is how long SIGINT or SIGTERM waits for requests in flight,
	// the stdio transport's drain time.
	drainTimeout = 10 * time.Second
	// maxTokenBytes bounds what -token-fd reads.
	maxTokenBytes = 4096
)

// httpFlags are the flags of HTTP mode.
type httpFlags struct {
	addr    string
	tokenFD int
	noAuth  bool
	json    bool
}

func (h *httpFlags) register(flags *flag.FlagSet) {
	flags.StringVar(&h.addr, "http", "", "serve MCP Streamable HTTP at http://`ADDR`/mcp instead of stdio; ADDR must be a loopback address with a port, such as 127.0.0.1:8080, [::1]:8080 or localhost:0")
	flags.IntVar(&h.tokenFD, "token-fd", -1, "with -http: read the bearer token, one line, from the inherited file descriptor `N` (0 is stdin) instead of making a random one; never from a file name or the environment")
	flags.BoolVar(&h.noAuth, "insecure-no-auth-loopback-testing", false, "with -http: accept requests WITHOUT a bearer token, for test harnesses that cannot send one; any local process can then call the server")
	flags.BoolVar(&h.json, "http-json", false, "with -http: answer POST requests with application/json instead of a text/event-stream")
}

// check refuses HTTP options without -http, and a token source with no-auth.
func (h *httpFlags) check() error {
	if h.addr == "" {
		if h.tokenFD >= 0 || h.noAuth || h.json {
			return errors.New("-token-fd, -insecure-no-auth-loopback-testing and -http-json need -http")
		}
		return nil
	}
	if h.tokenFD == 1 || h.tokenFD == 2 {
		return fmt.Errorf("-token-fd %d is stdout or stderr; pass the token on 0 (stdin) or 3 and above", h.tokenFD)
	}
	if h.noAuth && h.tokenFD >= 0 {
		return errors.New("-insecure-no-auth-loopback-testing and -token-fd exclude each other")
	}
	return nil
}

// loopbackAddr resolves ADDR without DNS: host must be a loopback IP or
// "localhost" (taken as 127.0.0.1, whatever /etc/hosts says), with a port.
func loopbackAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("-http %q: want HOST:PORT, such as 127.0.0.1:8080 (%v)", addr, err)
	}
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() || ip.Zone() != "" {
		return "", fmt.Errorf("-http %q: automium-mcp serves HTTP on loopback only (127.0.0.1, [::1] or localhost), not on %q: it authenticates with one bearer token and has no TLS", addr, host)
	}
	return net.JoinHostPort(ip.String(), port), nil
}

// readToken reads the token from an inherited file descriptor: its first line,
// at most maxTokenBytes, without the line ending.
func readToken(fd int, stdin *os.File) (string, error) {
	f := stdin
	if fd != 0 {
		f = os.NewFile(uintptr(fd), fmt.Sprintf("fd %d", fd))
		if f == nil {
			return "", fmt.Errorf("-token-fd %d is not an open file descriptor", fd)
		}
		defer f.Close()
	}
	line, err := bufio.NewReaderSize(io.LimitReader(f, maxTokenBytes), maxTokenBytes).ReadSlice('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		if errors.Is(err, bufio.ErrBufferFull) {
			return "", fmt.Errorf("-token-fd %d: no line ending within %d bytes", fd, maxTokenBytes)
		}
		return "", fmt.Errorf("-token-fd %d: %v", fd, err)
	}
	token := strings.TrimRight(string(line), "\r\n")
	if err := transport.CheckBearerToken(token); err != nil {
		return "", fmt.Errorf("-token-fd %d: %v", fd, err)
	}
	return token, nil
}

// serveHTTP is -http: it serves until SIGINT or SIGTERM, then drains the requests
// in flight and returns 0.
func serveHTTP(h httpFlags, level slog.Level, stdin *os.File, stderr io.Writer) int {
	// stderr is run's diag.Writer: each record is one Write, so the audit
	// and diagnostic lines never interleave, and none waits for the reader.
	// Diagnostics are rate-limited; the audit log, one line per request, is
	// not, and the writer's drop count says what a reader that fell behind
	// missed.
	logger := slog.New(diag.RateLimit(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}), 0, 0, time.Now))
	// The audit log is not diagnostics: -log-level does not silence it.
	audit := slog.New(slog.NewJSONHandler(stderr, nil))

	addr, err := loopbackAddr(h.addr)
	if err != nil {
		fmt.Fprintf(stderr, "automium-mcp: %v\n", err)
		return 2
	}
	token := ""
	switch {
	case h.noAuth:
	case h.tokenFD >= 0:
		if token, err = readToken(h.tokenFD, stdin); err != nil {
			fmt.Fprintf(stderr, "automium-mcp: %v\n", err)
			return 2
		}
	default:
		// A secret, not output: crypto randomness, 26 base32 characters (130 bits).
		token = rand.Text()
	}

	signaled, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(signaled, stop)

	server := newServer(logger)
	handler, err := transport.NewHTTPHandler(server, &transport.HTTPOptions{
		Token:          token,
		InsecureNoAuth: h.noAuth,
		AnswerBound:    mcpserver.AnswerBound,
		JSONResponse:   h.json,
		Audit:          audit,
		Logger:         logger,
		Stop:           signaled.Done(),
		// No EventStoreMaxBytes: every answer is written as soon as it
		// is ready, so a resumable stream would only keep answers in
		// memory, per session, for clients that already read them. A
		// client that loses a stream sends its call again.
	})
	if err != nil {
		fmt.Fprintf(stderr, "automium-mcp: %v\n", err)
		return 2
	}
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "automium-mcp: -http %s: %v\n", h.addr, err)
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	conns := newConnTracker()
	// Connections are capped whether or not they carry the token: one that
	// never sends a request is closed by the next at the cap.
	limit := &transport.ConnLimiter{}
	srv := &http.Server{
		ConnState: func(c net.Conn, state http.ConnState) {
			limit.ConnState(c, state)
			conns.track(c, state)
		},
		Handler:           mux,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}

	url := "http://" + listener.Addr().String() + "/mcp"
	fmt.Fprint(stderr, banner(url, token, h))
	if h.noAuth {
		logger.Warn("serving WITHOUT authentication (-insecure-no-auth-loopback-testing): any local process can call this server; use it only for test harnesses", "url", url)
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(listener) }()
	select {
	case err := <-served:
		logger.Error("serving HTTP", "error", err)
		return 1
	case <-signaled.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	// Shutdown closes idle keep-alive connections itself, but leaves a
	// connection that has sent nothing yet for 5 s (net/http's grace for a
	// request still arriving), and polls at up to 500 ms: a client's spare
	// connection held the exit back by 5.8 s. Close those at once.
	conns.closeIdle()
	if err := srv.Shutdown(ctx); err != nil {
		logger.Error("requests still in flight after the drain time", "error", err, "drain", drainTimeout.String())
		return 1
	}
	for session := range server.Sessions() {
		session.Close()
	}
	return 0
}

// connTracker knows each connection's state, so that shutdown can close the
// ones that carry no request at once instead of waiting for net/http to.
type connTracker struct {
	mu      sync.Mutex
	conns   map[net.Conn]http.ConnState
	closing bool
}

func newConnTracker() *connTracker {
	return &connTracker{conns: map[net.Conn]http.ConnState{}}
}

// track is the http.Server's ConnState hook. Once closing, a connection that
// becomes idle or new is closed as it does.
func (t *connTracker) track(c net.Conn, state http.ConnState) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch state {
	case http.StateNew, http.StateIdle:
		if t.closing {
			delete(t.conns, c)
			c.Close()
			return
		}
		t.conns[c] = state
	case http.StateActive:
		t.conns[c] = state
	default: // hijacked or closed: no longer the server's
		delete(t.conns, c)
	}
}

// closeIdle closes every connection not serving a request, and from now on
// each one that finishes its request. Requests in flight are left to drain.
func (t *connTracker) closeIdle() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closing = true
	for c, state := range t.conns {
		if state != http.StateActive {
			delete(t.conns, c)
			c.Close()
		}
	}
}

// banner is printed once on stderr: where the server is, the token of this run
// and client configurations ready to paste, as Jupyter prints its URL.
func banner(url, token string, h httpFlags) string {
	var b strings.Builder
	fmt.Fprintf(&b, "automium-mcp: serving MCP Streamable HTTP at %s (loopback only; Ctrl-C stops)\n", url)
	header := ""
	switch {
	case h.noAuth:
		fmt.Fprintf(&b, "automium-mcp: NO AUTHENTICATION (-insecure-no-auth-loopback-testing)\n")
	case h.tokenFD >= 0:
		header = "Bearer <the token you passed on -token-fd>"
	default:
		fmt.Fprintf(&b, "automium-mcp: bearer token for this run: %s\n", token)
		header = "Bearer " + token
	}
	if header == "" {
		fmt.Fprintf(&b, "automium-mcp: VS Code (.vscode/mcp.json):\n  {\"servers\": {\"automium\": {\"type\": \"http\", \"url\": %q}}}\n", url)
		return b.String()
	}
	fmt.Fprintf(&b, "automium-mcp: VS Code (.vscode/mcp.json):\n  {\"servers\": {\"automium\": {\"type\": \"http\", \"url\": %q, \"headers\": {\"Authorization\": %q}}}}\n", url, header)
	fmt.Fprintf(&b, "automium-mcp: Claude Code:\n  claude mcp add --transport http automium %s --header %q\n", url, "Authorization: "+header)
	return b.String()
}
