package newton

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// wholeCPU is the CPU back end as a WholeSolver: each solve is the
// Driver's on it (what runtime/lockstep's reference executor does per
// slot), and fail, when set, is returned instead.
type wholeCPU struct {
	*cpu.Newton
	driver Driver
	solves int
	fail   error
}

func (b *wholeCPU) SolveWhole(ws *WholeSolve) error {
	b.solves++
	if b.fail != nil {
		return b.fail
	}
	return b.driver.Solve(b.Newton, ws)
}

// resultText writes every field of r but Times, floats by their bits,
// and every field of a *Failure.
func resultText(r *Result) string {
	c := *r
	c.Times = Times{}
	bits := make([]uint64, len(c.X))
	for i, v := range c.X {
		bits[i] = math.Float64bits(v)
	}
	c.X = nil
	var f string
	if ff, ok := c.Err.(*Failure); ok {
		g := *ff
		f = fmt.Sprintf("%+v %v", g, ff)
		c.Err = nil
	} else if c.Err != nil {
		f = "not a Failure: " + c.Err.Error()
	}
	return fmt.Sprintf("%+v update %x point %x residual %x fnorm %x start %x cond %x failure %s x %x", c,
		math.Float64bits(c.Update), math.Float64bits(c.PointUpdate), math.Float64bits(c.Residual),
		math.Float64bits(c.FNorm), math.Float64bits(c.StartResidual), math.Float64bits(c.Cond), f, bits)
}

// stepsText writes the steps with their floats' bits, Elapsed left out.
func stepsText(steps []StepInfo) string {
	var b strings.Builder
	for _, si := range steps {
		si.Elapsed = 0
		fmt.Fprintf(&b, "%+v %x %x %x\n", si, math.Float64bits(si.Update), math.Float64bits(si.UpdateOld), math.Float64bits(si.Residual))
	}
	return b.String()
}

// TestWholeSolver: a Solver whose back end takes whole solves (the
// Driver's on the CPU back end) returns every Result of the Solver that
// drives the CPU back end itself, bit for bit, and replays the same steps
// through Progress: series and root refinement, converging and failing
// (singular, ill-conditioned, diverging, step limit), with the tracker's
// options and a RefineTol changed between solves.
func TestWholeSolver(t *testing.T) {
	type job struct {
		name  string
		sys   *poly.System
		start []poly.Rational
		opt   Options
	}
	var jobs []job
	inst, err := families.Build("monomial", families.Options{N: 6, Degree: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	jobs = append(jobs, job{"monomial", inst.System, inst.Start[0].Values, Options{Prec: mdops.Prec{N: 2}, Degree: 8}})
	for _, complex := range []bool{false, true} {
		sys, z := randomSystem(4, 6, 11, complex)
		for _, n := range []int{1, 2, 4} {
			jobs = append(jobs,
				job{fmt.Sprintf("random/complex=%v/%dd", complex, n), sys, z, Options{Prec: mdops.Prec{N: n, Complex: complex}, Degree: 12}},
				job{fmt.Sprintf("random/complex=%v/%dd/tracker", complex, n), sys, z, Options{Prec: mdops.Prec{N: n, Complex: complex},
					RefineTol: 1e-6, NoResidual: true, NoFinalResidual: true, NoStageTimes: true}})
		}
	}
	jobs = append(jobs,
		job{"singular", parse(t, "2 3\n x^2 - t;\n y - 1 - t;\n", "t"), point(0, 1), Options{Prec: mdops.Prec{N: 2}, Degree: 4}},
		job{"ill-conditioned", parse(t, "2 2\n x + y - 2;\n x + y + 1/1099511627776*y - 2 - 1/1099511627776;\n", ""), point(1, 1), Options{Prec: mdops.Prec{N: 1}}},
		job{"diverging", parse(t, "1 1\n x^2 + 1;\n", ""), point(0.5), Options{Prec: mdops.Prec{N: 2}}},
		job{"step limit", parse(t, "1 1\n x^2 + 1;\n", ""), point(0.5), Options{Prec: mdops.Prec{N: 2}, MaxSteps: 1}},
		job{"sqrt", parse(t, "1 2\n x^2 - 1 - t;\n", "t"), point(1.1), Options{Prec: mdops.Prec{N: 3}, Degree: 20}},
	)
	for _, j := range jobs {
		t.Run(j.name, func(t *testing.T) {
			var wantSteps, gotSteps []StepInfo
			want := j.opt
			want.Progress = func(si StepInfo) { wantSteps = append(wantSteps, si) }
			ws, err := New(j.sys, want)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			got := j.opt
			got.Progress = func(si StepInfo) { gotSteps = append(gotSteps, si) }
			var be *wholeCPU
			got.NewBackend = func(c backend.NewtonConfig) (Backend, error) {
				nt, err := cpu.NewNewton(c)
				be = &wholeCPU{Newton: nt}
				return be, err
			}
			gs, err := New(j.sys, got)
			if err != nil {
				t.Fatal(err)
			}
			defer gs.Close()
			for i, tol := range []float64{j.opt.RefineTol, 0, 1e-3, j.opt.RefineTol} {
				ws.SetRefineTol(tol)
				gs.SetRefineTol(tol)
				wantSteps, gotSteps = nil, nil
				w, err := ws.Solve(j.start)
				if err != nil {
					t.Fatal(err)
				}
				g, err := gs.Solve(j.start)
				if err != nil {
					t.Fatal(err)
				}
				if be.solves != i+1 {
					t.Fatalf("solve %d: %d whole solves", i+1, be.solves)
				}
				if wt, gt := resultText(w), resultText(g); wt != gt {
					t.Fatalf("solve %d (RefineTol %g): result\n%s\nwant\n%s", i+1, tol, gt, wt)
				}
				if wt, gt := stepsText(wantSteps), stepsText(gotSteps); wt != gt || w.Converged && len(wantSteps) == 0 {
					t.Fatalf("solve %d (RefineTol %g): steps\n%s\nwant\n%s", i+1, tol, gt, wt)
				}
				if !slices.Contains([]string{"singular", "ill-conditioned", "diverging", "step limit"}, j.name) && !g.Converged {
					t.Fatalf("solve %d: %v", i+1, g.Err)
				}
			}
			// A back end's error fails the solve, wrapped; the next solve
			// is the Solver's again.
			be.fail = errors.New("injected device failure")
			if _, err := gs.Solve(j.start); !errors.Is(err, be.fail) || !strings.HasPrefix(err.Error(), "newton: ") {
				t.Fatalf("error %v, want the back end's", err)
			}
			be.fail = nil
			w, _ := ws.Solve(j.start)
			g, err := gs.Solve(j.start)
			if err != nil || resultText(w) != resultText(g) {
				t.Fatalf("after the failure: %v\n%s\nwant\n%s", err, resultText(g), resultText(w))
			}
		})
	}
}
