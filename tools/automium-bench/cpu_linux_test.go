package main

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCPUOf: the CPU time of a live process is its threads' time on a CPU,
// which getrusage brackets (the Go runtime keeps its threads, so no exited
// thread's time is missing); a process already reaped is an error that says
// what was read, not a zero that would make a ratio infinite.
func TestCPUOf(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	rusage := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			t.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	before := rusage()
	got, err := cpuOf(os.Getpid())
	after := rusage()
	// getrusage scales its tick counts to the same runtime; the margin is
	// its rounding.
	if err != nil || got < before/2 || got > after+time.Millisecond {
		t.Errorf("cpuOf(self) = %v, %v; getrusage says %v to %v", got, err, before, after)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	if got, err := cpuOf(cmd.Process.Pid); err == nil || !strings.Contains(err.Error(), "schedstat") {
		t.Errorf("cpuOf(a reaped process) = %v, %v; want an error naming schedstat", got, err)
	}
}
