package automium_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/limit"
)

// Benchmarks of every capability on its success path, the path an agent loop
// takes. Sized capabilities run at several sizes as sub-benchmarks, and report
// ns per element too: when that figure stays flat as the size grows, the cost is
// linear. The comparison benchmarks live in compare_test.go; the figures of
// both are in docs/performance.md.

// benchJourney returns a valid storefront journey of n steps. The steps cycle
// through intents whose values take different checks (route, text, key chord,
// option, direction), so every per-step rule is exercised, and the journey
// retries, so compilation builds recovery nodes and retry edges too.
func benchJourney(n int) automium.CompileJourneyInput {
	cycle := []automium.Step{
		{Intent: "navigate", Value: "/search?q=kettle"},
		{Intent: "fill", Target: &automium.Target{Role: "searchbox", Name: "Search products"}, Value: "kettle"},
		{Intent: "press_key", Value: "Control+Enter"},
		{Intent: "click", Target: &automium.Target{Role: "button", Name: "Add to cart"}},
		{Intent: "select_option", Target: &automium.Target{Role: "combobox", Name: "Quantity"}, Value: "2"},
		{Intent: "scroll", Value: "down"},
		{Intent: "hover", Target: &automium.Target{Role: "link", Name: "Cart"}},
	}
	steps := make([]automium.Step, n)
	for i := range steps {
		steps[i] = cycle[i%len(cycle)]
	}
	return automium.CompileJourneyInput{
		ID:         fmt.Sprintf("bench-storefront-%d-steps", n),
		AppID:      "storefront",
		FixtureID:  "storefront-guest-catalog",
		Goal:       "Find a kettle and add it to the cart",
		Steps:      steps,
		Assertions: []automium.Assertion{{Kind: "text_visible", Value: "Added to cart"}, {Kind: "url_matches", Value: "/cart"}},
		Recovery:   automium.Recovery{MaxRetries: 2, Strategies: []automium.RecoveryStrategy{"re_snapshot", "retry_step"}},
	}
}

// benchManifest returns a valid manifest input of n entries spread over every
// artifact kind, with sizes, digests and explicit media types on some entries.
func benchManifest(n int) automium.GetArtifactManifestInput {
	kinds := automium.ArtifactSpecs()
	size := int64(4096)
	entries := make([]automium.ArtifactEntry, n)
	for i := range entries {
		k := kinds[i%len(kinds)]
		e := automium.ArtifactEntry{Kind: k.Kind, Path: fmt.Sprintf("attempt-%d/%s-%03d", i%3+1, k.Kind, i)}
		if i%2 == 0 {
			e.MediaType = k.MediaTypes[0]
			e.Size = &size
			e.SHA256 = strings.Repeat("ab", 32)
		}
		entries[i] = e
	}
	return automium.GetArtifactManifestInput{RunID: "run-0123456789abcdef0123", Root: "artifacts/storefront/guest-catalog", Entries: entries}
}

// perElement reports the cost per element, the figure that stays flat when growth
// is linear.
func perElement(b *testing.B, n int, unit string) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/"+unit)
}

func BenchmarkListApps(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := automium.ListApps(ctx, automium.ListAppsInput{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkListFixtures(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		in   automium.ListFixturesInput
	}{
		{"all", automium.ListFixturesInput{}},
		{"app=helpdesk", automium.ListFixturesInput{AppID: "helpdesk"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := automium.ListFixtures(ctx, bc.in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCompileJourney(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10, 100, limit.MaxSteps} {
		in := benchJourney(n)
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := automium.CompileJourney(ctx, in)
				if err != nil || !res.Valid {
					b.Fatalf("CompileJourney: valid=%v err=%v problems=%v", res.Valid, err, res.Errors)
				}
			}
			perElement(b, n, "step")
		})
	}
}

// BenchmarkCompileJourneyInvalid measures the error path at the maximum size, where
// every step has a problem: the cost of finding all problems at once, of which
// at most MaxProblems are listed.
func BenchmarkCompileJourneyInvalid(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10, limit.MaxSteps} {
		in := benchJourney(n)
		for i := range in.Steps {
			in.Steps[i] = automium.Step{Intent: "navigate", Value: "https://example.com/"}
		}
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := automium.CompileJourney(ctx, in)
				if err != nil || res.Valid || len(res.Errors) != min(n, limit.MaxProblems) {
					b.Fatalf("CompileJourney: valid=%v err=%v problems=%d", res.Valid, err, len(res.Errors))
				}
			}
			perElement(b, n, "step")
		})
	}
}

func BenchmarkCreateRunSubmission(b *testing.B) {
	ctx := context.Background()
	in := automium.CreateRunSubmissionInput{
		JourneyID:            "storefront-search-add-to-cart",
		AppID:                "storefront",
		FixtureID:            "storefront-guest-catalog",
		Planner:              automium.PlannerRef{ID: "baseline-planner", Vendor: "openai", Model: "gpt-4.1-mini"},
		EnvironmentProfileID: "desktop-1440-en-us",
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := automium.CreateRunSubmission(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetReplaySummary(b *testing.B) {
	ctx := context.Background()
	in := automium.GetReplaySummaryInput{
		RunID:               "run-0123456789abcdef0123",
		Verdict:             automium.VerdictFlaky,
		RetryCount:          2,
		ArtifactManifestRef: automium.ArtifactManifestRefScheme + "run-0123456789abcdef0123",
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := automium.GetReplaySummary(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetArtifactManifest(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10, 100, limit.MaxArtifactEntries} {
		in := benchManifest(n)
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := automium.GetArtifactManifest(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
			perElement(b, n, "entry")
		})
	}
}
