package automium

import "math"

// This file holds the distributions behind a pair comparison: Student's t (its
// two-sided tail and quantiles, through the regularized incomplete beta
// function) and Fisher's exact test. Every product that is added is written
// float64(x*y), so no platform fuses it into a multiply-add
// (TestNoFusedMultiplyAdd), and results are the same bits everywhere.

// tTwoSided is P(|T| ≥ |t|) for T ~ Student's t with df degrees of freedom:
// I_x(df/2, 1/2) with x = df/(df + t²).
func tTwoSided(t, df float64) float64 {
	if math.IsInf(t, 0) {
		return 0
	}
	t2 := float64(t * t)
	x, y := df/(df+t2), t2/(df+t2)
	return regIncBeta(df/2, 0.5, x, y)
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), with
// y = 1 − x given separately so that no precision is lost near x = 1. It uses
// the continued fraction of Numerical Recipes (§6.4), evaluated by Lentz's
// method on whichever of I_x(a,b) and 1 − I_y(b,a) converges fast.
func regIncBeta(a, b, x, y float64) float64 {
	switch {
	case x <= 0:
		return 0
	case y <= 0:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(float64(a*math.Log(x)) + float64(b*math.Log(y)) + lab - la - lb)
	if x < (a+1)/(a+b+2) {
		return float64(front*betaContinuedFraction(a, b, x)) / a
	}
	return 1 - float64(front*betaContinuedFraction(b, a, y))/b
}

// betaContinuedFraction evaluates the continued fraction of I_x(a, b) by the
// modified Lentz method until a step changes it by less than an ulp or two.
func betaContinuedFraction(a, b, x float64) float64 {
	const tiny = 1e-300
	clampTiny := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/clampTiny(1-float64((a+b)*x)/(a+1))
	h := d
	for m := 1.0; m <= 100_000; m++ {
		m2 := 2 * m
		aa := float64(float64(m*(b-m))*x) / float64((a-1+m2)*(a+m2))
		d = 1 / clampTiny(1+float64(aa*d))
		c = clampTiny(1 + aa/c)
		h = float64(h * float64(d*c))
		aa = -float64(float64((a+m)*(a+b+m))*x) / float64((a+m2)*(a+1+m2))
		d = 1 / clampTiny(1+float64(aa*d))
		c = clampTiny(1 + aa/c)
		del := float64(d * c)
		h = float64(h * del)
		if math.Abs(del-1) < 2e-16 {
			break
		}
	}
	return h
}

// tQuantiles caches t₀.₉₇₅ and t₀.₈₀ by degrees of freedom: a report's pairs
// mostly share a number of journeys.
type tQuantiles struct {
	df        []int
	q975, q80 []float64
}

func (q *tQuantiles) at(df int) (float64, float64) {
	for i, d := range q.df {
		if d == df {
			return q.q975[i], q.q80[i]
		}
	}
	a, b := tQuantile(0.05, float64(df)), tQuantile(0.40, float64(df))
	q.df, q.q975, q.q80 = append(q.df, df), append(q.q975, a), append(q.q80, b)
	return a, b
}

// tQuantile is the t > 0 whose two-sided tail P(|T_df| ≥ t) is alpha: the
// 1 − alpha/2 quantile. The tail falls as t grows, so bisection finds it; it
// stops when the bracket can no longer shrink, at an ulp or two.
func tQuantile(alpha, df float64) float64 {
	lo, hi := 0.0, 1.0
	for tTwoSided(hi, df) > alpha {
		lo, hi = hi, 2*hi
	}
	for range 200 {
		mid := lo + float64((hi-lo)/2)
		if mid == lo || mid == hi {
			break
		}
		if tTwoSided(mid, df) > alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + float64((hi-lo)/2)
}

// fisherExact is the two-sided Fisher exact p-value of the 2×2 table of x1
// passes in n1 runs against x2 in n2 (n1, n2 ≥ 1): the probability, under the
// hypergeometric law of the table given its margins, of every table no more
// likely than the one observed. "No more likely" allows a relative 1e-7, as
// R's fisher.test does, so that tables equally likely in exact arithmetic tie
// after rounding. The weights of the tables are built from the lowest one by
// the ratio of consecutive terms, C(n1,k+1)C(n2,K−k−1) / C(n1,k)C(n2,K−k), and
// normalized by their sum: no factorial and no logarithm. The ratios are
// recomputed in the second pass in the same order, so both passes see the
// same bits.
func fisherExact(x1, n1, x2, n2 int) float64 {
	var w fisherWeights
	return w.p(x1, n1, x2, n2)
}

// fisherWeights is fisherExact's scratch space, reused across a report's
// journeys.
type fisherWeights struct{ w []float64 }

func (fw *fisherWeights) p(x1, n1, x2, n2 int) float64 {
	k := x1 + x2
	lo, hi := max(0, k-n2), min(k, n1)
	if lo == hi {
		return 1
	}
	w := fw.w[:0]
	v, total := 1.0, 0.0
	for i := lo; i <= hi; i++ {
		w = append(w, v)
		total += v
		v = float64(v*float64(float64(n1-i)*float64(k-i))) / float64(float64(i+1)*float64(n2-k+i+1))
	}
	fw.w = w
	observed := w[x1-lo] * (1 + 1e-7)
	tail := 0.0
	for _, x := range w {
		if x <= observed {
			tail += x
		}
	}
	return min(1, tail/total)
}
