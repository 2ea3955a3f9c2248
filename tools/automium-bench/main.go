// Command automium-bench measures the automium-mcp server the way a coding agent
// uses it: as a child process spoken to over stdio by the go-sdk client, with the
// 2025-11-25 protocol pinned so that every start performs a real initialize
// handshake. It builds nothing; give it a built server:
//
//	CGO_ENABLED=0 go build -tags validator_novalidatefn -o automium-mcp ./cmd/automium-mcp
//	go run ./tools/automium-bench -server ./automium-mcp
//
// In one run it measures:
//
//   - spawn → initialized: the time from starting the process to the end of the
//     initialize handshake, median and p90 over -starts starts;
//   - sequential tool calls: calls per second, p50 and p99 latency for every tool
//     (several sizes for the sized ones), with arguments built from the root
//     package (reference journeys, fixtures, artifact kinds);
//   - the same for a no-op tool, on a server that is automium-mcp plus that one
//     tool, so each tool's throughput can be divided by the protocol's own: the
//     domain overhead ratio, throughput(tool) ÷ throughput(no-op), where 1.0 means
//     Automium adds nothing to the protocol's cost;
//   - the same again for a replay of each workload on the no-op server: a call
//     with the same arguments that returns, without doing anything, the very
//     bytes the automium tool returns. Its ratio, throughput(tool) ÷
//     throughput(replay), leaves out what the protocol spends carrying a large
//     answer, so it isolates Automium's own work (decoding, validating,
//     computing, encoding);
//   - the resident set size (VmRSS) of a fresh server after 1,000, 5,000 and
//     10,000 calls (scaled by -rss-calls), to show it is small and not growing;
//   - with -sdk-peer and -floor-peer (peers.go), automium-mcp against two servers
//     that return the very same bytes (each answer's text and structured
//     content, recorded apart and checked byte for byte): a minimal go-sdk server (sdkpeer) and a
//     plain-Go floor that decodes a line and writes a response (floorpeer), as
//     ratios per round, interleaved: list_apps, the 200-step compile and the
//     maximal comparison in sequential calls/s and in server CPU per call (the
//     child's own CPU time, which a loaded machine moves far less than the wall
//     clock), a pipelined burst of 1,000
//     list_apps, spawn → initialized of paired starts (and each start's server
//     CPU up to the initialize answer), and VmRSS after -rss-calls calls;
//     -peers-only runs only this;
//   - with -validator-peer as well, the go-sdk peer built with the validator
//     (go build -tags validator_novalidatefn,benchvalidator ./tools/automium-bench/sdkpeer)
//     in the same starts and memory samples: automium-mcp against it, and it
//     against the plain go-sdk peer, which is what the validator alone costs;
//   - the worst valid call (a maximal compile_journey), timed on every server.
//
// The no-op server is this program's own child: automium-bench starts itself again
// with the hidden first argument -serve-noop, which serves mcpserver.New plus the
// no-op tool over the same mcpserver/transport/stdio transport as automium-mcp, so both sides
// of the ratio pay for the same process boundary, transport and SDK. It is not a
// network call; nothing here opens a socket. mcpserver rejects tool names outside
// its own table before the SDK's dispatch, so the no-op call is answered by a
// middleware installed in front of that check: the no-op path therefore leaves out
// the adapter's name check and panic recovery, which count as Automium overhead.
// The replay payloads are computed once, on the first replay call, by calling
// mcpserver in process with the same arguments the harness sends.
//
// Tool calls from the two servers are interleaved in -rounds rounds, so drift in a
// shared machine's speed affects both sides of a ratio alike. Every loop is
// bounded, a call that gets no answer within -call-timeout fails the run, and
// the whole run stops after -timeout. It prints Markdown tables to
// stdout and writes nothing else; reading /proc/<pid>/status and
// /proc/<pid>/smaps_rollup (memory) and /proc/<pid>/task/*/schedstat (CPU
// time) of its own child servers are the only files it reads.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/automium/automium/mcpserver/transport"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/limit"
	"github.com/automium/automium/internal/toolcalls"
	"github.com/automium/automium/mcpserver"
	"github.com/automium/automium/mcpserver/transport/stdio"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// protocolVersion is pinned because the go-sdk v1.8 client otherwise speaks the
// sessionless 2026-07-28 protocol and never sends initialize, which would make
// spawn → initialized measure something no 2025 client does.
const protocolVersion = "2025-11-25"

// serveNoopArg is the hidden first argument that turns this program into the
// no-op server.
const serveNoopArg = "-serve-noop"

// noopTool is the name of the extra tool of the no-op server.
const noopTool = "noop"

// Goals from docs/performance.md.
const (
	goalSpawnMedian = 10 * time.Millisecond
	goalRatio       = 0.9
	goalRSSBytes    = 25 << 20
	// goalRSSGrowth is how much RSS may rise between the first and the last
	// sample and still count as not growing: a heap that settles moves by a few
	// pages, a leak of even 100 bytes a call moves by about a megabyte.
	goalRSSGrowth = 1 << 20
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == serveNoopArg {
		os.Exit(serveNoop())
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type config struct {
	server   string
	starts   int
	calls    int
	rounds   int
	rssCalls int
	timeout  time.Duration
	// sdkPeer and floorPeer are the peers of the comparison in peers.go; when
	// both are set, it runs after the tables above, or alone with peersOnly.
	sdkPeer, floorPeer string
	// validatorPeer is the go-sdk peer built with the validator; it needs the
	// other two, and joins their starts and memory samples (peerServers).
	validatorPeer string
	peersOnly     bool
	// callTimeout bounds each tool call (-call-timeout).
	callTimeout time.Duration
}

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("automium-bench", flag.ContinueOnError)
	flags.SetOutput(stderr)
	var c config
	flags.StringVar(&c.server, "server", "./automium-mcp", "path of the automium-mcp binary to measure (build it with: CGO_ENABLED=0 go build -tags validator_novalidatefn -o automium-mcp ./cmd/automium-mcp)")
	flags.IntVar(&c.starts, "starts", 20, "process starts for spawn → initialized, per server")
	flags.IntVar(&c.calls, "calls", 1000, "sequential calls per tool workload, and for the no-op tool")
	flags.IntVar(&c.rounds, "rounds", 5, "rounds the calls are split into, interleaving the no-op and automium servers")
	flags.IntVar(&c.rssCalls, "rss-calls", 10000, "calls made to a fresh server before its last RSS sample (samples at 1/10, 1/2 and all of them)")
	flags.StringVar(&c.sdkPeer, "sdk-peer", "", "path of the minimal go-sdk server (go build -o sdkpeer ./tools/automium-bench/sdkpeer); with -floor-peer, adds the peer comparison")
	flags.StringVar(&c.floorPeer, "floor-peer", "", "path of the plain-Go floor server (go build -o floorpeer ./tools/automium-bench/floorpeer)")
	flags.StringVar(&c.validatorPeer, "validator-peer", "", "path of the go-sdk server with the validator (go build -tags validator_novalidatefn,benchvalidator -o vpeer ./tools/automium-bench/sdkpeer); with -sdk-peer, adds its spawn and memory rows")
	flags.BoolVar(&c.peersOnly, "peers-only", false, "run only the peer comparison")
	flags.DurationVar(&c.timeout, "timeout", 15*time.Minute, "stop the whole run after this long")
	flags.DurationVar(&c.callTimeout, "call-timeout", defaultCallTimeout, "fail the run when one tool call, or a start's initialize, gets no answer within this long")
	flags.Usage = func() {
		fmt.Fprint(stderr, "Usage: automium-bench [flags]\n\n"+
			"Measures automium-mcp over stdio with the go-sdk client and prints Markdown tables.\n"+
			"Build the server first, as the README does: CGO_ENABLED=0 go build -tags validator_novalidatefn -o automium-mcp ./cmd/automium-mcp\n\nFlags:\n")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if (c.sdkPeer == "") != (c.floorPeer == "") || ((c.peersOnly || c.validatorPeer != "") && c.sdkPeer == "") {
		fmt.Fprintln(stderr, "automium-bench: -sdk-peer and -floor-peer go together, and -peers-only and -validator-peer need them")
		return 2
	}
	if flags.NArg() > 0 || c.starts < 1 || c.calls < 1 || c.rounds < 1 || c.rssCalls < 10 || c.callTimeout <= 0 {
		fmt.Fprintln(stderr, "automium-bench: -starts, -calls and -rounds must be at least 1, -rss-calls at least 10, -call-timeout above 0, and there are no arguments")
		return 2
	}
	c.rounds = min(c.rounds, c.calls)
	if err := checkBinaries(c); err != nil {
		fmt.Fprintln(stderr, "automium-bench:", err)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "automium-bench: cannot find its own executable to start the no-op server:", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	if err := bench(ctx, c, self, stdout); err != nil {
		fmt.Fprintln(stderr, "automium-bench:", err)
		return 1
	}
	return 0
}

// binaryFlags are the flags that name a binary to measure, with how to build it.
var binaryFlags = []struct {
	name, build string
	path        func(config) string
}{
	// -server is always measured: an empty path is refused like a missing one.
	{"-server", "CGO_ENABLED=0 go build -tags validator_novalidatefn -o automium-mcp ./cmd/automium-mcp", func(c config) string { return c.server }},
	{"-sdk-peer", "CGO_ENABLED=0 go build -o sdkpeer ./tools/automium-bench/sdkpeer", func(c config) string { return c.sdkPeer }},
	{"-floor-peer", "CGO_ENABLED=0 go build -o floorpeer ./tools/automium-bench/floorpeer", func(c config) string { return c.floorPeer }},
	{"-validator-peer", "CGO_ENABLED=0 go build -tags validator_novalidatefn,benchvalidator -o vpeer ./tools/automium-bench/sdkpeer", func(c config) string { return c.validatorPeer }},
}

// checkBinaries refuses, before anything starts, a binary flag whose path
// is missing, not an executable file, a script, or the same file as another
// flag's. Without it a bad peer failed only when the peer comparison
// started, after the other tables had run for minutes. A script's process is
// its interpreter: the CPU and memory rows would be the shell's (a wrapper
// around the go-sdk peer measured 1.7 MiB against the peer's 12.6). The same
// file twice would report a ratio of one as a finding.
func checkBinaries(c config) error {
	seen := map[string]os.FileInfo{}
	var order []string
	for _, f := range binaryFlags {
		path := f.path(c)
		if path == "" && f.name != "-server" {
			continue // a peer not asked for
		}
		info, err := os.Stat(path)
		if err == nil && (!info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0) {
			err = errors.New("not an executable file")
		}
		if err == nil && isScript(path) {
			err = errors.New("a script, whose process is its interpreter's; pass the binary itself")
		}
		if err != nil {
			return fmt.Errorf("%s %s: %v; build it with: %s", f.name, path, err, f.build)
		}
		for _, other := range order {
			if os.SameFile(seen[other], info) {
				return fmt.Errorf("%s and %s are the same file, %s; build it with: %s", other, f.name, path, f.build)
			}
		}
		seen[f.name] = info
		order = append(order, f.name)
	}
	return nil
}

// isScript reports whether the file at path starts with #!.
func isScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false // exec will say why
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := io.ReadFull(f, head)
	return string(head[:n]) == "#!"
}

// server says how to start one of the servers.
type server struct {
	label       string
	path        string
	args        []string
	callTimeout time.Duration
}

func (s server) command() *exec.Cmd {
	cmd := exec.Command(s.path, s.args...)
	cmd.Stderr = os.Stderr // the servers log warnings and errors only
	return cmd
}

// session is a connected client with the child it talks to.
type session struct {
	*mcp.ClientSession
	cmd         *exec.Cmd
	label       string
	callTimeout time.Duration
	last        *lastResult // the raw result of the last response read
}

// connect starts s and performs the initialize handshake, returning how long
// that took from just before the process was started.
func connect(ctx context.Context, s server) (session, time.Duration, error) {
	cmd := s.command()
	client := mcp.NewClient(&mcp.Implementation{Name: "automium-bench", Version: "1"}, nil)
	last := &lastResult{}
	// The handshake is bounded as a call is: a program that is not an MCP
	// server and never answers held the run until -timeout, 15 minutes.
	// The session does not keep this context.
	hctx, cancel := context.WithTimeout(ctx, s.callTimeout)
	defer cancel()
	start := time.Now()
	cs, err := client.Connect(hctx, recording{&mcp.CommandTransport{Command: cmd}, last}, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	took := time.Since(start)
	if err != nil {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if ctx.Err() == nil && hctx.Err() != nil {
			return session{}, 0, fmt.Errorf("starting %s (%s): no answer to initialize within %s (-call-timeout); is it an MCP server over stdio?", s.label, s.path, s.callTimeout)
		}
		return session{}, 0, fmt.Errorf("starting %s: %w", s.label, err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != protocolVersion {
		cs.Close()
		return session{}, 0, fmt.Errorf("%s negotiated protocol %s, want %s", s.label, got, protocolVersion)
	}
	return session{cs, cmd, s.label, s.callTimeout, last}, took, nil
}

func bench(ctx context.Context, c config, self string, out io.Writer) error {
	servers := []server{
		{label: labelAutomium, path: c.server, callTimeout: c.callTimeout},
		{label: "no-op server (automium-bench " + serveNoopArg + ")", path: self, args: []string{serveNoopArg}, callTimeout: c.callTimeout},
	}
	loads, err := workloads(ctx)
	if err != nil {
		return err
	}
	peers := peerServers(c)
	if c.peersOnly {
		fmt.Fprintf(out, "# automium-bench\n\nserver %s, protocol %s over stdio, go-sdk client; %s %s/%s, %d CPUs\n",
			c.server, protocolVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
		if err := benchPeers(ctx, c, peers, loads, out); err != nil {
			return err
		}
		return worstCall(ctx, peers.calls, max(1, c.calls/100), out)
	}

	// Spawn → initialized.
	spawn := make([][]time.Duration, len(servers))
	var serverVersion string
	for range c.starts {
		for i, s := range servers {
			cs, took, err := connect(ctx, s)
			if err != nil {
				return err
			}
			if i == 0 {
				serverVersion = cs.InitializeResult().ServerInfo.Version
			}
			spawn[i] = append(spawn[i], took)
			if err := cs.Close(); err != nil {
				return fmt.Errorf("closing %s: %w", s.label, err)
			}
		}
	}

	// Sequential calls, interleaved between the two servers round by round.
	auto, _, err := connect(ctx, servers[0])
	if err != nil {
		return err
	}
	defer auto.Close()
	noop, _, err := connect(ctx, servers[1])
	if err != nil {
		return err
	}
	defer noop.Close()
	noopLoad := workload{name: "no-op tool (protocol floor)", tool: noopTool, args: json.RawMessage(`{}`)}
	if err := warmUp(ctx, noop, noopLoad, c.calls); err != nil {
		return err
	}
	replays := make([]workload, len(loads))
	for i, w := range loads {
		replays[i] = workload{name: "replay of " + w.name, tool: replayTool(i), args: w.args}
		answer, err := callAnswer(ctx, auto, w)
		if err != nil {
			return err
		}
		replayed, err := callAnswer(ctx, noop, replays[i])
		if err != nil {
			return err
		}
		if diff := sameAnswer(answer, replayed); diff != "" {
			return fmt.Errorf("%s: the replay's answer differs from the tool's (%s), so the same-bytes ratio would compare unlike calls", w.name, diff)
		}
		loads[i].answerBytes = len(answer.text) + len(answer.structured)
		if err := warmUp(ctx, auto, w, c.calls); err != nil {
			return err
		}
		if err := warmUp(ctx, noop, replays[i], c.calls); err != nil {
			return err
		}
	}
	noopStats := &callStats{}
	stats := make([]callStats, len(loads))
	replayStats := make([]callStats, len(loads))
	for r := range c.rounds {
		n := c.calls/c.rounds + btoi(r < c.calls%c.rounds)
		if err := noopStats.measure(ctx, noop, noopLoad, n); err != nil {
			return err
		}
		for i, w := range loads {
			if err := stats[i].measure(ctx, auto, w, n); err != nil {
				return err
			}
			if err := replayStats[i].measure(ctx, noop, replays[i], n); err != nil {
				return err
			}
		}
	}

	// RSS of a fresh server over a mixed workload.
	rss, err := measureRSS(ctx, servers[0], loads, c.rssCalls)
	if err != nil {
		return err
	}

	printReport(out, c, serverVersion, servers, spawn, loads, noopLoad, stats, replayStats, noopStats, rss)
	if c.sdkPeer == "" {
		return worstCall(ctx, servers[:1], max(1, c.calls/100), out)
	}
	if err := benchPeers(ctx, c, peers, loads, out); err != nil {
		return err
	}
	return worstCall(ctx, peers.calls, max(1, c.calls/100), out)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// workload is one tool with one set of arguments.
type workload struct {
	name string
	tool string
	args json.RawMessage
	// exempt marks the workload the overhead goal does not cover: the comparison
	// at large sizes, whose work is meant to dominate the protocol's.
	exempt bool
	// answerBytes is the size of the tool's answer: its text block (a Markdown
	// summary) and its structured content (JSON) together.
	answerBytes int
}

// workloads builds good arguments for every tool from the root package, so the
// harness follows the corpus instead of hard-coding it: the first reference
// journey, its fixture and profile, a modeled run of it, and the artifacts its
// replay needs.
func workloads(ctx context.Context) ([]workload, error) {
	apps, err := automium.ListApps(ctx, automium.ListAppsInput{})
	if err != nil {
		return nil, err
	}
	fixtures, err := automium.ListFixtures(ctx, automium.ListFixturesInput{})
	if err != nil {
		return nil, err
	}
	var fixture automium.Fixture
	for _, f := range fixtures.Fixtures {
		if len(f.ReferenceJourneyIDs) > 0 && len(f.EnvironmentProfileIDs) > 0 {
			fixture = f
			break
		}
	}
	journey, ok := automium.ReferenceJourney(fixture.ReferenceJourneyIDs[0])
	if !ok {
		return nil, fmt.Errorf("reference journey %s is missing", fixture.ReferenceJourneyIDs[0])
	}
	longJourney := journey
	longJourney.ID = journey.ID + "-max-steps"
	longJourney.Steps = nil
	for len(longJourney.Steps) < limit.MaxSteps {
		for _, s := range journey.Steps {
			if s.Intent != "finish" && len(longJourney.Steps) < limit.MaxSteps {
				longJourney.Steps = append(longJourney.Steps, s)
			}
		}
	}
	planner := automium.PlannerRef{ID: "baseline-planner", Vendor: "openai", Model: "gpt-4.1-mini"}
	submission := automium.CreateRunSubmissionInput{JourneyID: journey.ID, AppID: journey.AppID, FixtureID: fixture.ID,
		Planner: planner, EnvironmentProfileID: fixture.EnvironmentProfileIDs[0]}
	run, err := automium.CreateRunSubmission(ctx, submission)
	if err != nil {
		return nil, err
	}
	replay := automium.GetReplaySummaryInput{RunID: run.RunID, Verdict: automium.VerdictFlaky, RetryCount: 1, ArtifactManifestRef: run.ArtifactManifestRef}
	summary, err := automium.GetReplaySummary(ctx, replay)
	if err != nil {
		return nil, err
	}
	manifest := automium.GetArtifactManifestInput{RunID: run.RunID, Root: fixture.ArtifactRoot}
	for _, kind := range summary.RequiredReplayArtifactKinds {
		manifest.Entries = append(manifest.Entries, automium.ArtifactEntry{Kind: kind, Path: "attempt-2/" + string(kind)})
	}
	maxManifest := automium.GetArtifactManifestInput{RunID: run.RunID, Root: fixture.ArtifactRoot}
	kinds := automium.ArtifactSpecs()
	for i := range limit.MaxArtifactEntries {
		kind := kinds[i%len(kinds)].Kind
		maxManifest.Entries = append(maxManifest.Entries, automium.ArtifactEntry{Kind: kind, Path: fmt.Sprintf("attempt-%d/%s-%03d", i%3+1, kind, i)})
	}
	var appIDs []string
	for _, a := range apps.Apps {
		appIDs = append(appIDs, a.ID)
	}
	compare := func(planners, apps, reps int) automium.ComparePlannersInput {
		in := automium.ComparePlannersInput{CorpusVersion: automium.CorpusVersion, AppIDs: appIDs[:apps], Repetitions: reps}
		for i := range planners {
			in.Planners = append(in.Planners, automium.PlannerRef{ID: fmt.Sprintf("planner-%02d", i), Vendor: "vendor", Model: fmt.Sprintf("model-%d", i)})
		}
		return in
	}
	all := len(appIDs)

	rows := []struct {
		name, tool string
		args       any
		exempt     bool
	}{
		{"automium_list_apps", "automium_list_apps", automium.ListAppsInput{}, false},
		{"automium_list_fixtures (appId " + journey.AppID + ")", "automium_list_fixtures", automium.ListFixturesInput{AppID: journey.AppID}, false},
		{fmt.Sprintf("automium_compile_journey (%s, %d steps)", journey.ID, len(journey.Steps)), "automium_compile_journey", journey, false},
		{fmt.Sprintf("automium_compile_journey (%d steps)", limit.MaxSteps), "automium_compile_journey", longJourney, false},
		{"automium_create_run_submission", "automium_create_run_submission", submission, false},
		{"automium_get_replay_summary", "automium_get_replay_summary", replay, false},
		{fmt.Sprintf("automium_get_artifact_manifest (%d entries)", len(manifest.Entries)), "automium_get_artifact_manifest", manifest, false},
		{fmt.Sprintf("automium_get_artifact_manifest (%d entries)", limit.MaxArtifactEntries), "automium_get_artifact_manifest", maxManifest, false},
		{"automium_compare_planners (2 planners × 1 app × 1 rep)", "automium_compare_planners", compare(2, 1, 1), false},
		{fmt.Sprintf("automium_compare_planners (4 planners × %d apps × 10 reps)", all), "automium_compare_planners", compare(4, all, 10), false},
		{fmt.Sprintf("automium_compare_planners (%d planners × %d apps × %d reps)", limit.MaxPlanners, all, limit.MaxRepetitions), "automium_compare_planners", compare(limit.MaxPlanners, all, limit.MaxRepetitions), true},
	}
	loads := make([]workload, len(rows))
	covered := map[string]bool{}
	for i, r := range rows {
		args, err := json.Marshal(r.args)
		if err != nil {
			return nil, err
		}
		loads[i] = workload{name: r.name, tool: r.tool, args: args, exempt: r.exempt}
		covered[r.tool] = true
	}
	// Every other tool with its tool table row's example, so a new row is
	// measured without a line here (TestWorkloadsCallEveryTool).
	for _, c := range toolcalls.Examples() {
		if !covered[c.Tool] {
			loads = append(loads, workload{name: c.Tool + " (example)", tool: c.Tool, args: c.Args})
		}
	}
	return loads, nil
}

// worstJourneyName names the heaviest valid call: SECURITY.md's figure.
var worstJourneyName = fmt.Sprintf("automium_compile_journey (maximal: %d steps, %d assertions, %d-character values)", limit.MaxSteps, limit.MaxAssertions, maxValueRunes)

// maxValueRunes is the longest step or assertion value the validator accepts.
const maxValueRunes = 2000

// worstJourney is the heaviest valid compile_journey: journey's app and fixture,
// the most steps and assertions, each step filling a textbox and each assertion
// checking a text with the longest value, made of quotes, backslashes, '<' (which
// JSON escapes as six bytes), CJK and emoji, and a retry on every step.
func worstJourney() (workload, error) {
	fixtures, err := automium.ListFixtures(context.Background(), automium.ListFixturesInput{})
	if err != nil {
		return workload{}, err
	}
	journey, ok := automium.ReferenceJourney(fixtures.Fixtures[0].ReferenceJourneyIDs[0])
	if !ok {
		return workload{}, errors.New("the first fixture's reference journey is missing")
	}
	unit := []rune(`"\<日本語テキスト😀🚀`)
	value := make([]rune, maxValueRunes)
	for i := range value {
		value[i] = unit[i%len(unit)]
	}
	text := string(value)
	worst := automium.CompileJourneyInput{ID: journey.ID + "-maximal", AppID: journey.AppID, FixtureID: journey.FixtureID,
		Goal: text, Recovery: automium.Recovery{MaxRetries: 3, Strategies: []automium.RecoveryStrategy{"retry_step"}}}
	for i := range limit.MaxSteps {
		worst.Steps = append(worst.Steps, automium.Step{Intent: "fill", Target: &automium.Target{Role: "textbox", Name: fmt.Sprintf("Field %d", i)}, Value: text})
	}
	for range limit.MaxAssertions {
		worst.Assertions = append(worst.Assertions, automium.Assertion{Kind: "text_visible", Value: text})
	}
	args, err := json.Marshal(worst)
	return workload{name: worstJourneyName, tool: "automium_compile_journey", args: args}, err
}

// call makes one tool call and insists it succeeded, so a benchmark of bad
// arguments (an error result is cheap) cannot pass unnoticed.
func call(ctx context.Context, cs session, w workload) error {
	res, err := callTool(ctx, cs, w.tool, w.args)
	if err != nil {
		return fmt.Errorf("%s: %w", w.name, err)
	}
	if res.IsError {
		return fmt.Errorf("%s: tool error: %s", w.name, firstText(res))
	}
	return nil
}

// warmUp makes a tenth of the measured calls, at least one, so lazy
// initialisation and the first garbage collections are not measured.
func warmUp(ctx context.Context, cs session, w workload, calls int) error {
	for range max(1, calls/10) {
		if err := call(ctx, cs, w); err != nil {
			return err
		}
	}
	return nil
}

// callStats accumulates the latencies of one workload over the rounds.
type callStats struct {
	latencies []time.Duration
	elapsed   time.Duration
}

func (s *callStats) measure(ctx context.Context, cs session, w workload, n int) error {
	start := time.Now()
	for range n {
		t := time.Now()
		if err := call(ctx, cs, w); err != nil {
			return err
		}
		s.latencies = append(s.latencies, time.Since(t))
	}
	s.elapsed += time.Since(start)
	return nil
}

func (s *callStats) perSecond() float64 {
	return float64(len(s.latencies)) / s.elapsed.Seconds()
}

// quantile returns the nearest-rank q-quantile of ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// rssSample is the memory of the server after some number of calls.
type rssSample struct {
	calls      int
	rss, peak  int64 // VmRSS and VmHWM, in bytes
	afterStart bool
}

// measureRSS starts a fresh server and samples its memory after the handshake
// and after a tenth, half and all of calls calls, cycling through every
// workload the overhead goal covers.
func measureRSS(ctx context.Context, s server, loads []workload, calls int) ([]rssSample, error) {
	cs, _, err := connect(ctx, s)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	var mix []workload
	for _, w := range loads {
		if !w.exempt {
			mix = append(mix, w)
		}
	}
	sample := func(n int) (rssSample, error) {
		rss, peak, err := memoryOf(cs.cmd.Process.Pid)
		return rssSample{calls: n, rss: rss, peak: peak, afterStart: n == 0}, err
	}
	first, err := sample(0)
	if err != nil {
		return nil, err
	}
	samples := []rssSample{first}
	marks := []int{calls / 10, calls / 2, calls}
	for n := 1; n <= calls; n++ {
		if err := call(ctx, cs, mix[(n-1)%len(mix)]); err != nil {
			return nil, err
		}
		if slices.Contains(marks, n) {
			s, err := sample(n)
			if err != nil {
				return nil, err
			}
			samples = append(samples, s)
		}
	}
	return samples, nil
}

// memoryOf reads VmRSS and VmHWM of a child process from /proc.
func memoryOf(pid int) (rss, peak int64, err error) {
	kb, err := procKB("/proc/"+strconv.Itoa(pid)+"/status", "VmRSS", "VmHWM")
	if err != nil {
		return 0, 0, err
	}
	return kb[0] << 10, kb[1] << 10, nil
}

// procKB reads the given "key: N kB" lines of a /proc file, in kB, in the
// order of keys; every key must be there.
func procKB(path string, keys ...string) ([]int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the server's memory (Linux /proc only): %w", err)
	}
	kb := make([]int64, len(keys))
	found := 0
	for line := range strings.SplitSeq(string(data), "\n") {
		key, value, ok := strings.Cut(line, ":")
		i := slices.Index(keys, key)
		if !ok || i < 0 {
			continue
		}
		if kb[i], err = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64); err != nil {
			return nil, fmt.Errorf("parsing %s of %s: %w", key, path, err)
		}
		found++
	}
	if found != len(keys) {
		return nil, fmt.Errorf("%s lacks one of %s", path, strings.Join(keys, ", "))
	}
	return kb, nil
}

func printReport(out io.Writer, c config, version string, servers []server, spawn [][]time.Duration,
	loads []workload, noopLoad workload, stats, replayStats []callStats, noopStats *callStats, rss []rssSample) {
	p := func(format string, args ...any) { fmt.Fprintf(out, format, args...) }
	p("# automium-bench\n\n")
	p("server %s (automium %s), protocol %s over stdio, go-sdk client; %s %s/%s, %d CPUs\n\n",
		c.server, version, protocolVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())

	p("## Spawn → initialized (%d starts each)\n\n", c.starts)
	p("| server | median | p90 | min | max | goal: median ≤ %s |\n|---|--:|--:|--:|--:|---|\n", goalSpawnMedian)
	for i, s := range servers {
		med := quantile(spawn[i], 0.5)
		goal := "—"
		if i == 0 {
			goal = verdict(med <= goalSpawnMedian)
		}
		p("| %s | %s | %s | %s | %s | %s |\n", s.label, ms(med), ms(quantile(spawn[i], 0.9)),
			ms(slices.Min(spawn[i])), ms(slices.Max(spawn[i])), goal)
	}

	noopRate := noopStats.perSecond()
	p("\n## Sequential tool calls (%d calls each, in %d interleaved rounds, after %d warm-up calls)\n\n", c.calls, c.rounds, max(1, c.calls/10))
	p("Domain overhead ratio = throughput(tool) ÷ throughput(no-op tool): 1.00 means Automium adds nothing to the protocol's cost.\n")
	p("Same-bytes ratio = throughput(tool) ÷ throughput(replay): the replay sends the same arguments and gets the same answer bytes from a server that does no work, so this ratio leaves out the protocol's cost of carrying the answer.\n\n")
	p("| workload | answer | calls/s | p50 | p99 | ratio | goal: ratio ≥ %.1f | replay calls/s | replay p50 | same-bytes ratio |\n|---|--:|--:|--:|--:|--:|---|--:|--:|--:|\n", goalRatio)
	p("| %s | 2 B | %.0f | %s | %s | 1.00 | — | | | |\n", noopLoad.name, noopRate, ms(quantile(noopStats.latencies, 0.5)), ms(quantile(noopStats.latencies, 0.99)))
	for i, w := range loads {
		rate := stats[i].perSecond()
		ratio := rate / noopRate
		goal := verdict(ratio >= goalRatio)
		if w.exempt {
			goal = "exempt (large comparison)"
		}
		replayRate := replayStats[i].perSecond()
		p("| %s | %s | %.0f | %s | %s | %.2f | %s | %.0f | %s | %.2f |\n", w.name, kib(w.answerBytes), rate, ms(quantile(stats[i].latencies, 0.5)), ms(quantile(stats[i].latencies, 0.99)),
			ratio, goal, replayRate, ms(quantile(replayStats[i].latencies, 0.5)), rate/replayRate)
	}

	p("\n## Server memory over %d calls (fresh automium-mcp, cycling through every non-exempt workload)\n\n", c.rssCalls)
	p("| calls | VmRSS | VmHWM (peak) |\n|--:|--:|--:|\n")
	for _, s := range rss {
		label := strconv.Itoa(s.calls)
		if s.afterStart {
			label = "0 (after initialize)"
		}
		p("| %s | %s | %s |\n", label, mib(s.rss), mib(s.peak))
	}
	last, firstLoaded := rss[len(rss)-1], rss[1]
	growth := last.rss - firstLoaded.rss
	p("\nGoal: VmRSS after %d calls < %s and not growing (change from %d to %d calls ≤ %s): %s (%s, change %+.1f MiB)\n",
		c.rssCalls, mib(goalRSSBytes), firstLoaded.calls, last.calls, mib(goalRSSGrowth),
		verdict(last.rss < goalRSSBytes && growth <= goalRSSGrowth), mib(last.rss), float64(growth)/(1<<20))
}

func verdict(met bool) string {
	if met {
		return "met"
	}
	return "**missed**"
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond))
}

func kib(b int) string {
	if b < 1<<10 {
		return fmt.Sprintf("%d B", b)
	}
	return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
}

func mib(b int64) string {
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

// serveNoop is the no-op server: automium-mcp's server and transport, plus one
// tool that does nothing. It serves until stdin ends, like automium-mcp.
func serveNoop() int {
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	// Computed on the first replay call, so the no-op server starts as fast as
	// automium-mcp does.
	payloads := sync.OnceValues(func() ([]answer, error) { return replayPayloads(ctx) })
	s := mcpserver.New(&mcpserver.Options{Logger: logger})
	s.AddTool(&mcp.Tool{Name: noopTool, Description: "Does nothing; the protocol floor automium-bench compares tools with.",
		InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return noopResult(), nil
	})
	// The binary's one panic recovery, outermost of automium's part.
	s.AddReceivingMiddleware(transport.Recover(logger))
	// Installed last, so it runs first: in front of mcpserver's name check, which
	// knows only automium's tools.
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				if r.Params.Name == noopTool {
					return noopResult(), nil
				}
				if i, ok := replayIndex(r.Params.Name); ok {
					bodies, err := payloads()
					if err != nil {
						return nil, err
					}
					if i < len(bodies) {
						return replayResult(bodies[i]), nil
					}
				}
			}
			return next(ctx, method, req)
		}
	})
	if err := s.Run(ctx, &stdio.Transport{Reader: os.Stdin, Writer: os.Stdout}); err != nil && ctx.Err() == nil {
		logger.Error("no-op server session ended", "error", err)
		return 1
	}
	return 0
}

// noopResult has the shape of an automium tool result with the smallest body.
func noopResult() *mcp.CallToolResult {
	return replayResult(answer{text: "{}", structured: json.RawMessage("{}")})
}

// replayResult has the shape of an automium tool result: one text block and
// the structured content, each as the tool wrote it.
func replayResult(a answer) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.text}}, StructuredContent: a.structured}
}

// replayPrefix names the no-op server's replay of workload i: replay_<i>.
const replayPrefix = "replay_"

func replayTool(i int) string { return replayPrefix + strconv.Itoa(i) }

func replayIndex(name string) (int, bool) {
	n, ok := strings.CutPrefix(name, replayPrefix)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(n)
	return i, err == nil && i >= 0
}

// replayPayloads calls every workload once on an in-process mcpserver and keeps
// the answers, so the no-op server can return the same bytes without the work.
func replayPayloads(ctx context.Context) ([]answer, error) {
	loads, err := workloads(ctx)
	if err != nil {
		return nil, err
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(nil).Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	last := &lastResult{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "automium-bench", Version: "1"}, nil).Connect(ctx, recording{ct, last}, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	in := session{ClientSession: cs, label: "in-process mcpserver", callTimeout: defaultCallTimeout, last: last}
	payloads := make([]answer, len(loads))
	for i, w := range loads {
		if payloads[i], err = callAnswer(ctx, in, w); err != nil {
			return nil, err
		}
	}
	return payloads, nil
}
