package la

import (
	"fmt"
	"math"

	"github.com/mdgen/mdgen/mdops"
)

// Eps returns 2^(-52 n) = 2^n u, the tolerance unit of n-double arithmetic,
// from its unit roundoff u = mdops.Prec.UnitRoundoff (see there: a little
// above u by design, the machine epsilon of a double to the n-th power).
func Eps(n int) float64 { return math.Ldexp(mdops.Prec{N: n}.UnitRoundoff(), n) }

// RankError reports a numerically rank-deficient R: Col is the first column
// (1-based) whose diagonal entry is tiny next to the largest, Ratio =
// |R_kk| / max_j |R_jj| (0 when R_kk is zero), and Tol = n * Eps(N) the
// threshold it fell below.
type RankError struct {
	Col   int
	Ratio float64
	Tol   float64
}

func (e *RankError) Error() string {
	return fmt.Sprintf("la: R is numerically rank deficient at column %d: |R_kk|/max|R_jj| = %.3g < %.3g", e.Col, e.Ratio, e.Tol)
}

// RankCheck returns a *RankError for the first k with |diag[k]| <
// tol*max|diag|, tol = len(diag)*Eps(n) (diag holds the leading limbs of
// R_kk at n doubles per part), or nil. The ratios are taken in float64
// from the leading limbs. It is the QR's rank rule, and the GPU's Newton
// back end applies it to the diagonal it brings home.
func RankCheck(diag []float64, n int) *RankError {
	tol := float64(len(diag)) * Eps(n)
	dmax := 0.0
	for _, d := range diag {
		dmax = max(dmax, math.Abs(d))
	}
	for k, d := range diag {
		r := 0.0
		if dmax > 0 {
			r = math.Abs(d) / dmax
		}
		if !(r >= tol) {
			return &RankError{Col: k + 1, Ratio: r, Tol: tol}
		}
	}
	return nil
}

// rankCheck is RankCheck as an error (a nil *RankError is a nil error).
func rankCheck(diag []float64, n int) error {
	if e := RankCheck(diag, n); e != nil {
		return e
	}
	return nil
}
