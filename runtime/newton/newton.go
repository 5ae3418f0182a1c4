package newton

import (
	"errors"
	"fmt"
	"math"
	goruntime "runtime"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
)

// Options configures a Solver.
type Options struct {
	// Prec is the precision: a generated one (Prec.Check), complex data
	// when the system has complex coefficients.
	Prec   mdops.Prec
	Degree int // d >= 0: the series are computed mod t^(d+1); 0 refines x(0) only
	// MaxSteps limits the Newton steps of one Solve, refinement steps
	// included; 0 means DefaultMaxSteps(Prec, Degree).
	MaxSteps int
	// Workers is the number of goroutines of the executor and of the
	// linear algebra (<= 0: GOMAXPROCS). The results do not depend on it.
	Workers int
	// MaxCond is the largest condition estimate of A_0 = J(x(0)) accepted;
	// 0 means 1/sqrt(u), sqrt(u) rounded up to a power of two (u =
	// Prec.UnitRoundoff(); at least half the digits survive; PHCpack's
	// 1e-8 on the inverse condition number in double precision).
	MaxCond float64
	// RefineTol, when positive, ends the refinement of x(0) (phase 1)
	// also after a step whose relative update is at most RefineTol: the
	// error left is about the square of that update over the distance to
	// the nearest other solution. A path tracker corrects its points this
	// far (its predictor needs no more) and refines only the endpoint to
	// the working precision.
	RefineTol float64
	// NoFinalResidual, with Degree 0, leaves out the evaluation at the
	// final x(0) that gives Result.Residual (||G(x(0), 0)||_1 there):
	// Residual is then the residual of the last linear system, as for
	// Degree > 0. A path tracker's corrector, which does not read it,
	// saves an evaluation per solve.
	NoFinalResidual bool
	// NoResidual leaves out item 4 of every step (the residual of the
	// linear system, a product A_0 dx_k and a 1-norm per block solved):
	// Result.Residual (unless the final residual of Degree 0 gives it),
	// StepInfo.Residual and Failure.Residual are then NaN. No decision of
	// the driver reads that residual, so the iterates and every other
	// result keep their bits. A path tracker, which does not read it
	// either, saves about a tenth of each solve (runtime/track).
	NoResidual bool
	// NoStageTimes leaves out the stage clock: Result.Times is zero. The
	// clock reads at every stage boundary cost about a tenth of a Newton
	// step of a small system at one double; a path tracker, which does
	// not read the times, leaves them out.
	NoStageTimes bool
	// Plans, when not nil, stages the system (it must be Plans.System()):
	// solvers of one system share its Plans (a tracker's workers); nil:
	// the solver stages its own.
	Plans *stager.Plans
	// NewExecutor makes the executor of a plan; nil means cpu.New.
	NewExecutor func(plan *stager.Plan, p mdops.Prec, workers int) (backend.Executor, error)
	// Progress, when not nil, is called after every Newton step.
	Progress func(StepInfo)
	// NewBackend makes the back end that does the numeric work (see
	// Backend); nil means the CPU's. runtime/gpu's keeps every buffer on
	// the GPU (with NewExecutor making its GPU executors). Both give the
	// same bits.
	NewBackend func(backend.NewtonConfig) (Backend, error)
}

// StepInfo describes one finished Newton step (for progress output).
type StepInfo struct {
	Step      int           // 1-based, refinement steps included
	Refine    bool          // a step of the refinement of x(0)
	Degree    int           // the working degree w
	Update    float64       // max |dx| / max |x|
	UpdateOld float64       // the same over the coefficients the previous step had
	Residual  float64       // residual of the linear system (see Result.Residual)
	Blocks    int           // w + 1
	Skipped   int           // blocks whose right-hand side was below the precision
	Elapsed   time.Duration // since the start of Solve
}

// DefaultMaxSteps returns the default step limit: ceil(log2(53 prec)) + 4
// steps to refine x(0) (quadratic convergence from any start with a few
// correct bits), one step per degree of the staggered sequence up to d,
// and 4 more steps at degree d.
func DefaultMaxSteps(prec, d int) int {
	refine := int(math.Ceil(math.Log2(53*float64(max(prec, 1))))) + 4
	if d == 0 {
		return refine
	}
	return refine + len(Stagger(d)) - 1 + 4
}

// Stagger returns the working degrees of Newton on series up to d: 0, then
// w <- min(w + 1 + w/2, d) until d (0, 1, 2, 4, 7, 11, 17, 26, 40, 61, ...).
func Stagger(d int) []int {
	ws := []int{0}
	for w := 0; w < d; {
		w += min(1+w/2, d-w) // not min(w+1+w/2, d): it overflows near math.MaxInt
		ws = append(ws, w)
	}
	return ws
}

// Solver runs Newton's method on Taylor series for one system at one
// precision and degree. It stages one plan and makes one executor per
// distinct working degree, on first use, and keeps them for later steps
// and later start points. A Solver is not safe for concurrent use.
type Solver struct {
	sys     *poly.System
	opt     Options
	n, m    int // unknowns, equations
	workers int

	execs   map[int]backend.Executor
	slots   map[int]*stager.CoefSlots // the executors' coefficient slots (coef.go), on first use
	targets [][]coefTargets           // where each coefficient goes (coef.go), after Prepare
	// paramsOK: every executor takes the ParamCoefs paramsFor (SetParam;
	// checked once for each).
	paramsFor *backend.ParamCoefs
	paramsOK  bool
	// prepared: every executor of Stagger(Degree) is made (Prepare).
	prepared bool
	setup    time.Duration
	be       Backend // made on the first Solve
	driver   Driver  // the run state of the solves (run.go)
	// whole is the solve being run, reused so that its Steps keep their
	// memory (a WholeSolver appends to them).
	whole WholeSolve

	// u is the unit roundoff (Prec.UnitRoundoff), sqrtU its square root
	// rounded up to a power of two: 2^(-53N/2), the exponent truncated.
	u, sqrtU float64
}

// SystemIsComplex reports whether a coefficient of sys has an imaginary part.
func SystemIsComplex(sys *poly.System) bool {
	cplx := func(s poly.Series) bool {
		for i := range s {
			if !s[i].IsReal() {
				return true
			}
		}
		return false
	}
	for i := range sys.Polys {
		p := &sys.Polys[i]
		if cplx(p.Const) {
			return true
		}
		for j := range p.Terms {
			if cplx(p.Terms[j].Coef) {
				return true
			}
		}
	}
	return false
}

// New prepares a Solver for sys (m equations in n unknowns, m >= n; the
// series parameter is sys.Param).
func New(sys *poly.System, opt Options) (*Solver, error) {
	if sys == nil {
		return nil, errors.New("newton: nil system")
	}
	n, m := len(sys.Vars), len(sys.Polys)
	if n == 0 {
		return nil, errors.New("newton: the system has no unknowns")
	}
	if m < n {
		return nil, fmt.Errorf("newton: %d equations in %d unknowns (%s): need at least as many equations as unknowns", m, n, varList(sys.Vars))
	}
	if opt.Degree < 0 {
		return nil, fmt.Errorf("newton: negative degree %d", opt.Degree)
	}
	if opt.Plans != nil && opt.Plans.System() != sys {
		return nil, errors.New("newton: Options.Plans stage another system")
	}
	if !opt.Prec.Complex && SystemIsComplex(sys) {
		return nil, errors.New("newton: the system has complex coefficients: complex data needed")
	}
	if err := opt.Prec.Check(); err != nil {
		return nil, fmt.Errorf("newton: %w", err)
	}
	if _, ok := la.KernelsFor(opt.Prec.N); !ok {
		return nil, fmt.Errorf("newton: no linear algebra for %d doubles", opt.Prec.N)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = goruntime.GOMAXPROCS(0)
	}
	s := &Solver{sys: sys, opt: opt, n: n, m: m, workers: workers,
		execs: map[int]backend.Executor{}, slots: map[int]*stager.CoefSlots{}}
	s.u = opt.Prec.UnitRoundoff()
	s.sqrtU = HalfPrecision(s.u)
	if s.opt.MaxCond == 0 {
		s.opt.MaxCond = 1 / s.sqrtU
	}
	if s.opt.MaxSteps <= 0 {
		s.opt.MaxSteps = DefaultMaxSteps(opt.Prec.N, opt.Degree)
	}
	if s.opt.NewExecutor == nil {
		s.opt.NewExecutor = func(plan *stager.Plan, p mdops.Prec, workers int) (backend.Executor, error) {
			return cpu.New(plan, p, workers)
		}
	}
	return s, nil
}

func varList(vs []string) string {
	const most = 8
	out := ""
	for i, v := range vs {
		if i == most {
			return out + ", ..."
		}
		if i > 0 {
			out += ", "
		}
		out += v
	}
	return out
}

// Options returns the options in effect (defaults filled in).
func (s *Solver) Options() Options { return s.opt }

// SetProgress replaces Options.Progress (nil: none), for the next Solve.
func (s *Solver) SetProgress(f func(StepInfo)) { s.opt.Progress = f }

// SetRefineTol replaces Options.RefineTol (0: refine x(0) to the working
// precision), for the next Solve.
func (s *Solver) SetRefineTol(tol float64) { s.opt.RefineTol = tol }

// Workers returns the worker count in effect.
func (s *Solver) Workers() int { return s.workers }

// Setup returns the time spent staging plans and making executors so far.
func (s *Solver) Setup() time.Duration { return s.setup }

// Prepare stages the plans and makes the executors of every working degree
// up to the solver's degree now, instead of on first use (so that the
// first Solve's times hold Newton's work only).
func (s *Solver) Prepare() error {
	if s.prepared {
		return nil
	}
	// The executors of every working degree live together: their sum must
	// fit, checked before the first is made.
	ws, p := Stagger(s.opt.Degree), s.opt.Prec
	var err error
	if s.opt.Plans != nil {
		err = s.opt.Plans.CheckMemoryTogether(ws, p.N, p.Complex)
	} else {
		err = stager.CheckMemoryTogether(s.sys, ws, p.N, p.Complex)
	}
	if err != nil {
		return err
	}
	for _, w := range ws {
		if _, err := s.exec(w); err != nil {
			return err
		}
	}
	s.prepared = true
	return nil
}

// Close releases the back end and the executors.
func (s *Solver) Close() error {
	var first error
	if s.be != nil {
		first = s.be.Close()
		s.be = nil
	}
	for w, e := range s.execs {
		if err := e.Close(); err != nil && first == nil {
			first = err
		}
		delete(s.execs, w)
		delete(s.slots, w)
	}
	s.prepared = false
	s.targets = nil
	s.paramsFor, s.paramsOK = nil, false
	return first
}

// exec returns the executor of working degree w, staging its plan on first
// use.
func (s *Solver) exec(w int) (backend.Executor, error) {
	if e, ok := s.execs[w]; ok {
		return e, nil
	}
	t0 := time.Now()
	var plan *stager.Plan
	var err error
	if s.opt.Plans != nil {
		plan, err = s.opt.Plans.Stage(w)
	} else {
		plan, err = stager.Stage(s.sys, w)
	}
	if err != nil {
		return nil, err
	}
	e, err := s.opt.NewExecutor(plan, s.opt.Prec, s.workers)
	if err != nil {
		return nil, err
	}
	s.execs[w] = e
	s.setup += time.Since(t0)
	return e, nil
}

// Solve runs Newton's method from start, the values of the variables at
// t = 0 (in the order of the system's variables), rounded once to the
// working precision. The error is for bad input only (a wrong dimension, an
// imaginary part with real data, a failure to stage); a Newton failure is
// in Result.Err with Result.Converged false.
func (s *Solver) Solve(start []poly.Rational) (*Result, error) {
	if len(start) != s.n {
		return nil, fmt.Errorf("newton: the start has %d values, the system %d unknowns (%s)", len(start), s.n, varList(s.sys.Vars))
	}
	if !s.opt.Prec.Complex {
		for v := range start {
			if !start[v].IsReal() {
				return nil, fmt.Errorf("newton: the start value of %s has an imaginary part: complex data needed", s.sys.Vars[v])
			}
		}
	}
	x0 := make([]float64, s.n*s.opt.Prec.Width())
	roundStart(x0, start, s.opt.Prec)
	return s.SolveLimbs(x0)
}

// SolveLimbs is Solve with the start already rounded: value v at
// x0[v*W:(v+1)*W] (W = N, or 2N for complex data).
func (s *Solver) SolveLimbs(x0 []float64) (*Result, error) {
	if w := s.opt.Prec.Width(); len(x0) != s.n*w {
		return nil, fmt.Errorf("newton: the start has %d doubles, want %d (%d unknowns of %d)", len(x0), s.n*w, s.n, w)
	}
	// Stage what this solve needs before the clock of the stages starts.
	if err := s.Prepare(); err != nil {
		return nil, err
	}
	if s.be == nil {
		c := backend.NewtonConfig{Sys: s.sys, Prec: s.opt.Prec, Degree: s.opt.Degree,
			Vars: s.n, Eqs: s.m, Workers: s.workers, Exec: s.exec}
		var be Backend
		var err error
		if s.opt.NewBackend != nil {
			be, err = s.opt.NewBackend(c)
		} else {
			be, err = cpu.NewNewton(c)
		}
		if err != nil {
			return nil, err
		}
		s.be = be
	}
	res := &Result{N: s.opt.Prec.N, Complex: s.opt.Prec.Complex, Degree: s.opt.Degree, Vars: s.sys.Vars}
	ws := &s.whole
	*ws = WholeSolve{X0: x0, Settings: s.settings(), Result: res, Steps: ws.Steps[:0]}
	defer func() { ws.X0, ws.Result = nil, nil }() // the caller's
	if wb, ok := s.be.(WholeSolver); ok {
		err := wb.SolveWhole(ws)
		if p := s.opt.Progress; p != nil {
			for _, si := range ws.Steps {
				p(si)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("newton: %w", err)
		}
		return res, nil
	}
	if err := s.driver.drive(s.be, ws, s.opt.Progress, false); err != nil {
		return nil, err
	}
	return res, nil
}

// settings returns what the driver reads of the Solver for a solve now.
func (s *Solver) settings() Settings {
	o := &s.opt
	return Settings{Degree: o.Degree, MaxSteps: o.MaxSteps, MaxCond: o.MaxCond, RefineTol: o.RefineTol,
		NoResidual: o.NoResidual, NoFinalResidual: o.NoFinalResidual, NoStageTimes: o.NoStageTimes, U: s.u, SqrtU: s.sqrtU}
}

// Backend returns the back end of the solves (nil before the first).
func (s *Solver) Backend() Backend { return s.be }
