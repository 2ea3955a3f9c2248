// Command playwright-export writes the Playwright Test specs that CI proves
// with the real tools (testdata/playwright-export/run.sh): the export of every
// reference journey in TypeScript and JavaScript, and a seeded batch of
// journeys with hostile names and values. Beside them, manifest.json lists
// each file with its spec digest and, for the hostile batch, the string
// literals the exporter wrote, in order, which the checker holds to what the
// TypeScript parser reads.
//
// Usage: go run ./tools/playwright-export -out DIR [-hostile N] [-seed S]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/jslex"
)

func main() {
	out := flag.String("out", "", "directory to write the specs into (created)")
	hostile := flag.Int("hostile", 64, "journeys with hostile names and values to export, in each language")
	seed := flag.Uint64("seed", 28, "seed of the hostile batch")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "playwright-export: -out is required")
		os.Exit(2)
	}
	if err := run(*out, *hostile, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "playwright-export:", err)
		os.Exit(1)
	}
}

// entry is one file of the manifest.
type entry struct {
	File          string   `json:"file"`
	JourneyID     string   `json:"journeyId"`
	JourneyDigest string   `json:"journeyDigest"`
	SpecDigest    string   `json:"specDigest"`
	Hostile       bool     `json:"hostile,omitempty"`
	Literals      []string `json:"literals,omitempty"`
	Injected      []string `json:"injected,omitempty"`
}

func run(out string, hostile int, seed uint64) error {
	ctx := context.Background()
	var manifest []entry
	write := func(dir string, in automium.ExportPlaywrightSpecInput, literals bool) error {
		spec, err := automium.ExportPlaywrightSpec(ctx, in)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(out, dir), 0o755); err != nil {
			return err
		}
		file := filepath.Join(dir, spec.FileName)
		if err := os.WriteFile(filepath.Join(out, file), []byte(spec.Spec), 0o644); err != nil {
			return err
		}
		e := entry{File: file, JourneyID: spec.JourneyID, JourneyDigest: spec.JourneyDigest, SpecDigest: spec.SpecDigest, Hostile: literals}
		if literals {
			if e.Literals, err = jslex.Literals(spec.Spec); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			e.Injected = injected(*in.Journey)
		}
		manifest = append(manifest, e)
		return nil
	}
	for _, lang := range []automium.Language{automium.LanguageTypeScript, automium.LanguageJavaScript} {
		for _, id := range automium.ReferenceJourneyIDs() {
			if err := write(string(lang), automium.ExportPlaywrightSpecInput{JourneyID: id, Language: lang}, false); err != nil {
				return err
			}
		}
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		for i := range hostile {
			j := hostileJourney(rng, i)
			if err := write("hostile-"+string(lang), automium.ExportPlaywrightSpecInput{Journey: &j, Language: lang}, true); err != nil {
				return err
			}
		}
	}
	data, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "manifest.json"), append(data, '\n'), 0o644)
}

// Pieces of hostile text. Line pieces may stand in a goal or an accessible
// name, which the journey's one-line rule admits; value pieces add what only
// values admit: controls, line and paragraph separators, format characters.
var (
	linePieces = []string{
		`'`, `"`, `\`, `\\`, "`", "${", "${x}", "`${process.exit(1)}`", "</script>", "<!--", "-->", "*/", "/*", "//",
		"');", "'); process.exit(1); ('", `\u0041`, `\x41`, `\'`, "\u00e9", "日本語", "עברית", "العربية", "😀", "𝔘",
		"$", "{", "}", "a", "Add to cart",
	}
	valuePieces = append(slices.Clone(linePieces),
		"\x00", "\n", "\r", "\r\n", "\t", "\x7f", "\u0085", "\u2028", "\u2029", "\u200b", "\u202e", "\ufeff", "\u2066", "\u00a0", " ", "  ")
)

// hostileJourney is reference journey i (cycling) with its goal, names and
// text values replaced by seeded hostile text.
func hostileJourney(rng *rand.Rand, i int) automium.CompileJourneyInput {
	ids := automium.ReferenceJourneyIDs()
	j, _ := automium.ReferenceJourney(ids[i%len(ids)])
	j.ID = fmt.Sprintf("hostile-%03d", i)
	text := func(pieces []string, sep string) string {
		var b strings.Builder
		for k := range 1 + rng.IntN(6) {
			if k > 0 {
				b.WriteString(sep)
			}
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	line := func() string { return text(linePieces, " ") }
	j.Goal = line()
	name := func(t *automium.Target) {
		if t != nil {
			t.Name = line()
		}
	}
	textIntents := map[automium.Intent]bool{"fill": true, "select_option": true, "finish": true}
	for k := range j.Steps {
		s := &j.Steps[k]
		name(s.Target)
		name(s.Destination)
		if textIntents[s.Intent] && (s.Value != "" || s.Intent != "finish") {
			s.Value = text(valuePieces, "")
		}
	}
	for k := range j.Assertions {
		a := &j.Assertions[k]
		name(a.Target)
		if a.Kind != "url_matches" && a.Value != "" {
			a.Value = text(valuePieces, "")
		}
	}
	return j
}

// injected lists the hostile text of a journey: its goal, names and values.
func injected(j automium.CompileJourneyInput) []string {
	out := []string{j.Goal}
	add := func(t *automium.Target) {
		if t != nil {
			out = append(out, t.Name)
		}
	}
	for _, s := range j.Steps {
		add(s.Target)
		add(s.Destination)
		// set_checked, scroll and switch_tab values become code, not text.
		if s.Value != "" && !slices.Contains([]automium.Intent{automium.IntentSetChecked, automium.IntentScroll, automium.IntentSwitchTab}, s.Intent) {
			out = append(out, s.Value)
		}
	}
	for _, a := range j.Assertions {
		add(a.Target)
		if a.Value != "" {
			out = append(out, a.Value)
		}
	}
	return out
}
