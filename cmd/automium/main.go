// Command automium is Automium's command line for people and CI. It reads the
// report files it is named, writes Markdown on standard output and, when
// asked, an HTML report and a snapshot of counts; its exit status is the
// gate. It opens no socket, runs nothing, and writes only the files it is
// told to write. The MCP server is the other binary, automium-mcp, which
// links none of this.
//
//	automium compare --planner-from project --journey-from tag:journey report.json
//	automium compare --baseline baseline.json --html report.html shard-*.json >> "$GITHUB_STEP_SUMMARY"
//
// Exit status: 0 when the gate passes (or there is no gate: no --baseline),
// 1 when it fails, 2 for bad usage or a bad input, with a short message that
// names the file, the place in it and how to fix it.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/automium/automium"
)

// The exit statuses: the gate's answer, or a refusal to answer.
const (
	exitPass  = 0
	exitFail  = 1
	exitUsage = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, isTerminal(os.Stderr))
	stop()
	os.Exit(code)
}

const usage = `usage: automium <command> [flags]

Commands:
  compare   compare the planners of report files; Markdown on standard output
  version   print the version

Run "automium compare -h" for the flags of compare.
`

// run is main with its process state passed in; it returns the exit status.
// progress says whether standard error is a terminal a person watches.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, progress bool) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "compare":
		return compareCommand(ctx, args[1:], stdout, stderr, progress)
	case "version", "-version", "--version":
		fmt.Fprintf(stdout, "automium %s (corpus %s, %s)\n", version(), automium.CorpusVersion, automium.ComparisonReportVersion)
		return exitPass
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitPass
	}
	fmt.Fprintf(stderr, "automium: %s is not a command; use compare or version\n%s", quote(args[0]), usage)
	return exitUsage
}
