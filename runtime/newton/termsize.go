package newton

import (
	"math"

	"github.com/mdgen/mdgen/stager/poly"
)

// TermSize returns the size of the terms of the system at the result's
// series, the scale against which Result.Residual is small or not: the
// 1-norm, over the equations i and the coefficients k = 0..Degree, of the
// majorant series sum_j |c_ij|(t) prod_v |x_v|(t)^a_vj, where |s|(t) has
// the magnitudes |Re| + |Im| of the coefficients of the series s (the
// leading limbs of x, the coefficients of the system rounded to float64).
// It bounds the 1-norm of G(x(t), t) mod t^(Degree+1), and a residual far
// below it means that the terms cancel to that many digits. Float64
// arithmetic (an estimate): it may overflow to +Inf.
func TermSize(sys *poly.System, res *Result) float64 {
	d := res.Degree
	ax := make([][]float64, len(res.Vars))
	for v := range ax {
		ax[v] = make([]float64, d+1)
		for k := range ax[v] {
			c := res.Coef(v, k)
			ax[v][k] = math.Abs(c[0])
			if res.Complex {
				ax[v][k] += math.Abs(c[res.N])
			}
		}
	}
	acc := make([]float64, d+1)
	term := make([]float64, d+1)
	tmp := make([]float64, d+1)
	total := 0.0
	for i := range sys.Polys {
		p := &sys.Polys[i]
		magnitudes(acc, p.Const)
		for j := range p.Terms {
			m := &p.Terms[j]
			magnitudes(term, m.Coef)
			for q, v := range m.Vars {
				for range m.Pows[q] {
					// term *= |x_v| mod t^(d+1)
					for k := d; k >= 0; k-- {
						s := 0.0
						for l := 0; l <= k; l++ {
							s += term[l] * ax[v][k-l]
						}
						tmp[k] = s
					}
					copy(term, tmp)
				}
			}
			for k := range acc {
				acc[k] += term[k]
			}
		}
		for _, a := range acc {
			total += a
		}
	}
	return total
}

// magnitudes sets dst[k] = |Re c_k| + |Im c_k| (0 past the end of c).
func magnitudes(dst []float64, c poly.Series) {
	for k := range dst {
		dst[k] = 0
		if k < len(c) {
			re, _ := c[k].Re.Float64()
			im, _ := c[k].Im.Float64()
			dst[k] = math.Abs(re) + math.Abs(im)
		}
	}
}

// RelativeResidual returns Result.Residual relative to the size of the
// terms (TermSize): Residual / TermSize, 0 when the terms are all zero
// (then so is the residual) or their size overflowed.
func RelativeResidual(sys *poly.System, res *Result) float64 {
	size := TermSize(sys, res)
	if size == 0 || math.IsInf(size, 0) {
		return 0
	}
	return res.Residual / size
}
