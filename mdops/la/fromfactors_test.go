package la

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestQRFromFactors: a factorization rebuilt from NewQR's factors (as the
// GPU driver of runtime/gpu does with the GPU's QR) gives NewQR's bits:
// the same rank error, Cond, Q^H b and back substitution.
func TestQRFromFactors(t *testing.T) {
	for _, im := range impls(t) {
		for _, mn := range [][2]int{{1, 1}, {7, 5}, {20, 20}, {33, 17}} {
			m, n := mn[0], mn[1]
			rng := rand.New(rand.NewPCG(uint64(m), uint64(n+100*im.N)))
			a := im.randMatrix(rng, m, n, 0)
			if n > 2 { // a rank-deficient case too: column 2 = column 1
				b := slices.Clone(a)
				copy(b[2*m*im.W:3*m*im.W], b[m*im.W:2*m*im.W])
				checkFromFactors(t, im, m, n, b)
			}
			checkFromFactors(t, im, m, n, a)
		}
	}
}

func checkFromFactors(t *testing.T, im impl, m, n int, a []float64) {
	t.Helper()
	f, err := im.newQR(m, n, a, m, 1)
	A, tau := factorsOf(f)
	from := im.K.QRFromFactors
	if im.Complex {
		from = im.K.QRFromFactorsComplex
	}
	g, err2 := from(m, n, A, tau)
	if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
		t.Fatalf("%v %dx%d: NewQR error %v, QRFromFactors error %v", im, m, n, err, err2)
	}
	if c1, c2 := f.Cond(), g.Cond(); math.Float64bits(c1) != math.Float64bits(c2) {
		t.Fatalf("%v %dx%d: Cond %v, from the factors %v", im, m, n, c1, c2)
	}
	b := im.randMatrix(rand.New(rand.NewPCG(1, 2)), m, 1, 0)
	b1, b2 := slices.Clone(b), slices.Clone(b)
	f.ApplyQH(b1, 1)
	g.ApplyQH(b2, 1)
	e1, e2 := f.SolveR(b1, 1), g.SolveR(b2, 1)
	if (e1 == nil) != (e2 == nil) {
		t.Fatalf("%v %dx%d: SolveR errors %v and %v", im, m, n, e1, e2)
	}
	for i := range b1 {
		if math.Float64bits(b1[i]) != math.Float64bits(b2[i]) && !(math.IsNaN(b1[i]) && math.IsNaN(b2[i])) {
			t.Fatalf("%v %dx%d: solution double %d: %v, from the factors %v", im, m, n, i, b1[i], b2[i])
		}
	}
}
