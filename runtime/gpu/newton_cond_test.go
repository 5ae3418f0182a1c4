package gpu

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
)

// randomR returns an n x n column-major matrix with a random upper
// triangle (every limb set, the diagonal real, its magnitudes spread by
// spread decades) and junk below it, as la's factored A holds R.
func randomR(rng *rand.Rand, n, N int, complex bool, spread float64) []float64 {
	W := N
	if complex {
		W = 2 * N
	}
	a := make([]float64, n*n*W)
	elem := func(e []float64, v float64) {
		e[0] = v
		for c := 1; c < N; c++ {
			e[c] = v * math.Ldexp(rng.Float64()-0.5, -53*c)
		}
	}
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			e := a[(i+j*n)*W : (i+j*n+1)*W]
			elem(e, 2*rng.Float64()-1)
			if complex && i != j {
				elem(e[N:], 2*rng.Float64()-1)
			}
			if i == j {
				elem(e, (1+rng.Float64())*math.Pow(10, -spread*rng.Float64())*float64(1-2*rng.IntN(2)))
			}
		}
	}
	return a
}

// cpuCond is the back end's estimate with la's CPU solves in place of the
// device's: R^-1 by SolveR on R, R^-H by SolveR on U = P R^H P built as
// packrh packs it (row n-1-i of U: conj(R_(q,i))), on the reversed vector.
func cpuCond(t *testing.T, n, N int, complex bool, a []float64) (float64, *la.RankError) {
	t.Helper()
	lk, _ := la.KernelsFor(N)
	p := mdops.Prec{N: N, Complex: complex}
	from, W := lk.QRFromFactors, p.Width()
	if complex {
		from = lk.QRFromFactorsComplex
	}
	diag := make([]float64, n)
	anorm := 0.0
	for i := 0; i < n; i++ {
		diag[i] = a[(i+i*n)*W]
		anorm = max(anorm, la.LeadNorm1(a[i*n*W:(i*n+i+1)*W], p))
	}
	if rank := la.RankCheck(diag, N); rank != nil {
		return 0, rank
	}
	u := make([]float64, n*n*W)
	for i := 0; i < n; i++ { // column i of R, rows q <= i, is row n-1-i of U
		for q := 0; q <= i; q++ {
			src := a[(q+i*n)*W : (q+i*n+1)*W]
			dst := u[((n-1-i)+(n-1-q)*n)*W : ((n-1-i)+(n-1-q)*n+1)*W]
			copy(dst, src)
			if complex {
				for c := N; c < W; c++ {
					dst[c] = -dst[c]
				}
			}
		}
	}
	tau := make([]float64, n*W)
	fr, err := from(n, n, a, tau)
	if err != nil {
		t.Fatal(err)
	}
	fu, err := from(n, n, u, tau)
	if err != nil {
		t.Fatal(err)
	}
	s := condSolves{
		solve: func(x []float64) error { return fr.SolveR(x, 1) },
		solveRH: func(x []float64) error {
			reverseElems(x, W)
			err := fu.SolveR(x, 1)
			reverseElems(x, W)
			return err
		},
	}
	// R's leading limbs as the device gives them: its packed rows (packr's
	// layout) and the leading limbs of its diagonal.
	rrev := make([]float64, gpuabi.LARRevLen(n)*W)
	for i := 0; i < n; i++ {
		for tt := 0; tt < n-1-i; tt++ {
			off := (gpuabi.LARowOff(n, i) + tt) * W
			copy(rrev[off:off+W], a[(i+(n-1-tt)*n)*W:(i+(n-1-tt)*n+1)*W])
		}
	}
	lead := la.NewLeadR(n, complex)
	fillLeadR(lead, n, p, rrev, diag)
	if _, final := lead.Cond(anorm, N); final {
		condFinal++
	} else {
		condFallback++
	}
	c, err := condEstimate(n, p, anorm, lead, s)
	if err != nil {
		t.Fatal(err)
	}
	return c, nil
}

// condFinal and condFallback count cpuCond's estimates that the float64
// estimate decided and those that fell back to the multiple-double solves.
var condFinal, condFallback int

// TestCondEstimate: the back end's condition estimate (condEstimate on
// R's leading limbs from its packed rows, and with the solve by R^H as a
// back substitution on packrh's U) and rank check give la's Cond and
// RankError bit for bit, both where the float64 estimate is final and
// where it falls back to the multiple-double solves.
func TestCondEstimate(t *testing.T) {
	condFinal, condFallback = 0, 0
	defer func() {
		if condFinal == 0 || condFallback == 0 {
			t.Errorf("%d estimates final in float64, %d fallbacks: want both", condFinal, condFallback)
		}
	}()
	rng := rand.New(rand.NewPCG(12, 1))
	for _, N := range []int{1, 2, 4} {
		lk, _ := la.KernelsFor(N)
		for _, complex := range []bool{false, true} {
			from := lk.QRFromFactors
			W := N
			if complex {
				from, W = lk.QRFromFactorsComplex, 2*N
			}
			for _, n := range []int{1, 2, 3, 17, 40, 70} {
				for _, spread := range []float64{0, 3, 12, 40} {
					name := fmt.Sprintf("N=%d complex=%v n=%d spread=%g", N, complex, n, spread)
					a := randomR(rng, n, N, complex, spread)
					want, werr := from(n, n, a, make([]float64, n*W))
					got, rank := cpuCond(t, n, N, complex, a)
					var wrank *la.RankError
					if errors.As(werr, &wrank) {
						if rank == nil || *rank != *wrank {
							t.Errorf("%s: rank check %v, la's %v", name, rank, wrank)
						}
						continue
					} else if werr != nil {
						t.Fatal(werr)
					}
					if rank != nil {
						t.Errorf("%s: rank error %v, la has none", name, rank)
						continue
					}
					if w := want.Cond(); math.Float64bits(w) != math.Float64bits(got) {
						t.Errorf("%s: cond %v, la's %v", name, got, w)
					}
				}
			}
		}
	}
}
