package safetytest

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/mcpserver"
	"github.com/automium/automium/mcpserver/stdio"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLimitsDocumented renders the input limits of every tool from the input
// schemas the live server advertises (which the root and mcpserver tests hold
// equal to the automium.Max* constants and to validation) and keeps the
// generated part of docs/limits.md equal to it (-update rewrites it). It fails on
// any string, array or number an agent could make arbitrarily large: a string
// without maxLength, an enum or a fixed-length pattern; an array without
// maxItems; a number without maximum.
func TestLimitsDocumented(t *testing.T) {
	cs := connectPipe(t, mcpserver.New(nil))
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(tools.Tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	var b strings.Builder
	b.WriteString("### The `automium.Max*` constants\n\n| Constant | Value | Bounds |\n|---|---|---|\n")
	for _, c := range maxConstants(t) {
		fmt.Fprintf(&b, "| `%s` | %d | %s |\n", c.name, c.value, c.bounds)
	}
	var unbounded []string
	section := func(title string, schema any) {
		var rows []string
		data, err := json.Marshal(schema)
		if err != nil {
			t.Fatal(err)
		}
		var s map[string]any
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		limitRows(s, "", &rows, &unbounded, title)
		fmt.Fprintf(&b, "\n### %s\n\n", title)
		if len(rows) == 0 {
			b.WriteString("No arguments; any property is rejected.\n")
			return
		}
		b.WriteString("| Field | Type | Limit |\n|---|---|---|\n")
		for _, r := range rows {
			b.WriteString(r + "\n")
		}
	}
	for _, tool := range tools.Tools {
		section("`"+tool.Name+"`", tool.InputSchema)
	}
	// Go-only inputs: the root package takes recorded trials that no tool exposes.
	observed, err := automium.JSONSchema(reflect.TypeFor[automium.CompareObservedTrialsInput]())
	if err != nil {
		t.Fatal(err)
	}
	section("Go API only: `automium.CompareObservedTrials`", observed)

	if len(unbounded) > 0 {
		t.Errorf("inputs without an upper bound:\n  %s", strings.Join(unbounded, "\n  "))
	}
	checkGenerated(t, filepath.Join(repoRoot, "docs", "limits.md"), "TestLimitsDocumented", strings.TrimPrefix(b.String(), "\n"))
}

// limitConstant is one exported bound of the root package.
type limitConstant struct {
	name   string
	value  int64
	bounds string
}

// maxConstants lists every exported Max* constant of the root package, with its
// value taken from the constant itself. It fails if the root package declares a
// Max* constant this list does not have, so a new bound cannot go undocumented.
func maxConstants(t *testing.T) []limitConstant {
	t.Helper()
	list := []limitConstant{
		{"MaxIDLength", automium.MaxIDLength, "characters of an ID chosen by the caller: journey, planner (id, vendor, model)"},
		{"MaxTextLength", automium.MaxTextLength, "characters of free text: goal, step and assertion values; bytes of the draft_journey goal"},
		{"MaxSteps", automium.MaxSteps, "steps of a journey"},
		{"MaxAssertions", automium.MaxAssertions, "assertions of a journey"},
		{"MaxRecoveryRetries", automium.MaxRecoveryRetries, "recovery.maxRetries of a journey"},
		{"MaxArtifactEntries", automium.MaxArtifactEntries, "entries of an artifact manifest"},
		{"MaxPathLength", automium.MaxPathLength, "characters of an artifact root or entry path"},
		{"MaxProblems", automium.MaxProblems, "problems one error or one invalid journey lists; the last then says how many more there were"},
		{"MaxProblemBytes", automium.MaxProblemBytes, "bytes of problem text one error or one invalid journey lists, counted as JSON writes it (a < is six bytes); the last problem then says how many more there were"},
		{"MaxPlanners", automium.MaxPlanners, "planners of a comparison"},
		{"MaxRepetitions", automium.MaxRepetitions, "repetitions of a comparison (0 or less means 1)"},
		{"MaxAppIDs", automium.MaxAppIDs, "app IDs of a comparison"},
		{"MaxRetryCount", automium.MaxRetryCount, "retryCount of a replay summary"},
		{"MaxObservedTrials", automium.MaxObservedTrials, "recorded trials of an observed comparison (Go API)"},
		{"MaxArtifactSizeBytes", automium.MaxArtifactSizeBytes, "size of an artifact entry, in bytes (1 TiB)"},
		{"MaxTrialLatencyMs", automium.MaxTrialLatencyMs, "latency of one recorded trial (24 hours)"},
		{"MaxTrialTokens", automium.MaxTrialTokens, "input or output tokens of one recorded trial"},
		{"MaxSeed", automium.MaxSeed, "comparison seed (2^53-1, exact in every JSON reader)"},
		{"MaxSnapshotNodes", automium.MaxSnapshotNodes, "nodes of a semantic-snapshot-v1 snapshot (contract schema)"},
		{"MaxSnapshotTabs", automium.MaxSnapshotTabs, "tabs of a semantic-snapshot-v1 snapshot (contract schema)"},
	}
	listed := map[string]bool{}
	for _, c := range list {
		listed[c.name] = true
	}
	files, err := filepath.Glob(filepath.Join(repoRoot, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, spec := range gd.Specs {
					for _, name := range spec.(*ast.ValueSpec).Names {
						if strings.HasPrefix(name.Name, "Max") && name.IsExported() && !listed[name.Name] {
							t.Errorf("%s declares automium.%s, which docs/limits.md does not list; add it to maxConstants", filepath.Base(path), name.Name)
						}
					}
				}
			}
		}
	}
	return list
}

// boundedPattern matches anchored patterns without unbounded repetition, such as
// ^run-[0-9a-f]{20}$.
var boundedPattern = regexp.MustCompile(`^\^[^*+]*\$$`)

// limitRows appends one table row per leaf of schema s and records leaves
// without an upper bound in unbounded.
func limitRows(s map[string]any, path string, rows, unbounded *[]string, where string) {
	typ, _ := s["type"].(string)
	if types, ok := s["type"].([]any); ok {
		for _, x := range types {
			if x != "null" {
				typ, _ = x.(string)
			}
		}
	}
	num := func(key string) (string, bool) {
		v, ok := s[key].(float64)
		if !ok {
			return "", false
		}
		return fmt.Sprintf("%.0f", v), true
	}
	row := func(kind, limit string) {
		*rows = append(*rows, fmt.Sprintf("| `%s` | %s | %s |", path, kind, limit))
	}
	switch typ {
	case "object":
		props, _ := s["properties"].(map[string]any)
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			child := n
			if path != "" {
				child = path + "." + n
			}
			limitRows(props[n].(map[string]any), child, rows, unbounded, where)
		}
		if ap, ok := s["additionalProperties"]; !ok || ap != false {
			*unbounded = append(*unbounded, fmt.Sprintf("%s %s: object accepts additional properties", where, path))
		}
	case "array":
		maxItems, ok := num("maxItems")
		if !ok {
			*unbounded = append(*unbounded, fmt.Sprintf("%s %s: array without maxItems", where, path))
			maxItems = "unbounded"
		}
		minItems, _ := num("minItems")
		limit := "at most " + maxItems + " items"
		if minItems != "" && minItems != "0" {
			limit = minItems + " to " + maxItems + " items"
		}
		if s["uniqueItems"] == true {
			limit += ", each once"
		}
		row("array", limit)
		if items, ok := s["items"].(map[string]any); ok {
			limitRows(items, path+"[]", rows, unbounded, where)
		}
	case "string":
		var parts []string
		if enum, ok := s["enum"].([]any); ok {
			if len(enum) == 1 {
				parts = append(parts, "one value")
			} else {
				parts = append(parts, fmt.Sprintf("one of %d values", len(enum)))
			}
		}
		if maxLength, ok := num("maxLength"); ok {
			parts = append(parts, "at most "+maxLength+" characters")
		}
		pattern, _ := s["pattern"].(string)
		if pattern != "" {
			parts = append(parts, "pattern `"+pattern+"`")
		}
		if len(parts) == 0 || (len(parts) == 1 && pattern != "" && !boundedPattern.MatchString(pattern)) {
			*unbounded = append(*unbounded, fmt.Sprintf("%s %s: string without maxLength, enum or fixed-length pattern", where, path))
		}
		if minLength, ok := num("minLength"); ok && minLength != "0" {
			parts = append(parts, "required non-empty")
		}
		row("string", strings.Join(parts, "; "))
	case "integer", "number":
		maximum, ok := num("maximum")
		if !ok {
			*unbounded = append(*unbounded, fmt.Sprintf("%s %s: number without maximum", where, path))
			maximum = "unbounded"
		}
		limit := "at most " + maximum
		if minimum, ok := num("minimum"); ok {
			limit = minimum + " to " + maximum
		}
		row(typ, limit)
	case "boolean":
		row("boolean", "")
	default:
		*unbounded = append(*unbounded, fmt.Sprintf("%s %s: schema of unknown type %v", where, path, s["type"]))
	}
}

// TestLimitsOutsideTheSchemas checks, at each boundary, the limits docs/limits.md
// states that no input schema carries: the tool-argument cap in mcpserver, the
// prompt-argument caps, and the stdio line cap (whose boundary TestProtocolAbuse
// also checks against the real binary).
func TestLimitsOutsideTheSchemas(t *testing.T) {
	if testing.Short() {
		t.Skip("a process-level proof; skipped with -short, run in full by go test ./... and CI")
	}
	if stdio.DefaultMaxLineBytes != 16<<20 {
		t.Errorf("stdio.DefaultMaxLineBytes = %d; docs/limits.md and SECURITY.md say 16 MiB", stdio.DefaultMaxLineBytes)
	}
	ctx := context.Background()
	cs := connectPipe(t, mcpserver.New(nil))

	// Tool arguments: 8 MiB. At the cap the arguments are decoded (and the goal
	// then fails its own 2,000-character limit); one byte more is refused unread.
	const argumentCap = 8 << 20
	for _, size := range []int{argumentCap, argumentCap + 1} {
		args := json.RawMessage(`{"goal":"` + strings.Repeat("x", size-len(`{"goal":""}`)) + `"}`)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "automium_compile_journey", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		capped := strings.Contains(text, fmt.Sprintf("the limit is %d bytes", argumentCap))
		if capped != (size > argumentCap) {
			t.Errorf("%d bytes of arguments: refused by the %d-byte cap = %v, want %v: %.300s", size, argumentCap, capped, size > argumentCap, text)
		}
	}

	// Prompt arguments, in bytes.
	fixtures, err := automium.ListFixtures(ctx, automium.ListFixturesInput{})
	if err != nil {
		t.Fatal(err)
	}
	f := fixtures.Fixtures[0]
	run := "run-0123456789abcdef0123"
	for _, c := range []struct {
		prompt, arg string
		limit       int
		base        map[string]string
	}{
		{"draft_journey", "goal", automium.MaxTextLength, map[string]string{"appId": f.AppID, "fixtureId": f.ID}},
		{"debug_failed_run", "replaySummary", 32 << 10, map[string]string{"runId": run, "verdict": "failed"}},
		{"debug_failed_run", "artifactManifestRef", 256, map[string]string{"runId": run, "verdict": "failed"}},
		{"compare_planner_backends", "appIds", 4 << 10, map[string]string{"planners": "a=v/m"}},
		{"compare_planner_backends", "planners", 4 << 10, map[string]string{"appIds": f.AppID}},
	} {
		for _, size := range []int{c.limit, c.limit + 1} {
			args := map[string]string{c.arg: strings.Repeat("x", size)}
			for k, v := range c.base {
				args[k] = v
			}
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: c.prompt, Arguments: args})
			capped := err != nil && strings.Contains(err.Error(), "limit_exceeded")
			if capped != (size > c.limit) {
				t.Errorf("%s.%s of %d bytes: limit_exceeded = %v, want %v (error: %v)", c.prompt, c.arg, size, capped, size > c.limit, err)
			}
		}
	}
}

// TestLimitRowsCatchUnbounded shows that TestLimitsDocumented fails on an input
// an agent could make arbitrarily large.
func TestLimitRowsCatchUnbounded(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal([]byte(`{"type":"object","additionalProperties":true,"properties":{
		"text":{"type":"string"},
		"greedy":{"type":"string","pattern":"^a+$"},
		"list":{"type":"array","items":{"type":"string","maxLength":3}},
		"count":{"type":"integer","minimum":0},
		"fine":{"type":"string","pattern":"^[0-9]{4}$"}}}`), &schema); err != nil {
		t.Fatal(err)
	}
	var rows, unbounded []string
	limitRows(schema, "", &rows, &unbounded, "test")
	want := []string{
		"test count: number without maximum",
		"test greedy: string without maxLength, enum or fixed-length pattern",
		"test list: array without maxItems",
		"test text: string without maxLength, enum or fixed-length pattern",
		"test : object accepts additional properties",
	}
	if diff := cmp.Diff(want, unbounded); diff != "" {
		t.Errorf("unbounded inputs (-want +got):\n%s", diff)
	}
}
