package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/automium/automium"
)

// prescan walks raw tool arguments once, without decoding them, and rejects what
// would be expensive or ambiguous to decode:
//
//   - an array longer than the input schema's maxItems at its position, so a
//     journey of millions of steps costs a pass over the bytes up to the first
//     step past the limit, not millions of decoded values;
//   - nesting deeper than maxScanDepth, which no input type reaches;
//   - a known property named twice in one object, which encoding/json would
//     silently resolve as "last one wins" while a reader may assume the first.
//
// It allocates nothing on the valid path. Malformed JSON is not its business: it
// stops and leaves the decoder to report it.
func prescan(raw []byte, root *limitNode) *automium.Error {
	s := scanner{data: raw, path: make([]scanStep, 0, 8)}
	err, _ := s.value(root, 0)
	return err
}

// maxScanDepth bounds nesting. The deepest input type nests a handful of levels.
const maxScanDepth = 32

// limitNode is the part of an input schema that prescan needs: array bounds and
// the known properties of objects, by position.
type limitNode struct {
	maxItems int // -1 when the schema sets none
	items    *limitNode
	props    map[string]int // property name -> index into children and the seen bitmask
	children []*limitNode
}

// limitsCache holds the limitNode of every input type met so far; the input types
// are fixed, so it stays small.
var limitsCache sync.Map // reflect.Type -> *limitNode

// limitsOf derives the limits of t from the same JSON Schema the tool advertises.
// Tools build theirs when they are registered, so a type whose schema cannot be
// read panics at start-up, not on a client's first call.
func limitsOf(t reflect.Type) *limitNode {
	if n, ok := limitsCache.Load(t); ok {
		return n.(*limitNode)
	}
	raw, err := automium.JSONSchema(t)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %v: %v", t, err))
	}
	var s schemaLimits
	if err := json.Unmarshal(raw, &s); err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %v: %v", t, err))
	}
	n, _ := limitsCache.LoadOrStore(t, s.node())
	return n.(*limitNode)
}

// schemaLimits decodes the keywords of a JSON Schema that limitNode keeps.
type schemaLimits struct {
	Properties map[string]*schemaLimits `json:"properties"`
	Items      *schemaLimits            `json:"items"`
	MaxItems   *int                     `json:"maxItems"`
}

func (s *schemaLimits) node() *limitNode {
	if s == nil {
		return nil
	}
	n := &limitNode{maxItems: -1, items: s.Items.node()}
	if s.MaxItems != nil {
		n.maxItems = *s.MaxItems
	}
	if len(s.Properties) > 64 {
		panic(fmt.Sprintf("mcpserver: an input object has %d properties; prescan tracks at most 64", len(s.Properties)))
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for name := range s.Properties {
			if !yield(name) {
				return
			}
		}
	})
	if len(names) > 0 {
		n.props = make(map[string]int, len(names))
	}
	for i, name := range names {
		n.props[name] = i
		n.children = append(n.children, s.Properties[name].node())
	}
	return n
}

type scanner struct {
	data []byte
	pos  int
	// path is the position of the value being scanned, one step per open
	// container, reused as the scan goes so that a valid scan builds no strings;
	// it is rendered only for the problem reported.
	path []scanStep
}

// scanStep is one step of a path: the raw bytes of a property name, or an array
// index when key is nil.
type scanStep struct {
	key   []byte
	index int
}

// pathString renders the first steps of the scanner's position as automium
// writes field paths.
func (s *scanner) pathString(steps int) string {
	out := ""
	for _, st := range s.path[:steps] {
		if st.key == nil {
			out = pathStep(out, "", st.index)
			continue
		}
		var name string
		if err := json.Unmarshal(append(append([]byte{'"'}, st.key...), '"'), &name); err != nil {
			name = string(st.key)
		}
		out = pathStep(out, name, 0)
	}
	return out
}

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// value scans the JSON value at s.pos, whose schema is n (nil when unknown). ok is
// false when the JSON is malformed.
func (s *scanner) value(n *limitNode, depth int) (err *automium.Error, ok bool) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return nil, false
	}
	switch s.data[s.pos] {
	case '{', '[':
		if depth >= maxScanDepth {
			return &automium.Error{Code: automium.CodeLimitExceeded, Field: s.pathString(len(s.path)),
				Message: fmt.Sprintf("nests deeper than %d levels; no input of this tool does", maxScanDepth)}, true
		}
		if s.data[s.pos] == '{' {
			return s.object(n, depth)
		}
		return s.array(n, depth)
	case '"':
		_, ok := s.str()
		return nil, ok
	}
	start := s.pos
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return nil, s.pos > start
		}
		s.pos++
	}
	return nil, s.pos > start
}

// str scans a string and returns its raw bytes between the quotes.
func (s *scanner) str() ([]byte, bool) {
	start := s.pos + 1
	for i := start; i < len(s.data); i++ {
		switch s.data[i] {
		case '\\':
			i++
		case '"':
			s.pos = i + 1
			return s.data[start:i], true
		}
	}
	return nil, false
}

// next consumes what follows an item or member: a comma, or the closer of its
// container, in which case done is true. ok is false on anything else.
func (s *scanner) next(closer byte) (done, ok bool) {
	s.skipSpace()
	if s.pos >= len(s.data) {
		return false, false
	}
	switch s.data[s.pos] {
	case ',':
		s.pos++
		return false, true
	case closer:
		s.pos++
		return true, true
	}
	return false, false
}

func (s *scanner) array(n *limitNode, depth int) (*automium.Error, bool) {
	s.pos++ // [
	var items *limitNode
	limit := -1
	if n != nil {
		items, limit = n.items, n.maxItems
	}
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		return nil, true
	}
	s.path = append(s.path, scanStep{})
	defer func() { s.path = s.path[:len(s.path)-1] }()
	for count := 1; ; count++ {
		if limit >= 0 && count > limit {
			// The array itself is at fault, not the item being counted.
			return &automium.Error{Code: automium.CodeLimitExceeded, Field: s.pathString(len(s.path) - 1),
				Message: fmt.Sprintf("has more than %d items; the limit is %d, send fewer", limit, limit)}, true
		}
		s.path[len(s.path)-1] = scanStep{index: count - 1}
		if err, ok := s.value(items, depth+1); err != nil || !ok {
			return err, ok
		}
		if done, ok := s.next(']'); done || !ok {
			return nil, ok
		}
	}
}

func (s *scanner) object(n *limitNode, depth int) (*automium.Error, bool) {
	s.pos++ // {
	var seen uint64
	s.skipSpace()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return nil, true
	}
	s.path = append(s.path, scanStep{})
	defer func() { s.path = s.path[:len(s.path)-1] }()
	for {
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return nil, false
		}
		key, ok := s.str()
		if !ok {
			return nil, false
		}
		s.path[len(s.path)-1] = scanStep{key: key}
		var child *limitNode
		if n != nil {
			// Unknown or escaped names are left to the decoder, which rejects
			// unknown properties with the list of allowed ones.
			if i, known := n.props[string(key)]; known {
				if seen&(1<<i) != 0 {
					return &automium.Error{Code: automium.CodeInvalidArgument, Field: s.pathString(len(s.path)),
						Message: "appears twice in the same object; send each property once"}, true
				}
				seen |= 1 << i
				child = n.children[i]
			}
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return nil, false
		}
		s.pos++
		if err, ok := s.value(child, depth+1); err != nil || !ok {
			return err, ok
		}
		if done, ok := s.next('}'); done || !ok {
			return nil, ok
		}
	}
}
