// Package hostile generates, from the JSON Schemas a server advertises, the
// hostile values of the rule "no answer repeats a client value whole" and the
// arguments that carry them, and checks the answers. It is shared by the
// in-memory test (mcpserver) and the process test over both transports
// (tools/internal/safetytest), so that both attack the same fields, read from the
// schemas, and a field added to a tool is attacked without a test change.
package hostile

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/automium/automium/internal/schemaref"
)

// MaxAnswerBytes bounds any answer to one hostile value, as SECURITY.md
// promises.
const MaxAnswerBytes = 64 << 10

// Value is a client value far over every bound: N copies of Unit.
type Value struct {
	Name string
	Unit string
	N    int
}

// Bytes is the value itself. It is built by the caller once per value, not
// per field: 7 MiB is the cost of one copy.
func (v Value) Bytes() []byte { return bytes.Repeat([]byte(v.Unit), v.N) }

// Values are the values of the issue that made the answers grow: 1 MiB of a
// letter JSON writes as itself, and 7 MiB of <, which an HTML-escaping encoder
// (encoding/json) writes as \u003c, six times as long.
func Values() []Value {
	return []Value{{"1MiB", "x", 1 << 20}, {"7MiB-of-<", "<", 7 << 20}}
}

// StringFields lists the paths of every string field a JSON Schema declares,
// each as the steps to it ("" for an array's item), in a fixed order (names
// sorted at each level). schema is the schema as JSON, or any value that
// marshals to it.
func StringFields(schema any) ([][]string, error) {
	// The tool schemas write repeated subschemas once, under $defs.
	node, err := schemaref.Inline(schema)
	if err != nil {
		return nil, err
	}
	var out [][]string
	var walk func(n map[string]any, at []string, depth int)
	walk = func(n map[string]any, at []string, depth int) {
		if depth > 8 {
			return
		}
		switch typ := n["type"].(type) {
		case string:
			if typ == "string" {
				out = append(out, slices.Clone(at))
			}
		case []any:
			if slices.Contains(typ, any("string")) {
				out = append(out, slices.Clone(at))
			}
		}
		if props, ok := n["properties"].(map[string]any); ok {
			names := make([]string, 0, len(props))
			for name := range props {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, name := range names {
				if p, ok := props[name].(map[string]any); ok {
					walk(p, append(slices.Clip(at), name), depth+1)
				}
			}
		}
		if items, ok := n["items"].(map[string]any); ok {
			walk(items, append(slices.Clip(at), ""), depth+1)
		}
	}
	walk(node, nil, 0)
	return out, nil
}

// Args returns the JSON of arguments that hold a value at path and nothing
// else (objects and one-element arrays on the way), as the bytes before the
// value's quoted string and the bytes after it, so that a caller writes the
// value itself as it is: raw < is valid JSON, and no encoder multiplies it.
// ok is false when path does not start at an object member, since arguments
// are an object.
func Args(path []string) (head, tail string, ok bool) {
	if len(path) == 0 || path[0] == "" {
		return "", "", false
	}
	var h, t strings.Builder
	for _, step := range path {
		if step == "" {
			h.WriteString("[")
		} else {
			h.WriteString("{" + strconv.Quote(step) + ":") // schema names are ASCII identifiers
		}
	}
	h.WriteString(`"`)
	t.WriteString(`"`)
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == "" {
			t.WriteString("]")
		} else {
			t.WriteString("}")
		}
	}
	return h.String(), t.String(), true
}

// Object is the same arguments as Args as a Go value, for a client API that
// takes one.
func Object(path []string, value string) map[string]any {
	var v any = value
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == "" {
			v = []any{v}
		} else {
			v = map[string]any{path[i]: v}
		}
	}
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{}
}

// Spellings are the ways an answer may write one unit of a value: as itself,
// as a JSON \u escape in either case, and as that escape quoted once more
// (JSON text inside a JSON string).
func Spellings(unit string) []string {
	r := []rune(unit)[0]
	return []string{unit, fmt.Sprintf(`\u%04x`, r), fmt.Sprintf(`\u%04X`, r), fmt.Sprintf(`\\u%04x`, r)}
}

// LongestQuote is the longest run of units of a value an answer holds, in any
// of its spellings, and that spelling.
func LongestQuote(answer []byte, unit string) (longest int, spelling string) {
	for _, sp := range Spellings(unit) {
		if n := longestRun(answer, []byte(sp)); n > longest {
			longest, spelling = n, sp
		}
	}
	return longest, spelling
}

// longestRun is the most consecutive copies of unit in b.
func longestRun(b, unit []byte) int {
	best := 0
	for {
		i := bytes.Index(b, unit)
		if i < 0 {
			return best
		}
		n := 0
		for b = b[i:]; bytes.HasPrefix(b, unit); b = b[len(unit):] {
			n++
		}
		best = max(best, n)
	}
}

// Check returns what is wrong with an answer to v, or "": over MaxAnswerBytes,
// or quoting more than quote units of v in any spelling.
func Check(answer []byte, v Value, quote int) string {
	var problems []string
	if len(answer) > MaxAnswerBytes {
		problems = append(problems, fmt.Sprintf("answer is %d bytes, want at most %d", len(answer), MaxAnswerBytes))
	}
	if n, sp := LongestQuote(answer, v.Unit); n > quote {
		problems = append(problems, fmt.Sprintf("answer quotes %d units of the client value as %q, want at most %d", n, sp, quote))
	}
	if problems == nil {
		return ""
	}
	return fmt.Sprintf("%s: %.200s", strings.Join(problems, "; "), answer)
}
