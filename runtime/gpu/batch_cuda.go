//go:build cuda

package gpu

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/stager"
)

// LoadBatchKernels loads a fatbin of gen.BatchCUSource (the kernels of
// LoadKernels and the batched ones) for precision n and the kinds of data
// in complex, and checks it as LoadKernels does, and the batched layout
// version (gpuabi.BatchLayoutSymbol) and kernels. The kernels serve
// NewBatch and the GPU executor alike.
func LoadBatchKernels(dev *cudadev.Device, fatbin []byte, n int, complex ...bool) (*Kernels, error) {
	k, err := LoadKernels(dev, fatbin, n, complex...)
	if err != nil {
		return nil, err
	}
	if err := k.addBatch(complex); err != nil {
		return nil, errors.Join(err, k.Close())
	}
	return k, nil
}

// addBatch checks the batched layout version and looks up the batched kernels.
func (k *Kernels) addBatch(complex []bool) error {
	mod := k.mod
	buf, err := mod.Global(gpuabi.BatchLayoutSymbol)
	if err != nil {
		if isNotFound(err) {
			return fmt.Errorf("gpu: module %s: %w: it has no batched kernels (%s); build gen.BatchCUSource", mod.Name(), ErrModule, gpuabi.BatchLayoutSymbol)
		}
		return fmt.Errorf("gpu: looking up %s in module %s: %w", gpuabi.BatchLayoutSymbol, mod.Name(), err)
	}
	v, err := readIntGlobal(k.dev, buf)
	if err != nil {
		return fmt.Errorf("gpu: reading %s of module %s: %w", gpuabi.BatchLayoutSymbol, mod.Name(), err)
	}
	if v != gpuabi.BatchLayoutVersion {
		return fmt.Errorf("gpu: module %s: %w: its batched kernels were built for batched layout version %d, this mdgen has version %d (rebuild the kernels with this mdgen)",
			mod.Name(), ErrModule, v, gpuabi.BatchLayoutVersion)
	}
	if len(complex) == 0 {
		complex = []bool{false}
	}
	var missing []string
	for _, c := range complex {
		for _, kind := range gpuabi.BatchKinds {
			name := gpuabi.BatchKernelName(kind, mdops.Prec{N: k.n, Complex: c})
			f, err := mod.Function(name)
			if err != nil {
				if isNotFound(err) {
					missing = append(missing, name)
					continue
				}
				return fmt.Errorf("gpu: looking up kernel %s: %w", name, err)
			}
			k.funcs[name] = f
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("gpu: module %s: %w: it lacks the batched kernels %v", mod.Name(), ErrModule, missing)
	}
	return nil
}

// MaxBatchPaths returns the most paths of plan at precision p that one
// Batch on dev can hold now (its free memory, less the reserve): a larger
// set of paths is split into batches of at most that many.
func MaxBatchPaths(dev *cudadev.Device, plan *stager.Plan, p mdops.Prec, o gpuabi.BatchOrder) (int, error) {
	free, err := dev.FreeMemory()
	if err != nil {
		return 0, err
	}
	return gpuabi.BatchMaxPaths(plan, p, o, free-memoryReserve), nil
}

// Batch evaluates and differentiates one staged plan for many paths at
// once, on a CUDA device: each path has its own inputs, its own values of
// the read-only slots (a tracker's paths each sit at their own t) and its
// own outputs, and every path's outputs are the CPU executor's
// (runtime/cpu, cpu.New(plan, prec, 1)) on that path's data, bit for bit.
// One Run launches one kernel per layer (per gpuabi.BatchMaxJobs jobs of
// it) for the whole batch. The data array is laid out as gpuabi's batched
// contract says (BatchOptions.Order); series go in and come out in the CPU
// layout (backend.Layout).
type Batch struct {
	plan    *stager.Plan
	prec    mdops.Prec
	dev     *cudadev.Device
	kernels *Kernels
	geo     gpuabi.BatchGeometry
	sizes   gpuabi.Sizes
	layout  backend.Layout
	block   int

	data, convJobs, addJobs cudadev.Buffer
	launches                []batchLaunch
	timer                   *cudadev.Timer

	// Host mirrors of the inputs and the read-only slots of every path,
	// uploaded at the next Run when set since the last.
	in, ro               batchRange
	inBuf, roBuf         []float64
	inPending, roPending bool

	// Outputs: runs of output slots, downloaded after a Run on first use.
	out      []batchRange
	outBufs  [][]float64
	outValid bool
	err      error // the error of a failed download
	closed   bool
}

type batchLaunch struct {
	fn           *cudadev.Function
	grid         cudadev.Dim3
	jobs         cudadev.Buffer
	first, count int
	kind         gpuabi.Kind
	layer        int
}

// NewBatch prepares plan for paths paths at precision p with kernels of
// LoadBatchKernels (Close leaves them loaded). Every path starts with the
// plan's read-only slots rounded as the CPU executor rounds them, and zero
// inputs. The device memory is checked before anything is allocated: a
// batch that does not fit is refused with an error wrapping ErrMemory that
// says how many paths fit (MaxBatchPaths): split the paths into batches of
// that many.
func NewBatch(plan *stager.Plan, p mdops.Prec, paths int, k *Kernels, opt BatchOptions) (*Batch, error) {
	if plan == nil || k == nil {
		return nil, errors.New("gpu: NewBatch: nil plan or kernels")
	}
	if p.N != k.n {
		return nil, fmt.Errorf("gpu: NewBatch: %s data with %d-double kernels", p, k.n)
	}
	what := fmt.Sprintf("a batch of %d paths of %s data at degree %d", paths, p, plan.Degree)
	if paths < 1 || paths > math.MaxInt32 {
		return nil, fmt.Errorf("gpu: preparing %s: the paths must be 1..%d", what, math.MaxInt32)
	}
	block := opt.Block
	if block == 0 {
		block = gpuabi.BatchBlock
	}
	if block < 1 || block > gpuabi.BatchBlock {
		return nil, fmt.Errorf("gpu: preparing %s: block of %d threads, the batched kernels take 1..%d", what, block, gpuabi.BatchBlock)
	}
	convFn, ok1 := k.funcs[gpuabi.BatchKernelName(gpuabi.BatchConv, p)]
	addFn, ok2 := k.funcs[gpuabi.BatchKernelName(gpuabi.BatchAdd, p)]
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("gpu: preparing %s: %w: the kernels were loaded without the batched kernels of %s data (LoadBatchKernels)", what, ErrModule, p.Kind())
	}
	b := &Batch{plan: plan, prec: p, dev: k.dev, kernels: k, block: block,
		geo:    gpuabi.NewBatchGeometry(plan, p, paths, opt.Order),
		sizes:  gpuabi.BatchMemory(plan, p, paths, opt.Order),
		layout: backend.Layout{Prec: p, Degree: plan.Degree}}
	if plan.NumSlots() > math.MaxInt32 || b.geo.Doubles() > math.MaxInt64/8 || b.geo.Doubles() < 0 {
		return nil, fmt.Errorf("gpu: preparing %s: the data array overflows 64-bit sizes", what)
	}

	// Memory: refuse before allocating, and say how to split.
	free, err := b.dev.FreeMemory()
	if err != nil {
		return nil, fmt.Errorf("gpu: preparing %s: %w", what, err)
	}
	if need := b.sizes.Total(); need > free-memoryReserve {
		fit := gpuabi.BatchMaxPaths(plan, p, opt.Order, free-memoryReserve)
		split := "not even one path fits"
		if fit > 0 {
			split = fmt.Sprintf("at most %d paths fit: split the batch into %d batches", fit, (paths+fit-1)/fit)
		}
		return nil, fmt.Errorf("gpu: %w: %s, but %s of %s is free on %s (%s kept in reserve): %s",
			ErrMemory, b.sizes.DescribeBatch(plan, p, paths), stager.FormatBytes(free), stager.FormatBytes(b.dev.Info().TotalMemory),
			b.dev.Info().Name, stager.FormatBytes(memoryReserve), split)
	}

	ok := false
	defer func() {
		if !ok {
			b.release()
		}
	}()
	if b.data, err = b.dev.Alloc(b.sizes.DataBytes); err != nil {
		return nil, fmt.Errorf("gpu: allocating the data array of %s: %w", what, err)
	}
	if err := b.dev.Memset(b.data, 0); err != nil {
		return nil, fmt.Errorf("gpu: zeroing the data array of %s: %w", what, err)
	}
	conv, add, convLayers, addLayers := gpuabi.JobTables(plan)
	if b.convJobs, err = uploadInt32(b.dev, conv, "convolution"); err != nil {
		return nil, err
	}
	if b.addJobs, err = uploadInt32(b.dev, add, "addition"); err != nil {
		return nil, err
	}
	gx := (paths + block - 1) / block
	for _, ls := range []struct {
		kind gpuabi.Kind
		fn   *cudadev.Function
		jobs cudadev.Buffer
		list [][2]int
	}{{gpuabi.BatchConv, convFn, b.convJobs, convLayers}, {gpuabi.BatchAdd, addFn, b.addJobs, addLayers}} {
		for i, l := range ls.list {
			for lo := 0; lo < l[1]; lo += gpuabi.BatchMaxJobs {
				n := min(gpuabi.BatchMaxJobs, l[1]-lo)
				b.launches = append(b.launches, batchLaunch{fn: ls.fn, grid: cudadev.Dim3{gx, n}, jobs: ls.jobs,
					first: l[0] + lo, count: n, kind: ls.kind, layer: i})
			}
		}
	}
	if b.timer, err = b.dev.NewTimer(); err != nil {
		return nil, fmt.Errorf("gpu: preparing %s: %w", what, err)
	}

	b.in = newBatchRange(b.geo, kindRange(plan, stager.SlotInput))
	b.ro = newBatchRange(b.geo, kindRange(plan, stager.SlotConst, stager.SlotCoef))
	b.inBuf = make([]float64, b.in.hostLen())
	b.roBuf = make([]float64, b.ro.hostLen())
	_, runs := outputRuns(plan)
	for _, r := range runs {
		br := newBatchRange(b.geo, r)
		b.out = append(b.out, br)
		b.outBufs = append(b.outBufs, make([]float64, br.hostLen()))
	}
	// Every path's read-only slots, rounded as the CPU executor rounds them.
	err = backend.RoundValues(plan, b.ro.lo, b.ro.hi, b.layout, 0, func(s stager.Slot, series []float64) {
		for path := 0; path < paths; path++ {
			b.ro.put(b.roBuf, path, int(s), series)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: preparing %s: %w", what, err)
	}
	if err := b.upload(b.ro, b.roBuf); err != nil {
		return nil, fmt.Errorf("gpu: uploading the coefficients of %s: %w", what, err)
	}
	ok = true
	return b, nil
}

func uploadInt32(dev *cudadev.Device, t []int32, what string) (cudadev.Buffer, error) {
	if len(t) == 0 {
		return cudadev.Buffer{}, nil
	}
	b, err := dev.Alloc(4 * int64(len(t)))
	if err != nil {
		return b, fmt.Errorf("gpu: allocating the %s job table (%d words): %w", what, len(t), err)
	}
	if err := dev.CopyHtoDInt32(b, t); err != nil {
		return b, fmt.Errorf("gpu: uploading the %s job table (%d words): %w", what, len(t), err)
	}
	return b, nil
}

// upload copies a range's host buffer to the device array.
func (b *Batch) upload(r batchRange, buf []float64) error {
	return r.chunks(func(dev, host, n int64) error {
		return b.dev.CopyHtoD(b.data.Float64Slice(dev, n), buf[host:host+n])
	})
}

// Plan, Prec and Paths describe the batch.
func (b *Batch) Plan() *stager.Plan { return b.plan }
func (b *Batch) Prec() mdops.Prec   { return b.prec }
func (b *Batch) Paths() int         { return b.geo.Paths }

// Geometry returns the layout of the data array.
func (b *Batch) Geometry() gpuabi.BatchGeometry { return b.geo }

// Sizes returns the device memory of the batch's arrays.
func (b *Batch) Sizes() gpuabi.Sizes { return b.sizes }

// Launches returns the number of kernel launches of one Run.
func (b *Batch) Launches() int { return len(b.launches) }

// SetInput sets the series of input variable v of path p (the CPU
// layout), uploaded with the other inputs at the next Run.
func (b *Batch) SetInput(p, v int, series []float64) {
	b.checkPath(p)
	b.in.put(b.inBuf, p, int(b.plan.Inputs[v]), series)
	b.inPending = true
}

// SetValue sets read-only slot s (a constant or coefficient:
// stager.Plan.CoefSlots) of path p to series (the CPU layout: its first
// Layout.SlotLen doubles, zeros after a shorter series, as
// backend.ValueSetter), uploaded at the next Run. Another kind of slot
// panics: the plan writes it.
func (b *Batch) SetValue(p int, s stager.Slot, series []float64) {
	if k := b.plan.Kinds[s]; k != stager.SlotConst && k != stager.SlotCoef {
		panic(fmt.Sprintf("gpu: Batch.SetValue: slot %d is not a constant or coefficient slot", s))
	}
	b.checkPath(p)
	b.ro.put(b.roBuf, p, int(s), series)
	b.roPending = true
}

// checkPath panics unless p is a path of the batch (an interleaved array
// has padding paths that would take it silently).
func (b *Batch) checkPath(p int) {
	if p < 0 || p >= b.geo.Paths {
		panic(fmt.Sprintf("gpu: path %d of a batch of %d", p, b.geo.Paths))
	}
}

// flush uploads what was set since the last run.
func (b *Batch) flush() error {
	if b.closed {
		return errors.New("gpu: the batch is closed")
	}
	if b.inPending {
		if err := b.upload(b.in, b.inBuf); err != nil {
			return fmt.Errorf("gpu: uploading the inputs of %d paths: %w", b.geo.Paths, err)
		}
		b.inPending = false
	}
	if b.roPending {
		if err := b.upload(b.ro, b.roBuf); err != nil {
			return fmt.Errorf("gpu: uploading the coefficients of %d paths: %w", b.geo.Paths, err)
		}
		b.roPending = false
	}
	return nil
}

// launchAll queues every layer; it runs on the device's thread.
func (b *Batch) launchAll() error {
	es, ps, rs := b.geo.ElemStride, b.geo.PathStride, b.geo.RowStride()
	for i := range b.launches {
		l := &b.launches[i]
		err := b.dev.Launch(l.fn, l.grid, cudadev.Dim3{b.block}, 0,
			b.data, es, ps, rs, b.plan.Degree, l.jobs, l.first, l.count, b.geo.Paths)
		if err != nil {
			return fmt.Errorf("gpu: launching %s layer %d (jobs %d..%d) for paths 0..%d: %w",
				l.kind, l.layer+1, l.first, l.first+l.count-1, b.geo.Paths-1, err)
		}
	}
	return nil
}

// Run evaluates and differentiates the plan for every path: it uploads
// what was set since the last run, launches the layers and waits for them.
func (b *Batch) Run() error {
	_, _, err := b.run(false)
	return err
}

// RunTimed is Run, timed as the GPU executor's RunTimed: kernelMs between
// CUDA events around the launches, wallMs on the host from the first
// launch until the device is done; the transfers are outside both.
func (b *Batch) RunTimed() (kernelMs, wallMs float64, err error) { return b.run(true) }

func (b *Batch) run(timed bool) (kernelMs, wallMs float64, err error) {
	if err := b.flush(); err != nil {
		return 0, 0, err
	}
	b.outValid = false
	err = b.dev.Do(func() error {
		if timed {
			if err := b.timer.Start(); err != nil {
				return err
			}
		}
		start := time.Now()
		if err := b.launchAll(); err != nil {
			if timed {
				_, _ = b.timer.Stop()
			}
			return err
		}
		if !timed {
			return b.dev.Synchronize()
		}
		ms, err := b.timer.Stop()
		wallMs = float64(time.Since(start).Nanoseconds()) / 1e6
		kernelMs = ms
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("gpu: evaluating a batch of %d paths on %s: %w", b.geo.Paths, b.dev.Info().Name, err)
	}
	return kernelMs, wallMs, nil
}

// Download fetches the outputs of the last Run now (Value and Deriv do it
// on first use) and returns the error of that.
func (b *Batch) Download() error {
	if b.outValid || b.closed {
		return b.err
	}
	b.err = nil
	for i, r := range b.out {
		buf := b.outBufs[i]
		err := r.chunks(func(dev, host, n int64) error {
			return b.dev.CopyDtoH(buf[host:host+n], b.data.Float64Slice(dev, n))
		})
		if err != nil {
			b.err = fmt.Errorf("gpu: downloading the outputs of %d paths: %w", b.geo.Paths, err)
			for _, buf := range b.outBufs {
				for j := range buf {
					buf[j] = math.NaN()
				}
			}
			break
		}
	}
	b.outValid = true
	return b.err
}

// Err returns the error of a failed download (Value and Deriv then give
// NaNs), or nil.
func (b *Batch) Err() error { return b.err }

// Value writes the series of polynomial i of path p (the CPU layout) into
// dst and returns it (a new slice when dst is shorter than
// Layout.SlotLen).
func (b *Batch) Value(p, i int, dst []float64) []float64 { return b.output(p, b.plan.Value[i], dst) }

// Deriv writes the series of ∂poly/∂z[v] of path p into dst, as Value.
func (b *Batch) Deriv(p, poly, v int, dst []float64) []float64 {
	return b.output(p, b.plan.DerivSlot(poly, v), dst)
}

func (b *Batch) output(p int, s stager.Slot, dst []float64) []float64 {
	b.checkPath(p)
	n := b.layout.SlotLen()
	if len(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	if s == stager.NoSlot {
		clear(dst)
		return dst
	}
	_ = b.Download()
	i, _ := slices.BinarySearchFunc(b.out, int(s), func(r batchRange, s int) int {
		switch {
		case r.hi <= s:
			return -1
		case r.lo > s:
			return 1
		}
		return 0
	})
	b.out[i].get(dst, b.outBufs[i], p, int(s))
	return dst
}

// Close frees the device arrays; the kernels stay loaded.
func (b *Batch) Close() error {
	if b.closed {
		return nil
	}
	err := b.release()
	b.closed = true
	return err
}

func (b *Batch) release() error {
	var errs []error
	if b.timer != nil {
		errs = append(errs, b.timer.Close())
		b.timer = nil
	}
	for _, buf := range []*cudadev.Buffer{&b.data, &b.convJobs, &b.addJobs} {
		if !buf.IsNil() {
			errs = append(errs, b.dev.Free(*buf))
			*buf = cudadev.Buffer{}
		}
	}
	return errors.Join(errs...)
}
