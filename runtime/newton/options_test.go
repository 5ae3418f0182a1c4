package newton

import (
	"math"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager/families"
)

// TestNoResidual: leaving out the residual of the linear system changes no
// bit of the iterates, the updates, the condition estimate or the step
// count, with series (Degree 10) and in root refinement (Degree 0); the
// residuals of the linear systems are NaN.
func TestNoResidual(t *testing.T) {
	inst, err := families.Build("monomial", families.Options{N: 6, Degree: 10, Columns: 2, Seed: 3, Complex: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []int{0, 10} {
		opt := Options{Prec: mdops.Prec{N: 2, Complex: true}, Degree: d, Workers: 1}
		var steps []StepInfo
		with := solve(t, inst.System, inst.Start[0].Values, opt)
		opt.NoResidual = true
		opt.Progress = func(si StepInfo) { steps = append(steps, si) }
		without := solve(t, inst.System, inst.Start[0].Values, opt)
		if !with.Converged || !without.Converged {
			t.Fatalf("degree %d: %v, %v", d, with.Err, without.Err)
		}
		for i := range with.X {
			if math.Float64bits(with.X[i]) != math.Float64bits(without.X[i]) {
				t.Fatalf("degree %d: double %d differs", d, i)
			}
		}
		if with.Cond != without.Cond || with.Steps != without.Steps || with.Update != without.Update || with.PointUpdate != without.PointUpdate {
			t.Errorf("degree %d: cond %v steps %d update %v %v, with the residual %v %d %v %v", d,
				without.Cond, without.Steps, without.Update, without.PointUpdate, with.Cond, with.Steps, with.Update, with.PointUpdate)
		}
		for _, si := range steps {
			if !math.IsNaN(si.Residual) {
				t.Errorf("degree %d, step %d: residual %v, want NaN", d, si.Step, si.Residual)
			}
		}
		// With Degree 0 the final evaluation gives Residual, unless the
		// last step skipped block 0 (then it is the linear system's).
		if d == 0 && without.Residual != with.Residual && !math.IsNaN(without.Residual) {
			t.Errorf("degree 0: final residual %v, want %v or NaN", without.Residual, with.Residual)
		}
		if d > 0 && !math.IsNaN(without.Residual) {
			t.Errorf("degree %d: residual %v, want NaN", d, without.Residual)
		}
	}
}

// TestNoStageTimes: without the stage clock a solve gives the same bits
// (x, steps, condition, updates, residual) and zero stage times; with it,
// the times are there.
func TestNoStageTimes(t *testing.T) {
	inst, err := families.Build("monomial", families.Options{N: 6, Degree: 10, Columns: 2, Seed: 3, Complex: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []int{0, 10} {
		opt := Options{Prec: mdops.Prec{N: 2, Complex: true}, Degree: d, Workers: 1}
		with := solve(t, inst.System, inst.Start[0].Values, opt)
		opt.NoStageTimes = true
		without := solve(t, inst.System, inst.Start[0].Values, opt)
		if !with.Converged || !without.Converged {
			t.Fatalf("degree %d: %v, %v", d, with.Err, without.Err)
		}
		for i := range with.X {
			if math.Float64bits(with.X[i]) != math.Float64bits(without.X[i]) {
				t.Fatalf("degree %d: double %d differs", d, i)
			}
		}
		if with.Cond != without.Cond || with.Steps != without.Steps || with.Update != without.Update ||
			math.Float64bits(with.Residual) != math.Float64bits(without.Residual) {
			t.Errorf("degree %d: cond %v steps %d update %v residual %v, with the clock %v %d %v %v", d,
				without.Cond, without.Steps, without.Update, without.Residual, with.Cond, with.Steps, with.Update, with.Residual)
		}
		if without.Times != (Times{}) {
			t.Errorf("degree %d: stage times %+v without the clock, want zero", d, without.Times)
		}
		if with.Times == (Times{}) {
			t.Errorf("degree %d: no stage times with the clock", d)
		}
	}
}
