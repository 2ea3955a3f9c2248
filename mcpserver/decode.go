package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/automium/automium"
)

// maxArgumentBytes bounds the raw arguments of one tool call, so a hostile call
// costs a length check rather than a parse. It is set above the largest valid
// input: a journey at every automium.Max* bound whose text is written entirely
// in \u escapes of surrogate pairs, 12 bytes a character (TestLargestValidInput).
const maxArgumentBytes = 8 << 20

// decodeArguments strictly decodes tool arguments into In. Missing or null
// arguments mean an empty object. Anything encoding/json would silently accept or
// reject with an unhelpful message becomes an invalid_argument error with the JSON
// path of the offending value: a wrong type, a property the input does not have
// (encoding/json would otherwise match names case-insensitively or drop them), or
// arguments that are not an object at all. The domain function then validates the
// values themselves.
func decodeArguments[In any](raw json.RawMessage) (In, error) {
	var in In
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if len(raw) > maxArgumentBytes {
		return in, &automium.Error{Code: automium.CodeLimitExceeded,
			Message: fmt.Sprintf("the arguments are %d bytes; the limit is %d bytes", len(raw), maxArgumentBytes)}
	}
	if err := prescan(raw, limitsOf(reflect.TypeFor[In]())); err != nil {
		return in, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil || dec.More() {
		return in, &automium.Error{Code: automium.CodeInvalidArgument, Message: "the arguments are not valid JSON; send one JSON object"}
	}
	if _, ok := generic.(map[string]any); !ok {
		return in, &automium.Error{Code: automium.CodeInvalidArgument,
			Message: fmt.Sprintf("the arguments are %s; send a JSON object whose properties are the tool's input fields", jsonKind(generic))}
	}
	if err := checkShape(generic, reflect.TypeFor[In](), nil); err != nil {
		return in, err
	}
	strict := json.NewDecoder(bytes.NewReader(raw))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&in); err != nil {
		// checkShape mirrors encoding/json, so this is a bug in checkShape.
		return in, &automium.Error{Code: automium.CodeInvalidArgument, Message: "the arguments do not match the tool's input schema; check them against it"}
	}
	return in, nil
}

// checkShape reports the first place where the decoded JSON value v does not fit
// the Go type t, in a deterministic order: unknown properties of an object first
// (sorted), then its known properties in field order. A JSON null fits anything
// and means "absent", as in encoding/json.
//
// It runs on every tool call, so the valid path does no work that a call does not
// need: struct metadata comes from a per-type cache, and JSON paths are rendered
// only for the problem reported.
func checkShape(v any, t reflect.Type, path *shapePath) *automium.Error {
	if v == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	mismatch := func(want string) *automium.Error {
		if t == plannerRefType {
			// The spec lists malformed planner metadata as an error of its own.
			return &automium.Error{Code: automium.CodeMalformedPlanner, Field: path.String(),
				Message: fmt.Sprintf(`must be an object with id, vendor and model, e.g. {"id":"baseline","vendor":"openai","model":"gpt-4.1-mini"}, not %s`, jsonKind(v))}
		}
		return &automium.Error{Code: automium.CodeInvalidArgument, Field: path.String(),
			Message: fmt.Sprintf("must be %s, not %s", want, jsonKind(v))}
	}
	switch t.Kind() {
	case reflect.Interface:
		return nil
	case reflect.String:
		if _, ok := v.(string); !ok {
			return mismatch("a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return mismatch("a boolean (true or false)")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch("an integer")
		}
		if _, err := strconv.ParseInt(string(n), 10, t.Bits()); err != nil {
			return integerProblem(path.String(), n, err)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch("a non-negative integer")
		}
		if _, err := strconv.ParseUint(string(n), 10, t.Bits()); err != nil {
			return integerProblem(path.String(), n, err)
		}
	case reflect.Float32, reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch("a number")
		}
		if f, err := n.Float64(); err != nil || math.IsInf(f, 0) {
			return &automium.Error{Code: automium.CodeInvalidArgument, Field: path.String(), Message: fmt.Sprintf("%s is out of range", n)}
		}
	case reflect.Slice, reflect.Array:
		items, ok := v.([]any)
		if !ok {
			return mismatch("an array")
		}
		for i, item := range items {
			if err := checkShape(item, t.Elem(), &shapePath{parent: path, index: i}); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return mismatch("an object")
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if err := checkShape(obj[k], t.Elem(), &shapePath{parent: path, name: k}); err != nil {
				return err
			}
		}
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return mismatch("an object")
		}
		fields := shapeFieldsOf(t)
		for k := range obj {
			if _, known := fields.types[k]; known {
				continue
			}
			// Some property is unknown: report the first in sorted order, so
			// the answer does not depend on map iteration.
			for _, k := range slices.Sorted(maps.Keys(obj)) {
				if _, known := fields.types[k]; !known {
					allowed := slices.Clone(fields.sorted)
					msg := fmt.Sprintf("%q is not a property here; remove it or use one of the allowed property names", k)
					if len(allowed) == 0 {
						msg = fmt.Sprintf("%q is not a property here; this tool takes no arguments, send {}", k)
					}
					return &automium.Error{Code: automium.CodeInvalidArgument, Field: (&shapePath{parent: path, name: k}).String(), Message: msg, Allowed: allowed}
				}
			}
		}
		for _, name := range fields.names {
			if err := checkShape(obj[name], fields.types[name], &shapePath{parent: path, name: name}); err != nil {
				return err
			}
		}
	default:
		return mismatch("a value of Go kind " + t.Kind().String())
	}
	return nil
}

var plannerRefType = reflect.TypeFor[automium.PlannerRef]()

// shapePath is the JSON path of a value checkShape is looking at: a property
// (name) or an array element (index) of its parent; the nil path is the arguments
// object itself. It is rendered only when a problem is reported.
type shapePath struct {
	parent *shapePath
	name   string
	index  int
}

// String renders the path as the automium package writes field paths, such as
// steps[2].target.role; the arguments object itself is "".
func (p *shapePath) String() string {
	if p == nil {
		return ""
	}
	return pathStep(p.parent.String(), p.name, p.index)
}

// pathStep appends one step, a property name or else an array index, to a
// rendered path.
func pathStep(parent, name string, index int) string {
	if name == "" {
		return parent + "[" + strconv.Itoa(index) + "]"
	}
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// shapeFields is the wire view of a struct type: its property names in field
// order, sorted for error messages, and the Go type of each.
type shapeFields struct {
	names, sorted []string
	types         map[string]reflect.Type
}

// shapeFieldCache holds the shapeFields of every input struct type met so far.
// The input types are fixed, so it stays small.
var shapeFieldCache sync.Map // reflect.Type -> *shapeFields

func shapeFieldsOf(t reflect.Type) *shapeFields {
	if f, ok := shapeFieldCache.Load(t); ok {
		return f.(*shapeFields)
	}
	f := &shapeFields{types: map[string]reflect.Type{}}
	for _, sf := range reflect.VisibleFields(t) {
		if name := wireName(sf); name != "" {
			f.types[name] = sf.Type
			f.names = append(f.names, name)
		}
	}
	f.sorted = slices.Sorted(slices.Values(f.names))
	actual, _ := shapeFieldCache.LoadOrStore(t, f)
	return actual.(*shapeFields)
}

func integerProblem(path string, n json.Number, err error) *automium.Error {
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return &automium.Error{Code: automium.CodeInvalidArgument, Field: path, Message: fmt.Sprintf("%s is out of range", n)}
	}
	return &automium.Error{Code: automium.CodeInvalidArgument, Field: path, Message: fmt.Sprintf("must be an integer, not %s", n)}
}

// jsonKind names the JSON type of a value decoded with UseNumber.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
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
