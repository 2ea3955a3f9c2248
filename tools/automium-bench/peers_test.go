package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPeerServers: the validator peer joins the starts and the memory
// samples, not the calls, and its rows are automium-mcp ÷ it and it ÷ go-sdk;
// without it the comparison is the three servers it always was.
func TestPeerServers(t *testing.T) {
	type want struct {
		Calls, Starts         []string // label=path
		CallPairs, StartPairs []string // server ÷ peer
	}
	base := config{server: "am", sdkPeer: "sdk", floorPeer: "floor"}
	withValidator := base
	withValidator.validatorPeer = "vpeer"
	three := []string{"automium-mcp=am", "go-sdk=sdk", "floor=floor"}
	toSDKAndFloor := []string{"automium-mcp ÷ go-sdk", "automium-mcp ÷ floor"}
	for _, tc := range []struct {
		name string
		c    config
		want want
	}{
		{"go-sdk and floor", base, want{three, three, toSDKAndFloor, toSDKAndFloor}},
		{"and the validator peer", withValidator, want{three,
			append(three[:3:3], "go-sdk+validator=vpeer"), toSDKAndFloor,
			append(toSDKAndFloor[:2:2], "automium-mcp ÷ go-sdk+validator", "go-sdk+validator ÷ go-sdk")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := peerServers(tc.c)
			names := func(servers []server) []string {
				var s []string
				for _, x := range servers {
					s = append(s, x.label+"="+x.path)
				}
				return s
			}
			ratios := func(pairs []pair) []string {
				var s []string
				for _, p := range pairs {
					s = append(s, set.starts[p.num].label+" ÷ "+set.starts[p.den].label)
				}
				return s
			}
			got := want{names(set.calls), names(set.starts), ratios(set.callPairs()), ratios(set.startPairs())}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if set.starts[sdkPair.num].label != labelAutomium || set.starts[sdkPair.den].label != labelSDK {
				t.Errorf("the goals' pair is %v, not automium-mcp ÷ go-sdk", sdkPair)
			}
		})
	}
}

// TestRunPeerFlags: the peer flags that cannot go together are refused
// with exit code 2 and a line that says which go together, before anything
// starts; those that can pass on to the next check (here, the missing server).
func TestRunPeerFlags(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "automium-mcp")
	const together = "automium-bench: -sdk-peer and -floor-peer go together, and -peers-only and -validator-peer need them"
	noServer := "automium-bench: -server " + missing + ": " // the flags were accepted
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"validator peer alone", []string{"-validator-peer", "v"}, together},
		{"validator peer without the floor", []string{"-validator-peer", "v", "-sdk-peer", "s"}, together},
		{"floor without go-sdk", []string{"-floor-peer", "f"}, together},
		{"peers-only alone", []string{"-peers-only"}, together},
		{"go-sdk and floor", []string{"-sdk-peer", "s", "-floor-peer", "f"}, noServer},
		{"and the validator peer", []string{"-sdk-peer", "s", "-floor-peer", "f", "-validator-peer", "v"}, noServer},
		{"all of them, peers only", []string{"-sdk-peer", "s", "-floor-peer", "f", "-validator-peer", "v", "-peers-only"}, noServer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"-server", missing}, tc.args...), &stdout, &stderr)
			line, _, _ := strings.Cut(stderr.String(), "\n")
			type outcome struct {
				Code    int
				Refusal string // the first line, up to the length of the one wanted
			}
			if diff := cmp.Diff(outcome{2, tc.want}, outcome{code, line[:min(len(line), len(tc.want))]}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if stdout.Len() > 0 {
				t.Errorf("wrote to stdout: %q", stdout.String())
			}
		})
	}
}

// TestRunRefusesBadBinaries: a binary flag that names no executable, a
// script or the same file as another flag is refused with exit code 2 before
// anything starts. Before, the server's path alone was checked, and a bad
// peer failed only when the peer comparison started; a wrapper script was
// measured, so the CPU and memory rows were its shell's.
func TestRunRefusesBadBinaries(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string, mode os.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Binaries in name only: no test starts them.
	server := file("automium mcp", "\x7fELF", 0o755)
	sdk := file("sdkpeer", "\x7fELF", 0o755)
	floor := file("floorpeer", "\x7fELF", 0o755)
	script := file("wrapper", "#!/bin/sh\nexec sdkpeer\n", 0o755)
	plain := file("vpeer", "\x7fELF", 0o644)
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing validator peer", []string{"-validator-peer", missing}, "automium-bench: -validator-peer " + missing + ": stat "},
		{"a directory", []string{"-validator-peer", dir}, "automium-bench: -validator-peer " + dir + ": not an executable file; build it with: "},
		{"not executable", []string{"-validator-peer", plain}, "automium-bench: -validator-peer " + plain + ": not an executable file; build it with: "},
		{"a script", []string{"-validator-peer", script}, "automium-bench: -validator-peer " + script + ": a script"},
		{"missing floor", []string{"-floor-peer", missing}, "automium-bench: -floor-peer " + missing + ": stat "},
		{"the go-sdk peer twice", []string{"-validator-peer", sdk}, "automium-bench: -sdk-peer and -validator-peer are the same file"},
		{"the server as a peer", []string{"-floor-peer", server}, "automium-bench: -server and -floor-peer are the same file"},
		{"an empty server", []string{"-server", ""}, "automium-bench: -server : stat : no such file"},
		{"a missing server", []string{"-server", missing}, "automium-bench: -server " + missing + ": stat "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"-server", server, "-sdk-peer", sdk, "-floor-peer", floor, "-peers-only"}
			var stdout, stderr bytes.Buffer
			code := run(append(args, tc.args...), &stdout, &stderr)
			line, _, _ := strings.Cut(stderr.String(), "\n")
			type outcome struct {
				Code    int
				Refusal string
			}
			if diff := cmp.Diff(outcome{2, tc.want}, outcome{code, line[:min(len(line), len(tc.want))]}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if stdout.Len() > 0 {
				t.Errorf("wrote to stdout: %q", stdout.String())
			}
		})
	}
}

// TestConnectBoundsTheHandshake: a program that never answers initialize
// fails the start within -call-timeout, not -timeout, and says so.
func TestConnectBoundsTheHandshake(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	// The context has no deadline: only the call timeout can end the wait.
	_, _, err = connect(context.Background(), server{label: "silent", path: sh, args: []string{"-c", "while read -r line; do :; done"}, callTimeout: 50 * time.Millisecond})
	const want = "starting silent (" // then the path and the reason
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "no answer to initialize within 50ms (-call-timeout)") {
		t.Errorf("connect = %v, want an error about the initialize answer and -call-timeout", err)
	}
}
