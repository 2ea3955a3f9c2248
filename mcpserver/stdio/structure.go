package stdio

import (
	"bytes"
	"encoding/json"
	"strconv"
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
const DefaultMaxDepth = 64

// structureProblem measures a line that is valid JSON in one pass over its
// bytes, without decoding or allocating anything, and describes the first bound
// it breaks ("" for none). It stops counting at the first broken bound but goes
// on lexing, so that id is the top-level "id" member's value when that is a
// string or a number: the error can then be matched to its request wherever the
// id sits on the line. The lexer relies on json.Valid having accepted the line.
func structureProblem(line []byte, maxValues, maxDepth int) (problem string, id json.RawMessage) {
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
				idNext = depth == 1 && string(line[start:i]) == `"id"`
				i = j + 1
				continue // a member name, not a value
			}
		default: // a number or a literal
			for i < len(line) && !isDelimiter(line[i]) {
				i++
			}
		}
		if idNext && level == 1 {
			// The last "id" wins, as in the SDK's decoder; an object or array
			// id cannot be echoed, so it clears an earlier one.
			id = nil
			if c != '{' && c != '[' {
				id = echoableID(line[start:i])
			}
		}
		idNext = false
		if problem != "" {
			continue
		}
		values++
		switch {
		case values > maxValues:
			problem = "Invalid Request: the message holds more than " + strconv.Itoa(maxValues) + " JSON values"
		case depth > maxDepth:
			problem = "Invalid Request: the message nests objects and arrays more than " + strconv.Itoa(maxDepth) + " levels deep"
		}
	}
	return problem, id
}

// topLevelID finds the top-level "id" member of a line that json.Valid accepted
// as a JSON object, without decoding it. raw is the member's value (only its
// first byte, '{' or '[', for an object or array, which no check accepts), has
// whether there is one; the last one wins, as in a decoder. plain is false when a
// top-level member name holds an escape ("i\u0064"), which only a decoder
// compares as the decoders after it do: the caller then decodes the members.
func topLevelID(line []byte) (raw json.RawMessage, has, plain bool) {
	depth := 0
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
						return nil, false, false
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
			has, raw = true, line[start:i]
			if c == '{' || c == '[' {
				raw = line[start : start+1]
			}
		}
		idNext = false
	}
	return raw, has, true
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
