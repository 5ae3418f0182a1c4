package newton

import (
	"errors"
	"fmt"
	"math"
	goruntime "runtime"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	mdrt "github.com/mdgen/mdgen/runtime"
	"github.com/mdgen/mdgen/stager"
)

// Options configures a Solver.
type Options struct {
	Prec    int  // doubles per number: a generated precision (1, 2, 3, 4, 5, 8, 10, 16)
	Complex bool // complex data (needed when the system has complex coefficients)
	Degree  int  // d >= 0: the series are computed mod t^(d+1); 0 refines x(0) only
	// MaxSteps limits the Newton steps of one Solve, refinement steps
	// included; 0 means DefaultMaxSteps(Prec, Degree).
	MaxSteps int
	// Workers is the number of goroutines of the executor and of the
	// linear algebra (<= 0: GOMAXPROCS). The results do not depend on it.
	Workers int
	// MaxCond is the largest condition estimate of A_0 = J(x(0)) accepted;
	// 0 means 2^(53 Prec / 2) (at least half the digits survive; PHCpack's
	// 1e-8 on the inverse condition number in double precision).
	MaxCond float64
	// NewExecutor makes the executor of a plan; nil means runtime.NewCPU.
	NewExecutor func(plan *stager.Plan, n int, complex bool, workers int) (mdrt.Executor, error)
	// Progress, when not nil, is called after every Newton step.
	Progress func(StepInfo)
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
		w = min(w+1+w/2, d)
		ws = append(ws, w)
	}
	return ws
}

// Solver runs Newton's method on Taylor series for one system at one
// precision and degree. It stages one plan and makes one executor per
// distinct working degree, on first use, and keeps them for later steps
// and later start points. A Solver is not safe for concurrent use.
type Solver struct {
	sys     *stager.System
	opt     Options
	n, m    int // unknowns, equations
	N, W    int
	workers int
	k       la.Kernels
	addTo   func(dst, src []float64)

	newQR   func(m, n int, a []float64, lda, workers int) (la.Factorization, error)
	mulSubs func(count, m, n int, a []float64, lda, strideA int, x []float64, strideX int, b []float64, strideB int, workers int)
	norm1   func(x []float64) float64

	execs map[int]mdrt.Executor
	setup time.Duration

	u, sqrtU float64 // 2^(-53N), 2^(-53N/2)
}

// SystemIsComplex reports whether a coefficient of sys has an imaginary part.
func SystemIsComplex(sys *stager.System) bool {
	cplx := func(s stager.Series) bool {
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
func New(sys *stager.System, opt Options) (*Solver, error) {
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
	if !opt.Complex && SystemIsComplex(sys) {
		return nil, errors.New("newton: the system has complex coefficients: complex data needed")
	}
	sk, ok := mdops.SeriesKernelsFor(opt.Prec)
	if !ok {
		return nil, fmt.Errorf("newton: no generated kernels for %d doubles (generated: %v)", opt.Prec, mdrt.GeneratedPrecisions())
	}
	lk, ok := la.KernelsFor(opt.Prec)
	if !ok {
		return nil, fmt.Errorf("newton: no linear algebra for %d doubles", opt.Prec)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = goruntime.GOMAXPROCS(0)
	}
	s := &Solver{sys: sys, opt: opt, n: n, m: m, N: opt.Prec, W: opt.Prec, workers: workers, k: lk,
		execs: map[int]mdrt.Executor{}}
	if opt.Complex {
		s.W = 2 * opt.Prec
		s.addTo = sk.AddToComplex
		s.newQR, s.mulSubs, s.norm1 = lk.NewQRComplex, lk.MulSubBatchComplex, lk.Norm1Complex
	} else {
		s.addTo = sk.AddTo
		s.newQR, s.mulSubs, s.norm1 = lk.NewQR, lk.MulSubBatch, lk.Norm1
	}
	s.u = math.Ldexp(1, -53*opt.Prec)
	s.sqrtU = math.Ldexp(1, -53*opt.Prec/2)
	if s.opt.MaxCond == 0 {
		s.opt.MaxCond = 1 / s.sqrtU
	}
	if s.opt.MaxSteps <= 0 {
		s.opt.MaxSteps = DefaultMaxSteps(opt.Prec, opt.Degree)
	}
	if s.opt.NewExecutor == nil {
		s.opt.NewExecutor = func(plan *stager.Plan, n int, complex bool, workers int) (mdrt.Executor, error) {
			return mdrt.NewCPU(plan, n, complex, workers)
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

// Workers returns the worker count in effect.
func (s *Solver) Workers() int { return s.workers }

// Setup returns the time spent staging plans and making executors so far.
func (s *Solver) Setup() time.Duration { return s.setup }

// Prepare stages the plans and makes the executors of every working degree
// up to the solver's degree now, instead of on first use (so that the
// first Solve's times hold Newton's work only).
func (s *Solver) Prepare() error {
	for _, w := range Stagger(s.opt.Degree) {
		if _, err := s.exec(w); err != nil {
			return err
		}
	}
	return nil
}

// Close releases the executors.
func (s *Solver) Close() error {
	var first error
	for w, e := range s.execs {
		if err := e.Close(); err != nil && first == nil {
			first = err
		}
		delete(s.execs, w)
	}
	return first
}

// exec returns the executor of working degree w, staging its plan on first
// use.
func (s *Solver) exec(w int) (mdrt.Executor, error) {
	if e, ok := s.execs[w]; ok {
		return e, nil
	}
	t0 := time.Now()
	plan, err := stager.Stage(s.sys, w)
	if err != nil {
		return nil, err
	}
	e, err := s.opt.NewExecutor(plan, s.N, s.opt.Complex, s.workers)
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
func (s *Solver) Solve(start []stager.Rational) (*Result, error) {
	if len(start) != s.n {
		return nil, fmt.Errorf("newton: the start has %d values, the system %d unknowns (%s)", len(start), s.n, varList(s.sys.Vars))
	}
	if !s.opt.Complex {
		for v := range start {
			if !start[v].IsReal() {
				return nil, fmt.Errorf("newton: the start value of %s has an imaginary part: complex data needed", s.sys.Vars[v])
			}
		}
	}
	x0 := make([]float64, s.n*s.W)
	roundStart(x0, start, s.N, s.opt.Complex)
	return s.SolveLimbs(x0)
}

// SolveLimbs is Solve with the start already rounded: value v at
// x0[v*W:(v+1)*W] (W = N, or 2N for complex data).
func (s *Solver) SolveLimbs(x0 []float64) (*Result, error) {
	if len(x0) != s.n*s.W {
		return nil, fmt.Errorf("newton: the start has %d doubles, want %d (%d unknowns of %d)", len(x0), s.n*s.W, s.n, s.W)
	}
	// Stage what this solve needs before the clock of the stages starts.
	if err := s.Prepare(); err != nil {
		return nil, err
	}
	r := s.newRun(x0)
	r.run()
	return r.res, nil
}

// run holds the state of one Solve: flat buffers in the layouts of the
// executor (x) and of la (A, b, dx, y).
type run struct {
	s   *Solver
	res *Result
	d   int

	x  []float64 // n series of d+1 coefficients: (v*(d+1)+k)*W
	a  []float64 // A_k, k = 0..d: m x n column-major, (k*m*n + i + j*m)*W
	b  []float64 // b_k, k = 0..d: (k*m + i)*W
	dx []float64 // dx_k, k = 0..d: (k*n + j)*W
	y  []float64 // m numbers: Q^H b_k, then dx_k in y[:n]
	rb []float64 // d+1 vectors of m numbers: b_k - A_0 dx_k (the residual)

	nb      []float64 // ||b_k||_1 at its skip test
	skipped []bool

	qr      la.Factorization // QR of A_0 at the current x(0), when qrValid
	qrValid bool
	cond    float64
	a0norm  float64 // ||A_0||_1

	start time.Time
	steps int
}

func (s *Solver) newRun(x0 []float64) *run {
	d, n, m, W := s.opt.Degree, s.n, s.m, s.W
	r := &run{s: s, d: d,
		x:       make([]float64, n*(d+1)*W),
		a:       make([]float64, (d+1)*m*n*W),
		b:       make([]float64, (d+1)*m*W),
		dx:      make([]float64, (d+1)*n*W),
		y:       make([]float64, m*W),
		rb:      make([]float64, (d+1)*m*W),
		nb:      make([]float64, d+1),
		skipped: make([]bool, d+1),
		start:   time.Now(),
	}
	for v := 0; v < n; v++ {
		copy(r.x[v*(d+1)*W:v*(d+1)*W+W], x0[v*W:(v+1)*W])
	}
	r.res = &Result{N: s.N, Complex: s.opt.Complex, Degree: d, Vars: s.sys.Vars, X: r.x}
	return r
}

// stepOut is what one Newton step reports to the stop rule.
type stepOut struct {
	delta    float64 // max |dx_k|, k = 0..w, relative to max |x| after the update
	deltaOld float64 // the same over k = 0..wPrev (the coefficients the previous step had)
	residual float64
	fnorm    float64 // ||b||_1 = ||G(x(t), t) mod t^(w+1)||_1 before the update
	skipped  int
}

// run is the driver: refinement of x(0), then Newton on series with
// staggered degrees (see the package documentation for the stop rule).
func (r *run) run() {
	s, res := r.s, r.res
	// Phase 1: refine x(0) at degree 0.
	prev := -1.0 // the delta of the step before (none: -1)
	for {
		if r.steps >= s.opt.MaxSteps {
			r.fail(&Failure{Kind: StepLimit, Step: r.steps, Degree: 0, Refine: true, Update: res.Update, Residual: res.Residual, FNorm: res.FNorm})
			return
		}
		r.steps++
		out, f := r.step(0, 0, true)
		if r.steps == 1 {
			res.StartResidual = out.fnorm
		}
		if f != nil {
			r.fail(f)
			return
		}
		r.report(0, true, out)
		if r.converged(out.delta, prev) {
			break
		}
		if f := r.diverging(out, prev, 0, true); f != nil {
			r.fail(f)
			return
		}
		prev = out.delta
	}
	res.RefineSteps = r.steps
	if r.d == 0 {
		// Root refinement: the residual is ||G(x(0), 0)||_1 at the final
		// x(0) (PHCpack's res), one more evaluation at degree 0 unless the
		// last step left x(0) as it was.
		if !r.skipped[0] {
			t0 := time.Now()
			r.evaluate(0, false)
			res.Residual = s.norm1(r.b[:s.m*s.W])
			res.Times.Residual += time.Since(t0)
		}
		res.Converged, res.Steps, res.Cond = true, r.steps, r.cond
		return
	}
	// Phase 2: Newton on series, w = 1, 2, 4, 7, 11, ... up to d; x(0) frozen.
	// prev and prevOld: the delta and deltaOld of the step before (the
	// last refinement step's delta before the first series step).
	prev = res.Update
	prevOld := prev
	for w := 0; ; {
		if r.steps >= s.opt.MaxSteps {
			r.fail(&Failure{Kind: StepLimit, Step: r.steps, Degree: w, Update: res.Update, Residual: res.Residual, FNorm: res.FNorm})
			return
		}
		wPrev := w
		w = min(w+1+w/2, r.d)
		r.steps++
		out, f := r.step(w, wPrev, false)
		if f != nil {
			r.fail(f)
			return
		}
		r.report(w, false, out)
		// deltaOld: the coefficients the previous step had (all of them
		// from the second step at d on); the new ones are exact to rounding
		// when the old ones were (see the doc).
		if w == r.d && r.converged(out.deltaOld, prevOld) {
			break
		}
		prevOld = out.deltaOld
		if f := r.diverging(out, prev, w, false); f != nil {
			r.fail(f)
			return
		}
		prev = out.delta
	}
	res.Converged = true
	res.Steps = r.steps
	res.Cond = r.cond
}

// converged is the stop rule at the full degree: the relative update of
// the coefficients the previous step had is below 2^10 u max(1, cond) (clean
// convergence), or it is below half the precision and no longer decreased
// by a factor 16 over that of the previous step (the rounding floor of the
// evaluation); prev < 0: no previous step.
func (r *run) converged(deltaOld, prev float64) bool {
	if deltaOld <= 1024*r.s.u*max(1, r.cond) {
		return true
	}
	return prev >= 0 && deltaOld > prev/16 && deltaOld <= r.s.sqrtU
}

// diverging reports a growing update: over the coefficients that the
// previous step had too, larger than the previous step's update and above
// half the precision.
func (r *run) diverging(out stepOut, prev float64, w int, refine bool) *Failure {
	if prev >= 0 && out.deltaOld > prev && out.deltaOld > r.s.sqrtU {
		return &Failure{Kind: Diverging, Step: r.steps, Degree: w, Refine: refine, Update: out.deltaOld, PrevUpdate: prev,
			Residual: out.residual, FNorm: out.fnorm, StartResidual: r.res.StartResidual, Cond: r.cond}
	}
	return nil
}

func (r *run) fail(f *Failure) {
	r.res.Converged = false
	r.res.Err = f
	r.res.Steps = r.steps
	r.res.Cond = r.cond
	if f.Cond == 0 {
		f.Cond = r.cond
	}
	if f.StartResidual == 0 {
		f.StartResidual = r.res.StartResidual
	}
}

func (r *run) report(w int, refine bool, out stepOut) {
	r.res.Update = out.delta
	r.res.Residual = out.residual
	r.res.FNorm = out.fnorm
	if p := r.s.opt.Progress; p != nil {
		p(StepInfo{Step: r.steps, Refine: refine, Degree: w, Update: out.delta, UpdateOld: out.deltaOld, Residual: out.residual,
			Blocks: w + 1, Skipped: out.skipped, Elapsed: time.Since(r.start)})
	}
}

// step is one Newton step at working degree w; wPrev is the degree of the
// previous step. In the refinement (refine, w = 0) x(0) is updated; in the
// series phase block 0 is skipped (x(0) frozen). The order of the
// operations is the package documentation's, item by item.
func (r *run) step(w, wPrev int, refine bool) (stepOut, *Failure) {
	s := r.s
	d, n, m, W, N := r.d, s.n, s.m, s.W, s.N
	times := &r.res.Times
	var out stepOut

	// 1. Evaluate and differentiate at x(t) mod t^(w+1).
	t0 := time.Now()
	r.evaluate(w, true)
	out.fnorm = s.norm1(r.b[:(w+1)*m*W])
	times.Evaluate += time.Since(t0)
	if bmax := maxAbs(r.b[:(w+1)*m*W], N, s.opt.Complex); math.IsNaN(bmax) || math.IsInf(bmax, 0) {
		return out, &Failure{Kind: Diverging, NonFinite: true, Step: r.steps, Degree: w, Refine: refine}
	}

	// 3. QR of A_0, unless x(0) is the one of the last QR.
	if !r.qrValid {
		t0 = time.Now()
		qr, err := s.newQR(m, n, r.a[:m*n*W], m, s.workers)
		var rank *la.RankError
		if errors.As(err, &rank) {
			times.QR += time.Since(t0)
			return out, &Failure{Kind: Singular, Rank: rank, Col: rank.Col, Step: r.steps, Degree: w, Refine: refine}
		} else if err != nil {
			panic(fmt.Sprintf("newton: QR: %v", err))
		}
		r.qr, r.qrValid = qr, true
		r.cond = qr.Cond()
		r.a0norm = 0
		for j := 0; j < n; j++ {
			r.a0norm = max(r.a0norm, s.norm1(r.a[j*m*W:(j+1)*m*W]))
		}
		times.QR += time.Since(t0)
		if !(r.cond <= s.opt.MaxCond) {
			return out, &Failure{Kind: IllConditioned, Cond: r.cond, MaxCond: s.opt.MaxCond, Step: r.steps, Degree: w, Refine: refine}
		}
	}

	// 4. Block forward substitution, k = 0..w.
	t0 = time.Now()
	xs := maxAbs(r.x, N, s.opt.Complex)
	if xs == 0 {
		xs = 1
	}
	// Skip block k when the bound cond/||A_0||_1 * ||b_k||_1 on ||dx_k||
	// is below 2^8 u max|x|.
	skipTol := 256 * s.u * xs * r.a0norm / r.cond
	times.QHB += time.Since(t0)
	for k := 0; k <= w; k++ {
		bk := r.b[k*m*W : (k+1)*m*W]
		dxk := r.dx[k*n*W : (k+1)*n*W]
		t0 = time.Now()
		r.nb[k] = s.norm1(bk)
		r.skipped[k] = (!refine && k == 0) || r.nb[k] <= skipTol
		if r.skipped[k] {
			clear(dxk)
			out.skipped++
			times.QHB += time.Since(t0)
			continue
		}
		copy(r.y, bk)
		r.qr.ApplyQH(r.y, s.workers)
		t1 := time.Now()
		times.QHB += t1.Sub(t0)
		if err := r.qr.SolveR(r.y, s.workers); err != nil {
			panic(fmt.Sprintf("newton: back substitution: %v", err))
		}
		copy(dxk, r.y[:n*W])
		t2 := time.Now()
		times.BackSub += t2.Sub(t1)
		// b_j -= A_(j-k) dx_k for j = k+1..w: independent products (A_1..A_(w-k)
		// are consecutive, as are b_(k+1)..b_w), spread over the workers.
		s.mulSubs(w-k, m, n, r.a[m*n*W:], m, m*n, dxk, 0, r.b[(k+1)*m*W:], m, s.workers)
		times.Update += time.Since(t2)
	}

	// 5. Residual of the linear system: sum_k ||b_k - A_0 dx_k||_1, b_k as
	// updated by the blocks before k (||b_k||_1 for a skipped block).
	// Each run of unskipped blocks k0..k1-1 is one batch of products
	// rb_k = b_k - A_0 dx_k (la's Residual1: a copy of b_k, MulSub, Norm1).
	t0 = time.Now()
	copy(r.rb[:(w+1)*m*W], r.b[:(w+1)*m*W])
	for k0 := 0; k0 <= w; {
		if r.skipped[k0] {
			k0++
			continue
		}
		k1 := k0 + 1
		for k1 <= w && !r.skipped[k1] {
			k1++
		}
		s.mulSubs(k1-k0, m, n, r.a[:m*n*W], m, 0, r.dx[k0*n*W:], n, r.rb[k0*m*W:], m, s.workers)
		k0 = k1
	}
	for k := 0; k <= w; k++ {
		if r.skipped[k] {
			out.residual += r.nb[k]
			continue
		}
		out.residual += s.norm1(r.rb[k*m*W : (k+1)*m*W])
	}
	times.Residual += time.Since(t0)

	// 6. x += dx, block by block, variable by variable.
	t0 = time.Now()
	delta := maxAbs(r.dx[:(w+1)*n*W], N, s.opt.Complex)
	deltaOld := maxAbs(r.dx[:(wPrev+1)*n*W], N, s.opt.Complex)
	for k := 0; k <= w; k++ {
		if r.skipped[k] {
			continue
		}
		for v := 0; v < n; v++ {
			off := (v*(d+1) + k) * W
			s.addTo(r.x[off:off+W], r.dx[(k*n+v)*W:(k*n+v+1)*W])
		}
	}
	if refine && !r.skipped[0] {
		r.qrValid = false
	}
	xsNew := maxAbs(r.x, N, s.opt.Complex)
	times.Update += time.Since(t0)
	if math.IsNaN(xsNew) || math.IsInf(xsNew, 0) || math.IsNaN(delta) || math.IsInf(delta, 0) {
		return out, &Failure{Kind: Diverging, NonFinite: true, Step: r.steps, Degree: w, Refine: refine}
	}
	if xsNew == 0 {
		xsNew = 1
	}
	out.delta, out.deltaOld = delta/xsNew, deltaOld/xsNew
	return out, nil
}

// evaluate runs the executor of degree w at x mod t^(w+1) and sets
// b_k = -G_k (k = 0..w) and, with jac, A_k = J_k.
func (r *run) evaluate(w int, jac bool) {
	s := r.s
	d, n, m, W := r.d, s.n, s.m, s.W
	e, err := s.exec(w)
	if err != nil { // staged by Prepare; cannot happen
		panic(err)
	}
	for v := 0; v < n; v++ {
		off := v * (d + 1) * W
		e.SetInput(v, r.x[off:off+(w+1)*W])
	}
	if err := e.Run(); err != nil {
		panic(fmt.Sprintf("newton: executor: %v", err))
	}
	for i := 0; i < m; i++ {
		val := e.Value(i)
		for k := 0; k <= w; k++ {
			off := (k*m + i) * W
			negateInto(r.b[off:off+W], val[k*W:(k+1)*W])
		}
	}
	if !jac {
		return
	}
	plan := e.Plan()
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			var der []float64
			if plan.DerivSlot(i, j) != stager.NoSlot {
				der = e.Deriv(i, j)
			}
			for k := 0; k <= w; k++ {
				off := (k*m*n + i + j*m) * W
				if der == nil {
					clear(r.a[off : off+W])
				} else {
					copy(r.a[off:off+W], der[k*W:(k+1)*W])
				}
			}
		}
	}
}
