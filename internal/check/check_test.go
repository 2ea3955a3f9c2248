package check_test

import (
	"context"
	"errors"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/check"
	"github.com/google/go-cmp/cmp"
)

type shape struct {
	Code  automium.Code
	Field string
}

func shapes(ps []automium.Problem) []shape {
	var out []shape
	for _, p := range ps {
		out = append(out, shape{p.Code, p.Field})
	}
	return out
}

// TestHooksAreFilled: importing the root package fills every hook, and each
// answers as the root package's capabilities do.
func TestHooksAreFilled(t *testing.T) {
	target := &automium.Target{Role: "button", Name: "Checkout"}
	tests := []struct {
		name string
		got  []automium.Problem
		want []shape
	}{
		{"valid step", check.Validate[automium.Problem](automium.Step{Intent: "click", Target: target}), nil},
		{"unknown intent, not UTF-8", check.Validate[automium.Problem](automium.Step{Intent: "tap", Value: "\xff"}),
			[]shape{{automium.CodeUnsupportedIntent, "intent"}, {automium.CodeInvalidArgument, "value"}}},
		{"click with what it needs", check.Decision[automium.Problem](automium.PathOf("decision"), "click", true, false, ""), nil},
		{"click without a target, with a value", check.Decision[automium.Problem](automium.PathOf("decision"), "click", false, false, "x"),
			[]shape{{automium.CodeInvalidArgument, "decision.target"}, {automium.CodeInvalidArgument, "decision.value"}}},
		{"an intent the vocabulary lacks", check.Decision[automium.Problem](automium.Path{}, "tap", false, false, ""), nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, shapes(tt.got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	if _, bad := check.Route("/cart"); bad {
		t.Error("Route refused /cart")
	}
	if _, bad := check.Route("https://evil.example/"); !bad {
		t.Error("Route accepted an absolute URL")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var e *automium.Error
	if err := check.Context(ctx); !errors.As(err, &e) || e.Code != automium.CodeCanceled || !errors.Is(err, context.Canceled) {
		t.Errorf("Context(canceled) = %v; want a canceled *automium.Error wrapping context.Canceled", err)
	}
	if err := check.Context(context.Background()); err != nil {
		t.Errorf("Context(live) = %v", err)
	}
}

// TestRegisterTagAfterValidation: a tag registered once the validator is
// built would be missing from it, so the root package refuses it loudly.
func TestRegisterTagAfterValidation(t *testing.T) {
	check.Validate[automium.Problem](automium.Step{Intent: "click"})
	defer func() {
		if recover() == nil {
			t.Error("RegisterTag after the validator was built did not panic")
		}
	}()
	check.RegisterTag("automium_late", string(automium.CodeInvalidArgument), "a late tag", func() []string { return nil })
}
