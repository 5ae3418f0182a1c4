package runtime

// The GPU executor. The real one is gpu_cuda.go (build tag cuda); without
// the tag gpu_nocuda.go gives the same API, every constructor returning an
// error that wraps cudadev.ErrNoCUDA. This file holds what both builds
// share: options, sizes, and the conversion between the CPU layout of a
// series and the limb-major layout of gpulayout.go.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mdgen/mdgen/stager"
)

// GPUShapeFunc returns the launch shape of a kernel of gpulayout.go: kind
// is "conv" or "add"; block is the number of threads of a block and shared
// the bytes of dynamic shared memory a block gets.
type GPUShapeFunc func(kind string, n int, complex bool, degree int) (block, shared int)

var _ GPUShapeFunc = GPULaunchShape

// GPUOptions tune NewGPU; the zero value is the default.
type GPUOptions struct {
	// Shape gives the launch shape of the kernels; nil means the contract's
	// GPULaunchShape (gpulayout.go). Kernels that are not mdgen's generated
	// ones (GPUReferenceKernelsCU) come with a shape of their own
	// (GPUReferenceShape).
	Shape GPUShapeFunc
	// ModuleTables uses the job tables baked into the module (the globals
	// GPUConvJobsSymbol and GPUAddJobsSymbol that an emitted solver carries)
	// instead of uploading the Plan's: they are checked against the Plan,
	// word for word, once at construction.
	ModuleTables bool
}

// GPUShapeInfo is the launch shape of one kernel of a GPU executor and what
// the driver's occupancy calculator makes of it.
type GPUShapeInfo struct {
	Kernel      string // extern "C" name
	Block       int    // threads per block
	Shared      int    // bytes of dynamic shared memory per block
	BlocksPerSM int    // blocks one SM runs at once (0: unknown)
	Regs        int    // registers per thread
}

func (s GPUShapeInfo) String() string {
	return fmt.Sprintf("%s %d threads, %d B shared, %d regs: %d blocks/SM", s.Kernel, s.Block, s.Shared, s.Regs, s.BlocksPerSM)
}

// Symbols an mdgen fatbin may carry (extern "C" __device__ globals).
const (
	// GPULayoutSymbol holds GPULayoutVersion (an int or a long long).
	GPULayoutSymbol = "mdgen_layout_version"
	// GPUConvJobsSymbol and GPUAddJobsSymbol hold the job tables of one
	// staged plan, as int32 in the layout of gpulayout.go.
	GPUConvJobsSymbol = "mdgen_conv_jobs"
	GPUAddJobsSymbol  = "mdgen_add_jobs"
)

// ErrGPUMemory is wrapped by the error of a plan that does not fit in the
// GPU's free memory.
var ErrGPUMemory = errors.New("not enough free GPU memory")

// ErrGPUModule is wrapped by the error of a fatbin that was built for
// another layout version, precision or kind of data.
var ErrGPUModule = errors.New("the fatbin does not match this build of mdgen")

// GPUSizes are the device memory a plan needs at one precision.
type GPUSizes struct {
	Slots      int   // series in the data array
	SlotStride int64 // doubles of one limb array: Slots·(Degree+1)
	DataBytes  int64 // the data array: SlotStride·N·parts·8
	TableBytes int64 // the job tables: (3·conv + 2·add)·4
}

// Total returns DataBytes + TableBytes.
func (s GPUSizes) Total() int64 { return s.DataBytes + s.TableBytes }

// GPUMemory returns the device memory that NewGPU allocates for plan at n
// doubles per number, real or complex data.
func GPUMemory(plan *stager.Plan, n int, complex bool) GPUSizes {
	s := GPUSizes{Slots: plan.NumSlots()}
	s.SlotStride = int64(s.Slots) * int64(plan.Degree+1)
	parts := int64(1)
	if complex {
		parts = 2
	}
	s.DataBytes = s.SlotStride * int64(n) * parts * 8
	s.TableBytes = (3*int64(plan.ConvJobs()) + 2*int64(plan.AddJobs())) * 4
	return s
}

// gpuMemoryReserve is kept free on the device beyond the plan's arrays
// (the context, the module, the driver's own allocations).
const gpuMemoryReserve = 256 << 20

// describeSizes names the sizes of a plan for an error message.
func describeSizes(plan *stager.Plan, n int, complex bool, s GPUSizes) string {
	kind := "real"
	if complex {
		kind = "complex"
	}
	return fmt.Sprintf("degree %d in %d-double %s data needs %s of device memory "+
		"(data array: %d series × %d coefficients × %d doubles = %s; job tables: %d convolution + %d addition jobs = %s)",
		plan.Degree, n, kind, stager.FormatBytes(s.Total()),
		s.Slots, plan.Degree+1, gpuParts(complex)*n, stager.FormatBytes(s.DataBytes),
		plan.ConvJobs(), plan.AddJobs(), stager.FormatBytes(s.TableBytes))
}

func gpuParts(complex bool) int {
	if complex {
		return 2
	}
	return 1
}

// GPUJobTables returns the job tables of plan in the layout of gpulayout.go
// (convolutions (out, a, b), additions (dst, src), layer after layer) and
// the first job and job count of every layer.
func GPUJobTables(plan *stager.Plan) (conv, add []int32, convLayers, addLayers [][2]int) {
	conv = make([]int32, 0, 3*plan.ConvJobs())
	for _, l := range plan.ConvLayers {
		convLayers = append(convLayers, [2]int{len(conv) / 3, len(l)})
		for _, j := range l {
			conv = append(conv, int32(j.Out), int32(j.A), int32(j.B))
		}
	}
	add = make([]int32, 0, 2*plan.AddJobs())
	for _, l := range plan.AddLayers {
		addLayers = append(addLayers, [2]int{len(add) / 2, len(l)})
		for _, j := range l {
			add = append(add, int32(j.Dst), int32(j.Src))
		}
	}
	return conv, add, convLayers, addLayers
}

// gpuGeometry indexes the limb-major data array of gpulayout.go.
type gpuGeometry struct {
	n, parts int
	d1       int   // coefficients per series: Degree+1
	stride   int64 // SlotStride
}

func newGPUGeometry(plan *stager.Plan, n int, complex bool) gpuGeometry {
	return gpuGeometry{n: n, parts: gpuParts(complex), d1: plan.Degree + 1,
		stride: int64(plan.NumSlots()) * int64(plan.Degree+1)}
}

// index returns the position of limb l of part q of coefficient k of slot s.
func (g gpuGeometry) index(q, l, s, k int) int64 {
	return int64(q*g.n+l)*g.stride + int64(s)*int64(g.d1) + int64(k)
}

// chunks returns the number of limb arrays: N·parts.
func (g gpuGeometry) chunks() int { return g.n * g.parts }

// A range buffer holds the slots [lo, lo+count) of every limb array, one
// after the other: chunk c = q·N + l holds count·(Degree+1) doubles, which
// are contiguous in the device array too, so the range moves in N·parts
// copies.

// rangeLen returns the doubles of a range buffer of count slots.
func (g gpuGeometry) rangeLen(count int) int { return g.chunks() * count * g.d1 }

// toRange writes series (one slot in the CPU layout) as slot rel of a range
// buffer of count slots.
func (g gpuGeometry) toRange(buf []float64, count, rel int, series []float64) {
	w := g.n * g.parts
	for q := 0; q < g.parts; q++ {
		for l := 0; l < g.n; l++ {
			c := q*g.n + l
			dst := buf[(c*count+rel)*g.d1 : (c*count+rel+1)*g.d1]
			src := series[q*g.n+l:]
			for k := range dst {
				dst[k] = src[k*w]
			}
		}
	}
}

// fromRange reads slot rel of a range buffer of count slots into series
// (the CPU layout).
func (g gpuGeometry) fromRange(series, buf []float64, count, rel int) {
	w := g.n * g.parts
	for q := 0; q < g.parts; q++ {
		for l := 0; l < g.n; l++ {
			c := q*g.n + l
			src := buf[(c*count+rel)*g.d1 : (c*count+rel+1)*g.d1]
			dst := series[q*g.n+l:]
			for k, x := range src {
				dst[k*w] = x
			}
		}
	}
}

// slotRun is a range of slots [lo, hi) moved in one go.
type slotRun struct{ lo, hi int }

// outputRuns groups the output slots of plan (values and derivatives, in
// increasing order, each once) into runs to download: two slots join one
// run when the slots between them cost less to copy along than a copy of
// their own (about 64 KiB per limb array).
func outputRuns(plan *stager.Plan) (slots []stager.Slot, runs []slotRun) {
	seen := map[stager.Slot]bool{}
	add := func(s stager.Slot) {
		if s != stager.NoSlot && !seen[s] {
			seen[s] = true
			slots = append(slots, s)
		}
	}
	for _, s := range plan.Value {
		add(s)
	}
	for _, row := range plan.Deriv {
		for _, s := range row {
			add(s)
		}
	}
	slices.Sort(slots)
	maxGap := max(1, (64<<10)/(8*(plan.Degree+1)))
	for _, s := range slots {
		if n := len(runs); n > 0 && int(s)-runs[n-1].hi <= maxGap {
			runs[n-1].hi = int(s) + 1
			continue
		}
		runs = append(runs, slotRun{int(s), int(s) + 1})
	}
	return slots, runs
}

// kindRange returns the smallest range of slots that holds every slot of
// the given kinds, or an empty range.
func kindRange(plan *stager.Plan, kinds ...stager.SlotKind) slotRun {
	r := slotRun{-1, -1}
	for s, k := range plan.Kinds {
		for _, want := range kinds {
			if k == want {
				if r.lo < 0 {
					r.lo = s
				}
				r.hi = s + 1
			}
		}
	}
	if r.lo < 0 {
		return slotRun{0, 0}
	}
	return r
}

// gpuChunkBytes bounds the host buffer that moves a range of slots.
const gpuChunkBytes = 64 << 20

// chunkSlots returns how many slots one transfer moves at most.
func (g gpuGeometry) chunkSlots() int {
	per := g.rangeLen(1) * 8
	return max(1, gpuChunkBytes/per)
}
