package automium

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/automium/automium/internal/echo"
)

// Language is a language a spec is exported in; its string is the wire form,
// as in language.
type Language string

// The languages a spec is exported in.
const (
	LanguageTypeScript Language = "typescript"
	LanguageJavaScript Language = "javascript"
)

// The defaults of [ExportPlaywrightSpecInput]: the tag and annotation that the
// Playwright importer's usual mapping reads (@journey:<id>, annotation type
// journey), and the module the team supplies to resolve fixture file refs.
const (
	DefaultPlaywrightJourneyTag        = "journey"
	DefaultPlaywrightJourneyAnnotation = "journey"
	DefaultPlaywrightFixtureFiles      = "./automium-fixture-files"
)

// playwrightDigestAnnotation is the type of the annotation that carries the
// journey digest into the report, so a result names the exact journey it ran.
const playwrightDigestAnnotation = "journeyDigest"

var (
	_ = registerPattern("automium_pw_name", `^[A-Za-z][A-Za-z0-9_.-]*$`, echo.Msg("a letter, then letters, digits, '_', '.' or '-' (no colon, space or @)"))
	_ = registerPattern("automium_pw_module", `^(\.\.?/)*[A-Za-z0-9@_][A-Za-z0-9@_.-]*(/[A-Za-z0-9@_][A-Za-z0-9@_.-]*)*$`, echo.Msg("a module specifier such as ./automium-fixture-files or @team/fixtures: segments of letters, digits, '@', '_', '.' and '-' joined by /, optionally after ./ or ../"))
)

// ExportPlaywrightSpecInput asks for the Playwright Test spec of one journey.
// Exactly one of JourneyID and Journey is given.
type ExportPlaywrightSpecInput struct {
	JourneyID          string               `json:"journeyId,omitempty" jsonschema:"reference journey ID; leave it out to export journey" validate:"omitempty,max_id_length,automium_slug"`
	Journey            *CompileJourneyInput `json:"journey,omitempty" jsonschema:"your own journey, as CompileJourney takes it; it is compiled here and the spec is bound to its digest" validate:"omitempty"`
	Language           Language             `json:"language,omitempty" jsonschema:"default typescript; javascript is CommonJS" validate:"omitempty,oneof=javascript typescript"`
	JourneyTag         string               `json:"journeyTag,omitempty" jsonschema:"tags the spec @<journeyTag>:<id>; default journey" validate:"omitempty,max=64,automium_pw_name"`
	JourneyAnnotation  string               `json:"journeyAnnotation,omitempty" jsonschema:"annotation type with the journey ID; default journey" validate:"omitempty,max=64,automium_pw_name"`
	FixtureFilesModule string               `json:"fixtureFilesModule,omitempty" jsonschema:"module exporting fixtureFile(ref); default ./automium-fixture-files" validate:"omitempty,max=200,automium_pw_module"`
}

// PlaywrightSpec is an exported spec: its text, the digests that bind it to its
// journey, and the mapping that reads its tests back from a JSON report.
type PlaywrightSpec struct {
	SpecVersion        string        `json:"specVersion" jsonschema:"spec format version: playwright-spec-v1"`
	Language           Language      `json:"language" jsonschema:"typescript or javascript"`
	FileName           string        `json:"fileName" jsonschema:"a file name for the spec: <journeyId>.spec.ts or .spec.js"`
	Spec               string        `json:"spec" jsonschema:"the spec's text: one test, one test.step per step and assertion node"`
	SpecDigest         string        `json:"specDigest" jsonschema:"sha256: and the lowercase hex SHA-256 of the spec's UTF-8 bytes, as sha256sum prints it for the file"`
	JourneyID          string        `json:"journeyId" jsonschema:"ID of the exported journey"`
	JourneyDigest      string        `json:"journeyDigest" jsonschema:"digest of the compiled journey the spec was made from"`
	ReferenceJourney   bool          `json:"referenceJourney" jsonschema:"whether the journey is a reference journey of the owned corpus"`
	Mapping            ReportMapping `json:"mapping" jsonschema:"mapping for CompareReports: journey from the spec's tag, planner from the project name"`
	FixtureFilesModule string        `json:"fixtureFilesModule,omitempty" jsonschema:"the module the spec imports fixtureFile from, when it uploads files"`
	ExternalAppIDs     []string      `json:"externalAppIds,omitempty" jsonschema:"the journey's app, when it is outside the corpus (ext:…)"`
	NotChecked         []string      `json:"notChecked,omitempty" jsonschema:"corpus checks that did not apply to it"`
}

// ExportPlaywrightSpec compiles a journey as [CompileJourney] does and writes it
// as a Playwright Test spec: one test tagged @<journeyTag>:<id> and annotated
// with the journey ID and digest, and in it one test.step per step and
// assertion node, titled with the node's ID, so a failure in a report points at
// its node. Targets become getByRole(role, { name, exact: true }), routes are
// passed to page.goto relative to the project's baseURL, assertions are
// web-first (toBeVisible, toHaveValue, toHaveURL, ...), and bounded recovery is
// a bounded retry of the step after the journey's strategies. The mapping of
// every intent, assertion and strategy is in docs/playwright-export.md.
//
// Every client string (goal, names, values) is written as a JavaScript string
// literal with everything that could end it, or read differently in a
// browser, an editor or a terminal, escaped; nothing a client sends lands in a
// comment or an identifier.
//
// A journey that does not compile is an invalid_argument error listing its
// problems under journey; a step or assertion with no faithful Playwright form
// (an element_checked target that cannot be checked, an element_value target
// with no value) is an unsupported_operation error at its path, never an
// approximation. The spec is returned as text: nothing is written, run or
// fetched.
func ExportPlaywrightSpec(ctx context.Context, in ExportPlaywrightSpecInput) (PlaywrightSpec, error) {
	if err := checkContext(ctx); err != nil {
		return PlaywrightSpec{}, err
	}
	outer := in
	outer.Journey = nil
	ps := newProblems(outer)
	ps.validate(outer)
	if err := ps.err(); err != nil {
		return PlaywrightSpec{}, err
	}
	journey, ok := in.Journey, false
	switch {
	case in.Journey != nil && in.JourneyID != "":
		return PlaywrightSpec{}, newError(CodeInvalidArgument, field("journeyId"), nil,
			"give either journeyId, the ID of a reference journey, or journey, your own journey; not both")
	case in.Journey == nil && in.JourneyID == "":
		return PlaywrightSpec{}, newError(CodeInvalidArgument, field("journey"), nil,
			"give either journeyId, the ID of a reference journey, or journey, your own journey as automium_compile_journey takes it")
	case in.Journey == nil:
		var ref CompileJourneyInput
		if ref, ok = ReferenceJourney(in.JourneyID); !ok {
			return PlaywrightSpec{}, newError(CodeInvalidArgument, field("journeyId"), nil,
				"%s is not a reference journey; send your journey itself as journey, or use a reference journey ID (automium_list_fixtures lists them)", echo.Value(in.JourneyID))
		}
		journey = &ref
	}
	res, err := CompileJourney(ctx, *journey)
	if err != nil {
		if in.Journey != nil {
			return PlaywrightSpec{}, underJourney(err)
		}
		return PlaywrightSpec{}, err
	}
	if !res.Valid {
		if in.Journey == nil {
			return PlaywrightSpec{}, internalError("compiling a reference journey")
		}
		ps := make([]Problem, len(res.Errors))
		for i, p := range res.Errors {
			ps[i] = p.under(field("journey"))
		}
		return PlaywrightSpec{}, Join(ps...)
	}
	opts := exportOptions{
		typescript: in.Language != LanguageJavaScript,
		tag:        cmpOr(in.JourneyTag, DefaultPlaywrightJourneyTag),
		annotation: cmpOr(in.JourneyAnnotation, DefaultPlaywrightJourneyAnnotation),
		files:      cmpOr(in.FixtureFilesModule, DefaultPlaywrightFixtureFiles),
	}
	if opts.annotation == playwrightDigestAnnotation {
		return PlaywrightSpec{}, newError(CodeInvalidArgument, field("journeyAnnotation"), nil,
			"%s is the type of the annotation that carries the journey digest; choose another type for the journey ID", echo.Value(opts.annotation))
	}
	base := Path{}
	if in.Journey != nil {
		base = field("journey")
	}
	if err := exportProblems(base, *journey); err != nil {
		return PlaywrightSpec{}, err
	}
	text, uploads := writeSpec(res.Journey, opts).text()
	_, reference := owned().journeyByID[res.Journey.ID]
	if reference {
		d, _, err := referenceDigest(res.Journey.ID)
		reference = err == nil && d == res.Journey.Digest
	}
	ext, lang := ".spec.ts", LanguageTypeScript
	if !opts.typescript {
		ext, lang = ".spec.js", LanguageJavaScript
	}
	sum := sha256.Sum256([]byte(text))
	out := PlaywrightSpec{
		SpecVersion:      PlaywrightSpecVersion,
		Language:         lang,
		FileName:         res.Journey.ID + ext,
		Spec:             text,
		SpecDigest:       digestPrefix + hex.EncodeToString(sum[:]),
		JourneyID:        res.Journey.ID,
		JourneyDigest:    res.Journey.Digest,
		ReferenceJourney: reference,
		Mapping: ReportMapping{
			Planner: ReportSource{From: FromProject},
			Journey: ReportSource{From: FromTag, Name: opts.tag},
		},
	}
	if !reference {
		out.Mapping.AppID, out.Mapping.FixtureID = res.Journey.AppID, res.Journey.FixtureID
	}
	if uploads {
		out.FixtureFilesModule = opts.files
	}
	out.ExternalAppIDs, out.NotChecked = res.ExternalAppIDs, res.NotChecked
	return out, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// checkedRoles are the roles Playwright's toBeChecked reads (aria-checked or a
// native checkbox or radio); valueRoles those whose element has a form value
// for toHaveValue (input, textarea, select). Another role has no faithful form.
var (
	checkedRoles = []string{"checkbox", "menuitemcheckbox", "menuitemradio", "option", "radio", "switch", "treeitem"}
	valueRoles   = []string{"combobox", "listbox", "searchbox", "slider", "spinbutton", "textbox"}
)

// exportProblems refuses what compiles but has no faithful Playwright form.
func exportProblems(base Path, j CompileJourneyInput) error {
	var ps []Problem
	for i, a := range j.Assertions {
		at := base.dot("assertions").at(i).dot("target").dot("role")
		var roles []string
		switch a.Kind {
		case "element_checked":
			roles = checkedRoles
		case "element_value":
			roles = valueRoles
		default:
			continue
		}
		if a.Target != nil && !containsString(roles, string(a.Target.Role)) {
			ps = append(ps, newProblem(CodeUnsupportedOperation, at, roles, echo.Msg(
				"assertion %s on a %s has no faithful Playwright form (Playwright's %s reads only these roles); target an element with one of the allowed roles",
				a.Kind, a.Target.Role, map[AssertionKind]string{AssertElementChecked: "toBeChecked", AssertElementValue: "toHaveValue"}[a.Kind])))
		}
	}
	return Join(ps...)
}

type exportOptions struct {
	typescript             bool
	tag, annotation, files string
}

// specWriter writes a spec line by line. Every client string goes through
// lit, which also records it, so the tests can hold the literals a JavaScript
// lexer reads in the text to the ones written.
type specWriter struct {
	b        strings.Builder
	literals []string
	uploads  bool
	ts       bool // TypeScript, not JavaScript
}

func (w *specWriter) line(indent int, parts ...string) {
	w.b.WriteString(strings.Repeat("  ", indent))
	for _, p := range parts {
		w.b.WriteString(p)
	}
	w.b.WriteByte('\n')
}

// lit is s as a JavaScript string literal, recorded.
func (w *specWriter) lit(s string) string {
	w.literals = append(w.literals, s)
	return jsString(s)
}

func (w *specWriter) text() (string, bool) { return w.b.String(), w.uploads }

// writeSpec writes the spec of a compiled journey.
func writeSpec(g *CompiledJourney, o exportOptions) *specWriter {
	w := &specWriter{ts: o.typescript}
	var steps, asserts []GraphNode
	dialogs := 0
	for _, n := range g.Nodes {
		switch n.Kind {
		case NodeStep:
			steps = append(steps, n)
			switch n.Intent {
			case "handle_dialog":
				dialogs++
			case "upload_file":
				w.uploads = true
			}
		case NodeAssertion:
			asserts = append(asserts, n)
		}
	}
	w.line(0, "// Exported by Automium (", PlaywrightSpecVersion, ") from journey ", g.ID, ", ", g.GraphVersion, ", ", g.IntentVocabularyVersion, ", ", g.CorpusVersion, ".")
	w.line(0, "// Journey digest: ", g.Digest)
	w.line(0, "// Export the journey again rather than editing this file. Mapping: docs/playwright-export.md.")
	if o.typescript {
		w.line(0, "import { test, expect } from ", w.lit("@playwright/test"), ";")
		if w.uploads {
			w.line(0, "import { fixtureFile } from ", w.lit(o.files), ";")
		}
	} else {
		w.line(0, "// @ts-check")
		w.line(0, "const { test, expect } = require(", w.lit("@playwright/test"), ");")
		if w.uploads {
			w.line(0, "const { fixtureFile } = require(", w.lit(o.files), ");")
		}
	}
	w.line(0, "")
	w.line(0, "test(", w.lit(g.Goal), ", {")
	w.line(1, "tag: ", w.lit("@"+o.tag+":"+g.ID), ",")
	w.line(1, "annotation: [")
	w.line(2, "{ type: ", w.lit(o.annotation), ", description: ", w.lit(g.ID), " },")
	w.line(2, "{ type: ", w.lit(playwrightDigestAnnotation), ", description: ", w.lit(g.Digest), " },")
	w.line(1, "],")
	w.line(0, "}, async ({ page }) => {")
	if dialogs > 0 {
		w.line(1, "// Each dialog is answered as it opens, with the answer of the next handle_dialog step;")
		w.line(1, "// a dialog no step answers is dismissed, as Playwright does by default.")
		answers := make([]string, 0, dialogs)
		for _, n := range steps {
			if n.Intent == "handle_dialog" {
				answers = append(answers, w.lit(n.Value))
			}
		}
		w.line(1, "const dialogAnswers = [", strings.Join(answers, ", "), "];")
		w.line(1, "let dialogsOpened = 0;")
		w.line(1, "let dialogsAnswered = 0;")
		w.line(1, "page.context().on(", w.lit("dialog"), ", (dialog) => {")
		w.line(2, "const answer = dialogAnswers[dialogsOpened++];")
		w.line(2, "void (answer === ", w.lit("accept"), " ? dialog.accept() : dialog.dismiss()).then(() => { dialogsAnswered++; }, () => {});")
		w.line(1, "});")
	}
	if g.MaxRetries > 0 {
		w.writeAttempt(g)
	}
	dialog := 0
	for i, n := range steps {
		w.line(1, "await test.step(", w.lit(n.ID), ", async () => {")
		body := 2
		// finish does nothing that can fail, so it is never retried.
		retried := g.MaxRetries > 0 && n.Intent != "finish"
		if retried {
			w.line(2, "await attempt(", w.lit(recoveryNodeID(i)), ", async () => {")
			body = 3
		}
		if n.Intent == "handle_dialog" {
			dialog++
		}
		w.writeStep(body, n, dialog)
		if retried {
			w.line(2, "});")
		}
		w.line(1, "});")
	}
	for _, n := range asserts {
		w.line(1, "await test.step(", w.lit(n.ID), ", async () => {")
		w.writeAssertion(2, n)
		w.line(1, "});")
	}
	w.line(0, "});")
	return w
}

// writeAttempt writes the bounded retry of the journey's recovery policy.
func (w *specWriter) writeAttempt(g *CompiledJourney) {
	var strategies []RecoveryStrategy
	for _, n := range g.Nodes {
		if n.Kind == NodeRecovery {
			strategies = n.Strategies
			break
		}
	}
	w.line(1, "// Bounded recovery: a failed step is tried again at most ", strconv.Itoa(g.MaxRetries), " times, each retry")
	w.line(1, "// inside the test.step of its recovery node, after the strategies in the journey's order.")
	if w.ts {
		w.line(1, "const attempt = async (recovery: string, body: () => Promise<void>): Promise<void> => {")
	} else {
		w.line(1, "/** @param {string} recovery @param {() => Promise<void>} body */")
		w.line(1, "const attempt = async (recovery, body) => {")
	}
	w.line(2, "for (let retry = 0; ; retry++) {")
	w.line(3, "try {")
	w.line(4, "return await body();")
	w.line(3, "} catch (error) {")
	w.line(4, "if (retry >= ", strconv.Itoa(g.MaxRetries), ") throw error;")
	w.line(4, "await test.step(recovery, async () => {")
	for _, s := range strategies {
		switch s {
		case "retry_step":
			w.line(5, "// retry_step: the retry itself.")
		case "re_snapshot":
			w.line(5, "// re_snapshot: nothing to do; every locator is resolved afresh on each attempt.")
		case "reload_route":
			w.line(5, "await page.reload(); // reload_route")
		case "go_back":
			w.line(5, "await page.goBack(); // go_back")
		case "dismiss_dialog":
			w.line(5, "// dismiss_dialog: nothing stays open; a dialog no handle_dialog step answers is dismissed.")
		case "replan":
			w.line(5, "// replan: this spec is a scripted plan, which replans to the same remaining steps.")
		}
	}
	w.line(4, "});")
	w.line(3, "}")
	w.line(2, "}")
	w.line(1, "};")
}

// locator is the Playwright locator of a target.
func (w *specWriter) locator(t *Target) string {
	return "page.getByRole(" + w.lit(string(t.Role)) + ", { name: " + w.lit(t.Name) + ", exact: true })"
}

// scrollCode says how far each direction scrolls: the page by its window, a
// container by its own box.
var (
	pageScroll = map[string]string{
		"top":    "window.scrollTo({ top: 0, behavior: 'instant' })",
		"bottom": "window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' })",
		"down":   "window.scrollBy({ top: window.innerHeight, behavior: 'instant' })",
		"up":     "window.scrollBy({ top: -window.innerHeight, behavior: 'instant' })",
	}
	elementScroll = map[string]string{
		"top":    "element.scrollTo({ top: 0, behavior: 'instant' })",
		"bottom": "element.scrollTo({ top: element.scrollHeight, behavior: 'instant' })",
		"down":   "element.scrollBy({ top: element.clientHeight, behavior: 'instant' })",
		"up":     "element.scrollBy({ top: -element.clientHeight, behavior: 'instant' })",
	}
)

// writeStep writes what one step node does; dialog is the ordinal of a
// handle_dialog step among them.
func (w *specWriter) writeStep(ind int, n GraphNode, dialog int) {
	switch n.Intent {
	case "navigate":
		w.line(ind, "await page.goto(", w.lit(n.Value), ");")
	case "go_back":
		w.line(ind, "await page.goBack();")
	case "click":
		w.line(ind, "await ", w.locator(n.Target), ".click();")
	case "fill":
		w.line(ind, "await ", w.locator(n.Target), ".fill(", w.lit(n.Value), ");")
	case "select_option":
		w.line(ind, "await ", w.locator(n.Target), ".selectOption({ label: ", w.lit(n.Value), " });")
	case "set_checked":
		w.line(ind, "await ", w.locator(n.Target), ".setChecked(", strconv.FormatBool(n.Value == "true"), ");")
	case "press_key":
		if n.Target != nil {
			w.line(ind, "await ", w.locator(n.Target), ".press(", w.lit(n.Value), ");")
		} else {
			w.line(ind, "await page.keyboard.press(", w.lit(n.Value), ");")
		}
	case "hover":
		w.line(ind, "await ", w.locator(n.Target), ".hover();")
	case "scroll":
		if n.Target != nil {
			w.line(ind, "await ", w.locator(n.Target), ".evaluate((element) => ", elementScroll[n.Value], ");")
		} else {
			w.line(ind, "await page.evaluate(() => ", pageScroll[n.Value], ");")
		}
	case "upload_file":
		w.line(ind, "const chooser = page.waitForEvent(", w.lit("filechooser"), ");")
		w.line(ind, "await ", w.locator(n.Target), ".click();")
		w.line(ind, "await (await chooser).setFiles(await fixtureFile(", w.lit(n.Value), "));")
	case "handle_dialog":
		w.line(ind, "await expect.poll(() => dialogsAnswered, { message: ", w.lit("dialog "+strconv.Itoa(dialog)+" of the journey answered"), " }).toBeGreaterThanOrEqual(", strconv.Itoa(dialog), ");")
	case "switch_tab":
		switch n.Value {
		case "latest":
			w.line(ind, "await expect.poll(() => page.context().pages()[page.context().pages().length - 1] !== page, { message: ", w.lit("a newer tab than the active one"), " }).toBe(true);")
			w.line(ind, "page = page.context().pages()[page.context().pages().length - 1];")
		case "opener":
			w.line(ind, "const opener = await page.opener();")
			w.line(ind, "if (opener === null) throw new Error(", w.lit("switch_tab opener: the active tab was not opened by another tab"), ");")
			w.line(ind, "page = opener;")
		default:
			w.line(ind, "await expect.poll(() => page.context().pages().length, { message: ", w.lit("tab "+n.Value+" open"), " }).toBeGreaterThan(", n.Value, ");")
			w.line(ind, "page = page.context().pages()[", n.Value, "];")
		}
		w.line(ind, "await page.bringToFront();")
	case "drag_drop":
		w.line(ind, "await ", w.locator(n.Target), ".dragTo(", w.locator(n.Destination), ");")
	case "wait_for":
		w.line(ind, "await expect(", w.locator(n.Target), ").toBeVisible();")
	case "extract":
		w.line(ind, "const text = await ", w.locator(n.Target), ".innerText();")
		w.line(ind, "await test.info().attach(", w.lit(n.ID+" extract"), ", { body: text, contentType: ", w.lit("text/plain"), " });")
	case "finish":
		if n.Value != "" {
			w.line(ind, "await test.info().attach(", w.lit(n.ID+" answer"), ", { body: ", w.lit(n.Value), ", contentType: ", w.lit("text/plain"), " });")
		} else {
			w.line(ind, "// finish: the journey's last step; its assertions follow.")
		}
	default:
		// Unreachable for a compiled journey: TestExportMapsEveryIntent
		// holds the switch to the vocabulary.
		panic("automium: no Playwright form for intent " + n.Intent)
	}
}

// writeAssertion writes one assertion node.
func (w *specWriter) writeAssertion(ind int, n GraphNode) {
	switch n.Assertion {
	case "url_matches":
		w.line(ind, "await expect(page).toHaveURL(", w.lit(n.Value), ");")
	case "title_contains":
		w.line(ind, "await expect.poll(() => page.title()).toContain(", w.lit(n.Value), ");")
	case "text_visible":
		w.line(ind, "await expect(page.locator(", w.lit("body"), ")).toContainText(", w.lit(n.Value), ", { useInnerText: true });")
	case "element_visible":
		w.line(ind, "await expect(", w.locator(n.Target), ").toBeVisible();")
	case "element_hidden":
		w.line(ind, "await expect(", w.locator(n.Target), ").toBeHidden();")
	case "element_checked":
		w.line(ind, "await expect(", w.locator(n.Target), ").toBeChecked();")
	case "element_value":
		w.line(ind, "await expect(", w.locator(n.Target), ").toHaveValue(", w.lit(n.Value), ");")
	case "element_text":
		w.line(ind, "await expect(", w.locator(n.Target), ").toHaveText(", w.lit(n.Value), ", { useInnerText: true });")
	default:
		panic("automium: no Playwright form for assertion " + n.Assertion)
	}
}

// jsString writes s, valid UTF-8, as a single-quoted JavaScript string literal
// that reads back as s in every context a spec is read in. Escaped: the quote
// and the backslash, which end or change the literal; every C0 and C1 control,
// DEL, U+2028 and U+2029 (line terminators to older engines and to many
// tools); every format character (bidi controls, zero-width characters: a
// reader must see what runs, CVE-2021-42574); every space but U+0020;
// private-use and unassigned code points; < and > (so the text can never close
// a script element or open an HTML comment where it is inlined); and ` and
// the $ of ${, which mean nothing in a single-quoted literal but keep the text
// inert if a tool ever rewrites it as a template. Letters, marks, digits, punctuation
// and symbols of every script are written as themselves.
func jsString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i, r := range s {
		switch {
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '<' || r == '>' || r == '`' || r == '$' && strings.HasPrefix(s[i+1:], "{"):
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatInt(int64(r), 16))
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r < 0x80 || !jsVerbatim(r):
			writeUnicodeEscape(&b, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// jsVerbatim reports whether a non-ASCII rune is written as itself: a letter,
// mark, number, punctuation or symbol that is assigned and not private use.
func jsVerbatim(r rune) bool {
	if r == utf8.RuneError || r > unicode.MaxRune {
		return false
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) && !unicode.Is(unicode.Co, r)
}

// writeUnicodeEscape writes r as \uXXXX, or as a surrogate pair of them above
// the BMP, so the literal is valid in every ECMAScript edition.
func writeUnicodeEscape(b *strings.Builder, r rune) {
	hex4 := func(v rune) {
		const digits = "0123456789abcdef"
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(digits[(v>>shift)&0xf])
		}
	}
	if r > 0xffff {
		r -= 0x10000
		hex4(0xd800 + r>>10)
		hex4(0xdc00 + r&0x3ff)
		return
	}
	hex4(r)
}
