//go:build cuda

package gpu

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
)

// NewtonKernels are the loaded fatbins of the device-resident Newton
// driver at one precision and kind of data: the evaluation kernels (the
// GPU executor's) and the linear algebra with the driver's kernels
// (gen.NewtonCUSources gives both sources).
type NewtonKernels struct {
	dev  *cudadev.Device
	eval *Kernels
	la   *cudadev.Module
	fns  map[string]*cudadev.Function
	prec mdops.Prec
}

// LoadNewtonKernels loads the two fatbins of gen.NewtonCUSources(p) on dev
// and checks that they have every kernel the driver launches.
func LoadNewtonKernels(dev *cudadev.Device, evalFatbin, laFatbin []byte, p mdops.Prec) (*NewtonKernels, error) {
	ev, err := LoadKernels(dev, evalFatbin, p.N, p.Complex)
	if err != nil {
		return nil, err
	}
	mod, err := dev.LoadModule(laFatbin)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("gpu: loading the %d-double linear-algebra kernels: %w", p.N, err), ev.Close())
	}
	k := &NewtonKernels{dev: dev, eval: ev, la: mod, fns: map[string]*cudadev.Function{}, prec: p}
	for _, op := range gpuabi.LAOps {
		name := gpuabi.LAKernelName(op, p)
		f, err := mod.Function(name)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("gpu: module %s: %w: kernel %s: %v", mod.Name(), ErrModule, name, err), k.Close())
		}
		k.fns[name] = f
	}
	return k, nil
}

// Close unloads the kernels.
func (k *NewtonKernels) Close() error {
	var errs []error
	if k.la != nil {
		errs = append(errs, k.la.Unload())
		k.la = nil
	}
	if k.eval != nil {
		errs = append(errs, k.eval.Close())
		k.eval = nil
	}
	return errors.Join(errs...)
}

// NewtonOptions returns opt with the GPU executors and the GPU back end of
// k: newton.New(sys, gpu.NewtonOptions(k, opt)) runs Newton on the device.
// opt.Prec must be k's (checkPrec).
func NewtonOptions(k *NewtonKernels, opt newton.Options) newton.Options {
	opt.NewExecutor = func(plan *stager.Plan, p mdops.Prec, workers int) (backend.Executor, error) {
		if err := k.checkPrec(p); err != nil {
			return nil, err
		}
		return NewFromKernels(plan, p.Complex, k.eval, Options{})
	}
	opt.NewBackend = func(c backend.NewtonConfig) (newton.Backend, error) { return newNewtonBackend(k, c) }
	return opt
}

// traceNewton prints the parts of Factor's time (MDGEN_NEWTON_TRACE=1).
var traceNewton = os.Getenv("MDGEN_NEWTON_TRACE") != ""

// newtonDegree is what the back end keeps per working degree.
type newtonDegree struct {
	exec       *Executor
	data       int // bufs index of the executor's data array
	in, vs, ds int // bufs indices of the slot tables (int64)
}

// newtonBackend is newton.Backend on the GPU.
type newtonBackend struct {
	k    *NewtonKernels
	dev  *cudadev.Device
	c    backend.NewtonConfig
	v    gpuabi.LAVariant
	bufs []cudadev.Buffer
	own  []bool // bufs[i] allocated here (freed by Close)
	degs map[int]*newtonDegree
	amax int64 // offset of the maxima in nbSc

	host      []float64 // download buffer
	rrevHost  []float64 // R's packed rows, downloaded for the condition estimate's lead
	lead      *la.LeadR // R's leading limbs (the float64 condition estimate)
	skipHost  []int64
	invQueued bool // E holds (or the stream will) -R^-1 Q^H of the last Factor

	// The root refinement's speculative solve (see Factor): the condition
	// estimate runs on a stream of its own (condStream, after the event
	// factored), while the NULL stream does ApplyQH(0) and SolveR(0)'s
	// kernels; spec says how much of it the driver has not yet asked for.
	condStream *cudadev.Stream
	factored   *cudadev.Event
	spec       specState
	// reads holds max|x| and ||b_0||_1 as Factor's block0Solved read them,
	// so that the driver's MaxAbsX and BlockNorm(0) right after Factor do
	// not read them again; valid while x and b_0 stay (Reset, Evaluate and
	// UpdateX drop it).
	reads *blockReads

	// stage clock: events recorded at Mark and Lap, resolved by Times
	events []*cudadev.Event
	used   int
	open   int // the event that starts the current interval (-1: none)
	laps   []newtonLap
	times  newton.Times
	clkErr error
}

type newtonLap struct {
	from, to int
	s        newton.Stage
}

// blockReads are values brought home that later calls may reuse.
type blockReads struct{ maxAbsX, norm0 float64 }

// specState is where the speculative solve of block 0 stands.
type specState int

const (
	specNone specState = iota // no speculative work (or dropped)
	specQH                    // y = R^-1 Q^H b_0 queued: ApplyQH(0) has nothing left to do
	specR                     // ApplyQH(0) taken: SolveR(0) only copies y into dx_0
)

// checkPrec returns an error unless the solver's precision p is the one k
// was built for.
func (k *NewtonKernels) checkPrec(p mdops.Prec) error {
	if p != k.prec {
		return fmt.Errorf("gpu: the Newton kernels are for %s data, the solver needs %s", k.prec, p)
	}
	return nil
}

func newNewtonBackend(k *NewtonKernels, c backend.NewtonConfig) (*newtonBackend, error) {
	if err := k.checkPrec(c.Prec); err != nil {
		return nil, err
	}
	if _, ok := la.KernelsFor(c.Prec.N); !ok {
		return nil, fmt.Errorf("gpu: no linear algebra for %d doubles", c.Prec.N)
	}
	be := &newtonBackend{k: k, dev: k.dev, c: c, v: newtonVariant(k.dev.Info(), c), degs: map[int]*newtonDegree{}, open: -1}
	d, n, m := c.Degree, c.Vars, c.Eqs
	be.amax = int64(max(d+1, n))
	sizes, _ := newtonBuffers(c)
	free, err := k.dev.FreeMemory()
	if err != nil {
		return nil, fmt.Errorf("gpu: Newton: %w", err)
	}
	if err := newtonFits(c, free, k.dev.Info().Name); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = be.Close()
		}
	}()
	for i, s := range sizes {
		if i == nbE || i == nbNegI { // allocated by the first FormInverse (allocInverse)
			be.add(cudadev.Buffer{}, true)
			continue
		}
		b, err := k.dev.AllocFloat64s(max(s, 1))
		if err != nil {
			return nil, fmt.Errorf("gpu: Newton: allocating buffer %d (%d doubles): %w", i, s, err)
		}
		be.add(b, true)
	}
	for _, b := range []int{nbDX, nbZero} {
		if err := k.dev.Memset(be.bufs[b], 0); err != nil {
			return nil, fmt.Errorf("gpu: Newton: %w", err)
		}
	}
	// The executors (staged by Solver.Prepare) and their slot tables.
	for _, w := range newton.Stagger(d) {
		e, err := c.Exec(w)
		if err != nil {
			return nil, err
		}
		g, isGPU := e.(*Executor)
		if !isGPU {
			return nil, fmt.Errorf("gpu: Newton: the executor of degree %d is a %T, not the GPU's (use gpu.NewtonOptions)", w, e)
		}
		plan := g.Plan()
		if plan.Degree != w {
			return nil, fmt.Errorf("gpu: Newton: the executor of degree %d runs a plan of degree %d", w, plan.Degree)
		}
		dg := &newtonDegree{exec: g}
		dg.data = be.add(g.data, false)
		in := make([]int64, n)
		for v := range in {
			in[v] = -1
			if v < len(plan.Inputs) {
				in[v] = int64(plan.Inputs[v])
			}
		}
		vs := make([]int64, m)
		for i := range vs {
			vs[i] = int64(plan.Value[i])
		}
		ds := make([]int64, m*n)
		plan.DerivTable(ds, m, n) // DerivSlot(i, j) at i+j*m, in time linear in m·n

		for _, t := range []struct {
			idx *int
			x   []int64
		}{{&dg.in, in}, {&dg.vs, vs}, {&dg.ds, ds}} {
			b, err := k.dev.Alloc(8 * int64(max(len(t.x), 1)))
			if err != nil {
				return nil, fmt.Errorf("gpu: Newton: allocating a slot table: %w", err)
			}
			*t.idx = be.add(b, true)
			if err := k.dev.CopyHtoDInt64(b, t.x); err != nil {
				return nil, fmt.Errorf("gpu: Newton: uploading a slot table: %w", err)
			}
		}
		be.degs[w] = dg
	}
	be.host = make([]float64, max(int(sizes[nbX]), int(sizes[nbCN]), int(sizes[nbSc])))
	be.skipHost = make([]int64, d+1)
	ok = true
	return be, nil
}

func (be *newtonBackend) add(b cudadev.Buffer, own bool) int {
	be.bufs = append(be.bufs, b)
	be.own = append(be.own, own)
	return len(be.bufs) - 1
}

func ptr(buf int) gpuabi.LAPtr { return gpuabi.LAPtr{Buf: buf} }

// at returns buffer buf from element k on (W doubles each).
func (be *newtonBackend) at(buf, k int) gpuabi.LAPtr { return ptr(buf).At(k, be.c.Prec.Width()) }

func (be *newtonBackend) slice(p gpuabi.LAPtr, n int64) cudadev.Buffer {
	return be.bufs[p.Buf].Float64Slice(p.Off, n)
}

// launch queues ls on the NULL stream (on the device's thread).
func (be *newtonBackend) launch(ls ...[]gpuabi.LALaunch) error { return be.launchOn(nil, ls...) }

// launchFault, set by tests only (export_cuda_test.go), picks launches
// to be made with a block of 1 x 1 x 128 threads, which cudadev lets
// through (128 threads are within the kernels' limit) and the driver
// refuses (a block's z is at most 64): a real CUDA error inside a Newton
// run, to check that it surfaces with its stage and step and leaves the
// device usable.
var launchFault func(op gpuabi.LAOp) bool

// speculations counts the speculative solves queued (Factor), for tests.
var speculations atomic.Int64

// launchOn queues ls on stream s (nil: the NULL stream).
func (be *newtonBackend) launchOn(s *cudadev.Stream, ls ...[]gpuabi.LALaunch) error {
	return be.dev.Do(func() error {
		for _, seq := range ls {
			for _, l := range seq {
				fn := be.k.fns[l.Kernel]
				if fn == nil {
					return fmt.Errorf("gpu: Newton: no kernel %s", l.Kernel)
				}
				args := make([]any, len(l.Args))
				for i, a := range l.Args {
					switch a := a.(type) {
					case gpuabi.LAPtr:
						b := be.bufs[a.Buf]
						args[i] = b.Float64Slice(a.Off, b.Float64s()-a.Off)
					default:
						args[i] = a
					}
				}
				block := cudadev.Dim3{l.Block}
				if launchFault != nil && launchFault(l.Op) {
					block = cudadev.Dim3{1, 1, 128}
				}
				var err error
				if s == nil {
					err = be.dev.Launch(fn, cudadev.Dim3{l.Grid}, block, 0, args...)
				} else {
					err = s.Launch(fn, cudadev.Dim3{l.Grid}, block, 0, args...)
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// read downloads n doubles at p (waits for the work queued before).
func (be *newtonBackend) read(p gpuabi.LAPtr, n int) ([]float64, error) {
	h := be.host[:n]
	if err := be.dev.CopyDtoH(h, be.slice(p, int64(n))); err != nil {
		return nil, err
	}
	return h, nil
}

// scalar downloads one double at offset off of the scalars.
func (be *newtonBackend) scalar(off int64) (float64, error) {
	h, err := be.read(gpuabi.LAPtr{Buf: nbSc, Off: off}, 1)
	if err != nil {
		return 0, err
	}
	return h[0], nil
}

// norm is the first norm in the scalars.
func (be *newtonBackend) norm() (float64, error) { return be.scalar(0) }

func (be *newtonBackend) amaxAt(i int) gpuabi.LAPtr {
	return gpuabi.LAPtr{Buf: nbSc, Off: be.amax + int64(i)}
}

func (be *newtonBackend) Reset(x0 []float64) error {
	c := be.c
	d, n, W := c.Degree, c.Vars, c.Prec.Width()
	x := make([]float64, n*(d+1)*W)
	for v := 0; v < n; v++ {
		copy(x[v*(d+1)*W:v*(d+1)*W+W], x0[v*W:(v+1)*W])
	}
	if err := be.dev.CopyHtoD(be.bufs[nbX], x); err != nil {
		return fmt.Errorf("uploading the start: %w", err)
	}
	be.times, be.laps, be.used, be.open, be.clkErr = newton.Times{}, be.laps[:0], 0, -1, nil
	be.invQueued, be.spec, be.reads = false, specNone, nil
	return nil
}

// Evaluate: x's coefficients 0..w into the input slots of the executor of
// degree w, its layers, b = -G and A from its outputs, then ||b||_1 and
// max|b| (two doubles home).
func (be *newtonBackend) Evaluate(w int, jac bool) (float64, float64, error) {
	c := be.c
	d, n, m := c.Degree, c.Vars, c.Eqs
	be.spec, be.reads = specNone, nil
	dg := be.degs[w]
	if dg == nil {
		return 0, 0, fmt.Errorf("no executor of degree %d", w)
	}
	stride, d1 := dg.exec.geo.stride, w+1
	v := be.v
	if err := be.launch(v.LAScatter(ptr(nbX), d+1, ptr(dg.data), stride, d1, ptr(dg.in), n, w)); err != nil {
		return 0, 0, err
	}
	if err := be.dev.Do(dg.exec.launchAll); err != nil {
		return 0, 0, err
	}
	ls := [][]gpuabi.LALaunch{v.LAGather(ptr(dg.data), stride, d1, ptr(dg.vs), m, w, true, ptr(nbB))}
	if jac {
		ls = append(ls, v.LAGather(ptr(dg.data), stride, d1, ptr(dg.ds), m*n, w, false, ptr(nbA)))
	}
	ls = append(ls, v.LALeadNorm1(ptr(nbB), (w+1)*m, 0, 1, ptr(nbSc)), v.LAAmax(ptr(nbB), (w+1)*m, 0, 1, be.amaxAt(0)))
	if err := be.launch(ls...); err != nil {
		return 0, 0, err
	}
	fnorm, err := be.norm()
	if err != nil {
		return 0, 0, err
	}
	bmax, err := be.scalar(be.amax)
	return fnorm, bmax, err
}

// Factor: the QR of a copy of A_0, packr and packrh on the device, the
// column norms of A_0; then only n column norms of A_0, n of R, R's
// diagonal and R's packed rows come home: la's rank check on the
// diagonal, and la's condition estimate (condEstimate: la's float64
// estimate on R's leading limbs, on the host; when that is not final, its
// float64 decisions on the host and its solves by R and R^H by backsub1 on
// the device, a vector of n elements each way per solve), the same bits as
// the CPU back end's NewQR and Cond. The factors stay on the device. With inverse (the series phase), FormInverse's work
// is queued on the NULL stream before the estimate, which runs beside it
// on a stream of its own (when the estimate then says ill-conditioned,
// the driver stops and the forming goes unused); so it is in a refinement
// step that will not solve block 0 (block0Solved) when d > 0: x(0) stays,
// and the series phase forms M from this QR first (problem -1 from its
// root x(0) = 1).
//
// Without inverse (the root refinement) the estimate overlaps the
// refinement's solve: once the rank check has passed, and when
// block0Solved says that the driver will solve block 0, the NULL stream
// gets ApplyQH(0) and SolveR(0)'s work (b_0 into y, qh1, backsub1: the
// same kernels on the same buffers, so the same bits) and the estimate's
// solves run at the same time on a stream of their own, with their own
// vector (nbCX) and work space (nbCAcc). Both only read the factors; each
// kernel is one block, so they run on different SMs. The driver's
// ApplyQH(0) and SolveR(0) then find their work done (spec); any other
// call that writes y, b, or the factors drops it. When the driver skips
// block 0, or the estimate says ill-conditioned, the speculative result
// goes unused. For the stage clock, Factor laps the QR (StageQR), the
// speculative Q^H b_0 (StageQHB) and R^-1 (StageBackSub) itself; the
// driver's Lap(StageQR) after Factor gets what remains of the estimate.
func (be *newtonBackend) Factor(inverse bool) (*la.RankError, float64, float64, error) {
	c := be.c
	n, m, W, N := c.Vars, c.Eqs, c.Prec.Width(), c.Prec.N
	v := be.v
	be.spec, be.invQueued = specNone, false
	t0 := time.Now()
	if err := be.dev.CopyDtoD(be.slice(ptr(nbQA), int64(m*n*W)), be.slice(ptr(nbA), int64(m*n*W))); err != nil {
		return nil, 0, 0, err
	}
	if err := be.launch(v.LAQR(m, n, m, ptr(nbQA), ptr(nbTau)), v.LAPackR(m, n, m, ptr(nbQA), ptr(nbRinv), ptr(nbRrev)),
		v.LAPackRH(m, n, m, ptr(nbQA), ptr(nbRinv), ptr(nbRrevH), ptr(nbRinvH), ptr(nbCN), gpuabi.LAPtr{Buf: nbCN, Off: int64(n * N)}),
		v.LALeadNorm1(ptr(nbA), m, m, n, ptr(nbSc))); err != nil {
		return nil, 0, 0, err
	}
	t1 := time.Now()
	norms, err := be.read(ptr(nbSc), n)
	if err != nil {
		return nil, 0, 0, err
	}
	a0norm := 0.0
	for j := 0; j < n; j++ {
		a0norm = max(a0norm, norms[j])
	}
	t2 := time.Now()
	cn, err := be.read(ptr(nbCN), n*(N+1))
	if err != nil {
		return nil, 0, 0, err
	}
	if rank := la.RankCheck(cn[n*N:], N); rank != nil {
		return rank, 0, 0, nil
	}
	anorm := 0.0
	for j := 0; j < n; j++ {
		anorm = max(anorm, cn[j*N])
	}
	// R's leading limbs for the float64 estimate: its diagonal from cn,
	// the rest from R's packed rows, one download (the QR is done: cn's
	// read waited for it), before the queued work below.
	if n > 0 {
		if be.lead == nil {
			be.lead = la.NewLeadR(n, c.Prec.Complex)
			be.rrevHost = make([]float64, gpuabi.LARRevLen(n)*W)
		}
		if err := be.dev.CopyDtoH(be.rrevHost, be.slice(ptr(nbRrev), int64(len(be.rrevHost)))); err != nil {
			return nil, 0, 0, err
		}
		fillLeadR(be.lead, n, c.Prec, be.rrevHost, cn[n*N:])
	}
	var cs *cudadev.Stream // the estimate's stream (nil: the NULL stream)
	solved := false
	if !inverse {
		if solved, err = be.block0Solved(a0norm); err != nil {
			return nil, 0, 0, err
		}
	}
	// A refinement step that will not solve block 0 leaves x(0), and so
	// this QR, to the series phase, which forms M from it first.
	formM := inverse || (!solved && c.Degree > 0)
	if formM || solved {
		if cs, err = be.estimateStream(); err != nil {
			return nil, 0, 0, err
		}
	}
	if solved {
		if err := be.speculate(); err != nil {
			return nil, 0, 0, err
		}
	}
	if formM {
		if err := be.queueInverse(); err != nil {
			return nil, 0, 0, err
		}
		be.invQueued = true
	}
	t3 := time.Now()
	cond := 0.0
	if n > 0 {
		if cond, err = condEstimate(n, c.Prec, anorm, be.lead, be.condSolves(cs)); err != nil {
			be.spec = specNone
			return nil, 0, 0, fmt.Errorf("condition estimate: %w", err)
		}
	}
	if traceNewton {
		fmt.Fprintf(os.Stderr, "mdgen: Newton factor: launches %v, QR %v, speculative solve or M's forming queued in %v, condition estimate %v (on its own stream: %v)\n",
			t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), time.Since(t3), cs != nil)
	}
	return nil, cond, a0norm, nil
}

// block0Solved reports whether the driver's skip test will solve block 0
// whatever the condition estimate: ||b_0||_1 above newton.SkipTol with
// cond = 1 (the driver's bound with any cond >= 1 is at most that). Only
// then is the speculative solve worth its time: a refinement whose start
// is already a root (problem -1's x(0) = 1) skips block 0, and the
// speculative kernels would only delay the driver's next reads.
func (be *newtonBackend) block0Solved(a0norm float64) (bool, error) {
	xs, err := be.MaxAbsX()
	if err != nil {
		return false, err
	}
	nb, err := be.BlockNorm(0)
	if err != nil {
		return false, err
	}
	be.reads = &blockReads{maxAbsX: xs, norm0: nb}
	if xs == 0 {
		xs = 1
	}
	return nb > newton.SkipTol(be.c.Prec.UnitRoundoff(), xs, a0norm, 1), nil
}

// estimateStream returns the condition estimate's stream (made on first
// use), after the NULL stream's work so far: the factors. The work Factor
// queues after this on the NULL stream (the speculative solve, or M's
// forming) runs beside the estimate; all of it only reads the factors.
func (be *newtonBackend) estimateStream() (*cudadev.Stream, error) {
	if be.condStream == nil {
		s, err := be.dev.NewStream()
		if err != nil {
			return nil, fmt.Errorf("gpu: Newton: the condition estimate's stream: %w", err)
		}
		e, err := be.dev.NewEvent()
		if err != nil {
			return nil, errors.Join(fmt.Errorf("gpu: Newton: the condition estimate's event: %w", err), s.Close())
		}
		be.condStream, be.factored = s, e
	}
	// The factors are complete at this point (Factor's downloads waited
	// for them); the stream waits for them all the same, so that this does
	// not rest on that.
	if err := be.factored.Record(); err != nil {
		return nil, err
	}
	if err := be.condStream.Wait(be.factored); err != nil {
		return nil, err
	}
	return be.condStream, nil
}

// speculate queues ApplyQH(0) and SolveR(0)'s kernels on the NULL stream
// for Factor (see there), lapping the clock around each part.
func (be *newtonBackend) speculate() error {
	be.Lap(backend.StageQR)
	if err := be.applyQH(0); err != nil {
		return err
	}
	be.Lap(backend.StageQHB)
	if err := be.solveR(); err != nil {
		return err
	}
	be.Lap(backend.StageBackSub)
	be.spec = specQH
	speculations.Add(1)
	return nil
}

// condSolves are the condition estimate's solves on the device: x up,
// backsub1 with R's packed rows (x = R^-1 x) or with U's on the reversed
// x (x = R^-H x, see packrh), x down; on stream s with work space nbCAcc,
// or on the NULL stream (s nil) with nbAcc.
func (be *newtonBackend) condSolves(s *cudadev.Stream) condSolves {
	n, W := be.c.Vars, be.c.Prec.Width()
	run := func(x []float64, rrev, rinv int) error {
		buf := be.slice(ptr(nbCX), int64(n*W))
		if s == nil {
			if err := be.dev.CopyHtoD(buf, x); err != nil {
				return err
			}
			if err := be.launch(be.v.LABackSub1(n, ptr(rrev), ptr(rinv), ptr(nbCX), ptr(nbAcc))); err != nil {
				return err
			}
			return be.dev.CopyDtoH(x, buf)
		}
		if err := s.CopyHtoD(buf, x); err != nil {
			return err
		}
		if err := be.launchOn(s, be.v.LABackSub1(n, ptr(rrev), ptr(rinv), ptr(nbCX), ptr(nbCAcc))); err != nil {
			return err
		}
		if err := s.CopyDtoH(x, buf); err != nil {
			return err
		}
		return s.Synchronize()
	}
	return condSolves{
		solve: func(x []float64) error { return run(x, nbRrev, nbRinv) },
		solveRH: func(x []float64) error {
			reverseElems(x, W)
			err := run(x, nbRrevH, nbRinvH)
			reverseElems(x, W)
			return err
		},
	}
}

func (be *newtonBackend) MaxAbsX() (float64, error) {
	if be.reads != nil {
		return be.reads.maxAbsX, nil
	}
	c := be.c
	if err := be.launch(be.v.LAAmax(ptr(nbX), c.Vars*(c.Degree+1), 0, 1, be.amaxAt(0))); err != nil {
		return 0, err
	}
	return be.scalar(be.amax)
}

func (be *newtonBackend) BlockNorm(k int) (float64, error) {
	if k == 0 && be.reads != nil {
		return be.reads.norm0, nil
	}
	m := be.c.Eqs
	if err := be.launch(be.v.LALeadNorm1(be.at(nbB, k*m), m, 0, 1, ptr(nbSc))); err != nil {
		return 0, err
	}
	return be.norm()
}

func (be *newtonBackend) SkipBlock(k int) error {
	be.spec = specNone
	n := be.c.Vars
	return be.dev.Memset(be.slice(be.at(nbDX, k*n), int64(n*be.c.Prec.Width())), 0)
}

// ApplyQH: y = b_k, then qh1 (la's ApplyQH bits). After Factor's
// speculative solve, ApplyQH(0) has nothing left to do.
func (be *newtonBackend) ApplyQH(k int) error {
	if k == 0 && be.spec == specQH {
		be.spec = specR
		return nil
	}
	be.spec = specNone
	return be.applyQH(k)
}

func (be *newtonBackend) applyQH(k int) error {
	m, n, W := be.c.Eqs, be.c.Vars, be.c.Prec.Width()
	if err := be.dev.CopyDtoD(be.slice(ptr(nbY), int64(m*W)), be.slice(be.at(nbB, k*m), int64(m*W))); err != nil {
		return err
	}
	return be.launch(be.v.LAApplyQH1(m, n, m, ptr(nbQA), ptr(nbTau), ptr(nbY)))
}

// SolveR: backsub1 (la's SolveR bits, the rows pipelined over a block),
// then dx_k = y. The diagonal of R was checked by Factor (the rank check
// implies R_kk != 0, which la's SolveR requires and the kernel assumes).
// After Factor's speculative solve and ApplyQH(0), SolveR(0) only copies.
func (be *newtonBackend) SolveR(k int) error {
	n, W := be.c.Vars, be.c.Prec.Width()
	if !(k == 0 && be.spec == specR) {
		if err := be.solveR(); err != nil {
			be.spec = specNone
			return err
		}
	}
	be.spec = specNone
	return be.dev.CopyDtoD(be.slice(be.at(nbDX, k*n), int64(n*W)), be.slice(ptr(nbY), int64(n*W)))
}

// solveR queues y = R^-1 y (backsub1).
func (be *newtonBackend) solveR() error {
	return be.launch(be.v.LABackSub1(be.c.Vars, ptr(nbRrev), ptr(nbRinv), ptr(nbY), ptr(nbAcc)))
}

// FormInverse: E = -I (a copy of the uploaded one), qh on its m columns
// (la ApplyQHMany), backsub on their first n rows (la SolveRMany): E[0:n,
// :] = -R^-1 Q^H. Factor's rank check implies R_kk != 0.
func (be *newtonBackend) FormInverse() error {
	be.spec = specNone
	if be.invQueued { // queued by Factor, for this QR
		return nil
	}
	if err := be.queueInverse(); err != nil {
		return err
	}
	be.invQueued = true
	return nil
}

// allocInverse allocates E and -I and uploads -I: on the first
// FormInverse, so that a root refinement (degree 0, no series phase) does
// not pay for two m x m matrices (at m = 4096, 2 doubles complex: 1 GiB of
// device memory and a 512 MiB upload). newtonFits counts them all the same.
func (be *newtonBackend) allocInverse() error {
	sizes, _ := newtonBuffers(be.c)
	m, W := be.c.Eqs, int64(be.c.Prec.Width())
	for _, i := range []int{nbE, nbNegI} {
		b, err := be.dev.AllocFloat64s(max(sizes[i], 1))
		if err != nil {
			return fmt.Errorf("gpu: Newton: allocating buffer %d (%d doubles): %w", i, sizes[i], err)
		}
		be.bufs[i] = b
	}
	negI := make([]float64, sizes[nbNegI])
	for i := 0; i < m; i++ {
		negI[int64(i+i*m)*W] = -1
	}
	if err := be.dev.CopyHtoD(be.bufs[nbNegI], negI); err != nil {
		return fmt.Errorf("gpu: Newton: uploading -I: %w", err)
	}
	return nil
}

// queueInverse queues FormInverse's work on the stream.
func (be *newtonBackend) queueInverse() error {
	m, n := be.c.Eqs, be.c.Vars
	if be.bufs[nbE].IsNil() {
		if err := be.allocInverse(); err != nil {
			return err
		}
	}
	if err := be.dev.CopyDtoD(be.bufs[nbE], be.bufs[nbNegI]); err != nil {
		return err
	}
	v := be.v
	return be.launch(v.LAApplyQH(m, n, m, ptr(nbQA), ptr(nbTau), m, ptr(nbE), m),
		v.LABackSub(n, ptr(nbRrev), ptr(nbRinv), m, ptr(nbE), m))
}

// SolveBlock: dx_k = 0 - E[0:n, :] b_k, one mulsub (la MulSub's bits).
func (be *newtonBackend) SolveBlock(k int) error {
	be.spec = specNone
	m, n := be.c.Eqs, be.c.Vars
	return be.launch(be.v.LAMulSub(n, m, ptr(nbE), m, 0, be.at(nbB, k*m), 0, ptr(nbZero), 0, be.at(nbDX, k*n), 0, 1))
}

func (be *newtonBackend) UpdateB(k, w int) error {
	be.spec = specNone
	return be.launch(be.v.LAToeplitzUpdate(be.c.Eqs, be.c.Vars, ptr(nbA), ptr(nbB), ptr(nbDX), k, w))
}

// Residual: b_k - A_0 dx_k and their norms for k = 0..w in two launches
// (the skipped blocks' are computed and not used), w+1 norms home, summed
// in order.
func (be *newtonBackend) Residual(w int, skipped []bool, nb []float64) (float64, error) {
	be.spec = specNone
	m, n := be.c.Eqs, be.c.Vars
	if err := be.launch(be.v.LAResiduals(m, n, ptr(nbA), ptr(nbB), ptr(nbDX), w, ptr(nbRB), ptr(nbSc))); err != nil {
		return 0, err
	}
	norms, err := be.read(ptr(nbSc), w+1)
	if err != nil {
		return 0, err
	}
	r := 0.0
	for k := 0; k <= w; k++ {
		if skipped[k] {
			r += nb[k]
			continue
		}
		r += norms[k]
	}
	return r, nil
}

func (be *newtonBackend) UpdateX(w, wPrev int, skipped []bool) (float64, float64, float64, error) {
	be.spec, be.reads = specNone, nil
	d, n := be.c.Degree, be.c.Vars
	for k := 0; k <= w; k++ {
		be.skipHost[k] = 0
		if skipped[k] {
			be.skipHost[k] = 1
		}
	}
	if err := be.dev.CopyHtoDInt64(be.bufs[nbSkip], be.skipHost[:w+1]); err != nil {
		return 0, 0, 0, err
	}
	v := be.v
	if err := be.launch(v.LAAmax(ptr(nbDX), (w+1)*n, 0, 1, be.amaxAt(0)), v.LAAmax(ptr(nbDX), (wPrev+1)*n, 0, 1, be.amaxAt(1)),
		v.LAXUpdate(ptr(nbX), d+1, ptr(nbDX), n, ptr(nbSkip), w), v.LAAmax(ptr(nbX), n*(d+1), 0, 1, be.amaxAt(2))); err != nil {
		return 0, 0, 0, err
	}
	h, err := be.read(be.amaxAt(0), 3)
	if err != nil {
		return 0, 0, 0, err
	}
	return h[0], h[1], h[2], nil
}

// X downloads x (a fresh slice: the Result keeps it).
func (be *newtonBackend) X() ([]float64, error) {
	x := make([]float64, be.bufs[nbX].Float64s())
	if err := be.dev.CopyDtoH(x, be.bufs[nbX]); err != nil {
		return nil, fmt.Errorf("newton: downloading x: %w", err)
	}
	return x, nil
}

// record records the next event of the pool and returns its index.
func (be *newtonBackend) record() int {
	if be.clkErr != nil {
		return -1
	}
	if be.used == len(be.events) {
		e, err := be.dev.NewEvent()
		if err != nil {
			be.clkErr = err
			return -1
		}
		be.events = append(be.events, e)
	}
	i := be.used
	if err := be.events[i].Record(); err != nil {
		be.clkErr = err
		return -1
	}
	be.used++
	return i
}

// Mark records an event that starts an interval.
func (be *newtonBackend) Mark() { be.open = be.record() }

// Lap records an event; the device time since the last one goes to s
// (CUDA events: the work queued in between and any time the device waited
// for the host).
func (be *newtonBackend) Lap(s newton.Stage) {
	to := be.record()
	if be.open >= 0 && to >= 0 {
		be.laps = append(be.laps, newtonLap{be.open, to, s})
	}
	be.open = to
}

// Times waits for the last event and sums the intervals.
func (be *newtonBackend) Times() (newton.Times, error) {
	if be.clkErr != nil {
		return be.times, fmt.Errorf("newton: stage clock: %w", be.clkErr)
	}
	if be.used > 0 {
		if err := be.events[be.used-1].Synchronize(); err != nil {
			return be.times, err
		}
	}
	for _, l := range be.laps {
		ms, err := be.events[l.to].Elapsed(be.events[l.from])
		if err != nil {
			return be.times, err
		}
		be.times.AddStage(l.s, time.Duration(ms*1e6))
	}
	be.laps, be.used, be.open = be.laps[:0], 0, -1
	return be.times, nil
}

// Close frees the buffers and the events (the executors are the
// Solver's).
func (be *newtonBackend) Close() error {
	be.spec = specNone
	var errs []error
	if be.condStream != nil { // first: it waits for the estimate's work on the buffers freed below
		errs = append(errs, be.condStream.Close(), be.factored.Close())
		be.condStream, be.factored = nil, nil
	}
	for i, b := range be.bufs {
		if be.own[i] && !b.IsNil() {
			errs = append(errs, be.dev.Free(b))
		}
	}
	be.bufs, be.own = nil, nil
	for _, e := range be.events {
		errs = append(errs, e.Close())
	}
	be.events = nil
	return errors.Join(errs...)
}
