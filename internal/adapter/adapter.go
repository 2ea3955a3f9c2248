// Package adapter is what the MCP adapter (mcpserver) needs of the root
// package that a Go user does not: the JSON Schema of an input type in memory,
// for the argument walker and the catalog; the one order of the problems of an
// input; and the one-line-of-text rule, for the prompt arguments. With them
// the adapter refuses, bounds and orders exactly as the capabilities do,
// while the root package's API stays the domain's.
//
// The root package fills the hooks when it is initialized (its adapter.go),
// and mcpserver, which imports the root package, calls them here. This
// package imports nothing of the module, so the arrows run one way: root ->
// adapter <- mcpserver -> root. The problem hooks are generic so that this
// package need not name automium.Problem or automium.Path; the root package
// registers the one instantiation there is, and a call with any other types
// panics at once, in the adapter's tests.
package adapter

import (
	"encoding/json"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// The hooks, set once by the root package's init, before any caller can
// run, and only read afterwards.
var (
	schema       func(t reflect.Type) (*jsonschema.Schema, error)
	jsonSchema   func(t reflect.Type) (json.RawMessage, error)
	sortProblems any // func(reflect.Type, []P)
	lineProblem  any // func(A, string) (P, bool)
	appendJSON   func(dst []byte, v any) ([]byte, bool)
)

// Hooks is what the root package supplies. P is automium.Problem, A is
// automium.Path.
type Hooks[P, A any] struct {
	// Schema derives the JSON Schema of t in memory, as the tools advertise it.
	Schema func(t reflect.Type) (*jsonschema.Schema, error)
	// JSONSchema is Schema as JSON, precomputed for the root package's types.
	JSONSchema func(t reflect.Type) (json.RawMessage, error)
	// SortProblems puts problems of an input of type t in the one order of
	// problems (see automium.Problem).
	SortProblems func(t reflect.Type, problems []P)
	// LineProblem reports, as a problem at at, what keeps s from being one
	// line of visible text, the rule of a journey's goal and accessible names.
	LineProblem func(at A, s string) (P, bool)
	// AppendJSON appends v as encoding/json writes it, without reflection,
	// for the results where reflection costs a call most (a compiled
	// journey), and reports false for every other value.
	AppendJSON func(dst []byte, v any) ([]byte, bool)
}

// Register sets the hooks; the root package calls it from init.
func Register[P, A any](h Hooks[P, A]) {
	schema, jsonSchema, sortProblems, lineProblem, appendJSON = h.Schema, h.JSONSchema, h.SortProblems, h.LineProblem, h.AppendJSON
}

// AppendJSON appends v as encoding/json would write it when the root package
// writes v itself, and reports false when the caller must use encoding/json.
// The bytes are the same either way.
func AppendJSON(dst []byte, v any) ([]byte, bool) { return appendJSON(dst, v) }

// Schema derives the JSON Schema of the Go type t from its struct tags, in
// memory: the argument walker enforces the bounds it states without parsing
// schema text back. Each call derives a new schema, the caller's to keep.
func Schema(t reflect.Type) (*jsonschema.Schema, error) { return schema(t) }

// JSONSchema is the JSON form of Schema; the root package's capability and
// contract types have theirs precomputed.
func JSONSchema(t reflect.Type) (json.RawMessage, error) { return jsonSchema(t) }

// SortProblems puts problems of an input of type t in the one order of
// problems: by path, member names ranked as t declares its fields and list
// elements by index, names t does not have last; problems at one path keep
// the order they were found in.
func SortProblems[P any](t reflect.Type, problems []P) {
	sortProblems.(func(reflect.Type, []P))(t, problems)
}

// LineProblem reports, as a problem at at, what keeps s from being one line
// of visible text (controls, format characters, line separators, white space
// at either end, runs of white space), so that the MCP prompts refuse what the
// tools refuse.
func LineProblem[P, A any](at A, s string) (P, bool) {
	return lineProblem.(func(A, string) (P, bool))(at, s)
}
