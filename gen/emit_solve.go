package gen

import (
	"fmt"
	"strings"

	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/solver"
	"github.com/mdgen/mdgen/stager"
)

// The emitted Example solves from the first start solution of the system
// file and prints these lines; Emit runs the same solve on the CPU to write
// its // Output: (the bits are those of any machine and back end).
const (
	exampleSummary = "converged in %d steps: residual %.1e, condition %.1e\n"
	exampleCoef    = "%s t^%d: %s %s\n"
	// exampleTerms is the number of coefficients of the first variable
	// the Example prints (fewer when Degree is lower).
	exampleTerms = 3
)

// solveExample is what Emit knows of Newton on the emitted system: whether
// the system file lists start solutions from which Newton converges at the
// emitted degree (then the package's Example solves, and its tests compare
// Solve with runtime/newton), and the Example's output.
type solveExample struct {
	ok bool
	// long: the system file lists a start, but one evaluation is above
	// evalExampleWork: the Example solves without an output to check (go
	// test compiles it only), Emit does not run Newton, and the test of
	// Solve skips under -short.
	long   bool
	output string // the Example's output (also of the evaluation example, when small)
	why    string // why not ok
}

// evalExampleWork bounds the work (convolution jobs times coefficient
// products times limb products) of an evaluation that Emit runs to write
// the output of the evaluation Example; above it (p1 at degree 31 in 8
// doubles takes seconds) the Example has no output and is not run.
const evalExampleWork = 1e8

// evalWork is the work of one evaluation at the emitted degree (see
// evalExampleWork).
func evalWork(s EmitSpec, plan *stager.Plan) float64 {
	d := float64(s.Degree + 1)
	return float64(plan.ConvJobs()) * d * d * float64(s.Prec.N*s.Prec.N)
}

// newtonExampleWork bounds evalWork for the Newton Example with an output
// (Emit solves, and go test runs it): katsura12's Newton homotopy at degree
// 64 in 8 doubles, 1.0e8, takes 0.7 s on one core of a 2-core machine.
const newtonExampleWork = 3e8

// evalExampleOutput returns what the evaluation Example prints, or "" when
// the evaluation is too much work to run at emit time and in go test.
func evalExampleOutput(s EmitSpec, plan *stager.Plan) string {
	if evalWork(s, plan) > evalExampleWork {
		return ""
	}
	e, err := cpu.New(plan, s.Prec, 0)
	if err != nil {
		return ""
	}
	defer e.Close()
	l := backend.Layout{Prec: s.Prec, Degree: s.Degree}
	for v, x := range backend.RandomInputs(plan.NumVars, l, 1) {
		e.SetInput(v, x)
	}
	if err := e.Run(); err != nil {
		return ""
	}
	return "checksum " + backend.Checksum(e, plan.NumPolys, plan.NumVars) + "\n"
}

// exampleSolve solves the system from its first start solution, as the
// emitted Example will.
func exampleSolve(s EmitSpec, plan *stager.Plan) (ex solveExample) {
	hash := plan.Hash()
	defer func() {
		if !ex.ok && !ex.long {
			ex.output = evalExampleOutput(s, plan)
		}
	}()
	if s.Benchmark != "" {
		return solveExample{why: "a benchmark system has no start solutions"}
	}
	spec := &solver.Spec{Name: s.Name, Prec: s.Prec, Degree: s.Degree, Text: string(s.Text), Param: s.Param, PlanHash: hash}
	starts, err := spec.Starts()
	if err != nil {
		return solveExample{why: err.Error()}
	}
	if len(starts) == 0 {
		return solveExample{why: "the system file lists no start solutions"}
	}
	if evalWork(s, plan) > newtonExampleWork {
		return solveExample{long: true, why: "Newton at this size takes long"}
	}
	sv, err := solver.New(spec, solver.WithCPU())
	if err != nil {
		return solveExample{why: err.Error()}
	}
	defer sv.Close()
	res, err := sv.Solve(starts[0])
	if err != nil {
		return solveExample{why: fmt.Sprintf("Newton from the first start solution: %v", err)}
	}
	var b strings.Builder
	fmt.Fprintf(&b, exampleSummary, res.Steps, res.Residual, res.Cond)
	for k := 0; k <= min(s.Degree, exampleTerms-1); k++ {
		re, im := res.Text(0, k)
		fmt.Fprintf(&b, exampleCoef, res.Vars[0], k, re, im)
	}
	return solveExample{ok: true, output: b.String()}
}
