package safetytest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The promise page is for a person: short sentences, short cells, and a test
// behind every promise. Figures live in docs/security.md, which the tests that
// measure them keep, so a change in the code does not make this page stale.
const (
	securityPageMaxLines         = 150
	securityPageMaxSentenceWords = 25
	securityPageMaxCellWords     = 40
)

// testNamePattern is how the page names a Go test, fuzz target or benchmark.
var testNamePattern = regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark)[A-Z0-9]\w*`)

// TestSecurityPageIsReadable holds SECURITY.md to its readability figures and
// every row of its tables to a test that exists in the module.
func TestSecurityPageIsReadable(t *testing.T) {
	page, err := os.ReadFile(filepath.Join(repoRoot, "SECURITY.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range securityPageProblems(string(page), definedTests(t)) {
		t.Error(p)
	}
}

// TestSecurityPageRulesCatch runs the rules on a page that breaks each one.
func TestSecurityPageRulesCatch(t *testing.T) {
	long := strings.Repeat("word ", securityPageMaxSentenceWords+1) + "end."
	cell := strings.Repeat("a. ", securityPageMaxCellWords+1)
	page := "# Title\n\n" + long + "\n\n| Promise | Proved by |\n|---|---|\n" +
		"| A promise with no test. | nothing here |\n" +
		"| A promise. | `TestDoesNotExist` |\n" +
		"| " + cell + " | `TestKnown` |\n" + strings.Repeat("filler\n", securityPageMaxLines)
	got := securityPageProblems(page, map[string]bool{"TestKnown": true})
	wants := []string{"lines", "sentence of 27 words", "names no test", "TestDoesNotExist", "cell of"}
	for _, w := range wants {
		found := false
		for _, p := range got {
			found = found || strings.Contains(p, w)
		}
		if !found {
			t.Errorf("no problem mentions %q; got %q", w, got)
		}
	}
}

// securityPageProblems returns what keeps page from being the page a person
// reads: too long, a long sentence or cell, or a promise without a test that
// exists (tests is the set of defined test names).
func securityPageProblems(page string, tests map[string]bool) []string {
	var problems []string
	lines := strings.Split(strings.TrimRight(page, "\n"), "\n")
	if len(lines) > securityPageMaxLines {
		problems = append(problems, "SECURITY.md has "+itoa(len(lines))+" lines; at most "+itoa(securityPageMaxLines))
	}
	for i, line := range lines {
		where := "SECURITY.md:" + itoa(i+1)
		if !strings.HasPrefix(line, "|") {
			problems = append(problems, longSentences(where, line)...)
			continue
		}
		if strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| Promise |") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		for _, c := range cells {
			if n := len(strings.Fields(c)); n > securityPageMaxCellWords {
				problems = append(problems, where+": a cell of "+itoa(n)+" words; at most "+itoa(securityPageMaxCellWords))
			}
			problems = append(problems, longSentences(where, c)...)
		}
		last := cells[len(cells)-1]
		names := testNamePattern.FindAllString(last, -1)
		if len(names) == 0 && !strings.Contains(last, ".ci/run") && !strings.Contains(last, "run.sh") {
			problems = append(problems, where+": the promise names no test")
		}
		for _, n := range names {
			if !tests[n] {
				problems = append(problems, where+": "+n+" is not a test, fuzz target or benchmark of the module")
			}
		}
	}
	return problems
}

// longSentences reports the sentences of text over the word limit. Code spans
// count as one word each, as a reader takes them in.
func longSentences(where, text string) []string {
	var out []string
	text = regexp.MustCompile("`[^`]*`").ReplaceAllString(text, "code")
	for _, s := range regexp.MustCompile(`[.!?:;](\s|$)`).Split(text, -1) {
		if n := len(strings.Fields(s)); n > securityPageMaxSentenceWords {
			out = append(out, where+": a sentence of "+itoa(n)+" words; at most "+itoa(securityPageMaxSentenceWords))
		}
	}
	return out
}

// definedTests returns the names of every test, fuzz target and benchmark
// defined in the module's Go files.
func definedTests(t *testing.T) map[string]bool {
	t.Helper()
	defined := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w*)\(`)
	names := map[string]bool{}
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range defined.FindAllSubmatch(b, -1) {
			names[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func itoa(n int) string { return strconv.Itoa(n) }
