package solver

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// newtonSpec returns the spec of a package emitted for a family's Newton
// homotopy (the system file as `mdgen system` writes it, start list
// included), and the family's instance.
func newtonSpec(t *testing.T, family string, prec, degree int, complex bool) (*Spec, *families.Instance) {
	t.Helper()
	inst, err := families.System(family, families.Options{Seed: 1, Complex: complex})
	if err != nil {
		t.Fatal(err)
	}
	text := string(poly.Format(inst.System)) + "\n" + string(solutions.Format(inst.Start, solutions.FormatOptions{}))
	s := &Spec{Name: "hom", Prec: mdops.Prec{N: prec, Complex: complex}, Degree: degree, Text: text, FatbinName: "hom.fatbin"}
	sys, err := s.System()
	if err != nil {
		t.Fatal(err)
	}
	plan, err := stager.Stage(sys, degree)
	if err != nil {
		t.Fatal(err)
	}
	s.PlanHash = plan.Hash()
	return s, inst
}

// direct runs runtime/newton on the family's system, as `mdgen solve` does.
func direct(t *testing.T, inst *families.Instance, opt newton.Options, start Start) *newton.Result {
	t.Helper()
	ns, err := newton.New(inst.System, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	res, err := ns.Solve(start)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func sameBits(t *testing.T, what string, got, want *newton.Result) {
	t.Helper()
	if err := DiffResults(got, want); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func TestDiffResults(t *testing.T) {
	a := &newton.Result{N: 1, Degree: 1, Vars: []string{"x", "y"}, X: []float64{1, 2, 3, 4}, Converged: true, Residual: 1e-30}
	b := *a
	b.X = []float64{1, 2, 3, 5}
	if err := DiffResults(a, a); err != nil {
		t.Fatal(err)
	}
	if err := DiffResults(&b, a); err == nil || err.Error() != "y, coefficient of t^1, double 0: 5, want 4" {
		t.Fatalf("%v", err)
	}
	b.X, b.Residual = a.X, 2e-30
	if err := DiffResults(&b, a); err == nil || !strings.Contains(err.Error(), "residual") {
		t.Fatalf("%v", err)
	}
}

// Solve gives the bits of runtime/newton run directly (what `mdgen solve`
// runs), real and complex, at the emitted degree, a lower one and 0, with
// any worker count.
func TestSolveMatchesNewton(t *testing.T) {
	for _, c := range []struct {
		family  string
		prec, d int
		complex bool
	}{{"katsura4:newton", 2, 8, false}, {"cyclic5:newton", 4, 12, true}, {"cyclic5:newton", 3, 5, false}} {
		spec, inst := newtonSpec(t, c.family, c.prec, c.d, c.complex)
		for _, workers := range []int{1, 3} {
			s, err := New(spec, WithCPU(), WithWorkers(workers))
			if err != nil {
				t.Fatal(err)
			}
			starts, err := spec.Starts()
			if err != nil || len(starts) != 1 {
				t.Fatalf("%s: starts %d, %v", c.family, len(starts), err)
			}
			for _, d := range []int{c.d, c.d / 2, 0} {
				res, err := s.Solve(starts[0], WithDegree(d))
				if err != nil {
					t.Fatalf("%s d=%d: %v", c.family, d, err)
				}
				want := direct(t, inst, newton.Options{Prec: mdops.Prec{N: c.prec, Complex: c.complex}, Degree: d}, starts[0])
				sameBits(t, c.family, res.Result, want)
				if res.Backend != CPU || res.Degree != d || res.Var(res.Vars[1]) != 1 || res.Var("t") != -1 {
					t.Fatalf("%s: backend %s, degree %d, var x2 %d", c.family, res.Backend, res.Degree, res.Var(res.Vars[1]))
				}
				if f := res.Float(1, 0); real(f) != res.Coef(1, 0)[0] {
					t.Fatalf("Float %v, leading limb %v", f, res.Coef(1, 0)[0])
				}
				// From the limbs of the refined x(0): the same series.
				var x0 []float64
				for v := range res.Vars {
					x0 = append(x0, res.Coef(v, 0)...)
				}
				steps := 0
				again, err := s.SolveLimbs(x0, WithDegree(d), WithProgress(func(newton.StepInfo) { steps++ }))
				if err != nil || steps != again.Steps || steps == 0 {
					t.Fatalf("SolveLimbs: %v, %d progress calls, %d steps", err, steps, again.Steps)
				}
				for v := range res.Vars {
					for k := 0; k <= d; k++ {
						if got, want := again.Coef(v, k), res.Coef(v, k); !slices.Equal(got, want) {
							t.Fatalf("SolveLimbs from the refined x(0): coefficient %d of %s: %v, want %v", k, res.Vars[v], got, want)
						}
					}
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// The Solver's executor is the one Newton uses at the emitted degree; on a
// GPU (here a CPU executor standing in for it) the results are the same,
// and GPUNewton, when set, gets the options to adapt.
func TestSolveOnTheGPUSeam(t *testing.T) {
	spec, inst := newtonSpec(t, "katsura3:newton", 2, 6, false)
	made := 0
	spec.Fatbins = fstest.MapFS{"fatbin/hom.fatbin": {Data: []byte("k")}}
	spec.gpuTest = func(plan *stager.Plan, fatbin []byte, cfg GPUConfig) (backend.Executor, error) {
		made++
		return cpu.New(plan, cfg.Prec, 1)
	}
	s, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Backend() != GPU {
		t.Fatalf("backend %s: %v", s.Backend(), s.FallbackReason())
	}
	starts, _ := spec.Starts()
	want := direct(t, inst, newton.Options{Prec: mdops.Prec{N: 2}, Degree: 6}, starts[0])

	var called NewtonConfig
	released := 0
	GPUNewton = func(cfg NewtonConfig, opt *newton.Options) (func() error, error) {
		called = cfg
		if opt.Degree != 6 || opt.Prec != (mdops.Prec{N: 2}) || opt.NewExecutor == nil {
			t.Errorf("options %+v", opt)
		}
		return func() error { released++; return nil }, nil
	}
	defer func() { GPUNewton = nil }()
	res, err := s.Solve(starts[0])
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "on the GPU seam", res.Result, want)
	if res.Backend != GPU || made != 1 || called.Executor != s.Executor() || string(called.Fatbin) != "k" {
		t.Fatalf("backend %s, %d GPU executors made, config %+v", res.Backend, made, called)
	}
	// The evaluation API still works on the shared executor after Solve.
	if run(t, s) == "" {
		t.Fatal("no checksum")
	}
	if err := s.Close(); err != nil || released != 1 {
		t.Fatalf("close: %v, released %d", err, released)
	}
}

// Errors as in `mdgen solve`: bad input is an error without a result; a
// Newton failure is an error with the result, naming the start in
// SolveAll and matching newton's sentinel errors.
func TestSolveErrors(t *testing.T) {
	spec, _ := newtonSpec(t, "katsura3:newton", 2, 4, false)
	s, err := New(spec, WithCPU())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	starts, _ := spec.Starts()
	good := starts[0]
	if _, err := s.Solve(good[:2]); err == nil || !strings.Contains(err.Error(), "2 values") {
		t.Errorf("short start: %v", err)
	}
	if _, err := s.Solve(ComplexPoint(1i, 0, 0, 0)); err == nil || !strings.Contains(err.Error(), "imaginary part") {
		t.Errorf("complex start, real data: %v", err)
	}
	if _, err := s.Solve(good, WithDegree(5)); err == nil || !strings.Contains(err.Error(), "emitted for series to degree 4") {
		t.Errorf("degree above the package's: %v", err)
	}
	if _, err := s.Solve(good, WithMaxSteps(-1)); err == nil {
		t.Error("negative step limit accepted")
	}
	far := Point(100, -200, 300, 1e6)
	res, err := s.Solve(far)
	if err == nil || res == nil || res.Converged || res.Err == nil {
		t.Fatalf("far start: %v, %+v", err, res)
	}
	var f *newton.Failure
	if !errors.As(err, &f) {
		t.Fatalf("far start: %v is not a *newton.Failure", err)
	}
	res, err = s.Solve(good, WithMaxSteps(2))
	if !errors.Is(err, newton.ErrStepLimit) || res == nil {
		t.Fatalf("step limit: %v", err)
	}
	all, err := s.SolveAll([]Start{good, far, good})
	if len(all) != 3 || !all[0].Converged || all[1].Converged || !all[2].Converged || all[2].Start != 2 ||
		err == nil || !strings.HasPrefix(err.Error(), "start solution 2: ") || strings.Contains(err.Error(), "start solution 1") {
		t.Fatalf("SolveAll: %d results, %v", len(all), err)
	}
	if _, err := s.SolveAll([]Start{good, good[:1]}); err == nil || !strings.HasPrefix(err.Error(), "start solution 2: ") {
		t.Fatalf("SolveAll with a bad start: %v", err)
	}

	// A system Newton cannot take: p1-like (fewer equations than unknowns).
	under := &Spec{Name: "under", Prec: mdops.Prec{N: 2}, Degree: 2, Text: "1 3\n x*y + z - 1;\n"}
	sys, err := under.System()
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := stager.Stage(sys, 2)
	under.PlanHash = plan.Hash()
	u, err := New(under, WithCPU())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if _, err := u.Solve(Point(1, 1, 1), WithDegree(0)); err == nil || !strings.Contains(err.Error(), "1 equations in 3 unknowns") {
		t.Fatalf("underdetermined: %v", err)
	}
	// No series parameter: root refinement only.
	sq := &Spec{Name: "sq", Prec: mdops.Prec{N: 2}, Degree: 2, Text: "2\n x^2 - 2;\n x*y - 1;\n"}
	if sys, err = sq.System(); err != nil {
		t.Fatal(err)
	}
	plan, _ = stager.Stage(sys, 2)
	sq.PlanHash = plan.Hash()
	q, err := New(sq, WithCPU())
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if _, err := q.Solve(Point(1.4, 0.7)); err == nil || !strings.Contains(err.Error(), "no series parameter") {
		t.Fatalf("no parameter: %v", err)
	}
	res, err = q.Solve(Point(1.4, 0.7), WithDegree(0))
	if err != nil || res.Float(0, 0) != complex(math.Sqrt2, 0) {
		t.Fatalf("root refinement: %v, %v", err, res.Float(0, 0))
	}
}

func TestStarts(t *testing.T) {
	spec, inst := newtonSpec(t, "cyclic5:newton", 2, 3, false)
	starts, err := spec.Starts()
	if err != nil || len(starts) != 1 || len(starts[0]) != 5 || starts[0][2].Re.Cmp(&inst.Start[0].Values[2].Re) != 0 {
		t.Fatalf("starts %v, %v", starts, err)
	}
	spec.Text = strings.Replace(spec.Text, "t :  0.00000000000000E+00   0.00000000000000E+00", "t :  1.00000000000000E+00   0.00000000000000E+00", 1)
	if _, err := spec.Starts(); err == nil || !strings.Contains(err.Error(), "not at t = 0") {
		t.Fatalf("start at t = 1: %v", err)
	}
	if p := Point(0.5, -2); p[0].Re.FloatString(1) != "0.5" || p[1].Re.FloatString(0) != "-2" || !p[1].IsReal() {
		t.Fatalf("Point %v", p)
	}
}
