package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgressOnlyOnATerminal: a long read shows progress on standard error
// when it is a terminal, ending its line before anything else is written,
// and nothing when it is not; standard output is the same either way.
func TestProgressOnlyOnATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 40 MiB report")
	}
	pw, err := os.ReadFile(fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	// The fixture with 40 strings of 1 MiB in its config, which the reader
	// reads through and skips.
	name := filepath.Join(t.TempDir(), "long.json")
	pad := `"pad": [` + strings.Repeat(`"`+strings.Repeat("a", 1<<20-4)+`", `, 39) + `"a"], `
	data := bytes.Replace(pw, []byte(`"config": {`), []byte(`"config": {`+pad), 1)
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var outs [2]string
	for i, terminal := range []bool{true, false} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"compare", name}, &stdout, &stderr, terminal); code != exitPass {
			t.Fatalf("terminal %v: exit %d: %s", terminal, code, stderr.String())
		}
		outs[i] = stdout.String()
		switch got := stderr.String(); {
		case terminal && (!strings.HasPrefix(got, "\rautomium: reading ") || !strings.Contains(got, "32 MiB of 39 MiB") || !strings.HasSuffix(got, "\n")):
			t.Errorf("on a terminal, stderr is %q; want progress ending its line", got)
		case !terminal && got != "":
			t.Errorf("not on a terminal, stderr is %q; want nothing", got)
		}
	}
	if outs[0] != outs[1] {
		t.Error("standard output differs with progress")
	}
}
