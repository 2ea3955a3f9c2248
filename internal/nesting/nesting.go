// Package nesting holds the one bound on how deeply JSON that Automium reads
// from a client may nest objects and arrays. It is a leaf, so that the stdio
// transport and canonicaljson, which import nothing of the root package, and
// the root package's registry of bounds (automium.Limits) share one number.
package nesting

// MaxDepth is how deeply one message a client sends, and the arguments inside
// it, may nest objects and arrays. MCP messages nest a handful of levels and
// the deepest Automium input type about ten; 64 leaves room for any client's
// _meta while keeping every recursive reader's stack small.
const MaxDepth = 64
