// Command conformance-fixture serves tools/internal/conformancefixture's server (the
// MCP conformance suite's fixtures plus Automium) through
// transport.NewHTTPHandler, the handler automium-mcp -http uses, so that every
// scenario of the suite passes through Automium's own HTTP door: its Host and
// Origin checks, bearer token, limits, session admission and audit. It is run
// by conformance/run.sh in CI and is not a product.
//
// The handler runs with a bearer token, made at random per run. The suite's
// server command cannot send a header, so this command adds the token to every
// request itself, in front of the handler: the token check runs and passes on
// every request, and anyone who can reach the loopback port can call the
// server, as with -insecure-no-auth-loopback-testing. It says so on stderr.
//
//	conformance-fixture -http 127.0.0.1:0
//
// prints "conformance-fixture: serving MCP Streamable HTTP at URL" on stderr,
// the audit log after it, and exits 0 on SIGINT or SIGTERM.
package main

import (
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
	"sync"
	"syscall"
	"time"

	"github.com/automium/automium/mcpserver/transport"

	"github.com/automium/automium/tools/internal/conformancefixture"
)

// eventStoreMaxBytes bounds the events the handler keeps so that a stream can
// be resumed (scenario server-sse-polling calls test_reconnection, which
// closes its stream and answers into the store). The suite's answers are a
// few kilobytes, so 4 MiB keeps every stream of a run that a client might
// resume. automium-mcp keeps none: its answers are written as soon as they
// are ready.
const eventStoreMaxBytes = 4 << 20

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	flags := flag.NewFlagSet("conformance-fixture", flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("http", "127.0.0.1:0", "loopback `ADDR` to serve http://ADDR/mcp on")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	ap, err := netip.ParseAddrPort(*addr)
	if err != nil || !ap.Addr().IsLoopback() {
		fmt.Fprintf(stderr, "conformance-fixture: -http %q: want a loopback IP and port, such as 127.0.0.1:0\n", *addr)
		return 2
	}
	out := &lockedWriter{w: stderr}
	logger := slog.New(slog.NewJSONHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn}))
	audit := slog.New(slog.NewJSONHandler(out, nil))

	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read never fails
	server, err := conformancefixture.New(conformancefixture.Options{StateKey: key, Logger: logger})
	if err != nil {
		fmt.Fprintf(stderr, "conformance-fixture: %v\n", err)
		return 1
	}
	server.AddReceivingMiddleware(transport.Recover(logger)) // as automium-mcp
	token := rand.Text()
	signaled, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	handler, err := transport.NewHTTPHandler(server, &transport.HTTPOptions{
		Token:              token,
		Audit:              audit,
		Logger:             logger,
		Stop:               signaled.Done(),
		EventStoreMaxBytes: eventStoreMaxBytes,
	})
	if err != nil {
		fmt.Fprintf(stderr, "conformance-fixture: %v\n", err)
		return 1
	}
	listener, err := net.Listen("tcp", ap.String())
	if err != nil {
		fmt.Fprintf(stderr, "conformance-fixture: %v\n", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", withToken(token, handler))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	url := "http://" + listener.Addr().String() + "/mcp"
	fmt.Fprintf(out, "conformance-fixture: serving MCP Streamable HTTP at %s\n", url)
	logger.Warn("TEST FIXTURE: every request is given the bearer token in-process, so any local process can call this server; it exists for the conformance suite only", "url", url)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(listener) }()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "conformance-fixture: %v\n", err)
		return 1
	case <-signaled.Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "conformance-fixture: shutdown: %v\n", err)
		return 1
	}
	return 0
}

// withToken stands in for a client that sends the token: it sets the
// Authorization header the suite cannot send, replacing any it sent.
func withToken(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+token)
		next.ServeHTTP(w, r)
	})
}

// lockedWriter keeps the audit and diagnostic lines whole on stderr.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
