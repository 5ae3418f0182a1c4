package la

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mdgen/mdgen/mdops"
)

// TestRefactor: a factorization refactored with a new matrix of its shape
// (a rank-deficient one in between) gives NewQR's factors, solve and
// condition estimate bit for bit, and its rank error.
func TestRefactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 21))
	for _, N := range mdops.Precisions() {
		k, _ := KernelsFor(N)
		for _, complex := range []bool{false, true} {
			p := mdops.Prec{N: N, Complex: complex}
			newQR := k.NewQR
			if complex {
				newQR = k.NewQRComplex
			}
			const m, n, lda = 9, 7, 10
			W := p.Width()
			random := func(rankOne bool) []float64 {
				a := make([]float64, lda*n*W)
				for i := range a {
					a[i] = math.Ldexp(rng.Float64()-0.5, -53*(i%N))
				}
				if rankOne { // column 1 repeats column 0
					copy(a[lda*W:(lda+m)*W], a[:m*W])
				}
				return a
			}
			f, err := newQR(m, n, random(false), lda, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, rankOne := range []bool{true, false, false} {
				a := random(rankOne)
				want, wantErr := newQR(m, n, a, lda, 1)
				gotErr := f.Refactor(a, lda, 2)
				if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
					t.Fatalf("%v: Refactor: error %v, NewQR %v", p, gotErr, wantErr)
				}
				ga, gt := factorsOf(f)
				wa, wt := factorsOf(want)
				if !slices.Equal(ga, wa) || !slices.Equal(gt, wt) {
					t.Fatalf("%v: Refactor's factors differ from NewQR's", p)
				}
				if gotErr != nil {
					continue
				}
				if g, w := f.Cond(), want.Cond(); math.Float64bits(g) != math.Float64bits(w) {
					t.Fatalf("%v: Cond %v, NewQR's %v", p, g, w)
				}
				b := random(false)[:m*W]
				gb, wb := slices.Clone(b), slices.Clone(b)
				if err := f.Solve(gb, 1); err != nil {
					t.Fatal(err)
				}
				if err := want.Solve(wb, 1); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(gb, wb) {
					t.Fatalf("%v: Solve after Refactor differs from NewQR's", p)
				}
			}
		}
	}
}
