package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/automium/automium/tools/automium-bench/internal/benchload"
)

// The peer comparison of docs/performance.md: automium-mcp against a minimal
// go-sdk server (sdkpeer) and a plain-Go floor (floorpeer), both returning the
// very bytes automium-mcp returns. Every figure is taken round by round with the
// three servers interleaved (their order rotating each round), and reported as the
// ratio automium ÷ peer per round, so the spread over rounds shows how much a
// shared machine moved it. With -validator-peer, the go-sdk peer built with the
// validator (sdkpeer's benchvalidator tag) joins the starts and the memory
// samples, so their rows split automium-mcp's gap to go-sdk into the
// validator's share and Automium's own.

// Goals of issue 14, as ratios of throughput (higher is better) or of time and
// memory (lower is better).
const (
	goalListAppsSDK   = 1.0
	goalListAppsFloor = 0.8
	goalHeavySDK      = 0.9
	goalBurstSDK      = 1.0
	goalSpawnSDK      = 1.2
	goalRSSSDK        = 1.1
	burstCalls        = 1000
	// goalHeavyCPUSDK is issue 29's: the server CPU of a 200-step compile at
	// most 1.3 times what a go-sdk server spends replaying the same bytes.
	goalHeavyCPUSDK = 1.3
)

// peerLoad indexes the workloads the peers are compared on.
type peerLoad struct {
	label string
	index int // into workloads()
}

var peerLoads = []peerLoad{
	{"list_apps, sequential calls/s", 0},
	{"200-step compile_journey, sequential calls/s", 3},
	{"maximal compare_planners, sequential calls/s", 10},
}

// peerSet is what the comparison starts. calls are automium-mcp, the go-sdk
// peer and the floor, compared on every figure. starts are those and, with
// -validator-peer, the go-sdk peer built with the validator, compared on
// start-up and memory only: it answers calls as the go-sdk peer does, so its
// call figures would add time and tell nothing.
type peerSet struct {
	calls, starts []server
}

// Labels of the servers in the report.
const (
	labelAutomium  = "automium-mcp"
	labelSDK       = "go-sdk"
	labelFloor     = "floor"
	labelValidator = "go-sdk+validator"
)

func peerServers(c config) peerSet {
	calls := []server{
		{label: labelAutomium, path: c.server, callTimeout: c.callTimeout},
		{label: labelSDK, path: c.sdkPeer, callTimeout: c.callTimeout},
		{label: labelFloor, path: c.floorPeer, callTimeout: c.callTimeout},
	}
	starts := slices.Clone(calls)
	if c.validatorPeer != "" {
		starts = append(starts, server{label: labelValidator, path: c.validatorPeer, callTimeout: c.callTimeout})
	}
	return peerSet{calls: calls, starts: starts}
}

// pair is one ratio of the report: starts[num] ÷ starts[den].
type pair struct{ num, den int }

// sdkPair is automium-mcp ÷ go-sdk, the ratio issue 14's goals are on.
var sdkPair = pair{0, 1}

// callPairs are the ratios of the call figures: automium-mcp ÷ each peer.
func (p peerSet) callPairs() []pair {
	var pairs []pair
	for j := 1; j < len(p.calls); j++ {
		pairs = append(pairs, pair{0, j})
	}
	return pairs
}

// startPairs are the ratios of the start and memory figures: automium-mcp ÷
// each peer and, with the validator peer, that peer ÷ go-sdk, which is what
// the validator alone costs.
func (p peerSet) startPairs() []pair {
	var pairs []pair
	for j := 1; j < len(p.starts); j++ {
		pairs = append(pairs, pair{0, j})
	}
	if len(p.starts) > len(p.calls) {
		pairs = append(pairs, pair{len(p.calls), 1})
	}
	return pairs
}

// ratioRow is one figure: per-round ratios server ÷ peer.
type ratioRow struct {
	figure        string
	server, peer  string
	ratios        []float64
	auto, other   []float64 // the raw figures of server and peer, per round
	unit          string
	goal          float64
	lowerIsBetter bool
}

func (r ratioRow) median() float64 { return medianOf(r.ratios) }

func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func (r ratioRow) met() bool {
	if r.lowerIsBetter {
		return r.median() <= r.goal
	}
	return r.median() >= r.goal
}

// benchPeers runs the comparison (peerSet says which servers).
func benchPeers(ctx context.Context, c config, set peerSet, loads []workload, out io.Writer) error {
	// Spawn → initialized, paired starts in rotating order. Each start's
	// own CPU time up to the initialize answer is taken too: the load moves
	// it far less than the wall clock.
	spawn := make([][]time.Duration, len(set.starts))
	spawnCPU := make([][]float64, len(set.starts)) // ms
	for i := range c.starts {
		for k := range set.starts {
			j := (i + k) % len(set.starts)
			cs, took, err := connect(ctx, set.starts[j])
			if err != nil {
				return err
			}
			spawn[j] = append(spawn[j], took)
			startCPU, err := cpuOf(cs.cmd.Process.Pid)
			if err != nil {
				cs.Close()
				return err
			}
			spawnCPU[j] = append(spawnCPU[j], float64(startCPU)/float64(time.Millisecond))
			if err := cs.Close(); err != nil {
				return fmt.Errorf("closing %s: %w", set.starts[j].label, err)
			}
		}
	}

	servers := set.calls

	sessions, err := connectAll(ctx, servers)
	if err != nil {
		return err
	}
	defer closeAll(sessions)
	listApps := loads[peerLoads[0].index]
	for _, p := range peerLoads {
		w := loads[p.index]
		answer, err := callAnswer(ctx, sessions[0], w)
		if err != nil {
			return err
		}
		for _, cs := range sessions[1:] {
			if err := loadPeer(ctx, cs, w, answer); err != nil {
				return err
			}
		}
	}
	// The peers hold the answers; check them before measuring anything.
	if err := checkPeers(ctx, sessions, loads); err != nil {
		return err
	}
	for _, p := range peerLoads {
		w := loads[p.index]
		for _, cs := range sessions {
			if err := warmUp(ctx, cs, w, c.calls); err != nil {
				return err
			}
		}
	}

	seq := make([][][]float64, len(peerLoads)) // [load][server][round] calls/s
	cpu := make([][][]float64, len(peerLoads)) // [load][server][round] server CPU ms per call
	burst := make([][]float64, len(servers))
	for l := range seq {
		seq[l] = make([][]float64, len(servers))
		cpu[l] = make([][]float64, len(servers))
	}
	for r := range c.rounds {
		for l, p := range peerLoads {
			w := loads[p.index]
			n := c.calls / c.rounds
			if p.index != 0 {
				n = max(1, n/10) // the heavy calls take 10 to 30 times longer
			}
			for k := range servers {
				j := (r + k) % len(servers)
				var st callStats
				before, err := cpuOf(sessions[j].cmd.Process.Pid)
				if err != nil {
					return err
				}
				if err := st.measure(ctx, sessions[j], w, n); err != nil {
					return err
				}
				after, err := cpuOf(sessions[j].cmd.Process.Pid)
				if err != nil {
					return err
				}
				seq[l][j] = append(seq[l][j], st.perSecond())
				cpu[l][j] = append(cpu[l][j], float64(after-before)/float64(time.Millisecond)/float64(n))
			}
		}
		for k := range servers {
			j := (r + k) % len(servers)
			rate, err := burstRate(ctx, sessions[j], listApps, burstCalls)
			if err != nil {
				return err
			}
			burst[j] = append(burst[j], rate)
		}
	}

	rss, err := peerRSS(ctx, set.starts, loads, c.rssCalls)
	if err != nil {
		return err
	}

	var rows []ratioRow
	per := func(figure string, p pair, num, den []float64, unit string, goal float64, lower bool) {
		row := ratioRow{figure: figure, server: set.starts[p.num].label, peer: set.starts[p.den].label,
			auto: num, other: den, unit: unit, goal: goal, lowerIsBetter: lower}
		for i := range num {
			row.ratios = append(row.ratios, num[i]/den[i])
		}
		rows = append(rows, row)
	}
	// sdkGoal is goal for automium-mcp ÷ go-sdk and none for the other pairs.
	sdkGoal := func(p pair, goal float64) float64 {
		if p == sdkPair {
			return goal
		}
		return 0
	}
	goals := [][2]float64{{goalListAppsSDK, goalListAppsFloor}, {goalHeavySDK, 0}, {goalHeavySDK, 0}}
	for l, lp := range peerLoads {
		for _, p := range set.callPairs() {
			per(lp.label, p, seq[l][p.num], seq[l][p.den], "calls/s", goals[l][p.den-1], false)
		}
	}
	// Server CPU per call: what the server process itself spent, whatever
	// the machine's load did to the wall clock. Only go-sdk's ratio on the
	// 200-step compile has a goal (issue 29's).
	for l, lp := range peerLoads {
		for _, p := range set.callPairs() {
			goal := 0.0
			if l == 1 {
				goal = sdkGoal(p, goalHeavyCPUSDK)
			}
			per(strings.Replace(lp.label, "sequential calls/s", "server CPU ms per call", 1), p, cpu[l][p.num], cpu[l][p.den], "ms", goal, true)
		}
	}
	for _, p := range set.callPairs() {
		per(fmt.Sprintf("burst of %d pipelined list_apps, calls/s", burstCalls), p, burst[p.num], burst[p.den], "calls/s", sdkGoal(p, goalBurstSDK), false)
	}
	spawnMs := make([][]float64, len(spawn))
	for j, ds := range spawn {
		for _, d := range ds {
			spawnMs[j] = append(spawnMs[j], float64(d)/float64(time.Millisecond))
		}
	}
	for _, p := range set.startPairs() {
		per("spawn → initialized, ms (paired starts)", p, spawnMs[p.num], spawnMs[p.den], "ms", sdkGoal(p, goalSpawnSDK), true)
	}
	for _, p := range set.startPairs() {
		per("spawn → initialized, server CPU ms (paired starts)", p, spawnCPU[p.num], spawnCPU[p.den], "ms", 0, true)
	}
	for _, p := range set.startPairs() {
		per(fmt.Sprintf("VmRSS after %d calls, MiB", c.rssCalls), p, []float64{rss[p.num].last}, []float64{rss[p.den].last}, "MiB", sdkGoal(p, goalRSSSDK), true)
	}
	// Where the resident memory is: the binary's pages, mapped from its file,
	// and the anonymous ones the process allocated (smaps_rollup).
	for _, at := range []struct {
		label string
		split func(rssFigures) memorySplit
	}{
		{"after initialize", func(f rssFigures) memorySplit { return f.idle }},
		{fmt.Sprintf("after %d calls", c.rssCalls), func(f rssFigures) memorySplit { return f.loaded }},
	} {
		for _, part := range []struct {
			label string
			of    func(memorySplit) float64
		}{
			{"Rss", func(m memorySplit) float64 { return m.rss }},
			{"Rss file-backed (binary)", func(m memorySplit) float64 { return m.file }},
			{"Rss anonymous", func(m memorySplit) float64 { return m.anon }},
		} {
			if part.label == "Rss" && at.label != "after initialize" {
				continue // the VmRSS row above
			}
			for _, p := range set.startPairs() {
				per(part.label+" "+at.label+", MiB", p, []float64{part.of(at.split(rss[p.num]))}, []float64{part.of(at.split(rss[p.den]))}, "MiB", 0, true)
			}
		}
	}

	p := func(format string, args ...any) { fmt.Fprintf(out, format, args...) }
	p("\n## automium-mcp against a minimal go-sdk server and a plain-Go floor, same answer bytes\n\n")
	p("Interleaved in one run, %d rounds; ratio = server ÷ peer per round (for ms and MiB, lower is better).\n", c.rounds)
	if len(set.starts) > len(set.calls) {
		p("%s is the go-sdk peer with go-playground/validator linked and used as automium-mcp uses it, in the starts and memory rows only;\n"+
			"%s ÷ %s is what the validator alone costs.\n", labelValidator, labelValidator, labelSDK)
	}
	p("\n| figure | server ÷ peer | server (median) | peer (median) | ratio (median) | spread over rounds | goal | verdict |\n|---|---|--:|--:|--:|---|---|---|\n")
	for _, r := range rows {
		goal, verdictText := "—", "—"
		if r.goal > 0 {
			op := "≥"
			if r.lowerIsBetter {
				op = "≤"
			}
			goal = fmt.Sprintf("%s %.1f", op, r.goal)
			verdictText = verdict(r.met())
		}
		p("| %s | %s ÷ %s | %.1f | %.1f | %.2f | %.2f–%.2f | %s | %s |\n", r.figure, r.server, r.peer, medianOf(r.auto), medianOf(r.other),
			r.median(), slices.Min(r.ratios), slices.Max(r.ratios), goal, verdictText)
	}
	p("\nVmRSS (MiB) after 1/10, 1/2 and all of the %d calls, per server: ", c.rssCalls)
	for j, s := range set.starts {
		p("%s %s; ", s.label, fmtFloats(rss[j].samples))
	}
	p("\n")
	return nil
}

// connectAll starts and connects every server, in order; on an error it closes
// the sessions it made.
func connectAll(ctx context.Context, servers []server) ([]session, error) {
	sessions := make([]session, 0, len(servers))
	for _, s := range servers {
		cs, _, err := connect(ctx, s)
		if err != nil {
			closeAll(sessions)
			return nil, err
		}
		sessions = append(sessions, cs)
	}
	return sessions, nil
}

func closeAll(sessions []session) {
	for _, cs := range sessions {
		cs.Close()
	}
}

func fmtFloats(xs []float64) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += " → "
		}
		s += fmt.Sprintf("%.1f", x)
	}
	return s
}

// loadPeer gives a peer the answer it must return for w.
func loadPeer(ctx context.Context, cs session, w workload, a answer) error {
	args, err := json.Marshal(benchload.Load{Tool: w.tool, Args: w.args, Text: a.text, Structured: a.structured})
	if err != nil {
		return err
	}
	if _, err := callTool(ctx, cs, "bench_load", args); err != nil {
		return fmt.Errorf("loading %s's answer into %s: %w", w.name, cs.label, err)
	}
	return nil
}

// checkPeers asks automium-mcp (sessions[0]) and each peer for every peer
// workload and fails unless the peer's text and structured content are
// automium-mcp's, byte for byte.
func checkPeers(ctx context.Context, sessions []session, loads []workload) error {
	for _, p := range peerLoads {
		w := loads[p.index]
		want, err := callAnswer(ctx, sessions[0], w)
		if err != nil {
			return err
		}
		if err := checkAnswer(ctx, sessions, w, want); err != nil {
			return err
		}
	}
	return nil
}

// checkAnswer fails unless every peer in sessions[1:] answers w with want.
func checkAnswer(ctx context.Context, sessions []session, w workload, want answer) error {
	for _, cs := range sessions[1:] {
		got, err := callAnswer(ctx, cs, w)
		if err != nil {
			return err
		}
		if diff := sameAnswer(want, got); diff != "" {
			return fmt.Errorf("%s: %s answers other bytes than automium-mcp: %s", w.name, cs.label, diff)
		}
	}
	return nil
}

// burstRate sends n calls of w at once, without waiting for any answer before
// the next request is written, and returns n ÷ the time until the last answer.
func burstRate(ctx context.Context, cs session, w workload, n int) (float64, error) {
	errs := make(chan error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for range n {
		wg.Go(func() { errs <- call(ctx, cs, w) })
	}
	wg.Wait()
	took := time.Since(start)
	close(errs)
	for err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return float64(n) / took.Seconds(), nil
}

type rssFigures struct {
	samples []float64
	last    float64
	// idle and loaded split the resident pages after initialize and after
	// all the calls into the binary's (file-backed) and anonymous ones.
	idle, loaded memorySplit
}

// memorySplit is a process's resident memory from /proc/<pid>/smaps_rollup,
// in MiB: Rss, its Anonymous pages (heap, stacks, runtime data) and the rest,
// file-backed (the pages of the executable mapped from its file).
type memorySplit struct{ rss, anon, file float64 }

// residentSplit reads the memorySplit of a child process.
func residentSplit(pid int) (memorySplit, error) {
	kb, err := procKB("/proc/"+strconv.Itoa(pid)+"/smaps_rollup", "Rss", "Anonymous")
	if err != nil {
		return memorySplit{}, err
	}
	return memorySplit{rss: float64(kb[0]) / 1024, anon: float64(kb[1]) / 1024, file: float64(kb[0]-kb[1]) / 1024}, nil
}

// peerRSS starts each server fresh and makes calls calls to each, interleaved:
// mostly list_apps, with a 200-step compile and a maximal comparison every 20th
// call, and samples VmRSS after a tenth, half and all of them. It splits the
// resident memory into file-backed and anonymous right after initialize, before
// the peers are loaded with their answers, and after the last call.
func peerRSS(ctx context.Context, servers []server, loads []workload, calls int) ([]rssFigures, error) {
	figs := make([]rssFigures, len(servers))
	sessions := make([]session, len(servers))
	for i, s := range servers {
		cs, _, err := connect(ctx, s)
		if err != nil {
			return nil, err
		}
		defer cs.Close()
		sessions[i] = cs
		if figs[i].idle, err = residentSplit(cs.cmd.Process.Pid); err != nil {
			return nil, err
		}
	}
	for i, cs := range sessions {
		for _, p := range peerLoads {
			w := loads[p.index]
			if i == 0 {
				continue
			}
			answer, err := callAnswer(ctx, sessions[0], w)
			if err != nil {
				return nil, err
			}
			if err := loadPeer(ctx, cs, w, answer); err != nil {
				return nil, err
			}
		}
	}
	marks := []int{calls / 10, calls / 2, calls}
	for n := 1; n <= calls; n++ {
		w := loads[peerLoads[0].index]
		switch n % 20 {
		case 10:
			w = loads[peerLoads[1].index]
		case 0:
			w = loads[peerLoads[2].index]
		}
		for i, cs := range sessions {
			if err := call(ctx, cs, w); err != nil {
				return nil, err
			}
			if slices.Contains(marks, n) {
				rss, _, err := memoryOf(cs.cmd.Process.Pid)
				if err != nil {
					return nil, err
				}
				figs[i].samples = append(figs[i].samples, float64(rss)/(1<<20))
				figs[i].last = float64(rss) / (1 << 20)
				if n == calls {
					if figs[i].loaded, err = residentSplit(cs.cmd.Process.Pid); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	return figs, nil
}

// worstCall times the heaviest valid call n times on automium-mcp and on the
// peers, each given the same answer, and reports the argument and result sizes:
// SECURITY.md's figure for the worst valid call. The peers' times are what
// carrying that answer costs the go-sdk client and the transport alone.
func worstCall(ctx context.Context, servers []server, n int, out io.Writer) error {
	w, err := worstJourney()
	if err != nil {
		return err
	}
	sessions, err := connectAll(ctx, servers)
	if err != nil {
		return err
	}
	defer closeAll(sessions)
	answer, err := callAnswer(ctx, sessions[0], w)
	if err != nil {
		return err
	}
	if len(answer.structured) == 0 {
		return fmt.Errorf("%s: not a valid compile: no structured content", w.name)
	}
	result := sessions[0].last.get()
	for _, cs := range sessions[1:] {
		if err := loadPeer(ctx, cs, w, answer); err != nil {
			return err
		}
	}
	if err := checkAnswer(ctx, sessions, w, answer); err != nil {
		return err
	}
	latencies := make([][]time.Duration, len(servers))
	for i := range n {
		for k := range servers {
			j := (i + k) % len(servers)
			t := time.Now()
			if err := call(ctx, sessions[j], w); err != nil {
				return err
			}
			latencies[j] = append(latencies[j], time.Since(t))
		}
	}
	fmt.Fprintf(out, "\n## Worst valid call, %d calls each, interleaved\n\n", n)
	fmt.Fprintf(out, "%s: arguments %s, result %s.\n\n", w.name, kib(len(w.args)), kib(len(result)))
	fmt.Fprintf(out, "| server | p50 | min | max |\n|---|--:|--:|--:|\n")
	for j, s := range servers {
		fmt.Fprintf(out, "| %s | %s | %s | %s |\n", s.label, ms(quantile(latencies[j], 0.5)), ms(slices.Min(latencies[j])), ms(slices.Max(latencies[j])))
	}
	return nil
}

// cpuOf returns the CPU time the process pid has spent so far, summed over its
// threads from /proc/<pid>/task/*/schedstat, whose first field is the time on
// a CPU in nanoseconds: exact, where /proc/<pid>/stat counts 10 ms ticks. A Go
// server keeps the threads it starts, so no thread's time is lost between two
// readings.
func cpuOf(pid int) (time.Duration, error) {
	tasks, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/schedstat")
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("reading the server's CPU time (Linux /proc only): no /proc/%d/task/*/schedstat", pid)
	}
	var total time.Duration
	for _, path := range tasks {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the thread ended between the listing and the read
		}
		field, _, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
		ns, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("parsing %s: %w", path, err)
		}
		total += time.Duration(ns)
	}
	return total, nil
}
