// Package closedset holds the two conversions every package with typed closed
// sets needs (the root package, package contract and the MCP adapter): a set's
// values as their wire strings, and wire strings as a sorted typed set. It is
// a leaf: it imports only the standard library.
package closedset

import "slices"

// Strings returns the wire forms of a closed set's values, for what lists them
// as text (allowed values, messages, prompts).
func Strings[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// Sorted returns a sorted copy of a closed set as its Go type, for the
// accessors (Verdicts, Intents, Lanes, ...) that let Go callers list a set
// without knowing validate tag names.
func Sorted[T ~string](values []string) []T {
	out := make([]T, len(values))
	for i, v := range values {
		out[i] = T(v)
	}
	slices.Sort(out)
	return out
}
