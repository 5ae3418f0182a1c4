package la

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mdgen/mdgen/mdops"
)

// triR returns an n x n upper triangular R = D U (column-major; Q = I:
// tau = 0), D = diag(1, 2^(-e/(n-1)), ..., 2^-e) and U unit upper
// triangular with entries of at most 0.1 in each part above the diagonal,
// so that cond(R) is about 2^e.
func triR(rng *rand.Rand, n int, e float64) [][2]float64 {
	r := make([][2]float64, n*n) // (re, im) leading limbs; the other limbs zero
	for i := 0; i < n; i++ {
		d := math.Exp2(-e * float64(i) / float64(n-1))
		r[i+i*n] = [2]float64{d, 0}
		for j := i + 1; j < n; j++ {
			r[i+j*n] = [2]float64{d * 0.1 * (2*rng.Float64() - 1), d * 0.1 * (2*rng.Float64() - 1)}
		}
	}
	return r
}

// TestCondFallback: Cond takes the float64 estimate on R's leading limbs
// when it is at most LeadCondLimit(n) (within a small relative difference
// of the multiple-double estimate there), and falls back to the
// multiple-double solves above it (at 2 doubles); at 1 double the float64
// estimate is final at any condition number.
func TestCondFallback(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 7
	for _, e := range []float64{8, 30, 45, 90} {
		r := triR(rng, n, e)
		real2, cplx2, real1 := make([]mdops.F2, n*n), make([]mdops.C2, n*n), make([]mdops.F1, n*n)
		for k, v := range r {
			real2[k] = mdops.F2{v[0], 0}
			cplx2[k] = mdops.C2{Re: mdops.F2{v[0], 0}, Im: mdops.F2{v[1], 0}}
			real1[k] = mdops.F1{v[0]}
		}
		qf, err := QRFromFactorsF2(n, n, real2, make([]mdops.F2, n))
		if err != nil {
			t.Fatal(err)
		}
		qc, err := QRFromFactorsC2(n, n, cplx2, make([]mdops.C2, n))
		if err != nil {
			t.Fatal(err)
		}
		q1, err := QRFromFactorsF1(n, n, real1, make([]mdops.F1, n))
		if e > 45 { // numerically rank deficient at 1 double
			q1 = nil
		} else if err != nil {
			t.Fatal(err)
		}
		anormF, anormC, anorm1 := 0.0, 0.0, 0.0
		for j := 0; j < n; j++ {
			anormF = max(anormF, leadNorm1F2(qf.A[j*n:j*n+j+1]))
			anormC = max(anormC, leadNorm1C2(qc.A[j*n:j*n+j+1]))
			if q1 != nil {
				anorm1 = max(anorm1, leadNorm1F1(q1.A[j*n:j*n+j+1]))
			}
		}
		for _, c := range []struct {
			name  string
			cond  float64
			lead  func() *LeadR
			anorm float64
			md    func() float64
		}{
			{"F2", qf.Cond(), func() *LeadR { return qf.lead }, anormF, func() float64 { return qf.condEstMD(anormF, 1) }},
			{"C2", qc.Cond(), func() *LeadR { return qc.lead }, anormC, func() float64 { return qc.condEstMD(anormC, 1) }},
		} {
			f64, final := c.lead().Cond(c.anorm, 2)
			md := c.md()
			switch {
			case e <= 30:
				if !final || math.Float64bits(c.cond) != math.Float64bits(f64) {
					t.Errorf("%s, 2^%g: Cond %v, float64 estimate %v (final %v): want the float64 one", c.name, e, c.cond, f64, final)
				}
				if d := math.Abs(f64-md) / md; d > 1e-6 {
					t.Errorf("%s, 2^%g: float64 estimate %v, multiple-double %v: relative difference %.2g", c.name, e, f64, md, d)
				}
			default:
				if final || math.Float64bits(c.cond) != math.Float64bits(md) {
					t.Errorf("%s, 2^%g: Cond %v, float64 estimate %v (final %v), multiple-double %v: want the fallback", c.name, e, c.cond, f64, final, md)
				}
				if !(c.cond > LeadCondLimit(n)) || !(md >= math.Exp2(e-2)) {
					t.Errorf("%s, 2^%g: Cond %v: want above %v and about 2^%g", c.name, e, c.cond, LeadCondLimit(n), e)
				}
			}
		}
		if q1 == nil {
			continue
		}
		cond1 := q1.Cond()
		if f64, final := q1.lead.Cond(anorm1, 1); !final || math.Float64bits(cond1) != math.Float64bits(f64) {
			t.Errorf("F1, 2^%g: Cond %v, float64 estimate %v (final %v): want the float64 one at 1 double", e, cond1, f64, final)
		}
	}
}
