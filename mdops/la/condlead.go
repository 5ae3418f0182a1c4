package la

import "math"

// LeadR is the float64 matrix of Cond's first estimate: the leading limbs
// of an n x n upper triangular R, (i, j) at Re[i+j*n] and Im[i+j*n] for
// i <= j (Im nil for real data; the entries below the diagonal and the
// imaginary parts on it are not read: R's diagonal is real). The QRs of
// this package fill it from their factored A; runtime/gpu's host side
// fills it from R's packed rows downloaded from the device. Its work
// vectors are made once, so that an estimate allocates nothing.
type LeadR struct {
	Re, Im []float64

	n                 int
	xr, xi, sgn, rinv []float64
	complex           bool
}

// NewLeadR returns a zero LeadR for an n x n R (n >= 1).
func NewLeadR(n int, complex bool) *LeadR {
	l := &LeadR{Re: make([]float64, n*n), n: n, complex: complex,
		xr: make([]float64, n), sgn: make([]float64, n), rinv: make([]float64, n)}
	if complex {
		l.Im = make([]float64, n*n)
		l.xi = make([]float64, n)
	}
	return l
}

// LeadCondLimit is the largest float64 estimate that Cond takes as final
// for an n x n R at more than one double: 2^-8 / ((n+1) u), u = 2^-53,
// about 2^42 at n = 7 and 2^40 at n = 31. Below it the float64 estimate is
// within a relative (n+1) u cond <= 2^-8 of the estimate that exact solves
// by the leading limbs would give (a triangular solve's forward error is
// at most n u cond relative, rounding R to its leading limbs moves R^-1 by
// at most u cond relative), far inside the estimator's own factor of 3.
// Above it, or when not finite, the multiple-double solves decide: when
// cond(R) is above 1/u the leading limbs are within u ||R|| of a singular
// matrix, so their estimate is about 1/((n+1) u) or more, a factor of
// about 2^8 above this limit, and cannot pass for a small condition number.
func LeadCondLimit(n int) float64 { return 0x1p45 / float64(n+1) }

// Cond returns anorm times the float64 estimate of ||R^-1||_1 (LAPACK's
// dlacn2/zlacn2, as Cond, with float64 solves by R and R^H on the leading
// limbs), and whether it is final for elements of N doubles: N == 1 (the
// multiple-double solves are float64 solves themselves), or the product at
// most LeadCondLimit(n). Otherwise the caller repeats the estimate with
// its multiple-double solves (Cond's fallback).
//
// Order (the specification; no fused multiply-adds): the solve by R is for
// i = n-1 down to 0: s = 0; s = s + R_ij x_j for j = i+1, ..., n-1; x_i =
// (x_i - s) rinv_i; the solve by R^H is for i = 0, ..., n-1: s = 0;
// s = s + conj(R_ji) x_j for j = 0, ..., i-1; x_i = (x_i - s) rinv_i,
// with rinv_i = 1 / R_ii computed once per estimate. A complex product
// (a + bi)(c + di) is (ac - bd) + (ad + bc)i, conj(a + bi) (c + di) is
// (ac + bd) + (ad - bc)i, each product rounded before the sum; the
// product by the real rinv_i multiplies each part. The 1-norms of the
// iterates are LeadNorm1's sums, the decisions (signs, argmax, the stopping
// tests) Cond's.
func (l *LeadR) Cond(anorm float64, N int) (cond float64, final bool) {
	for i := range l.rinv {
		l.rinv[i] = 1 / l.Re[i+i*l.n]
	}
	est := l.invNorm1()
	cond = anorm * est
	return cond, N == 1 || cond <= LeadCondLimit(l.n)
}

// invNorm1 is dlacn2/zlacn2's estimate of ||R^-1||_1 (InvNorm1Estimate on
// the float64 vectors of l).
func (l *LeadR) invNorm1() float64 {
	est, _ := InvNorm1Estimate(l.n, l.complex, leadVec{l}, l.sgn)
	return est
}

// leadVec is LeadR's work vector x as an InvNorm1Vec (its solves never
// fail).
type leadVec struct{ l *LeadR }

func (v leadVec) Set(i int, re, im float64) {
	v.l.xr[i] = re
	if v.l.complex {
		v.l.xi[i] = im
	}
}

func (v leadVec) Lead(i int) (re, im float64) {
	if v.l.complex {
		return v.l.xr[i], v.l.xi[i]
	}
	return v.l.xr[i], 0
}

func (v leadVec) Norm() float64  { return v.l.norm() }
func (v leadVec) Solve() error   { v.l.solve(); return nil }
func (v leadVec) SolveRH() error { v.l.solveRH(); return nil }

// norm is LeadNorm1 of x: s = s + |x_i| (real) or s + (|Re x_i| +
// |Im x_i|) (complex) for i = 0, 1, ..., from s = 0.
func (l *LeadR) norm() float64 {
	s := 0.0
	for i := range l.xr {
		if l.complex {
			s += math.Abs(l.xr[i]) + math.Abs(l.xi[i])
		} else {
			s += math.Abs(l.xr[i])
		}
	}
	return s
}

// solve sets x = R^-1 x (see Cond for the order).
func (l *LeadR) solve() {
	n, re, im, xr, xi := l.n, l.Re, l.Im, l.xr, l.xi
	for i := n - 1; i >= 0; i-- {
		if !l.complex {
			s := 0.0
			for j := i + 1; j < n; j++ {
				s += float64(re[i+j*n] * xr[j])
			}
			xr[i] = (xr[i] - s) * l.rinv[i]
			continue
		}
		sr, si := 0.0, 0.0
		for j := i + 1; j < n; j++ {
			a, b, c, d := re[i+j*n], im[i+j*n], xr[j], xi[j]
			sr += float64(a*c) - float64(b*d)
			si += float64(a*d) + float64(b*c)
		}
		r := l.rinv[i]
		xr[i] = (xr[i] - sr) * r
		xi[i] = (xi[i] - si) * r
	}
}

// solveRH sets x = R^-H x (see Cond for the order).
func (l *LeadR) solveRH() {
	n, re, im, xr, xi := l.n, l.Re, l.Im, l.xr, l.xi
	for i := 0; i < n; i++ {
		col := i * n
		if !l.complex {
			s := 0.0
			for j := 0; j < i; j++ {
				s += float64(re[j+col] * xr[j])
			}
			xr[i] = (xr[i] - s) * l.rinv[i]
			continue
		}
		sr, si := 0.0, 0.0
		for j := 0; j < i; j++ {
			a, b, c, d := re[j+col], im[j+col], xr[j], xi[j]
			sr += float64(a*c) + float64(b*d)
			si += float64(a*d) - float64(b*c)
		}
		r := l.rinv[i]
		xr[i] = (xr[i] - sr) * r
		xi[i] = (xi[i] - si) * r
	}
}
