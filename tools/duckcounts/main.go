// Command duckcounts runs the SQL of docs/scale.md on a real DuckDB: it
// generates a table of trials (one row per attempt), aggregates it into
// automium-counts-v1 rows with counts.sql, and compares the planners from
// those counts. With -check (at most MaxObservedTrials runs), it also reads the
// same table back as trials, one per run, feeds them to the comparison
// directly, and fails unless the two reports are the same bytes (latency
// aside: counts carry none) and the pairs are the trials' own.
//
// It is a module of its own, so that the library never links cgo: DuckDB's Go
// bindings link its static C++ library.
//
//	cd tools/duckcounts && CGO_ENABLED=1 go run . -runs 100000 -check
//	cd tools/duckcounts && CGO_ENABLED=1 go run . -runs 10000000
package main

import (
	"bytes"
	"context"
	"database/sql"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/automium/automium"
	_ "github.com/duckdb/duckdb-go/v2"
)

//go:embed counts.sql
var countsSQL string

//go:embed generate.sql
var generateSQL string

// fixtures are the fixture of each app the generated trials use, for the
// trials fed directly (a trial names its fixture; counts do not).
var fixtures = map[string]string{"storefront": "storefront-guest-catalog", "docs-portal": "docs-portal-current-release"}

func main() {
	runs := flag.Int("runs", 100_000, "runs to generate")
	planners := flag.Int("planners", 4, "planners")
	journeys := flag.Int("journeys", 0, "journeys (0: runs/planners/25 up to 100,000 runs, then runs/planners/200)")
	seed := flag.Int("seed", 38, "seed of the generated table")
	check := flag.Bool("check", false, "also feed the trials directly and require the same report")
	snapshot := flag.String("snapshot", "", "write the counts snapshot to this file")
	flag.Parse()
	if err := run(*runs, *planners, *journeys, *seed, *check, *snapshot); err != nil {
		fmt.Fprintln(os.Stderr, "duckcounts:", err)
		os.Exit(1)
	}
}

func run(runs, planners, journeys, seed int, check bool, snapshotFile string) error {
	if journeys == 0 {
		reps := 25
		if runs > 100_000 {
			reps = 200
		}
		journeys = max(1, runs/planners/reps)
	}
	if runs < 1 || planners < 1 || planners > 16 || journeys < 1 || seed < 0 {
		return errors.New("runs, planners (1 to 16), journeys and seed must be positive")
	}
	ctx := context.Background()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	var version string
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&version); err != nil {
		return err
	}
	fmt.Printf("DuckDB %s; %d runs, %d planners, %d journeys, seed %d\n", version, runs, planners, journeys, seed)

	if _, err := db.ExecContext(ctx, "SET threads = 2; SET memory_limit = '2GB'; SET preserve_insertion_order = false"); err != nil {
		return err
	}
	start, cpu := time.Now(), cpuTime()
	gen := strings.NewReplacer("$runs", strconv.Itoa(runs), "$planners", strconv.Itoa(planners),
		"$journeys", strconv.Itoa(journeys), "$seed", strconv.Itoa(seed)).Replace(generateSQL)
	if _, err := db.ExecContext(ctx, gen); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	var attempts int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM trials").Scan(&attempts); err != nil {
		return err
	}
	generated := phase(&start, &cpu)
	counts, err := aggregate(ctx, db)
	if err != nil {
		return err
	}
	aggregated := phase(&start, &cpu)
	refs := make([]automium.PlannerRef, planners)
	for p := range refs {
		refs[p] = automium.PlannerRef{ID: fmt.Sprintf("planner-%d", p), Vendor: "generated", Model: "duckcounts"}
	}
	snap, err := automium.NewCountsSnapshot(automium.CorpusVersion, refs, counts)
	if err != nil {
		return fmt.Errorf("the counts DuckDB wrote: %w", err)
	}
	snapshotted := phase(&start, &cpu)
	fromCounts, err := automium.CompareObservedTrials(ctx, automium.CompareObservedTrialsInput{Rows: automium.RowSelection{All: true},
		CorpusVersion: snap.CorpusVersion, Planners: snap.Planners, Counts: snap.Counts})
	if err != nil {
		return err
	}
	compared := phase(&start, &cpu)
	fmt.Printf("generated %d attempt rows: %s\naggregated into %d counts rows (counts.sql): %s\nsnapshot (checked, sorted, digested): %s\ncompared from counts: %s\n",
		attempts, generated, len(counts), aggregated, snapshotted, compared)
	for _, pr := range fromCounts.Pairs {
		fmt.Printf("  %s vs %s: %s, difference %.4f [%.4f, %.4f] over %d journeys\n",
			pr.PlannerA, pr.PlannerB, pr.Verdict, pr.MeanDifference, pr.Difference95.Lower, pr.Difference95.Upper, pr.SharedJourneys)
	}
	if snapshotFile != "" {
		var b bytes.Buffer
		if err := automium.WriteCountsSnapshot(&b, snap); err != nil {
			return err
		}
		if err := os.WriteFile(snapshotFile, b.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Printf("snapshot: %d bytes, %s\n", b.Len(), snap.Digest)
	}
	if !check {
		return nil
	}

	trials, err := readTrials(ctx, db)
	if err != nil {
		return err
	}
	in := automium.CompareObservedTrialsInput{Rows: automium.RowSelection{All: true}, CorpusVersion: automium.CorpusVersion, Planners: refs, Trials: trials}
	direct, err := automium.CompareObservedTrials(ctx, in)
	if err != nil {
		return fmt.Errorf("the trials fed directly: %w", err)
	}
	for i := range in.Trials {
		in.Trials[i].LatencyUnknown, in.Trials[i].LatencyMs = true, 0
	}
	withoutLatency, err := automium.CompareObservedTrials(ctx, in)
	if err != nil {
		return err
	}
	got, want := mustJSON(fromCounts), mustJSON(withoutLatency)
	if !bytes.Equal(got, want) {
		return fmt.Errorf("the report from DuckDB's counts (%d bytes) differs from the trials' (%d bytes)", len(got), len(want))
	}
	if !bytes.Equal(mustJSON(fromCounts.Pairs), mustJSON(direct.Pairs)) {
		return errors.New("the pairs from DuckDB's counts differ from the trials' own")
	}
	fmt.Printf("check: %d trials fed directly give the same report, %d bytes, and the same pairs: %s\n",
		len(trials), len(got), phase(&start, &cpu))
	return nil
}

// aggregate runs counts.sql.
func aggregate(ctx context.Context, db *sql.DB) ([]automium.JourneyCounts, error) {
	rows, err := db.QueryContext(ctx, countsSQL)
	if err != nil {
		return nil, fmt.Errorf("counts.sql: %w", err)
	}
	defer rows.Close()
	var out []automium.JourneyCounts
	for rows.Next() {
		var c automium.JourneyCounts
		var n [9]int64
		if err := rows.Scan(&c.PlannerID, &c.AppID, &c.JourneyID, &n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6], &n[7], &n[8]); err != nil {
			return nil, err
		}
		c.Runs, c.Passes, c.FirstAttemptPasses, c.NotEvaluable = int(n[0]), int(n[1]), int(n[2]), int(n[3])
		c.InputTokens, c.OutputTokens, c.TokensUnknown = int(n[4]), int(n[5]), int(n[6])
		c.RecoveryTriggered, c.Recovered = int(n[7]), int(n[8])
		out = append(out, c)
	}
	return out, rows.Err()
}

// readTrials reads the attempts back as automium trials, one per run, in Go
// and without counts.sql: an attempt row's status, tokens and recovery make
// its run's outcome as the Trial type documents it.
func readTrials(ctx context.Context, db *sql.DB) ([]automium.Trial, error) {
	rows, err := db.QueryContext(ctx, `SELECT planner_id, app_id, journey_id, run_id, attempt, status, latency_ms,
		input_tokens, output_tokens, recovery_triggered, recovered FROM trials ORDER BY run_id, attempt`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []automium.Trial
	reps := map[string]int{}
	lastRun := int64(-1)
	for rows.Next() {
		var (
			planner, app, journey, status string
			runID, latency                int64
			attempt                       int
			in, outTokens                 sql.NullInt64
			triggered, recovered          bool
		)
		if err := rows.Scan(&planner, &app, &journey, &runID, &attempt, &status, &latency, &in, &outTokens, &triggered, &recovered); err != nil {
			return nil, err
		}
		if runID != lastRun {
			lastRun = runID
			key := planner + "\x00" + journey
			reps[key]++
			out = append(out, automium.Trial{PlannerID: planner, AppID: app, FixtureID: fixtures[app], JourneyID: journey, Repetition: reps[key], Recovered: true})
		}
		t := &out[len(out)-1]
		t.Attempts = attempt
		t.LatencyMs += int(latency)
		t.Passed, t.NotEvaluable = status == "passed", status == "error"
		if in.Valid && outTokens.Valid && !t.TokensUnknown {
			t.InputTokens += int(in.Int64)
			t.OutputTokens += int(outTokens.Int64)
		} else {
			t.TokensUnknown, t.InputTokens, t.OutputTokens = true, 0, 0
		}
		t.RecoveryTriggered = t.RecoveryTriggered || triggered
		t.Recovered = t.Recovered && (!triggered || recovered)
	}
	for i := range out {
		out[i].Recovered = out[i].Recovered && out[i].RecoveryTriggered
		if out[i].Attempts == 1 {
			out[i].Attempts = 0
		}
	}
	return out, rows.Err()
}

// cpuTime is the process's CPU time so far, user and system: on a shared
// machine it says more than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// phase says how long the phase since *start took, wall and CPU, and starts
// the next.
func phase(start *time.Time, cpu *time.Duration) string {
	now, c := time.Now(), cpuTime()
	s := fmt.Sprintf("%v wall, %v CPU", now.Sub(*start).Round(time.Millisecond), (c - *cpu).Round(time.Millisecond))
	*start, *cpu = now, c
	return s
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
