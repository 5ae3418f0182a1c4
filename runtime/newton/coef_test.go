package newton

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/stager"
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

// paramRecorder wraps the CPU executor as a backend.ParamSetter that
// takes every ParamCoefs and records the last parameter.
type paramRecorder struct {
	backend.Executor
	pc *backend.ParamCoefs
	at backend.ParamAt
	n  int
}

func (p *paramRecorder) TakesParams(*backend.ParamCoefs) bool { return true }
func (p *paramRecorder) SetParam(pc *backend.ParamCoefs, at backend.ParamAt) {
	p.pc, p.at, p.n = pc, at, p.n+1
}

// TestSetParam: SetParam hands the parameter to executors that take it
// (each of the solver's working degrees once a call), returns false and
// sets nothing on the CPU executors, and refuses ParamCoefs of another
// precision or of a term the system does not have.
func TestSetParam(t *testing.T) {
	inst, err := families.System("katsura3", families.Options{Complex: true})
	if err != nil {
		t.Fatal(err)
	}
	p := mdops.Prec{N: 2, Complex: true}
	W := p.Width()
	shift := func(dst, poly []float64, tau float64) { copy(dst, poly) }
	good, err := backend.NewParamCoefs(p, []backend.ParamCoef{{I: 0, J: 0, Poly: make([]float64, 2*W)}}, shift)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Prec: p, Degree: 4, Workers: 1}
	cpuSolver, err := New(inst.System, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer cpuSolver.Close()
	if ok, err := cpuSolver.SetParam(good, backend.ParamAt{Tau: 0.5}); ok || err != nil {
		t.Fatalf("the CPU executors: SetParam gave %v, %v; want false, nil", ok, err)
	}
	var recs []*paramRecorder
	opt.NewExecutor = func(plan *stager.Plan, prec mdops.Prec, workers int) (backend.Executor, error) {
		e, err := cpu.New(plan, prec, workers)
		r := &paramRecorder{Executor: e}
		recs = append(recs, r)
		return r, err
	}
	s, err := New(inst.System, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := backend.ParamAt{Tau: 0.25, E: -3}
	if ok, err := s.SetParam(good, at); !ok || err != nil {
		t.Fatalf("executors that take it: SetParam gave %v, %v; want true, nil", ok, err)
	}
	if len(recs) != len(Stagger(opt.Degree)) {
		t.Fatalf("%d executors for %d working degrees", len(recs), len(Stagger(opt.Degree)))
	}
	for _, r := range recs {
		if r.pc != good || r.at != at || r.n != 1 {
			t.Fatalf("an executor got %p %v (%d calls), want %p %v once", r.pc, r.at, r.n, good, at)
		}
	}
	nonzero := make([]float64, W)
	nonzero[0] = 1
	for name, terms := range map[string][]backend.ParamCoef{
		"no such term":       {{I: 0, J: 99, Poly: nonzero}},
		"no such polynomial": {{I: 9, J: 0, Poly: nonzero}},
	} {
		pc, err := backend.NewParamCoefs(p, terms, shift)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SetParam(pc, at); err == nil {
			t.Errorf("%s: SetParam took it", name)
		}
	}
	other, err := backend.NewParamCoefs(mdops.Prec{N: 4, Complex: true}, nil, shift)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetParam(other, at); err == nil {
		t.Error("ParamCoefs of 4 doubles on a solver of 2: SetParam took them")
	}
}
