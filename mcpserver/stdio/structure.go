package stdio

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/automium/automium/internal/nesting"
)

// DefaultMaxValues is how many JSON values one message may hold, counting every
// object, array, string, number, true, false and null at any depth (member
// names are not values). The largest valid Automium call holds a few thousand,
// so the bound is far above any real request and far below the millions of
// empty objects a 16 MiB line can carry, which the SDK would take seconds and
// a gigabyte to decode.
const DefaultMaxValues = 100_000

// DefaultMaxDepth is how deeply one message may nest objects and arrays. MCP
// messages nest a handful of levels; go-sdk's own decoder stops at 1,000, after
// decoding everything up to that point.
const DefaultMaxDepth = nesting.MaxDepth

// lineScan is what one pass over a line's bytes learns, before any decoding.
type lineScan struct {
	// problem describes the first structure bound the line breaks, or is "".
	problem string
	// id is the value of the top-level "id" member, the last one as in a
	// decoder; for an object or array, only its first byte, '{' or '[', which no
	// check accepts. hasID says whether there is one.
	id    json.RawMessage
	hasID bool
	// plain is false when a top-level member name holds an escape ("i\u0064"),
	// which only a decoder compares as the decoders after it do: the caller then
	// decodes the members to find the id.
	plain bool
}

// scanLine measures a line that json.Valid accepted, in one pass over its bytes,
// without decoding or allocating: it counts JSON values and nesting against the
// bounds, stops counting at the first broken one but goes on lexing, and finds
// the top-level id, so that an error can be matched to its request wherever the
// id sits on the line, and a valid call needs no decode of its members.
func scanLine(line []byte, maxValues, maxDepth int) lineScan {
	scan := lineScan{plain: true}
	values, depth := 0, 0
	idNext := false // the previous token was the top-level member name "id"
	for i := 0; i < len(line); {
		c := line[i]
		switch c {
		case ' ', '\t', '\n', '\r', ',', ':':
			i++
			continue
		case '}', ']':
			depth--
			i++
			continue
		}
		start, level := i, depth
		switch c {
		case '{', '[':
			depth++
			i++
		case '"':
			i = stringEnd(line, i)
			if j := skipSpace(line, i); j < len(line) && line[j] == ':' {
				if depth == 1 {
					if bytes.IndexByte(line[start:i], '\\') >= 0 {
						scan.plain = false
					}
					idNext = string(line[start:i]) == `"id"`
				}
				i = j + 1
				continue // a member name, not a value
			}
		default: // a number or a literal
			for i < len(line) && !isDelimiter(line[i]) {
				i++
			}
		}
		if idNext && level == 1 {
			scan.hasID, scan.id = true, line[start:i]
			if c == '{' || c == '[' {
				scan.id = line[start : start+1]
			}
		}
		idNext = false
		if scan.problem != "" {
			continue
		}
		values++
		switch {
		case values > maxValues:
			scan.problem = "Invalid Request: the message holds more than " + strconv.Itoa(maxValues) + " JSON values"
		case depth > maxDepth:
			scan.problem = "Invalid Request: the message nests objects and arrays more than " + strconv.Itoa(maxDepth) + " levels deep"
		}
	}
	return scan
}

// stringEnd returns the index just past the JSON string that starts at line[i].
func stringEnd(line []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(line[j:], '"')
		if k < 0 {
			return len(line)
		}
		j += k
		backslashes := 0
		for b := j - 1; b > i && line[b] == '\\'; b-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return j + 1
		}
		j++
	}
}

func skipSpace(line []byte, i int) int {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\n' || line[i] == '\r') {
		i++
	}
	return i
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', ']', '}', ':', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
