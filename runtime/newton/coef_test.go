package newton

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// TestSetSystem: a Solver staged for one Newton homotopy and given the
// coefficients of another with the same monomials (another random point
// z), by SetSystem (exact) or SetCoefficient (rounded limbs), returns the
// bits of a Solver made for the other, at degree 0 and on series.
func TestSetSystem(t *testing.T) {
	for _, spec := range []string{"katsura4:newton", "cyclic5:newton", "noon4:newton"} {
		for _, d := range []int{0, 4} {
			for _, limbs := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/d=%d/limbs=%v", spec, d, limbs), func(t *testing.T) {
					opt := Options{Prec: mdops.Prec{N: 2, Complex: true}, Degree: d, Workers: 1}
					a, err := families.System(spec, families.Options{Seed: 3, Complex: true})
					if err != nil {
						t.Fatal(err)
					}
					b, err := families.System(spec, families.Options{Seed: 4, Complex: true})
					if err != nil {
						t.Fatal(err)
					}
					want := solve(t, b.System, b.Start[0].Values, opt)
					s, err := New(a.System, opt)
					if err != nil {
						t.Fatal(err)
					}
					defer s.Close()
					// A solve on a's coefficients first: the refill must
					// leave nothing of it.
					if _, err := s.Solve(a.Start[0].Values); err != nil {
						t.Fatal(err)
					}
					if limbs {
						setLimbs(t, s, b.System, opt)
					} else if err := s.SetSystem(b.System); err != nil {
						t.Fatal(err)
					}
					got, err := s.Solve(b.Start[0].Values)
					if err != nil {
						t.Fatal(err)
					}
					if !want.Converged || got.Converged != want.Converged || got.Steps != want.Steps || !slices.Equal(bitsOf(got.X), bitsOf(want.X)) ||
						math.Float64bits(got.Residual) != math.Float64bits(want.Residual) {
						t.Errorf("refilled: converged %v in %d steps, residual %g; fresh: %v, %d, %g (or x differs)",
							got.Converged, got.Steps, got.Residual, want.Converged, want.Steps, want.Residual)
					}
				})
			}
		}
	}
}

// setLimbs gives s the coefficients of sys one by one with SetCoefficient,
// and checks that it allocates nothing.
func setLimbs(t *testing.T, s *Solver, sys *poly.System, opt Options) {
	t.Helper()
	l := backend.Layout{Prec: opt.Prec, Degree: opt.Degree}
	type coef struct {
		i, j int
		v    []float64
	}
	var cs []coef
	add := func(i, j int, c poly.Series) {
		buf := make([]float64, l.SlotLen())
		if err := backend.RoundSeries(buf, c, l); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, coef{i, j, buf})
	}
	for i := range sys.Polys {
		add(i, -1, sys.Polys[i].Const)
		for j := range sys.Polys[i].Terms {
			add(i, j, sys.Polys[i].Terms[j].Coef)
		}
	}
	set := func() {
		for _, c := range cs {
			if err := s.SetCoefficient(c.i, c.j, c.v); err != nil {
				t.Fatal(err)
			}
		}
	}
	if a := testing.AllocsPerRun(3, set); a != 0 {
		t.Errorf("SetCoefficient: %g allocations per refill", a)
	}
}

// TestSetSystemRefused: another monomial, or a coefficient where the
// staged system has none, is refused and changes nothing.
func TestSetSystemRefused(t *testing.T) {
	a, _ := families.System("katsura4:newton", families.Options{Seed: 3})
	s, err := New(a.System, Options{Prec: mdops.Prec{N: 2}, Degree: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, _ := families.System("cyclic5:newton", families.Options{Seed: 3})
	if err := s.SetSystem(other.System); err == nil {
		t.Error("cyclic5's coefficients accepted for katsura4")
	}
	// A constant term for a polynomial of katsura4 that has none.
	plain, _ := families.System("katsura4", families.Options{})
	k, err := New(plain.System, Options{Prec: mdops.Prec{N: 2}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	i := slices.IndexFunc(plain.System.Polys, func(p poly.Polynomial) bool { return len(p.Const) == 0 })
	if i < 0 {
		t.Fatal("every polynomial of katsura4 has a constant term")
	}
	if err := k.SetCoefficient(i, -1, []float64{1, 0}); err == nil {
		t.Error("a constant term accepted where the staged system has none")
	}
	if err := k.SetCoefficient(i, -1, []float64{0, 0}); err != nil {
		t.Errorf("a zero constant term refused: %v", err)
	}
}
