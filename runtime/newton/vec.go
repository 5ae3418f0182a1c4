package newton

import (
	"math"
	"math/big"

	mdrt "github.com/mdgen/mdgen/runtime"
	"github.com/mdgen/mdgen/stager"
)

// Flat-buffer helpers, precision-erased: a vector of K numbers of N limbs is
// K*W float64s, W = N (real) or 2N (complex: N real limbs, then N imaginary
// limbs), as []mdops.F<N> and []mdops.C<N> lay them out.

// maxAbs returns the largest magnitude of the leading limbs of the numbers
// in x (w doubles each, real and imaginary leading limbs at 0 and n for
// complex): the max-norm used by every tolerance of the driver. A max is
// exact and independent of the order, so every back end gets the same
// float64. NaN when a leading limb is NaN.
func maxAbs(x []float64, n int, complex bool) float64 {
	w := n
	if complex {
		w = 2 * n
	}
	m := 0.0
	for e := 0; e+w <= len(x); e += w {
		a := math.Abs(x[e])
		if complex {
			a = math.Max(a, math.Abs(x[e+n]))
		}
		if a != a {
			return math.NaN()
		}
		if a > m {
			m = a
		}
	}
	return m
}

// negateInto sets dst = -src limb by limb (exact: a normalized number stays
// normalized).
func negateInto(dst, src []float64) {
	for i, v := range src {
		dst[i] = -v
	}
}

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
func roundStart(dst []float64, start []stager.Rational, n int, complex bool) {
	w := n
	if complex {
		w = 2 * n
	}
	for v := range start {
		mdrt.RoundRat(dst[v*w:v*w+n], &start[v].Re)
		if complex {
			mdrt.RoundRat(dst[v*w+n:v*w+2*n], &start[v].Im)
		}
	}
}

// digits returns the significant decimal digits that hold an N-double:
// ceil(53 N log10 2) + 1.
func digits(n int) int {
	return int(math.Ceil(53*float64(n)*math.Log10(2))) + 1
}

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
