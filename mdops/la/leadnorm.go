package la

import (
	"math"

	"github.com/mdgen/mdgen/mdops"
)

// LeadNorm1 is the float64 1-norm of the vector x of elements of
// precision p on a flat buffer (p.Width() doubles each): the float64 sum
// s = s + |x_i|_0 for i = 0, 1, ..., from s = 0, where |x_i|_0 is |x_0| of
// the leading limb (real) or |Re_0| + |Im_0| of the leading limbs of the
// two parts (complex: the 1-norm of the vector of real and imaginary
// parts, within a factor sqrt(2) of the sum of the moduli). Cond uses it
// for ||R||_1 and for the norms of its iterates; runtime/gpu's estimate on
// the host calls it, and the packrh kernel computes the column norms of R
// with it. Newton's driver (runtime/newton) takes its norms with it too
// (||b||_1, ||A_0||_1, the residuals): they feed decisions and reports,
// which need no more than a float64's digits, and the GPU's leadnorm1
// kernel gives the same bits.
func LeadNorm1(x []float64, p mdops.Prec) float64 {
	w := p.Width()
	s := 0.0
	for e := 0; e+w <= len(x); e += w {
		if p.Complex {
			s += math.Abs(x[e]) + math.Abs(x[e+p.N])
		} else {
			s += math.Abs(x[e])
		}
	}
	return s
}
