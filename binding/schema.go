package binding

import (
	"bytes"
	"encoding/json"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/automium/automium"
	"github.com/automium/automium/canonicaljson"
	"github.com/automium/automium/internal/echo"
	"github.com/google/jsonschema-go/jsonschema"
)

// A closed input schema is one whose every accepted argument set is named by
// it: every object lists its properties and refuses any other, every array
// says what its items are, every value has one type. Only then do "the
// arguments validate" and "the arguments are the granted ones" mean the same
// thing for a server: an open schema would let a call carry extra values that
// the server may act on but that no check looked at.
//
// Closure is decided by allow-list, never by looking for known ways to be
// open: a schema binds arguments only if every keyword at every depth is one
// of the few listed here, with the value form listed. Anything else, including
// keywords that are harmless in some schemas (minProperties, patternProperties,
// anyOf, if/then, unevaluatedProperties, a nested {} or true), is
// [CodeSchemaNotClosed]. A schema node is a JSON object with:
//
//   - annotations, anywhere, which change nothing that validates: title,
//     description, examples, default, $comment, deprecated, readOnly,
//     writeOnly, format;
//   - "type", one string: "object", "array", "string", "integer", "number",
//     "boolean" or "null" (never a list), and only the keywords of that type:
//     object: "properties" (required; each value a schema node),
//     "additionalProperties" (required, exactly false) and "required" (names
//     from properties); array: "items" (required, one schema node),
//     minItems, maxItems, uniqueItems; string: minLength, maxLength, pattern;
//     integer and number: minimum, maximum, exclusiveMinimum,
//     exclusiveMaximum, multipleOf; and, for every type, enum and const;
//   - or no "type" and then "enum" or "const", which name every accepted value;
//   - or "$ref" alone (with annotations), a local reference "#/$defs/NAME" or
//     "#/definitions/NAME" to a node of the root's $defs or definitions, which
//     is itself checked, so a $ref to {} is refused like {} is, and a chain
//     of $refs that loops before it reaches a typed node is refused (see
//     refChain), as is one longer than maxRefChain.
//
// The root is an object node and may also carry "$schema" (draft 2020-12 or
// draft-07) and "$defs" or "definitions". Validation itself is
// github.com/google/jsonschema-go, the validator the MCP go-sdk applies to tool
// inputs; a schema passes the allow-list before it is handed to it, so nothing
// it would read differently (a case-variant keyword, a duplicate) reaches it.

var (
	annotationKeywords = []string{"$comment", "default", "deprecated", "description", "examples", "format", "readOnly", "title", "writeOnly"}
	typeKeywords       = map[string][]string{
		"object":  {"additionalProperties", "properties", "required"},
		"array":   {"items", "maxItems", "minItems", "uniqueItems"},
		"string":  {"maxLength", "minLength", "pattern"},
		"integer": {"exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf"},
		"number":  {"exclusiveMaximum", "exclusiveMinimum", "maximum", "minimum", "multipleOf"},
		"boolean": {},
		"null":    {},
	}
	valueKeywords  = []string{"const", "enum"}
	rootKeywords   = []string{"$defs", "$schema", "definitions"}
	schemaDialects = []string{"https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"}
)

// compileClosedSchema checks that raw is a closed object schema and resolves it
// for validation.
func compileClosedSchema(raw json.RawMessage, at automium.Path) (*jsonschema.Resolved, error) {
	canonical, err := canonicaljson.Canonicalize(raw)
	if err != nil {
		return nil, refuse(CodeSchemaNotClosed, at, "the input schema is not I-JSON: %v", err)
	}
	var root any
	if err := jsonv2.Unmarshal(canonical, &root); err != nil {
		return nil, refuse(CodeSchemaNotClosed, at, "the input schema is not JSON")
	}
	obj, ok := root.(map[string]any)
	if !ok || obj["type"] != "object" {
		return nil, refuse(CodeSchemaNotClosed, at, `the input schema must be an object with "type": "object"`)
	}
	if err := checkClosed(obj, obj, "", true); err != nil {
		return nil, refuse(CodeSchemaNotClosed, at, "the input schema is not closed at %s: %s", automium.ClientValue("#"+err.at), err.why)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(canonical, &s); err != nil { // canonical and allow-listed: no name this reads differently
		return nil, refuse(CodeSchemaNotClosed, at, "the input schema cannot be read: %s", shorten(err.Error()))
	}
	resolved, err := s.Resolve(nil) // nil loader: nothing is ever fetched
	if err != nil {
		return nil, refuse(CodeSchemaNotClosed, at, "the input schema cannot be resolved: %s", shorten(err.Error()))
	}
	return resolved, nil
}

// openAt says where and why a schema is not closed.
type openAt struct {
	at  string
	why echo.Message
}

// checkClosed checks one schema node under the allow-list; at is its JSON
// pointer from the root.
func checkClosed(node any, root map[string]any, at string, isRoot bool) *openAt {
	obj, ok := node.(map[string]any)
	if !ok {
		return &openAt{at, echo.Msg("a schema must be a JSON object; true, false and other values are not closed schemas")}
	}
	allowed := slices.Clone(annotationKeywords)
	if isRoot {
		allowed = append(allowed, rootKeywords...)
	}
	if ref, ok := obj["$ref"]; ok {
		if !localRef(ref, root) {
			return &openAt{at + "/$ref", echo.Msg(`a $ref must be "#/$defs/NAME" or "#/definitions/NAME" naming a definition of this schema`)}
		}
		switch refChain(obj, root) {
		case chainLoops:
			return &openAt{at + "/$ref", echo.Msg("the $ref leads, through $refs alone, back to itself, so it names no schema (and a validator follows it forever)")}
		case chainTooLong:
			return &openAt{at + "/$ref", echo.Msg("the $ref passes through more than %d $refs before it reaches a schema; refer to the definition itself", maxRefChain)}
		}
		allowed = append(allowed, "$ref")
	} else {
		typ, hasType := obj["type"]
		switch t, isString := typ.(string); {
		case hasType && !isString:
			return &openAt{at + "/type", echo.Msg("type must be one string; a list of types is not closed")}
		case hasType:
			kw, known := typeKeywords[t]
			if !known {
				return &openAt{at + "/type", echo.Msg("type %s is not one of object, array, string, integer, number, boolean, null", automium.ClientValue(t))}
			}
			allowed = append(append(append(allowed, "type"), kw...), valueKeywords...)
		default:
			_, hasEnum := obj["enum"]
			_, hasConst := obj["const"]
			if !hasEnum && !hasConst {
				return &openAt{at, echo.Msg("a schema needs a type, or an enum or const naming every accepted value")}
			}
			allowed = append(allowed, valueKeywords...)
		}
	}
	for _, k := range sortedKeys(obj) {
		if !slices.Contains(allowed, k) {
			return &openAt{at + "/" + pointerToken(k), echo.Msg("keyword %s is not in the allow-list of closed schemas here", automium.ClientValue(k))}
		}
	}
	if s, ok := obj["$schema"]; ok && !slices.Contains(schemaDialects, asString(s)) {
		return &openAt{at + "/$schema", echo.Msg("want draft 2020-12 or draft-07")}
	}
	if e, ok := obj["enum"]; ok {
		if list, _ := e.([]any); len(list) == 0 {
			return &openAt{at + "/enum", echo.Msg("enum must be a non-empty list")}
		}
	}
	for _, defs := range []string{"$defs", "definitions"} {
		if d, ok := obj[defs]; ok {
			m, ok := d.(map[string]any)
			if !ok {
				return &openAt{at + "/" + defs, echo.Msg("%s must map names to schemas", defs)}
			}
			for _, name := range sortedKeys(m) {
				if err := checkClosed(m[name], root, at+"/"+defs+"/"+pointerToken(name), false); err != nil {
					return err
				}
			}
		}
	}
	switch obj["type"] {
	case "object":
		if obj["additionalProperties"] != false {
			return &openAt{at + "/additionalProperties", echo.Msg("an object must set additionalProperties to false")}
		}
		props, ok := obj["properties"].(map[string]any)
		if !ok {
			return &openAt{at + "/properties", echo.Msg("an object must name its properties")}
		}
		for _, name := range sortedKeys(props) {
			if err := checkClosed(props[name], root, at+"/properties/"+pointerToken(name), false); err != nil {
				return err
			}
		}
		if r, ok := obj["required"]; ok {
			list, ok := r.([]any)
			if !ok {
				return &openAt{at + "/required", echo.Msg("required must be a list of property names")}
			}
			for _, n := range list {
				if name, ok := n.(string); !ok || props[name] == nil {
					return &openAt{at + "/required", echo.Msg("required must name properties of this object")}
				}
			}
		}
	case "array":
		items, ok := obj["items"]
		if !ok {
			return &openAt{at + "/items", echo.Msg("an array must say what its items are")}
		}
		if err := checkClosed(items, root, at+"/items", false); err != nil {
			return err
		}
	}
	return nil
}

// localRef reports whether a $ref is a local reference to a definition of root.
func localRef(ref any, root map[string]any) bool {
	s, _ := ref.(string)
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		name, ok := strings.CutPrefix(s, prefix)
		if !ok || name == "" || strings.ContainsAny(name, "/~%") {
			continue
		}
		defs, _ := root[strings.Trim(prefix, "#/")].(map[string]any)
		if _, ok := defs[name]; ok {
			return true
		}
	}
	return false
}

// maxRefChain is how many $refs in a row a schema may pass through before a
// node with a type, enum or const. Real schemas alias a definition once or
// twice; the bound keeps checking linear and the validator's stack shallow.
const maxRefChain = 16

// Outcomes of refChain.
const (
	chainEnds = iota
	chainLoops
	chainTooLong
)

// refChain follows $ref from node through definitions that are themselves
// only a $ref. It reports chainLoops when it comes back to a definition it
// passed before reaching one with a type, enum or const: such a chain names
// no schema, and jsonschema-go's validator follows it until the goroutine's
// stack is exhausted, a fatal error no recover catches. It reports
// chainTooLong past maxRefChain $refs. Recursion through an object's
// properties or an array's items is not a chain here: each step of it
// consumes a level of the arguments, whose depth is bounded.
func refChain(node map[string]any, root map[string]any) int {
	seen := map[string]bool{}
	for {
		ref, ok := node["$ref"].(string)
		if !ok {
			return chainEnds
		}
		if seen[ref] {
			return chainLoops
		}
		if len(seen) == maxRefChain {
			return chainTooLong
		}
		seen[ref] = true
		next, ok := localDef(ref, root)
		if !ok {
			return chainEnds // not a local definition: localRef refuses it
		}
		node = next
	}
}

// localDef returns the definition a local $ref names, if it names one that is
// a JSON object.
func localDef(ref string, root map[string]any) (map[string]any, bool) {
	for _, prefix := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, prefix); ok {
			defs, _ := root[strings.Trim(prefix, "#/")].(map[string]any)
			def, ok := defs[name].(map[string]any)
			return def, ok
		}
	}
	return nil, false
}

func asString(v any) string { s, _ := v.(string); return s }

// pointerToken escapes a name for a JSON pointer (RFC 6901).
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// maxSafeInteger is 2^53 - 1, the largest integer every double represents
// exactly together with its neighbours (I-JSON, RFC 7493 section 2.2).
const maxSafeInteger = 1<<53 - 1

// canonicalArguments returns the canonical form of args, which must be a JSON
// object that validates against schema.
func canonicalArguments(schema *jsonschema.Resolved, args json.RawMessage, at automium.Path) ([]byte, error) {
	canonical, err := canonicaljson.Canonicalize(args)
	if err != nil {
		return nil, refuse(CodeArgumentsOutsideSchema, at, "the arguments are not I-JSON: %v", err)
	}
	if n, ok := unsafeInteger(args); ok {
		return nil, refuse(CodeArgumentsOutsideSchema, at, "the integer %s is beyond 2^53 and would be bound as another number; bind it as a string", automium.ClientValue(n))
	}
	if n, ok := inexactNumber(args); ok {
		return nil, refuse(CodeArgumentsOutsideSchema, at, "the number %s has no exact double, so it would be bound as another number; write it with at most 17 significant digits within the range of a double, or bind it as a string", automium.ClientValue(n))
	}
	var instance any
	if err := jsonv2.Unmarshal(canonical, &instance); err != nil {
		return nil, refuse(CodeArgumentsOutsideSchema, at, "the arguments are not JSON")
	}
	if _, ok := instance.(map[string]any); !ok {
		return nil, refuse(CodeArgumentsOutsideSchema, at, "the arguments must be a JSON object")
	}
	if err := schema.Validate(instance); err != nil {
		return nil, refuse(CodeArgumentsOutsideSchema, at, "the arguments do not validate against the tool's closed input schema: %s", shorten(err.Error()))
	}
	return canonical, nil
}

// unsafeInteger returns the first integer literal in data (which is I-JSON)
// whose magnitude is beyond 2^53 - 1: RFC 8785 would write it as the nearest
// double, so the bound value would not be the one the planner wrote.
func unsafeInteger(data []byte) (string, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return "", false // io.EOF, or an error Canonicalize already reported
		}
		if tok.Kind() != '0' {
			continue
		}
		lit := tok.String()
		if strings.ContainsAny(lit, ".eE") {
			continue
		}
		if f, err := strconv.ParseFloat(lit, 64); err == nil && math.Abs(f) > maxSafeInteger {
			return lit, true
		}
	}
}

// inexactNumber returns the first number literal in data (which is I-JSON)
// whose decimal value its RFC 8785 form does not keep: the form is that of the
// nearest double, so 9007199254740993.0, 0.10000000000000000000001 and 1e-400
// would be bound as 9007199254740992, 0.1 and 0. unsafeInteger covers only
// integers written as integers; this covers every spelling. A literal binds
// when its canonical form names the same decimal value, as 1.50 (1.5), 1E2
// (100) and -0 (0, which RFC 8785 writes for both zeros) do.
func inexactNumber(data []byte) (string, bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return "", false // io.EOF, or an error Canonicalize already reported
		}
		if tok.Kind() != '0' {
			continue
		}
		lit := tok.String()
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			return lit, true // out of range; Canonicalize refuses it first
		}
		canonical, err := canonicaljson.AppendNumber(nil, f)
		if err != nil || !sameDecimal(lit, string(canonical)) {
			return lit, true
		}
	}
}

// sameDecimal reports whether the JSON number literals a and b name the same
// decimal value, reading each once, without big arithmetic: both are reduced
// to their significant digits and the power of ten of the last one.
func sameDecimal(a, b string) bool {
	da, ea, za := decimalParts(a)
	db, eb, zb := decimalParts(b)
	if za || zb {
		return za == zb // both zeros are one value, as RFC 8785 writes them
	}
	return da == db && ea == eb
}

// decimalParts returns the significant digits of the JSON number literal s
// (sign first, no leading or trailing zeros), the power of ten of the last
// digit, and whether the value is zero. An exponent beyond ±10^9 is clamped:
// no double is that large or small, so such a literal is inexact either way.
func decimalParts(s string) (digits string, exp int64, zero bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expText, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	all := strings.TrimLeft(intPart+frac, "0")
	if all == "" {
		return "", 0, true
	}
	trimmed := strings.TrimRight(all, "0")
	exp = int64(len(all)-len(trimmed)) - int64(len(frac))
	expText = strings.TrimPrefix(expText, "+")
	sign := int64(1)
	if strings.HasPrefix(expText, "-") {
		sign, expText = -1, expText[1:]
	}
	expText = strings.TrimLeft(expText, "0")
	var e int64
	if len(expText) > 9 {
		e = 1_000_000_000
	} else if expText != "" {
		e, _ = strconv.ParseInt(expText, 10, 64)
	}
	exp += sign * e
	if neg {
		trimmed = "-" + trimmed
	}
	return trimmed, exp, false
}

// shorten cuts a validator message, which may quote argument values, to a
// bounded length.
func shorten(s string) string {
	const max = 300
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "… (" + strconv.Itoa(len(s)) + " bytes)"
}
