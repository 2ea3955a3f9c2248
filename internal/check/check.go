// Package check is what the contract package needs of the root package's
// checks that a Go user does not: the shared validator (validate tags, UTF-8),
// the closed sets it knows, what an intent requires of a decision, the route
// rule and the context check. With them a contract message is checked exactly
// as a capability's input is, with the same codes, words and order, while the
// root package's API stays the domain's.
//
// The root package fills the hooks when it is initialized (its adapter.go);
// the contract package, which imports the root package, calls them, so the
// hooks are set before any contract code runs. This package imports nothing of
// the module, so the arrows run one way: root -> check <- contract -> root.
// The hooks are generic so that this package need not name automium.Problem
// or automium.Path; the root package registers the one instantiation there is.
package check

import (
	"context"

	"github.com/automium/automium/internal/echo"
)

var (
	validate    any // func(in any) []P
	decision    any // func(at A, intent string, hasTarget, hasDestination bool, value string) []P
	route       func(route string) (echo.Message, bool)
	checkCtx    func(ctx context.Context) error
	registerTag func(tag, code, noun string, values func() []string)
)

// Hooks is what the root package supplies. P is automium.Problem, A is
// automium.Path.
type Hooks[P, A any] struct {
	// Validate returns what the shared validator finds in in (its validate
	// tags, and every string that is not valid UTF-8), in no order.
	Validate func(in any) []P
	// Decision returns what an intent of the vocabulary requires of a
	// decision that has (or lacks) a target, a destination and a value, at
	// at; nothing for an intent the vocabulary does not have.
	Decision func(at A, intent string, hasTarget, hasDestination bool, value string) []P
	// Route reports what keeps route from being an app-relative route.
	Route func(route string) (echo.Message, bool)
	// Context is the first check of every capability: a nil or done context
	// ends the call with the package's error.
	Context func(ctx context.Context) error
	// RegisterTag adds a validate tag backed by a closed set, refused with
	// code (an automium.Code); it may be called only during package
	// initialisation.
	RegisterTag func(tag, code, noun string, values func() []string)
}

// Register sets the hooks; the root package calls it from init.
func Register[P, A any](h Hooks[P, A]) {
	validate, decision, route, checkCtx, registerTag = h.Validate, h.Decision, h.Route, h.Context, h.RegisterTag
}

// Validate returns what the shared validator finds in in, in no order.
func Validate[P any](in any) []P { return validate.(func(any) []P)(in) }

// Decision returns what the vocabulary's intent requires of a decision, at at.
func Decision[P, A any](at A, intent string, hasTarget, hasDestination bool, value string) []P {
	return decision.(func(A, string, bool, bool, string) []P)(at, intent, hasTarget, hasDestination, value)
}

// Route reports what keeps route from being an app-relative route.
func Route(r string) (echo.Message, bool) { return route(r) }

// Context checks ctx as every capability does first.
func Context(ctx context.Context) error { return checkCtx(ctx) }

// RegisterTag adds a closed-set validate tag to the shared validator and to
// the schemas derived from the tags; call it during package initialisation.
func RegisterTag(tag, code, noun string, values func() []string) struct{} {
	registerTag(tag, code, noun, values)
	return struct{}{}
}
