package newton

import (
	"math"
	"math/big"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/stager/poly"
)

// Flat-buffer helpers, precision-erased: a vector of K numbers of N limbs is
// K*W float64s, W = N (real) or 2N (complex: N real limbs, then N imaginary
// limbs), as []mdops.F<N> and []mdops.C<N> lay them out.

// limbsRat returns the exact value of the limbs x as a rational (nil for a
// non-finite limb).
func limbsRat(x []float64) *big.Rat {
	r := new(big.Rat)
	var f big.Rat
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		if v == 0 {
			continue
		}
		f.SetFloat64(v)
		r.Add(r, &f)
	}
	return r
}

// roundStart rounds the exact start values to the working precision: value
// v goes to dst[v*W:(v+1)*W].
func roundStart(dst []float64, start []poly.Rational, p mdops.Prec) {
	n, w := p.N, p.Width()
	for v := range start {
		backend.RoundRat(dst[v*w:v*w+n], &start[v].Re)
		if p.Complex {
			backend.RoundRat(dst[v*w+n:v*w+2*n], &start[v].Im)
		}
	}
}

// digits returns the significant decimal digits that hold an N-double:
// ceil(53 N log10 2) + 1.
func digits(n int) int { return mdops.Prec{N: n}.Digits() }

// formatLimbs writes the value of the limbs x in E notation with all the
// significant digits of the precision ("0" for zero).
func formatLimbs(x []float64, n int) string {
	r := limbsRat(x)
	if r == nil {
		for _, v := range x {
			if math.IsNaN(v) {
				return "NaN"
			}
		}
		if x[0] < 0 {
			return "-Inf"
		}
		return "+Inf"
	}
	if r.Sign() == 0 {
		return "0"
	}
	d := digits(n)
	f := new(big.Float).SetPrec(uint(53*n + 64)).SetRat(r)
	return f.Text('e', d-1)
}
