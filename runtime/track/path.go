package track

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/mdgen/mdgen/runtime/newton"
)

func defaultWorkers() int { return runtime.GOMAXPROCS(0) }

// pathState is where a path stands: at tau with the point x (n complex
// numbers at the precision of the engine that left it) and the series of
// the last accepted solve.
type pathState struct {
	tau      float64
	x        []float64
	series   []float64
	cond     float64
	n        int // doubles per real number of x and series
	steps    int
	rejected int
	accepted int // accepted steps (every precision)
	dist     float64

	// The checkpoint: the last accepted state whose condition number left
	// half the digits of its precision (cond <= u^(-1/2)).
	safeTau           float64
	safeX, safeSeries []float64
	safeDist          float64
}

// checkpoint saves the state when it is safe.
func (st *pathState) checkpoint(u float64) {
	if st.cond*math.Sqrt(u) > 1 {
		return
	}
	st.safeTau, st.safeDist = st.tau, st.dist
	st.safeX = append(st.safeX[:0], st.x...)
	st.safeSeries = append(st.safeSeries[:0], st.series...)
}

// restore goes back to the checkpoint.
func (st *pathState) restore() {
	if st.safeX == nil {
		return
	}
	st.tau, st.dist = st.safeTau, st.safeDist
	st.x = append(st.x[:0], st.safeX...)
	st.series = append(st.series[:0], st.safeSeries...)
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
		prec = Ladder[0]
	}
	st := &pathState{tau: 1, dist: math.Inf(1)}
	start := w.h.Start(i)
	var out attempt
	var e *engine
	for {
		var err error
		e, err = w.engine(prec)
		if err != nil {
			return Path{}, err
		}
		if st.x == nil {
			st.x = make([]float64, len(start)*e.w)
			for v, z := range start {
				st.x[v*e.w] = real(z)
				st.x[v*e.w+e.n] = imag(z)
			}
			st.n = e.n
		} else {
			// Resume from the last point where the lower precision
			// kept half its digits (the points after it may be wrong).
			st.restore()
			st.x = widen(st.x, st.n, e.n)
			st.series = widen(st.series, st.n, e.n)
			st.n = e.n
		}
		out, err = e.track(st)
		if err != nil {
			return Path{}, err
		}
		if out.status != Failed && !out.uncertain || w.opt.Prec != 0 {
			break
		}
		nxt := nextPrec(prec, w.opt.MaxPrec)
		if nxt == 0 {
			break
		}
		prec = nxt
	}
	p := Path{Index: i, Status: out.status, Reason: out.reason, Prec: prec, T: 1 - st.tau,
		Steps: st.steps, Rejected: st.rejected, Multiplicity: 1}
	if err := e.endpoint(&p, st); err != nil {
		return Path{}, err
	}
	p.Seconds = time.Since(t0).Seconds()
	return p, nil
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
	k := len(buf) / (2 * from)
	out := make([]float64, k*2*to)
	for z := range k {
		copy(out[z*2*to:z*2*to+from], buf[z*2*from:z*2*from+from])
		copy(out[z*2*to+to:z*2*to+to+from], buf[z*2*from+from:(z+1)*2*from])
	}
	return out
}

// track runs the tracker loop at this engine's precision from st, which it
// updates at every accepted step (see the package documentation).
func (e *engine) track(st *pathState) (attempt, error) {
	opt := e.opt
	n := e.h.Unknowns()
	if st.series == nil {
		// The start: Newton at tau = 1 refines it and gives its series.
		res, err := e.solve(st.tau, st.x)
		if err != nil {
			return attempt{}, err
		}
		st.steps++
		if !res.Converged {
			return attempt{status: Failed, reason: fmt.Sprintf("the start does not converge at t = 0 (%v)", res.Err)}, nil
		}
		e.accept(st, res)
		st.checkpoint(e.u)
	}
	xt := make([]float64, n*e.w)
	stepsHere := 0
	for st.tau > 0 {
		if stepsHere >= opt.MaxSteps {
			return e.endgame(st, fmt.Sprintf("step limit (%d steps at %d doubles) at t = 1 - %.3g", opt.MaxSteps, e.n, st.tau)), nil
		}
		e.ar.pade(e.pd, st.series, n, e.d)
		xmax := maxMag(st.x, e.w)
		scale := max(1, xmax)
		dt := min(opt.MaxStep, st.tau)
		for v := range n {
			dt = min(dt, opt.Beta1*e.pd.Pole[v])
			if er := e.pd.Err[v]; er > 0 {
				ord := 1 / float64(e.pd.Order[v])
				dt = min(dt, math.Pow(opt.PredTol*scale/er, ord))
				if !math.IsInf(st.dist, 1) {
					dt = min(dt, math.Pow(opt.Beta2*st.dist*scale/er, ord))
				}
			}
		}
		for {
			if dt < st.tau*0x1p-20 || !(dt > 0) {
				return e.endgame(st, fmt.Sprintf("step below the minimum at t = 1 - %.3g", st.tau)), nil
			}
			if stepsHere >= opt.MaxSteps {
				return e.endgame(st, fmt.Sprintf("step limit (%d steps at %d doubles) at t = 1 - %.3g", opt.MaxSteps, e.n, st.tau)), nil
			}
			tau := st.tau - dt
			if tau < st.tau*0x1p-40 {
				tau = 0
			}
			s := st.tau - tau
			e.ar.predict(xt, e.pd, s)
			res, err := e.solve(tau, xt)
			// A step to t = 1 is accepted at a regular endpoint only:
			// one with a larger condition number is approached in the
			// end game.
			if err != nil {
				return attempt{}, err
			}
			st.steps++
			stepsHere++
			if e.acceptable(res) && (tau > 0 || res.Cond <= 1/math.Sqrt(e.u)) {
				st.tau = tau
				e.measureDistance(st, res)
				e.accept(st, res)
				st.checkpoint(e.u)
				st.accepted++
				break
			}
			st.rejected++
			if st.tau <= e.endTau() {
				return e.endgame(st, fmt.Sprintf("a rejected step at t = 1 - %.3g", st.tau)), nil
			}
			dt /= 2
		}
	}
	return attempt{status: Regular}, nil
}

// endTau is the end zone: a step rejected this close to t = 1 (u^(3/4))
// ends the path in the end game, where it goes to a singular solution or
// to infinity (a regular endpoint is reached in one step from there).
func (e *engine) endTau() float64 { return math.Pow(e.u, 0.75) }

// acceptable is the test of a corrected step: Newton converged from the
// predicted point, its first update within the predictor's tolerance, and
// its second (when above the rounding floor) a contraction.
func (e *engine) acceptable(res *newton.Result) bool {
	if !res.Converged {
		return false
	}
	if e.u1 > e.opt.PredTol*16 {
		return false
	}
	floor := math.Ldexp(e.u, 12) * max(1, res.Cond)
	if e.nref >= 2 && e.u2 > floor && e.u2 > e.u1/4 {
		return false
	}
	return true
}

// measureDistance updates the estimate of the distance to the nearest
// other path, relative to max(1, |x|): with Newton's quadratic
// convergence u2 = omega u1^2 (omega the ratio of the second derivative to
// the first along the correction), the nearest other solution of H( , t)
// is at about 1/omega (for two simple roots r1, r2 of a quadratic, omega =
// 1/|r1 - r2|). The corrector measures omega only when u2 stands above the
// rounding floor; otherwise the estimate stays.
func (e *engine) measureDistance(st *pathState, res *newton.Result) {
	floor := math.Ldexp(e.u, 12) * max(1, res.Cond)
	if e.nref >= 2 && e.u2 > floor && e.u1 > 0 {
		st.dist = e.u1 * e.u1 / e.u2
	}
}

// accept takes the solve's point and series as the path's state.
func (e *engine) accept(st *pathState, res *newton.Result) {
	n := e.h.Unknowns()
	if len(st.series) != len(res.X) {
		st.series = make([]float64, len(res.X))
	}
	copy(st.series, res.X)
	for v := range n {
		copy(st.x[v*e.w:(v+1)*e.w], res.Coef(v, 0))
	}
	st.cond = res.Cond
}

// endgame classifies a path whose steps stopped: near the end (tau at
// most 1e-6) the path goes to a singular solution or to infinity, and the
// approximants at the last point, evaluated at t = 1, give the endpoint;
// elsewhere the path failed. A coordinate that behaves like tau^r near
// the end has r = tau x'(tau) / x(tau) = Re(-tau c_1 / c_0) in the series
// x(tau - s) = c_0 + c_1 s + ... (r = 1/m for a branch of m paths): the
// path is at infinity when x_0 goes to zero that way (r >= 1/64, |x_0| <=
// 1e-2 |x|) or is already below u^(1/4) |x|, and, in affine coordinates,
// when a coordinate above 1e4 grows that way (r <= -1/64).
func (e *engine) endgame(st *pathState, reason string) attempt {
	if st.tau > 1e-6 {
		return attempt{status: Failed, reason: reason}
	}
	n := e.h.Unknowns()
	w := e.w
	trend := func(v int) float64 {
		c := st.series[v*(e.d+1)*w:]
		c0, c1 := c[:w], c[w:2*w]
		den := c0[0]*c0[0] + c0[e.n]*c0[e.n]
		if den == 0 {
			return 0
		}
		return -st.tau * (c1[0]*c0[0] + c1[e.n]*c0[e.n]) / den
	}
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
	e.ar.pade(e.pd, st.series, n, e.d)
	end := make([]float64, n*w)
	e.ar.predict(end, e.pd, st.tau)
	if finite(end) {
		copy(st.x, end)
	}
	return attempt{status: Singular, uncertain: uncertain}
}

// endpoint fills the endpoint of p from the state: the affine point, the
// status at infinity, the refinement on the target, the residual, the
// condition and whether it is real.
func (e *engine) endpoint(p *Path, st *pathState) error {
	n := len(e.h.Target.Vars)
	x := st.x
	p.Cond = st.cond
	if e.h.Projective {
		x0 := x[n*e.w : (n+1)*e.w]
		x0rel := mag1(x0) / max(maxMag(x[:n*e.w], e.w), 1e-300)
		if p.Status == Infinite || p.Status == Regular && (x0rel <= math.Ldexp(e.u, 10)*max(1, st.cond) || x0rel <= infTol && st.cond > 1/math.Sqrt(e.u)) {
			p.Status = Infinite
			return nil
		}
		aff := make([]float64, n*e.w)
		for v := range n {
			e.ar.div(aff[v*e.w:(v+1)*e.w], x[v*e.w:(v+1)*e.w], x0)
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
	if p.Status == Regular {
		if res.Converged {
			copy(p.X, res.X)
			p.Residual, p.Cond = res.Residual, res.Cond
		}
		if p.Cond > 1/math.Sqrt(e.u) || !res.Converged {
			p.Status = Singular
		}
	}
	tol := 8 * math.Sqrt(e.u)
	if p.Status == Singular {
		tol = math.Sqrt(math.Sqrt(e.u))
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

// infTol is the size of x_0 relative to the other coordinates (in
// projective coordinates) below which an endpoint that is singular or
// reached in the end game is at infinity: its affine coordinates are above
// 1e6 (PHCpack calls a solution at infinity past 1e8 in double precision;
// an endpoint reached in the end game has about half the digits).
const infTol = 1e-6

// mag1 is the modulus of one complex number from its leading limbs.
func mag1(z []float64) float64 { return math.Hypot(z[0], z[len(z)/2]) }

// maxMag is the largest modulus (leading limbs) of the complex numbers in buf.
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
