package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	jsonv2 "encoding/json/v2"
	"fmt"
	"strings"
	"unicode"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/echo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool's answer is encoded once. Its JSON is made here, checked against the
// call's context as it is written, and handed to go-sdk as a json.RawMessage
// structured content, which go-sdk copies into the response as it is (its
// encoder validates a raw message; it does not decode it). The text a model
// reads is a short Markdown summary (see summarize) rather than the same JSON
// again, so an answer is no longer its JSON twice, once escaped.
//
// A client that negotiated a protocol before structuredContent (2025-06-18
// added it; 2025-03-26 and 2024-11-05 lack it) gets the JSON as its one text
// block instead, as MCP asks for backward compatibility, and no structured
// content it would not read.

// firstStructuredVersion is the first protocol version with structuredContent.
// Versions are dates, compared as strings, as go-sdk compares them.
const firstStructuredVersion = "2025-06-18"

// legacyClient reports whether the session of req negotiated a protocol
// without structuredContent. go-sdk answers initialize with the client's
// version when it supports it and with 2025-11-25 otherwise; a sessionless
// call (2026-07-28 and later) has no initialize and knows structured content.
func legacyClient(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	params := req.Session.InitializeParams()
	if params == nil {
		return false
	}
	v := params.ProtocolVersion
	supported := false
	for _, s := range mcp.SupportedProtocolVersions() {
		supported = supported || s == v
	}
	return supported && v < firstStructuredVersion
}

// answer builds the result of a tool call that succeeded.
func answer(ctx context.Context, out any, legacy bool) (*mcp.CallToolResult, error) {
	body, err := encodeAnswer(ctx, out)
	if err != nil {
		return nil, err
	}
	if legacy {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}, nil
	}
	text, ok := summarize(out)
	if !ok {
		// A small answer is its own summary: its JSON, as before.
		text = string(body)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(body),
	}, nil
}

// encodeAnswer encodes out as encoding/json's Marshal does, byte for byte
// (the v1 options), in one pass that stops at the first write after ctx is
// done: a cancelled call stops encoding.
func encodeAnswer(ctx context.Context, out any) ([]byte, error) {
	if body, ok := adapter.AppendJSON(nil, out); ok { // a compiled journey, without reflection
		return body, ctx.Err()
	}
	w := &contextBuffer{ctx: ctx}
	if err := jsonv2.MarshalWrite(w, out, json.DefaultOptionsV1()); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return w.buf.Bytes(), nil
}

// contextBuffer is a buffer that refuses writes once its context is done. The
// encoder writes to it in chunks of some kilobytes, so a cancelled call stops
// within one chunk of the cancellation.
type contextBuffer struct {
	ctx context.Context
	buf bytes.Buffer
}

func (w *contextBuffer) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	return w.buf.Write(p)
}

// summarize is the Markdown a model reads first, for the answers of more than
// a few lines; false leaves a small answer as its JSON. Every client value it
// repeats is cut and cannot break the Markdown around it (see code).
func summarize(out any) (string, bool) {
	var b strings.Builder
	switch r := out.(type) {
	case automium.CompileJourneyResult:
		compileSummary(&b, r)
	case automium.CreateRunSubmissionResult:
		fmt.Fprintf(&b, "Modeled run %s of journey %s (digest %s) on %s / %s with planner %s, profile %s. Status: %s.\n\n",
			code(r.RunID), code(r.JourneyID), code(r.JourneyDigest), code(r.AppID), code(r.FixtureID), plannerText(r.Planner), code(r.EnvironmentProfileID), code(r.Status))
		fmt.Fprintf(&b, "- artifactManifestRef: %s\n- replayStreamRef: %s\n\n%s\n", code(r.ArtifactManifestRef), code(r.ReplayStreamRef), r.Notice)
	case automium.GetReplaySummaryResult:
		fmt.Fprintf(&b, "Replay of %s: verdict %s, %d attempt(s), %d retr(ies). A complete replay needs: %s.\n\n%s\n",
			code(r.RunID), code(string(r.Verdict)), r.Attempts, r.RetryCount, kindList(r.RequiredReplayArtifactKinds), r.Notice)
	case automium.GetArtifactManifestResult:
		manifestSummary(&b, r)
	case automium.PlaywrightSpec:
		specSummary(&b, r)
	case automium.ComparisonReport:
		_ = automium.WriteMarkdown(&b, &r) // a strings.Builder never fails
		return b.String(), true
	case automium.ReportsComparison:
		_ = automium.WriteReportsMarkdown(&b, &r)
		return b.String(), true
	default:
		return "", false
	}
	b.WriteString(structuredNote)
	return b.String(), true
}

// structuredNote ends every summary: what it left out is in the structured content.
const structuredNote = "\nThe full answer is the structured content (JSON).\n"

// maxSummaryRows bounds the rows of a table in a summary.
const maxSummaryRows = 20

func compileSummary(b *strings.Builder, r automium.CompileJourneyResult) {
	if !r.Valid || r.Journey == nil {
		fmt.Fprintf(b, "Invalid journey: %d problem(s); fix each and compile again.\n\n", len(r.Errors))
		// The problems' text is at most MaxProblemBytes, but escaping may
		// double it: list them while they fit in the summary's bound.
		for i, p := range r.Errors {
			line := "- " + oneLine(p.TextIn(toolWords)) + "\n"
			if b.Len()+len(line) > maxSummaryBytes-256 {
				fmt.Fprintf(b, "\n%d more problem(s) are in the structured content.\n", len(r.Errors)-i)
				break
			}
			b.WriteString(line)
		}
		return
	}
	j := r.Journey
	fmt.Fprintf(b, "Valid journey %s on %s / %s, compiled to %d nodes and %d edges (maxRetries %d).\n\nDigest: %s\n\n",
		code(j.ID), code(j.AppID), code(j.FixtureID), len(j.Nodes), len(j.Edges), j.MaxRetries, code(j.Digest))
	b.WriteString("| node | kind | intent or assertion | target |\n|---|---|---|---|\n")
	for i, n := range j.Nodes {
		if i == maxSummaryRows {
			fmt.Fprintf(b, "\n%d more nodes are in the structured content.\n", len(j.Nodes)-i)
			break
		}
		what := string(n.Intent)
		if n.Assertion != "" {
			what = string(n.Assertion)
		}
		target := ""
		if n.Target != nil {
			target = code(string(n.Target.Role) + " " + n.Target.Name)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", code(n.ID), n.Kind, what, target)
	}
}

func manifestSummary(b *strings.Builder, r automium.GetArtifactManifestResult) {
	fmt.Fprintf(b, "Artifact manifest of %s: %d entr(ies) under %s. Digest: %s\n\n", code(r.RunID), len(r.Entries), code(r.Root), code(r.Digest))
	if c := r.Completeness; c != nil {
		if c.Complete {
			fmt.Fprintf(b, "Complete for verdict %s with %d retr(ies).\n\n", code(string(c.Verdict)), c.RetryCount)
		} else {
			fmt.Fprintf(b, "Incomplete for verdict %s with %d retr(ies): missing %s.\n\n", code(string(c.Verdict)), c.RetryCount, kindList(c.MissingKinds))
		}
	}
	b.WriteString("| kind | path | media type |\n|---|---|---|\n")
	for i, e := range r.Entries {
		if i == maxSummaryRows {
			fmt.Fprintf(b, "\n%d more entries are in the structured content.\n", len(r.Entries)-i)
			break
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", e.Kind, code(e.Path), code(e.MediaType))
	}
	b.WriteString("\n" + r.Notice + "\n")
}

// specSummary gives the spec itself, whole, in a fenced block: the spec is
// what the caller asked for, and a model that only reads text must be able
// to write it to its file.
func specSummary(b *strings.Builder, r automium.PlaywrightSpec) {
	fmt.Fprintf(b, "Playwright spec %s for journey %s (digest %s). Spec digest: %s. Nothing ran.\n\n",
		code(r.FileName), code(r.JourneyID), code(r.JourneyDigest), code(r.SpecDigest))
	fence := strings.Repeat("`", max(3, longestRun(r.Spec, '`')+1))
	lang := "ts"
	if r.Language == "javascript" {
		lang = "js"
	}
	b.WriteString(fence + lang + "\n" + r.Spec)
	if !strings.HasSuffix(r.Spec, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(fence + "\n\nMap its report back with the mapping in the structured content (automium_compare_reports).\n")
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := range len(s) {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

func plannerText(p automium.PlannerRef) string {
	return code(p.ID) + " (" + code(p.Vendor) + " " + code(p.Model) + ")"
}

func kindList(kinds []automium.ArtifactKind) string {
	if len(kinds) == 0 {
		return "nothing"
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = string(k)
	}
	return strings.Join(parts, ", ")
}

// maxCodeBytes bounds a client value in a summary.
const maxCodeBytes = 80

// code renders a value as a Markdown code span, cut to maxCodeBytes: a
// code span shows its text literally, so no value can open a link, a heading
// or an emphasis. Backticks become apostrophes (a span cannot hold its own
// fence simply), a pipe is escaped for tables, and control, format and
// line-breaking characters become spaces, so a value stays on its line.
func code(s string) string {
	if s == "" {
		return "—"
	}
	s = echo.Cut(s, maxCodeBytes)
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '`':
			return '\''
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029':
			return ' '
		}
		return r
	}, s)
	s = strings.ReplaceAll(s, "|", `\|`)
	return "`" + s + "`"
}

// oneLine keeps a problem's text on its list item's line and as plain text:
// a problem quotes what the client sent (an ID of "<script>" or
// "[x](javascript:…)"), and its list item is Markdown, so a character that
// could open HTML, an autolink, a link, an image, an entity or a code span
// is escaped with a backslash, and control, format and line-breaking
// characters become spaces.
func oneLine(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case strings.ContainsRune(markdownActive, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// markdownActive are the characters oneLine escapes: each begins HTML, an
// autolink, a link or image, an entity or a code span, or is the escape.
const markdownActive = "\\<>[]`&!"
