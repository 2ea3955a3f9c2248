package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// Every agent session pays for tools/list before its first call, so the
// schemas a tool advertises are compacted, when go generate writes them, by
// one rule that holds for any tool the table gains:
//
//   - An output schema keeps every type, property, required list, enum and
//     bound, and loses its prose: a program validates structured content
//     against it, and a model reads the result itself, whose fields the
//     descriptions of the resources and prompts explain.
//   - A subschema that occurs more than once in one schema, such as the
//     target of a step, a drop destination and the target of an assertion, is
//     written once under "$defs" and referred to by a local "$ref" wherever it
//     occurs, with the description of that occurrence (an annotation, which a
//     $ref may carry) beside it. A large subschema that occurs once, such as
//     the journey inside a run submission, stays inline.
//   - An input enum of more than maxAdvertisedEnum values (the 40 target
//     roles, the 16 intents, the 14 fixtures) is written as the length of its
//     longest value: the description names the resource or tool that lists
//     the values, and a value outside the set is refused with every allowed
//     value. An object of 4 KiB or more that an earlier tool advertised whole, such as the journey
//     automium_compile_journey takes and automium_create_run_submission takes
//     again, is written the second time the same way, all its enums bounded:
//     one journey schema lists the vocabulary once.
//   - An input property keeps the first clause of its description (what the
//     value is), and only the first time the catalog says it: the tools are
//     listed together, in table order, and a sentence a model has read under
//     automium_compile_journey tells it nothing new under
//     automium_create_run_submission.
//
// Nothing that validates changes: inlining every $ref gives back the derived
// schema, less its prose (TestCompactSchemasInlineToDerived), and the
// argument walker enforces the root package's schema in memory (see
// walker.go), which the compacted one only rewrites. The token cost is
// measured with a real tokenizer by e2e/agent/tokens.mjs, in CI, against a
// budget; docs/catalog.md has the per-tool figures.

// minHoistBytes is the smallest subschema, as JSON, worth a definition: below
// it, the $ref and the definition's name cost about what a second copy does.
const minHoistBytes = 48

// minSaidObjectBytes is the smallest object, as JSON, whose enums a second
// advertisement bounds instead of listing: the journey (many KiB) is worth it;
// a report mapping, whose few short enums are most of what it says, is not.
const minSaidObjectBytes = 4096

// maxAdvertisedEnum is the longest enum an input schema lists.
const maxAdvertisedEnum = 12

// seenDescriptions records the input descriptions the catalog has already
// said, across the tools compacted so far, in table order.
type seenDescriptions map[string]bool

// compactSchema compacts a derived schema in place, as described above, and
// returns its JSON. seen is nil for an output schema.
func compactSchema(s *jsonschema.Schema, output bool, seen seenDescriptions) (json.RawMessage, error) {
	pruneProse(s, output, seen)
	if err := hoistRepeated(s); err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// pruneProse is compactSchema without the $defs: what inlining the compacted
// schema gives back.
func pruneProse(s *jsonschema.Schema, output bool, seen seenDescriptions) {
	if output {
		eachSchema(s, func(n *jsonschema.Schema, _ string) { stripOutput(n) })
	} else {
		eachSchema(s, func(n *jsonschema.Schema, _ string) {
			if len(n.Enum) > maxAdvertisedEnum {
				boundInstead(n)
			}
		})
		dropSaidObjects(s, seen)
		dropSaid(s, seen)
	}
}

// boundInstead replaces the enum of a string by the length of its longest
// value: a true bound, since validation refuses every value outside the set,
// and one that keeps every advertised string bounded (docs/limits.md).
func boundInstead(n *jsonschema.Schema) {
	longest := 0
	for _, v := range n.Enum {
		sv, ok := v.(string)
		if !ok {
			return // only string sets are bounded by their longest value
		}
		longest = max(longest, utf8.RuneCountInString(sv))
	}
	if n.MaxLength == nil || *n.MaxLength > longest {
		n.MaxLength = &longest
	}
	n.Enum = nil
}

// dropSaidObjects bounds instead of listing the enums of every object, other
// than s itself, that an earlier tool advertised whole, and records the
// objects s advertises whole, s among them. Objects are compared without
// their own description, after boundInstead.
func dropSaidObjects(s *jsonschema.Schema, seen seenDescriptions) {
	var local []string
	var walk func(n *jsonschema.Schema)
	walk = func(n *jsonschema.Schema) {
		if n == nil {
			return
		}
		if n.Type == "object" {
			body, err := withoutDescription(n)
			if err != nil {
				return
			}
			if n != s && len(body) >= minSaidObjectBytes && seen["object:"+string(body)] {
				eachSchema(n, func(m *jsonschema.Schema, _ string) {
					if len(m.Enum) > 0 {
						boundInstead(m)
					}
				})
				return
			}
			local = append(local, "object:"+string(body))
		}
		for _, p := range propertyNames(n) {
			walk(n.Properties[p])
		}
		walk(n.Items)
		walk(n.AdditionalProperties)
	}
	walk(s)
	for _, b := range local {
		seen[b] = true
	}
}

// stripOutput leaves an output node its types, properties, items, required
// lists, closure and enums: what a program validating structured content
// checks. Prose goes, and so do the input bounds an output inherits from a
// type it shares with an input (a planner's ID of at most 128 characters):
// the server, not the client, wrote the value.
func stripOutput(n *jsonschema.Schema) {
	n.Description = ""
	n.MinLength, n.MaxLength, n.Pattern = nil, nil, ""
	n.Minimum, n.Maximum, n.ExclusiveMinimum, n.ExclusiveMaximum = nil, nil, nil, nil
	n.MinItems, n.MaxItems, n.UniqueItems = nil, nil, false
	n.MinProperties, n.MaxProperties = nil, nil
	n.Required, n.AdditionalProperties = nil, nil
}

// firstClause is the part of a property description up to its first
// semicolon or sentence end: what the value is. What follows says how it is
// checked or used, which the validator's problems say when it matters, each
// with the fix.
func firstClause(d string) string {
	// Abbreviations end in a dot that ends no sentence.
	masked := strings.NewReplacer("e.g. ", "e.g.\x00", "i.e. ", "i.e.\x00").Replace(d)
	cut := len(masked)
	for _, sep := range []string{"; ", ". "} {
		if i := strings.Index(masked, sep); i >= 0 && i < cut {
			cut = i
		}
	}
	return strings.TrimSuffix(d[:cut], ".")
}

// dropSaid removes every property description the catalog already said and
// records the rest. Only descriptions of properties count: a tool's own
// description is its own.
func dropSaid(s *jsonschema.Schema, seen seenDescriptions) {
	var local []string
	eachSchema(s, func(n *jsonschema.Schema, _ string) {
		if n == s || n.Description == "" {
			return
		}
		n.Description = firstClause(n.Description)
		if seen[n.Description] {
			n.Description = ""
			return
		}
		local = append(local, n.Description)
	})
	for _, d := range local {
		seen[d] = true
	}
}

// eachSchema calls f for s and every subschema under it, depth first in
// property order; name is the name of the property (or, for items, of the
// list) the subschema is found under.
func eachSchema(s *jsonschema.Schema, f func(n *jsonschema.Schema, name string)) {
	var walk func(n *jsonschema.Schema, name string)
	walk = func(n *jsonschema.Schema, name string) {
		if n == nil {
			return
		}
		f(n, name)
		for _, p := range propertyNames(n) {
			walk(n.Properties[p], p)
		}
		walk(n.Items, itemName(name))
		walk(n.AdditionalProperties, itemName(name))
		for _, d := range slices.Sorted(mapKeys(n.Defs)) {
			walk(n.Defs[d], d)
		}
	}
	walk(s, "")
}

// propertyNames lists a schema's properties in the order they are rendered.
func propertyNames(s *jsonschema.Schema) []string {
	names := slices.Clone(s.PropertyOrder)
	var rest []string
	for p := range s.Properties {
		if !slices.Contains(names, p) {
			rest = append(rest, p)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// itemName names one item of a list: step for steps, entry for entries.
func itemName(list string) string {
	switch {
	case strings.HasSuffix(list, "ies"):
		return strings.TrimSuffix(list, "ies") + "y"
	case strings.HasSuffix(list, "s"):
		return strings.TrimSuffix(list, "s")
	case list == "":
		return "item"
	}
	return list + "Item"
}

// hoistRepeated moves every subschema of s that occurs more than once, and is
// at least minHoistBytes as JSON, to s's $defs, largest saving first, until
// none is left. Occurrences are compared without their descriptions, which
// stay at the occurrence.
func hoistRepeated(s *jsonschema.Schema) error {
	for {
		type group struct {
			name  string
			body  string
			nodes []*jsonschema.Schema
		}
		groups := map[string]*group{}
		var order []string
		var err error
		eachSchema(s, func(n *jsonschema.Schema, name string) {
			if n == s || n.Ref != "" || err != nil {
				return
			}
			var key []byte
			if key, err = withoutDescription(n); err != nil {
				return
			}
			g := groups[string(key)]
			if g == nil {
				g = &group{name: name, body: string(key)}
				groups[string(key)] = g
				order = append(order, string(key))
			}
			g.nodes = append(g.nodes, n)
		})
		if err != nil {
			return err
		}
		var best *group
		for _, k := range order {
			g := groups[k]
			if len(g.nodes) < 2 || len(g.body) < minHoistBytes {
				continue
			}
			if best == nil || saving(g.body, len(g.nodes)) > saving(best.body, len(best.nodes)) {
				best = g
			}
		}
		if best == nil {
			return nil
		}
		name := defName(s, best.name)
		def := *best.nodes[0]
		def.Description = ""
		if s.Defs == nil {
			s.Defs = map[string]*jsonschema.Schema{}
		}
		s.Defs[name] = &def
		for _, n := range best.nodes {
			*n = jsonschema.Schema{Ref: "#/$defs/" + name, Description: n.Description}
		}
	}
}

// saving is the bytes saved by writing a body once instead of n times.
func saving(body string, n int) int { return (n - 1) * len(body) }

// defName returns name, or name2, name3, ..., whichever s's $defs lacks.
func defName(s *jsonschema.Schema, name string) string {
	if name == "" {
		name = "def"
	}
	for i := 1; ; i++ {
		candidate := name
		if i > 1 {
			candidate = fmt.Sprintf("%s%d", name, i)
		}
		if _, taken := s.Defs[candidate]; !taken {
			return candidate
		}
	}
}

// withoutDescription is the JSON of n with its own description left out.
func withoutDescription(n *jsonschema.Schema) ([]byte, error) {
	c := *n
	c.Description = ""
	return json.Marshal(&c)
}
