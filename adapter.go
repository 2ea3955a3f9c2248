package automium

import "github.com/automium/automium/internal/adapter"

// The MCP adapter's hooks (see internal/adapter): what it needs of this
// package that a Go user does not, supplied here rather than exported.
func init() {
	adapter.Register(adapter.Hooks[Problem, Path]{
		Schema:       schemaOf,
		JSONSchema:   jsonSchema,
		SortProblems: sortProblems,
		LineProblem:  lineProblemAt,
	})
}
