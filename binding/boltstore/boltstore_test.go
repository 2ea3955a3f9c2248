package boltstore_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/automium/automium"
	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/boltstore"
	"github.com/automium/automium/binding/steptest"
	"github.com/google/go-cmp/cmp"
)

func open(t *testing.T, path string) *boltstore.Store {
	t.Helper()
	s, err := boltstore.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func create(t *testing.T, path string) *boltstore.Store {
	t.Helper()
	s, err := boltstore.Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestContract holds the bbolt store to the StepStore contract.
func TestContract(t *testing.T) {
	steptest.Contract(t, func(t *testing.T) binding.StepStore {
		s := create(t, filepath.Join(t.TempDir(), "steps.db"))
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestSurvivesReopen: a position written, the file closed and opened again,
// is the position read; the compare-and-swap still holds against it.
func TestSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "steps.db")
	s := create(t, path)
	if ok, err := s.Advance("run-1", binding.Position{}, steptest.PlanA); !ok || err != nil {
		t.Fatalf("Advance = %v, %v", ok, err)
	}
	s.Close()
	s = open(t, path)
	defer s.Close()
	if p, err := s.Position("run-1"); err != nil || p != (binding.Position{PlanID: steptest.PlanA, Next: 1}) {
		t.Errorf("Position after reopening = %+v, %v", p, err)
	}
	if ok, err := s.Advance("run-1", binding.Position{}, steptest.PlanA); ok || err != nil {
		t.Errorf("replayed Advance after reopening = %v, %v; want false", ok, err)
	}
}

// TestRefusesBadInput: run IDs and plan IDs a key or value could not hold
// faithfully are errors, never stored.
func TestRefusesBadInput(t *testing.T) {
	s := create(t, filepath.Join(t.TempDir(), "steps.db"))
	defer s.Close()
	for name, call := range map[string]func() error{
		"empty run ID": func() error { _, err := s.Advance("", binding.Position{}, steptest.PlanA); return err },
		"huge run ID": func() error {
			_, err := s.Advance(strings.Repeat("r", 2000), binding.Position{}, steptest.PlanA)
			return err
		},
		"a run ID one byte too long": func() error {
			_, err := s.Advance(strings.Repeat("r", boltstore.MaxRunIDBytes+1), binding.Position{}, steptest.PlanA)
			return err
		},
		"plan not a digest":           func() error { _, err := s.Advance("run-1", binding.Position{}, "plan"); return err },
		"position of an empty run ID": func() error { _, err := s.Position(""); return err },
	} {
		if err := call(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if ok, err := s.Advance(strings.Repeat("r", boltstore.MaxRunIDBytes), binding.Position{}, steptest.PlanA); !ok || err != nil {
		t.Errorf("a run ID of exactly MaxRunIDBytes: %v, %v", ok, err)
	}
}

// TestSecondProcessCannotOpen: bbolt locks the file; a second Open of a held
// file fails after its lock timeout instead of sharing it unsafely.
func TestSecondProcessCannotOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "steps.db")
	s := create(t, path)
	defer s.Close()
	if s2, err := boltstore.Open(path, &boltstore.Options{LockTimeout: 50 * time.Millisecond}); err == nil {
		s2.Close()
		t.Fatal("a second Open of a held file succeeded")
	}
}

// The crash test's fixed plan: two steps on one server, issued by the parent
// and by every child alike (IssuePlan is deterministic).
var (
	issuedAt = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	server   = binding.ServerIdentity{Name: "synthetic-ui", Version: "v1.4.0"}
	schema   = `{"type":"object","properties":{"target":{"type":"string"}},"required":["target"],"additionalProperties":false}`
	catalog  = binding.Catalog{ProtocolVersion: "2025-11-25", Tools: []json.RawMessage{json.RawMessage(`{"name":"click","inputSchema":` + schema + `}`)}}
)

func fixture() ([]binding.Grant, binding.BrokerOptions, error) {
	policy, err := binding.Digest(map[string]string{"policy": "crash-test"})
	if err != nil {
		return nil, binding.BrokerOptions{}, err
	}
	grants, err := binding.IssuePlan(binding.Plan{
		Servers: []binding.PinnedServer{{Identity: server, Catalog: catalog}},
		RunID:   "run-crash", PolicyDigest: policy, Host: "vm-host-7", VMUUID: "5c0f5b2e-8a43-4c1b-9a55-2f6e1d7c9b10",
		IssuedAt: issuedAt, ExpiresAt: issuedAt.Add(10 * time.Minute),
		Steps: [][]binding.Call{
			{{Server: server, Tool: "click", Arguments: json.RawMessage(`{"target":"button:Sign in"}`)}},
			{{Server: server, Tool: "click", Arguments: json.RawMessage(`{"target":"button:Submit"}`)}},
		},
	}, nil)
	return grants, binding.BrokerOptions{RunID: "run-crash", PolicyDigest: policy, Host: "vm-host-7",
		VMUUID: "5c0f5b2e-8a43-4c1b-9a55-2f6e1d7c9b10", Now: func() time.Time { return issuedAt.Add(time.Minute) }}, err
}

func liveCall(g binding.Grant) binding.LiveCall {
	digest, _ := catalog.DigestV2()
	c := g.Candidates[0]
	return binding.LiveCall{Server: c.Server, CatalogDigest: digest, InputSchema: json.RawMessage(schema), Tool: c.Tool, Arguments: c.Arguments}
}

// pausingStore wraps a store and, at one point of Advance, tells the parent
// where it is and then waits forever, to be killed there.
type pausingStore struct {
	binding.StepStore
	at string // "before-commit" or "after-commit"
}

func (p pausingStore) Advance(runID string, from binding.Position, planID string) (bool, error) {
	if p.at == "before-commit" {
		pause("before-commit")
	}
	ok, err := p.StepStore.Advance(runID, from, planID)
	if p.at == "after-commit" {
		pause("after-commit")
	}
	return ok, err
}

func pause(where string) {
	fmt.Println("paused " + where)
	select {} // killed here
}

// childEnv names the child's mode; only the test binary reads it.
const childEnv = "AUTOMIUM_BOLTSTORE_CRASH_CHILD"

// TestCrashChild is the child process: a broker on the store at argv's path
// that authorizes the steps it is told to, printing each outcome, and, in a
// pausing mode, stops at the point it names. It does nothing in a normal run.
func TestCrashChild(t *testing.T) {
	mode := os.Getenv(childEnv)
	if mode == "" {
		t.Skip("the crash test's child process")
	}
	parts := strings.Split(mode, ";") // path;pause point or "";steps
	path, at, steps := parts[0], parts[1], strings.Split(parts[2], ",")
	store, err := boltstore.Open(path, nil)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	grants, opts, err := fixture()
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	opts.Steps = store
	if at != "" {
		opts.Steps = pausingStore{StepStore: store, at: at}
	}
	b, err := binding.NewBroker(opts)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	for _, s := range steps {
		var i int
		fmt.Sscan(s, &i)
		_, err := b.Authorize(grants[i], liveCall(grants[i]))
		var aerr *automium.Error
		switch {
		case err == nil:
			fmt.Printf("step %d authorized\n", i)
		case errors.As(err, &aerr):
			fmt.Printf("step %d %s\n", i, aerr.Code)
		default:
			fmt.Printf("step %d error %v\n", i, err)
		}
	}
	if at == "between-steps" {
		pause("between-steps")
	}
	store.Close()
	os.Exit(0)
}

// child runs the test binary as TestCrashChild and returns its output lines;
// when kill is set, it kills the child (SIGKILL, no cleanup of any kind) as
// soon as it prints that it paused, and returns what it printed until then.
func child(t *testing.T, path, at, steps string, kill bool) []string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+path+";"+at+";"+steps)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "=== RUN") || strings.HasPrefix(line, "PASS") || strings.HasPrefix(line, "ok") {
			continue
		}
		lines = append(lines, line)
		if kill && strings.HasPrefix(line, "paused ") {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	err = cmd.Wait()
	if kill {
		if err == nil {
			t.Fatalf("the child was to be killed, but exited cleanly: %q", lines)
		}
	} else if err != nil {
		t.Fatalf("child: %v: %q", err, lines)
	}
	return lines
}

// TestCrash kills a real broker process at the points of an authorization
// that matter, then starts another on the same file:
//
//   - after the step store's commit, before Authorize returns (so before any
//     dispatch): the step is consumed; replaying it is refused, and the plan
//     continues at the next step;
//   - before the commit: nothing was recorded and nothing could have been
//     sent, so the step is still usable, once;
//   - between two steps: the first stays consumed.
func TestCrash(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("in the child")
	}
	tests := []struct {
		name, at, steps string
		killed          []string // what the killed child printed
		after           []string // what the restarted broker says
	}{
		{"after the commit", "after-commit", "0", []string{"paused after-commit"},
			[]string{"step 0 grant_consumed", "step 1 authorized", "step 1 grant_consumed"}},
		{"before the commit", "before-commit", "0", []string{"paused before-commit"},
			[]string{"step 0 authorized", "step 0 grant_consumed", "step 1 authorized"}},
		{"between steps", "between-steps", "0", []string{"step 0 authorized", "paused between-steps"},
			[]string{"step 0 grant_consumed", "step 1 authorized", "step 0 grant_consumed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "steps.db")
			create(t, path).Close()
			if diff := cmp.Diff(tt.killed, child(t, path, tt.at, tt.steps, true)); diff != "" {
				t.Fatalf("the killed child printed (-want +got):\n%s", diff)
			}
			var replay []string
			for _, line := range tt.after {
				replay = append(replay, strings.Fields(line)[1])
			}
			got := child(t, path, "", strings.Join(replay, ","), false)
			if diff := cmp.Diff(tt.after, got); diff != "" {
				t.Errorf("the restarted broker (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNotLinkedByTheServer: neither the root package, binding, binding/dispatch
// nor the automium-mcp server links this package or bbolt.
func TestNotLinkedByTheServer(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	pkgs := []string{"github.com/automium/automium/cmd/automium-mcp", "github.com/automium/automium",
		"github.com/automium/automium/binding", "github.com/automium/automium/binding/dispatch"}
	// One go list for all four: each line is a package and everything it links.
	out, err := exec.Command(goTool, append([]string{"list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}"}, pkgs...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(pkgs) {
		t.Fatalf("go list gave %d lines for %d packages; the listing is broken:\n%s", len(lines), len(pkgs), out)
	}
	for i, line := range lines {
		pkg, deps := pkgs[i], strings.Fields(line)
		if deps[0] != pkg || !slices.Contains(deps, "runtime") {
			t.Fatalf("go list gave %.80q for %s; the listing is broken", line, pkg)
		}
		for _, dep := range deps[1:] {
			if dep == "github.com/automium/automium/binding/boltstore" || strings.HasPrefix(dep, "go.etcd.io/bbolt") {
				t.Errorf("%s links %s", pkg, dep)
			}
		}
	}
}
