package gpuabi

import (
	"fmt"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager"
)

// The batched contract: one staged plan evaluated for P paths at once, each
// path with its own data (inputs, read-only slots, outputs), one launch per
// layer for the whole batch (templates/batch.cu.tmpl, runtime/gpu.Batch).
//
// # Data
//
// One device array of doubles. Element e of one path is numbered as in the
// single-path array, e = (q·N + l)·SlotStride + s·(Degree+1) + k (limb l of
// part q of coefficient k of slot s); element e of path p is at
//
//	data[e·ElemStride + p·PathStride]
//
// Interleaved (the default): ElemStride = Paths rounded up to
// BatchPathAlign, PathStride = 1: the paths of one element are adjacent, so
// the 32 threads of a warp, 32 consecutive paths running the same job,
// read 32 consecutive doubles at every step (two 128-byte lines). PathMajor:
// ElemStride = 1, PathStride = W·SlotStride: each path's single-path array
// one after the other (a warp's reads then touch 32 lines per double; kept
// to measure against).
//
// # Kernels
//
// One thread per (job, path): thread x of block (bx, by) runs job first+by
// for path bx·blockDim.x + x, the whole series, in the CPU executor's order
// (stager.ConvJob: coefficient k is a[0]·b[k], then + a[i]·b[k-i] for
// i = 1..k; complex: Gauss's three real convolutions, the derived series
// recomputed at each use, which is the same addition and so the same bits).
// Names (BatchKernelName): mdgen_bconv_r<N>, mdgen_bconv_c<N>,
// mdgen_badd_r<N>, mdgen_badd_c<N>; parameters, each 8 bytes:
//
//	(double* data, long long elemStride, long long pathStride,
//	 long long rowStride, long long degree, const int* jobs,
//	 long long first, long long count, long long paths)
//
// rowStride = SlotStride·ElemStride (the distance between the limb rows of
// one value); jobs are the tables of JobTables. Launch: block BatchBlock
// threads, grid (ceil(paths/BatchBlock), count) with count at most
// BatchMaxJobs (a longer layer is several launches).
//
// # One block per path
//
// mdgen_beval_r<N>, mdgen_beval_c<N> (BatchEval) evaluate every layer of
// the plan in one launch, block p for path p:
//
//	(double* data, long long elemStride, long long pathStride,
//	 long long rowStride, long long degree, const int* conv,
//	 const int* add, const long long* layers, long long convLayers,
//	 long long addLayers, long long paths)
//
// with the tables of EvalTables. Launch: grid (paths), block any number of
// threads up to BatchEvalBlock (a multiple of 32 wastes no lanes;
// BatchEvalBlock by default), no shared memory. Each block calls the
// device function (BatchEvalBlockName; a C++ name, in the same source, for
// the kernels of another template to call)
//
//	__device__ void mdgen_beval_block_<r|c><N>(double* data,
//	    long long elemStride, long long pathStride, long long rowStride,
//	    long long d1, long long degree, const int* conv, const int* add,
//	    const long long* layers, long long convLayers, long long addLayers,
//	    long long p)
//
// with d1 = degree+1. It runs the convolution layers, then the addition
// layers, in the plan's order (the CPU executor's and the per-layer
// launches'), the jobs of a layer shared among the block's threads
// (threadIdx.x, blockDim.x: a one-dimensional block), each job the very
// arithmetic of the per-layer kernels, so every output has the CPU
// executor's bits. It must be called by every thread of the block with the
// same arguments: it waits at __syncthreads() before the first layer (the
// caller's writes of inputs and coefficients are then seen) and after every
// layer (its outputs are then seen by the whole block). No shared memory,
// no other state.
//
// d1 is the distance, in coefficients, between the slots of the data array
// (element e = (q·N + l)·rowStride/elemStride + s·d1 + k, as above with
// Degree+1 replaced by d1; rowStride = NumSlots·d1·elemStride): degree+1 for
// an array of the plan's own degree; more when the array is longer, as in a
// Newton solver that keeps its coefficients at its full degree while it
// evaluates the plan of a lower working degree (coefficients past degree are
// neither read nor written). The plan is the one the CPU executor of that
// working degree runs: runtime/newton stages a plan per working degree w
// (stager.Stage(sys, w)), whose slots and jobs may differ from the plan of
// the full degree (a coefficient that vanishes mod t^(w+1) drops its term,
// and the sums of the other terms pair up differently), so degree is the
// plan's Degree and the tables are that plan's.

// BatchLayoutVersion is the version of the batched contract; a fatbin with
// the batched kernels carries it in BatchLayoutSymbol.
const BatchLayoutVersion = 2

// BatchLayoutSymbol holds BatchLayoutVersion (a long long).
const BatchLayoutSymbol = "mdgen_batch_layout_version"

// The kinds of the batched kernels.
const (
	BatchConv Kind = "bconv"
	BatchAdd  Kind = "badd"
	// BatchEval is the kernel of one block per path (all layers).
	BatchEval Kind = "beval"
)

// BatchKinds lists the batched kernels of one precision and kind of data.
var BatchKinds = []Kind{BatchConv, BatchAdd, BatchEval}

// BatchKernelName returns the extern "C" name of a batched kernel.
func BatchKernelName(kind Kind, p mdops.Prec) string { return KernelName(kind, p) }

// BatchEvalBlockName returns the name of the device function that
// evaluates the whole plan for one path by the calling block.
func BatchEvalBlockName(p mdops.Prec) string { return "mdgen_beval_block_" + p.Suffix() }

// EvalTables are the tables of the kernel and device function of one
// block per path: the job tables of JobTables and their layers, the
// convolution layers' (first job, job count) pairs, then the addition
// layers', in one array of 2·(ConvLayers+AddLayers) words.
type EvalTables struct {
	Conv, Add             []int32
	Layers                []int64
	ConvLayers, AddLayers int
}

// NewEvalTables returns the tables of plan for BatchEval and
// BatchEvalBlockName.
func NewEvalTables(plan *stager.Plan) EvalTables {
	conv, add, convLayers, addLayers := JobTables(plan)
	t := EvalTables{Conv: conv, Add: add, ConvLayers: len(convLayers), AddLayers: len(addLayers)}
	t.Layers = make([]int64, 0, 2*(len(convLayers)+len(addLayers)))
	for _, l := range append(convLayers, addLayers...) {
		t.Layers = append(t.Layers, int64(l[0]), int64(l[1]))
	}
	return t
}

const (
	// BatchBlock is the block of the batched kernels: paths per block (and
	// their __launch_bounds__).
	BatchBlock = 128
	// BatchEvalBlock is the most threads, and the default, of a block of
	// BatchEval (its __launch_bounds__).
	BatchEvalBlock = 128
	// BatchMaxJobs is the most jobs of one launch (gridDim.y's limit).
	BatchMaxJobs = 65535
	// BatchPathAlign: an interleaved array pads the paths to a multiple of
	// it, so that every warp's reads start on a 256-byte boundary.
	BatchPathAlign = 32
)

// BatchOrder is the order of a batch's data array.
type BatchOrder int

const (
	// Interleaved puts the paths of one element side by side.
	Interleaved BatchOrder = iota
	// PathMajor puts each path's single-path array after the other.
	PathMajor
)

func (o BatchOrder) String() string {
	if o == PathMajor {
		return "path-major"
	}
	return "interleaved"
}

// BatchGeometry indexes the data array of a batch.
type BatchGeometry struct {
	Order      BatchOrder
	Paths      int
	Slots      int   // series per path
	D1         int   // coefficients per series: Degree+1
	W          int   // rows (doubles) per value: N, or 2N for complex data
	SlotStride int64 // elements of one row of one path: Slots·D1
	ElemStride int64
	PathStride int64
}

// NewBatchGeometry returns the geometry of paths paths of plan at
// precision p in order o.
func NewBatchGeometry(plan *stager.Plan, p mdops.Prec, paths int, o BatchOrder) BatchGeometry {
	g := BatchGeometry{Order: o, Paths: paths, Slots: plan.NumSlots(), D1: plan.Degree + 1, W: p.Width()}
	g.SlotStride = int64(g.Slots) * int64(g.D1)
	if o == PathMajor {
		g.ElemStride, g.PathStride = 1, int64(g.W)*g.SlotStride
	} else {
		g.ElemStride, g.PathStride = int64((paths+BatchPathAlign-1)/BatchPathAlign*BatchPathAlign), 1
	}
	return g
}

// RowStride is the distance between the limb rows of one value.
func (g BatchGeometry) RowStride() int64 { return g.SlotStride * g.ElemStride }

// Index returns the position of row r (limb l of part q: r = q·N + l) of
// coefficient k of slot s of path p.
func (g BatchGeometry) Index(p, r, s, k int) int64 {
	return (int64(r)*g.SlotStride+int64(s)*int64(g.D1)+int64(k))*g.ElemStride + int64(p)*g.PathStride
}

// Doubles returns the length of the data array.
func (g BatchGeometry) Doubles() int64 {
	if g.Order == PathMajor {
		return int64(g.Paths) * g.PathStride
	}
	return int64(g.W) * g.SlotStride * g.ElemStride
}

// BatchMemory returns the device memory of a batch of paths paths of plan
// at precision p: its data array and the job tables.
func BatchMemory(plan *stager.Plan, p mdops.Prec, paths int, o BatchOrder) Sizes {
	s := Memory(plan, p)
	s.DataBytes = 8 * NewBatchGeometry(plan, p, paths, o).Doubles()
	return s
}

// BatchMaxPaths returns the most paths of plan at precision p whose batch
// fits in bytes of device memory (0 when not even one does). An
// interleaved batch holds a multiple of BatchPathAlign paths (fewer are
// padded to it), so that is what it returns.
func BatchMaxPaths(plan *stager.Plan, p mdops.Prec, o BatchOrder, bytes int64) int {
	s := Memory(plan, p)
	left := bytes - s.TableBytes
	if left <= 0 || s.DataBytes == 0 {
		return 0
	}
	n := left / s.DataBytes
	if o == Interleaved {
		n = n / BatchPathAlign * BatchPathAlign
	}
	return int(min(n, int64(1<<31-1)))
}

// DescribeBatch names the sizes of a batch for an error message.
func (s Sizes) DescribeBatch(plan *stager.Plan, p mdops.Prec, paths int) string {
	return fmt.Sprintf("%d paths at degree %d in %s data need %s of device memory "+
		"(data array: %d paths × %d series × %d coefficients × %d doubles = %s; job tables: %s)",
		paths, plan.Degree, p, stager.FormatBytes(s.Total()),
		paths, s.Slots, plan.Degree+1, p.Width(), stager.FormatBytes(s.DataBytes), stager.FormatBytes(s.TableBytes))
}
