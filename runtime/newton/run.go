package newton

import (
	"fmt"
	"math"
	"time"

	"github.com/mdgen/mdgen/runtime/backend"
)

// The driver: the control flow of Newton's method on series, written once
// for every back end (see Backend and the package documentation).

// run holds the state of one solve; the buffers are the back end's.
type run struct {
	set      Settings
	be       Backend
	res      *Result
	progress func(StepInfo) // nil: none
	record   *[]StepInfo    // where the steps are recorded (nil: not)
	d        int

	nb      []float64 // ||b_k||_1 at its skip test
	skipped []bool

	qrValid  bool // the back end holds a QR of A_0 at the current x(0)
	invValid bool // and the matrix -R^-1 Q^H of that QR (phase 2)
	cond     float64
	a0norm   float64 // ||A_0||_1

	start time.Time
	steps int
}

// mark and lap are the back end's stage clock (Backend.Mark, Lap), left
// out with Options.NoStageTimes: two clock reads per stage are a tenth of
// a Newton step of a small system at one double (BenchmarkNewtonStep).
func (r *run) mark() {
	if !r.set.NoStageTimes {
		r.be.Mark()
	}
}

func (r *run) lap(s backend.Stage) {
	if !r.set.NoStageTimes {
		r.be.Lap(s)
	}
}

// drive runs the driver for ws on be (method by method): it fills
// ws.Result (whose header the caller set) and its Times and X, calls
// progress (nil: none) after every step and, with record, appends the
// steps to ws.Steps. The run state is d's, reused from its last solve (a
// tracker solves thousands of times per path; the Results are the
// callers'). The error is the back end's (the Result is then incomplete).
func (d *Driver) drive(be Backend, ws *WholeSolve, progress func(StepInfo), record bool) error {
	deg := ws.Settings.Degree
	r := &d.r
	nb, skipped := r.nb, r.skipped
	if len(nb) != deg+1 {
		nb, skipped = make([]float64, deg+1), make([]bool, deg+1)
	}
	*r = run{set: ws.Settings, be: be, res: ws.Result, progress: progress, d: deg, nb: nb, skipped: skipped, start: time.Now()}
	clear(r.nb)
	clear(r.skipped)
	if record {
		r.record = &ws.Steps
	}
	if err := be.Reset(ws.X0); err != nil {
		return fmt.Errorf("newton: %w", err)
	}
	err := r.run()
	times, terr := be.Times()
	r.res.Times = times
	if x, xerr := be.X(); xerr == nil {
		r.res.X = x
	} else if err == nil {
		err = xerr
	}
	if err == nil {
		err = terr
	}
	return err
}

// stepOut is what one Newton step reports to the stop rule.
type stepOut struct {
	delta    float64 // max |dx_k|, k = 0..w, relative to max |x| after the update
	absDelta float64 // max |dx_k|, k = 0..w (not relative)
	deltaOld float64 // the same over k = 0..wPrev (the coefficients the previous step had)
	residual float64
	fnorm    float64 // ||b||_1 = ||G(x(t), t) mod t^(w+1)||_1 before the update
	skipped  int
}

// stepError is an error of the back end, with the stage and the step.
func (r *run) stepError(stage Stage, w int, refine bool, err error) error {
	where := fmt.Sprintf("step %d, degree %d", r.steps, w)
	if refine {
		where = fmt.Sprintf("step %d, refining x(0)", r.steps)
	}
	return fmt.Errorf("newton: %s (%s): %w", stage, where, err)
}

// run is the driver: refinement of x(0), then Newton on series with
// staggered degrees (see the package documentation for the stop rule).
// The error is the back end's (the result is then incomplete).
func (r *run) run() error {
	set, res := &r.set, r.res
	// Phase 1: refine x(0) at degree 0.
	prev := -1.0 // the delta of the step before (none: -1)
	for {
		if r.steps >= set.MaxSteps {
			r.fail(&Failure{Kind: StepLimit, Step: r.steps, Degree: 0, Refine: true, Update: res.Update, Residual: res.Residual, FNorm: res.FNorm})
			return nil
		}
		r.steps++
		out, f, err := r.step(0, 0, true)
		if err != nil {
			return err
		}
		if r.steps == 1 {
			res.StartResidual = out.fnorm
		}
		if f != nil {
			r.fail(f)
			return nil
		}
		r.report(0, true, out)
		if r.converged(out.delta, prev) || out.delta <= set.RefineTol {
			break
		}
		if f := r.diverging(out, prev, 0, true); f != nil {
			r.fail(f)
			return nil
		}
		prev = out.delta
	}
	res.RefineSteps = r.steps
	if r.d == 0 {
		// Root refinement: the residual is ||G(x(0), 0)||_1 at the final
		// x(0) (PHCpack's res), one more evaluation at degree 0 unless the
		// last step left x(0) as it was (or when the caller does not need
		// it: Options.NoFinalResidual).
		if !r.skipped[0] && !set.NoFinalResidual {
			r.mark()
			fnorm, _, err := r.be.Evaluate(0, false)
			if err != nil {
				return r.stepError(backend.StageResidual, 0, true, err)
			}
			res.Residual = fnorm
			r.lap(backend.StageResidual)
		}
		res.Converged, res.Steps, res.Cond = true, r.steps, r.cond
		return nil
	}
	// Phase 2: Newton on series, w = 1, 2, 4, 7, 11, ... up to d; x(0) frozen.
	// prev and prevOld: the delta and deltaOld of the step before (the
	// last refinement step's delta before the first series step).
	prev = res.Update
	prevOld := prev
	for w := 0; ; {
		if r.steps >= set.MaxSteps {
			r.fail(&Failure{Kind: StepLimit, Step: r.steps, Degree: w, Update: res.Update, Residual: res.Residual, FNorm: res.FNorm})
			return nil
		}
		wPrev := w
		w = min(w+1+w/2, r.d)
		r.steps++
		out, f, err := r.step(w, wPrev, false)
		if err != nil {
			return err
		}
		if f != nil {
			r.fail(f)
			return nil
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
			return nil
		}
		prev = out.delta
	}
	res.Converged = true
	res.Steps = r.steps
	res.Cond = r.cond
	return nil
}

// converged is the stop rule at the full degree: the relative update of
// the coefficients the previous step had is below 2^10 u max(1, cond) (clean
// convergence), or it is below half the precision and no longer decreased
// by a factor 16 over that of the previous step (the rounding floor of the
// evaluation); prev < 0: no previous step.
func (r *run) converged(deltaOld, prev float64) bool {
	return Converged(deltaOld, prev, r.set.U, r.set.SqrtU, r.cond)
}

// Converged is the stop rule (converged) for a back end that drives its
// own steps (runtime/gpu's batched refiner): u the unit roundoff, sqrtU
// HalfPrecision(u).
func Converged(deltaOld, prev, u, sqrtU, cond float64) bool {
	if deltaOld <= 1024*u*max(1, cond) {
		return true
	}
	return prev >= 0 && deltaOld > prev/16 && deltaOld <= sqrtU
}

// HalfPrecision is sqrt(u) rounded up to a power of two: the bound of the
// stall rule and the default MaxCond's inverse.
func HalfPrecision(u float64) float64 { return math.Ldexp(1, math.Ilogb(u)/2) }

// Growing is the test of diverging on one update: 0 when the update does
// not grow past the previous one above half the precision, else Diverging,
// or Stalled when it is at most stallUpdate.
func Growing(delta, prev, sqrtU float64) FailureKind {
	if !(prev >= 0 && delta > prev && delta > sqrtU) {
		return 0
	}
	if delta <= stallUpdate {
		return Stalled
	}
	return Diverging
}

// SkipTol is the skip test's bound: block k is skipped (dx_k = 0) when
// ||b_k||_1 <= SkipTol, that is when the bound cond/||A_0||_1 * ||b_k||_1
// on ||dx_k|| is below 2^8 u max|x| (u = 2^(-53N), xs = max|x|, or 1 when
// x = 0). With cond = 1 it bounds the bound of any cond >= 1: a back end
// that knows ||b_k||_1 > SkipTol(u, xs, a0norm, 1) knows that block k
// will be solved before the condition estimate is done.
func SkipTol(u, xs, a0norm, cond float64) float64 { return 256 * u * xs * a0norm / cond }

// stallUpdate is the relative update below which a growing update is a
// stall (Stalled) rather than a divergence: an iteration that got to half
// of double precision was converging, and stopped at the floor that the
// rounding of the evaluation and the conditioning of the problem set.
const stallUpdate = 0x1p-26

// diverging reports a growing update: over the coefficients that the
// previous step had too, larger than the previous step's update and above
// half the precision (Diverging; Stalled when both updates are at most
// stallUpdate).
func (r *run) diverging(out stepOut, prev float64, w int, refine bool) *Failure {
	if kind := Growing(out.deltaOld, prev, r.set.SqrtU); kind != 0 {
		return &Failure{Kind: kind, Step: r.steps, Degree: w, Refine: refine, Update: out.deltaOld, PrevUpdate: prev,
			Residual: out.residual, FNorm: out.fnorm, StartResidual: r.res.StartResidual, Cond: r.cond, SqrtU: r.set.SqrtU}
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
	// deltaOld: the coefficients a step computes for the first time are
	// not corrections (and would make a last update of 1 after a step that
	// raised the degree); in phase 1 it is delta
	r.res.Update = out.deltaOld
	if refine && !r.skipped[0] {
		r.res.PointUpdate = out.absDelta
	}
	r.res.Residual = out.residual
	r.res.FNorm = out.fnorm
	if r.progress == nil && r.record == nil {
		return
	}
	si := StepInfo{Step: r.steps, Refine: refine, Degree: w, Update: out.delta, UpdateOld: out.deltaOld, Residual: out.residual,
		Blocks: w + 1, Skipped: out.skipped, Elapsed: time.Since(r.start)}
	if r.record != nil {
		*r.record = append(*r.record, si)
	}
	if r.progress != nil {
		r.progress(si)
	}
}

// step is one Newton step at working degree w; wPrev is the degree of the
// previous step. In the refinement (refine, w = 0) x(0) is updated; in the
// series phase block 0 is skipped (x(0) frozen). The order of the
// operations is the package documentation's, item by item; the back end
// does each one.
func (r *run) step(w, wPrev int, refine bool) (stepOut, *Failure, error) {
	set, be := &r.set, r.be
	var out stepOut
	stage := backend.StageEvaluate
	fail := func(err error) (stepOut, *Failure, error) { return out, nil, r.stepError(stage, w, refine, err) }

	// 1. Evaluate and differentiate at x(t) mod t^(w+1).
	r.mark()
	fnorm, bmax, err := be.Evaluate(w, true)
	if err != nil {
		return fail(err)
	}
	out.fnorm = fnorm
	r.lap(backend.StageEvaluate)
	if math.IsNaN(bmax) || math.IsInf(bmax, 0) {
		return out, &Failure{Kind: Diverging, NonFinite: true, Step: r.steps, Degree: w, Refine: refine}, nil
	}

	// 2. QR of A_0, unless x(0) is the one of the last QR.
	if !r.qrValid {
		stage = backend.StageQR
		rank, cond, a0norm, err := be.Factor(!refine)
		if err != nil {
			return fail(err)
		}
		r.lap(backend.StageQR)
		r.res.Work.QRs++
		if rank != nil {
			return out, &Failure{Kind: Singular, Rank: rank, Col: rank.Col, Step: r.steps, Degree: w, Refine: refine}, nil
		}
		r.qrValid, r.invValid, r.cond, r.a0norm = true, false, cond, a0norm
		if !(r.cond <= set.MaxCond) {
			return out, &Failure{Kind: IllConditioned, Cond: r.cond, MaxCond: set.MaxCond, Step: r.steps, Degree: w, Refine: refine}, nil
		}
	}

	// 3. Block forward substitution, k = 0..w.
	stage = backend.StageQHB
	xs, err := be.MaxAbsX()
	if err != nil {
		return fail(err)
	}
	if xs == 0 {
		xs = 1
	}
	skipTol := SkipTol(set.U, xs, r.a0norm, r.cond)
	// No lap here: block 0's first lap is StageQHB's too.
	for k := 0; k <= w; k++ {
		stage = backend.StageQHB
		nb, err := be.BlockNorm(k)
		if err != nil {
			return fail(err)
		}
		r.nb[k] = nb
		r.skipped[k] = (!refine && k == 0) || nb <= skipTol
		if r.skipped[k] {
			if err := be.SkipBlock(k); err != nil {
				return fail(err)
			}
			out.skipped++
			r.lap(backend.StageQHB)
			continue
		}
		if refine {
			if err := be.ApplyQH(k); err != nil {
				return fail(err)
			}
			r.lap(backend.StageQHB)
			stage = backend.StageBackSub
			if err := be.SolveR(k); err != nil {
				return fail(err)
			}
			r.lap(backend.StageBackSub)
		} else {
			// Phase 2: dx_k = M b_k with M = R^-1 Q^H formed once per QR
			// (before the first block that is not skipped).
			r.lap(backend.StageQHB)
			if !r.invValid {
				stage = backend.StageQR
				if err := be.FormInverse(); err != nil {
					return fail(err)
				}
				r.invValid = true
				r.res.Work.Inverses++
				r.lap(backend.StageQR)
			}
			stage = backend.StageBackSub
			if err := be.SolveBlock(k); err != nil {
				return fail(err)
			}
			r.lap(backend.StageBackSub)
		}
		stage = backend.StageUpdate
		if err := be.UpdateB(k, w); err != nil {
			return fail(err)
		}
		r.res.Work.Updates += w - k
		r.lap(backend.StageUpdate)
	}

	// 4. Residual of the linear system (unless Options.NoResidual).
	if set.NoResidual {
		out.residual = math.NaN()
	} else {
		stage = backend.StageResidual
		if out.residual, err = be.Residual(w, r.skipped, r.nb); err != nil {
			return fail(err)
		}
		r.lap(backend.StageResidual)
	}

	// 5. x += dx for the blocks not skipped, then max |x|.
	stage = backend.StageUpdate
	delta, deltaOld, xsNew, err := be.UpdateX(w, wPrev, r.skipped)
	if err != nil {
		return fail(err)
	}
	r.lap(backend.StageUpdate)
	if refine && !r.skipped[0] {
		r.qrValid, r.invValid = false, false
	}
	if math.IsNaN(xsNew) || math.IsInf(xsNew, 0) || math.IsNaN(delta) || math.IsInf(delta, 0) {
		return out, &Failure{Kind: Diverging, NonFinite: true, Step: r.steps, Degree: w, Refine: refine}, nil
	}
	if xsNew == 0 {
		xsNew = 1
	}
	out.delta, out.deltaOld, out.absDelta = delta/xsNew, deltaOld/xsNew, delta
	return out, nil, nil
}
