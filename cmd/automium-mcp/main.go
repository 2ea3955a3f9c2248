// Command automium-mcp serves Automium's tools, resources and prompts to a coding
// agent over MCP on stdin and stdout. Everything it serves is modeled: it never
// launches a browser, calls a planner provider, opens a socket, reads credentials
// or writes files.
//
// An MCP client starts it; for example:
//
//	claude mcp add automium -- automium-mcp
//	npx -y @modelcontextprotocol/inspector@2.12.0 --cli automium-mcp --method tools/call --tool-name automium_list_apps
//
// Stdout carries only the protocol; diagnostics go to stderr, warnings and errors
// only unless -log-level says otherwise. It exits with status 0 when the client
// closes stdin, after answering every request it read, and on SIGINT or SIGTERM.
//
// With -http ADDR it serves MCP Streamable HTTP at http://ADDR/mcp instead, on a
// loopback address only, behind a bearer token and with a JSON audit line per
// request on stderr (see http.go). stdio stays the default, and none of the HTTP
// code runs without -http.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/automium/automium/mcpserver/transport"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/automium/automium/internal/diag"
	"github.com/automium/automium/mcpserver"
	"github.com/automium/automium/mcpserver/transport/stdio"
)

// The garbage collector's soft memory limits (runtime/debug.SetMemoryLimit)
// of the two transports. A large call (a comparison of a 3.4 MB report)
// leaves most of what it allocated as garbage; with the default pacing, the
// heap of a few such calls at once doubles before a collection, and 8
// concurrent comparisons over HTTP peaked at 565 MiB. Under these limits the
// collector runs sooner as the heap nears them, well inside SECURITY.md's
// 320 MiB (stdio) and 560 MiB (HTTP). They are soft: live memory above them
// is not refused, only collected harder (the runtime caps that at half the
// CPU). A GOMEMLIMIT the user set is kept.
const (
	stdioSoftMemoryLimit = 192 << 20
	httpSoftMemoryLimit  = 384 << 20
)

// softMemoryLimit sets the collector's soft limit unless one is set already.
func softMemoryLimit(n int64) {
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		debug.SetMemoryLimit(n)
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// underGoRun reports whether this process is a binary go run built: go run
// writes it under a go-build temporary directory. It reads the command line
// the process was given, nothing of the file system.
var underGoRun = strings.Contains(os.Args[0], "/go-build") || strings.Contains(os.Args[0], `\go-build`)

// terminalHint is what a person who started the server in a terminal reads:
// it waits for a client, and what to do next from where they are. Under go
// run they are in a clone, where the one command of the README's quick start
// builds the binary and shows a tool answer; otherwise the binary is
// installed, and a client can start it by name.
func terminalHint(goRun bool) string {
	if goRun {
		return "automium-mcp speaks MCP over stdio and waits for a client (Ctrl-C quits). To see a tool answer, quit and run, in this clone:\n" +
			"  CGO_ENABLED=0 GOTOOLCHAIN=go1.27.3 go build -tags validator_novalidatefn -o automium-mcp ./cmd/automium-mcp && npx -y @modelcontextprotocol/inspector@2.12.0 --cli ./automium-mcp --method tools/call --tool-name automium_list_apps\n" +
			"To connect Claude Code to that binary: claude mcp add automium -- \"$PWD/automium-mcp\"\n"
	}
	return "automium-mcp speaks MCP over stdio and waits for a client (Ctrl-C quits). To see a tool answer, quit and run:\n" +
		"  npx -y @modelcontextprotocol/inspector@2.12.0 --cli automium-mcp --method tools/call --tool-name automium_list_apps\n" +
		"To connect Claude Code: claude mcp add automium -- automium-mcp\n"
}

// run is main with its process state passed in; it returns the exit status.
func run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	// Nothing written to stderr may wait for the client to read it: a client
	// that never drains the pipe must not stop the protocol (internal/diag).
	// What is queued when run returns goes out, however slowly the reader
	// reads; only a reader that takes nothing for a second loses it.
	errOut := diag.NewWriter(stderr, 0)
	defer errOut.Flush(time.Second)
	stderr = errOut
	flags := flag.NewFlagSet("automium-mcp", flag.ContinueOnError)
	flags.SetOutput(stderr)
	showVersion := flags.Bool("version", false, "print the version and the tool contract digests, and exit")
	showHelp := flags.Bool("help", false, "print this help and exit")
	logLevel := flags.String("log-level", "warn", "write diagnostics at `LEVEL` and above to stderr: debug, info, warn or error. With -http, the JSON audit line of every request is written at any level: it is the record of who called what, not a diagnostic")
	var h httpFlags
	h.register(flags)
	// The flag package prints errors to stderr; the usage goes to stdout when
	// asked for and to stderr after an error, so Usage itself prints nothing.
	flags.Usage = func() {}
	usage := func(w io.Writer) {
		fmt.Fprint(w, "Usage: automium-mcp [-version | -help] [-log-level LEVEL] [-http ADDR [-token-fd N | -insecure-no-auth-loopback-testing] [-http-json]]\n\n"+
			"automium-mcp speaks MCP (JSON-RPC, one message per line) on stdin and stdout.\n"+
			"An MCP client starts it, for example:\n\n"+
			"  claude mcp add automium -- automium-mcp\n"+
			"  npx -y @modelcontextprotocol/inspector@2.12.0 --cli automium-mcp --method tools/call --tool-name automium_list_apps\n\n"+
			"With -http it serves MCP Streamable HTTP at http://ADDR/mcp instead, on loopback only,\n"+
			"and prints a bearer token and a client configuration on stderr:\n\n"+
			"  automium-mcp -http 127.0.0.1:8080\n\n"+
			"Flags:\n")
		flags.SetOutput(w)
		flags.PrintDefaults()
		flags.SetOutput(stderr)
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout)
			return 0
		}
		usage(stderr)
		return 2
	}
	if *showHelp {
		usage(stdout)
		return 0
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "automium-mcp: unexpected argument %q\n", flags.Arg(0))
		usage(stderr)
		return 2
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(stderr, "automium-mcp: -log-level %q: want debug, info, warn or error\n", *logLevel)
		return 2
	}
	if *showVersion {
		fmt.Fprint(stdout, mcpserver.VersionReport("automium-mcp"))
		return 0
	}
	if err := h.check(); err != nil {
		fmt.Fprintf(stderr, "automium-mcp: %v\n", err)
		return 2
	}
	if h.addr != "" {
		softMemoryLimit(httpSoftMemoryLimit)
		return serveHTTP(h, level, stdin, stderr)
	}

	logger := slog.New(diag.RateLimit(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}), 0, 0, time.Now))
	if isTerminal(stdin) {
		fmt.Fprint(stderr, terminalHint(underGoRun))
	}

	// A client that closes its end of stdout must end the session through a
	// failed write, not kill the process with SIGPIPE mid-answer.
	signal.Ignore(syscall.SIGPIPE)
	// SIGINT and SIGTERM end the session like closing stdin: requests in flight
	// are answered first. A second signal kills the process the default way.
	signaled, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(signaled, stop)

	server := newServer(logger)
	softMemoryLimit(stdioSoftMemoryLimit)
	if err := server.Run(context.Background(), &stdio.Transport{Reader: stdin, Writer: stdout, Stop: signaled.Done(), AnswerBound: mcpserver.AnswerBound}); err != nil {
		logger.Error("session ended", "error", err)
		return 1
	}
	return 0
}

// newServer is the wiring of the two halves: Automium's adapter (mcpserver),
// which knows no transport, with the transport package's one panic recovery
// outermost, so that it covers every handler and middleware of the server on
// stdio and HTTP alike.
func newServer(logger *slog.Logger) *mcp.Server {
	server := mcpserver.New(&mcpserver.Options{Logger: logger})
	server.AddReceivingMiddleware(transport.Recover(logger))
	return server
}
