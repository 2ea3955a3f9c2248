package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeSnippet returns the run: block of the README's GitHub Actions step,
// as lines, and the command that writes the baseline, as the README has them.
func readmeSnippet(t *testing.T) (run []string, baseline string) {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "```yaml\n- name: Playwright, then the Automium gate\n")
	if start < 0 {
		t.Fatal("README.md has no GitHub Actions step named \"Playwright, then the Automium gate\"")
	}
	block := readme[start:]
	block = block[:strings.Index(block[3:], "```")+3]
	_, body, ok := strings.Cut(block, "  run: |\n")
	if !ok {
		t.Fatalf("the README's step has no run: | block:\n%s", block)
	}
	for _, line := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		run = append(run, strings.TrimPrefix(line, "    "))
	}
	i := strings.Index(readme, "`automium compare --snapshot ")
	if i < 0 {
		t.Fatal("README.md does not say how to write the baseline")
	}
	baseline = readme[i+1:]
	baseline = baseline[:strings.IndexByte(baseline, '`')]
	return run, baseline
}

// TestReadmeCISnippet runs the README's CI step as written, in bash with
// GitHub's options (-eo pipefail), in a directory holding the checkout's
// Playwright fixture and a baseline written by the README's own baseline
// command. Two stand-ins replace what a runner has: npx playwright test
// prints the fixture report and fails as Playwright does when a test
// failed, and go install puts the binary under test on PATH. The step must
// succeed and write the Markdown summary to $GITHUB_STEP_SUMMARY and the
// HTML report beside it.
func TestReadmeCISnippet(t *testing.T) {
	bin, err := buildBin()
	if err != nil {
		t.Fatal(err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	run, baseline := readmeSnippet(t)
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools")
	gobin := filepath.Join(dir, "gobin")
	work := filepath.Join(dir, "work")
	for _, d := range []string{tools, gobin, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shim := func(name, body string) {
		if err := os.WriteFile(filepath.Join(tools, name), []byte("#!"+bash+"\nset -eu\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shim("npx", fmt.Sprintf(`[ "$*" = "playwright test --reporter=json" ] || { echo "npx stand-in: unexpected arguments: $*" >&2; exit 3; }
cat %q
exit 1
`, fixture(t)))
	shim("go", fmt.Sprintf(`[ "$*" = "install github.com/automium/automium/cmd/automium@latest" ] || { echo "go stand-in: unexpected arguments: $*" >&2; exit 3; }
[ "${CGO_ENABLED:-}" = 0 ] || { echo "go stand-in: CGO_ENABLED is not 0" >&2; exit 3; }
cp %q %q
`, bin, filepath.Join(gobin, "automium")))
	summary := filepath.Join(dir, "step-summary.md")
	env := append(os.Environ(), "PATH="+tools+string(os.PathListSeparator)+gobin+string(os.PathListSeparator)+os.Getenv("PATH"), "GITHUB_STEP_SUMMARY="+summary)

	// The baseline, from the same report, as the README says to write it.
	setup := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c",
		"npx playwright test --reporter=json > report.json || true\nCGO_ENABLED=0 go install github.com/automium/automium/cmd/automium@latest\n"+baseline+" >/dev/null")
	setup.Dir, setup.Env = work, env
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", baseline, err, out)
	}
	if err := os.Remove(filepath.Join(gobin, "automium")); err != nil {
		t.Fatal(err)
	}

	step := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", strings.Join(run, "\n"))
	step.Dir, step.Env = work, env
	out, err := step.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's step failed: %v\n%s\nstep:\n%s", err, out, strings.Join(run, "\n"))
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## ", "`baseline`", "`challenger`"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the job summary lacks %q:\n%s", want, md)
		}
	}
	if fi, err := os.Stat(filepath.Join(work, "automium-report.html")); err != nil || fi.Size() == 0 {
		t.Errorf("no HTML report beside the summary: %v", err)
	}
}
