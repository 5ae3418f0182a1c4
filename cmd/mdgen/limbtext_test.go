package main

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/mdgen/mdgen/mdops"
)

// limbTextRat is limbText's definition: the exact rational sum of the
// limbs, rounded to 53n + 64 bits, in E notation with the precision's
// digits.
func limbTextRat(x []float64, n int) string {
	r := new(big.Rat)
	var f big.Rat
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return strconv.FormatFloat(x[0], 'e', -1, 64)
		}
		if v != 0 {
			r.Add(r, f.SetFloat64(v))
		}
	}
	if r.Sign() == 0 {
		return "0"
	}
	d := mdops.Prec{N: n}.Digits()
	return new(big.Float).SetPrec(uint(53*n+64)).SetRat(r).Text('e', d-1)
}

// TestLimbText: limbText writes the bytes of the exact rational sum
// rounded once (limbTextRat) for multiple doubles at 1 to 8 doubles: limbs
// a fraction of an ulp of the one before, limbs of any exponent and sign
// (subnormals, 1e308, cancellation to zero, halfway cases of the
// rounding), zeros, NaN and infinities.
func TestLimbText(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for k := range 20000 {
		n := []int{1, 2, 3, 4, 8}[k%5]
		x := make([]float64, n)
		switch k % 4 {
		case 0: // a renormalized multiple double
			x[0] = math.Ldexp(2*r.Float64()-1, r.IntN(2000)-1000)
			for i := 1; i < n; i++ {
				x[i] = x[i-1] * 0x1p-53 * (r.Float64() - 0.5)
			}
		case 1: // any limbs
			for i := range x {
				x[i] = math.Ldexp(2*r.Float64()-1, r.IntN(2100)-1075)
			}
		case 2: // cancellation, halfway and special values
			x[0] = math.Ldexp(1, r.IntN(200)-100)
			for i := 1; i < n; i++ {
				// 2^-(53n+64) x_0: half an ulp of the 53n + 64 bits that
				// the sum is rounded to (a tie, to even), and twice that.
				x[i] = []float64{-x[0], math.Ldexp(x[0], -53*i-1), 5e-324, -5e-324, 0, math.Copysign(0, -1),
					math.Ldexp(x[0], -(53*n + 64)), math.Ldexp(x[0], -(53*n + 63)), -math.Ldexp(x[0], -(53*n + 64))}[r.IntN(9)]
			}
		default:
			for i := range x {
				x[i] = []float64{0, 1e308, -1e308, 5e-324, math.MaxFloat64, math.NaN(), math.Inf(1), 1}[r.IntN(8)]
			}
		}
		if got, want := limbText(x, n), limbTextRat(x, n); got != want {
			t.Fatalf("%v (%d doubles): limbText %s, the rational sum %s", x, n, got, want)
		}
	}
}

func BenchmarkLimbText(b *testing.B) {
	x := []float64{1.2345678901234567, 1.1e-17, -3.3e-34, 2.2e-50}
	b.Run("float", func(b *testing.B) {
		for b.Loop() {
			limbText(x, 4)
		}
	})
	b.Run("rat", func(b *testing.B) {
		for b.Loop() {
			limbTextRat(x, 4)
		}
	})
}
