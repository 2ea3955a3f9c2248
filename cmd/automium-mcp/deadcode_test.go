package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/automium/automium/internal/testsupport"
)

// reflectMethodMark is how the linker's -dumpdep output marks a function
// that calls reflect.Value.MethodByName (or Method) with a name it cannot
// see. One such reachable function makes the linker keep every exported
// method of every type that may be converted to an interface: dead-method
// elimination is off for the whole binary.
const reflectMethodMark = "<ReflectMethod>"

// reflectMethodCallers links the main package pkg with -ldflags=-dumpdep and
// the given tags and returns the first lines (at most 20) that carry
// reflectMethodMark. The dump is tens of megabytes, so it is read as a stream.
func reflectMethodCallers(t *testing.T, dir, pkg, tags string) []string {
	t.Helper()
	args := []string{"build", "-ldflags=-dumpdep", "-o", filepath.Join(t.TempDir(), "bin")}
	if tags != "" {
		args = append(args, "-tags="+tags)
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	dump, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var marked, tail []string
	sc := bufio.NewScanner(dump)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, reflectMethodMark) && len(marked) < 20 {
			marked = append(marked, line)
		}
		if !strings.Contains(line, " -> ") && len(tail) < 20 {
			tail = append(tail, line) // what is not a dependency edge: the go command's errors
		}
	}
	_, _ = io.Copy(io.Discard, dump)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, strings.Join(tail, "\n"))
	}
	return marked
}

// TestServerKeepsDeadMethodElimination links automium-mcp as the README
// builds it (testsupport.ServerBuildTags) and fails if any reachable
// function calls a method by a name only known at run time. When one does,
// the linker keeps every exported method of every type that may reach an
// interface, and the binary grows by megabytes: with go-playground/
// validator's validateFn rule linked in, 22.3 MB against 18.8 MB, with a
// start-up and a resident set to match (docs/performance.md). Running a
// text/template or html/template template in the server would do the same.
// It first checks on a small program that the linker still marks such a
// call, so that a change of the dump's format cannot make it pass unseen.
// It links twice (3 s on a quiet 2-core machine), so not under -short.
func TestServerKeepsDeadMethodElimination(t *testing.T) {
	if testing.Short() {
		t.Skip("links automium-mcp with -dumpdep; not under -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	probe := t.TempDir()
	src := "package main\n\nimport (\n\t\"os\"\n\t\"reflect\"\n)\n\ntype T struct{}\n\nfunc (T) M() {}\n\n" +
		"func main() { reflect.ValueOf(T{}).MethodByName(os.Args[0]) }\n"
	if err := os.WriteFile(filepath.Join(probe, "main.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(probe, "go.mod"), []byte("module probe\n\ngo 1.26\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := reflectMethodCallers(t, probe, ".", ""); len(got) == 0 {
		t.Fatalf("the linker's -dumpdep no longer marks a call of MethodByName with %s; this test would check nothing", reflectMethodMark)
	}
	if got := reflectMethodCallers(t, ".", ".", testsupport.ServerBuildTags); len(got) > 0 {
		t.Errorf("automium-mcp, built with -tags=%s, calls a method by a run-time name, which turns off the linker's dead-method elimination (a bigger binary, a slower start, more memory); the first marked edges:\n%s",
			testsupport.ServerBuildTags, strings.Join(got, "\n"))
	}
}
