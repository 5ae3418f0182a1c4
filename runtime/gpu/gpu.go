package gpu

// What both builds share: options, errors, and the conversion between the
// CPU layout of a series and the limb-major layout of the GPU contract
// (package gpuabi).

import (
	"errors"
	"fmt"
	"slices"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/stager"
)

// Options tune New; the zero value is the default.
type Options struct {
	// Shape gives the launch shape of the kernels; nil means DeviceShape's
	// (a tuning profile), else the contract's gpuabi.LaunchShape. Kernels that are not mdgen's generated ones
	// (gpuabi.ReferenceKernelsCU) come with a shape of their own
	// (gpuabi.ReferenceShape).
	Shape gpuabi.ShapeFunc
	// ModuleTables uses the job tables baked into the module (the globals
	// gpuabi.ConvJobsSymbol and gpuabi.AddJobsSymbol that an emitted solver
	// carries) instead of uploading the Plan's: they are checked against the
	// Plan, word for word, once at construction.
	ModuleTables bool
}

// DeviceShape, when not nil, gives the launch shapes of an executor
// whose Options.Shape is nil, from the device it runs on and its plan (a
// nil result means gpuabi.LaunchShape): runtime/tune.Install sets it to a
// tuning profile's choice.
var DeviceShape func(info cudadev.Info, plan *stager.Plan) gpuabi.ShapeFunc

// ShapeInfo is the launch shape of one kernel of a GPU executor and what
// the driver's occupancy calculator makes of it.
type ShapeInfo struct {
	Kernel      string // extern "C" name
	Block       int    // threads per block
	Shared      int    // bytes of dynamic shared memory per block
	BlocksPerSM int    // blocks one SM runs at once (0: unknown)
	Regs        int    // registers per thread
}

func (s ShapeInfo) String() string {
	return fmt.Sprintf("%s %d threads, %d B shared, %d regs: %d blocks/SM", s.Kernel, s.Block, s.Shared, s.Regs, s.BlocksPerSM)
}

// ErrMemory is wrapped by the error of a plan that does not fit in the
// GPU's free memory.
var ErrMemory = errors.New("not enough free GPU memory")

// ErrModule is wrapped by the error of a fatbin that was built for another
// layout version, precision or kind of data.
var ErrModule = errors.New("the fatbin does not match this build of mdgen")

// memoryReserve is kept free on the device beyond the plan's arrays
// (the context, the module, the driver's own allocations).
const memoryReserve = 256 << 20

// geometry indexes the limb-major data array of the contract.
type geometry struct {
	n, parts int
	d1       int   // coefficients per series: Degree+1
	stride   int64 // SlotStride
}

func newGeometry(plan *stager.Plan, n int, complex bool) geometry {
	return geometry{n: n, parts: gpuabi.Parts(complex), d1: plan.Degree + 1,
		stride: int64(plan.NumSlots()) * int64(plan.Degree+1)}
}

// index returns the position of limb l of part q of coefficient k of slot s.
func (g geometry) index(q, l, s, k int) int64 {
	return int64(q*g.n+l)*g.stride + int64(s)*int64(g.d1) + int64(k)
}

// chunks returns the number of limb arrays: N·parts.
func (g geometry) chunks() int { return g.n * g.parts }

// A range buffer holds the slots [lo, lo+count) of every limb array, one
// after the other: chunk c = q·N + l holds count·(Degree+1) doubles, which
// are contiguous in the device array too, so the range moves in N·parts
// copies.

// rangeLen returns the doubles of a range buffer of count slots.
func (g geometry) rangeLen(count int) int { return g.chunks() * count * g.d1 }

// toRange writes series (one slot in the CPU layout) as slot rel of a range
// buffer of count slots.
func (g geometry) toRange(buf []float64, count, rel int, series []float64) {
	g.rangeCopy(buf, count, rel, series, true)
}

// fromRange reads slot rel of a range buffer of count slots into series
// (the CPU layout).
func (g geometry) fromRange(series, buf []float64, count, rel int) {
	g.rangeCopy(buf, count, rel, series, false)
}

// rangeCopy copies between series (the CPU layout: coefficient k's limb c
// at k*w + c) and slot rel of a range buffer of count slots (limb c of
// every coefficient together): into the buffer when in, else out of it.
func (g geometry) rangeCopy(buf []float64, count, rel int, series []float64, in bool) {
	w := g.n * g.parts
	for c := 0; c < w; c++ {
		r := buf[(c*count+rel)*g.d1 : (c*count+rel+1)*g.d1]
		sr := series[c:]
		for k := range r {
			if in {
				r[k] = sr[k*w]
			} else {
				sr[k*w] = r[k]
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
	// Sorted and compacted, not a set: a map of 16.7 million slots
	// (chandra4096's derivatives) was seconds of setup.
	for _, s := range plan.Value {
		if s != stager.NoSlot {
			slots = append(slots, s)
		}
	}
	plan.EachDeriv(func(_, _ int, s stager.Slot) {
		if s != stager.NoSlot {
			slots = append(slots, s)
		}
	})
	slices.Sort(slots)
	slots = slices.Compact(slots)
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

// chunkBytes bounds the host buffer that moves a range of slots.
const chunkBytes = 64 << 20

// chunkSlots returns how many slots one transfer moves at most.
func (g geometry) chunkSlots() int {
	per := g.rangeLen(1) * 8
	return max(1, chunkBytes/per)
}
