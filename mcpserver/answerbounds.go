package mcpserver

import (
	"fmt"
	"strings"
	"sync"

	"github.com/automium/automium/internal/limit"
)

// Every answer is bounded before it exists. Each tool's worst answer (the
// bytes of its result, for a client with structured content and for one
// without, and for its errors) is a function of the input bounds, written
// down here, given to its row of the tool table (tools.go), listed in docs/answers.md (go generate ./...) and held by
// TestAnswerBounds at maximal inputs.
//
// The transports charge a call its answer's bound at admission (AnswerBound),
// so calls whose answers could not fit their in-flight budget wait (stdio) or
// get 503 (HTTP) before they are served. A call's charge is the smaller of
// its tool's worst answer and what its request can make: Base plus PerByte
// bytes per byte of the request line, since every byte an answer grows by
// comes from the request (a character JSON escapes to six bytes, a step that
// becomes a graph node and its edges). An answer over its charge is still
// counted once it is encoded.

// textBytes is the most bytes one character of client text takes in an
// answer's JSON (a control character or '<' is \u0000 or \u003c), and
// legacyTextBytes in the JSON of a client before structured content, which
// reads that JSON as a string (\u0000 becomes \\u0000).
const (
	textBytes       = 6
	legacyTextBytes = 7
)

// maxTargetName bounds a target's name (journey.go's max=200).
const maxTargetName = 200

// maxSpecBytes bounds an exported spec (the root package's
// TestExportSizeBound holds it).
const maxSpecBytes = 4 << 20

// maxSummaryBytes bounds a Markdown summary of summarize: at most
// maxSummaryRows rows of client values cut to maxCodeBytes, and fixed words.
// (The export's summary is its spec, counted apart.)
const maxSummaryBytes = 32 << 10

// maxComparisonBytes bounds the structured content of a comparison answer
// (every comparison tool's default answer, and every page of rows): the
// root package holds its JSON to it (TestComparisonAnswerBound).
const maxComparisonBytes = limit.MaxComparisonAnswerBytes

// maxErrorAnswer bounds an isError result: at most MaxProblems problems in
// MaxProblemBytes of text, written twice (the readable lines and the JSON
// envelope), each byte of the JSON at most six bytes on the wire, plus what
// each problem adds around its text.
const maxErrorAnswer = 8*limit.MaxProblemBytes + limit.MaxProblems*256

// answerBound is one row of the table.
type answerBound struct {
	// Worst is the most bytes the tool's result can have, errors included.
	Worst int64
	// Formula says how Worst follows from the input bounds.
	Formula string
	// Base and PerByte make the admission charge of a request of n bytes,
	// Base + PerByte×n, never above Worst. PerByte 0 charges Worst.
	Base, PerByte int64
}

// worst is the row's worst answer, errors included: an isError result of
// any tool is at most maxErrorAnswer.
func (b answerBound) worst() int64 { return max(b.Worst, maxErrorAnswer) }

// charge is what admission holds for the answer of a request of n bytes.
func (b answerBound) charge(n int64) int64 {
	if b.PerByte == 0 {
		return b.worst()
	}
	return min(b.worst(), b.Base+b.PerByte*max(n, 0))
}

// graphNodes is the most nodes a compiled journey has: every step and
// assertion, the recovery node and the pass and fail terminals.
const graphNodes = limit.MaxSteps + limit.MaxAssertions + 3

// The bounds of the rows of the tool table (tools.go, bounded), by what the
// answer holds. A tool without one is bounded as every other request is
// (otherAnswers), which TestAnswerBounds holds its example call to: a new tool
// owes a bound only when its answers may be larger.
var (
	appsAnswer     = answerBound{Worst: 16 << 10, Formula: "the corpus's apps, fixed: 16 KiB", Base: 16 << 10, PerByte: 8}
	fixturesAnswer = answerBound{Worst: 48 << 10, Formula: "the corpus's fixtures and profiles, fixed: 48 KiB", Base: 48 << 10, PerByte: 8}
	graphAnswer    = answerBound{
		Worst: 32<<10 + graphNodes*(2<<10+legacyTextBytes*(limit.MaxTextLength+maxTargetName)) + maxSummaryBytes,
		Formula: "32 KiB + (MaxSteps + MaxAssertions + 3) nodes × (2 KiB + 7 × (MaxTextLength + 200 name)) + 32 KiB summary; " +
			"the JSON once (structured) or as text (2025-03-26: 7 bytes a character)",
		// 32 a byte: a step of 20 bytes ({"intent":"go_back"}) is a node
		// of about 470 bytes in a 2025-03-26 client's text, whose JSON
		// escapes every quote (TestCompileWithinItsCharge).
		Base: 32 << 10, PerByte: 32,
	}
	submissionAnswer = answerBound{
		Worst:   8<<10 + 16*legacyTextBytes*limit.MaxIDLength + maxSummaryBytes,
		Formula: "8 KiB + 16 IDs × 7 × MaxIDLength + 32 KiB summary",
		Base:    16 << 10, PerByte: 8,
	}
	replayAnswer = answerBound{
		Worst:   8<<10 + 4*legacyTextBytes*limit.MaxIDLength + maxSummaryBytes,
		Formula: "8 KiB + 4 IDs × 7 × MaxIDLength + 32 KiB summary",
		Base:    16 << 10, PerByte: 8,
	}
	manifestAnswer = answerBound{
		Worst:   8<<10 + (limit.MaxArtifactEntries+1)*(512+legacyTextBytes*limit.MaxPathLength) + maxSummaryBytes,
		Formula: "8 KiB + (MaxArtifactEntries + 1 root) × (512 B + 7 × MaxPathLength) + 32 KiB summary",
		Base:    16 << 10, PerByte: 8,
	}
	specAnswer = answerBound{
		Worst: 8*maxSpecBytes + 16<<10,
		Formula: "the spec (at most 4 MiB, ASCII) as Markdown text, JSON-escaped at most 2×, and in the structured content at most 6× " +
			"('<' is \\u003c), + 16 KiB; 2025-03-26: 7×",
		Base: 64 << 10, PerByte: 16,
	}
	// comparisonAnswer is every comparison tool's: its answer is summary
	// first and bounded whatever the input (the root package's selection of
	// rows).
	comparisonAnswer = answerBound{
		Worst:   2*maxComparisonBytes + maxSummaryBytes,
		Formula: "128 KiB of structured content (or that JSON as text, at most 2×, for 2025-03-26) + 32 KiB Markdown summary",
	}
)

// answerBounds is the bound of every row that has one, by tool name.
var answerBounds = sync.OnceValue(func() map[string]answerBound {
	bounds := map[string]answerBound{}
	for _, r := range toolTable() {
		if r.bound != nil {
			bounds[r.def.Name] = *r.bound
		}
	}
	return bounds
})

// otherAnswers bounds every answer that is not a tool's in the table: the
// catalog, resources, prompts (debug_failed_run quotes a replay summary of
// up to 32,768 characters), completions, an unknown tool's or method's error.
var otherAnswers = answerBound{
	Worst:   1 << 20,
	Formula: "64 KiB + 8 bytes per request byte (a prompt quotes its arguments), at most 1 MiB",
	Base:    64 << 10, PerByte: 8,
}

// AnswerBound is what a transport charges at admission for the answer of a
// request of requestBytes to method, naming name (a tool's name for
// tools/call): the bound of the tool's answer from the table, and for every
// other request otherAnswers'. Pass it as stdio.Transport.AnswerBound and
// transport.HTTPOptions.AnswerBound; it knows the server New builds, so an
// embedder's own tools are charged as other requests are.
func AnswerBound(method, name string, requestBytes int64) int64 {
	if method == "tools/call" {
		if b, ok := answerBounds()[name]; ok {
			return b.charge(requestBytes)
		}
	}
	return otherAnswers.charge(requestBytes)
}

// answerBoundsDoc is docs/answers.md, written by go generate ./....
func answerBoundsDoc() []byte {
	var b strings.Builder
	b.WriteString(`# Answer bounds

<!-- Code generated by go generate ./... from the tool table (mcpserver/tools.go, mcpserver/answerbounds.go); DO NOT EDIT. -->

Every answer is bounded before it exists. This table gives each tool's worst
answer: the bytes of its result, errors included, for a client with structured
content and for one that negotiated 2025-03-26 (which reads the JSON as text).
` + "`TestAnswerBounds`" + ` (mcpserver) holds each at maximal inputs.

The transports charge a call its answer's bound when they admit it, beside its
request, in the in-flight budget (stdio: 8 MiB, the call waits; HTTP: 16 MiB
for all sessions and per session, the call gets 503): the smaller of the
worst answer and base + per byte × the request's bytes, since an answer grows
only with what its request carries. A call alone is always admitted, and an
answer over its charge is counted once it is encoded.

| Tool | Worst answer | How | Charge at admission |
|---|---|---|---|
`)
	for _, r := range toolTable() {
		bound := otherAnswers
		if r.bound != nil {
			bound = *r.bound
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.def.Name, bytesText(bound.worst()), bound.Formula, chargeText(bound))
	}
	fmt.Fprintf(&b, "| every other request | %s | %s | %s |\n", bytesText(otherAnswers.worst()), otherAnswers.Formula, chargeText(otherAnswers))
	fmt.Fprintf(&b, "\nAn error (an `isError` result) of any tool is at most %s: at most %d problems in %s of text, written as readable lines and as JSON, each JSON byte at most six on the wire, and 256 B around each problem. A row's worst answer is never below it.\n",
		bytesText(maxErrorAnswer), limit.MaxProblems, bytesText(limit.MaxProblemBytes))
	return []byte(b.String())
}

func chargeText(b answerBound) string {
	if b.PerByte == 0 {
		return "its worst answer"
	}
	return fmt.Sprintf("%s + %d × request bytes", bytesText(b.Base), b.PerByte)
}

// bytesText writes n in bytes with thousands separators, and in KiB or MiB.
func bytesText(n int64) string {
	s := fmt.Sprint(n)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%s B (%.1f MiB)", out, float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%s B (%.0f KiB)", out, float64(n)/(1<<10))
	}
	return string(out) + " B"
}
