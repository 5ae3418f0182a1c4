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

// BatchLayoutVersion is the version of the batched contract; a fatbin with
// the batched kernels carries it in BatchLayoutSymbol.
const BatchLayoutVersion = 1

// BatchLayoutSymbol holds BatchLayoutVersion (a long long).
const BatchLayoutSymbol = "mdgen_batch_layout_version"

// The kinds of the batched kernels.
const (
	BatchConv Kind = "bconv"
	BatchAdd  Kind = "badd"
)

// BatchKinds lists the batched kernels of one precision and kind of data.
var BatchKinds = []Kind{BatchConv, BatchAdd}

// BatchKernelName returns the extern "C" name of a batched kernel.
func BatchKernelName(kind Kind, p mdops.Prec) string { return KernelName(kind, p) }

const (
	// BatchBlock is the block of the batched kernels: paths per block (and
	// their __launch_bounds__).
	BatchBlock = 128
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
