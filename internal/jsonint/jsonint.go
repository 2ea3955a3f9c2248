// Package jsonint reads JSON number literals as JSON Schema's integer reads
// them: a number whose value has no fractional part, however it is spelled
// (1e3, 2.0, 0.05e2), compared exactly, with no float64 in between. It is a
// leaf with no dependencies; the MCP adapter's argument walker uses it to
// bound integer arguments.
package jsonint

import (
	"math"
	"slices"
	"strconv"
)

// Int is a JSON integer: a sign and a magnitude, or Huge when the magnitude
// does not fit in 64 bits (then it is outside every Go integer range, and Mag
// is meaningless).
type Int struct {
	Neg  bool
	Mag  uint64
	Huge bool
}

// Less reports whether a < b. Zero is zero whatever its sign.
func (a Int) Less(b Int) bool {
	an, bn := a.Neg && (a.Mag != 0 || a.Huge), b.Neg && (b.Mag != 0 || b.Huge)
	switch {
	case an != bn:
		return an
	case an: // both negative: the larger magnitude is smaller
		return b.magLess(a)
	default:
		return a.magLess(b)
	}
}

func (a Int) magLess(b Int) bool {
	if a.Huge || b.Huge {
		return !a.Huge && b.Huge
	}
	return a.Mag < b.Mag
}

// String is a in decimal. A Huge value has no decimal form here: a caller
// names a huge literal as it was written.
func (a Int) String() string {
	s := strconv.FormatUint(a.Mag, 10)
	if a.Neg && a.Mag != 0 {
		return "-" + s
	}
	return s
}

// Parse reads a JSON number literal, whose grammar is already checked (by a
// JSON tokenizer), as JSON Schema's integer does: 1e3 and 2.0 are integers,
// 2.5 is not (ok false). It never allocates, and a huge exponent costs no
// more than a short one.
func Parse(lit []byte) (v Int, ok bool) {
	if lit[0] == '-' {
		v.Neg, lit = true, lit[1:]
	}
	intPart, rest := lit, []byte(nil)
	if i := slices.IndexFunc(intPart, func(r byte) bool { return r == '.' || r == 'e' || r == 'E' }); i >= 0 {
		intPart, rest = lit[:i], lit[i:]
	}
	var frac []byte
	if len(rest) > 0 && rest[0] == '.' {
		frac, rest = rest[1:], nil
		if i := slices.IndexFunc(frac, func(r byte) bool { return r == 'e' || r == 'E' }); i >= 0 {
			frac, rest = frac[:i], frac[i:]
		}
	}
	exp := 0
	if len(rest) > 0 { // e or E, an optional sign, digits
		digits, neg := rest[1:], false
		if digits[0] == '+' || digits[0] == '-' {
			neg, digits = digits[0] == '-', digits[1:]
		}
		for _, d := range digits {
			if exp < 1<<30 { // saturate: far beyond any literal's digit count
				exp = exp*10 + int(d-'0')
			}
		}
		if neg {
			exp = -exp
		}
	}
	// The value is the digits of intPart and frac times 10^(exp-len(frac)).
	// Trailing zeros of the digits only move the exponent.
	frac = frac[:len(frac)-trailingZeros(frac)]
	if len(frac) == 0 {
		z := trailingZeros(intPart)
		if z == len(intPart) { // all zeros
			return Int{}, true
		}
		intPart, exp = intPart[:len(intPart)-z], exp+z
	} else {
		exp -= len(frac)
	}
	if exp < 0 {
		return v, false
	}
	// The significant digits start at the first nonzero one, which is in frac
	// when intPart is all zeros: 0.001e21 is 1e18, 19 digits.
	lead, fracLead := 0, 0
	for lead < len(intPart) && intPart[lead] == '0' {
		lead++
	}
	for lead == len(intPart) && fracLead < len(frac) && frac[fracLead] == '0' {
		fracLead++
	}
	if len(intPart)-lead+len(frac)-fracLead+exp > 20 { // more digits than 2^64 has
		v.Huge = true
		return v, true
	}
	for _, digits := range [][]byte{intPart[lead:], frac} {
		for _, d := range digits {
			if v.Mag > (math.MaxUint64-uint64(d-'0'))/10 {
				v.Huge = true
				return v, true
			}
			v.Mag = v.Mag*10 + uint64(d-'0')
		}
	}
	for range exp {
		if v.Mag > math.MaxUint64/10 {
			v.Huge = true
			return v, true
		}
		v.Mag *= 10
	}
	return v, true
}

func trailingZeros(b []byte) int {
	n := 0
	for n < len(b) && b[len(b)-1-n] == '0' {
		n++
	}
	return n
}
