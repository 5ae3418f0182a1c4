package main

import (
	"errors"
	"math/big"

	"fmt"
	"github.com/mdgen/mdgen/internal/atomicfile"
	"github.com/mdgen/mdgen/internal/par"
	"io"
	"os"

	"strconv"
	"strings"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// solveReport is the JSON output of `mdgen solve`.
type solveReport struct {
	System    string          `json:"system"`
	Prec      int             `json:"prec"`
	Degree    int             `json:"degree"`
	Complex   bool            `json:"complex"`
	Workers   int             `json:"workers"`
	Device    string          `json:"device"` // "cpu", or the GPU's name with -gpu
	Param     string          `json:"param"`
	Setup     float64         `json:"setup_seconds"` // staging the plans of every working degree
	Solutions []solveSolution `json:"solutions"`
}

type solveSolution struct {
	Start       int            `json:"start"` // 1-based index in the start list
	Converged   bool           `json:"converged"`
	Reason      string         `json:"reason,omitempty"` // why not converged
	Steps       int            `json:"steps"`
	RefineSteps int            `json:"refine_steps"`
	Variables   []string       `json:"variables"`
	Series      [][][2]string  `json:"series"`            // series[v][k] = [re, im]
	Residual    *string        `json:"residual"`          // Result.Residual: a 1-norm, absolute; null unless converged
	RelResidual *string        `json:"residual_relative"` // Residual relative to the size of the terms (newton.TermSize)
	Condition   string         `json:"condition"`
	Update      string         `json:"update"` // the last update, relative to max |x|
	Stages      map[string]any `json:"stages_seconds"`
	Seconds     float64        `json:"seconds"`

	// A point that did not converge has no residual as a solution ("0.0e+00"
	// read as exact): Residual is null, and what is known is here:
	// LastResidual, the residual of the last linear system when a step
	// measured one, and StartResidual, ||G(x(0), 0)||_1 at the start as
	// evaluated (+Inf for a start far out); Reason says why.
	LastResidual  string `json:"last_residual,omitempty"`
	StartResidual string `json:"start_residual,omitempty"`
}

// runSolve runs Newton's method on Taylor series from each start solution:
//
//	mdgen solve SYSTEM -prec P -degree d [-complex] [-start FILE] [-steps k] [-json] [-o FILE] [-workers k] [-param name] [-seed s] [-gpu]
//
// The exit status is 0 only when every solution converged.
func runSolve(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("solve", "usage: mdgen solve SYSTEM [flags]\n\n"+
		"Newton's method on Taylor series on the CPU: from each start solution x(0) at t = 0, refines\n"+
		"x(0) to the working precision, then computes the series x(t) = x_0 + x_1 t + ... + x_d t^d of\n"+
		"the solution path (staggered degrees 1, 2, 4, 7, 11, ... d). -degree 0 is a root refiner.\n"+
		"SYSTEM is a PHCpack system file (n equations, n >= unknowns, in the unknowns and the series\n"+
		"parameter: PHCpack's convention, or -param) or a family spec (cyclic5, monomial64:degree=32,\n"+
		"chandra8:c=t, cyclic7:newton, ...; mdgen system -list). Start solutions: -start FILE (a PHCpack\n"+
		"solution list or lines `name re [im]`), else the list in the system file, else the family's.\n"+
		"Prints every coefficient with all the digits of the precision (or -json), and the residual\n"+
		"and last update relative to the size of the terms; -o FILE writes PHCpack's solution list\n"+
		"with every digit of the precision and PHCpack's err, rco, res at x(0), then the series\n"+
		"(written only when every solution converged). A phc output file (-b, -p, -u, -v) gives the\n"+
		"lists of phc's root refiner, else its last complete list; stderr says which.\n"+
		"Exit status 0 only when every solution converged. -gpu runs Newton on the GPU (a binary built\n"+
		"with -tags cuda, a device and nvcc; the same bits as the CPU), else says why and uses the CPU."+"\n", stderr)
	pf := addPrecFlags(fs, 4, "doubles per number (a generated precision: "+joinInts(mdops.Precisions())+")",
		"complex data (chosen when the system or a start needs it)")
	degree := fs.Int("degree", 0, "truncation degree d of the series (0: refine the roots only)")
	startFile := fs.String("start", "", "read the start solutions from this `file` (PHCpack solution list, or lines: name re [im])")
	steps := fs.Int("steps", 0, "most Newton steps per solution, refinement included (0: the default, "+
		"ceil(log2(53 prec)) + 4 + the staggered degrees + 4)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	outFile := fs.String("o", "", "write the solutions (every digit of the precision) and their series as a PHCpack solution list to this `file`")
	workers := fs.Int("workers", 0, fmt.Sprintf("worker goroutines, 0..%d (0: one per CPU); with several start solutions on the CPU, one solution per worker, else the workers share the one solve; the results do not depend on it", maxWorkers))
	param := fs.String("param", "", "name of the series parameter (default: t when there is one more variable than equations)")
	seed := fs.Int64("seed", 1, "seed of a family's random data (coefficients, Newton start points, monomial rates)")
	useGPU := fs.Bool("gpu", false, "run Newton on the GPU (device-resident: evaluation, linear algebra and updates; the same bits as the CPU); falls back to the CPU, saying why, when this binary or machine has no GPU")
	kernelDir, nvccPath := kernelFlags(fs, "with -gpu: ")
	profileName := profileFlag(fs) // with -gpu; cmd/mdgen/profile.go
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if err := checkArgs(fs, 1, "one system file or family"); err != nil {
		return err
	}
	prec, err := pf.prec()
	for _, err := range []error{err, checkDegree("-degree", *degree), checkWorkers("-workers", *workers),
		checkRange("-steps", *steps, 0, 1<<20, "Newton steps (0: the default)")} {
		if err != nil {
			return err
		}
	}
	arg := fs.Arg(0)
	if *outFile != "" {
		if err := atomicfile.ResolveFile(*outFile, arg, *startFile, *profileName); err != nil {
			return usagef("solve: -o: %w", err)
		}
	}
	sys, fileSols, err := loadSolveSystem(arg, *param, *seed, prec.Complex, stderr)
	if err != nil {
		return err
	}
	n, m := len(sys.Vars), len(sys.Polys)
	if m < n {
		return fmt.Errorf("solve: %s has %d equations in %d unknowns (%s): Newton's method needs at least as many equations as unknowns",
			arg, m, n, strings.Join(sys.Vars, ", "))
	}
	if *degree > 0 && sys.Param == "" {
		return fmt.Errorf("solve: %s has no series parameter (%d equations in %d unknowns %s): name one with -param, or use -degree 0 to refine the roots",
			arg, m, n, strings.Join(sys.Vars, ", "))
	}
	starts := fileSols
	startWhere := arg
	if *startFile != "" {
		src, err := solutions.ReadFile(*startFile)
		if err != nil {
			return fmt.Errorf("solve: start solutions: %w", err)
		}
		var choice solutions.Choice
		starts, choice, err = solutions.ParseChoice(*startFile, src, sys.Vars)
		if err != nil {
			return fmt.Errorf("solve: start solutions: %w", err)
		}
		noteChoice(stderr, *startFile, choice)
		startWhere = *startFile
	}
	if len(starts) == 0 && *startFile != "" {
		return fmt.Errorf("solve: start solutions: %s holds no solutions", *startFile)
	}
	if len(starts) == 0 {
		return fmt.Errorf("solve: %s lists no start solutions: give them with -start FILE (a PHCpack solution list, or lines `name re [im]`)", arg)
	}
	for k := range starts {
		if len(starts[k].Values) != n {
			return fmt.Errorf("solve: %s: start solution %d has %d coordinates, the system %d unknowns (%s)", startWhere, k+1, len(starts[k].Values), n, strings.Join(sys.Vars, ", "))
		}
		if sys.Param != "" && !starts[k].T.IsZero() {
			return fmt.Errorf("solve: %s: start solution %d is at %s = %s, not at %s = 0 (the series are expanded at %s = 0)",
				startWhere, k+1, sys.Param, ratText(&starts[k].T), sys.Param, sys.Param)
		}
	}
	if !prec.Complex {
		why := ""
		if newton.SystemIsComplex(sys) {
			why = arg + " has complex coefficients"
		} else {
			for k := range starts {
				for v := range starts[k].Values {
					if !starts[k].Values[v].IsReal() && why == "" {
						why = fmt.Sprintf("start solution %d has a complex coordinate %s", k+1, sys.Vars[v])
					}
				}
			}
		}
		if why != "" {
			if err := pf.needComplex(&prec, why, "using", stderr); err != nil {
				return usageError{err}
			}
		}
	}
	nopt := newton.Options{Prec: prec, Degree: *degree, MaxSteps: *steps, Workers: *workers}
	device := "cpu"
	if *useGPU {
		if err := installProfile(*profileName, "solve", stderr); err != nil {
			return err
		}
		g, err := openSolveGPU(prec, len(sys.Polys), len(sys.Vars), *degree, *kernelDir, *nvccPath, stderr)
		if errors.Is(err, gpu.ErrMemory) {
			return fmt.Errorf("solve: -gpu: %w", err)
		}
		if err != nil {
			fmt.Fprintf(stderr, "mdgen: solve: -gpu: %v; solving on the CPU\n", err)
		} else {
			defer g.Close()
			noteProfileDevice(g.dev.Info(), "solve", stderr)
			nopt = g.options(nopt)
			device = g.name()
		}
	}
	var results []*newton.Result
	var secs []float64
	var setup time.Duration
	workersUsed := 0
	progress := newProgress(stderr)
	if len(starts) > 1 && device == "cpu" {
		// Many starts on the CPU: one solution per worker (each solver
		// with one worker of its own); the same bits as one at a time.
		values := make([][]poly.Rational, len(starts))
		for k := range starts {
			values[k] = starts[k].Values
		}
		b, err := newton.SolveEach(sys, nopt, values, func(done int) { progress.count("solve", done, len(starts)) })
		progress.done()
		if err != nil {
			return fmt.Errorf("solve: %s: %w", startWhere, err)
		}
		results, secs, setup, workersUsed = b.Results, b.Seconds, b.Setup, b.Solvers
	} else {
		solver, err := newton.New(sys, nopt)
		if err != nil {
			return fmt.Errorf("solve: %w", err)
		}
		defer solver.Close()
		stop := busy(fmt.Sprintf("staging %s at the %d working degrees up to %d", arg, len(newton.Stagger(*degree)), *degree), stderr)
		err = solver.Prepare()
		stop()
		if err != nil {
			return fmt.Errorf("solve: %w", err)
		}
		maxSteps := solver.Options().MaxSteps
		results = make([]*newton.Result, len(starts))
		secs = make([]float64, len(starts))
		for k := range starts {
			solver.SetProgress(func(si newton.StepInfo) {
				phase := fmt.Sprintf("degree %d", si.Degree)
				if si.Refine {
					phase = "refining x(0)"
				}
				progress.fraction(fmt.Sprintf("solve %d/%d: step %d, %s, update %.2g", k+1, len(starts), si.Step, phase, si.Update),
					(float64(k)+float64(si.Step)/float64(maxSteps))/float64(len(starts)))
			})
			t0 := time.Now()
			res, err := solver.Solve(starts[k].Values)
			if err != nil {
				progress.done()
				return fmt.Errorf("solve: %s: start solution %d: %w", startWhere, k+1, err)
			}
			secs[k] = time.Since(t0).Seconds()
			results[k] = res
		}
		progress.done()
		setup, workersUsed = solver.Setup(), solver.Workers()
	}
	failed := 0
	for _, res := range results {
		if !res.Converged {
			failed++
		}
	}

	if *asJSON {
		rep := solveReport{System: arg, Prec: prec.N, Degree: *degree, Complex: prec.Complex, Workers: workersUsed, Device: device,
			Param: sys.Param, Setup: setup.Seconds()}
		scale := newton.NewTermScale(sys)
		for k, res := range results {
			rep.Solutions = append(rep.Solutions, jsonSolution(k+1, res, scale.Relative(res), secs[k]))
		}
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
	} else if err := writeSolveText(stdout, arg, sys, prec, *degree, results, secs); err != nil {
		return err
	}
	for k, res := range results {
		if !res.Converged {
			fmt.Fprintf(stderr, "mdgen: solve: start solution %d: %v\n", k+1, res.Err)
		}
	}
	if failed > 0 {
		if *outFile != "" {
			fmt.Fprintf(stderr, "mdgen: solve: %s not written\n", *outFile)
		}
		return fmt.Errorf("solve: %d of %d solutions did not converge", failed, len(results))
	}
	if *outFile != "" {
		// PHCpack's res in big.Float (phcResidual) and the exact values
		// cost about as much as the refinement at 2 doubles: on the
		// solve's workers, one solution per chunk, the same bytes on any
		// number of them.
		sols := make([]solutions.Solution, len(results))
		par.RunOn(workersUsed, len(results), func(_, k int) { sols[k] = solutionOf(sys, results[k], &starts[k]) })
		if err := atomicfile.WriteFile(*outFile, solutions.Format(sols, solutions.FormatOptions{Digits: prec.Digits(), Workers: workersUsed}), 0o644); err != nil {
			return fmt.Errorf("solve: %w", err)
		}
	}
	return nil
}

// loadSolveSystem returns the system named by arg and the start solutions
// that come with it: a family spec (its known start solutions) or a file
// (the solution list after the system, if any).
func loadSolveSystem(arg, param string, seed int64, complex bool, stderr io.Writer) (*poly.System, []solutions.Solution, error) {
	if families.IsBenchmarkName(arg) || families.IsSpec(arg) {
		if _, err := os.Stat(arg); err == nil {
			fmt.Fprintf(stderr, "mdgen: %s is the generated system, not the file of that name (use ./%s)\n", arg, arg)
		}
		stop := busy("building "+arg+" (exact coefficients)", stderr)
		inst, err := families.System(arg, families.Options{Seed: seed, Complex: complex})
		stop()
		if err != nil {
			return nil, nil, err
		}
		if param != "" && param != inst.System.Param {
			return nil, nil, usagef("solve: %s: -param %s, but its parameter is %q", arg, param, inst.System.Param)
		}
		return inst.System, inst.Start, nil
	}
	src, err := poly.ReadFile(arg)
	if err != nil {
		return nil, nil, err
	}
	sys, sols, choice, err := solutions.ParseWithSystemChoice(arg, src, poly.ParseOptions{Param: param})
	if err == nil {
		noteChoice(stderr, arg, choice)
		for _, w := range sys.Warnings {
			fmt.Fprintf(stderr, "mdgen: warning: %v\n", w)
		}
	}
	return sys, sols, err
}

// noteChoice says which solution list of a file with several (PHCpack's
// output files) was read.
func noteChoice(stderr io.Writer, file string, choice solutions.Choice) {
	if choice.Several() {
		fmt.Fprintf(stderr, "mdgen: %s: %s\n", file, choice)
	}
}

func ratText(z *poly.Rational) string {
	if z.Im.Sign() == 0 {
		return z.Re.RatString()
	}
	return z.Re.RatString() + " + " + z.Im.RatString() + "*i"
}

// e2 writes x with two significant digits, as the JSON report's residual
// and condition ("1.2e-120").
func e2(x float64) string { return strconv.FormatFloat(x, 'e', 1, 64) }

func stageMap(t newton.Times) map[string]any {
	return map[string]any{"evaluate": t.Evaluate.Seconds(), "qr": t.QR.Seconds(), "qhb": t.QHB.Seconds(),
		"backsub": t.BackSub.Seconds(), "update": t.Update.Seconds(), "residual": t.Residual.Seconds()}
}

func jsonSolution(start int, res *newton.Result, relResidual, secs float64) solveSolution {
	s := solveSolution{Start: start, Converged: res.Converged, Steps: res.Steps, RefineSteps: res.RefineSteps,
		Variables: res.Vars, Condition: e2(res.Cond), Update: e2(res.Update),
		Stages: stageMap(res.Times), Seconds: secs}
	if res.Converged {
		r, rel := e2(res.Residual), e2(relResidual)
		s.Residual, s.RelResidual = &r, &rel
	} else {
		if res.Steps > 0 && res.Residual != 0 {
			s.LastResidual = e2(res.Residual)
		}
		s.StartResidual = e2(startResidual(res))
	}
	if res.Err != nil {
		s.Reason = res.Err.Error()
	}
	s.Series = make([][][2]string, len(res.Vars))
	for v := range res.Vars {
		s.Series[v] = make([][2]string, res.Degree+1)
		for k := 0; k <= res.Degree; k++ {
			re, im := res.Text(v, k)
			s.Series[v][k] = [2]string{re, im}
		}
	}
	return s
}

// startResidual is ||G(x(0), 0)||_1 at the start point: the result's, or
// the failure's when the run stopped before the result had it.
func startResidual(res *newton.Result) float64 {
	var f *newton.Failure
	if res.StartResidual == 0 && errors.As(res.Err, &f) {
		return f.StartResidual
	}
	return res.StartResidual
}

func writeSolveText(w io.Writer, arg string, sys *poly.System, prec mdops.Prec, degree int, results []*newton.Result, secs []float64) error {
	what := fmt.Sprintf("series to degree %d", degree)
	if degree == 0 {
		what = "roots refined"
	}
	fmt.Fprintf(w, "%s: %s in %d doubles, %s data, %s\n", arg, what, prec.N, prec.Kind(), solveCount(len(results), "start solution"))
	scale := newton.NewTermScale(sys)
	for k, res := range results {
		fmt.Fprintf(w, "\nsolution %d: ", k+1)
		if res.Converged {
			fmt.Fprintf(w, "converged in %d steps (%d refining x(0))", res.Steps, res.RefineSteps)
		} else {
			fmt.Fprintf(w, "NOT converged after %d steps: %v", res.Steps, res.Err)
		}
		fmt.Fprintf(w, "\n  residual %s, last update %s (relative to the size of the terms: of f, and of x), condition %s, %.3g s\n",
			e2(scale.Relative(res)), e2(res.Update), e2(res.Cond), secs[k])
		t := res.Times
		fmt.Fprintf(w, "  stages (s): evaluate %.3g, qr %.3g, qhb %.3g, backsub %.3g, update %.3g, residual %.3g\n",
			t.Evaluate.Seconds(), t.QR.Seconds(), t.QHB.Seconds(), t.BackSub.Seconds(), t.Update.Seconds(), t.Residual.Seconds())
		if !res.Converged {
			continue
		}
		for v, name := range res.Vars {
			for d := 0; d <= res.Degree; d++ {
				re, im := res.Text(v, d)
				if !strings.HasPrefix(re, "-") {
					re = " " + re
				}
				if !strings.HasPrefix(im, "-") {
					im = " " + im
				}
				fmt.Fprintf(w, "  %s t^%d : %s  %s\n", name, d, re, im)
			}
		}
	}
	return nil
}

// solutionOf returns the result as a solution of a PHCpack list: the point
// at t = 0 and, for d >= 1, the series; the multiplicity of the start, and
// its t when the system has no series parameter (PHCpack's continuation
// parameter, 1 in its lists of roots). err, rco and res are PHCpack's for
// the point x(0): err the max-norm of the last Newton correction of x(0),
// absolute (Result.PointUpdate); rco the inverse of the condition
// estimate of the Jacobian at x(0); res the max-norm of the system at
// x(0) (at t = 0), |z| = |Re z| + |Im z| as PHCpack takes it
// (phcResidual).
func solutionOf(sys *poly.System, res *newton.Result, start *solutions.Solution) solutions.Solution {
	mult := start.M
	if mult <= 0 {
		mult = 1
	}
	sol := solutions.Solution{M: mult, Names: res.Vars, Values: make([]poly.Rational, len(res.Vars)),
		Err: res.PointUpdate, HasDiag: true}
	if sys.Param == "" {
		sol.T.Re.Set(&start.T.Re)
		sol.T.Im.Set(&start.T.Im)
	}
	if res.Cond > 0 {
		sol.Rco = 1 / res.Cond
	}
	series := res.Series()
	for v := range series {
		sol.Values[v].Re.Set(&series[v][0].Re)
		sol.Values[v].Im.Set(&series[v][0].Im)
	}
	if res.Degree > 0 {
		sol.Series = series
	}
	sol.Res = phcResidual(sys, sol.Values, uint(4*53*res.N+256))
	return sol
}

// phcResidual returns PHCpack's res at x (at t = 0): max_i |Re f_i| + |Im
// f_i|, evaluated in big.Float at prec bits (exact rational arithmetic
// would be exact, and 4 times slower on cyclic7's 924 roots than the
// refinement; at 4 times the working precision the rounding is far below
// any residual the working precision can reach).
func phcResidual(sys *poly.System, x []poly.Rational, prec uint) float64 {
	type cplx struct{ re, im big.Float }
	set := func(z *cplx, r *poly.Rational) {
		z.re.SetPrec(prec).SetRat(&r.Re)
		z.im.SetPrec(prec).SetRat(&r.Im)
	}
	xs := make([]cplx, len(x))
	for v := range x {
		set(&xs[v], &x[v])
	}
	var t1, t2 big.Float
	t1.SetPrec(prec)
	t2.SetPrec(prec)
	mul := func(z, a *cplx) { // z *= a
		t1.Mul(&z.re, &a.re)
		t2.Mul(&z.im, &a.im)
		t1.Sub(&t1, &t2)
		t2.Mul(&z.re, &a.im)
		z.im.Mul(&z.im, &a.re)
		z.im.Add(&z.im, &t2)
		z.re.Set(&t1)
	}
	worst := 0.0
	var acc, term cplx
	for i := range sys.Polys {
		p := &sys.Polys[i]
		acc.re.SetPrec(prec).SetInt64(0)
		acc.im.SetPrec(prec).SetInt64(0)
		if len(p.Const) > 0 {
			set(&acc, &p.Const[0])
		}
		for j := range p.Terms {
			m := &p.Terms[j]
			if len(m.Coef) == 0 {
				continue
			}
			set(&term, &m.Coef[0])
			for q, v := range m.Vars {
				for range m.Pows[q] {
					mul(&term, &xs[v])
				}
			}
			acc.re.Add(&acc.re, &term.re)
			acc.im.Add(&acc.im, &term.im)
		}
		re, _ := acc.re.Abs(&acc.re).Float64()
		im, _ := acc.im.Abs(&acc.im).Float64()
		worst = max(worst, re+im)
	}
	return worst
}

// solveCount writes "1 start solution", "7 start solutions".
func solveCount(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
