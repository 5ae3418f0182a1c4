package solver

import (
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

// Newton's method on Taylor series for the emitted packages: Solver.Solve
// runs runtime/newton (the same driver as `mdgen solve`, so the same bits
// for the same system, precision, degree and start) on the Solver's own
// executor at the emitted degree, and on executors of the same back end's
// kind staged by runtime/newton at the lower working degrees of the
// staggering.

// Start is a start point: the values of the variables at t = 0, in the
// order of the system's variables, exact. Solve rounds each value once to
// the working precision (as `mdgen solve` does with a solution list), so
// that 1/3 is right to the last limb. Starts reads the list in the system
// file; Point and ComplexPoint make one from doubles.
type Start = []poly.Rational

// Point returns the start point with the given real values (exactly: every
// double is a rational).
func Point(values ...float64) Start {
	p := make(Start, len(values))
	for i, v := range values {
		setFloat(&p[i].Re, v)
	}
	return p
}

// ComplexPoint returns the start point with the given complex values
// (exactly); a package of real data refuses it when an imaginary part is
// not zero.
func ComplexPoint(values ...complex128) Start {
	p := make(Start, len(values))
	for i, v := range values {
		setFloat(&p[i].Re, real(v))
		setFloat(&p[i].Im, imag(v))
	}
	return p
}

// setFloat sets z to x; Inf and NaN, which no rational holds, become 0 and
// are caught by Newton as a start that is not a solution.
func setFloat(z *big.Rat, x float64) {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		z.SetInt64(0)
		return
	}
	z.SetFloat64(x)
}

// Starts returns the start solutions listed after the system in the
// package's system file (PHCpack's solution list, as `mdgen system` writes
// it for a Newton homotopy), or none. With a series parameter every one
// must be at t = 0 (the series are expanded there), as `mdgen solve`
// requires (solutions.ParseStarts).
func (s *Spec) Starts() ([]Start, error) {
	if s.Benchmark != "" {
		return nil, nil
	}
	_, starts, err := solutions.ParseStarts(s.Name, []byte(s.Text), poly.ParseOptions{Param: s.Param})
	return starts, err
}

// SolveOption configures one Solve or SolveAll call.
type SolveOption func(*solveOptions)

type solveOptions struct {
	degree   int // -1: the package's
	maxSteps int
	maxCond  float64
	progress func(newton.StepInfo)
}

// WithDegree computes the series to degree d <= the package's Degree
// instead of to Degree itself; d = 0 refines the roots only (PHCpack's
// phc -v, `mdgen solve -degree 0`). Only the emitted degree runs on the
// package's own executor; a lower one stages its plans on first use.
func WithDegree(d int) SolveOption { return func(o *solveOptions) { o.degree = d } }

// WithMaxSteps limits the Newton steps of one start, refinement included
// (`mdgen solve -steps`); 0 keeps newton.DefaultMaxSteps.
func WithMaxSteps(k int) SolveOption { return func(o *solveOptions) { o.maxSteps = k } }

// WithMaxCond sets the largest condition estimate of the Jacobian at t = 0
// that is accepted (newton.Options.MaxCond); 0 keeps the default,
// 2^(53 Precision / 2).
func WithMaxCond(c float64) SolveOption { return func(o *solveOptions) { o.maxCond = c } }

// WithProgress calls f after every Newton step (for progress output; it
// does not change the results).
func WithProgress(f func(newton.StepInfo)) SolveOption {
	return func(o *solveOptions) { o.progress = f }
}

// Result is the outcome of Newton's method from one start: the series of
// every variable, the residual, the condition number, the step counts and
// the six stage times (the embedded newton.Result: Coef, Text, Rat, Series,
// Residual, Cond, Update, Steps, Times, ...), and where it ran.
type Result struct {
	*newton.Result
	// Start is the 0-based index of the start in the call (0 for Solve).
	Start int
	// Backend is where the evaluation at the emitted degree ran.
	Backend Backend
	// LinearAlgebra is where the linear algebra ran (QR, Q^H b, back
	// substitution, the update): GPU when the GPU build's Newton back end
	// kept it on the device (GPUNewton), CPU otherwise.
	LinearAlgebra Backend
	// LinearAlgebraReason says why the linear algebra ran on the CPU
	// although the Solver runs on the GPU (a fatbin without the Newton
	// kernels, say: wraps ErrNoGPUNewton); nil otherwise.
	LinearAlgebraReason error
}

// Var returns the index of the variable called name, or -1.
func (r *Result) Var(name string) int {
	for v, n := range r.Vars {
		if n == name {
			return v
		}
	}
	return -1
}

// Float returns coefficient k of the series of variable v rounded to
// complex128 (the leading limbs; the imaginary part is 0 for real data).
// Coef has all the limbs, Text all the digits, Rat the exact value.
func (r *Result) Float(v, k int) complex128 {
	c := r.Coef(v, k)
	if r.Complex {
		return complex(c[0], c[r.N])
	}
	return complex(c[0], 0)
}

// newtonKey tells apart the Newton solvers a Solver keeps: one per set of
// options that change what runtime/newton stages or decides.
type newtonKey struct {
	degree   int
	maxSteps int
	maxCond  float64
}

type newtonSolver struct {
	ns      *newton.Solver
	release func() error // from GPUNewton, or nil
	la      Backend      // where the linear algebra runs
	reason  error        // why on the CPU, on a GPU Solver
}

// NewtonConfig is what GPUNewton gets: the solver on the GPU and what it
// runs with.
type NewtonConfig struct {
	Spec     *Spec
	Plan     *stager.Plan     // the plan of the emitted degree
	Executor backend.Executor // the solver's GPU executor, at the emitted degree
	Fatbin   []byte           // the kernels it was made with
	Device   int              // its CUDA device ordinal
	// Dev is the device the executor opened (solver.NewGPU's executor;
	// nil for another Spec.GPU), to load more kernels on: runtime/gpu's
	// Newton kernels (gpu.LoadNewtonKernels, then gpu.NewtonOptions).
	Dev     *cudadev.Device
	Workers int // WithWorkers (0: one per CPU)
	// ModuleTables says whether the Solver's executor runs on the job
	// tables baked into the fatbin (WithModuleTables): the executor of the
	// emitted degree that a back end makes may do the same.
	ModuleTables bool
}

// ErrNoGPUNewton is wrapped by an error of GPUNewton that leaves the
// Newton back end on the CPU without failing the solve (the fatbin has no
// linear-algebra kernels: an older emitted .cu, or WithFatbin of
// evaluation kernels only): the Solver then evaluates on the GPU and does
// the linear algebra on the CPU, the same bits, and Result says why.
var ErrNoGPUNewton = errors.New("no GPU Newton back end")

// GPUNewton is the seam of a Newton back end on the GPU. When it is not nil
// and the Solver runs on the GPU, Solve calls it once per set of options
// with the newton.Options the default path would use (NewExecutor set: the
// solver's own executor at the emitted degree, CPU executors below it), and
// it may change them (another NewExecutor, a back end that keeps the linear
// algebra on the device) and return a function that releases what it made
// (or nil). The GPU build sets it (from an init function in a file with the
// cuda build tag in this package: runtime/gpu cannot import it); every
// other build leaves it nil, and the CPU path never calls it. Whatever it
// does, the bits must be those of the CPU.
//
// The GPU build's GPUNewton (newton_cuda.go) loads the linear-algebra
// kernels from the package's fatbin (the emitted .cu carries them next to
// the evaluation kernels) and runs every working degree on GPU executors
// of that fatbin (the emitted degree on its baked tables, with
// ModuleTables): x, the Jacobians, the QR and the updates stay on the
// device, and Result.LinearAlgebra is GPU.
//
// With GPUNewton nil, a Solver on the GPU evaluates at the emitted degree
// on the GPU, the lower working degrees on the CPU, and does the linear
// algebra on the CPU: the same bits as everywhere (the GPU executor's
// outputs are the CPU's, bit for bit).
var GPUNewton func(cfg NewtonConfig, opt *newton.Options) (release func() error, err error)

// sharedExec is the Solver's executor lent to runtime/newton: the Solver
// closes it, not newton.
type sharedExec struct{ backend.Executor }

func (sharedExec) Close() error { return nil }

// newtonFor returns the Newton solver for the options (made on first use:
// the system rebuilt, the plans of every working degree staged).
func (s *Solver) newtonFor(o solveOptions) (*newtonSolver, error) {
	key := newtonKey{o.degree, o.maxSteps, o.maxCond}
	if ns, ok := s.newtons[key]; ok {
		return ns, nil
	}
	sys, err := s.spec.System()
	if err != nil {
		return nil, fmt.Errorf("%s: rebuilding the system: %w", s.spec.Name, err)
	}
	if o.degree > 0 && sys.Param == "" {
		return nil, fmt.Errorf("%s: the system has no series parameter (%d equations in %d unknowns): only root refinement (WithDegree(0)) applies",
			s.spec.Name, len(sys.Polys), len(sys.Vars))
	}
	own := s.exec
	ownHash := s.spec.PlanHash
	opt := newton.Options{Prec: s.spec.Prec, Degree: o.degree,
		MaxSteps: o.maxSteps, MaxCond: o.maxCond, Workers: s.opts.workers,
		NewExecutor: func(plan *stager.Plan, p mdops.Prec, workers int) (backend.Executor, error) {
			// The plan of the emitted degree (checked against PlanHash
			// when the Solver was made) runs on the Solver's executor:
			// the package's own tables, on its back end.
			if plan.Degree == s.spec.Degree && plan.Hash() == ownHash {
				return sharedExec{own}, nil
			}
			return cpu.New(plan, p, workers)
		}}
	var release func() error
	la, reason := CPU, error(nil)
	if s.backend == GPU && GPUNewton != nil {
		cfg := NewtonConfig{Spec: s.spec, Plan: s.exec.Plan(), Executor: s.exec, Fatbin: s.fatbin,
			Device: s.opts.device, Workers: s.opts.workers, ModuleTables: s.moduleTables}
		if g, ok := s.exec.(*gpuExecutor); ok {
			cfg.Dev = g.dev
		}
		gopt := opt
		release, err = GPUNewton(cfg, &gopt)
		switch {
		case errors.Is(err, ErrNoGPUNewton):
			reason = err // opt unchanged: the linear algebra on the CPU
		case err != nil:
			return nil, fmt.Errorf("%s: the GPU's Newton back end: %w", s.spec.Name, err)
		default:
			opt = gopt
			if opt.NewBackend != nil {
				la = GPU
			}
		}
	} else if s.backend == GPU {
		reason = fmt.Errorf("%w: this program was built without it (build tag cuda)", ErrNoGPUNewton)
	}
	ns, err := newton.New(sys, opt)
	if err == nil {
		err = ns.Prepare()
		if err != nil {
			ns.Close()
		}
	}
	if err != nil {
		if release != nil {
			err = errors.Join(err, release())
		}
		return nil, fmt.Errorf("%s: %w", s.spec.Name, err)
	}
	if s.newtons == nil {
		s.newtons = map[newtonKey]*newtonSolver{}
	}
	n := &newtonSolver{ns: ns, release: release, la: la, reason: reason}
	s.newtons[key] = n
	return n, nil
}

func (s *Solver) closeNewton() error {
	var errs []error
	for k, ns := range s.newtons {
		errs = append(errs, ns.ns.Close())
		if ns.release != nil {
			errs = append(errs, ns.release())
		}
		delete(s.newtons, k)
	}
	return errors.Join(errs...)
}

func (s *Solver) solveOptions(opts []SolveOption) (solveOptions, error) {
	o := solveOptions{degree: -1}
	for _, f := range opts {
		f(&o)
	}
	if o.degree < 0 {
		o.degree = s.spec.Degree
	}
	if o.degree > s.spec.Degree {
		return o, fmt.Errorf("%s: degree %d: the package was emitted for series to degree %d (emit it again with -degree %d)",
			s.spec.Name, o.degree, s.spec.Degree, o.degree)
	}
	if o.maxSteps < 0 {
		return o, fmt.Errorf("%s: negative step limit %d", s.spec.Name, o.maxSteps)
	}
	if o.maxCond < 0 || math.IsNaN(o.maxCond) {
		return o, fmt.Errorf("%s: condition limit %v", s.spec.Name, o.maxCond)
	}
	return o, nil
}

// Solve runs Newton's method on Taylor series from start, the values of the
// variables at t = 0: first it refines x(0) to the working precision, then
// it computes the series x(t) = x_0 + x_1 t + ... + x_d t^d of the solution
// path (d = Degree, or WithDegree), every coefficient to the working
// precision. It is `mdgen solve` for one start, with the same bits: the
// same driver (runtime/newton) on the same staged plans, with the
// package's own executor at the emitted degree.
//
// The error is not nil for bad input (a start of the wrong length, an
// imaginary part with real data, a system Newton cannot take: fewer
// equations than unknowns, no series parameter with d > 0), with a nil
// Result; and for a Newton failure, with the Result of the last iterate:
// then it wraps the *newton.Failure, so that errors.Is(err,
// newton.ErrSingular), ErrIllConditioned, ErrDiverging, ErrStalled and ErrStepLimit
// tell the kind (Result.Converged is false and Result.Err holds it too).
//
// On the CPU (and on the GPU with the linear algebra on the CPU) Solve uses
// the Solver's executor: after it, Value and Deriv are those of Newton's
// last evaluation at the emitted degree. The GPU's Newton back end runs
// executors of its own (on the same fatbin) and leaves the Solver's as it
// was.
func (s *Solver) Solve(start Start, opts ...SolveOption) (*Result, error) {
	o, err := s.solveOptions(opts)
	if err != nil {
		return nil, err
	}
	return s.solve(0, start, o)
}

// SolveAll runs Solve from every start, in order, with the same options
// (plans staged once). A bad start stops it with an error that names the
// start (1-based, as `mdgen solve` counts them) and no results. Otherwise
// it returns a Result for every start, and an error that joins one error
// per start that did not converge ("start solution 2: diverging: ...").
func (s *Solver) SolveAll(starts []Start, opts ...SolveOption) ([]*Result, error) {
	o, err := s.solveOptions(opts)
	if err != nil {
		return nil, err
	}
	out := make([]*Result, len(starts))
	var fails []error
	for k, start := range starts {
		res, err := s.solve(k, start, o)
		if res == nil {
			return nil, fmt.Errorf("start solution %d: %w", k+1, err)
		}
		out[k] = res
		if err != nil {
			fails = append(fails, fmt.Errorf("start solution %d: %w", k+1, res.Err))
		}
	}
	return out, errors.Join(fails...)
}

// SolveLimbs is Solve from a start already rounded to the working
// precision: value v at x0[v*W : (v+1)*W] (W = Precision doubles, 2 *
// Precision for complex data: real limbs, then imaginary ones), as in
// newton.Solver.SolveLimbs; for instance the coefficients of t^0 of an
// earlier Result (Coef(v, 0)).
func (s *Solver) SolveLimbs(x0 []float64, opts ...SolveOption) (*Result, error) {
	o, err := s.solveOptions(opts)
	if err != nil {
		return nil, err
	}
	return s.run(0, o, func(ns *newton.Solver) (*newton.Result, error) { return ns.SolveLimbs(x0) })
}

func (s *Solver) solve(k int, start Start, o solveOptions) (*Result, error) {
	sys := s.exec.Plan()
	if len(start) != sys.NumVars {
		return nil, fmt.Errorf("%s: the start has %d values, the system %d unknowns", s.spec.Name, len(start), sys.NumVars)
	}
	return s.run(k, o, func(ns *newton.Solver) (*newton.Result, error) { return ns.Solve(start) })
}

// run makes (or finds) the Newton solver of the options and runs solve on it.
func (s *Solver) run(k int, o solveOptions, solve func(*newton.Solver) (*newton.Result, error)) (*Result, error) {
	n, err := s.newtonFor(o)
	if err != nil {
		return nil, err
	}
	ns := n.ns
	ns.SetProgress(o.progress)
	defer ns.SetProgress(nil)
	res, err := solve(ns)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.spec.Name, err)
	}
	out := &Result{Result: res, Start: k, Backend: s.backend, LinearAlgebra: n.la, LinearAlgebraReason: n.reason}
	if !res.Converged {
		return out, res.Err
	}
	return out, nil
}

// DiffResults returns nil when got and want hold the same bits (the
// series, the residual, the condition number, the last update and the step
// counts), else the first difference: how an emitted package's tests check
// Solve against runtime/newton run directly, and a GPU's results against
// the CPU's.
func DiffResults(got, want *newton.Result) error {
	bits := func(x float64) uint64 { return math.Float64bits(x) }
	switch {
	case got.Converged != want.Converged:
		return fmt.Errorf("converged %v, want %v", got.Converged, want.Converged)
	case got.Steps != want.Steps || got.RefineSteps != want.RefineSteps:
		return fmt.Errorf("%d steps (%d refining), want %d (%d)", got.Steps, got.RefineSteps, want.Steps, want.RefineSteps)
	case bits(got.Residual) != bits(want.Residual):
		return fmt.Errorf("residual %v, want %v", got.Residual, want.Residual)
	case bits(got.Cond) != bits(want.Cond):
		return fmt.Errorf("condition %v, want %v", got.Cond, want.Cond)
	case bits(got.Update) != bits(want.Update):
		return fmt.Errorf("update %v, want %v", got.Update, want.Update)
	case got.Degree != want.Degree || got.N != want.N || got.Complex != want.Complex || len(got.X) != len(want.X):
		return fmt.Errorf("degree %d, %d doubles, complex %v, %d doubles of series; want %d, %d, %v, %d",
			got.Degree, got.N, got.Complex, len(got.X), want.Degree, want.N, want.Complex, len(want.X))
	}
	w := got.W()
	for i := range want.X {
		if bits(got.X[i]) != bits(want.X[i]) {
			v, k := i/w/(got.Degree+1), i/w%(got.Degree+1)
			name := fmt.Sprint(v)
			if v < len(got.Vars) {
				name = got.Vars[v]
			}
			return fmt.Errorf("%s, coefficient of t^%d, double %d: %v, want %v", name, k, i%w, got.X[i], want.X[i])
		}
	}
	return nil
}
