package automium

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/automium/automium/internal/closedset"
	"github.com/automium/automium/internal/jslex"
	"github.com/automium/automium/internal/limit"
)

// exportOf exports in, failing the test on an error.
func exportOf(t *testing.T, in ExportPlaywrightSpecInput) PlaywrightSpec {
	t.Helper()
	spec, err := ExportPlaywrightSpec(context.Background(), in)
	if err != nil {
		t.Fatalf("ExportPlaywrightSpec: %v", err)
	}
	return spec
}

// TestExportMapsEveryIntent holds the documented mapping (docs/playwright-export.md)
// of every intent and assertion kind to the line it writes, and the table to
// the vocabulary: an intent or kind added without a mapping fails here.
func TestExportMapsEveryIntent(t *testing.T) {
	btn := &Target{Role: "button", Name: "Save"}
	box := &Target{Role: "textbox", Name: "Title"}
	steps := []struct {
		app, fixture string
		step         Step
		want         []string
	}{
		{"storefront", "storefront-guest-catalog", Step{Intent: "navigate", Value: "/search?q=kettle"}, []string{"await page.goto('/search?q=kettle');"}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "go_back"}, []string{"await page.goBack();"}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "click", Target: btn}, []string{"await page.getByRole('button', { name: 'Save', exact: true }).click();"}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "fill", Target: box, Value: "Kettle"}, []string{"await page.getByRole('textbox', { name: 'Title', exact: true }).fill('Kettle');"}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "select_option", Target: &Target{Role: "combobox", Name: "Size"}, Value: "Large"}, []string{"await page.getByRole('combobox', { name: 'Size', exact: true }).selectOption({ label: 'Large' });"}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "set_checked", Target: &Target{Role: "checkbox", Name: "Gift"}, Value: "false"}, []string{"await page.getByRole('checkbox', { name: 'Gift', exact: true }).setChecked(false);"}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "press_key", Value: "Control+A"}, []string{"await page.keyboard.press('Control+A');"}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "press_key", Target: box, Value: "Enter"}, []string{"await page.getByRole('textbox', { name: 'Title', exact: true }).press('Enter');"}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "hover", Target: btn}, []string{"await page.getByRole('button', { name: 'Save', exact: true }).hover();"}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "scroll", Value: "bottom"}, []string{"await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' }));"}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "scroll", Target: &Target{Role: "grid", Name: "Log"}, Value: "up"}, []string{"await page.getByRole('grid', { name: 'Log', exact: true }).evaluate((element) => element.scrollBy({ top: -element.clientHeight, behavior: 'instant' }));"}},
		{"helpdesk", "helpdesk-agent-queue", Step{Intent: "upload_file", Target: &Target{Role: "button", Name: "Attach files"}, Value: "fixture-file://helpdesk/screenshots/refund-receipt.png"}, []string{
			"import { fixtureFile } from './automium-fixture-files';",
			"const chooser = page.waitForEvent('filechooser');",
			"await page.getByRole('button', { name: 'Attach files', exact: true }).click();",
			"await (await chooser).setFiles(await fixtureFile('fixture-file://helpdesk/screenshots/refund-receipt.png'));",
		}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "handle_dialog", Value: "dismiss"}, []string{
			"const dialogAnswers = ['dismiss'];",
			"page.context().on('dialog', (dialog) => {",
			"await expect.poll(() => dialogsAnswered, { message: 'dialog 1 of the journey answered' }).toBeGreaterThanOrEqual(1);",
		}},
		{"admin-console", "admin-console-usage-reports", Step{Intent: "switch_tab", Value: "latest"}, []string{
			"page = page.context().pages()[page.context().pages().length - 1];", "await page.bringToFront();",
		}},
		{"admin-console", "admin-console-usage-reports", Step{Intent: "switch_tab", Value: "opener"}, []string{"const opener = await page.opener();", "page = opener;"}},
		{"admin-console", "admin-console-usage-reports", Step{Intent: "switch_tab", Value: "2"}, []string{
			"await expect.poll(() => page.context().pages().length, { message: 'tab 2 open' }).toBeGreaterThan(2);", "page = page.context().pages()[2];",
		}},
		{"kanban", "kanban-sprint-board", Step{Intent: "drag_drop", Target: &Target{Role: "listitem", Name: "Card"}, Destination: &Target{Role: "region", Name: "Done"}}, []string{
			"await page.getByRole('listitem', { name: 'Card', exact: true }).dragTo(page.getByRole('region', { name: 'Done', exact: true }));",
		}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "wait_for", Target: btn}, []string{"await expect(page.getByRole('button', { name: 'Save', exact: true })).toBeVisible();"}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "extract", Target: &Target{Role: "cell", Name: "Total"}}, []string{
			"const text = await page.getByRole('cell', { name: 'Total', exact: true }).innerText();",
			"await test.info().attach('step-1 extract', { body: text, contentType: 'text/plain' });",
		}},
		{"storefront", "storefront-guest-catalog", Step{Intent: "finish", Value: "42"}, []string{"await test.info().attach('step-1 answer', { body: '42', contentType: 'text/plain' });"}},
	}
	cell := &Target{Role: "cell", Name: "Total"}
	asserts := []struct {
		a    Assertion
		want string
	}{
		{Assertion{Kind: "url_matches", Value: "/cart"}, "await expect(page).toHaveURL('/cart');"},
		{Assertion{Kind: "title_contains", Value: "Cart"}, "await expect.poll(() => page.title()).toContain('Cart');"},
		{Assertion{Kind: "text_visible", Value: "Saved"}, "await expect(page.locator('body')).toContainText('Saved', { useInnerText: true });"},
		{Assertion{Kind: "element_visible", Target: cell}, "await expect(page.getByRole('cell', { name: 'Total', exact: true })).toBeVisible();"},
		{Assertion{Kind: "element_hidden", Target: cell}, "await expect(page.getByRole('cell', { name: 'Total', exact: true })).toBeHidden();"},
		{Assertion{Kind: "element_checked", Target: &Target{Role: "switch", Name: "On"}}, "await expect(page.getByRole('switch', { name: 'On', exact: true })).toBeChecked();"},
		{Assertion{Kind: "element_value", Target: box, Value: "x"}, "await expect(page.getByRole('textbox', { name: 'Title', exact: true })).toHaveValue('x');"},
		{Assertion{Kind: "element_text", Target: cell, Value: "$4"}, "await expect(page.getByRole('cell', { name: 'Total', exact: true })).toHaveText('$4', { useInnerText: true });"},
	}
	var intents, kinds []string
	for _, c := range steps {
		intents = append(intents, string(c.step.Intent))
		j := CompileJourneyInput{ID: "mapping", AppID: c.app, FixtureID: c.fixture, Goal: "Map one intent",
			Steps: []Step{c.step}, Assertions: []Assertion{{Kind: "text_visible", Value: "ok"}}}
		spec := exportOf(t, ExportPlaywrightSpecInput{Journey: &j})
		for _, want := range c.want {
			if !strings.Contains(spec.Spec, want+"\n") {
				t.Errorf("%s: the spec has no line %q:\n%s", c.step.Intent, want, spec.Spec)
			}
		}
	}
	for _, c := range asserts {
		kinds = append(kinds, string(c.a.Kind))
		j := CompileJourneyInput{ID: "mapping", AppID: "storefront", FixtureID: "storefront-guest-catalog", Goal: "Map one assertion",
			Steps: []Step{{Intent: "navigate", Value: "/"}}, Assertions: []Assertion{c.a}}
		if spec := exportOf(t, ExportPlaywrightSpecInput{Journey: &j}); !strings.Contains(spec.Spec, c.want+"\n") {
			t.Errorf("%s: the spec has no line %q:\n%s", c.a.Kind, c.want, spec.Spec)
		}
	}
	if diff := cmp.Diff(closedset.Strings(Intents()), slices.Compact(slices.Sorted(slices.Values(intents)))); diff != "" {
		t.Errorf("intents with a mapping (-vocabulary +table):\n%s", diff)
	}
	if diff := cmp.Diff(assertionKinds, kinds, cmp.Transformer("sort", func(s []string) []string { return slices.Sorted(slices.Values(s)) })); diff != "" {
		t.Errorf("assertion kinds with a mapping (-vocabulary +table):\n%s", diff)
	}
}

// TestExportRecovery holds what each recovery strategy writes, and that the
// retry is bounded by maxRetries and runs inside the recovery node's step.
func TestExportRecovery(t *testing.T) {
	j, _ := ReferenceJourney("banking-transfer-to-savings")
	spec := exportOf(t, ExportPlaywrightSpecInput{Journey: &j}).Spec
	for _, want := range []string{
		"const attempt = async (recovery: string, body: () => Promise<void>): Promise<void> => {",
		"if (retry >= 3) throw error;",
		"await test.step(recovery, async () => {",
		"// re_snapshot: nothing to do; every locator is resolved afresh on each attempt.",
		"await page.reload(); // reload_route",
		"// replan: this spec is a scripted plan, which replans to the same remaining steps.",
		"// retry_step: the retry itself.",
		"await test.step('step-2', async () => {\n    await attempt('recover-2', async () => {",
	} {
		if !strings.Contains(spec, want) {
			t.Errorf("the spec lacks %q:\n%s", want, spec)
		}
	}
	// The last step, finish, cannot fail and is not retried.
	if strings.Contains(spec, "'recover-10'") {
		t.Errorf("finish is retried:\n%s", spec)
	}
	j.ID = "my-transfer"
	j.Recovery = Recovery{}
	if spec := exportOf(t, ExportPlaywrightSpecInput{Journey: &j}).Spec; strings.Contains(spec, "attempt") {
		t.Errorf("a journey without retries has an attempt:\n%s", spec)
	}
	j.Recovery = Recovery{MaxRetries: 1, Strategies: []RecoveryStrategy{"go_back", "dismiss_dialog"}}
	spec = exportOf(t, ExportPlaywrightSpecInput{Journey: &j}).Spec
	if goBack, dismiss := strings.Index(spec, "page.goBack(); // go_back"), strings.Index(spec, "// dismiss_dialog"); goBack < 0 || dismiss < goBack {
		t.Errorf("strategies not in the journey's order:\n%s", spec)
	}
}

// TestExportDeterministic exports every reference journey twice in both
// languages: the same bytes, the digest of those bytes, the journey's digest,
// and a mapping that reads the tag the spec carries.
func TestExportDeterministic(t *testing.T) {
	ctx := context.Background()
	for _, id := range ReferenceJourneyIDs() {
		for _, lang := range []Language{"", LanguageTypeScript, LanguageJavaScript} {
			in := ExportPlaywrightSpecInput{JourneyID: id, Language: lang}
			a, b := exportOf(t, in), exportOf(t, in)
			if diff := cmp.Diff(a, b); diff != "" {
				t.Fatalf("%s %s: two exports differ (-first +second):\n%s", id, lang, diff)
			}
			j, _ := ReferenceJourney(id)
			res, err := CompileJourney(ctx, j)
			if err != nil {
				t.Fatal(err)
			}
			if a.JourneyDigest != res.Journey.Digest || !a.ReferenceJourney {
				t.Errorf("%s: journey digest %s (reference %v), compiled %s", id, a.JourneyDigest, a.ReferenceJourney, res.Journey.Digest)
			}
			sum := sha256.Sum256([]byte(a.Spec))
			if got := "sha256:" + hex.EncodeToString(sum[:]); a.SpecDigest != got {
				t.Errorf("%s: specDigest %s, sha256 of the text %s", id, a.SpecDigest, got)
			}
			tag := "tag: '@journey:" + id + "',"
			if !strings.Contains(a.Spec, tag) || a.Mapping.Journey != (ReportSource{From: FromTag, Name: "journey"}) {
				t.Errorf("%s: the mapping %+v does not read the spec's tag %s", id, a.Mapping, tag)
			}
			wantFile, wantLang := id+".spec.ts", LanguageTypeScript
			if lang == LanguageJavaScript {
				wantFile, wantLang = id+".spec.js", LanguageJavaScript
			}
			if a.FileName != wantFile || a.Language != wantLang {
				t.Errorf("%s: file %s in %s, want %s in %s", id, a.FileName, a.Language, wantFile, wantLang)
			}
			if !utf8.ValidString(a.Spec) || strings.ContainsAny(a.Spec, "\r\u2028\u2029\x00") {
				t.Errorf("%s: the spec has a raw CR, NUL, U+2028 or U+2029", id)
			}
		}
	}
}

// TestExportOptions holds the tag, annotation and helper module to the
// options, and a journey of one's own to the mapping's app and fixture.
func TestExportOptions(t *testing.T) {
	j, _ := ReferenceJourney("helpdesk-submit-request-with-screenshot")
	j.ID = "my-request"
	spec := exportOf(t, ExportPlaywrightSpecInput{Journey: &j, Language: LanguageJavaScript, JourneyTag: "flow",
		JourneyAnnotation: "automium.journey", FixtureFilesModule: "../support/fixture-files"})
	for _, want := range []string{
		"const { test, expect } = require('@playwright/test');",
		"const { fixtureFile } = require('../support/fixture-files');",
		"tag: '@flow:my-request',",
		"{ type: 'automium.journey', description: 'my-request' },",
		"const attempt = async (recovery, body) => {",
	} {
		if !strings.Contains(spec.Spec, want) {
			t.Errorf("the spec lacks %q:\n%s", want, spec.Spec)
		}
	}
	want := ReportMapping{Planner: ReportSource{From: FromProject}, Journey: ReportSource{From: FromTag, Name: "flow"},
		AppID: j.AppID, FixtureID: j.FixtureID}
	if diff := cmp.Diff(want, spec.Mapping); diff != "" {
		t.Errorf("mapping (-want +got):\n%s", diff)
	}
	if spec.ReferenceJourney || spec.FixtureFilesModule != "../support/fixture-files" || spec.FileName != "my-request.spec.js" {
		t.Errorf("reference %v, module %q, file %q", spec.ReferenceJourney, spec.FixtureFilesModule, spec.FileName)
	}
	if spec := exportOf(t, ExportPlaywrightSpecInput{JourneyID: "storefront-search-add-to-cart"}); spec.FixtureFilesModule != "" || strings.Contains(spec.Spec, "fixtureFile") {
		t.Errorf("a journey that uploads nothing imports the helper:\n%s", spec.Spec)
	}
}

// TestExportErrors holds each refusal to its code and field.
func TestExportErrors(t *testing.T) {
	ref, _ := ReferenceJourney("storefront-search-add-to-cart")
	withAssertion := func(a Assertion) *CompileJourneyInput {
		j := ref.clone()
		j.ID = "mine"
		j.Assertions = []Assertion{a}
		return &j
	}
	invalid := ref.clone()
	invalid.Steps[0].Intent = "teleport"
	cases := []struct {
		name  string
		in    ExportPlaywrightSpecInput
		code  Code
		field string
	}{
		{"neither", ExportPlaywrightSpecInput{}, CodeInvalidArgument, "journey"},
		{"both", ExportPlaywrightSpecInput{JourneyID: ref.ID, Journey: &ref}, CodeInvalidArgument, "journeyId"},
		{"unknown reference", ExportPlaywrightSpecInput{JourneyID: "no-such-journey"}, CodeInvalidArgument, "journeyId"},
		{"not a slug", ExportPlaywrightSpecInput{JourneyID: "Checkout"}, CodeInvalidArgument, "journeyId"},
		{"language", ExportPlaywrightSpecInput{JourneyID: ref.ID, Language: "TypeScript"}, CodeInvalidArgument, "language"},
		{"tag with a colon", ExportPlaywrightSpecInput{JourneyID: ref.ID, JourneyTag: "journey:id"}, CodeInvalidArgument, "journeyTag"},
		{"tag with an @", ExportPlaywrightSpecInput{JourneyID: ref.ID, JourneyTag: "@journey"}, CodeInvalidArgument, "journeyTag"},
		{"annotation with a space", ExportPlaywrightSpecInput{JourneyID: ref.ID, JourneyAnnotation: "a b"}, CodeInvalidArgument, "journeyAnnotation"},
		{"annotation of the digest", ExportPlaywrightSpecInput{JourneyID: ref.ID, JourneyAnnotation: "journeyDigest"}, CodeInvalidArgument, "journeyAnnotation"},
		{"module with a quote", ExportPlaywrightSpecInput{JourneyID: ref.ID, FixtureFilesModule: "./x');process.exit(1);('"}, CodeInvalidArgument, "fixtureFilesModule"},
		{"module with a URL", ExportPlaywrightSpecInput{JourneyID: ref.ID, FixtureFilesModule: "https://evil.example/x.js"}, CodeInvalidArgument, "fixtureFilesModule"},
		{"invalid journey", ExportPlaywrightSpecInput{Journey: &invalid}, CodeUnsupportedIntent, "journey.steps[0].intent"},
		{"reference ID, other body", ExportPlaywrightSpecInput{Journey: func() *CompileJourneyInput { j := ref.clone(); j.Goal = "Another goal"; return &j }()}, CodeInvalidArgument, "journey.id"},
		{"element_checked on a button", ExportPlaywrightSpecInput{Journey: withAssertion(Assertion{Kind: "element_checked", Target: &Target{Role: "button", Name: "Go"}})}, CodeUnsupportedOperation, "journey.assertions[0].target.role"},
		{"element_value on a heading", ExportPlaywrightSpecInput{Journey: withAssertion(Assertion{Kind: "element_value", Target: &Target{Role: "heading", Name: "Cart"}, Value: "x"})}, CodeUnsupportedOperation, "journey.assertions[0].target.role"},
		{"over a bound", ExportPlaywrightSpecInput{Journey: func() *CompileJourneyInput { j := ref.clone(); j.Steps = make([]Step, limit.MaxSteps+1); return &j }()}, CodeLimitExceeded, "journey.steps"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ExportPlaywrightSpec(context.Background(), c.in)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want an *Error", err)
			}
			if e.Code != c.code || e.Field != c.field {
				t.Errorf("%s at %q (%s), want %s at %q", e.Code, e.Field, e.Message, c.code, c.field)
			}
		})
	}
	//lint:ignore SA1012 the nil context is the case under test
	if _, err := ExportPlaywrightSpec(nil, ExportPlaywrightSpecInput{JourneyID: ref.ID}); err == nil {
		t.Error("a nil context is accepted")
	}
}

// hostileStrings can stand in a goal or a name (line) or only in a value.
var (
	hostileLines = []string{
		`'`, `"`, `\`, "`", "${process.exit(1)}", "`${x}`", "</script><script>alert(1)</script>", "<!-- -->", "*/ /*",
		"'); process.exit(1); ('", `\u0027`, `\x27`, "😀 𝔘", "עברית", "e\u0301"[:1] + "\u00e9",
	}
	hostileValues = append(slices.Clone(hostileLines),
		"\x00", "\x001", "a\nb", "a\rb", "\u2028", "\u2029", "\u202e", "\ufeff", "\u200b", "\x7f", "\u0085", "\t", "  ", "\U0010ffff", "\ue000")
)

// hostileJourney is a reference journey with the given goal, every name and
// every text value replaced.
func hostileJourney(base, goal, name, value string) CompileJourneyInput {
	j, _ := ReferenceJourney(base)
	j = j.clone()
	j.ID = "hostile"
	j.Goal = goal
	for i := range j.Steps {
		s := &j.Steps[i]
		for _, t := range []*Target{s.Target, s.Destination} {
			if t != nil {
				t.Name = name
			}
		}
		if slices.Contains([]Intent{IntentFill, IntentSelectOption}, s.Intent) || s.Intent == "finish" && s.Value != "" {
			s.Value = value
		}
	}
	for i := range j.Assertions {
		a := &j.Assertions[i]
		if a.Target != nil {
			a.Target.Name = name
		}
		if a.Kind != "url_matches" {
			a.Value = value
		}
	}
	return j
}

// shapeKey names the harmless export a hostile one is held to: the journey
// the hostile text went into (by its first intent and length) and the language.
type shapeKey struct {
	intent Intent
	steps  int
	ts     bool
}

// benignShapes are the shapes of hostileJourney's base with harmless text,
// computed once: the fuzz target compares every input against them.
var benignShapes = sync.OnceValue(func() map[shapeKey][]jslex.Token {
	j := hostileJourney("helpdesk-assign-urgent-ticket", "Goal", "Name", "Value")
	res, err := CompileJourney(context.Background(), j)
	if err != nil || !res.Valid {
		panic(fmt.Sprintf("the harmless journey does not compile: %v %v", err, res.Errors))
	}
	out := map[shapeKey][]jslex.Token{}
	for _, ts := range []bool{true, false} {
		text, _ := writeSpec(res.Journey, exportOptions{typescript: ts, tag: "journey", annotation: "journey", files: DefaultPlaywrightFixtureFiles}).text()
		shape, err := jslex.Shape(text)
		if err != nil {
			panic(err)
		}
		out[shapeKey{j.Steps[0].Intent, len(j.Steps), ts}] = shape
	}
	return out
})

// checkLiterals exports j in both languages and requires of each spec what
// the fuzz target requires: the lexer reads exactly the literals the writer
// wrote, the hostile text among them, and the program has the shape of the
// same journey with harmless text.
func checkLiterals(t *testing.T, j CompileJourneyInput) {
	t.Helper()
	ctx := context.Background()
	res, err := CompileJourney(ctx, j)
	if err != nil || !res.Valid {
		return // refused before anything is written: nothing to check
	}
	if err := exportProblems(Path{}, j); err != nil {
		return
	}
	benign := benignShapes()
	for _, ts := range []bool{true, false} {
		opts := exportOptions{typescript: ts, tag: "journey", annotation: "journey", files: DefaultPlaywrightFixtureFiles}
		w := writeSpec(res.Journey, opts)
		text, _ := w.text()
		got, err := jslex.Literals(text)
		if err != nil {
			t.Fatalf("the spec does not lex: %v\n%s", err, text)
		}
		if diff := cmp.Diff(w.literals, got); diff != "" {
			t.Fatalf("literals (-written +read):\n%s\n%s", diff, text)
		}
		for _, s := range []string{j.Goal} {
			if !slices.Contains(got, s) {
				t.Fatalf("the goal %q is not one literal", s)
			}
		}
		if want, ok := benign[shapeKey{j.Steps[0].Intent, len(j.Steps), ts}]; ok {
			gotShape, _ := jslex.Shape(text)
			if diff := cmp.Diff(want, gotShape); diff != "" {
				t.Fatalf("the program's shape depends on its text (-harmless +hostile):\n%s", diff)
			}
		}
	}
}

// TestExportStringsCannotBreakOut exports every hostile text in every place.
func TestExportStringsCannotBreakOut(t *testing.T) {
	if testing.Short() {
		t.Skip("every hostile text in every place; skipped with -short")
	}
	for _, line := range hostileLines {
		for _, value := range hostileValues {
			checkLiterals(t, hostileJourney("helpdesk-assign-urgent-ticket", line, line, value))
		}
	}
	// The escapes themselves, one by one.
	for _, c := range []struct{ in, want string }{
		{"a'b", `'a\'b'`}, {`a\b`, `'a\\b'`}, {"\x00", `'\u0000'`}, {"\x001", `'\u00001'`}, {"\n\r\t", `'\n\r\t'`},
		{"\u2028\u2029", `'\u2028\u2029'`}, {"</script>", `'\x3c/script\x3e'`}, {"`${x}`", `'\x60\x24{x}\x60'`}, {"$5 {", `'$5 {'`},
		{"\u202e\u200b\ufeff", `'\u202e\u200b\ufeff'`}, {"\u00a0", `'\u00a0'`}, {"😀", "'😀'"}, {"\U000e0001", `'\udb40\udc01'`},
		{"\ue000", `'\ue000'`}, {"Café 日本", "'Café 日本'"}, {"\u0378", `'\u0378'`},
	} {
		if got := jsString(c.in); got != c.want {
			t.Errorf("jsString(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// FuzzExportPlaywrightSpec exports a journey with fuzzed goal, names and
// values: either a coded error, or a spec whose literals, read back by the
// independent lexer, are the ones written, in a program of the same shape.
func FuzzExportPlaywrightSpec(f *testing.F) {
	for _, s := range hostileValues {
		f.Add(s, s, s)
	}
	f.Add("Find a kettle", "Add to cart", "kettle")
	f.Fuzz(func(t *testing.T, goal, name, value string) {
		j := hostileJourney("helpdesk-assign-urgent-ticket", goal, name, value)
		_, err := ExportPlaywrightSpec(context.Background(), ExportPlaywrightSpecInput{Journey: &j})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Code == CodeInternal {
				t.Fatalf("error %v, want a coded *Error", err)
			}
			return
		}
		checkLiterals(t, j)
	})
}

// FuzzJSString holds the escaper alone to the lexer on any valid UTF-8.
func FuzzJSString(f *testing.F) {
	for _, s := range hostileValues {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		lit := jsString(s)
		toks, err := jslex.Tokens("x(" + lit + ");")
		if err != nil {
			t.Fatalf("%s does not lex: %v", lit, err)
		}
		if len(toks) != 5 || toks[2].Kind != jslex.String || toks[2].Text != s {
			t.Fatalf("%s lexes as %+v, want one string %q", lit, toks, s)
		}
		if strings.ContainsAny(lit, "\n\r\u2028\u2029<>`") {
			t.Fatalf("%s holds a raw line terminator, < > or `", lit)
		}
	})
}

// TestExportSizeBound exports the largest journey with the costliest text to
// escape: every step a fill whose value is MaxTextLength NULs (six bytes
// each, \u0000) and whose name is 200 '<' (four bytes each, \x3c), under the
// largest goal and every assertion. The spec grows with the journey, never
// beyond maxExportBytes, the figure docs/playwright-export.md gives.
func TestExportSizeBound(t *testing.T) {
	const maxExportBytes = 4 << 20
	name := strings.Repeat("<", 200)
	j := CompileJourneyInput{ID: "largest", AppID: "storefront", FixtureID: "storefront-guest-catalog", Goal: strings.Repeat("<", limit.MaxTextLength),
		Recovery: Recovery{MaxRetries: limit.MaxRecoveryRetries, Strategies: asStrategies(recoveryStrategies)}}
	for range limit.MaxSteps {
		j.Steps = append(j.Steps, Step{Intent: "fill", Target: &Target{Role: "textbox", Name: name}, Value: strings.Repeat("\x00", limit.MaxTextLength)})
	}
	for range limit.MaxAssertions {
		j.Assertions = append(j.Assertions, Assertion{Kind: "element_text", Target: &Target{Role: "cell", Name: name}, Value: strings.Repeat("\x00", limit.MaxTextLength)})
	}
	spec := exportOf(t, ExportPlaywrightSpecInput{Journey: &j})
	if n := len(spec.Spec); n > maxExportBytes {
		t.Errorf("the largest spec is %d bytes, over %d", n, maxExportBytes)
	} else {
		t.Logf("the largest spec is %d bytes", n)
	}
}
