package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

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
	const noServer = "automium-bench: no server at " // the flags were accepted
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
