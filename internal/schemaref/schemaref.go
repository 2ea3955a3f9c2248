// Package schemaref inlines the local references of a JSON Schema, for the
// readers of advertised schemas (tests, the limits table, the hostile-field
// lists) that walk properties and items as plain maps. The tool schemas write a
// repeated subschema once under "$defs" and refer to it with "$ref" (see
// mcpserver/compact.go); inlined, a schema reads as if each occurrence were
// written out, with the annotations beside a $ref (its description) kept.
package schemaref

import (
	"encoding/json"
	"fmt"
	"strings"
)

// maxDepth and maxNodes bound the inlining, so a schema whose definitions
// refer to each other in a loop, or fan out into an exponential expansion, is
// an error rather than an endless one.
const (
	maxDepth = 64
	maxNodes = 1 << 16 // the largest tool schema inlines to about 1,000
)

// Inline returns the schema raw as a generic JSON value with every local
// "#/$defs/NAME" reference replaced by a copy of the definition, merged with
// the keywords beside the $ref, and the root's $defs removed. schema may be
// json.RawMessage or any value that marshals to a schema.
func Inline(schema any) (map[string]any, error) {
	raw, ok := schema.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(schema); err != nil {
			return nil, err
		}
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, err
	}
	defs, _ := root["$defs"].(map[string]any)
	delete(root, "$defs")
	budget := maxNodes
	out, err := inline(root, defs, 0, &budget)
	if err != nil {
		return nil, err
	}
	m, _ := out.(map[string]any)
	return m, nil
}

func inline(v any, defs map[string]any, depth int, budget *int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("schemaref: references nest deeper than %d levels", maxDepth)
	}
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("schemaref: the inlined schema would have more than %d nodes", maxNodes)
	}
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		if ref, ok := v["$ref"].(string); ok {
			name, local := strings.CutPrefix(ref, "#/$defs/")
			def, found := defs[name]
			if !local || !found {
				return nil, fmt.Errorf("schemaref: $ref %q names no definition of the schema", ref)
			}
			expanded, err := inline(def, defs, depth+1, budget)
			if err != nil {
				return nil, err
			}
			if m, ok := expanded.(map[string]any); ok {
				for k, x := range m {
					out[k] = x
				}
			}
		}
		for k, x := range v {
			if k == "$ref" {
				continue
			}
			y, err := inline(x, defs, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out[k] = y
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			y, err := inline(x, defs, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out[i] = y
		}
		return out, nil
	}
	return v, nil
}
