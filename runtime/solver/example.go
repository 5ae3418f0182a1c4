package solver

import (
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
)

// ExampleRunner runs what the Examples of an emitted package run, for the
// emitter: gen.Emit writes each Example's // Output: from it (gen.
// ExampleRunner; package gen prints code and runs nothing, so it does not
// depend on the run time). mdgen emit passes it. It runs on the CPU, whose
// bits are those of every back end.
type ExampleRunner struct{}

// EvalChecksum evaluates plan once at precision p at the random inputs of seed 1 and returns the checksum of
// every output: what the evaluation Example prints after "checksum".
func (ExampleRunner) EvalChecksum(plan *stager.Plan, p mdops.Prec) (string, error) {
	e, err := cpu.New(plan, p, 0)
	if err != nil {
		return "", err
	}
	defer e.Close()
	l := backend.Layout{Prec: p, Degree: plan.Degree}
	for v, x := range backend.RandomInputs(plan.NumVars, l, 1) {
		e.SetInput(v, x)
	}
	if err := e.Run(); err != nil {
		return "", err
	}
	return backend.Checksum(e, plan.NumPolys, plan.NumVars), nil
}

// SolveExample solves as the Newton Example does: a Solver on the CPU of
// the system file text (name names it; param is poly.ParseOptions.Param)
// at plan's degree and precision p, solves from
// start. It returns the Newton steps, the residual and the condition
// number of the result, and its text, Result.Text, of coefficient k of
// variable v.
func (ExampleRunner) SolveExample(name string, text []byte, param string, plan *stager.Plan, p mdops.Prec,
	start []poly.Rational) (steps int, residual, cond float64, coef func(v, k int) (re, im string), err error) {
	spec := &Spec{Name: name, Prec: p, Degree: plan.Degree, Text: string(text), Param: param, PlanHash: plan.Hash()}
	sv, err := New(spec, WithCPU())
	if err != nil {
		return 0, 0, 0, nil, err
	}
	defer sv.Close()
	res, err := sv.Solve(start)
	if err != nil {
		return 0, 0, 0, nil, err
	}
	return res.Steps, res.Residual, res.Cond, res.Text, nil
}

// TrackExample tracks as the Track Example does: Spec.Track with its
// defaults (the package's precision, seed DefaultSeed) on the system file
// text with the homotopy (Spec.Homotopy: "total-degree"). It returns counts:
// the paths, then the Summary's regular, singular, infinite, failed, real
// and distinct; and path k's number (from 1), status, multiplicity and
// endpoint rounded to complex128 (nil unless Solution.Finite).
func (ExampleRunner) TrackExample(name string, text []byte, param, homotopy string, p mdops.Prec) (counts [7]int,
	path func(k int) (number int64, status string, multiplicity int, point []complex128), err error) {
	spec := &Spec{Name: name, Prec: p, Text: string(text), Param: param, Homotopy: homotopy}
	res, err := spec.Track()
	if err != nil {
		return counts, nil, err
	}
	s := res.Summary
	counts = [7]int{len(res.Solutions), s.Regular, s.Singular, s.Infinite, s.Failed, s.Real, s.Distinct}
	return counts, func(k int) (int64, string, int, []complex128) {
		sol := &res.Solutions[k]
		var point []complex128
		if sol.Finite() {
			point = sol.Point()
		}
		return sol.Number(), sol.Status.String(), sol.Multiplicity, point
	}, nil
}
