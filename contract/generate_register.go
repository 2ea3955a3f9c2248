//go:build automiumgen

package contract

import "github.com/automium/automium/internal/gen"

// Only the generator is built with the automiumgen tag; see tools/gen.
func init() { gen.Register("contract", generatedFiles) }
