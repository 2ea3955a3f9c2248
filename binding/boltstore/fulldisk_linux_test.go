package boltstore_test

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/boltstore"
	"github.com/automium/automium/binding/steptest"
)

const fullDiskEnv = "AUTOMIUM_BOLTSTORE_FULL_DISK_CHILD"

// TestFullDiskChild is the child of TestFailedCommitIsNotAStep: it opens the
// store at the path it is given, limits the size of any file it writes to
// the two meta pages (RLIMIT_FSIZE, as a full disk would refuse the data
// pages), and advances one run three times, printing each outcome.
func TestFullDiskChild(t *testing.T) {
	path := os.Getenv(fullDiskEnv)
	if path == "" {
		t.Skip("the full-disk test's child process")
	}
	s, err := boltstore.Open(path, nil)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 8192, Max: 8192}); err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	for range 3 {
		p, err := s.Position("run-1")
		if err != nil {
			fmt.Println("position error", codeOf(err))
			continue
		}
		ok, err := s.Advance("run-1", p, steptest.PlanA)
		switch {
		case err != nil:
			fmt.Println("advance error", codeOf(err))
		case ok:
			fmt.Println("advanced")
		default:
			fmt.Println("not advanced")
		}
	}
	os.Exit(0)
}

// TestFailedCommitIsNotAStep: on a disk that refuses the data pages, every
// Advance fails with state_unavailable, and none reports a step it did not
// record: what a restarted store reads is exactly the steps reported.
func TestFailedCommitIsNotAStep(t *testing.T) {
	if os.Getenv(fullDiskEnv) != "" || os.Getenv(childEnv) != "" {
		t.Skip("in a child")
	}
	path := filepath.Join(t.TempDir(), "steps.db")
	s := create(t, path)
	if ok, err := s.Advance("run-1", binding.Position{}, steptest.PlanA); !ok || err != nil {
		t.Fatal(ok, err)
	}
	s.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestFullDiskChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fullDiskEnv+"="+path)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var advanced, refused int
	for _, line := range strings.Split(string(out), "\n") {
		switch line {
		case "advanced":
			advanced++
		case "advance error " + string(binding.CodeStateUnavailable):
			refused++
		}
	}
	if refused == 0 {
		t.Fatalf("no Advance failed on the full disk; the test proves nothing:\n%s", out)
	}
	s = open(t, path)
	defer s.Close()
	if p, err := s.Position("run-1"); err != nil || p.Next != 1+advanced {
		t.Errorf("after the full disk: Position = %+v, %v; the child reported %d steps advanced besides the first", p, err, advanced)
	}
}
