package track

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/mdgen/mdgen/mdops/fp"
	"github.com/mdgen/mdgen/runtime/newton"
)

func defaultWorkers() int { return runtime.GOMAXPROCS(0) }

// pathState is where a path stands: at tau with the point x (complex
// numbers at the tracking precision, xn doubles) and, when haveSeries,
// the series of the path there (at the series precision, sn doubles, in
// Newton's layout).
type pathState struct {
	tau        float64
	x          []float64
	xn         int
	series     []float64
	sn         int
	seriesTau  float64 // the tau of the series (it outlives a step until the next is made)
	haveSeries bool
	cond       float64
	update     float64    // the last relative update of the corrector
	endErr     float64    // the end game's extrapolation distance (Path.Err)
	refTrend   complex128 // goesToInfinity's reference r (complexTrend)
	refTau     float64    // and its tau
	refX0      float64    // and its x_0 relative to the other coordinates
	// suspectSince is the step at which goesToInfinity's first rule
	// began to hold without a break (0: it does not hold).
	suspectSince int
	started      bool
	steps        int
	rejected     int
	dist         float64

	// The checkpoint: the last accepted state whose condition number left
	// half the digits of its precision (cond <= u^(-1/2)).
	safeTau  float64
	safeX    []float64
	safeDist float64
}

// checkpoint saves the state when it is safe.
func (st *pathState) checkpoint(u float64) {
	if st.cond*math.Sqrt(u) > 1 {
		return
	}
	st.safeTau, st.safeDist = st.tau, st.dist
	st.safeX = append(st.safeX[:0], st.x...)
}

// restore goes back to the checkpoint (the series is made anew); without
// one (no point kept half the digits of the precision that failed, not even
// the start) the path starts over: tau = 1, the start point, its counts
// kept.
func (st *pathState) restore(start []complex128, n int) {
	if st.safeX == nil {
		*st = pathState{tau: 1, dist: math.Inf(1), steps: st.steps, rejected: st.rejected}
		st.setStart(start, n)
		return
	}
	st.tau, st.dist = st.safeTau, st.safeDist
	st.x = append(st.x[:0], st.safeX...)
	// The series is of the precision that failed: made anew.
	st.series, st.sn, st.haveSeries, st.refTrend, st.refTau, st.refX0, st.suspectSince = nil, 0, false, 0, 0, 0, 0
}

// setStart sets x to the start point (double precision) at n doubles.
func (st *pathState) setStart(start []complex128, n int) {
	w := 2 * n
	st.x = make([]float64, len(start)*w)
	for v, z := range start {
		st.x[v*w] = real(z)
		st.x[v*w+n] = imag(z)
	}
	st.xn = n
}

// attempt is the outcome of tracking at one precision.
type attempt struct {
	status Status
	reason string
	// uncertain: an end game that could not tell a singular solution
	// from one at infinity (x_0 below 1e-2 of the other coordinates and
	// not going to zero): more precision follows the path closer to the
	// end.
	uncertain bool
}

// trackPath follows path i from t = 0 to t = 1, raising the precision
// when the automatic rule is on and a precision fails.
func (w *worker) trackPath(i int64) (Path, error) {
	t0 := time.Now()
	prec := w.opt.Prec
	if prec == 0 {
		prec = w.opt.MinPrec
	}
	st := &pathState{tau: 1, dist: math.Inf(1)}
	start := w.h.Start(i)
	if w.h.Projective {
		w.chart.a, w.chart.rhs = w.h.Chart(i)
		w.chart.gen++
	}
	newton0 := w.newtonSteps()
	var p Path
	for {
		e, err := w.engine(prec)
		if err != nil {
			return Path{}, err
		}
		if st.x == nil {
			st.setStart(start, e.n)
		} else {
			// Resume from the last point where the lower precision
			// kept half its digits (the points after it may be wrong).
			st.restore(start, st.xn)
			st.x = widen(st.x, st.xn, e.n)
			st.safeX = widen(st.safeX, st.xn, e.n)
			st.xn = e.n
		}
		out, err := e.track(st)
		if err != nil {
			return Path{}, err
		}
		nxt := 0
		if w.opt.Prec == 0 {
			nxt = nextPrec(prec, w.opt.MaxPrec)
		}
		if (out.status == Failed || out.uncertain) && nxt != 0 {
			prec = nxt
			continue
		}
		p = Path{Index: i, Status: out.status, Reason: out.reason, Prec: prec, T: 1 - st.tau,
			Steps: st.steps, Rejected: st.rejected, Multiplicity: 1}
		if err := e.endpoint(&p, st); err != nil {
			return Path{}, err
		}
		// An end that endpoint finds is not near a solution (a singular
		// end that Newton moves far) failed at this precision too: the
		// automatic rule resumes it at the next one.
		if out.status != Failed && p.Status == Failed && nxt != 0 {
			prec = nxt
			continue
		}
		break
	}
	p.Newton = w.newtonSteps() - newton0
	p.Seconds = time.Since(t0).Seconds()
	return p, nil
}

// newtonSteps counts the Newton steps of the worker's trackers so far.
func (w *worker) newtonSteps() int {
	k := 0
	for _, e := range w.engines {
		k += e.cor.newtonSteps
		if e.last != nil {
			k += e.last.newtonSteps
		}
		for _, l := range e.series {
			if l != e.cor {
				k += l.newtonSteps
			}
		}
	}
	return k
}

// tText writes the point t = 1 - tau of a message: t = 0 and t = 1
// exactly, t itself away from 1, 1 - tau near 1 (where t rounds to 1).
func tText(tau float64) string {
	switch {
	case tau == 1:
		return "t = 0"
	case tau == 0:
		return "t = 1"
	case tau < 1e-3:
		return fmt.Sprintf("t = 1 - %.3g", tau)
	}
	return fmt.Sprintf("t = %.6g", 1-tau)
}

func nextPrec(n, most int) int {
	for _, p := range Ladder {
		if p > n && p <= most {
			return p
		}
	}
	return 0
}

// widen returns the complex numbers of buf (N = from limbs each part) at
// to limbs (to >= from): the extra limbs are zero, so the values are the same.
func widen(buf []float64, from, to int) []float64 {
	if buf == nil || from == to {
		return buf
	}
	out := make([]float64, len(buf)/from*to)
	widenInto(out, buf, from, to)
	return out
}

// widenInto is widen into dst (len(buf)/from*to float64s), allocating
// nothing: the tracker's steps use it.
func widenInto(dst, buf []float64, from, to int) {
	if from == to {
		copy(dst, buf)
		return
	}
	clear(dst)
	for z := range len(buf) / (2 * from) {
		copy(dst[z*2*to:z*2*to+from], buf[z*2*from:z*2*from+from])
		copy(dst[z*2*to+to:z*2*to+to+from], buf[z*2*from+from:(z+1)*2*from])
	}
}

// narrow writes the complex numbers of src (from limbs a part) to dst at
// to <= from limbs: the leading limbs of each part (a truncation: the
// series needs a few digits of the point, and the corrector refines it).
func narrow(dst, src []float64, from, to int) {
	k := len(src) / (2 * from)
	for z := range k {
		copy(dst[z*2*to:z*2*to+to], src[z*2*from:z*2*from+to])
		copy(dst[z*2*to+to:(z+1)*2*to], src[z*2*from+from:z*2*from+from+to])
	}
}

// track runs the tracker loop at this engine's precision from st, which it
// updates at every accepted step (see the package documentation).
func (e *engine) track(st *pathState) (attempt, error) {
	opt := e.opt
	n := e.h.Unknowns()
	if !st.started && e.split() && !e.opt.CorrectEveryPoint {
		// The start at the series precision, where it gives the
		// corrector's accuracy (seriesCorrects): one solve refines it and
		// gives its series.
		if err := e.startAtSeriesPrec(st); err != nil {
			return attempt{}, err
		}
	}
	if !st.started {
		// The start: Newton at tau = 1 refines it (and, unsplit, gives
		// its series).
		res, err := e.cor.solve(st.tau, st.x)
		if err != nil {
			return attempt{}, err
		}
		st.steps++
		if !res.Converged {
			return attempt{status: Failed, reason: fmt.Sprintf("the start does not converge at t = 0 (%v)", res.Err)}, nil
		}
		st.started = true
		e.takePoint(st, res)
		if !e.split() {
			e.takeSeries(st, res)
		}
		st.checkpoint(e.u)
	}
	xp := make([]float64, n*e.w) // a point at the tracking precision
	stepsHere, rejectedHere := 0, 0
	for st.tau > 0 {
		if stepsHere >= opt.MaxSteps {
			return e.endgame(st, fmt.Sprintf("step limit (%d steps at %d doubles) at %s", opt.MaxSteps, e.n, tText(st.tau))), nil
		}
		if !st.haveSeries {
			// After the start or a restart: the series at this point.
			l, err := e.seriesLevel(e.seriesPrec(st.cond))
			if err != nil {
				return attempt{}, err
			}
			narrow(l.x, st.x, e.n, l.n)
			res, err := l.solve(st.tau, l.x)
			if err != nil {
				return attempt{}, err
			}
			if !res.Converged {
				return e.endgame(st, fmt.Sprintf("the series at %s: %v", tText(st.tau), res.Err)), nil
			}
			e.takeSeries(st, res)
		}
		sl := e.series[st.sn]
		pd := sl.pd
		sl.ar.pade(pd, st.series, n, e.d)
		dt := stepSize(opt, pd, n, st.tau, st.dist, max(1, maxMag(st.x, e.w)))
		for {
			if dt < minStep(st.tau) || !(dt > 0) {
				return e.endgame(st, fmt.Sprintf("step below the minimum at %s", tText(st.tau))), nil
			}
			if stepsHere >= opt.MaxSteps {
				return e.endgame(st, fmt.Sprintf("step limit (%d steps at %d doubles) at %s", opt.MaxSteps, e.n, tText(st.tau))), nil
			}
			tau := st.tau - dt
			if tau < st.tau*0x1p-40 {
				tau = 0
			}
			// The series precision: where the condition number leaves
			// SeriesPrec less than half its digits, more (seriesPrec);
			// after two rejections from this point the tracking
			// precision, corrector and series in one solve.
			q := e.seriesPrec(st.cond)
			if rejectedHere >= 2 {
				q = e.n
			}
			ok, err := e.tryStep(st, sl, st.tau-tau, tau, q, xp)
			if err != nil {
				return attempt{}, err
			}
			st.steps++
			stepsHere++
			if ok {
				rejectedHere = 0
				st.checkpoint(e.u)
				if e.goesToInfinity(st) {
					return attempt{status: Infinite}, nil
				}
				break
			}
			st.rejected++
			rejectedHere++
			if st.tau <= e.endTau() || st.tau <= 1e-6 && st.cond >= math.Ldexp(1/e.u, -10) {
				return e.endgame(st, fmt.Sprintf("a rejected step at %s", tText(st.tau))), nil
			}
			if rejectedHere == 2 && st.sn != e.n {
				// The predictor of the series at the tracking precision
				// is made from this point: a new step size from it.
				full, err := e.seriesLevel(e.n)
				if err != nil {
					return attempt{}, err
				}
				res, err := full.solve(st.tau, st.x)
				if err != nil {
					return attempt{}, err
				}
				if res.Converged {
					e.takeSeries(st, res)
					break
				}
			}
			dt /= 2
		}
	}
	return attempt{status: Regular}, nil
}

// stepSize is the predictor's first step from tau (the path's point of
// modulus at most scale, at least 1; dist the estimate of the distance to
// the nearest other path, +Inf before there is one), from the approximants
// pd of the path's n series: at most MaxStep and tau, Beta1 times each
// component's pole bound, and where the component's error term is
// positive, the step at which it reaches PredTol scale and Beta2 dist
// scale (pd.Order the power of the step it goes with). Go's min: a NaN
// anywhere gives NaN (the caller takes it for a step below the minimum).
// generated/cuda/mdtrack.cuh's mdtr_step_size is its twin (TestStepDeviceTwin).
func stepSize(opt *Options, pd *padeSet, n int, tau, dist, scale float64) float64 {
	dt := min(opt.MaxStep, tau)
	for v := range n {
		dt = min(dt, opt.Beta1*pd.Pole[v])
		if er := pd.Err[v]; er > 0 {
			ord := 1 / float64(pd.Order[v])
			dt = min(dt, fp.Pow(opt.PredTol*scale/er, ord))
			if !math.IsInf(dist, 1) {
				dt = min(dt, fp.Pow(opt.Beta2*dist*scale/er, ord))
			}
		}
	}
	return dt
}

// minStep is the smallest step from tau before the end game: 2^-20 tau in
// the end zone (tau <= endZone, where the end game classifies the path),
// 2^-40 tau before it. A path that passes within delta of a branch point
// of the homotopy (a complex t where two paths meet) needs steps of about
// delta there: every component's Padé pole is at about delta and the
// steps grow again past it. Such near misses are rare per path, about
// delta times the number of branch points, but not over a million paths:
// path 855 of katsura15 (total-degree homotopy, the default gamma) passes
// at 8.5e-7 from one at t = 0.136 and failed with the minimum of 2^-20
// tau (8.2e-7); katsura20 at 2 doubles had 14 failed among its first
// 32,768 paths, none with this minimum (all 32,768 regular and distinct).
func minStep(tau float64) float64 {
	if tau <= endZone {
		return tau * 0x1p-20
	}
	return tau * 0x1p-40
}

// endZone is the distance from the end below which the end game
// classifies a path that stops (singular, at infinity) instead of calling
// it failed.
const endZone = 1e-4

// startAtSeriesPrec refines the start (tau = 1) at the series precision
// SeriesPrec(n), to refineTol, and takes its point and series when that
// precision gives the corrector's accuracy there (seriesCorrects); else
// the state is left as it was (the start at the tracking precision
// follows). The paths per CPU second at 4 doubles: noon 5 1,330 to 1,560,
// noon 4 1,890 to 2,100 (6 to 7 steps per path: the start's solve at the
// tracking precision was one in eight), katsura 6 and 7 and cyclic 5 3 to
// 10% more; the same counts.
func (e *engine) startAtSeriesPrec(st *pathState) error {
	n := e.h.Unknowns()
	l, err := e.seriesLevel(SeriesPrec(e.n))
	if err != nil {
		return err
	}
	narrow(l.x, st.x, e.n, l.n)
	l.sol.SetRefineTol(refineTol)
	res, err := l.solve(st.tau, l.x)
	l.sol.SetRefineTol(l.tol)
	if err != nil {
		return err
	}
	st.steps++
	if !res.Converged || !e.seriesCorrects(l, res.Cond) || l.lastRefine > refineTol {
		return nil
	}
	for v := range n {
		copy(l.x[v*l.w:(v+1)*l.w], res.Coef(v, 0))
	}
	widenInto(st.x, l.x, l.n, e.n)
	st.cond = res.Cond
	st.update = res.PointUpdate / max(1, maxMag(st.x, e.w))
	e.takeSeries(st, res)
	st.started = true
	st.checkpoint(e.u)
	return nil
}

// tryStep predicts the point at tau from the approximants of sl (the level
// of the state's series; s is the step) and corrects it; on success the
// state moves there. With q below the tracking precision: Newton at q
// doubles corrects the prediction and gives the series at the new point,
// then Newton at the tracking precision refines the point (one step,
// mostly); with q the tracking precision one solve does both. The test of
// the step is on the first solve from the predicted point (see
// acceptable); the refinement at the tracking precision must converge,
// within PredTol, and (before t = 1) to its tolerance.
func (e *engine) tryStep(st *pathState, sl *level, s, tau float64, q int, xp []float64) (bool, error) {
	n := e.h.Unknowns()
	l, err := e.seriesLevel(q)
	if tau == 0 && q == SeriesPrec(e.n) && q < e.n {
		// The last step needs no series: Newton at degree 0 (lastLevel).
		l, err = e.lastLevel()
	}
	if err != nil {
		return false, err
	}
	// The prediction, at the series' precision, to q doubles.
	sl.ar.predict(sl.x, sl.pd, s)
	if sl.n >= q {
		narrow(l.x, sl.x, sl.n, q)
	} else {
		widenInto(l.x, sl.x, sl.n, q)
	}
	// Where the series precision can give the corrector's accuracy
	// (seriesCorrects), the series solve refines to refineTol and its
	// point may be the path's.
	alone := q < e.n && tau > 0 && e.seriesCorrects(l, st.cond)
	if alone {
		l.sol.SetRefineTol(refineTol)
	}
	res, err := l.solve(tau, l.x)
	if alone {
		l.sol.SetRefineTol(l.tol)
	}
	if err != nil {
		return false, err
	}
	if q == e.n {
		if !e.acceptable(l, res, tau) {
			return false, nil
		}
		e.moveTo(st, tau, l, res, res)
		return true, nil
	}
	if !e.acceptable(l, res, -1) {
		return false, nil
	}
	for v := range n {
		copy(l.x[v*l.w:(v+1)*l.w], res.Coef(v, 0))
	}
	widenInto(xp, l.x, q, e.n)
	if alone && e.seriesCorrects(l, res.Cond) && l.lastRefine <= refineTol {
		st.tau = tau
		e.measureDistance(l, st, res)
		copy(st.x, xp)
		st.cond = res.Cond
		st.update = res.PointUpdate / max(1, maxMag(st.x, e.w))
		e.takeSeries(st, res)
		return true, nil
	}
	cres, err := e.cor.solve(tau, xp)
	if err != nil {
		return false, err
	}
	if !cres.Converged || e.cor.u1 > e.opt.PredTol || tau != 0 && e.cor.lastRefine > e.cor.tol || tau == 0 && !regularEnd(e.u, cres.Cond, e.cor.lastRefine) {
		return false, nil
	}
	if l == e.last {
		st.tau = tau
		e.measureDistance(l, st, res)
		e.takePoint(st, cres)
		return true, nil
	}
	e.moveTo(st, tau, l, res, cres)
	return true, nil
}

// seriesCorrects tells whether the series solve of l (below the tracking
// precision) can stand for the corrector at a point of condition number
// cond: its rounding floor cond u_q is at most refineTol^2, the accuracy
// that the corrector's tolerance gives (its last update at most refineTol,
// Newton's error after it about its square), so the corrector would
// refine a point that is already as accurate as it makes it. Never with
// Options.CorrectEveryPoint.
func (e *engine) seriesCorrects(l *level, cond float64) bool {
	return !e.opt.CorrectEveryPoint && cond*l.u <= refineTol*refineTol
}

// moveTo takes an accepted step: the path is at tau, its point that of the
// corrector's solve cres, its series and distance estimate those of the
// solve res of level l from the prediction.
func (e *engine) moveTo(st *pathState, tau float64, l *level, res, cres *newton.Result) {
	st.tau = tau
	e.measureDistance(l, st, res)
	e.takePoint(st, cres)
	e.takeSeries(st, res)
}

// trend returns r = Re(-tau c_1/c_0) of unknown v in the state's series
// x(tau - s) = c_0 + c_1 s + ...: the exponent of x_v ~ tau^r near the
// end (0 when c_0 = 0).
func (e *engine) trend(st *pathState, v int) float64 {
	sw, sn := 2*st.sn, st.sn
	c := st.series[v*(e.d+1)*sw:]
	c0, c1 := c[:sw], c[sw:2*sw]
	den := float64(c0[0]*c0[0]) + float64(c0[sn]*c0[sn])
	if den == 0 {
		return 0
	}
	return -st.seriesTau * (float64(c1[0]*c0[0]) + float64(c1[sn]*c0[sn])) / den
}

// complexTrend is -tau c_1/c_0 of unknown v in the state's series (0 when
// c_0 = 0): its real part is trend's r.
func (e *engine) complexTrend(st *pathState, v int) complex128 {
	sw, sn := 2*st.sn, st.sn
	c := st.series[v*(e.d+1)*sw:]
	c0, c1 := complex(c[0], c[sn]), complex(c[sw], c[sw+sn])
	if c0 == 0 {
		return 0
	}
	return fp.Div(fp.Mul(complex(-st.seriesTau, 0), c1), c0)
}

// goesToInfinity is the early test at infinity, after each accepted step
// with tau <= farInfTau (0.1) in projective coordinates: x_0 going to zero
// like tau^r, r = Re(-tau c_1/c_0) of its series, compared with the r of a
// reference point farther from the end (the first point below farInfTau,
// then each point at least twice as far from the end as the reference,
// where the reference moves on), by either of two rules:
//
//   - near the end (tau <= 1e-3), at the points where the reference
//     moves: x_0 at most 5e-2 of the other coordinates and the same r >=
//     1/32 within 5%, at every such point for suspectSteps steps since
//     the first (without a point between that breaks it). A finite end
//     x_0 -> x_0* != 0 gives an r that falls like tau (a factor 1/2 or
//     less between the two points) or like tau^(1/m) for a branch of m
//     paths (a factor 2^(-1/m)), but only once tau^k is below x_0*: x_0 =
//     x_0* + a tau^k has r = k/(1 + x_0*/(a tau^k)), steady while a tau^k
//     is far above x_0*, so that the rule alone called large finite
//     solutions (affine coordinates of 50 to 1e4: PHCpack's chemequ,
//     chandra5 and 6, ipp) at infinity. Such a path, analytic at its
//     regular end, reaches tau = 0 or breaks the rule within a few steps;
//     a path to infinity whose x_0 falls like tau^(1/16) keeps it for its
//     suspectSteps and is spared its descent to tau = 1e-20 and below,
//     where the steps shrink with tau and the condition number grows (to
//     the step limit: cyclic 5-roots at 2 doubles, 2 workers, takes 0.09 s
//     with the rule, 0.85 s without it, and 0.06 s when the rule ended a
//     path at once; cyclic 6-roots 1.6, 6.0 and 0.9 s).
//   - anywhere, at every point: whatever the end of the path, it is
//     beyond infTol (beyondInfTol).
func (e *engine) goesToInfinity(st *pathState) bool {
	if !e.h.Projective || st.tau > farInfTau || !st.haveSeries {
		st.refTrend, st.refTau, st.refX0, st.suspectSince = 0, 0, 0, 0
		return false
	}
	n := e.h.Unknowns()
	r := e.complexTrend(st, n-1)
	x0 := e.x0(st)
	if st.refTrend == 0 {
		st.refTrend, st.refTau, st.refX0 = r, st.tau, x0
		return false
	}
	if beyondInfTol(st, r, e.trendNoise(st, x0)) {
		return true
	}
	if st.tau > st.refTau/2 {
		return false
	}
	ref := real(st.refTrend)
	st.refTrend, st.refTau, st.refX0 = r, st.tau, x0
	if !(st.tau <= earlyInfTau && x0 <= earlyInfX0 && real(r) >= 1.0/32 && ref > 0 && math.Abs(real(r)/ref-1) <= 0.05) {
		st.suspectSince = 0
		return false
	}
	if st.suspectSince == 0 {
		st.suspectSince = st.steps
	}
	return st.steps-st.suspectSince >= suspectSteps
}

// suspectSteps is how many steps goesToInfinity's first rule must hold
// before it ends a path at infinity: 16 leaves every finite solution of
// PHCpack's demo files that the rule lost (50 ends the same ones, 2.4
// times slower on cyclic 6-roots).
const suspectSteps = 16

// x0 is |x_0| relative to the largest other coordinate (projective
// coordinates), from the leading limbs.
func (e *engine) x0(st *pathState) float64 {
	n, w := e.h.Unknowns(), e.w
	return mag1(st.x[(n-1)*w:n*w]) / max(maxMag(st.x[:(n-1)*w], w), 1e-300)
}

// beyondInfTol tells that x_0, going to zero like tau^r at the state's
// point (tau, r) and at its reference point (tau_b = f tau, r_b, x_0b),
// has a limit that is 0 or at most infTol, so that the end of the path is
// at infinity by the end's own rule (an affine coordinate above
// 1/infTol). A path x_0 = x_0* + a tau^k to a finite x_0* (complex x_0*
// and a, real k > 0) has the complex r = -tau c_1/c_0 = k/(1 + eps(tau)),
// eps(tau) = x_0*/(a tau^k) (complexTrend), so r/r_b = (1 + eps_b)/(1 +
// F eps_b), F = f^k, eps_b = eps(tau_b), and |r/r_b - 1| >= |eps_b| (F -
// 1)/(1 + F |eps_b|): where that is at most dev, |eps_b| <= dev/((1 - dev)
// F - 1) and |x_0*| <= |eps_b| x_0b (whatever the phases: the real parts
// alone can agree by a coincidence of phase). The bound takes k >= 0.9
// min(|r|, |r_b|) (|r| <= k/(1 - |eps|), |eps| <= 0.1 where the two r
// agree within 10%) and dev at least noise, the error of r (trendNoise),
// and needs dev <= farInfDev (10%). Cyclic 6-roots has paths to infinity
// with x_0 ~ tau^(5/2) or tau^(11/6) and a condition number that grows
// like x_0^-4 (1e22 at tau = 0.015 and x_0 = 2e-5): at 2 doubles the rule
// catches most of them before they run out of digits, and -prec auto
// follows the others further.
func beyondInfTol(st *pathState, r complex128, noise float64) bool {
	if real(st.refTrend) <= 0 || real(r) <= 0 || st.tau <= 0 {
		return false
	}
	q := fp.Div(r, st.refTrend) - 1
	dev := fp.Hypot(real(q), imag(q))
	if dev > farInfDev {
		return false
	}
	dev = max(dev, noise)
	k := 0.9 * min(fp.Hypot(real(r), imag(r)), fp.Hypot(real(st.refTrend), imag(st.refTrend)))
	d := float64((1-dev)*fp.Pow(st.refTau/st.tau, k)) - 1
	return k >= 1.0/32 && d > 0 && st.refX0*dev/d <= infTol
}

// atInfinityEarly is the end game's test at infinity away from the end
// (tau > 1e-4), in projective coordinates: anywhere, x_0 at most
// midPathInfX0 of the other coordinates; within earlyInfTau of the end,
// x_0 at most infTol (as below 1e-4); from farInfTau on, beyondInfTol at
// the last point.
func (e *engine) atInfinityEarly(st *pathState) bool {
	if !e.h.Projective {
		return false
	}
	if e.x0(st) <= midPathInfX0 {
		return true
	}
	if !st.haveSeries {
		return false
	}
	if st.tau <= earlyInfTau && e.x0(st) <= infTol {
		return true
	}
	return st.tau <= farInfTau && beyondInfTol(st, e.complexTrend(st, e.h.Unknowns()-1), e.trendNoise(st, e.x0(st)))
}

// trendNoise bounds the relative error of the r of x_0 from its series
// (at st.sn doubles, condition number st.cond): the coefficients are
// accurate to about cond u of the largest coordinate, that is cond u/x_0
// of x_0's, times 16 (on cyclic 6-roots r wanders by 12% where cond u/x_0
// reaches 4%, and agrees to 4 digits below 1e-4); at least farInfDevMin
// (1%).
func (e *engine) trendNoise(st *pathState, x0 float64) float64 {
	return max(farInfDevMin, math.Ldexp(st.cond, 4-53*st.sn)/max(x0, 1e-300))
}

// midPathInfX0 is the x_0 (relative to the other coordinates) below which
// a path whose steps stopped anywhere is at infinity: affine coordinates
// of 1e12 and more, four orders beyond PHCpack's bound for a solution at
// infinity (1e8). PHCpack's eco6, eco7 and eco8 have a path or a few
// (whatever the gamma and the charts) that head to infinity in the middle
// of the homotopy: x_0 falls by a factor 10 every other step from t = 0.4
// on (eco6's path 27 like (tau - 0.34)^9), the condition number grows as
// it falls, and the steps shrink until the step limit at every precision
// of -prec auto, with x_0 at 1e-13 (2 doubles) to 1e-70 (8 doubles);
// every finite solution is found by the other paths. They were failed
// paths; a path that stops this far out is at infinity, as phc -b calls
// its diverged paths.
const midPathInfX0 = 1e-12

// earlyInfTau and earlyInfX0 are the thresholds of goesToInfinity's
// first rule; farInfTau is where its comparisons start, farInfDev and
// farInfDevMin the largest deviation of r that beyondInfTol allows and
// the least it assumes.
const earlyInfTau, earlyInfX0, farInfTau, farInfDev, farInfDevMin = 1e-3, 5e-2, 0.1, 0.1, 0.01

// endTau is the end zone: a step rejected this close to t = 1 (u^(3/4)),
// or within 1e-6 of it with a condition number above 2^-10/u, ends the
// path in the end game, where it goes to a singular solution or to
// infinity (a regular endpoint is reached in one step from there).
func (e *engine) endTau() float64 { return fp.Pow(e.u, 0.75) }

// acceptable is the test of a corrected step, on the solve of l from the
// predicted point: Newton converged, its first update within the
// predictor's tolerance, its last within the level's tolerance before
// t = 1 (Newton also stops on its rounding floor 2^10 u cond: above the
// tolerance, the precision is exhausted and the point may be on no path;
// on cyclic 6-roots such points, accepted, made paths to infinity jump
// and then stall), its second (when above the rounding floor) a
// contraction, and, at t = 1 (tau = 0), a regular endpoint (one with a
// larger condition number is approached in the end game).
func (e *engine) acceptable(l *level, res *newton.Result, tau float64) bool {
	if !res.Converged {
		return false
	}
	if l.u1 > e.opt.PredTol*8 {
		return false
	}
	if tau != 0 && l.lastRefine > l.tol {
		return false
	}
	floor := math.Ldexp(l.u, 12) * max(1, res.Cond)
	if l.nref >= 2 && l.u2 > floor && l.u2 > l.u1/4 {
		return false
	}
	return tau != 0 || regularEnd(l.u, res.Cond, l.lastRefine)
}

// MaxRegularCond is the largest condition number of a regular endpoint:
// PHCpack's tolerance on the inverse condition number rco, 1e-8, at every
// precision (a double root computed at P doubles has a condition number
// of about u^(-1/2), 1e8 in double, 1e16 in double double: a bound that
// followed the precision would call it regular).
const MaxRegularCond = 1e8

// regularEnd tells a regular endpoint at t = 1: Newton converged there
// quadratically (its last update at most 2^10 u max(1, cond), Newton's
// clean convergence; at a singular root it converges linearly and stops
// on the stall rule) with a condition number at most MaxRegularCond.
func regularEnd(u, cond, update float64) bool {
	return cond <= MaxRegularCond && update <= math.Ldexp(u, 10)*max(1, cond)
}

// measureDistance updates the estimate of the distance to the nearest
// other path, relative to max(1, |x|): with Newton's quadratic
// convergence u2 = omega u1^2 (omega the ratio of the second derivative to
// the first along the correction), the nearest other solution of H( , t)
// is at about 1/omega (for two simple roots r1, r2 of a quadratic, omega =
// 1/|r1 - r2|). The corrector measures omega only when u2 stands above the
// rounding floor; otherwise the estimate stays.
func (e *engine) measureDistance(l *level, st *pathState, res *newton.Result) {
	floor := math.Ldexp(l.u, 12) * max(1, res.Cond)
	if l.nref >= 2 && l.u2 > floor && l.u1 > 0 {
		st.dist = l.u1 * l.u1 / l.u2
	}
}

// takePoint takes the point of a solve at the tracking precision as the
// path's.
func (e *engine) takePoint(st *pathState, res *newton.Result) {
	n := e.h.Unknowns()
	for v := range n {
		copy(st.x[v*e.w:(v+1)*e.w], res.Coef(v, 0))
	}
	st.cond = res.Cond
	st.update = res.PointUpdate / max(1, maxMag(st.x, e.w))
	st.haveSeries = false
}

// takeSeries keeps the series of a solve (at the precision of its level).
func (e *engine) takeSeries(st *pathState, res *newton.Result) {
	if len(st.series) != len(res.X) {
		st.series = make([]float64, len(res.X))
	}
	copy(st.series, res.X)
	st.sn = res.N
	st.seriesTau = st.tau
	st.haveSeries = true
}

// endgame classifies a path whose steps stopped: near the end the path
// goes to infinity (tau at most 1e-4; further away, atInfinityEarly) or
// to a singular solution (tau at most 1e-6; a finite singular endpoint is
// then extrapolated), and the
// approximants at the last point, evaluated at t = 1, give the endpoint;
// elsewhere the path failed. A coordinate that behaves like tau^r near
// the end has r = tau x'(tau) / x(tau) = Re(-tau c_1 / c_0) in the series
// x(tau - s) = c_0 + c_1 s + ... (r = 1/m for a branch of m paths): the
// path is at infinity when x_0 goes to zero that way (r >= 1/64, |x_0| <=
// 1e-2 |x|) or is already below infTol |x|, and, in affine coordinates,
// when a coordinate reaches 1/infTol or, above 100, grows that way (r <=
// -1/64).
func (e *engine) endgame(st *pathState, reason string) attempt {
	if st.cond*math.Ldexp(e.u, 10) > refineTol {
		// Newton's rounding floor is above the corrector's tolerance:
		// the precision, not the path, stopped the steps.
		reason += fmt.Sprintf(" (condition number %.3g: %d doubles are exhausted)", st.cond, e.n)
	}
	if st.series == nil {
		return attempt{status: Failed, reason: reason}
	}
	if st.tau > endZone {
		if e.atInfinityEarly(st) {
			return attempt{status: Infinite}
		}
		return attempt{status: Failed, reason: reason}
	}
	tau := st.seriesTau
	n := e.h.Unknowns()
	sw, sn := 2*st.sn, st.sn
	trend := func(v int) float64 { return e.trend(st, v) }
	w := e.w
	infinite, uncertain := false, false
	if e.h.Projective {
		x0 := mag1(st.x[(n-1)*w:n*w]) / max(maxMag(st.x[:(n-1)*w], w), 1e-300)
		infinite = x0 <= infTol || (x0 <= 1e-2 && trend(n-1) >= 1.0/64)
		uncertain = !infinite && x0 <= 1e-2
	} else {
		for v := range n {
			x := mag1(st.x[v*w : (v+1)*w])
			if x >= 1/infTol || (x > 1e2 && trend(v) <= -1.0/64) {
				infinite = true
			}
		}
	}
	if infinite {
		return attempt{status: Infinite}
	}
	if st.tau > 1e-6 {
		return attempt{status: Failed, reason: reason}
	}
	// The endpoint: the approximants at s = tau, at the series precision.
	sl := e.series[st.sn]
	sl.ar.pade(sl.pd, st.series, n, e.d)
	end := make([]float64, n*sw)
	sl.ar.predict(end, sl.pd, tau)
	if finite(end) {
		endP := widen(end, sn, e.n)
		for k := 0; k < len(st.x); k += w {
			st.endErr = max(st.endErr, fp.Hypot(st.x[k]-endP[k], st.x[k+e.n]-endP[k+e.n]))
		}
		st.endErr /= max(1, maxMag(st.x, w))
		copy(st.x, endP)
	}
	return attempt{status: Singular, uncertain: uncertain}
}

func (e *engine) endpoint(p *Path, st *pathState) error {
	n := len(e.h.Target.Vars)
	x := st.x
	p.Cond, p.Err = st.cond, st.update
	if p.Status != Regular {
		p.Err = st.endErr
	}
	if e.h.Projective {
		x0 := x[n*e.w : (n+1)*e.w]
		x0rel := mag1(x0) / max(maxMag(x[:n*e.w], e.w), 1e-300)
		if p.Status == Infinite || p.Status == Regular && (x0rel <= math.Ldexp(e.u, 10)*max(1, st.cond) || x0rel <= infTol && st.cond > 1/math.Sqrt(e.u)) {
			p.Status = Infinite
			return nil
		}
		aff := make([]float64, n*e.w)
		for v := range n {
			e.cor.ar.div(aff[v*e.w:(v+1)*e.w], x[v*e.w:(v+1)*e.w], x0)
		}
		x = aff
	} else {
		x = x[:n*e.w]
	}
	if p.Status == Infinite || !finite(x) {
		if p.Status != Failed {
			p.Status = Infinite
		}
		return nil
	}
	p.X = slices.Clone(x)
	p.Residual = math.NaN()
	// The endpoint in the user's unknowns: x_j = 2^Var[j] y_j, once every
	// decision in the scaled ones is made.
	defer e.h.unscale(p.X, e.w)
	if p.Status == Failed {
		return nil
	}
	ref, err := e.refiner()
	if err != nil {
		return err
	}
	res, err := ref.SolveLimbs(x)
	if err != nil {
		return err
	}
	p.Residual = res.StartResidual
	// A singular end from the end game whose point Newton refines cleanly
	// to a regular solution (condition at most MaxRegularCond) is that
	// regular solution: the steps near t = 1 stalled on the projective
	// condition number, not on the solution's (PHCpack's extcyc7: 4 ends
	// of condition 3e3 to 8e3 and residual 1e-14 at 2 doubles). A path to
	// a root that another path reaches too is a cluster (classify).
	// Only an actual estimate says regular: a point where f is exactly
	// zero (on a positive-dimensional component: PHCpack's fbrfive4) makes
	// no Newton step and no QR, and its Cond is 0.
	promote := p.Status == Regular || res.Cond > 0
	if p.Status == Regular || p.Status == Singular && promote {
		if res.Converged && regularEnd(e.u, res.Cond, res.Update) {
			copy(p.X, res.X)
			p.Status = Regular
			p.Residual, p.Cond, p.Err = res.Residual, res.Cond, res.Update
		} else if atOrigin(e.u, res, e.w) {
			copy(p.X, res.X)
			p.Status = Regular
			p.Residual, p.Cond, p.Err = res.Residual, res.Cond, res.PointUpdate
		} else if p.Status == Regular {
			// Regular in projective coordinates, not in affine ones (or
			// Newton stalls there): the tracker's point, singular.
			p.Status = Singular
			if res.Converged {
				p.Cond = max(p.Cond, res.Cond)
			}
		}
	}
	// A singular end that Newton moves by more than any endpoint's
	// accuracy is not near a solution: near a root of multiplicity m, the
	// correction is about the error over m (the ends of (x-1)^8 at 2
	// doubles: 2e-5 to 4e-5; one end 0.4 from the root, residual 7.7e-4,
	// stalled in the end game: 1.2e-2).
	if p.Status == Singular && res.PointUpdate > maxSingularTol*max(1, maxMag(p.X, e.w)) {
		p.Status = Failed
		p.Reason = fmt.Sprintf("the end game's point is not a solution: Newton moves it by %.2g, more than %g of max(1, |x|)", res.PointUpdate, maxSingularTol)
		return nil
	}
	tol := 8 * math.Sqrt(e.u)
	if p.Status == Singular {
		tol = min(singularTol(e.u, p.Err), maxSingularTol) // as classify compares it
	}
	p.Real = true
	for v := range n {
		re, im := p.X[v*e.w], p.X[v*e.w+e.n]
		if math.Abs(im) > tol*max(1, math.Abs(re)) {
			p.Real = false
		}
	}
	return nil
}

// atOrigin tells that a refinement that did not meet Newton's stop rule
// converged to a regular solution at the origin, where the rule cannot be
// met: its updates are relative to max|x|, which falls with them. Its last
// correction, absolute there (max|x| < 1), is within regularEnd's bound.
func atOrigin(u float64, res *newton.Result, w int) bool {
	return !res.Converged && maxMag(res.X, w) < 1 && res.Cond > 0 && res.Cond <= MaxRegularCond &&
		res.PointUpdate <= math.Ldexp(u, 10)*max(1, res.Cond) && !math.IsNaN(res.Residual)
}

// infTol is the size of x_0 relative to the other coordinates (in
// projective coordinates) below which an endpoint that is singular or
// reached in the end game is at infinity: its affine coordinates are above
// 1e6 (PHCpack calls a solution at infinity past 1e8 in double precision;
// an endpoint reached in the end game has about half the digits).
const infTol = 1e-6

// mag1 is the modulus of one complex number from its leading limbs.
func mag1(z []float64) float64 { return fp.Hypot(z[0], z[len(z)/2]) }

// maxMag is the largest modulus (leading limbs) of the complex numbers in
// buf (mdtrack.cuh's mdtr_max_mag is its twin).
func maxMag(buf []float64, w int) float64 {
	m := 0.0
	for k := 0; k+w <= len(buf); k += w {
		m = max(m, mag1(buf[k:k+w]))
	}
	return m
}

func finite(buf []float64) bool {
	for _, f := range buf {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}
