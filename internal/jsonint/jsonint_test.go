package jsonint

import (
	"math"
	"math/big"
	"regexp"
	"strings"
	"testing"
)

// TestLess holds the order to the integers' own: zero has one value whatever
// its sign, and a huge magnitude is beyond every 64-bit one on its side.
func TestLess(t *testing.T) {
	huge, negHuge := Int{Huge: true}, Int{Neg: true, Huge: true}
	max, min := Int{Mag: math.MaxUint64}, Int{Neg: true, Mag: math.MaxUint64}
	for _, tt := range []struct {
		name string
		a, b Int
		want bool
	}{
		{"1 < 2", Int{Mag: 1}, Int{Mag: 2}, true},
		{"2 < 1", Int{Mag: 2}, Int{Mag: 1}, false},
		{"-2 < -1", Int{Neg: true, Mag: 2}, Int{Neg: true, Mag: 1}, true},
		{"-1 < -2", Int{Neg: true, Mag: 1}, Int{Neg: true, Mag: 2}, false},
		{"-1 < 0", Int{Neg: true, Mag: 1}, Int{}, true},
		{"-0 < 0", Int{Neg: true}, Int{}, false},
		{"0 < -0", Int{}, Int{Neg: true}, false},
		{"max < huge", max, huge, true},
		{"huge < max", huge, max, false},
		{"huge < huge", huge, huge, false},
		{"-huge < min", negHuge, min, true},
		{"min < -huge", min, negHuge, false},
		{"-huge < huge", negHuge, huge, true},
	} {
		if got := tt.a.Less(tt.b); got != tt.want {
			t.Errorf("%s: Less = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestString(t *testing.T) {
	for _, tt := range []struct {
		in   Int
		want string
	}{
		{Int{}, "0"}, {Int{Neg: true}, "0"}, {Int{Mag: 42}, "42"}, {Int{Neg: true, Mag: 1 << 63}, "-9223372036854775808"},
		{Int{Mag: math.MaxUint64}, "18446744073709551615"},
	} {
		if got := tt.in.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// jsonNumber is the JSON number grammar.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// FuzzParseInteger holds Parse to exact rational arithmetic: a literal is
// an integer exactly when its value has no fractional part, and its value is the
// rational's, or huge when it needs more than 64 bits.
func FuzzParseInteger(f *testing.F) {
	for _, seed := range []string{"0", "-0", "1", "2.0", "2.5", "1e3", "1E+3", "1e-3", "100e-2", "0.05e2", "1.0000000000000000000001",
		"18446744073709551615", "18446744073709551616", "-9223372036854775808", "1e19", "1e20", "0e-9999", "00", "1.", "-"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		if !jsonNumber.MatchString(lit) || len(lit) > 400 {
			return
		}
		if e := strings.IndexAny(lit, "eE"); e >= 0 && len(strings.TrimLeft(lit[e+1:], "+-0")) > 4 {
			return // big.Rat would build a number with that many digits
		}
		r, ok := new(big.Rat).SetString(lit)
		if !ok {
			t.Fatalf("big.Rat cannot read %q", lit)
		}
		got, integral := Parse([]byte(lit))
		if integral != r.IsInt() {
			t.Fatalf("%s: integral %v, want %v", lit, integral, r.IsInt())
		}
		if !integral {
			return
		}
		mag := new(big.Int).Abs(r.Num())
		if huge := mag.BitLen() > 64; got.Huge != huge || !huge && got.Mag != mag.Uint64() {
			t.Fatalf("%s: got %+v, want magnitude %s", lit, got, mag)
		}
		if mag.Sign() != 0 && got.Neg != (r.Sign() < 0) {
			t.Fatalf("%s: sign %v", lit, got.Neg)
		}
	})
}
