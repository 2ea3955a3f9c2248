package automium

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/exp/stats"
)

// TestQuantilesR7 holds the selection to stats.Quantiles over a sorted copy, bit
// for bit, on the orders that stress a quickselect: sorted, reversed, all equal,
// few distinct values, organ pipe, and seeded random latencies of every length
// up to a few thousand.
func TestQuantilesR7(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 11))
	shapes := map[string]func(n int) []float64{
		"sorted":   func(n int) []float64 { return fill(n, func(i int) float64 { return float64(i) }) },
		"reversed": func(n int) []float64 { return fill(n, func(i int) float64 { return float64(n - i) }) },
		"equal":    func(n int) []float64 { return fill(n, func(int) float64 { return 42 }) },
		"few":      func(n int) []float64 { return fill(n, func(int) float64 { return float64(rng.IntN(3)) }) },
		"organ":    func(n int) []float64 { return fill(n, func(i int) float64 { return float64(min(i, n-i)) }) },
		"random":   func(n int) []float64 { return fill(n, func(int) float64 { return float64(rng.IntN(100_000)) }) },
	}
	for name, shape := range shapes {
		for _, n := range []int{1, 2, 3, 12, 13, 14, 100, 101, 2200, 4097} {
			x := shape(n)
			for _, qs := range [][]float64{{0}, {0.5}, {0.9}, {1}, {0.5, 0.9}, {0, 0.25, 0.5, 0.9, 0.99, 1}} {
				want := stats.Quantiles(slices.Clone(x), qs...)
				got := quantilesR7(slices.Clone(x), qs...)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s, n=%d, quantiles %v (-want +got):\n%s", name, n, qs, diff)
				}
			}
		}
	}
}

func fill(n int, f func(i int) float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = f(i)
	}
	return x
}
