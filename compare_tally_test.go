package automium

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/automium/automium/internal/limit"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/exp/stats"
)

// TestQuantilesR7 holds the counting selection to stats.Quantiles over a sorted
// copy, bit for bit, on orders and spreads that stress it: sorted, reversed, all
// equal, few distinct values, organ pipe, seeded random latencies, values spread
// up to the trial latency limit (wide buckets), all alike but one outlier (one
// crowded bucket), and negative values, for every length up to 100,000. One
// orderStatistics serves every case, as it serves every planner of a tally.
func TestQuantilesR7(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 11))
	shapes := map[string]func(n int) []int{
		"sorted":   func(n int) []int { return fill(n, func(i int) int { return i }) },
		"reversed": func(n int) []int { return fill(n, func(i int) int { return n - i }) },
		"equal":    func(n int) []int { return fill(n, func(int) int { return 42 }) },
		"few":      func(n int) []int { return fill(n, func(int) int { return rng.IntN(3) }) },
		"organ":    func(n int) []int { return fill(n, func(i int) int { return min(i, n-i) }) },
		"random":   func(n int) []int { return fill(n, func(int) int { return rng.IntN(100_000) }) },
		"wide":     func(n int) []int { return fill(n, func(int) int { return rng.IntN(limit.MaxTrialLatencyMs + 1) }) },
		"outlier": func(n int) []int {
			x := fill(n, func(int) int { return 7 })
			x[n/2] = limit.MaxTrialLatencyMs
			return x
		},
		"negative": func(n int) []int { return fill(n, func(int) int { return rng.IntN(5_000) - 1<<40 }) },
	}
	var s orderStatistics
	for _, name := range slices.Sorted(maps.Keys(shapes)) {
		for _, n := range []int{1, 2, 3, 12, 13, 14, 100, 101, 1023, 1025, 2200, 4097, 100_000} {
			x := shapes[name](n)
			asFloats := make([]float64, n)
			for i, v := range x {
				asFloats[i] = float64(v)
			}
			slices.Sort(asFloats)
			unchanged := slices.Clone(x)
			for _, qs := range [][]float64{{0}, {0.5}, {0.9}, {1}, {0.5, 0.9}, {0, 0.25, 0.5, 0.9, 0.99, 1}} {
				want := stats.Quantiles(asFloats, qs...)
				got := s.quantilesR7(x, qs...)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s, n=%d, quantiles %v (-want +got):\n%s", name, n, qs, diff)
				}
			}
			if !slices.Equal(x, unchanged) {
				t.Errorf("%s, n=%d: x was changed", name, n)
			}
		}
	}
}

func fill(n int, f func(i int) int) []int {
	x := make([]int, n)
	for i := range x {
		x[i] = f(i)
	}
	return x
}
