package track

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager/poly"
)

// Options configures a tracker run. The zero value of a field means its
// default.
type Options struct {
	// Prec is the precision in doubles per number (complex data); 0 means
	// automatic: every path starts at MinPrec and a path that fails (or
	// cannot tell a singular end from infinity) resumes at the next
	// precision of Ladder from its last safe point, up to MaxPrec.
	Prec    int
	MinPrec int // the first precision of the automatic rule (default 2)
	MaxPrec int // the last precision of the automatic rule (default 8)
	// PadeL and PadeM are the degrees of the numerators and denominators
	// of the Padé approximants (default [2/1]).
	PadeL, PadeM int
	// Workers is the number of paths tracked at once (default
	// GOMAXPROCS); the results do not depend on it.
	Workers int
	// MaxSteps is the most steps (accepted or not) a path may take at one
	// precision (default 1000, PHCpack's).
	MaxSteps int
	// MaxStep is the largest step in t (default 0.5: the other bounds of
	// the step keep it below 0.5 on every family measured, and 0.1, the
	// value before, was the bound of most steps on noon: 12.4 to 6.7 steps
	// per path on noon 4 and 11.7 to 6.2 on noon 5, 1.6 times the paths
	// per second, katsura 6 and 7 and cyclic 5 with 2 to 5% fewer steps,
	// every count the same, also on cyclic 6, katsura 8 and 10 and noon
	// 6; 0.3 takes 3% more steps on noon, 1 the same as 0.5).
	MaxStep float64
	// Beta1 is the fraction of the pole radius a step may take (default
	// 0.75; PHCpack's is 0.5, which takes a third more steps on katsura
	// and cyclic for the same solutions, measured); Beta2 the fraction of the estimated distance to the
	// nearest other path that the predictor's error may reach (default
	// 0.25, see the package documentation).
	Beta1, Beta2 float64
	// PredTol bounds the predictor's estimated error and the corrector's
	// first update (at most 8 PredTol), relative to max(1, |x|) (default
	// 1e-2).
	PredTol float64
	// CorrectEveryPoint runs the corrector at the tracking precision at
	// every point, also where the series precision gives its accuracy
	// (see the package documentation, One step, item 4): the tracker
	// before that rule, at 1.2 to 1.6 times the time per path at 2
	// doubles and 1.5 to 2.9 times at 4 (katsura 6 and 7, noon 4 and 5,
	// cyclic 5), the same counts.
	CorrectEveryPoint bool
	// Progress, when not nil, is called after each path with the numbers
	// of paths done and failed so far (from several goroutines, never at
	// once).
	Progress func(done, failed int64)
	// FirstPass leaves the paths that crossed (two at one regular root) as
	// the first pass ends them, without Track's rounds of tracking them
	// again: for the parts of a run (shards), whose crossed paths
	// TrackCrossed tracks again once the parts are put together, so that
	// the whole has the bits of one run.
	FirstPass bool
	// Source, when not nil, hands out the paths of the run (0-based
	// offsets into first..first+count-1, each at most once, as Track's own
	// queue does) instead of that queue, until it is closed: another process decides which paths this
	// one tracks (mdgen track's process per GPU). A worker waiting for the
	// next path leaves its device meanwhile. A Source run is a first pass
	// (FirstPass must be set) and is not classified: the paths it did not
	// hand out stay zero in Run.Paths. A failed device fails the run (the
	// process that gave the paths gives them to another).
	Source <-chan int64
	// PathDone, when not nil, is called with each path of the first pass
	// once it is tracked (k: its index into Run.Paths), from several
	// goroutines at once.
	PathDone func(k int64, p *Path)
	// Devices, when not empty, do the numeric work of the solvers (see
	// Device): worker i uses Devices[i mod len(Devices)] (several GPUs:
	// one device each, the workers split evenly). Every worker takes its
	// next path from one queue, so the workers of a faster device track
	// more paths. The results do not change. A device that fails (a
	// DeviceError) takes no more paths and its paths go back to the
	// queue (Run.DeviceFailures); the run fails only when every device
	// failed.
	Devices []Device

	// device is the worker's device (Devices[i mod len], set per worker),
	// path the index of the path the worker tracks (for PathNamer).
	device Device
	path   func() int64
}

// Ladder is the sequence of precisions of the automatic rule.
var Ladder = []int{1, 2, 4, 8, 16}

func (o *Options) fill() error {
	if o.MaxPrec == 0 {
		o.MaxPrec = 8
	}
	if o.MinPrec == 0 {
		o.MinPrec = 2
	}
	if o.PadeL == 0 && o.PadeM == 0 {
		o.PadeL, o.PadeM = 2, 1
	}
	if o.PadeL < 0 || o.PadeM < 0 || o.PadeL+o.PadeM > 16 {
		return fmt.Errorf("track: Padé degrees [%d/%d]: need L, M >= 0 and L + M <= 16", o.PadeL, o.PadeM)
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = 1000
	}
	if o.MaxStep <= 0 {
		o.MaxStep = 0.5
	}
	if o.Beta1 <= 0 {
		o.Beta1 = 0.75
	}
	if o.Beta2 <= 0 {
		o.Beta2 = 0.25
	}
	if o.PredTol <= 0 {
		o.PredTol = 1e-2
	}
	if o.Prec != 0 {
		if err := (mdops.Prec{N: o.Prec, Complex: true}).Check(); err != nil {
			return fmt.Errorf("track: %w", err)
		}
	}
	if err := (mdops.Prec{N: o.MaxPrec, Complex: true}).Check(); err != nil {
		return fmt.Errorf("track: the largest precision: %w", err)
	}
	if err := (mdops.Prec{N: o.MinPrec, Complex: true}).Check(); err != nil || o.MinPrec > o.MaxPrec {
		return fmt.Errorf("track: the automatic precision from %d to %d doubles: need generated precisions, the first at most the last", o.MinPrec, o.MaxPrec)
	}
	return nil
}

// Status is the outcome of one path.
type Status int

const (
	Regular  Status = iota + 1 // a finite solution with a condition number below the precision's bound
	Singular                   // a finite solution with a larger condition number, or one that several paths reach
	Infinite                   // the path goes to infinity (x_0 -> 0 in projective coordinates)
	Failed                     // see Path.Reason
)

func (s Status) String() string {
	switch s {
	case Regular:
		return "regular"
	case Singular:
		return "singular"
	case Infinite:
		return "infinite"
	case Failed:
		return "failed"
	}
	return "unknown"
}

// Path is the outcome of tracking one path.
type Path struct {
	Index  int64 // 0-based path index
	Status Status
	Reason string // why a path failed (empty otherwise)
	// Prec is the precision (doubles) the path ended at; X its endpoint in
	// the target's unknowns, n complex numbers of 2 Prec float64s each (N
	// real limbs, then N imaginary limbs); nil for a path at infinity.
	Prec int
	X    []float64
	// T is the value of t reached (1 when the path ended at t = 1).
	T float64
	// Cond is the condition estimate of the Jacobian at the endpoint
	// (1-norm, of R in its QR), Residual ||f(x)||_1 there (of the scaled
	// system in the scaled unknowns when Homotopy.Scaling is set).
	Cond, Residual float64
	// Err estimates the error of the endpoint relative to max(1, |x|) (in
	// the scaled unknowns when Homotopy.Scaling is set):
	// the last update of Newton at t = 1 for a regular endpoint, and for
	// one extrapolated in the end game its distance from the last point
	// of the path (the two paths of a double root, 2 sqrt(tau) apart, end
	// within it of each other).
	Err float64
	// Multiplicity is the number of paths that end at this solution.
	Multiplicity int
	// Tracked is the status the path ended with, before several paths at
	// one solution made it singular (shards keep it: Classify).
	Tracked Status
	// Real: every imaginary part is below the precision's tolerance.
	Real bool
	// Steps and Rejected count the steps of the path (every precision).
	Steps, Rejected int
	// Newton counts the Newton steps of the path (corrector and series).
	Newton  int
	Seconds float64
}

// Run is the outcome of a tracker run.
type Run struct {
	Homotopy *Homotopy
	Options  Options
	Paths    []Path
	// Scale is the binary exponent of the unit of each of the target's
	// unknowns, Homotopy.Scaling.Var (nil: unscaled): the endpoints are
	// compared (classify) coordinate by coordinate relative to
	// max(2^Scale[v], |x_v|), as the tracker saw them in the scaled
	// unknowns. Runs put together from shards carry it too.
	Scale   []int
	Summary Summary
	Seconds float64
	// Crossed lists, for each round of tracking again, the paths (indices
	// into Paths, increasing) that had ended at one regular root with
	// another path, tracked again with smaller steps (Options.stricter).
	Crossed [][]int64
	// DeviceFailures are the devices that failed during the run, in the
	// order of Options.Devices (their paths were tracked on the others).
	DeviceFailures []DeviceFailure
}

// Summary counts the paths by status.
type Summary struct {
	Regular, Singular, Infinite, Failed int
	Real, Distinct                      int
}

// Track follows the paths first..first+count-1 of h (count <= 0: to the
// last). The error is for bad options or a failure to set up the solvers;
// a path that fails is a Path with Status Failed.
func Track(h *Homotopy, opt Options, first, count int64) (*Run, error) {
	if err := opt.fill(); err != nil {
		return nil, err
	}
	if first < 0 || first >= h.paths {
		return nil, fmt.Errorf("track: path %d out of range 1..%d", first+1, h.paths)
	}
	if count <= 0 || first+count > h.paths {
		count = h.paths - first
	}
	if count > 1<<26 {
		return nil, fmt.Errorf("track: %d paths in one run: track at most %d at a time (ranges of path indices, merged afterwards)", count, 1<<26)
	}
	if opt.Workers <= 0 {
		opt.Workers = defaultWorkers()
	}
	if opt.Source != nil && !opt.FirstPass {
		return nil, errors.New("track: a run whose paths come from a Source is a first pass (Options.FirstPass)")
	}
	workers := int(min(int64(opt.Workers), count))
	start := time.Now()
	run := &Run{Homotopy: h, Options: opt, Paths: make([]Path, count)}
	if h.Scaling != nil {
		run.Scale = h.Scaling.Var
	}
	shared := &sharedCoefs{h: h}
	var done, failed atomic.Int64
	var mu sync.Mutex // firstErr, devs, Progress
	devs := make([]DeviceFailure, len(opt.Devices))
	// pool tracks the paths ks (indices into run.Paths; nil: every one)
	// with the options o on the workers, and returns how many it left
	// untracked (every device failed). progress: the first pass, whose
	// paths Options.Progress counts.
	pool := func(ks []int64, o Options, progress bool) (int64, error) {
		n := count
		if ks != nil {
			n = int64(len(ks))
		}
		q := newPathQueue(n)
		if ks == nil {
			q.src = opt.Source
		}
		// at is the queue's index of run.Paths[k] (its position in ks).
		at := func(k int64) int64 {
			if ks == nil {
				return k
			}
			i, _ := slices.BinarySearch(ks, k)
			return int64(i)
		}
		var firstErr error
		var wg sync.WaitGroup
		for i := range int(min(int64(workers), n)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				wopt := o
				var path atomic.Int64
				joined := false
				d := -1
				if len(opt.Devices) > 0 {
					d = i % len(opt.Devices)
					wopt.device = opt.Devices[d]
					wopt.path = path.Load
					wopt.device.Join()
					joined = true
					defer func() {
						if joined {
							wopt.device.Leave()
						}
					}()
				}
				// A worker waiting for a path that may come back leaves its
				// device, whose other workers go on without it.
				idle, busy := func() {}, func() {}
				if d >= 0 {
					idle = func() { wopt.device.Leave(); joined = false }
					busy = func() { wopt.device.Join(); joined = true }
				}
				deviceFailed := func() bool {
					mu.Lock()
					defer mu.Unlock()
					return d >= 0 && devs[d].Err != nil
				}
				w := &worker{h: h, opt: &wopt, shared: shared, engines: map[int]*engine{}}
				defer w.close()
				for {
					k, ok := q.take(idle, busy)
					if !ok {
						return
					}
					if ks != nil {
						k = ks[k]
					}
					if deviceFailed() {
						q.putBack(at(k))
						return
					}
					path.Store(first + k)
					p, err := w.trackPath(first + k)
					if err != nil && d >= 0 && isDeviceError(err) && q.src == nil {
						q.putBack(at(k))
						mu.Lock()
						if devs[d].Err == nil {
							devs[d].Err = err
						}
						devs[d].Requeued++
						mu.Unlock()
						return
					}
					if err != nil {
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
						q.stop()
						return
					}
					run.Paths[k] = p
					q.finish()
					if !progress {
						continue
					}
					if opt.PathDone != nil {
						opt.PathDone(k, &run.Paths[k])
					}
					if p.Status == Failed {
						failed.Add(1)
					}
					n := done.Add(1)
					if opt.Progress != nil {
						mu.Lock()
						opt.Progress(n, failed.Load())
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		return q.left(), firstErr
	}
	left, err := pool(nil, opt, true)
	classified := false // run holds the classification of its paths
	if err == nil && left == 0 && !opt.FirstPass {
		classified, err = crossingRoundsOf(run, opt, func(ks []int64, o Options) (bool, error) {
			left, err = pool(ks, o, false)
			return left == 0, err
		})
	}
	if err != nil {
		return nil, err
	}
	var devErrs []error
	for d, f := range devs {
		if f.Err != nil {
			f.Device = d
			run.DeviceFailures = append(run.DeviceFailures, f)
			devErrs = append(devErrs, fmt.Errorf("device %d: %w", d, f.Err))
		}
	}
	if left > 0 {
		return nil, fmt.Errorf("track: every device failed, %d paths not tracked: %w", left, errors.Join(devErrs...))
	}
	if !classified && opt.Source == nil {
		classify(run)
	}
	run.Seconds = time.Since(start).Seconds()
	return run, nil
}

// pathQueue hands out the indices 0..count-1 of a run's paths (or those
// that Options.Source gives), first those put back by a worker whose
// device failed.
type pathQueue struct {
	mu       sync.Mutex
	cond     sync.Cond
	next     int64
	count    int64
	back     []int64
	inFlight int // paths taken, neither finished nor put back
	stopped  bool
	// src, when not nil, hands out the paths instead of next..count-1
	// (Options.Source); stopCh is closed by stop.
	src    <-chan int64
	stopCh chan struct{}
}

func newPathQueue(count int64) *pathQueue {
	q := &pathQueue{count: count, stopCh: make(chan struct{})}
	q.cond.L = &q.mu
	return q
}

// takeSource is take for a queue whose paths come from src: a worker
// that has to wait for one leaves its device meanwhile (idle, busy).
func (q *pathQueue) takeSource(idle, busy func()) (int64, bool) {
	q.mu.Lock()
	stopped := q.stopped
	if !stopped && len(q.back) > 0 {
		k := q.back[len(q.back)-1]
		q.back = q.back[:len(q.back)-1]
		q.inFlight++
		q.mu.Unlock()
		return k, true
	}
	q.mu.Unlock()
	if stopped {
		return 0, false
	}
	got := func(k int64, ok bool) (int64, bool) {
		if ok {
			q.mu.Lock()
			q.inFlight++
			q.mu.Unlock()
		}
		return k, ok
	}
	select {
	case k, ok := <-q.src:
		return got(k, ok)
	case <-q.stopCh:
		return 0, false
	default:
	}
	idle()
	select {
	case k, ok := <-q.src:
		if ok {
			busy()
		}
		return got(k, ok)
	case <-q.stopCh:
		return 0, false
	}
}

// take returns the next path to track, false when there is none left.
// While there is none but paths are in flight (each may come back from a
// failed device) it waits, calling idle before and busy after it got one.
func (q *pathQueue) take(idle, busy func()) (int64, bool) {
	if q.src != nil {
		return q.takeSource(idle, busy)
	}
	q.mu.Lock()
	k, ok, wait := q.pop()
	q.mu.Unlock()
	if !wait {
		return k, ok
	}
	idle()
	q.mu.Lock()
	for k, ok, wait = q.pop(); wait; k, ok, wait = q.pop() {
		q.cond.Wait()
	}
	q.mu.Unlock()
	if ok {
		busy()
	}
	return k, ok
}

// pop takes a path (q.mu held); wait: none now, but some may come back.
func (q *pathQueue) pop() (k int64, ok, wait bool) {
	switch {
	case q.stopped:
		return 0, false, false
	case len(q.back) > 0:
		k = q.back[len(q.back)-1]
		q.back = q.back[:len(q.back)-1]
	case q.next < q.count:
		k = q.next
		q.next++
	default:
		return 0, false, q.inFlight > 0
	}
	q.inFlight++
	return k, true, false
}

// finish marks a taken path tracked.
func (q *pathQueue) finish() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.inFlight--; q.inFlight == 0 {
		q.cond.Broadcast()
	}
}

// putBack returns a taken path to the queue.
func (q *pathQueue) putBack(k int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.back = append(q.back, k)
	q.inFlight--
	q.cond.Broadcast()
}

// stop ends the run: no more paths are handed out.
func (q *pathQueue) stop() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.stopped {
		close(q.stopCh)
	}
	q.stopped = true
	q.cond.Broadcast()
}

// left is the number of paths not tracked (after the workers ended).
func (q *pathQueue) left() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.src != nil {
		return int64(len(q.back))
	}
	return int64(len(q.back)) + q.count - q.next
}

// sharedCoefs rounds H's coefficients once per precision for every worker.
// The GPU tracker's thousands of workers all read it as they start: a
// read takes no lock (a mutex here was the most waited-for lock of
// katsura12's run on the H100).
type sharedCoefs struct {
	h      *Homotopy
	byPrec sync.Map // n -> *roundedCoefs
}

// roundedCoefs are H's coefficients at one precision, rounded once, as
// backend.ParamCoefs: term k at (tau, e) is what level.setAt sets, the
// series of its polynomial in t at tau, scaled by 2^(-(d_i - 1) e) in
// projective coordinates (e: setAt's).
type roundedCoefs struct {
	once sync.Once
	pc   *backend.ParamCoefs
	err  error
}

func (s *sharedCoefs) get(n int) (*backend.ParamCoefs, error) {
	v, ok := s.byPrec.Load(n)
	if !ok {
		v, _ = s.byPrec.LoadOrStore(n, &roundedCoefs{})
	}
	r := v.(*roundedCoefs)
	r.once.Do(func() { r.pc, r.err = s.round(n) })
	return r.pc, r.err
}

// round rounds H's coefficients to n doubles.
func (s *sharedCoefs) round(n int) (*backend.ParamCoefs, error) {
	ar, err := arithFor(n)
	if err != nil {
		return nil, err
	}
	terms := s.roundTerms(n)
	if s.h.Projective {
		for k := range terms {
			terms[k].Scale = -(s.h.Degrees[terms[k].I] - 1)
		}
	}
	return backend.NewParamCoefs(mdops.Prec{N: n, Complex: true}, terms, ar.shift)
}

// roundTerms rounds H's coefficients to n doubles.
func (s *sharedCoefs) roundTerms(n int) []backend.ParamCoef {
	w := 2 * n
	var out []backend.ParamCoef
	round := func(i, j int, c poly.Series) {
		if len(c) == 0 {
			return
		}
		buf := make([]float64, len(c)*w)
		for k := range c {
			backend.RoundRat(buf[k*w:k*w+n], &c[k].Re)
			backend.RoundRat(buf[k*w+n:(k+1)*w], &c[k].Im)
		}
		out = append(out, backend.ParamCoef{I: i, J: j, Poly: buf})
	}
	for i := range s.h.sys.Polys {
		if s.h.Projective && i == len(s.h.Degrees) {
			break // the chart: each path's own (level.setAt)
		}
		p := &s.h.sys.Polys[i]
		round(i, -1, p.Const)
		for j := range p.Terms {
			round(i, j, p.Terms[j].Coef)
		}
	}
	return out
}

// worker tracks paths one after the other, with one engine per precision.
type worker struct {
	h       *Homotopy
	opt     *Options
	shared  *sharedCoefs
	engines map[int]*engine
	chart   pathChart // the chart of the path it tracks (projective coordinates)
}

// pathChart is the affine chart of one path in projective coordinates
// (Homotopy.Chart): sum_j a_j x_j = rhs.
type pathChart struct {
	a   []complex128
	rhs complex128
	// gen counts the charts the worker set (a new path's): a level
	// sets the chart's row again only when it changed (level.chartGen).
	gen int
}

func (w *worker) close() {
	for _, e := range w.engines {
		e.close()
	}
}

func (w *worker) engine(n int) (*engine, error) {
	if e, ok := w.engines[n]; ok {
		return e, nil
	}
	e, err := newEngine(w.h, w.opt, n, w.shared, &w.chart)
	if err != nil {
		return nil, err
	}
	w.engines[n] = e
	return e, nil
}

// Precisions returns, in increasing order, the precisions (doubles per
// number) whose Newton solvers a run with these options may make: each
// tracking precision (Prec, or the automatic rule's MinPrec and the
// Ladder above it up to MaxPrec) and below each the precisions of its
// predictor's series (SeriesPrec, then the Ladder). A GPU tracker builds
// their kernels before the run, in one parallel nvcc call.
func (o Options) Precisions() ([]int, error) {
	if err := o.fill(); err != nil {
		return nil, err
	}
	tracking := []int{o.Prec}
	if o.Prec == 0 {
		tracking = nil
		for p := o.MinPrec; p != 0; p = nextPrec(p, o.MaxPrec) {
			tracking = append(tracking, p)
		}
	}
	var ps []int
	for _, n := range tracking {
		for q := SeriesPrec(n); q != 0 && q < n; q = nextPrec(q, n) {
			ps = append(ps, q)
		}
		ps = append(ps, n)
	}
	slices.Sort(ps)
	return slices.Compact(ps), nil
}

// SeriesPrec is the precision of the series that the predictor is made of
// when the path is tracked at n doubles: the predictor needs a few digits
// (its error is checked against PredTol, 1e-2 by default), so the series is
// computed at one double up to 4 doubles and at a quarter of the
// precision above, from the corrected point rounded; the corrector works
// at n doubles. At one double a single solve corrects and gives the
// series.
func SeriesPrec(n int) int {
	if n <= 4 {
		return 1
	}
	return n / 4
}

// level is Newton's solver of H at one precision and degree, with the
// homotopy's coefficients rounded to that precision and the arithmetic.
type level struct {
	n, w int // doubles per real number, per complex number
	ar   arith
	u    float64
	sol  *newton.Solver
	// pc: H's coefficients at this precision, functions of tau (setAt;
	// a solver whose executors compute them takes tau alone:
	// newton.Solver.SetParam).
	pc    *backend.ParamCoefs
	shift []float64
	// In projective coordinates: the chart of the path (set at every
	// solve) and the degrees of H's other equations (their rows are
	// scaled to the point: setAt).
	chart   *pathChart
	degrees []int
	// chartGen is the chart.gen whose row the solver holds (setAt: a
	// path's chart is the same at every solve; 0: none yet). A level's
	// solver is closed only with its engine, never prepared again, so
	// the row it holds stays set.
	chartGen int

	// The corrector's first two updates (phase 1 of the last solve).
	u1, u2 float64
	nref   int
	// lastRefine is the last relative update of x(0) (phase 1).
	lastRefine float64
	// newtonSteps counts every Newton step of this solver.
	newtonSteps int
	pd          *padeSet  // the approximants of this level's series (degree > 0)
	tol         float64   // Newton's RefineTol (refineTol, or seriesRefineTol below the tracking precision)
	x           []float64 // a point at this precision (scratch)
}

func newLevel(h *Homotopy, opt *Options, n, degree int, pc *backend.ParamCoefs, chart *pathChart, tol float64) (*level, error) {
	ar, err := arithFor(n)
	if err != nil {
		return nil, err
	}
	p := mdops.Prec{N: n, Complex: true}
	l := &level{n: n, w: 2 * n, ar: ar, u: p.UnitRoundoff(), pc: pc, x: make([]float64, h.Unknowns()*2*n), tol: tol}
	if h.Projective {
		l.chart, l.degrees = chart, h.Degrees
	}
	if degree > 0 {
		l.pd = newPadeSet(opt.PadeL, opt.PadeM, h.Unknowns(), 2*n)
	}
	maxLen := l.w // a coefficient of the chart
	maxLen = max(maxLen, pc.Len*l.w)
	l.shift = make([]float64, maxLen)
	l.sol, err = newton.New(h.template, opt.solverOptions(newton.Options{Prec: p, Degree: degree, Workers: 1, Plans: h.plans,
		MaxCond: math.Ldexp(1/l.u, -8), RefineTol: tol, NoFinalResidual: true, NoResidual: true, NoStageTimes: true}))
	if err != nil {
		return nil, err
	}
	if err := l.sol.Prepare(); err != nil {
		return nil, err
	}
	l.sol.SetProgress(func(si newton.StepInfo) {
		l.newtonSteps++
		if !si.Refine {
			return
		}
		l.nref++
		l.lastRefine = si.Update
		switch l.nref {
		case 1:
			l.u1 = si.Update
		case 2:
			l.u2 = si.Update
		}
	})
	return l, nil
}

// setAt gives the solver H's coefficients shifted to tau: the series in s
// of c(tau - s) (or, where the solver's executors compute them from tau,
// tau alone: newton.Solver.SetParam). In projective coordinates the chart
// is the path's (its row set once a path), and at
// the end, tau = 0, for a solve from the point x, equation i (homogeneous
// of degree d_i) is multiplied by 2^(-(d_i - 1) e), 2^e the power of two
// nearest to the largest |x_j|: the rows of its Jacobian scale as the
// point to the power d_i - 1 (the chart's row not at all), and the
// condition number there decides a regular end (MaxRegularCond), which
// must be the endpoint's, not its representative's on the chart. On
// cyclic 7-roots two simple roots had 2.4e8 and 2.4e10 unscaled and
// ended singular (the first at 33 times the start's scale; 1.7e4
// scaled). A power of two scales exactly, and the equations' zeros do not
// change. Before the end nothing is scaled: the decisions there compare
// the condition number with the precision (1/u, u^(-1/2)), far above the
// factors of a point of moderate scale (the aligned charts start at 1);
// and on cyclic 7, scaling every solve changed the histories of paths to
// infinity through condition numbers of 1e30 (2 of 4,116 failed at 8
// doubles, none unscaled).
func (l *level) setAt(tau float64, x []float64) error {
	e := 0
	if l.chart != nil && tau == 0 {
		if m := maxMag(x, l.w); m > 0 && !math.IsInf(m, 0) && !math.IsNaN(m) {
			e = math.Ilogb(m * math.Sqrt2)
		}
	}
	onDevice, err := l.sol.SetParam(l.pc, backend.ParamAt{Tau: tau, E: e})
	if err != nil {
		return err
	}
	for k := 0; k < len(l.pc.Terms) && !onDevice; k++ {
		c := &l.pc.Terms[k]
		buf := l.shift[:len(c.Poly)]
		l.pc.Series(k, tau, e, buf)
		if err := l.sol.SetCoefficient(c.I, c.J, buf); err != nil {
			return err
		}
	}
	if l.chart == nil || l.chartGen == l.chart.gen {
		return nil
	}
	row := len(l.degrees)
	buf := l.shift[:l.w]
	set := func(j int, z complex128) error {
		clear(buf)
		buf[0], buf[l.n] = real(z), imag(z)
		return l.sol.SetCoefficient(row, j, buf)
	}
	for j, a := range l.chart.a {
		if err := set(j, a); err != nil {
			return err
		}
	}
	if err := set(-1, -l.chart.rhs); err != nil {
		return err
	}
	l.chartGen = l.chart.gen
	return nil
}

// solve runs Newton at tau from x (n numbers at this precision): the
// correction of x and, with a degree above 0, the series x(tau - s).
func (l *level) solve(tau float64, x []float64) (*newton.Result, error) {
	if err := l.setAt(tau, x); err != nil {
		return nil, err
	}
	l.u1, l.u2, l.nref = 0, 0, 0
	// At t = 1 (tau = 0) the corrector refines to the working precision:
	// a step there is accepted only when the endpoint is regular, and the
	// test at infinity needs every digit of x_0.
	if tau == 0 {
		l.sol.SetRefineTol(0)
		defer l.sol.SetRefineTol(l.tol)
	}
	return l.sol.SolveLimbs(x)
}

// engine is one worker's machinery at one tracking precision: the
// corrector at that precision, the series at SeriesPrec and, where the
// condition number asks for more, at higher precisions (levels made on
// first use; at the tracking precision the series solve also corrects),
// the root refiner of the target.
type engine struct {
	n, w   int // the tracking precision: doubles per real, per complex number
	u      float64
	cor    *level         // the corrector (degree 0; degree L+M+1 when unsplit)
	series map[int]*level // the series solvers by precision (degree L+M+1)
	// last is the solver of the last step's first solve (to tau = 0)
	// below the tracking precision: degree 0 at SeriesPrec (no series
	// is needed at the end), made on first use.
	last   *level
	ref    *newton.Solver
	h      *Homotopy
	opt    *Options
	shared *sharedCoefs
	chart  *pathChart // the worker's
	d      int
}

func newEngine(h *Homotopy, opt *Options, n int, shared *sharedCoefs, chart *pathChart) (*engine, error) {
	d := opt.PadeL + opt.PadeM + 1
	e := &engine{n: n, w: 2 * n, u: mdops.Prec{N: n}.UnitRoundoff(), h: h, opt: opt, d: d, shared: shared,
		chart: chart, series: map[int]*level{}}
	pc, err := shared.get(n)
	if err != nil {
		return nil, err
	}
	if e.split() {
		e.cor, err = newLevel(h, opt, n, 0, pc, chart, refineTol)
	} else {
		e.cor, err = newLevel(h, opt, n, d, pc, chart, refineTol)
		e.series[n] = e.cor
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

func (e *engine) close() {
	e.cor.sol.Close()
	if e.last != nil {
		e.last.sol.Close()
	}
	for _, l := range e.series {
		if l != e.cor {
			l.sol.Close()
		}
	}
	if e.ref != nil {
		e.ref.Close()
	}
}

// split reports whether the series has a solver of its own (the series
// precision is below the tracking one).
func (e *engine) split() bool { return SeriesPrec(e.n) != e.n }

// seriesLevel returns the solver of the series at q doubles (made on first
// use).
// lastLevel returns the solver of the last step's first solve below the
// tracking precision (made on first use): Newton at degree 0 at
// SeriesPrec. The path ends there and needs no series; and an attempt at
// t = 1 that cannot converge (a path to infinity or to a singular end,
// where Newton converges linearly or not at all) ends on the step limit
// of degree 0 (10 steps at one double) instead of that of the series (17
// steps). Newton steps per path at 2 doubles: noon 4 45.8 to 38.8, noon 5
// 40.1 to 35.0, cyclic 5 188 to 169, katsura 6 153 to 149; paths per CPU
// second at 2 and 4 doubles: noon 4 11 to 19% more, noon 5 6 to 16%,
// cyclic 5 5 to 10%, katsura 6 and 7 the same; the same counts.
func (e *engine) lastLevel() (*level, error) {
	if e.last != nil {
		return e.last, nil
	}
	q := SeriesPrec(e.n)
	pc, err := e.shared.get(q)
	if err != nil {
		return nil, err
	}
	l, err := newLevel(e.h, e.opt, q, 0, pc, e.chart, seriesRefineTol)
	if err != nil {
		return nil, err
	}
	e.last = l
	return l, nil
}

func (e *engine) seriesLevel(q int) (*level, error) {
	if l, ok := e.series[q]; ok {
		return l, nil
	}
	tol := refineTol
	if q < e.n {
		tol = seriesRefineTol
	}
	pc, err := e.shared.get(q)
	if err != nil {
		return nil, err
	}
	l, err := newLevel(e.h, e.opt, q, e.d, pc, e.chart, tol)
	if err != nil {
		return nil, err
	}
	e.series[q] = l
	return l, nil
}

// seriesPrec is the precision of the series at a point of condition
// number cond: the smallest of SeriesPrec(n), then the Ladder, whose
// u^(-1/2) is at least cond (the series keeps half its digits), at most
// the tracking precision.
func (e *engine) seriesPrec(cond float64) int {
	return seriesPrecAt(e.n, cond)
}

// seriesPrecAt is seriesPrec of a path tracked at n doubles. Where no
// precision of the Ladder between SeriesPrec(n) and n suffices (n off the
// Ladder: 3, 5, 10), the series is made at n itself.
func seriesPrecAt(n int, cond float64) int {
	q := SeriesPrec(n)
	for q < n && cond*math.Sqrt(mdops.Prec{N: q}.UnitRoundoff()) > 1 {
		if q = nextPrec(q, n); q == 0 {
			return n
		}
	}
	return q
}

// refiner returns the root refiner of the target.
func (e *engine) refiner() (*newton.Solver, error) {
	if e.ref != nil {
		return e.ref, nil
	}
	r, err := newton.New(e.h.tracked, e.opt.solverOptions(newton.Options{Prec: mdops.Prec{N: e.n, Complex: true}, Workers: 1,
		Plans: e.h.TrackedPlans()}))
	if err != nil {
		return nil, err
	}
	e.ref = r
	return r, nil
}

// refineTol is the corrector's tolerance on its relative update (Newton's
// RefineTol): the point is then within about 1e-12 of the path, far below
// what the predictor needs; the endpoint is refined to the working
// precision on the target.
const refineTol = 1e-6

// seriesRefineTol is the tolerance of the series' own correction below the
// tracking precision: the point is within about 1e-8 of the path, as much
// as the series for the predictor needs; the corrector at the tracking
// precision takes it from there.
const seriesRefineTol = 1e-4

// crossingRounds is the most rounds of tracking crossed paths again.
const crossingRounds = 2

// crossingRoundsOf runs the rounds of tracking crossed paths again on run
// after its first pass, for Track and TrackCrossed alike: two paths of a
// generic homotopy never end at one regular root, so one of them jumped
// to another path. Each round tracks the paths that crossedPaths finds
// again with smaller steps (Options.stricter), as PHCpack and
// HomotopyContinuation.jl do; again(ks, o) tracks the paths ks with o
// into run and reports whether it tracked them all (false: a device
// failed, and the rounds stop). It returns whether run holds its
// classification (no path crossed after the last round tracked).
func crossingRoundsOf(run *Run, opt Options, again func(ks []int64, o Options) (bool, error)) (classified bool, err error) {
	for round := 1; round <= crossingRounds; round++ {
		ks := crossedPaths(run)
		if len(ks) == 0 {
			return true, nil
		}
		run.Crossed = append(run.Crossed, ks)
		if all, err := again(ks, opt.stricter(round)); err != nil || !all {
			return false, err
		}
	}
	return false, nil
}

// TrackCrossed does for run what Track does after its first pass: the
// rounds of tracking crossed paths again, then the classification. run
// holds paths first..first+len-1 of h as one Track with opt and
// FirstPass leaves them, or as the shards of such runs put together (in
// the order of their indices, Tracked set: Classify), and the result is
// that of one Track of those paths without FirstPass, bit for bit. Each
// crossed path is tracked alone, on the host's cores (at most opt.Workers
// at once; opt.Devices are not used: a round holds a few paths, which a
// device runs at the latency of a step). On an error run is left
// unclassified.
func TrackCrossed(h *Homotopy, opt Options, run *Run) error {
	opt.FirstPass = false
	if err := opt.fill(); err != nil {
		return err
	}
	workers := defaultWorkers()
	if opt.Workers > 0 {
		workers = min(workers, opt.Workers)
	}
	classified, err := crossingRoundsOf(run, opt, func(ks []int64, o Options) (bool, error) {
		o.Devices, o.Progress, o.Workers = nil, nil, 1
		errs := make([]error, len(ks))
		par.RunOn(workers, len(ks), func(_, i int) {
			k := ks[i]
			one, err := Track(h, o, run.Paths[k].Index, 1)
			if err != nil {
				errs[i] = err
				return
			}
			run.Paths[k] = one.Paths[0]
		})
		return true, errors.Join(errs...)
	})
	if err != nil {
		return err
	}
	if !classified {
		classify(run)
	}
	return nil
}

// crossedPaths classifies run's endpoints (Classify) and returns the
// paths, increasing, that ended Regular at a solution that another path
// reached too: of two paths at one regular root, one jumped from its own
// path (a path that ends Singular is left alone: several paths do end at
// a multiple root). When there are none, run keeps its classification;
// otherwise its paths are left as the tracker left them.
func crossedPaths(run *Run) []int64 {
	Classify(run)
	var ks []int64
	for k := range run.Paths {
		if p := &run.Paths[k]; p.Tracked == Regular && p.Multiplicity > 1 {
			ks = append(ks, int64(k))
		}
	}
	if len(ks) == 0 {
		return nil
	}
	for k := range run.Paths {
		p := &run.Paths[k]
		p.Status, p.Multiplicity = p.Tracked, 1
	}
	run.Summary = Summary{}
	return ks
}

// stricter returns the options of round r of tracking crossed paths
// again: the bounds of the step (MaxStep, Beta1, Beta2 and PredTol)
// divided by 4^r.
func (o Options) stricter(r int) Options {
	f := math.Ldexp(1, -2*r)
	o.MaxStep *= f
	o.Beta1 *= f
	o.Beta2 *= f
	o.PredTol *= f
	return o
}
