// Package schemaref inlines the local references of a JSON Schema, for the
// readers of advertised schemas (tests, the limits table, the hostile-field
// lists) that walk properties and items as plain maps. The tool schemas write a
// repeated subschema once under "$defs" and refer to it with "$ref" (see
// internal/schemacompact); inlined, a schema reads as if each occurrence were
// written out, with the annotations beside a $ref (its description) kept.
package schemaref

import (
	"encoding/json"
	"fmt"
	"regexp"
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

// A catalog advertises an object that an earlier tool lists whole as an
// object only, whose description ends by saying where its members are (see
// internal/schemacompact): "as automium_compile_journey takes it" for a tool's
// whole input, "as planner in automium_create_run_submission" for one
// property of it, named by its path from the tool's input ("mapping.planner",
// "planners[]" for the items of a list, "labels.*" for the values of a map).
// saidAt reads that ending.
var saidAt = regexp.MustCompile(`(?:^|, )as (?:([A-Za-z0-9_.*\[\]]+) in )?([a-z0-9_]+)(?: takes it)?$`)

// InlineCatalog inlines every input schema of a catalog (tool name to schema)
// as Inline does, and then writes out every object advertised as an object
// only with the members of the object its description points to, as a
// model reading the whole catalog would. A pointer to a tool or property the
// catalog lacks is an error.
func InlineCatalog(inputs map[string]any) (map[string]map[string]any, error) {
	out := make(map[string]map[string]any, len(inputs))
	for name, s := range inputs {
		m, err := Inline(s)
		if err != nil {
			return nil, fmt.Errorf("schemaref: %s: %w", name, err)
		}
		out[name] = m
	}
	for name, m := range out {
		if err := expandSaid(m, out, 0); err != nil {
			return nil, fmt.Errorf("schemaref: %s: %w", name, err)
		}
	}
	return out, nil
}

func expandSaid(v any, catalog map[string]map[string]any, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("objects point to each other deeper than %d levels", maxDepth)
	}
	switch v := v.(type) {
	case map[string]any:
		if target, ok, err := saidTarget(v, catalog); err != nil {
			return err
		} else if ok {
			for k, x := range deepCopy(target).(map[string]any) {
				if k != "description" {
					v[k] = x
				}
			}
		}
		for _, x := range v {
			if err := expandSaid(x, catalog, depth+1); err != nil {
				return err
			}
		}
	case []any:
		for _, x := range v {
			if err := expandSaid(x, catalog, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// saidTarget returns the object an object-only node points to.
func saidTarget(v map[string]any, catalog map[string]map[string]any) (map[string]any, bool, error) {
	// A pointer is written as the type and the description alone: an object
	// with anything else (the values of a map, a closure) says its own
	// members, whatever its description ends with ("labels, as given").
	desc, _ := v["description"].(string)
	if len(v) != 2 || v["type"] != "object" || !strings.HasPrefix(desc, "as ") && !strings.Contains(desc, ", as ") {
		return nil, false, nil
	}
	m := saidAt.FindStringSubmatch(desc)
	if m == nil {
		return nil, false, nil
	}
	tool, ok := catalog[m[2]]
	if !ok {
		return nil, false, fmt.Errorf("%q points to %s, which the catalog does not list", desc, m[2])
	}
	if m[1] == "" {
		return tool, true, nil
	}
	if p := atPath(tool, m[1]); p != nil {
		return p, true, nil
	}
	return nil, false, fmt.Errorf("%q points to a property %s that %s does not have", desc, m[1], m[2])
}

// atPath returns the object at path in s: property names joined by dots, a
// name followed by "[]" for the items of that list, "*" for the values of a
// map. Only an object is a pointer's target.
func atPath(s map[string]any, path string) map[string]any {
	node := s
	for _, seg := range strings.Split(path, ".") {
		if seg == "*" {
			node, _ = node["additionalProperties"].(map[string]any)
		} else {
			name, lists := seg, 0
			for strings.HasSuffix(name, "[]") { // "a[][]": a list of lists
				name, lists = name[:len(name)-2], lists+1
			}
			props, _ := node["properties"].(map[string]any)
			node, _ = props[name].(map[string]any)
			for ; lists > 0 && node != nil; lists-- {
				node, _ = node["items"].(map[string]any)
			}
		}
		if node == nil {
			return nil
		}
	}
	if node["type"] != "object" {
		return nil
	}
	return node
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}
