package backend

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mdgen/mdgen/mdops"
)

// maxAbsRef is MaxAbs by its definition: the largest of the leading limbs'
// magnitudes by math.Max, NaN when one is NaN.
func maxAbsRef(x []float64, p mdops.Prec) float64 {
	w, m := p.Width(), 0.0
	for e := 0; e+w <= len(x); e += w {
		a := math.Abs(x[e])
		if p.Complex {
			a = math.Max(a, math.Abs(x[e+p.N]))
		}
		if math.IsNaN(a) {
			return math.NaN()
		}
		m = math.Max(m, a)
	}
	return m
}

// TestMaxAbs: MaxAbs equals its definition on random vectors with zeros of
// both signs, infinities, NaNs (in either part of a complex number) and
// limbs past the leading one that are larger than it, real and complex,
// at several precisions and lengths (a trailing partial element ignored).
func TestMaxAbs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 1e308, -5e-324}
	for _, n := range []int{1, 2, 3, 8} {
		for _, cplx := range []bool{false, true} {
			p := mdops.Prec{N: n, Complex: cplx}
			for trial := 0; trial < 2000; trial++ {
				x := make([]float64, r.IntN(6*p.Width()+2))
				for i := range x {
					x[i] = math.Ldexp(r.NormFloat64(), r.IntN(80)-40)
					if r.IntN(8) == 0 {
						x[i] = special[r.IntN(len(special))]
					}
				}
				got, want := MaxAbs(x, p), maxAbsRef(x, p)
				if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Fatalf("%v, %v: MaxAbs %v, want %v", p, x, got, want)
				}
			}
		}
	}
}
