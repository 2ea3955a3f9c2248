package testsupport

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBuildKeyFollowsSources: the cached binary's name changes with the
// flags and with any source file of the package or a package it imports, and
// only then, so a stale binary is never run.
func TestBuildKeyFollowsSources(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.27\n")
	write("lib/lib.go", "package lib\n\nfunc F() int { return 1 }\n")
	write("main.go", "package main\n\nimport \"example.com/m/lib\"\n\nfunc main() { println(lib.F()) }\n")
	t.Chdir(dir)
	key := func(flags ...string) string {
		t.Helper()
		k, err := buildKey("example.com/m", flags)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	first := key()
	if again := key(); again != first {
		t.Errorf("the same sources gave keys %s and %s", first, again)
	}
	if k := key("-trimpath"); k == first {
		t.Error("another flag gave the same key")
	}
	write("lib/lib.go", "package lib\n\nfunc F() int { return 2 }\n")
	if k := key(); k == first {
		t.Error("a changed imported file gave the same key")
	}
	// A file behind a build tag counts when the build passes the tag, and
	// only then. Before, go list ran without the flags, so a change to such
	// a file kept the stale binary's name.
	write("lib/tagged.go", "//go:build tagged\n\npackage lib\n\nvar G = 1\n")
	untagged, tagged := key(), key("-tags=tagged")
	write("lib/tagged.go", "//go:build tagged\n\npackage lib\n\nvar G = 2\n")
	if k := key("-tags=tagged"); k == tagged {
		t.Error("a changed file behind the build's tag gave the same key")
	}
	if k := key(); k != untagged {
		t.Error("a changed file behind a tag the build does not pass changed the key")
	}
	// The environment that changes the binary counts as the flags do.
	for _, env := range [][2]string{{"GOEXPERIMENT", "jsonv2"}, {"GOAMD64", "v3"}} {
		t.Run(env[0], func(t *testing.T) {
			t.Setenv(env[0], env[1])
			if k := key(); k == untagged {
				t.Errorf("%s=%s gave the same key", env[0], env[1])
			}
		})
	}
}

// TestPruneUnused: binaries unused since the cutoff go, the rest stay.
func TestPruneUnused(t *testing.T) {
	dir := t.TempDir()
	cutoff := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	files := []struct {
		name string
		used time.Time
		kept bool
	}{
		{"automium-mcp-old", cutoff.Add(-time.Hour), false},
		{".build-died", cutoff.Add(-time.Minute), false},
		{"automium-mcp-new", cutoff.Add(time.Hour), true},
		{"automium-recent", cutoff, true},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, nil, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, f.used, f.used); err != nil {
			t.Fatal(err)
		}
	}
	pruneUnused(dir, cutoff)
	var want, got []string
	for _, f := range files {
		if f.kept {
			want = append(want, f.name)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		got = append(got, e.Name())
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
}
