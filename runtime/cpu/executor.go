package cpu

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/stager"
)

var (
	_ backend.Executor    = (*Executor)(nil)
	_ backend.ValueSetter = (*Executor)(nil)
)

// Executor runs a stager.Plan on the CPU with the generated mdops kernels.
//
// Memory layout: one float64 array; slot s occupies SlotLen() consecutive
// doubles: Degree+1 coefficients, each N limbs (real), or N real limbs then N
// imaginary limbs (complex), exactly as []mdops.F<N> or []mdops.C<N> lay
// them out. The array is allocated once by New and reused by every Run.
type Executor struct {
	plan    *stager.Plan
	prec    mdops.Prec
	workers int
	conv    func(z, x, y []float64)
	addTo   func(dst, src []float64)
	// convJobs and addJobs run a whole layer in one call (mdops'
	// SeriesKernels.ConvJobs, AddJobs): the same bits as conv and addTo
	// job by job.
	convJobs, addJobs func(data []float64, slotLen int, jobs []int32)
	slotLen           int
	data              []float64
	zero              []float64

	progress func(layer, layers int, work float64)
	// work[i] is the fraction of a run's arithmetic done after layer i
	// (convolution layers, then addition layers).
	work []float64
}

// New prepares an executor for plan at precision p, with the given number
// of worker goroutines (<= 0: one per CPU). The coefficients of the plan are
// rounded once to p.N doubles. A plan with complex coefficients needs
// complex data. A precision without generated arithmetic is refused with
// p.Check's error.
func New(plan *stager.Plan, p mdops.Prec, workers int) (*Executor, error) {
	k, ok := mdops.SeriesKernelsFor(p.N)
	if !ok {
		return nil, fmt.Errorf("runtime: %w", p.Check())
	}
	if workers <= 0 {
		workers = goruntime.GOMAXPROCS(0)
	}
	e := &Executor{plan: plan, prec: p, workers: workers}
	if p.Complex {
		e.conv, e.addTo, e.convJobs, e.addJobs = k.ConvComplex, k.AddToComplex, k.ConvJobsComplex, k.AddJobsComplex
	} else {
		e.conv, e.addTo, e.convJobs, e.addJobs = k.Conv, k.AddTo, k.ConvJobs, k.AddJobs
	}
	e.slotLen = e.layout().SlotLen()
	if err := plan.CheckMemory(p.N, p.Complex); err != nil {
		return nil, fmt.Errorf("runtime: the CPU executor: %w", err)
	}
	e.data = make([]float64, plan.NumSlots()*e.slotLen)
	e.zero = make([]float64, e.slotLen)
	err := backend.RoundValues(plan, 0, plan.NumSlots(), e.layout(), workers, func(s stager.Slot, series []float64) {
		copy(e.slot(s), series)
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Prec returns the precision and kind of data.
func (e *Executor) Prec() mdops.Prec   { return e.prec }
func (e *Executor) SlotLen() int       { return e.slotLen }
func (e *Executor) Workers() int       { return e.workers }
func (e *Executor) Plan() *stager.Plan { return e.plan }

func (e *Executor) layout() backend.Layout {
	return backend.Layout{Prec: e.prec, Degree: e.plan.Degree}
}

func (e *Executor) slot(s stager.Slot) []float64 {
	return e.data[int(s)*e.slotLen : (int(s)+1)*e.slotLen : (int(s)+1)*e.slotLen]
}

// SetInput copies the series of input variable v: SlotLen() doubles in the
// executor's layout (coefficient k at [k*W, (k+1)*W), W = N or 2N).
func (e *Executor) SetInput(v int, series []float64) {
	copy(e.slot(e.plan.Inputs[v]), series)
}

// SetValue sets read-only slot s (a constant or coefficient) to series:
// its first SlotLen() doubles, zeros after a shorter one (see
// backend.ValueSetter).
func (e *Executor) SetValue(s stager.Slot, series []float64) {
	dst := e.slot(s)
	clear(dst[copy(dst, series):])
}

// Value returns the series of polynomial p at the inputs (valid after Run,
// until the next Run); a zero polynomial gives zeros.
func (e *Executor) Value(p int) []float64 { return e.out(e.plan.Value[p]) }

// Deriv returns the series of ∂p/∂z[v] (valid after Run).
func (e *Executor) Deriv(p, v int) []float64 { return e.out(e.plan.DerivSlot(p, v)) }

func (e *Executor) out(s stager.Slot) []float64 {
	if s == stager.NoSlot {
		return e.zero
	}
	return e.slot(s)
}

// SetProgress sets a function that Run calls after each layer, in Run's
// goroutine, with the layers done, the layers of a run (convolution layers,
// then addition layers) and the fraction of the run's arithmetic done (a
// convolution weighs (d+1)(d+2)/2 multiply-adds, an addition job d+1
// additions at half a multiply-add each). nil removes it.
func (e *Executor) SetProgress(f func(layer, layers int, work float64)) {
	e.progress = f
	if f == nil || e.work != nil {
		return
	}
	d := float64(e.plan.Degree)
	conv, add := (d+1)*(d+2)/2, (d+1)/2
	var total float64
	for _, l := range e.plan.ConvLayers {
		total += float64(conv * float64(len(l)))
		e.work = append(e.work, total)
	}
	for _, l := range e.plan.AddLayers {
		total += float64(add * float64(len(l)))
		e.work = append(e.work, total)
	}
	for i := range e.work {
		if total > 0 {
			e.work[i] /= total
		} else {
			e.work[i] = 1
		}
	}
}

func (e *Executor) layerDone(i int) {
	if e.progress != nil {
		e.progress(i+1, len(e.work), e.work[i])
	}
}

// Run evaluates and differentiates the system at the current inputs. It
// cannot fail; the error is there to satisfy Executor. A layer with less
// work than parallelWork runs in the calling goroutine (the jobs of a
// layer are independent: the same bits either way).
func (e *Executor) Run() error {
	d1 := e.plan.Degree + 1
	convWork := d1 * (d1 + 1) / 2
	for i, layer := range e.plan.ConvLayers {
		if e.workers <= 1 || len(layer)*convWork < parallelWork {
			e.convJobs(e.data, e.slotLen, jobWords(layer, 3))
		} else {
			e.parallel(len(layer), func(j int) {
				job := layer[j]
				e.conv(e.slot(job.Out), e.slot(job.A), e.slot(job.B))
			})
		}
		e.layerDone(i)
	}
	for i, layer := range e.plan.AddLayers {
		if e.workers <= 1 || len(layer)*d1 < 2*parallelWork {
			e.addJobs(e.data, e.slotLen, jobWords(layer, 2))
		} else {
			e.parallel(len(layer), func(j int) {
				job := layer[j]
				e.addTo(e.slot(job.Dst), e.slot(job.Src))
			})
		}
		e.layerDone(len(e.plan.ConvLayers) + i)
	}
	return nil
}

// jobWords views a layer's jobs (stager.ConvJob: Out, A, B; stager.AddJob:
// Dst, Src; int32 slots without padding) as per int32s each, the form of
// mdops' batch kernels.
func jobWords[J stager.ConvJob | stager.AddJob](jobs []J, per int) []int32 {
	return unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(jobs))), len(jobs)*per)
}

// The layouts jobWords relies on (a compile error if they change).
var (
	_ [unsafe.Sizeof(stager.ConvJob{}) - 12]struct{}
	_ [12 - unsafe.Sizeof(stager.ConvJob{})]struct{}
	_ [unsafe.Sizeof(stager.AddJob{}) - 8]struct{}
	_ [8 - unsafe.Sizeof(stager.AddJob{})]struct{}
	_ [unsafe.Sizeof(stager.Slot(0)) - 4]struct{}
)

// parallelWork is the work of a layer, in coefficient products (an
// addition counts half), below which it is not shared: starting the
// workers of a layer costs microseconds, a small system's whole layer at
// degree 0 takes about as long.
const parallelWork = 1024

// Close releases nothing on the CPU; it is there to satisfy Executor.
func (e *Executor) Close() error { return nil }

// parallel runs f(0..n-1) on the workers. Jobs are handed out in small
// chunks from an atomic counter, so that a worker that finishes early takes
// more; the jobs of one layer are independent (stager.Check), so no locking.
func (e *Executor) parallel(n int, f func(int)) {
	w := e.workers
	if w > n {
		w = n
	}
	if w <= 1 {
		for j := 0; j < n; j++ {
			f(j)
		}
		return
	}
	chunk := n / (w * 8)
	if chunk < 1 {
		chunk = 1
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	work := func() {
		defer wg.Done()
		for {
			lo := int(next.Add(int64(chunk))) - chunk
			if lo >= n {
				return
			}
			hi := min(lo+chunk, n)
			for j := lo; j < hi; j++ {
				f(j)
			}
		}
	}
	wg.Add(w)
	for i := 1; i < w; i++ {
		go work()
	}
	work()
	wg.Wait()
}
