package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestRunRefusesNonLoopback: the fixture serves anyone who reaches its port
// with the token added, so it must not listen beyond loopback.
func TestRunRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0", "localhost:0", "[::]:0", "127.0.0.1"} {
		t.Run(addr, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := run([]string{"-http", addr}, &stderr); code != 2 {
				t.Errorf("run -http %s: exit %d, want 2; stderr %q", addr, code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "loopback") {
				t.Errorf("stderr %q does not say why", stderr.String())
			}
		})
	}
}
