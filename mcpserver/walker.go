package mcpserver

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/adapter"
	"github.com/automium/automium/internal/jsonint"
	"github.com/automium/automium/internal/limit"
	"github.com/google/jsonschema-go/jsonschema"
)

// The argument walker reads a tool's raw arguments in one pass and decodes them
// into the tool's Go input type as it goes. It replaces what used to be three
// parses (a byte pre-scan, a generic decode checked against the type, then a
// strict decode) because each of them saw a different input: the pre-scan
// compared property names before unescaping, so "st\u0065ps" escaped its array
// bound and "app\u0049d" its duplicate check, while the decoders unescaped them.
// One reader sees one input.
//
// On the way it refuses, with the JSON path of each, every problem of the
// input's shape and bounds — the ones JSON Schema states and encoding/json would
// silently resolve or reject with a Go-typed message:
//
//   - a property the type does not have, including a case variant of one it has
//     (encoding/json would match "Steps" to steps);
//   - a property named twice in one object, compared after unescaping
//     (encoding/json would keep the last);
//   - a value of the wrong JSON kind, null included: no input value is nullable;
//   - an array longer than its maxItems, a string longer than its maxLength, an
//     integer outside its minimum and maximum or with a fractional part;
//   - an empty string where the property is optional and the schema refuses "",
//     which the Go type could not tell from an absent property;
//   - nesting deeper than maxScanDepth, which no input type reaches.
//
// Values under unknown names and past an array's bound are skipped, not
// decoded: skipping checks the JSON grammar and allocates nothing, so a hostile
// call costs one pass over at most maxArgumentBytes.
//
// The walker is built once per input type, on the first call of a tool that
// takes it, from the Go type (wire names, kinds) and the JSON Schema the root
// package derives for it in memory (bounds; see adapter.Schema). The tool
// advertises that schema compacted (internal/schemacompact), which inlines back to it
// less its prose and its longest enums, each written as the bound of its
// longest value (TestCompactSchemasInlineToDerived), so every bound the walker
// enforces is one a client is told, and no schema text is parsed back.

// maxScanDepth bounds nesting. The deepest input type nests a handful of levels.
const maxScanDepth = limit.MaxNestingDepth

// wkind is the JSON kind a node accepts.
type wkind uint8

const (
	wObject wkind = iota
	wArray
	wString
	wInt  // a JSON number with no fractional part, into a Go signed integer
	wUint // the same, into a Go unsigned integer
	wBool // true or false
)

// wnode is the walker's view of one value of the input type.
type wnode struct {
	kind wkind
	// ptr is set when the Go value is a pointer to typ, allocated only when the
	// property is present.
	ptr bool
	typ reflect.Type
	// optional properties may be absent; the null message says how to leave one
	// unset.
	optional bool
	// planner marks an automium.PlannerRef, whose wrong kind the specification
	// reports as malformed_planner.
	planner bool

	// Objects.
	fields  []wfield
	byName  map[string]int // wire name -> index into fields
	byFold  map[string]int // lower-cased wire name -> index, to name case variants
	allowed []string       // sorted wire names

	// Arrays.
	elem     *wnode
	maxItems int // -1 when unbounded

	// Strings.
	maxLength int // -1 when unbounded
	// emptyRefused is set for an optional string the schema refuses as "": the Go
	// type reads "" as absent, so the walker is the only place that sees it.
	emptyRefused bool
	enum         []string

	// Integers.
	min, max jsonint.Int
}

// wfield is one property of an object node.
type wfield struct {
	name  string
	index []int
	node  *wnode
}

// walkers holds the walker of every input type met so far; input types are
// fixed, so it stays small.
var walkers sync.Map // reflect.Type -> *wnode

// walkerOf returns the walker of t, building it on first use: a tool's first
// call, not the server's start, pays for it (0.5 to 1 ms for all seven of the first round). A type
// the walker cannot read panics there, and the tool's recovery answers an
// internal error; the tests call every tool, so such a type never ships.
func walkerOf(t reflect.Type) *wnode {
	if n, ok := walkers.Load(t); ok {
		return n.(*wnode)
	}
	s, err := adapter.Schema(t)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %v: %v", t, err))
	}
	n, _ := walkers.LoadOrStore(t, buildNode(t, s, t.String(), false))
	return n.(*wnode)
}

var plannerRefType = reflect.TypeFor[automium.PlannerRef]()

// buildNode builds the node of Go type t whose schema is s. where names the
// position for start-up panics.
func buildNode(t reflect.Type, s *jsonschema.Schema, where string, optional bool) *wnode {
	if s == nil {
		panic(fmt.Sprintf("mcpserver: %s: no schema", where))
	}
	n := &wnode{optional: optional, maxItems: -1, maxLength: -1}
	if t.Kind() == reflect.Pointer {
		n.ptr, t = true, t.Elem()
	}
	n.typ = t
	schemaType := ""
	switch t.Kind() {
	case reflect.Struct:
		n.kind, schemaType = wObject, "object"
		n.planner = t == plannerRefType
		n.byName, n.byFold = map[string]int{}, map[string]int{}
		for _, f := range reflect.VisibleFields(t) {
			name := wireName(f)
			if name == "" {
				continue
			}
			_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			opt := slices.ContainsFunc(strings.Split(opts, ","), func(o string) bool { return o == "omitempty" || o == "omitzero" })
			child := buildNode(f.Type, s.Properties[name], where+"."+name, opt)
			if opt && child.kind == wString && refusesEmpty(s.Properties[name]) {
				child.emptyRefused = true
			}
			n.byName[name] = len(n.fields)
			n.byFold[strings.ToLower(name)] = len(n.fields)
			n.fields = append(n.fields, wfield{name: name, index: f.Index, node: child})
			n.allowed = append(n.allowed, name)
		}
		if len(n.fields) > 64 {
			panic(fmt.Sprintf("mcpserver: %s has %d properties; the walker tracks at most 64", where, len(n.fields)))
		}
		slices.Sort(n.allowed)
	case reflect.Slice:
		n.kind, schemaType = wArray, "array"
		n.elem = buildNode(t.Elem(), s.Items, where+"[]", false)
		if s.MaxItems != nil {
			n.maxItems = *s.MaxItems
		}
	case reflect.String:
		n.kind, schemaType = wString, "string"
		if s.MaxLength != nil {
			n.maxLength = *s.MaxLength
		}
		for _, v := range s.Enum {
			if v, ok := v.(string); ok {
				n.enum = append(n.enum, v)
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind, schemaType = wInt, "integer"
		bits := uint(t.Bits())
		n.min = jsonint.Int{Neg: true, Mag: 1 << (bits - 1)}
		n.max = jsonint.Int{Mag: 1<<(bits-1) - 1}
		n.tighten(s, where)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n.kind, schemaType = wUint, "integer"
		n.max = jsonint.Int{Mag: math.MaxUint64 >> (64 - t.Bits())}
		n.tighten(s, where)
	case reflect.Bool:
		n.kind, schemaType = wBool, "boolean"
	default:
		panic(fmt.Sprintf("mcpserver: %s: the argument walker does not read Go kind %s", where, t.Kind()))
	}
	if s.Type != schemaType {
		panic(fmt.Sprintf("mcpserver: %s: schema type %q for Go kind %s, want %q", where, s.Type, t.Kind(), schemaType))
	}
	return n
}

// tighten narrows an integer node's Go range to the schema's minimum and maximum.
func (n *wnode) tighten(s *jsonschema.Schema, where string) {
	if s.Minimum != nil {
		if b := integerOf(*s.Minimum, where); n.min.Less(b) {
			n.min = b
		}
	}
	if s.Maximum != nil {
		if b := integerOf(*s.Maximum, where); b.Less(n.max) {
			n.max = b
		}
	}
}

// integerOf converts a schema bound to an integer; bounds of integers are
// integers small enough for a float64 to hold exactly.
func integerOf(f float64, where string) jsonint.Int {
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		panic(fmt.Sprintf("mcpserver: %s: integer bound %v is not an exact integer", where, f))
	}
	if f < 0 {
		return jsonint.Int{Neg: true, Mag: uint64(-f)}
	}
	return jsonint.Int{Mag: uint64(f)}
}

// refusesEmpty reports whether the schema of a string refuses "".
func refusesEmpty(s *jsonschema.Schema) bool {
	if s.MinLength != nil && *s.MinLength > 0 {
		return true
	}
	if len(s.Enum) > 0 && !slices.Contains(s.Enum, any("")) {
		return true
	}
	return s.Pattern != "" && !regexp.MustCompile(s.Pattern).MatchString("")
}

// wireName returns the property name encoding/json uses for a struct field, or ""
// for a field that never reaches the wire.
func wireName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if !f.IsExported() || f.Anonymous || tag == "-" {
		return ""
	}
	if name, _, _ := strings.Cut(tag, ","); name != "" {
		return name
	}
	return f.Name
}
