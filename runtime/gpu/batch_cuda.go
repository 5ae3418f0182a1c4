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
// it) for the whole batch, or with BatchOptions.OneLaunch one kernel of a
// block per path for all the layers. The data array is laid out as
// gpuabi's batched contract says (BatchOptions.Order); series go in and
// come out in the CPU layout (backend.Layout).
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

	// layers: the layers of gpuabi.EvalTables (OneLaunch only).
	layers cudadev.Buffer

	// Host mirrors of the inputs and the read-only slots of every path
	// (set in the stages, moved to the buffers and uploaded at the next
	// Run for the paths set since the last).
	in, ro           batchRange
	inBuf, roBuf     []float64
	inStage, roStage []float64
	inDirty, roDirty []bool // by path: set since the last upload
	// roHeld is, by path and read-only slot, how many coefficients of the
	// stage may be nonzero (putShort).
	roHeld []int32
	// roTouched is, likewise, how many coefficients were written since
	// the last upload: only those move to the buffer.
	roTouched []int32
	// pinned: the buffers are page-locked (hostBufs, freed at Close).
	pinned               bool
	hostBufs             [][]float64
	inPending, roPending bool

	// Outputs: runs of output slots of the paths of the last Run,
	// downloaded on first use.
	out       []batchRange
	outBufs   [][]float64
	outStages [][]float64
	// outAt: where each value and derivative lives (the m values, then
	// ∂poly/∂z[v] at m + poly·inputs + v), worked out once.
	outAt    []outLoc
	active   int // the paths of the last Run: 0..active-1
	outValid bool
	err      error // the error of a failed download
	closed   bool
}

// batchLaunch is one launch of a Run: the jobs first..first+count-1 of a
// layer, or (kind gpuabi.BatchEval) count layers, the whole plan.
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
	most := gpuabi.BatchBlock
	if opt.OneLaunch {
		most = gpuabi.BatchEvalBlock
	}
	block := opt.Block
	if block == 0 {
		block = most
	}
	if block < 1 || block > most {
		return nil, fmt.Errorf("gpu: preparing %s: block of %d threads, the batched kernels take 1..%d", what, block, most)
	}
	convFn, ok1 := k.funcs[gpuabi.BatchKernelName(gpuabi.BatchConv, p)]
	addFn, ok2 := k.funcs[gpuabi.BatchKernelName(gpuabi.BatchAdd, p)]
	evalFn, ok3 := k.funcs[gpuabi.BatchKernelName(gpuabi.BatchEval, p)]
	if !ok1 || !ok2 || !ok3 {
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
	tables := gpuabi.NewEvalTables(plan)
	if b.convJobs, err = uploadInt32(b.dev, tables.Conv, "convolution"); err != nil {
		return nil, err
	}
	if b.addJobs, err = uploadInt32(b.dev, tables.Add, "addition"); err != nil {
		return nil, err
	}
	if opt.OneLaunch {
		if b.layers, err = uploadInt64(b.dev, tables.Layers, "layer"); err != nil {
			return nil, err
		}
		b.launches = []batchLaunch{{fn: evalFn, count: tables.ConvLayers + tables.AddLayers, kind: gpuabi.BatchEval}}
	} else {
		for l := range tables.ConvLayers + tables.AddLayers {
			first, count := int(tables.Layers[2*l]), int(tables.Layers[2*l+1])
			kind, fn, jobs, layer := gpuabi.BatchConv, convFn, b.convJobs, l
			if l >= tables.ConvLayers {
				kind, fn, jobs, layer = gpuabi.BatchAdd, addFn, b.addJobs, l-tables.ConvLayers
			}
			for lo := 0; lo < count; lo += gpuabi.BatchMaxJobs {
				n := min(gpuabi.BatchMaxJobs, count-lo)
				b.launches = append(b.launches, batchLaunch{fn: fn, grid: cudadev.Dim3{1, n}, jobs: jobs,
					first: first + lo, count: n, kind: kind, layer: layer})
			}
		}
	}
	if b.timer, err = b.dev.NewTimer(); err != nil {
		return nil, fmt.Errorf("gpu: preparing %s: %w", what, err)
	}

	b.in = newBatchRange(b.geo, kindRange(plan, stager.SlotInput))
	b.ro = newBatchRange(b.geo, kindRange(plan, stager.SlotConst, stager.SlotCoef))
	b.pinned = !opt.Pageable
	if b.inBuf, b.inStage, err = b.newMirror(b.in, paths); err != nil {
		return nil, fmt.Errorf("gpu: preparing %s: %w", what, err)
	}
	if b.roBuf, b.roStage, err = b.newMirror(b.ro, paths); err != nil {
		return nil, fmt.Errorf("gpu: preparing %s: %w", what, err)
	}
	b.inDirty, b.roDirty = make([]bool, paths), make([]bool, paths)
	b.roHeld = make([]int32, paths*(b.ro.hi-b.ro.lo))
	b.roTouched = make([]int32, paths*(b.ro.hi-b.ro.lo))
	for i := range b.roHeld {
		b.roHeld[i] = int32(plan.Degree + 1)
	}
	_, runs := outputRuns(plan)
	for _, r := range runs {
		br := newBatchRange(b.geo, r)
		buf, stage, err := b.newMirror(br, paths)
		if err != nil {
			return nil, fmt.Errorf("gpu: preparing %s: %w", what, err)
		}
		b.out = append(b.out, br)
		b.outBufs = append(b.outBufs, buf)
		b.outStages = append(b.outStages, stage)
	}
	b.outAt = b.outLocs()
	// Every path's read-only slots, rounded as the CPU executor rounds them.
	err = backend.RoundValues(plan, b.ro.lo, b.ro.hi, b.layout, 0, func(s stager.Slot, series []float64) {
		for path := 0; path < paths; path++ {
			b.ro.put(b.roStage, path, int(s), series)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("gpu: preparing %s: %w", what, err)
	}
	all := make([]int, paths)
	for p := range all {
		all[p] = p
	}
	b.ro.toBuffer(b.roBuf, b.roStage, all, nil)
	if err := b.upload(b.ro, b.roBuf, paths, plan.Degree+1); err != nil {
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

func uploadInt64(dev *cudadev.Device, t []int64, what string) (cudadev.Buffer, error) {
	if len(t) == 0 {
		return cudadev.Buffer{}, nil
	}
	b, err := dev.Alloc(8 * int64(len(t)))
	if err != nil {
		return b, fmt.Errorf("gpu: allocating the %s table (%d words): %w", what, len(t), err)
	}
	if err := dev.CopyHtoDInt64(b, t); err != nil {
		return b, fmt.Errorf("gpu: uploading the %s table (%d words): %w", what, len(t), err)
	}
	return b, nil
}

// newMirror makes the host buffer and the stage of a range of paths
// paths (one slice when they are the same); the buffer is page-locked
// unless BatchOptions.Pageable.
func (b *Batch) newMirror(r batchRange, paths int) (buf, stage []float64, err error) {
	if n := r.hostLen(); !b.pinned || n == 0 {
		buf = make([]float64, n)
	} else {
		if buf, err = b.dev.AllocHost(n); err != nil {
			return nil, nil, err
		}
		b.hostBufs = append(b.hostBufs, buf)
	}
	if !r.interleaved() {
		return buf, buf, nil
	}
	return buf, make([]float64, int64(paths)*r.elems()), nil
}

// upload copies the coefficients 0..k-1 of every slot of the paths
// 0..n-1 of a range's host buffer to the device array.
func (b *Batch) upload(r batchRange, buf []float64, n, k int) error {
	return r.windowCoefs(n, k, func(dev, host int64, p cudadev.Pitched) error {
		return b.dev.CopyHtoDPitched(b.data.Float64Slice(dev, p.DevExtent()), buf[host:], p)
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
	b.in.put(b.inStage, p, int(b.plan.Inputs[v]), series)
	b.inDirty[p], b.inPending = true, true
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
	b.putValue(p, s, series)
	b.roDirty[p], b.roPending = true, true
}

// putValue puts series into read-only slot s of path p's stage.
func (b *Batch) putValue(p int, s stager.Slot, series []float64) {
	i := p*(b.ro.hi-b.ro.lo) + int(s) - b.ro.lo
	used, touched := b.ro.putShort(b.roStage, p, int(s), series, int(b.roHeld[i]))
	b.roHeld[i], b.roTouched[i] = int32(used), max(b.roTouched[i], int32(touched))
}

// roElems returns the elements of the read-only range that the paths set
// since the last upload touched (roTouched, which it clears for them), and
// the coefficients of a slot that cover them.
func (b *Batch) roElems(set []int) ([]int64, int) {
	slots := b.ro.hi - b.ro.lo
	kmax := make([]int32, slots)
	for _, p := range set {
		t := b.roTouched[p*slots : (p+1)*slots]
		for i, k := range t {
			kmax[i] = max(kmax[i], k)
		}
		clear(t)
	}
	k := int32(0)
	for _, m := range kmax {
		k = max(k, m)
	}
	return b.ro.slotElems(kmax), int(k)
}

// checkPath panics unless p is a path of the batch (an interleaved array
// has padding paths that would take it silently).
func (b *Batch) checkPath(p int) {
	if p < 0 || p >= b.geo.Paths {
		panic(fmt.Sprintf("gpu: path %d of a batch of %d", p, b.geo.Paths))
	}
}

// flush uploads what was set since the last run: the paths 0..n-1, and
// up to the last path set.
func (b *Batch) flush(n int) error {
	if b.closed {
		return errors.New("gpu: the batch is closed")
	}
	for _, m := range []struct {
		r          batchRange
		buf, stage []float64
		dirty      []bool
		pending    *bool
		elems      func(set []int) ([]int64, int) // what moves (nil: all)
		what       string
	}{
		{b.in, b.inBuf, b.inStage, b.inDirty, &b.inPending, nil, "inputs"},
		{b.ro, b.roBuf, b.roStage, b.roDirty, &b.roPending, b.roElems, "coefficients"},
	} {
		if !*m.pending {
			continue
		}
		var set []int
		for p, d := range m.dirty {
			if d {
				set = append(set, p)
				m.dirty[p] = false
			}
		}
		var elems []int64
		k := b.plan.Degree + 1
		if m.elems != nil {
			elems, k = m.elems(set)
		}
		m.r.toBuffer(m.buf, m.stage, set, elems)
		cols := n
		if len(set) > 0 {
			cols = max(cols, set[len(set)-1]+1)
		}
		if err := b.upload(m.r, m.buf, cols, k); err != nil {
			// The next run moves these paths again, every coefficient.
			for _, p := range set {
				m.dirty[p] = true
			}
			if m.elems != nil {
				slots := b.ro.hi - b.ro.lo
				for _, p := range set {
					t := b.roTouched[p*slots : (p+1)*slots]
					for i := range t {
						t[i] = int32(b.plan.Degree + 1)
					}
				}
			}
			return fmt.Errorf("gpu: uploading the %s of %d paths: %w", m.what, cols, err)
		}
		*m.pending = false
	}
	return nil
}

// launchAll queues every layer for the paths 0..n-1; it runs on the
// device's thread.
func (b *Batch) launchAll(n int) error {
	es, ps, rs := b.geo.ElemStride, b.geo.PathStride, b.geo.RowStride()
	gx := (n + b.block - 1) / b.block
	for i := range b.launches {
		l := &b.launches[i]
		if l.kind == gpuabi.BatchEval {
			// One block per path, every layer.
			err := b.dev.Launch(l.fn, cudadev.Dim3{n}, cudadev.Dim3{b.block}, 0,
				b.data, es, ps, rs, b.plan.Degree, b.convJobs, b.addJobs, b.layers,
				int64(len(b.plan.ConvLayers)), int64(len(b.plan.AddLayers)), n)
			if err != nil {
				return fmt.Errorf("gpu: launching the %d layers in one for paths 0..%d: %w", l.count, n-1, err)
			}
			continue
		}
		grid := l.grid
		grid[0] = gx
		err := b.dev.Launch(l.fn, grid, cudadev.Dim3{b.block}, 0,
			b.data, es, ps, rs, b.plan.Degree, l.jobs, l.first, l.count, n)
		if err != nil {
			return fmt.Errorf("gpu: launching %s layer %d (jobs %d..%d) for paths 0..%d: %w",
				l.kind, l.layer+1, l.first, l.first+l.count-1, n-1, err)
		}
	}
	return nil
}

// Run evaluates and differentiates the plan for every path: it uploads
// what was set since the last run, launches the layers and waits for them.
func (b *Batch) Run() error { return b.RunFirst(b.geo.Paths) }

// RunFirst is Run for the paths 0..n-1 only (1 <= n <= Paths): the
// launches cover them, Download fetches only their outputs, and the
// uploads cover them and the other paths set since the last run. A caller
// that packs the paths it needs at the front (runtime/lockstep, a group
// of paths at a time) moves and computes no more than those.
func (b *Batch) RunFirst(n int) error {
	if n < 1 || n > b.geo.Paths {
		return fmt.Errorf("gpu: running the first %d paths of a batch of %d", n, b.geo.Paths)
	}
	_, _, err := b.run(n, false)
	return err
}

// RunTimed is Run, timed as the GPU executor's RunTimed: kernelMs between
// CUDA events around the launches, wallMs on the host from the first
// launch until the device is done; the transfers are outside both.
func (b *Batch) RunTimed() (kernelMs, wallMs float64, err error) { return b.run(b.geo.Paths, true) }

func (b *Batch) run(n int, timed bool) (kernelMs, wallMs float64, err error) {
	if err := b.flush(n); err != nil {
		return 0, 0, err
	}
	b.outValid, b.active = false, n
	err = b.dev.Do(func() error {
		if timed {
			if err := b.timer.Start(); err != nil {
				return err
			}
		}
		start := time.Now()
		if err := b.launchAll(n); err != nil {
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
		err := r.window(b.active, func(dev, host int64, p cudadev.Pitched) error {
			return b.dev.CopyDtoHPitched(buf[host:], b.data.Float64Slice(dev, p.DevExtent()), p)
		})
		if err != nil {
			b.err = fmt.Errorf("gpu: downloading the outputs of %d paths: %w", b.active, err)
			for _, stage := range b.outStages {
				for j := range stage {
					stage[j] = math.NaN()
				}
			}
			break
		}
		r.toStage(b.outStages[i], buf, b.active)
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
func (b *Batch) Value(p, i int, dst []float64) []float64 { return b.output(p, b.outAt[i], dst) }

// Deriv writes the series of ∂poly/∂z[v] of path p into dst, as Value.
func (b *Batch) Deriv(p, poly, v int, dst []float64) []float64 {
	return b.output(p, b.outAt[len(b.plan.Value)+poly*len(b.plan.Inputs)+v], dst)
}

// outLoc is an output slot and the index of its range in Batch.out (-1:
// no slot, the series is zero).
type outLoc struct {
	slot, run int32
}

func (b *Batch) outLocs() []outLoc {
	m, n := len(b.plan.Value), len(b.plan.Inputs)
	at := func(s stager.Slot) outLoc {
		if s == stager.NoSlot {
			return outLoc{-1, -1}
		}
		i, _ := slices.BinarySearchFunc(b.out, int(s), func(r batchRange, s int) int {
			switch {
			case r.hi <= s:
				return -1
			case r.lo > s:
				return 1
			}
			return 0
		})
		return outLoc{int32(s), int32(i)}
	}
	locs := make([]outLoc, m+m*n)
	for i := range m {
		locs[i] = at(b.plan.Value[i])
		for v := range n {
			locs[m+i*n+v] = at(b.plan.DerivSlot(i, v))
		}
	}
	return locs
}

func (b *Batch) output(p int, at outLoc, dst []float64) []float64 {
	b.checkPath(p)
	n := b.layout.SlotLen()
	if len(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	if at.run < 0 {
		clear(dst)
		return dst
	}
	_ = b.Download()
	b.out[at.run].get(dst, b.outStages[at.run], p, int(at.slot))
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
	for _, buf := range b.hostBufs {
		errs = append(errs, b.dev.FreeHost(buf))
	}
	b.hostBufs = nil
	for _, buf := range []*cudadev.Buffer{&b.data, &b.convJobs, &b.addJobs, &b.layers} {
		if !buf.IsNil() {
			errs = append(errs, b.dev.Free(*buf))
			*buf = cudadev.Buffer{}
		}
	}
	return errors.Join(errs...)
}
