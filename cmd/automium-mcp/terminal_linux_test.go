package main

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/automium/automium/internal/testsupport"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair: the terminal side is what a person's
// shell gives a program as stdin.
func openPTY(t *testing.T) (controller, terminal *os.File) {
	t.Helper()
	controller, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { controller.Close() })
	fd := int(controller.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	terminal, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { terminal.Close() })
	return controller, terminal
}

// TestTerminalHint: the hint that the server waits for a client is for a person
// at a terminal. /dev/null is a character device but not a terminal, and a
// client that gives it as stdin must see a silent, clean exit.
func TestTerminalHint(t *testing.T) {
	t.Run("/dev/null", func(t *testing.T) {
		devNull, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer devNull.Close()
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(binary)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = devNull, &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v; stderr %q", err, stderr.String())
		}
		if stdout.Len() != 0 || stderr.Len() != 0 {
			t.Errorf("stdout %q, stderr %q; want both empty", stdout.String(), stderr.String())
		}
	})
	t.Run("terminal", func(t *testing.T) {
		_, terminal := openPTY(t)
		var stderr testsupport.LockedBuffer
		cmd := exec.Command(binary)
		cmd.Stdin, cmd.Stderr = terminal, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		for i := 0; !strings.Contains(stderr.String(), "waits for a client"); i++ {
			if i == 1000 {
				t.Fatalf("no hint on stderr 10 s after starting on a terminal: %q", stderr.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}
