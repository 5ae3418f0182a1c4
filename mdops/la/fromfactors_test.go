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

// TestCondWorkers: CondWorkers gives Cond's bits (one worker) for every
// worker count and team threshold, on matrices whose sizes cross the
// default SolveR team threshold, real and complex (the solves by R and
// R^H of the estimator run as teams: backsubPar, solveRHPar).
func TestCondWorkers(t *testing.T) {
	teamAlways.Add(1) // no back-off: the teams run however slow the machine
	defer teamAlways.Add(-1)
	for _, im := range impls(t) {
		from := im.K.QRFromFactors
		if im.Complex {
			from = im.K.QRFromFactorsComplex
		}
		probe, _ := im.newQR(1, 1, make([]float64, im.W), 1, 1)
		_, trMin := probe.(teamMins).teamMins()
		sizes := []int{2, 9, 40}
		if n := 2*trMin + 6; n <= 140 {
			sizes = append(sizes, n)
		}
		if testing.Short() && im.N > 4 {
			sizes = []int{2, 9, 21}
		}
		for _, n := range sizes {
			m := n + 3
			rng := rand.New(rand.NewPCG(uint64(n), uint64(7+100*im.N)))
			a := im.randMatrix(rng, m, n, 0)
			f, err := im.newQR(m, n, a, m, 1)
			if err != nil {
				t.Fatal(err)
			}
			want := f.Cond()
			A, tau := factorsOf(f)
			for _, mins := range []int{-1, 0, 1, 5} {
				for _, w := range []int{1, 2, 3, 8, 17} {
					g, _ := from(m, n, A, tau)
					if mins >= 0 {
						qh, _ := g.(teamMins).teamMins()
						g.(teamMins).setTeamMins(qh, mins)
					}
					if got := g.CondWorkers(w); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("%v %dx%d, trMin %d, %d workers: CondWorkers %v, Cond %v", im, m, n, mins, w, got, want)
					}
					if got := g.Cond(); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("%v %dx%d: Cond after CondWorkers %v, want %v", im, m, n, got, want)
					}
				}
			}
		}
	}
}
