// Package schemacompact compacts the JSON Schemas a catalog of tools
// advertises, so that an agent session, which pays for tools/list before its
// first call, reads fewer tokens. It is a pure transformation of
// jsonschema-go schemas, run when go generate writes an adapter's advertised
// schemas (mcpserver's toolschemas/), never while a server serves: one rule
// set that holds for any tool the catalog gains. The advertised schema is a
// guide for the client, never stricter than the server: everything it drops
// only widens what it admits, and the server's argument walker enforces the
// whole schema in memory, with a coded problem and its fix for every value
// the advertised schema no longer refuses.
//
//   - An output schema keeps the types, properties and enums of its first
//     outputDepth levels (a report's members and theirs), and below them only
//     each value's type: a program validating structured content still checks
//     the shape, and a model reads the result itself, whose fields the
//     resources and prompts explain. Prose, required lists and input bounds go.
//   - A subschema that occurs more than once in one schema, such as the
//     target of a step, a drop destination and the target of an assertion, is
//     written once under "$defs" and referred to by a local "$ref" wherever it
//     occurs, with the description of that occurrence (an annotation, which a
//     $ref may carry) beside it.
//   - An object of minSaidObjectBytes or more that an earlier tool advertised
//     whole, such as the journey automium_compile_journey takes and
//     automium_create_run_submission takes again, is written the second time
//     as an object only, whose description names the tool that lists its
//     members: one journey schema is advertised once.
//   - An input enum of more than maxAdvertisedEnum values (the 40 target
//     roles, the 16 intents, the 14 fixtures) is written as the length of its
//     longest value: the description names the resource or tool that lists
//     the values, and a value outside the set is refused with every allowed
//     value. A string with an enum needs no minLength.
//   - A pattern longer than maxAdvertisedPattern bytes (the path that must be
//     safe on POSIX, Windows and in a URL) is not advertised: its description
//     says the rule in words, and the walker's problem says which part failed.
//   - An input property keeps the first clause of its description (what the
//     value is), less a closing range that its bounds already state ("1 to
//     16"), and only the first time the catalog says it: the tools are listed
//     together, in table order, and a sentence a model has read under
//     automium_compile_journey tells it nothing new under
//     automium_create_run_submission.
//
// [Catalog.Prune] is the rule set without the $defs: inlining every $ref of an
// advertised schema (internal/schemaref) gives back what Prune makes of the
// derived schema (mcpserver's TestCompactSchemasInlineToDerived), and
// mcpserver's mutated-call tests hold what the advertised schema still says
// against its walker. The token cost is measured with a real tokenizer by
// e2e/agent/tokens.mjs, in CI, against a budget; docs/catalog.md has the
// per-tool figures.
package schemacompact

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// minHoistBytes is the smallest subschema, as JSON, worth a definition: below
// it, the $ref and the definition's name cost about what a second copy does.
const minHoistBytes = 48

// minSaidObjectBytes is the smallest object, as JSON, whose enums a second
// advertisement bounds instead of listing: the journey (many KiB) is worth it;
// a report mapping, whose few short enums are most of what it says, is not.
const minSaidObjectBytes = 256

// maxAdvertisedEnum is the longest enum an input schema lists.
const maxAdvertisedEnum = 12

// maxAdvertisedPattern is the longest pattern, in bytes, an input schema
// carries: a shorter one (an ID's, a digest's) tells a client the form in
// fewer tokens than words would.
const maxAdvertisedPattern = 64

// outputDepth is how many levels of an output schema list their members:
// the result's, and each member's.
const outputDepth = 3

// Catalog records what a catalog has already said, across the tools
// compacted so far, in catalog order: the input descriptions, and the objects
// advertised whole, each with the tool that advertised it. One Catalog
// compacts one catalog's tools, each once, in the order they are listed.
type Catalog struct {
	tool string // the tool being compacted
	// words rewrites a description as the catalog finally writes it (the
	// adapter's tool names for Go names), to compare with a pointer.
	words   func(string) string
	text    map[string]bool
	objects map[string]saidAt
	// pointers are the objects written as an object only, whose description
	// is the one place that says where their members are listed.
	pointers map[*jsonschema.Schema]bool
}

// NewCatalog returns a record of nothing said yet, for a catalog's first
// tool. words is how the adapter rewrites the descriptions of the schemas it
// advertises after compaction (nil: as they are); a description that already
// points where an object's members are listed is recognized in those words.
func NewCatalog(words func(string) string) *Catalog {
	if words == nil {
		words = func(s string) string { return s }
	}
	return &Catalog{words: words, text: map[string]bool{}, objects: map[string]saidAt{},
		pointers: map[*jsonschema.Schema]bool{}}
}

// Compact compacts s, the derived schema of the named tool's input (output
// false) or output, in place, as described in the package doc, and returns
// its JSON. A tool's input is compacted after every tool listed before it.
func (c *Catalog) Compact(tool string, s *jsonschema.Schema, output bool) (json.RawMessage, error) {
	c.Prune(tool, s, output)
	if err := hoistRepeated(s); err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// Prune is Compact without the $defs, in place: what inlining the compacted
// schema gives back.
func (c *Catalog) Prune(tool string, s *jsonschema.Schema, output bool) {
	c.tool = tool
	if output {
		eachSchema(s, func(n *jsonschema.Schema, _ string) { stripOutput(n) })
		truncateBelow(s, outputDepth)
	} else {
		eachSchema(s, func(n *jsonschema.Schema, _ string) {
			if len(n.Enum) > maxAdvertisedEnum {
				boundInstead(n)
			}
			if len(n.Pattern) > maxAdvertisedPattern {
				n.Pattern = ""
			}
			if len(n.Enum) > 0 || n.MinLength != nil && *n.MinLength == 1 && patternRefusesEmpty(n.Pattern) {
				n.MinLength = nil
			}
		})
		dropSaidObjects(s, c)
		dropSaidForms(s, c)
		dropSaid(s, c)
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

// dropSaidObjects writes every object, other than s itself, that an earlier
// tool advertised whole as an object only, whose description says where its
// members are listed, and records the objects s advertises whole, s among
// them. Objects are compared without their own description, after the enums
// are bounded.
func dropSaidObjects(s *jsonschema.Schema, seen *Catalog) {
	type said struct{ key, where string }
	var local []said
	// path is where n is in s, as a pointer names it: "planner",
	// "mapping.planner", "planners[]" for the items of a list, "labels.*"
	// for the values of a map. A bare property name would be ambiguous: a
	// root property and a nested one of the same name, or a list whose
	// items are the object, would resolve to a different object, or none.
	var walk func(n *jsonschema.Schema, path string)
	walk = func(n *jsonschema.Schema, path string) {
		if n == nil {
			return
		}
		if n.Type == "object" {
			body, err := withoutDescription(n)
			if err != nil {
				return
			}
			key := "object:" + string(body)
			if by, ok := seen.objects[key]; ok && n != s && len(body) >= minSaidObjectBytes && by.tool != seen.tool {
				*n = jsonschema.Schema{Type: "object", Description: saidObjectDescription(n.Description, by, seen.words)}
				seen.pointers[n] = true
				return
			}
			where := seen.tool + " takes it"
			if n != s {
				where = path + " in " + seen.tool
			}
			local = append(local, said{key, where})
		}
		for _, p := range propertyNames(n) {
			if path == "" {
				walk(n.Properties[p], p)
			} else {
				walk(n.Properties[p], path+"."+p)
			}
		}
		walk(n.Items, path+"[]")
		walk(n.AdditionalProperties, path+".*")
	}
	walk(s, "")
	for _, o := range local {
		if _, ok := seen.objects[o.key]; !ok {
			seen.objects[o.key] = saidAt{seen.tool, o.where}
		}
	}
}

// saidAt is where the catalog first listed an object's members: the tool, and
// how a description names the place ("automium_compile_journey takes it",
// "planner in automium_create_run_submission").
type saidAt struct{ tool, where string }

// saidObjectDescription is the description of an object advertised as an
// object only: its own first clause, and where its members are listed. A
// clause that already ends with the pointer ("your own journey, as
// CompileJourney takes it") is kept as it is; one that only names the tool
// otherwise ("the object t1 returned") still gets the pointer, which is the
// one place a model (and schemaref.InlineCatalog) learns the members from.
func saidObjectDescription(own string, at saidAt, words func(string) string) string {
	own = firstClause(own)
	switch {
	case strings.HasSuffix(words(own), "as "+at.where):
		return own
	case own == "":
		return "as " + at.where
	}
	return own + ", as " + at.where
}

// truncateBelow leaves every node deeper than depth levels under s (a
// property, an item or a definition each a level down) only its type.
func truncateBelow(s *jsonschema.Schema, depth int) {
	var walk func(n *jsonschema.Schema, level int)
	walk = func(n *jsonschema.Schema, level int) {
		if n == nil {
			return
		}
		if level >= depth {
			*n = jsonschema.Schema{Type: n.Type, Types: n.Types}
			return
		}
		for _, p := range propertyNames(n) {
			walk(n.Properties[p], level+1)
		}
		walk(n.Items, level+1)
		walk(n.AdditionalProperties, level+1)
	}
	walk(s, 0)
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

// patternRefusesEmpty reports whether a pattern cannot match the empty string, so
// that a minLength of 1 beside it says nothing more.
func patternRefusesEmpty(pattern string) bool {
	if pattern == "" {
		return false
	}
	re, err := regexp.Compile(pattern)
	return err == nil && !re.MatchString("")
}

// minSaidEnum is the shortest enum worth listing only once in the catalog: a
// one- or two-value enum costs about what its bound does.
const minSaidEnum = 3

// minSaidPattern is the shortest pattern worth writing only once in the
// catalog: "\\S" costs less than a reference to it would.
const minSaidPattern = 10

// dropSaidForms bounds instead of listing every enum of minSaidEnum values or
// more that an earlier tool listed (the app IDs, the verdicts), drops every
// pattern of minSaidPattern bytes or more that an earlier tool wrote (the
// journey ID's, the run ID's) from a string its maxLength still bounds, and
// records the rest. A model reads the catalog whole, and a value outside the
// form is refused with the form.
func dropSaidForms(s *jsonschema.Schema, seen *Catalog) {
	var local []string
	eachSchema(s, func(n *jsonschema.Schema, _ string) {
		if len(n.Enum) >= minSaidEnum {
			b, err := json.Marshal(n.Enum)
			if err != nil {
				return
			}
			key := "enum:" + string(b)
			if seen.text[key] {
				boundInstead(n)
			} else {
				local = append(local, key)
			}
		}
		if len(n.Pattern) >= minSaidPattern {
			key := "pattern:" + n.Pattern
			if seen.text[key] && n.MaxLength != nil {
				n.Pattern = ""
			} else {
				local = append(local, key)
			}
		}
	})
	for _, k := range local {
		seen.text[k] = true
	}
}

// statedRange matches a description's closing range: ", 1 to 16", " from 1
// to 100", ", up to 100". It is compiled on first use: the package is linked
// into the server, which never compacts, and should not pay for it at start.
var statedRange = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`,?\s+(?:from\s+)?(?:([0-9][0-9,]*)\s+to|up\s+to)\s+([0-9][0-9,]*|2\^53-1)$`)
})

// withoutStatedRange drops a closing range from d when n's bounds (minimum
// and maximum, or minItems and maxItems) state it: the schema says it in
// fewer tokens, and says it once.
func withoutStatedRange(d string, n *jsonschema.Schema) string {
	m := statedRange().FindStringSubmatchIndex(d)
	if m == nil {
		return d
	}
	number := func(i int) (float64, bool) {
		if m[2*i] < 0 {
			return 0, false
		}
		t := strings.ReplaceAll(d[m[2*i]:m[2*i+1]], ",", "")
		if t == "2^53-1" {
			return 1<<53 - 1, true
		}
		f, err := strconv.ParseFloat(t, 64)
		return f, err == nil
	}
	lo, hasLo := number(1)
	hi, _ := number(2)
	bounds := func(min, max *float64) bool {
		return max != nil && *max == hi && (!hasLo || min != nil && *min == lo)
	}
	var minItems, maxItems *float64
	if n.MinItems != nil {
		v := float64(*n.MinItems)
		minItems = &v
	}
	if n.MaxItems != nil {
		v := float64(*n.MaxItems)
		maxItems = &v
	}
	if bounds(n.Minimum, n.Maximum) || bounds(minItems, maxItems) {
		return d[:m[0]]
	}
	return d
}

// spellsName reports whether a description only spells out the name of its
// property ("app ID" for appId, "planners" for planners), or puts one word
// before it ("journey ID" for id, "assertion kind" for kind): the name, and
// the tool it is under, say it.
func spellsName(d, name string) bool {
	var b strings.Builder
	for _, r := range name {
		if unicode.IsUpper(r) {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	words, spelled := strings.Fields(strings.ToLower(d)), strings.Fields(b.String())
	extra := len(words) - len(spelled)
	return len(spelled) > 0 && (extra == 0 || extra == 1 && len(spelled) == 1) &&
		slices.Equal(words[max(extra, 0):], spelled)
}

// dropSaid removes every property description the catalog already said and
// records the rest. Only descriptions of properties count: a tool's own
// description is its own.
func dropSaid(s *jsonschema.Schema, seen *Catalog) {
	var local []string
	eachSchema(s, func(n *jsonschema.Schema, name string) {
		if n == s || n.Description == "" || seen.pointers[n] {
			return
		}
		n.Description = withoutStatedRange(firstClause(n.Description), n)
		if n.Description == "" || seen.text[n.Description] || spellsName(n.Description, name) {
			n.Description = ""
			return
		}
		local = append(local, n.Description)
	})
	for _, d := range local {
		seen.text[d] = true
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
