package automium

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/automium/automium/internal/jsonname"
)

// The JSON Schemas of the types a server needs as soon as it starts (every
// capability's input and output; the contract package keeps its own) ship
// precomputed in schemas/, one file per type, so that jsonSchema returns them
// without deriving them. Deriving costs milliseconds per type, mostly in
// jsonschema-go's encoder, which re-encodes every nested schema once per level of
// nesting; precomputed, the schemas cost a server nothing at start-up, and
// spawn → initialized stays near the Go runtime's own start-up time.
//
// The struct tags stay the one source of truth: go generate ./... writes the
// files, one for each input and result type of a tool of mcpserver's table
// (mcpserver/generate.go), and mcpserver's TestGenerated derives every schema
// again and fails when one no longer matches, for instance after a change to
// a validate tag or to the corpus behind an enum.
//
//go:embed schemas/*.json
var precomputedSchemaFiles embed.FS

// precomputedSchemaFile is where the schema of t is kept.
func precomputedSchemaFile(t reflect.Type) string { return "schemas/" + t.Name() + ".json" }

// precomputedSchema returns a copy of the precomputed schema of t, if t is a type
// of this package with a file in schemas/. A type without one is derived on each
// call, which is correct, only slower. Looking the file up by the type's name,
// rather than keeping a list of types here, keeps this low-level file free of
// the capability types above it; mcpserver's table of tools is the list.
func precomputedSchema(t reflect.Type) (json.RawMessage, bool) {
	if t.PkgPath() != packagePath {
		return nil, false
	}
	data, err := precomputedSchemaFiles.ReadFile(precomputedSchemaFile(t))
	if err != nil {
		return nil, false
	}
	// The file ends with a newline, which the derived schema does not.
	return bytes.TrimSuffix(data, []byte("\n")), true
}

// packagePath is this package's import path, for telling its types apart.
var packagePath = reflect.TypeFor[Error]().PkgPath()

// jsonSchema derives the JSON Schema (draft 2020-12) of the Go type t from its
// struct tags: json gives property names and optionality, jsonschema the
// descriptions, and validate the keywords (required, enums of oneof and of this
// package's closed-set tags, patterns, length, item and value bounds, uniqueness).
// The contract package and the MCP adapter both derive their schemas here
// (through internal/adapter), so a schema promises exactly what validation
// accepts.
//
// It fails on a validate rule with no JSON Schema translation, so an
// untranslatable rule is caught by tests, not shipped as a silently looser schema.
// The schemas of this package's capability types ship precomputed
// (see precomputedSchemaFiles), so a server pays nothing for them at start-up; a test keeps
// them equal to what derivation gives. The result is the caller's to keep. It is
// safe for concurrent use.
func jsonSchema(t reflect.Type) (json.RawMessage, error) {
	if s, ok := precomputedSchema(t); ok {
		return s, nil
	}
	return deriveSchema(t)
}

// deriveSchema is jsonSchema without the precomputed schemas.
func deriveSchema(t reflect.Type) (json.RawMessage, error) {
	s, err := schemaOf(t)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// schemaOf derives the JSON Schema of t as jsonSchema does, in memory: for a
// reader of its keywords, such as the MCP adapter's argument walker, which
// thus enforces the bounds the schema states without parsing its text back.
// Each call derives a new schema, the caller's to keep.
func schemaOf(t reflect.Type) (*jsonschema.Schema, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{})
	if err != nil {
		return nil, err
	}
	if err := annotate(s, t, t.String()); err != nil {
		return nil, err
	}
	return s, nil
}

// rule is one validate tag term, such as max=64 (tag "max", param "64").
type rule struct{ tag, param string }

// parseValidate splits a validate tag into levels: the rules of the field itself,
// then one level per dive (the rules of its items, of their items, ...). A bound's
// tag, such as max_text_length, is the max rule with the bound's value, read from
// the registry in limits.go. Cross-field and or-ed rules have no JSON Schema
// equivalent, so they are reported rather than silently dropped.
func parseValidate(tag string) ([][]rule, error) {
	levels := [][]rule{nil}
	if tag == "" {
		return levels, nil
	}
	for term := range strings.SplitSeq(tag, ",") {
		if strings.Contains(term, "|") {
			return nil, fmt.Errorf("or-ed rule %q has no JSON Schema translation", term)
		}
		name, param, _ := strings.Cut(term, "=")
		if r, ok := limitTag(name); ok && param == "" {
			levels[len(levels)-1] = append(levels[len(levels)-1], r)
			continue
		}
		if name == "dive" {
			levels = append(levels, nil)
			continue
		}
		levels[len(levels)-1] = append(levels[len(levels)-1], rule{tag: name, param: param})
	}
	return levels, nil
}

// hasRule reports whether rules holds tag.
func hasRule(rules []rule, tag string) bool {
	return slices.ContainsFunc(rules, func(r rule) bool { return r.tag == tag })
}

// annotate walks the Go type t and its schema s in step, translating the validate
// tag of every struct field into JSON Schema keywords. where names the position
// for error messages ("automium.CompileJourneyInput.steps").
func annotate(s *jsonschema.Schema, t reflect.Type, where string) error {
	// Nothing this package writes or reads uses null: an optional value is absent,
	// and a present list is an array, possibly empty. Saying so keeps schemas to
	// one type per value, which the single-type dialects of some model providers
	// require.
	dropNullAlternative(s)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if s.Items != nil {
			return annotate(s.Items, t.Elem(), where+"[]")
		}
	case reflect.Map:
		if s.AdditionalProperties != nil {
			return annotate(s.AdditionalProperties, t.Elem(), where+"{}")
		}
	case reflect.Struct:
		var required []string
		for _, f := range reflect.VisibleFields(t) {
			name, optional, ok := jsonname.Field(f)
			if !ok {
				continue
			}
			prop := s.Properties[name]
			if prop == nil {
				continue // a type jsonschema-go replaced wholesale, such as time.Time
			}
			at := where + "." + name
			levels, err := parseValidate(f.Tag.Get("validate"))
			if err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
			if !optional || hasRule(levels[0], "required") {
				required = append(required, name)
			}
			ft := f.Type
			target := prop
			for i, rules := range levels {
				if i > 0 {
					for ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if (ft.Kind() != reflect.Slice && ft.Kind() != reflect.Array && ft.Kind() != reflect.Map) || target == nil {
						return fmt.Errorf("%s: dive on a %s", at, ft.Kind())
					}
					ft = ft.Elem()
					if target.Items != nil {
						target = target.Items
					} else {
						target = target.AdditionalProperties
					}
				}
				if err := applyRules(target, ft, rules); err != nil {
					return fmt.Errorf("%s: %w", at, err)
				}
			}
			if err := annotate(prop, f.Type, at); err != nil {
				return err
			}
		}
		s.Required = required
	}
	return nil
}

// applyRules adds the keywords for one level of validate rules to s, the schema of
// a value of Go type t. Each rule is translated by its entry in ruleKeywords; the
// closed-set and pattern tags of this package by their registries; any other
// rule fails, so an untranslatable rule is caught by tests instead of shipping
// as a silently looser schema.
func applyRules(s *jsonschema.Schema, t reflect.Type, rules []rule) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	at := schemaTarget{s: s, kind: t.Kind()}
	for _, r := range rules {
		var err error
		if translate, ok := ruleKeywords[r.tag]; ok {
			err = translate(at, r.param)
		} else if _, ok := externalTags[r.tag]; ok {
			err = at.setPattern(externalPattern)
		} else if values, ok := tagValues(r.tag); ok {
			s.Enum = make([]any, len(values))
			for i, v := range values {
				s.Enum[i] = v
			}
		} else if p, ok := tagPattern(r.tag); ok {
			err = at.setPattern(p)
		} else {
			err = fmt.Errorf("validate rule %q has no JSON Schema translation; teach schema.go about it", r.tag)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// schemaTarget is the schema a rule writes to and the Go kind of its value,
// which decides the keyword: a max is maxLength on a string, maxItems on a
// list, maximum on a number.
type schemaTarget struct {
	s    *jsonschema.Schema
	kind reflect.Kind
}

func (at schemaTarget) collection() bool {
	return at.kind == reflect.Slice || at.kind == reflect.Array || at.kind == reflect.Map
}

// ruleKeywords translates each validate rule with a JSON Schema equivalent.
var ruleKeywords = map[string]func(at schemaTarget, param string) error{
	// Optionality comes from the json tag.
	"omitempty": noKeyword, "omitzero": noKeyword, "omitnil": noKeyword,
	// annotate lists the property as required and has ruled out null; a
	// required string may not be empty either.
	"required": func(at schemaTarget, _ string) error {
		if at.kind == reflect.String && at.s.MinLength == nil {
			at.s.MinLength = new(1)
		}
		return nil
	},
	"notblank": func(at schemaTarget, _ string) error {
		if at.kind != reflect.String {
			return fmt.Errorf("notblank on a %s has no JSON Schema translation", at.kind)
		}
		return at.setPattern(`\S`)
	},
	"min": lowerBound, "gte": lowerBound,
	"max": upperBound, "lte": upperBound,
	"len": func(at schemaTarget, p string) error {
		if err := lowerBound(at, p); err != nil {
			return err
		}
		return upperBound(at, p)
	},
	"gt": func(at schemaTarget, p string) error {
		f, err := at.number(p)
		at.s.ExclusiveMinimum = &f
		return err
	},
	"lt": func(at schemaTarget, p string) error {
		f, err := at.number(p)
		at.s.ExclusiveMaximum = &f
		return err
	},
	"oneof": func(at schemaTarget, p string) error {
		at.s.Enum = nil
		for _, v := range strings.Fields(p) {
			if !isNumber(at.kind) {
				at.s.Enum = append(at.s.Enum, v)
				continue
			}
			f, err := parseNumber(v)
			if err != nil {
				return err
			}
			at.s.Enum = append(at.s.Enum, f)
		}
		return nil
	},
	"unique": func(at schemaTarget, _ string) error {
		if at.kind != reflect.Slice && at.kind != reflect.Array {
			return fmt.Errorf("unique on a %s has no JSON Schema translation", at.kind)
		}
		at.s.UniqueItems = true
		return nil
	},
	"hexadecimal": func(at schemaTarget, _ string) error { return at.setPattern(`^(0[xX])?[0-9a-fA-F]+$`) },
}

func noKeyword(schemaTarget, string) error { return nil }

// lowerBound and upperBound set the bound in the keyword that fits the kind:
// length for strings, item or property count for collections, value for numbers.
func lowerBound(at schemaTarget, p string) error { return at.bound(p, true) }
func upperBound(at schemaTarget, p string) error { return at.bound(p, false) }

func (at schemaTarget) bound(p string, lower bool) error {
	s := at.s
	switch {
	case at.kind == reflect.String || at.collection():
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return fmt.Errorf("bad length parameter %q", p)
		}
		switch {
		case at.kind == reflect.String && lower:
			s.MinLength = &n
		case at.kind == reflect.String:
			s.MaxLength = &n
		case at.kind == reflect.Map && lower:
			s.MinProperties = &n
		case at.kind == reflect.Map:
			s.MaxProperties = &n
		case lower:
			s.MinItems = &n
		default:
			s.MaxItems = &n
		}
		return nil
	case isNumber(at.kind):
		f, err := parseNumber(p)
		if lower {
			s.Minimum = &f
		} else {
			s.Maximum = &f
		}
		return err
	}
	return fmt.Errorf("min/max on a %s", at.kind)
}

// number parses the parameter of a rule that only numbers take.
func (at schemaTarget) number(p string) (float64, error) {
	if !isNumber(at.kind) {
		return 0, fmt.Errorf("a numeric bound on a %s has no JSON Schema translation", at.kind)
	}
	return parseNumber(p)
}

func parseNumber(p string) (float64, error) {
	f, err := strconv.ParseFloat(p, 64)
	if err != nil {
		return 0, fmt.Errorf("bad numeric parameter %q", p)
	}
	return f, nil
}

// setPattern sets the one pattern a value may have; two different ones would
// need allOf, which the schemas do without.
func (at schemaTarget) setPattern(p string) error {
	if at.s.Pattern != "" && at.s.Pattern != p {
		return fmt.Errorf("two patterns on one value (%q and %q)", at.s.Pattern, p)
	}
	at.s.Pattern = p
	return nil
}

func isNumber(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// dropNullAlternative turns a ["null", T] type union into plain T.
func dropNullAlternative(s *jsonschema.Schema) {
	if len(s.Types) == 0 {
		return
	}
	rest := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
	if len(rest) == 1 {
		s.Type, s.Types = rest[0], nil
	} else {
		s.Types = rest
	}
}
