package gpu

import (
	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
)

// The host side of the GPU back end's condition estimate: mdops/la's Cond
// (condEst: ||R||_1 times LAPACK's dlacn2/zlacn2 estimate of ||R^-1||_1)
// and its rank check. First la's float64 estimate on the leading limbs of
// R (la.LeadR, filled from R's packed rows downloaded once: fillLeadR);
// when that is not final, the estimate again, written once over flat
// buffers for every precision, with the multiple-double solves by R and
// R^H done elsewhere (on the device: backsub1 on R's packed rows, and on
// those of U = P R^H P, the packrh kernel's; see condSolves). The float64
// decisions (signs, argmax, the stopping tests) and the 1-norms
// (la.LeadNorm1 on the downloaded vector; ||R||_1 from packrh's column
// norms, the same float64 sums) are la's, in its order, so the estimate is
// la's bit for bit (TestCondEstimate checks it against la on the CPU).

// condSolves are the two solves of the estimate on a flat vector x of n
// elements (W doubles each): x = R^-1 x and x = R^-H x.
type condSolves struct {
	solve, solveRH func(x []float64) error
}

// fillLeadR sets l (n x n) to the leading limbs of R: its diagonal from
// diag (packrh's: the leading limb of Re(R_ii)), the rest from R's packed
// rows rrev (packr's: row i at gpuabi.LARowOff(n, i) holds R_(i,n-1),
// R_(i,n-2), ..., R_(i,i+1), p.Width() doubles each).
func fillLeadR(l *la.LeadR, n int, p mdops.Prec, rrev, diag []float64) {
	W := p.Width()
	for i := 0; i < n; i++ {
		l.Re[i+i*n] = diag[i]
		off := gpuabi.LARowOff(n, i)
		for t := 0; t < n-1-i; t++ {
			e, j := rrev[(off+t)*W:], n-1-t
			l.Re[i+j*n] = e[0]
			if p.Complex {
				l.Im[i+j*n] = e[p.N]
			}
		}
	}
}

// condEstimate is la's condEst for an n x n R (n >= 1, no zero R_kk: the
// rank check passed) of elements of precision p: anorm is ||R||_1 (the
// largest of packrh's column norms, la.LeadNorm1 of each column), lead
// R's leading limbs (fillLeadR), s the multiple-double solves that decide
// when lead's estimate is not final.
func condEstimate(n int, p mdops.Prec, anorm float64, lead *la.LeadR, s condSolves) (float64, error) {
	if cond, final := lead.Cond(anorm, p.N); final {
		return cond, nil
	}
	est, err := la.InvNorm1Estimate(n, p.Complex, &mdVec{x: make([]float64, n*p.Width()), p: p, s: s},
		make([]float64, n))
	if err != nil {
		return 0, err
	}
	return anorm * est, nil
}

// mdVec is the estimate's vector x of n multiple-double elements (p's
// width each) with the device's solves.
type mdVec struct {
	x []float64
	p mdops.Prec
	s condSolves
}

func (v *mdVec) Set(i int, re, im float64) {
	e := v.x[i*v.p.Width() : (i+1)*v.p.Width()]
	clear(e)
	e[0] = re
	if v.p.Complex {
		e[v.p.N] = im
	}
}

func (v *mdVec) Lead(i int) (re, im float64) {
	e := v.x[i*v.p.Width():]
	if v.p.Complex {
		return e[0], e[v.p.N]
	}
	return e[0], 0
}

func (v *mdVec) Norm() float64  { return la.LeadNorm1(v.x, v.p) }
func (v *mdVec) Solve() error   { return v.s.solve(v.x) }
func (v *mdVec) SolveRH() error { return v.s.solveRH(v.x) }

// reverseElems reverses the order of the W-double elements of x in place
// (the P of U = P R^H P).
func reverseElems(x []float64, W int) {
	n := len(x) / W
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		for c := 0; c < W; c++ {
			x[i*W+c], x[j*W+c] = x[j*W+c], x[i*W+c]
		}
	}
}
