package testsupport

import (
	"os"
	"path/filepath"
	"testing"
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
}
