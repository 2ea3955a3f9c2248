// Package safetytest proves, against the real automium-mcp binary and against
// mcpserver over the real stdio transport, the promises SECURITY.md makes: what the
// process never does (strace), how it answers hostile or malformed input, that it
// stays correct under concurrency, flat in memory and identical across processes.
// SECURITY.md names the test behind each promise. Besides the tests, it holds
// the scripted session and the abuse cases they replay, from which go generate
// ./... writes SECURITY.md's abuse table, docs/limits.md's tables and the
// FuzzServerLines seeds (generate.go).
package safetytest

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/gen"
	"github.com/automium/automium/internal/schemaref"
	"github.com/automium/automium/internal/testsupport"
	"github.com/automium/automium/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// generatedFiles lists the files this package generates: SECURITY.md's abuse
// table, docs/limits.md's input limits and the seed corpus of FuzzServerLines.
func generatedFiles(fs.FS) ([]gen.Output, error) {
	begin, end := gen.BlockMarkers("the abuse cases TestProtocolAbuse sends")
	outs := []gen.Output{gen.BlockOf("docs/security.md", begin, end, abuseTable())}
	limits, _, err := limitsDoc()
	if err != nil {
		return nil, err
	}
	begin, end = gen.BlockMarkers("the input limits of every tool, from the advertised schemas")
	outs = append(outs, gen.BlockOf("docs/limits.md", begin, end, limits))
	seeds, err := fuzzSeeds()
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(seeds)) {
		outs = append(outs, gen.File("tools/internal/safetytest/testdata/fuzz/FuzzServerLines/"+name,
			[]byte("go test fuzz v1\n[]byte("+strconv.Quote(seeds[name])+")\n")))
	}
	return outs, nil
}

// fuzzSeeds is the checked-in seed corpus of FuzzServerLines, by file name:
// every call of the scripted session and every abuse case that fits in 64 KiB,
// and extraSeeds. Inputs the fuzzer once failed on are kept beside them, by
// hash, and are not generated.
func fuzzSeeds() (map[string]string, error) {
	seeds := maps.Clone(extraSeeds)
	var err error
	add := func(name, line string) {
		if _, dup := seeds[name]; dup {
			err = fmt.Errorf("two FuzzServerLines seeds are named %s", name)
		}
		seeds[name] = line
	}
	for i, c := range sessionCalls() {
		if line := c.line(i + 1); len(line) <= 64<<10 {
			add("session-"+seedName(c.name), line)
		}
	}
	for _, c := range append(slices.Clone(beforeInitializeCases), abuseCases()...) {
		if len(c.lines) == 1 && len(c.lines[0]) <= 64<<10 && c.lines[0] != "" {
			add("abuse-"+seedName(c.name), c.lines[0])
		}
	}
	return seeds, err
}

// extraSeeds are protocol lines beyond the scripted session and the abuse cases:
// other methods, notifications, metadata and the sessionless 2026 protocol.
var extraSeeds = map[string]string{
	"listen":            `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{}}}`,
	"discover":          `{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{}}`,
	"set-level":         `{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"debug"}}`,
	"subscribe":         `{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"automium://apps"}}`,
	"cancel-sentinel":   `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"fz-sentinel"}}`,
	"progress-token":    `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":{"progressToken":"p"}}}`,
	"new-protocol-call": `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	"sentinel-id-reuse": `{"jsonrpc":"2.0","id":"fz-sentinel","method":"ping"}`,
	"escaped-id":        `{"jsonrpc":"2.0","id":"\u0041","method":"ping"}`,
	"duplicate-keys":    `{"jsonrpc":"2.0","id":9,"id":10,"method":"ping","method":"tools/list"}`,
	"complete-resource": `{"jsonrpc":"2.0","id":11,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"automium://apps"},"argument":{"name":"x","value":""}}}`,
	"complete-no-ref":   `{"jsonrpc":"2.0","id":12,"method":"completion/complete","params":{"argument":{"name":"appId","value":""}}}`,
	"unicode-goal":      `{"jsonrpc":"2.0","id":13,"method":"prompts/get","params":{"name":"draft_journey","arguments":{"appId":"storefront","fixtureId":"storefront-guest-catalog","goal":"\ud800 \u0000 \u202e"}}}`,
	// The transport's bounds and rules (issue 11), one line each.
	"meta-too-deep":          `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"automium_list_apps","arguments":{},"_meta":{"x":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}}}`,
	"sessionless-in-session": `{"jsonrpc":"2.0","id":16,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	"two-meta-members":       `{"jsonrpc":"2.0","id":17,"method":"tools/list","params":{"_meta":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	"initialize-bad-params":  `{"jsonrpc":"2.0","id":18,"method":"initialize","params":{"protocolVersion":5}}`,
	"tools-call-name-number": `{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":5}}`,
	"method-too-long":        `{"jsonrpc":"2.0","id":20,"method":"` + strings.Repeat("m", 200) + `"}`,
}

// seedName turns a case name into a file name.
func seedName(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// limitsDoc renders docs/limits.md's tables: the bounds automium.Limits lists, then
// the limits of every tool's input from the input schemas the server
// advertises (which the root and mcpserver tests hold equal to the constants
// and to validation), and of the Go-only observed comparison. unbounded lists
// every string, array or number an agent could make arbitrarily large: a
// string without maxLength, an enum or a fixed-length pattern; an array
// without maxItems; a number without maximum.
func limitsDoc() (doc string, unbounded []string, err error) {
	tools, err := listTools()
	if err != nil {
		return "", nil, err
	}
	slices.SortFunc(tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	var b strings.Builder
	b.WriteString("### The bounds `automium.Limits()` lists\n\n| Name | Value | Bounds |\n|---|---|---|\n")
	for _, l := range automium.Limits() {
		fmt.Fprintf(&b, "| `%s` | %d | %s |\n", l.Name, l.Value, l.Bounds)
	}
	// The tool schemas write repeated subschemas once, under $defs, and an
	// object an earlier tool lists whole as an object that says where.
	inputs := map[string]any{}
	for _, tool := range tools {
		inputs[tool.Name] = tool.InputSchema
	}
	inlined, err := schemaref.InlineCatalog(inputs)
	if err != nil {
		return "", nil, err
	}
	section := func(title string, s map[string]any) error {
		var rows []string
		limitRows(s, "", &rows, &unbounded, title)
		fmt.Fprintf(&b, "\n### %s\n\n", title)
		if len(rows) == 0 {
			b.WriteString("No arguments; any property is rejected.\n")
			return nil
		}
		b.WriteString("| Field | Type | Limit |\n|---|---|---|\n")
		for _, r := range rows {
			b.WriteString(r + "\n")
		}
		return nil
	}
	for _, tool := range tools {
		if err := section("`"+tool.Name+"`", inlined[tool.Name]); err != nil {
			return "", nil, err
		}
	}
	return b.String(), unbounded, nil
}

// listTools is tools/list of the server mcpserver.New builds, as a client
// receives it.
func listTools() ([]*mcp.Tool, error) {
	ctx := context.Background()
	serverTransport, clientTransport := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(nil).Connect(ctx, serverTransport, nil)
	if err != nil {
		return nil, err
	}
	defer ss.Wait()
	client := mcp.NewClient(&mcp.Implementation{Name: "automium-gen", Version: "v0.0.0"}, nil)
	cs, err := client.Connect(ctx, clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: testsupport.ProtocolVersion})
	if err != nil {
		ss.Close()
		return nil, err
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	return res.Tools, nil
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
