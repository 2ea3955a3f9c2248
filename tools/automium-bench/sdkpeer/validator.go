//go:build benchvalidator

package main

import (
	"sync"

	"github.com/go-playground/validator/v10"

	"github.com/automium/automium/tools/automium-bench/internal/benchload"
)

// validate is built on first use, as automium-mcp builds its validator on the
// first call that validates, with automium-mcp's option.
//
// A blank import of the validator would not do: the linker would drop its
// unreferenced package-level maps (the country, currency and language tables)
// with their initialisation, which automium-mcp pays at every start. Calling
// validator.New keeps its table of baked-in rules, and through it every
// table and the package initialisation automium-mcp links.
var validate = sync.OnceValue(func() *validator.Validate {
	return validator.New(validator.WithRequiredStructEnabled())
})

// checkLoad refuses a bench_load without a tool name. Only bench_load
// validates, so the measured calls cost what the plain peer's cost.
func checkLoad(l benchload.Load) error {
	return validate().Var(l.Tool, "required")
}
