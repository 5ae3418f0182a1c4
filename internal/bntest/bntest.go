// Package bntest makes the test cases of the batched Newton solve
// (runtime/gpu.BatchNewton, gen/gpuabi/bnewton.go): a batch of paths of a
// Newton homotopy of a family with each path's start, coefficients and
// refinement tolerance, and newton.Solver's Result and steps on each path
// alone with the CPU back end, which the batched solve must give bit for
// bit. gen's host emulation of the kernel and runtime/gpu's device test
// share it, so that both check the same cases the same way.
package bntest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
)

// Case is a batch of paths: the setup of the batched solve, each path's
// inputs (X0, Coef packed for the kernel, Tol) and the CPU's outcome.
type Case struct {
	Setup     *gpu.BNSetup
	X0, Coef  [][]float64
	Tol       []float64
	Want      []*newton.Result
	WantSteps [][]newton.StepInfo
}

// recorder is a CPU executor that keeps the values the Solver sets into
// its read-only slots (SetCoefficient), so that the batched solve gets
// the same.
type recorder struct {
	*cpu.Executor
	set map[stager.Slot][]float64
}

func (r *recorder) SetValue(s stager.Slot, series []float64) {
	r.set[s] = append([]float64(nil), series...)
	r.Executor.SetValue(s, series)
}

// New makes paths paths of the family spec (a Newton homotopy, e.g.
// "katsura3:newton") at precision p and degree d: path i starts from the
// family's start perturbed by a relative 1e-4 (i+1) (every fourth from a
// random point, where Newton may fail), refines to the solver's RefineTol
// (odd paths: 0, as the tracker at t = 1), and every even path sets the
// first coefficient of the first polynomial to a series of two
// coefficients of its own. With residuals the solvers compute the
// residuals of the linear systems and, at degree 0, the final residual
// (the defaults; the tracker's series solvers and correctors compute
// neither, its refiner of the endpoints both).
func New(spec string, p mdops.Prec, d, paths int, residuals bool, seed uint64) (*Case, error) {
	inst, err := families.System(spec, families.Options{Complex: p.Complex})
	if err != nil {
		return nil, err
	}
	sys := inst.System
	n, W, N := len(sys.Vars), p.Width(), p.N
	var recs map[int]*recorder
	r := rand.New(rand.NewPCG(seed, uint64(d*100+N)))
	start := make([]float64, n*W)
	if len(inst.Start) > 0 {
		for v, z := range inst.Start[0].Values {
			re, _ := z.Re.Float64()
			im, _ := z.Im.Float64()
			start[v*W] = re
			if p.Complex {
				start[v*W+N] = im
			}
		}
	}
	c := &Case{X0: make([][]float64, paths), Coef: make([][]float64, paths), Tol: make([]float64, paths),
		Want: make([]*newton.Result, paths), WantSteps: make([][]newton.StepInfo, paths)}
	set := make([]map[int]map[stager.Slot][]float64, paths) // by working degree
	plans := map[int]*stager.Plan{}
	var opt newton.Options
	for i := range paths {
		recs = map[int]*recorder{}
		s, err := newton.New(sys, newton.Options{Prec: p, Degree: d, Workers: 1, NoResidual: !residuals, NoFinalResidual: !residuals,
			NoStageTimes: true, NewExecutor: func(plan *stager.Plan, pr mdops.Prec, workers int) (backend.Executor, error) {
				e, err := cpu.New(plan, pr, workers)
				if err != nil {
					return nil, err
				}
				rc := &recorder{Executor: e, set: map[stager.Slot][]float64{}}
				recs[plan.Degree] = rc
				return rc, nil
			}})
		if err != nil {
			return nil, err
		}
		if err := s.Prepare(); err != nil {
			return nil, err
		}
		opt = s.Options()
		x0 := make([]float64, n*W)
		for v := range n {
			for q := 0; q < W; q += N {
				if i%4 == 3 {
					x0[v*W+q] = 4 * (r.Float64() - 0.5)
				} else {
					x0[v*W+q] = start[v*W+q] * (1 + 1e-4*float64(i+1)*(r.Float64()-0.5))
				}
			}
		}
		c.X0[i] = x0
		c.Tol[i] = opt.RefineTol
		if i%2 == 1 {
			c.Tol[i] = 0
		}
		s.SetRefineTol(c.Tol[i])
		if i%2 == 0 {
			ser := make([]float64, 2*W)
			ser[0] = 1 + 1e-3*float64(i)
			ser[W] = 0.25
			if err := s.SetCoefficient(0, 0, ser); err != nil {
				return nil, err
			}
		}
		if i%4 == 0 && len(sys.Polys) > 1 && len(sys.Polys[1].Terms) > 0 {
			// A second slot, of a longer series: the kernel reads each
			// slot's coefficients at its stride.
			ser := make([]float64, 3*W)
			ser[0], ser[W], ser[2*W] = 1.5, -0.125, 1.0/64
			if err := s.SetCoefficient(1, 0, ser); err != nil {
				return nil, err
			}
		}
		s.SetProgress(func(si newton.StepInfo) { c.WantSteps[i] = append(c.WantSteps[i], si) })
		res, err := s.SolveLimbs(x0)
		if err != nil {
			return nil, err
		}
		c.Want[i] = res
		set[i] = map[int]map[stager.Slot][]float64{}
		for w, rc := range recs {
			set[i][w] = rc.set
			plans[w] = rc.Plan()
		}
		if err := s.Close(); err != nil {
			return nil, err
		}
	}
	// The coefficient slots any path set, per level: each path sends all
	// of them, every coefficient (the plan's values where it set none).
	slots := map[int][]stager.Slot{}
	for _, byW := range set {
		for w, ss := range byW {
			for sl := range ss {
				if !slices.Contains(slots[w], sl) {
					slots[w] = append(slots[w], sl)
				}
			}
		}
	}
	for w := range slots {
		slices.Sort(slots[w])
	}
	c.Setup, err = gpu.NewBNSetup(gpu.BNConfig{Plans: plans, Prec: p, Opt: opt}, sys.Vars, slots, d+1, paths)
	if err != nil {
		return nil, err
	}
	for i := range paths {
		c.Coef[i] = make([]float64, c.Setup.Strides.Coef*int64(W))
		if err := c.Setup.PackCoef(c.Coef[i], func(w int, sl stager.Slot) []float64 { return set[i][w][sl] }); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Summary says how many paths converged and the Newton steps in all.
func (c *Case) Summary() string {
	conv, steps := 0, 0
	for _, r := range c.Want {
		if r.Converged {
			conv++
		}
		steps += r.Steps
	}
	return fmt.Sprintf("%d paths: %d converged, %d failed, %d Newton steps; %d levels", len(c.Want), conv, len(c.Want)-conv,
		steps, len(c.Setup.Levels))
}

// Check compares path i's Result and steps with the CPU's, bit for bit
// (Times and Elapsed aside), and returns the first difference.
func (c *Case) Check(i int, got *newton.Result, gotSteps []newton.StepInfo) error {
	want, wantSteps := c.Want[i], c.WantSteps[i]
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	if want.Converged != got.Converged || want.Steps != got.Steps || want.RefineSteps != got.RefineSteps || want.Work != got.Work {
		return fmt.Errorf("path %d: CPU converged %v steps %d/%d work %+v, batched %v %d/%d %+v (CPU error %v)", i, want.Converged,
			want.Steps, want.RefineSteps, want.Work, got.Converged, got.Steps, got.RefineSteps, got.Work, want.Err)
	}
	for _, f := range []struct {
		what string
		a, b float64
	}{{"Cond", want.Cond, got.Cond}, {"Update", want.Update, got.Update}, {"PointUpdate", want.PointUpdate, got.PointUpdate},
		{"Residual", want.Residual, got.Residual}, {"FNorm", want.FNorm, got.FNorm}, {"StartResidual", want.StartResidual, got.StartResidual}} {
		if !same(f.a, f.b) {
			return fmt.Errorf("path %d: %s: CPU %v (%#x), batched %v (%#x)", i, f.what, f.a, math.Float64bits(f.a), f.b, math.Float64bits(f.b))
		}
	}
	if fmt.Sprint(want.Err) != fmt.Sprint(got.Err) {
		return fmt.Errorf("path %d: CPU error %v, batched %v", i, want.Err, got.Err)
	}
	if wf, ok := want.Err.(*newton.Failure); ok {
		gf, _ := got.Err.(*newton.Failure)
		if gf == nil || wf.Kind != gf.Kind || wf.Step != gf.Step || wf.Degree != gf.Degree || wf.Refine != gf.Refine ||
			wf.Col != gf.Col || wf.NonFinite != gf.NonFinite || !same(wf.Cond, gf.Cond) || !same(wf.MaxCond, gf.MaxCond) ||
			!same(wf.Update, gf.Update) || !same(wf.PrevUpdate, gf.PrevUpdate) || !same(wf.SqrtU, gf.SqrtU) ||
			!same(wf.Residual, gf.Residual) || !same(wf.FNorm, gf.FNorm) || !same(wf.StartResidual, gf.StartResidual) ||
			(wf.Rank == nil) != (gf.Rank == nil) || wf.Rank != nil && *wf.Rank != *gf.Rank {
			return fmt.Errorf("path %d: CPU failure %+v, batched %+v", i, wf, gf)
		}
	}
	if len(want.X) != len(got.X) {
		return fmt.Errorf("path %d: %d doubles of X, want %d", i, len(got.X), len(want.X))
	}
	for k := range want.X {
		if !same(want.X[k], got.X[k]) {
			return fmt.Errorf("path %d: X[%d]: CPU %v, batched %v", i, k, want.X[k], got.X[k])
		}
	}
	if len(wantSteps) != len(gotSteps) {
		return fmt.Errorf("path %d: %d steps reported, want %d", i, len(gotSteps), len(wantSteps))
	}
	for k := range wantSteps {
		a, b := wantSteps[k], gotSteps[k]
		if a.Step != b.Step || a.Refine != b.Refine || a.Degree != b.Degree || a.Blocks != b.Blocks || a.Skipped != b.Skipped ||
			!same(a.Update, b.Update) || !same(a.UpdateOld, b.UpdateOld) || !same(a.Residual, b.Residual) {
			return fmt.Errorf("path %d: step %d: CPU %+v, batched %+v", i, k+1, a, b)
		}
	}
	return nil
}
