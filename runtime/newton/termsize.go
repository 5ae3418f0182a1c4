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
// arithmetic (an estimate): it may overflow to +Inf. For many results of
// one system, NewTermScale(sys).Size gives the same values without
// rounding the coefficients again for each.
func TermSize(sys *poly.System, res *Result) float64 {
	return NewTermScale(sys).Size(res)
}

// RelativeResidual returns Result.Residual relative to the size of the
// terms (TermSize): Residual / TermSize, 0 when the terms are all zero
// (then so is the residual) or their size overflowed.
func RelativeResidual(sys *poly.System, res *Result) float64 {
	return NewTermScale(sys).Relative(res)
}

// TermScale holds what TermSize needs of a system, computed once: the
// magnitudes |Re| + |Im| of its coefficients rounded to float64 (the
// exact coefficients are big.Rat, and rounding them costs more than the
// majorant series of a small system). Its methods only read it, so one
// TermScale serves any number of results and goroutines.
type TermScale struct {
	polys []termPoly
}

// termPoly is one equation: the magnitudes of its constant series and of
// its terms.
type termPoly struct {
	constant []float64
	terms    []termMonomial
}

// termMonomial is one term: the magnitudes of its coefficient series and
// its monomial (poly.Monomial's Vars and Pows).
type termMonomial struct {
	coef       []float64
	vars, pows []int
}

// NewTermScale rounds the coefficients of sys for TermScale.Size.
func NewTermScale(sys *poly.System) *TermScale {
	s := &TermScale{polys: make([]termPoly, len(sys.Polys))}
	for i := range sys.Polys {
		p := &sys.Polys[i]
		tp := &s.polys[i]
		tp.constant = termMagnitudes(p.Const)
		tp.terms = make([]termMonomial, len(p.Terms))
		for j := range p.Terms {
			m := &p.Terms[j]
			tp.terms[j] = termMonomial{coef: termMagnitudes(m.Coef), vars: m.Vars, pows: m.Pows}
		}
	}
	return s
}

// Size is TermSize of the system at res.
func (ts *TermScale) Size(res *Result) float64 {
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
	for i := range ts.polys {
		p := &ts.polys[i]
		termTruncate(acc, p.constant)
		for j := range p.terms {
			m := &p.terms[j]
			termTruncate(term, m.coef)
			for q, v := range m.vars {
				for range m.pows[q] {
					// term *= |x_v| mod t^(d+1)
					for k := d; k >= 0; k-- {
						s := 0.0
						for l := 0; l <= k; l++ {
							s += float64(term[l] * ax[v][k-l])
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

// Relative is RelativeResidual of the system at res.
func (ts *TermScale) Relative(res *Result) float64 {
	size := ts.Size(res)
	if size == 0 || math.IsInf(size, 0) {
		return 0
	}
	return res.Residual / size
}

// termMagnitudes returns |Re c_k| + |Im c_k| for the coefficients of c.
func termMagnitudes(c poly.Series) []float64 {
	out := make([]float64, len(c))
	for k := range c {
		re, _ := c[k].Re.Float64()
		im, _ := c[k].Im.Float64()
		out[k] = math.Abs(re) + math.Abs(im)
	}
	return out
}

// termTruncate sets dst to the first len(dst) magnitudes of a series (0 past
// its end).
func termTruncate(dst, mag []float64) {
	n := copy(dst, mag)
	clear(dst[n:])
}
