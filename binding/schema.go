package binding

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/automium/automium/canonicaljson"
	"github.com/google/jsonschema-go/jsonschema"
)

// A closed input schema is an object schema in which every object, at any depth,
// names its properties and refuses others (additionalProperties or
// unevaluatedProperties false). Only then do "the arguments validate" and "the
// arguments are the granted ones" mean the same thing for a server: an open
// schema would let a call carry extra properties that the server may act on but
// that no check looked at.
//
// Validation itself is github.com/google/jsonschema-go, the validator the MCP
// go-sdk applies to tool inputs (draft 2020-12 and draft-07: type, enum, const,
// required, properties, additionalProperties, minimum/maximum, minLength/maxLength,
// pattern, items, minItems/maxItems, $ref to local $defs, anyOf/oneOf/allOf). A
// $ref to anything outside the schema is refused: nothing is ever fetched.

// schemaKeywordsOne are the keywords whose value is one subschema.
var schemaKeywordsOne = []string{"additionalProperties", "unevaluatedProperties", "items", "unevaluatedItems",
	"contains", "propertyNames", "not", "if", "then", "else"}

// schemaKeywordsList are the keywords whose value is a list of subschemas.
var schemaKeywordsList = []string{"anyOf", "oneOf", "allOf", "prefixItems", "items"}

// schemaKeywordsMap are the keywords whose value maps names to subschemas.
var schemaKeywordsMap = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}

// compileClosedSchema checks that raw is a closed object schema and resolves it
// for validation.
func compileClosedSchema(raw json.RawMessage, field string) (*jsonschema.Resolved, error) {
	canonical, err := canonicaljson.Canonicalize(raw)
	if err != nil {
		return nil, refuse(CodeSchemaNotClosed, field, "the input schema is not I-JSON: %v", err)
	}
	var root any
	if err := json.Unmarshal(canonical, &root); err != nil {
		return nil, refuse(CodeSchemaNotClosed, field, "the input schema is not JSON")
	}
	obj, ok := root.(map[string]any)
	if !ok || obj["type"] != "object" {
		return nil, refuse(CodeSchemaNotClosed, field, `the input schema must have "type": "object"`)
	}
	if where, open := firstOpenObject(root, "#"); open {
		return nil, refuse(CodeSchemaNotClosed, field, "the input schema is open at %s: an object schema there does not set additionalProperties (or unevaluatedProperties) to false", where)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(canonical, &s); err != nil {
		return nil, refuse(CodeSchemaNotClosed, field, "the input schema cannot be read: %s", shorten(err.Error()))
	}
	resolved, err := s.Resolve(nil) // nil loader: a remote $ref fails instead of being fetched
	if err != nil {
		return nil, refuse(CodeSchemaNotClosed, field, "the input schema cannot be resolved: %s", shorten(err.Error()))
	}
	return resolved, nil
}

// firstOpenObject returns the JSON pointer of the first object schema in s that
// accepts unnamed properties.
func firstOpenObject(s any, at string) (string, bool) {
	obj, ok := s.(map[string]any)
	if !ok {
		return "", false
	}
	_, hasProps := obj["properties"]
	if obj["type"] == "object" || hasProps {
		if obj["additionalProperties"] != false && obj["unevaluatedProperties"] != false {
			return at, true
		}
	}
	for _, k := range schemaKeywordsOne {
		if where, open := firstOpenObject(obj[k], at+"/"+k); open {
			return where, true
		}
	}
	for _, k := range schemaKeywordsList {
		list, _ := obj[k].([]any)
		for i, sub := range list {
			if where, open := firstOpenObject(sub, at+"/"+k+"/"+strconv.Itoa(i)); open {
				return where, true
			}
		}
	}
	for _, k := range schemaKeywordsMap {
		m, _ := obj[k].(map[string]any)
		for _, name := range sortedKeys(m) {
			if where, open := firstOpenObject(m[name], at+"/"+k+"/"+name); open {
				return where, true
			}
		}
	}
	return "", false
}

// canonicalArguments returns the canonical form of args, which must be a JSON
// object that validates against schema.
func canonicalArguments(schema *jsonschema.Resolved, args json.RawMessage, field string) ([]byte, error) {
	canonical, err := canonicaljson.Canonicalize(args)
	if err != nil {
		return nil, refuse(CodeArgumentsOutsideSchema, field, "the arguments are not I-JSON: %v", err)
	}
	var instance any
	if err := json.Unmarshal(canonical, &instance); err != nil {
		return nil, refuse(CodeArgumentsOutsideSchema, field, "the arguments are not JSON")
	}
	if _, ok := instance.(map[string]any); !ok {
		return nil, refuse(CodeArgumentsOutsideSchema, field, "the arguments must be a JSON object")
	}
	if err := schema.Validate(instance); err != nil {
		return nil, refuse(CodeArgumentsOutsideSchema, field, "the arguments do not validate against the tool's closed input schema: %s", shorten(err.Error()))
	}
	return canonical, nil
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
