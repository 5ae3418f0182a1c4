package gen

import (
	"fmt"
	"strings"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// The emitted Example solves from the first start solution of the system
// file and prints these lines; Emit has the same solve run on the CPU
// (ExampleRunner) to write its // Output: (the bits are those of any
// machine and back end).
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

// ExampleRunner runs what the Examples of an emitted package run, so that
// Emit can write their // Output: without running anything itself: package
// gen prints code and does not depend on the run time. Its types are
// those of stager, stager/poly, mdops and the standard library;
// runtime/solver.ExampleRunner is the implementation (mdgen emit passes
// it). Both run on the CPU, whose bits are those of every back end.
type ExampleRunner interface {
	// EvalChecksum evaluates plan once in prec doubles (complex data when
	// complex) at the random inputs of seed 1 and returns the checksum of
	// every output: what the evaluation Example prints after "checksum".
	EvalChecksum(plan *stager.Plan, p mdops.Prec) (string, error)
	// SolveExample solves as the Newton Example does: the emitted Solver
	// of the system file text (name names it, param is
	// poly.ParseOptions.Param) at plan's degree, staged as plan, in
	// prec doubles, complex data when complex, on the CPU, from start. It
	// returns the Newton steps, the residual and the condition number of
	// the result, and coef, the text of coefficient k of the series of
	// variable v as the Result prints it (real and imaginary parts).
	SolveExample(name string, text []byte, param string, plan *stager.Plan, p mdops.Prec,
		start []poly.Rational) (steps int, residual, cond float64, coef func(v, k int) (re, im string), err error)
	// TrackExample tracks as the Track Example does: every path of the
	// homotopy ("total-degree", runtime/track's name) of the
	// system file text at prec.N doubles, with Track's defaults, on the
	// CPU. It returns counts: the paths, then the regular, singular,
	// infinite, failed, real and distinct ones (the Summary); and path k
	// (0-based): its number (from 1), status, multiplicity and endpoint
	// rounded to complex128 (nil unless the path ended at a finite
	// solution, regular or singular).
	TrackExample(name string, text []byte, param, homotopy string, prec mdops.Prec) (counts [7]int,
		path func(k int) (number int64, status string, multiplicity int, point []complex128), err error)
}

// evalExampleOutput returns what the evaluation Example prints, or "" when
// the evaluation is too much work to run at emit time and in go test.
func evalExampleOutput(s EmitSpec, plan *stager.Plan, run ExampleRunner) string {
	if evalWork(s, plan) > evalExampleWork {
		return ""
	}
	sum, err := run.EvalChecksum(plan, s.Prec)
	if err != nil {
		return ""
	}
	return "checksum " + sum + "\n"
}

// exampleSolve solves the system from its first start solution, as the
// emitted Example will.
func exampleSolve(s EmitSpec, plan *stager.Plan, run ExampleRunner) (ex solveExample) {
	defer func() {
		if !ex.ok && !ex.long {
			ex.output = evalExampleOutput(s, plan, run)
		}
	}()
	if s.Benchmark != "" {
		return solveExample{why: "a benchmark system has no start solutions"}
	}
	sys, starts, err := solutions.ParseStarts(s.Name, s.Text, poly.ParseOptions{Param: s.Param})
	if err != nil {
		return solveExample{why: err.Error()}
	}
	if len(starts) == 0 {
		return solveExample{why: "the system file lists no start solutions"}
	}
	if evalWork(s, plan) > newtonExampleWork {
		return solveExample{long: true, why: "Newton at this size takes long"}
	}
	steps, residual, cond, coef, err := run.SolveExample(s.Name, s.Text, s.Param, plan, s.Prec, starts[0])
	if err != nil {
		return solveExample{why: fmt.Sprintf("Newton from the first start solution: %v", err)}
	}
	var b strings.Builder
	fmt.Fprintf(&b, exampleSummary, steps, residual, cond)
	for k := 0; k <= min(s.Degree, exampleTerms-1); k++ {
		re, im := coef(0, k)
		fmt.Fprintf(&b, exampleCoef, sys.Vars[0], k, re, im)
	}
	return solveExample{ok: true, output: b.String()}
}
