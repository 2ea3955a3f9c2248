// Command automium-mcp serves Automium's tools, resources and prompts to a coding
// agent over MCP on stdin and stdout. Everything it serves is modeled: it never
// launches a browser, calls a planner provider, opens a socket, reads credentials
// or writes files.
//
// An MCP client starts it; for example:
//
//	claude mcp add automium -- automium-mcp
//	npx @modelcontextprotocol/inspector --cli automium-mcp --method tools/list
//
// Stdout carries only the protocol; diagnostics go to stderr, warnings and errors
// only. It exits with status 0 when the client closes stdin, after answering every
// request it read, and on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/automium/automium/internal/stdio"
	"github.com/automium/automium/mcpserver"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main with its process state passed in; it returns the exit status.
func run(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("automium-mcp", flag.ContinueOnError)
	flags.SetOutput(stderr)
	showVersion := flags.Bool("version", false, "print the version and the tool contract digests, and exit")
	showHelp := flags.Bool("help", false, "print this help and exit")
	flags.Usage = func() {
		fmt.Fprint(stderr, "Usage: automium-mcp [-version | -help]\n\n"+
			"automium-mcp speaks MCP (JSON-RPC, one message per line) on stdin and stdout.\n"+
			"An MCP client starts it, for example:\n\n"+
			"  claude mcp add automium -- automium-mcp\n"+
			"  npx @modelcontextprotocol/inspector --cli automium-mcp --method tools/list\n\n"+
			"Flags:\n")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *showHelp {
		flags.Usage()
		return 0
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "automium-mcp: unexpected argument %q\n", flags.Arg(0))
		flags.Usage()
		return 2
	}
	if *showVersion {
		fmt.Fprint(stdout, mcpserver.VersionReport("automium-mcp"))
		return 0
	}

	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if info, err := stdin.Stat(); err == nil && info.Mode()&os.ModeCharDevice != 0 {
		fmt.Fprintln(stderr, "automium-mcp speaks MCP over stdio and waits for a client; connect one, e.g. `claude mcp add automium -- automium-mcp` or `npx @modelcontextprotocol/inspector --cli automium-mcp --method tools/list` (Ctrl-C quits).")
	}

	// A client that closes its end of stdout must end the session through a
	// failed write, not kill the process with SIGPIPE mid-answer.
	signal.Ignore(syscall.SIGPIPE)
	// SIGINT and SIGTERM end the session like closing stdin: requests in flight
	// are answered first. A second signal kills the process the default way.
	signaled, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(signaled, stop)

	server := mcpserver.New(&mcpserver.Options{Logger: logger})
	transport := &stdio.Transport{Reader: stdin, Writer: stdout, Stop: signaled.Done()}
	if err := server.Run(context.Background(), transport); err != nil {
		logger.Error("session ended", "error", err)
		return 1
	}
	return 0
}
