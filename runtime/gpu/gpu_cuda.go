//go:build cuda

package gpu

import (
	"encoding/binary"
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

// Enabled reports whether this build has the GPU executor (build tag cuda).
const Enabled = true

// Kernels is a loaded fatbin of mdgen kernels of one precision: it may
// serve many GPU executors (plans, degrees) at once.
type Kernels struct {
	dev      *cudadev.Device
	mod      *cudadev.Module // loaded here, unloaded by Close
	borrowed *cudadev.Module // given to UseKernels
	n        int
	version  int64 // gpuabi.LayoutSymbol's value, or -1 when the module has none
	funcs    map[string]*cudadev.Function
}

// isNotFound reports whether err is the driver's CUDA_ERROR_NOT_FOUND.
func isNotFound(err error) bool {
	var de *cudadev.DriverError
	return errors.As(err, &de) && de.Code == 500
}

// LoadKernels loads a fatbin (nvcc -fatbin output) of the kernels of the
// contract (package gpuabi) for precision n and checks it: the layout
// version it carries (gpuabi.LayoutSymbol, when present) must be
// gpuabi.LayoutVersion, and it must have the conv and add kernels of n for
// every kind of data in complex (false: real, true: complex). A fatbin
// built for another layout or precision is refused here, with ErrModule.
func LoadKernels(dev *cudadev.Device, fatbin []byte, n int, complex ...bool) (*Kernels, error) {
	if dev == nil {
		return nil, errors.New("gpu: loading GPU kernels: no device")
	}
	mod, err := dev.LoadModule(fatbin)
	if err != nil {
		return nil, fmt.Errorf("gpu: loading the %d-double kernels: %w", n, err)
	}
	k, err := checkKernels(dev, mod, n, complex)
	if err != nil {
		return nil, errors.Join(err, mod.Unload())
	}
	return k, nil
}

// UseKernels checks a module loaded already (a solver's embedded fatbin,
// say) as LoadKernels does. Close leaves the module loaded.
func UseKernels(dev *cudadev.Device, mod *cudadev.Module, n int, complex ...bool) (*Kernels, error) {
	k, err := checkKernels(dev, mod, n, complex)
	if err != nil {
		return nil, err
	}
	k.borrowed, k.mod = mod, nil // not ours to unload
	return k, nil
}

func checkKernels(dev *cudadev.Device, mod *cudadev.Module, n int, complex []bool) (*Kernels, error) {
	k := &Kernels{dev: dev, mod: mod, n: n, version: -1, funcs: map[string]*cudadev.Function{}}
	{
		buf, err := mod.Global(gpuabi.LayoutSymbol)
		switch {
		case err == nil:
			v, err := readIntGlobal(dev, buf)
			if err != nil {
				return nil, fmt.Errorf("gpu: reading %s of module %s: %w", gpuabi.LayoutSymbol, mod.Name(), err)
			}
			k.version = v
			if v != gpuabi.LayoutVersion {
				return nil, fmt.Errorf("gpu: module %s: %w: it was built for GPU layout version %d, this mdgen has version %d (rebuild the kernels with this mdgen)",
					mod.Name(), ErrModule, v, gpuabi.LayoutVersion)
			}
		case isNotFound(err):
			// an older or foreign module: the kernel names decide
		default:
			return nil, fmt.Errorf("gpu: looking up %s in module %s: %w", gpuabi.LayoutSymbol, mod.Name(), err)
		}
	}
	if len(complex) == 0 {
		complex = []bool{false}
	}
	var missing []string
	for _, c := range complex {
		for _, kind := range gpuabi.Kinds {
			name := gpuabi.KernelName(kind, mdops.Prec{N: n, Complex: c})
			f, err := mod.Function(name)
			if err != nil {
				if isNotFound(err) {
					missing = append(missing, name)
					continue
				}
				return nil, fmt.Errorf("gpu: looking up kernel %s: %w", name, err)
			}
			k.funcs[name] = f
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("gpu: module %s: %w: it lacks the kernels %v (built for another precision, or for another kind of data?)",
			mod.Name(), ErrModule, missing)
	}
	return k, nil
}

// readIntGlobal reads a 4- or 8-byte little-endian integer global.
func readIntGlobal(dev *cudadev.Device, buf cudadev.Buffer) (int64, error) {
	switch buf.Bytes() {
	case 4, 8:
	default:
		return 0, fmt.Errorf("a global of %d bytes, want an int or a long long", buf.Bytes())
	}
	b := make([]byte, buf.Bytes())
	if err := dev.CopyDtoHBytes(b, buf); err != nil {
		return 0, err
	}
	if len(b) == 4 {
		return int64(int32(binary.LittleEndian.Uint32(b))), nil
	}
	return int64(binary.LittleEndian.Uint64(b)), nil
}

// N returns the precision of the kernels.
func (k *Kernels) N() int { return k.n }

// LayoutVersion returns the GPU layout version the module carries, or -1
// when it carries none.
func (k *Kernels) LayoutVersion() int64 { return k.version }

// Attributes returns the resource figures of a kernel, as the driver
// reports them for the loaded code.
func (k *Kernels) Attributes(kind gpuabi.Kind, complex bool) (cudadev.FuncAttributes, bool) {
	f, ok := k.funcs[gpuabi.KernelName(kind, mdops.Prec{N: k.n, Complex: complex})]
	if !ok {
		return cudadev.FuncAttributes{}, false
	}
	return f.Attributes(), true
}

// Close unloads the module (when LoadKernels loaded it).
func (k *Kernels) Close() error {
	if k.mod == nil {
		return nil
	}
	m := k.mod
	k.mod = nil
	return m.Unload()
}

// Executor runs a stager.Plan on a CUDA device with the kernels of the
// contract (package gpuabi). New allocates the data array and the job
// tables once and uploads the read-only slots; Run only launches. It
// implements backend.Executor.
type Executor struct {
	plan    *stager.Plan
	prec    mdops.Prec
	dev     *cudadev.Device
	kernels *Kernels
	ownsK   bool
	geo     geometry
	sizes   gpuabi.Sizes
	layout  backend.Layout

	data, convJobs, addJobs cudadev.Buffer
	tablesOwned             bool
	launches                []launch
	shapes                  []ShapeInfo
	timer                   *cudadev.Timer

	// Inputs: a mirror in the CPU layout, uploaded at the next Run.
	inputs    [][]float64
	inRange   slotRun
	inPending bool

	// Outputs: slots, the runs they are downloaded in, and their series
	// in the CPU layout, valid when outValid.
	outSlots []stager.Slot // increasing
	outRuns  []slotRun
	out      []float64 // allocated by the first download
	outValid bool
	zero     []float64

	buf    []float64   // host buffer for moving ranges of slots
	slot   []float64   // one slot in the CPU layout, for moving ranges
	inVar  map[int]int // input slot → variable
	err    error       // sticky error of a failed download
	closed bool
}

type launch struct {
	fn           *cudadev.Function
	grid, block  cudadev.Dim3
	shared       int
	jobs         cudadev.Buffer
	first, count int
	kind         gpuabi.Kind
}

var _ backend.Executor = (*Executor)(nil)

// New prepares plan on dev at precision p, with the kernels of the fatbin
// (loaded here, unloaded by Close) and the default options.
func New(plan *stager.Plan, p mdops.Prec, fatbin []byte, dev *cudadev.Device) (*Executor, error) {
	return NewWithOptions(plan, p, fatbin, dev, Options{})
}

// NewWithOptions is New with options.
func NewWithOptions(plan *stager.Plan, p mdops.Prec, fatbin []byte, dev *cudadev.Device, opt Options) (*Executor, error) {
	k, err := LoadKernels(dev, fatbin, p.N, p.Complex)
	if err != nil {
		return nil, err
	}
	g, err := NewFromKernels(plan, p.Complex, k, opt)
	if err != nil {
		return nil, errors.Join(err, k.Close())
	}
	g.ownsK = true
	return g, nil
}

// NewFromKernels prepares plan with kernels loaded already (one fatbin can
// serve many executors). Close leaves the kernels loaded.
func NewFromKernels(plan *stager.Plan, complex bool, k *Kernels, opt Options) (*Executor, error) {
	if plan == nil || k == nil {
		return nil, errors.New("gpu: New: nil plan or kernels")
	}
	n, dev := k.n, k.dev
	prec := mdops.Prec{N: n, Complex: complex}
	what := fmt.Sprintf("%s data at degree %d", prec, plan.Degree)
	shape := opt.Shape
	if shape == nil && DeviceShape != nil {
		shape = DeviceShape(dev.Info(), plan) // a tuning profile (runtime/tune)
	}
	if shape == nil {
		shape = gpuabi.LaunchShape
	}
	convFn, ok1 := k.funcs[gpuabi.KernelName(gpuabi.Conv, prec)]
	addFn, ok2 := k.funcs[gpuabi.KernelName(gpuabi.Add, prec)]
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("gpu: preparing %s on the GPU: %w: the kernels were loaded without %s data", what, ErrModule, prec.Kind())
	}
	// A complex coefficient with real data is refused by the rounding of
	// the read-only slots below (backend.RoundValues), in the same pass as
	// the rounding: a scan of its own was a second pass over millions of
	// coefficients.

	g := &Executor{plan: plan, prec: prec, dev: dev, kernels: k,
		geo: newGeometry(plan, n, complex), sizes: gpuabi.Memory(plan, prec),
		layout: backend.Layout{Prec: prec, Degree: plan.Degree}}
	if g.geo.stride > math.MaxInt64/int64(8*g.geo.chunks()) || plan.NumSlots() > math.MaxInt32 {
		return nil, fmt.Errorf("gpu: preparing %s on the GPU: the data array of %d series overflows 64-bit sizes", what, plan.NumSlots())
	}

	// Launch shapes, checked against what the kernels allow.
	info := dev.Info()
	type shaped struct {
		fn            *cudadev.Function
		block, shared int
	}
	shapes := map[gpuabi.Kind]shaped{}
	for _, kk := range []struct {
		kind gpuabi.Kind
		fn   *cudadev.Function
	}{{gpuabi.Conv, convFn}, {gpuabi.Add, addFn}} {
		block, shared := shape(kk.kind, n, complex, plan.Degree)
		a := kk.fn.Attributes()
		if block <= 0 || block > a.MaxThreadsPerBlock {
			return nil, fmt.Errorf("gpu: preparing %s on the GPU: kernel %s: block of %d threads, the kernel allows 1..%d (%d registers per thread)",
				what, kk.fn.Name(), block, a.MaxThreadsPerBlock, a.NumRegs)
		}
		if shared+a.SharedBytes > info.MaxSharedPerBlockOptin {
			return nil, fmt.Errorf("gpu: preparing %s on the GPU: kernel %s needs %d bytes of dynamic shared memory (+%d static), %s allows %d per block: lower the degree",
				what, kk.fn.Name(), shared, a.SharedBytes, info.Name, info.MaxSharedPerBlockOptin)
		}
		if shared+a.SharedBytes > info.MaxSharedPerBlock {
			if err := kk.fn.SetMaxDynamicShared(shared); err != nil {
				return nil, fmt.Errorf("gpu: preparing %s on the GPU: %w", what, err)
			}
		}
		perSM, err := kk.fn.MaxActiveBlocks(block, shared)
		if err != nil {
			return nil, fmt.Errorf("gpu: preparing %s on the GPU: %w", what, err)
		}
		g.shapes = append(g.shapes, ShapeInfo{Kernel: kk.fn.Name(), Block: block, Shared: shared, BlocksPerSM: perSM, Regs: a.NumRegs})
		shapes[kk.kind] = shaped{kk.fn, block, shared}
	}

	// Memory: refuse before allocating.
	need := g.sizes.DataBytes
	if !opt.ModuleTables {
		need += g.sizes.TableBytes
	}
	free, err := dev.FreeMemory()
	if err != nil {
		return nil, fmt.Errorf("gpu: preparing %s on the GPU: %w", what, err)
	}
	if need > free-memoryReserve {
		return nil, fmt.Errorf("gpu: %w: %s, but %s of %s is free on %s (%s kept in reserve)",
			ErrMemory, g.sizes.Describe(plan, prec), stager.FormatBytes(free), stager.FormatBytes(info.TotalMemory), info.Name,
			stager.FormatBytes(memoryReserve))
	}

	ok := false
	defer func() {
		if !ok {
			g.release()
		}
	}()
	if g.data, err = dev.Alloc(g.sizes.DataBytes); err != nil {
		return nil, fmt.Errorf("gpu: allocating the data array for %s: %w", what, err)
	}
	if err := dev.Memset(g.data, 0); err != nil {
		return nil, fmt.Errorf("gpu: zeroing the data array for %s: %w", what, err)
	}
	conv, add, convLayers, addLayers := gpuabi.JobTables(plan)
	if opt.ModuleTables {
		if err := g.useModuleTables(conv, add); err != nil {
			return nil, fmt.Errorf("gpu: preparing %s on the GPU: %w", what, err)
		}
	} else {
		g.tablesOwned = true
		if g.convJobs, err = g.uploadTable(conv, "convolution"); err != nil {
			return nil, err
		}
		if g.addJobs, err = g.uploadTable(add, "addition"); err != nil {
			return nil, err
		}
	}
	for _, layers := range []struct {
		kind gpuabi.Kind
		jobs cudadev.Buffer
		list [][2]int
	}{{gpuabi.Conv, g.convJobs, convLayers}, {gpuabi.Add, g.addJobs, addLayers}} {
		s := shapes[layers.kind]
		for _, l := range layers.list {
			if l[1] == 0 {
				continue
			}
			g.launches = append(g.launches, launch{fn: s.fn, grid: cudadev.Dim3{l[1]}, block: cudadev.Dim3{s.block},
				shared: s.shared, jobs: layers.jobs, first: l[0], count: l[1], kind: layers.kind})
		}
	}
	if g.timer, err = dev.NewTimer(); err != nil {
		return nil, fmt.Errorf("gpu: preparing %s on the GPU: %w", what, err)
	}

	// Host buffers, once.
	slotLen := g.layout.SlotLen()
	g.zero = make([]float64, slotLen)
	g.slot = make([]float64, slotLen)
	g.inVar = make(map[int]int, len(plan.Inputs))
	for v, s := range plan.Inputs {
		g.inVar[int(s)] = v
	}
	g.inputs = make([][]float64, plan.NumVars)
	for v := range g.inputs {
		g.inputs[v] = make([]float64, slotLen)
	}
	g.inRange = kindRange(plan, stager.SlotInput)
	// The host copy of the outputs (every derivative: 16.7 million series
	// for chandra4096) is made by the first download only: the GPU Newton
	// reads them on the device and never downloads.
	g.outSlots, g.outRuns = outputRuns(plan)
	longest := g.inRange.hi - g.inRange.lo
	for _, r := range g.outRuns {
		longest = max(longest, r.hi-r.lo)
	}
	roRange := kindRange(plan, stager.SlotConst, stager.SlotCoef)
	longest = max(longest, roRange.hi-roRange.lo)
	g.buf = make([]float64, g.geo.rangeLen(min(max(longest, 1), g.geo.chunkSlots())))

	// Read-only slots, rounded as the CPU executor rounds them.
	if err := g.uploadReadOnly(roRange); err != nil {
		return nil, fmt.Errorf("gpu: uploading the coefficients for %s: %w", what, err)
	}
	ok = true
	return g, nil
}

func (g *Executor) uploadTable(t []int32, what string) (cudadev.Buffer, error) {
	if len(t) == 0 {
		return cudadev.Buffer{}, nil
	}
	b, err := g.dev.Alloc(4 * int64(len(t)))
	if err != nil {
		return b, fmt.Errorf("gpu: allocating the %s job table (%d jobs): %w", what, len(t), err)
	}
	if err := g.dev.CopyHtoDInt32(b, t); err != nil {
		return b, fmt.Errorf("gpu: uploading the %s job table (%d jobs): %w", what, len(t), err)
	}
	return b, nil
}

// useModuleTables takes the job tables baked into the module, after
// checking them against the plan's.
func (g *Executor) useModuleTables(conv, add []int32) error {
	gl := g.kernels.mod
	if gl == nil {
		gl = g.kernels.borrowed
	}
	for _, t := range []struct {
		sym  string
		want []int32
		dst  *cudadev.Buffer
	}{{gpuabi.ConvJobsSymbol, conv, &g.convJobs}, {gpuabi.AddJobsSymbol, add, &g.addJobs}} {
		buf, err := gl.Global(t.sym)
		if err != nil {
			return fmt.Errorf("looking up the job table %s: %w", t.sym, err)
		}
		if buf.Bytes() < 4*int64(len(t.want)) {
			return fmt.Errorf("%w: the job table %s has %d bytes, the plan needs %d: the module was emitted for another system or degree",
				ErrModule, t.sym, buf.Bytes(), 4*len(t.want))
		}
		got := make([]int32, len(t.want))
		if err := g.dev.CopyDtoHInt32(got, buf); err != nil {
			return fmt.Errorf("reading the job table %s: %w", t.sym, err)
		}
		if i := firstDiff(got, t.want); i >= 0 {
			return fmt.Errorf("%w: the job table %s differs from the plan's at word %d (%d, want %d): the module was emitted for another system or degree",
				ErrModule, t.sym, i, got[i], t.want[i])
		}
		*t.dst = buf
	}
	return nil
}

func firstDiff(a, b []int32) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// uploadReadOnly rounds the read-only slots and uploads them, in chunks;
// the rounding (most of a large plan's setup) runs on every core.
func (g *Executor) uploadReadOnly(r slotRun) error {
	step := g.geo.chunkSlots()
	for lo := r.lo; lo < r.hi; lo += step {
		hi := min(lo+step, r.hi)
		count := hi - lo
		buf := g.buf[:g.geo.rangeLen(count)]
		clear(buf) // slots without a value are zero
		err := backend.RoundValues(g.plan, lo, hi, g.layout, 0, func(s stager.Slot, series []float64) {
			g.geo.toRange(buf, count, int(s)-lo, series)
		})
		if err != nil {
			return err
		}
		per := int64(count * g.geo.d1)
		for c := 0; c < g.geo.chunks(); c++ {
			dev := g.data.Float64Slice(int64(c)*g.geo.stride+int64(lo)*int64(g.geo.d1), per)
			if err := g.dev.CopyHtoD(dev, buf[int64(c)*per:int64(c+1)*per]); err != nil {
				return err
			}
		}
	}
	return nil
}

// moveRange moves the slots of r between the device and the host buffer in
// chunks. Uploading, fill(s, series) gives slot s in the CPU layout;
// downloading, fill(s, series) receives it. fill returns false to stop,
// with *ferr set.
func (g *Executor) moveRange(r slotRun, upload bool, fill func(s int, series []float64) bool, ferr *error) error {
	slot := g.slot
	step := g.geo.chunkSlots()
	for lo := r.lo; lo < r.hi; lo += step {
		hi := min(lo+step, r.hi)
		count := hi - lo
		buf := g.buf[:g.geo.rangeLen(count)]
		per := int64(count * g.geo.d1)
		if upload {
			for s := lo; s < hi; s++ {
				if !fill(s, slot) {
					return *ferr
				}
				g.geo.toRange(buf, count, s-lo, slot)
			}
		}
		for c := 0; c < g.geo.chunks(); c++ {
			dev := g.data.Float64Slice(int64(c)*g.geo.stride+int64(lo)*int64(g.geo.d1), per)
			host := buf[int64(c)*per : int64(c+1)*per]
			var err error
			if upload {
				err = g.dev.CopyHtoD(dev, host)
			} else {
				err = g.dev.CopyDtoH(host, dev)
			}
			if err != nil {
				return err
			}
		}
		if !upload {
			for s := lo; s < hi; s++ {
				g.geo.fromRange(slot, buf, count, s-lo)
				if !fill(s, slot) {
					return *ferr
				}
			}
		}
	}
	return nil
}

// Plan and Prec describe the executor.
func (g *Executor) Plan() *stager.Plan { return g.plan }
func (g *Executor) Prec() mdops.Prec   { return g.prec }

// Sizes returns the device memory of the executor's arrays.
func (g *Executor) Sizes() gpuabi.Sizes { return g.sizes }

// Launches returns the number of kernel launches of one Run.
func (g *Executor) Launches() int { return len(g.launches) }

// Kernels returns the loaded kernels.
func (g *Executor) Kernels() *Kernels { return g.kernels }

// Shapes returns the launch shapes of the convolution and addition kernels.
func (g *Executor) Shapes() []ShapeInfo { return slices.Clone(g.shapes) }

// SetInput sets the series of input variable v (Layout.SlotLen doubles in
// the CPU layout). It is converted to the limb-major layout and uploaded
// with the other inputs at the start of the next Run (N·parts copies for
// all inputs together), outside the timed part of RunTimed.
func (g *Executor) SetInput(v int, series []float64) {
	copy(g.inputs[v], series)
	g.inPending = true
}

// flushInputs uploads the inputs set since the last run.
func (g *Executor) flushInputs() error {
	if g.closed {
		return errors.New("gpu: the GPU executor is closed")
	}
	if !g.inPending {
		return nil
	}
	err := g.moveRange(g.inRange, true, func(s int, dst []float64) bool {
		if v, ok := g.inVar[s]; ok {
			copy(dst, g.inputs[v])
		} else {
			clear(dst)
		}
		return true
	}, nil)
	if err != nil {
		return fmt.Errorf("gpu: uploading the input series: %w", err)
	}
	g.inPending = false
	return nil
}

// launchAll queues every layer; it runs on the device's thread (inside Do).
func (g *Executor) launchAll() error {
	for i := range g.launches {
		l := &g.launches[i]
		err := g.dev.Launch(l.fn, l.grid, l.block, l.shared,
			g.data, g.geo.stride, g.plan.Degree, l.jobs, l.first, l.count)
		if err != nil {
			return fmt.Errorf("gpu: launching %s layer %d of %d: %w", l.kind, i+1, len(g.launches), err)
		}
	}
	return nil
}

// Run evaluates and differentiates the system at the inputs: it uploads
// inputs set since the last run, launches the convolution layers, then the
// addition layers, and waits for them.
func (g *Executor) Run() error {
	if err := g.flushInputs(); err != nil {
		return err
	}
	g.outValid = false
	err := g.dev.Do(func() error {
		if err := g.launchAll(); err != nil {
			return err
		}
		return g.dev.Synchronize()
	})
	if err != nil {
		return fmt.Errorf("gpu: evaluating on %s: %w", g.dev.Info().Name, err)
	}
	return nil
}

// RunTimed is Run, timed as GPU.md defines it: kernelMs is the device time
// between CUDA events recorded before the first and after the last launch;
// wallMs the host time from the first launch until the device has finished
// the last (the result is ready on the device). Input and output transfers
// are outside both.
func (g *Executor) RunTimed() (kernelMs, wallMs float64, err error) {
	if err := g.flushInputs(); err != nil {
		return 0, 0, err
	}
	g.outValid = false
	err = g.dev.Do(func() error {
		if err := g.timer.Start(); err != nil {
			return err
		}
		start := time.Now()
		if err := g.launchAll(); err != nil {
			_, _ = g.timer.Stop()
			return err
		}
		ms, err := g.timer.Stop() // waits for the stop event: all kernels done
		wallMs = float64(time.Since(start).Nanoseconds()) / 1e6
		kernelMs = ms
		return err
	})
	if err != nil {
		return 0, 0, fmt.Errorf("gpu: evaluating on %s: %w", g.dev.Info().Name, err)
	}
	return kernelMs, wallMs, nil
}

// download fetches every output slot of the last run, once.
func (g *Executor) download() {
	if g.outValid || g.closed {
		return
	}
	slotLen := g.layout.SlotLen()
	if g.out == nil {
		g.out = make([]float64, len(g.outSlots)*slotLen)
	}
	i := 0 // the runs and the slots in them increase
	for _, r := range g.outRuns {
		err := g.moveRange(r, false, func(s int, src []float64) bool {
			for i < len(g.outSlots) && int(g.outSlots[i]) < s {
				i++
			}
			if i < len(g.outSlots) && int(g.outSlots[i]) == s {
				copy(g.out[i*slotLen:(i+1)*slotLen], src)
			}
			return true
		}, nil)
		if err != nil {
			g.err = fmt.Errorf("gpu: downloading the outputs: %w", err)
			for i := range g.out {
				g.out[i] = math.NaN()
			}
			break
		}
	}
	g.outValid = true
}

// Err returns the error of a failed download of the outputs (Value and
// Deriv then give NaNs), or nil.
func (g *Executor) Err() error { return g.err }

// Download fetches the outputs of the last Run now (Value and Deriv do it
// on first use) and returns the error of that.
func (g *Executor) Download() error {
	g.download()
	return g.err
}

// Value returns the series of polynomial p (CPU layout), valid until the
// next Run. The first Value or Deriv after a Run downloads all outputs.
func (g *Executor) Value(p int) []float64 { return g.output(g.plan.Value[p]) }

// Deriv returns the series of ∂p/∂z[v] (CPU layout), valid until the next Run.
func (g *Executor) Deriv(p, v int) []float64 { return g.output(g.plan.DerivSlot(p, v)) }

func (g *Executor) output(s stager.Slot) []float64 {
	if s == stager.NoSlot {
		return g.zero
	}
	g.download()
	i, _ := slices.BinarySearch(g.outSlots, s)
	n := g.layout.SlotLen()
	return g.out[i*n : (i+1)*n : (i+1)*n]
}

// Close frees the device arrays (and the kernels, when New loaded them).
func (g *Executor) Close() error {
	if g.closed {
		return nil
	}
	err := g.release()
	g.closed = true
	return err
}

func (g *Executor) release() error {
	var errs []error
	if g.timer != nil {
		errs = append(errs, g.timer.Close())
		g.timer = nil
	}
	bufs := []*cudadev.Buffer{&g.data}
	if g.tablesOwned {
		bufs = append(bufs, &g.convJobs, &g.addJobs)
	}
	for _, b := range bufs {
		if !b.IsNil() {
			errs = append(errs, g.dev.Free(*b))
			*b = cudadev.Buffer{}
		}
	}
	if g.ownsK {
		errs = append(errs, g.kernels.Close())
	}
	return errors.Join(errs...)
}
