package gpu

// What both builds share of Batch: the options, and moving a range of
// slots of every path between the batch's device array (gpuabi's batched
// layout) and a host buffer, and a series of one path between the host
// buffer and the CPU layout.

import (
	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
)

// BatchOptions tune NewBatch; the zero value is the default.
type BatchOptions struct {
	// Order is the order of the data array: gpuabi.Interleaved (the
	// default, the paths of one element side by side: coalesced) or
	// gpuabi.PathMajor (to measure against).
	Order gpuabi.BatchOrder
	// Block is the threads of a block, 1..gpuabi.BatchBlock; 0 means
	// gpuabi.BatchBlock: paths per block, or with OneLaunch the threads
	// that share the jobs of a layer of the block's one path.
	Block int
	// OneLaunch runs the whole plan in one launch, one block per path
	// (gpuabi.BatchEval, the device function a device-resident Newton
	// solver's blocks call), instead of one launch per layer: the same
	// bits. Its threads share a layer's jobs, so a block of
	// gpuabi.BatchEvalBlock threads has work in the layers of at least that
	// many jobs; the data array is best path-major then (a block's path
	// contiguous).
	OneLaunch bool
	// Pageable keeps the host buffers that move to and from the device
	// in ordinary (pageable) memory, not page-locked: slower copies, no
	// cost of locking at NewBatch.
	Pageable bool
}

// batchRange is the slots [lo, hi) of every path of a batch. Its host
// buffer is laid out as a batch of the same paths and order whose plan
// had only those slots, so that a window of paths 0..n-1 moves to and
// from the device array in few copies (one pitched copy per row). Its
// stage is the same data path-major (each path's elements contiguous:
// series go in and come out there, element after element, and a blocked
// transpose moves them to and from the buffer); a path-major batch's
// buffer is its stage.
type batchRange struct {
	g, h   gpuabi.BatchGeometry // the device array's and the host buffer's
	pm     gpuabi.BatchGeometry // the stage's
	lo, hi int
}

func newBatchRange(g gpuabi.BatchGeometry, r slotRun) batchRange {
	h := g
	h.Slots = r.hi - r.lo
	h.SlotStride = int64(h.Slots) * int64(h.D1)
	if h.Order == gpuabi.PathMajor {
		h.PathStride = int64(h.W) * h.SlotStride
	}
	pm := h
	pm.Order, pm.ElemStride, pm.PathStride = gpuabi.PathMajor, 1, int64(h.W)*h.SlotStride
	return batchRange{g: g, h: h, pm: pm, lo: r.lo, hi: r.hi}
}

// interleaved reports whether the buffer and the stage differ.
func (r batchRange) interleaved() bool { return r.h.Order != gpuabi.PathMajor }

// elems is the doubles of one path in the range.
func (r batchRange) elems() int64 { return r.pm.PathStride }

// window calls f for every pitched block of the paths 0..n-1 of the
// range: the block at dev in the device array and at host in the host
// buffer. f's error stops it.
func (r batchRange) window(n int, f func(dev, host int64, p cudadev.Pitched) error) error {
	if r.hi <= r.lo || n <= 0 {
		return nil
	}
	for row := 0; row < r.g.W; row++ {
		p := cudadev.Pitched{Rows: r.h.SlotStride, Width: int64(n), DevPitch: r.g.ElemStride, HostPitch: r.h.ElemStride}
		if !r.interleaved() {
			p = cudadev.Pitched{Rows: int64(n), Width: r.h.SlotStride, DevPitch: r.g.PathStride, HostPitch: r.h.PathStride}
		}
		if err := f(r.g.Index(0, row, r.lo, 0), r.h.Index(0, row, 0, 0), p); err != nil {
			return err
		}
	}
	return nil
}

// windowCoefs is window for the coefficients 0..k-1 of every slot only
// (a pitched copy of one stack a row: the slots), k <= D1; a path-major
// range moves whole.
func (r batchRange) windowCoefs(n, k int, f func(dev, host int64, p cudadev.Pitched) error) error {
	if k >= r.h.D1 || !r.interleaved() {
		return r.window(n, f)
	}
	if r.hi <= r.lo || n <= 0 || k <= 0 {
		return nil
	}
	for row := 0; row < r.g.W; row++ {
		p := cudadev.Pitched{Rows: int64(k), Width: int64(n), DevPitch: r.g.ElemStride, HostPitch: r.h.ElemStride,
			Slices: int64(r.hi - r.lo), SliceRows: int64(r.h.D1)}
		if err := f(r.g.Index(0, row, r.lo, 0), r.h.Index(0, row, 0, 0), p); err != nil {
			return err
		}
	}
	return nil
}

// transposeBlock is the elements of one chunk of a transpose: a block of
// every path's stage stays in the cache while the buffer is written row
// after row.
const transposeBlock = 256

// toBuffer copies the stage of the given paths into the buffer, on every
// core: the elements elems (nil: every element of the range).
func (r batchRange) toBuffer(buf, stage []float64, paths []int, elems []int64) {
	if !r.interleaved() || len(paths) == 0 {
		return
	}
	L, es := r.elems(), r.h.ElemStride
	n := L
	if elems != nil {
		n = int64(len(elems))
	}
	par.Run(int((n+transposeBlock-1)/transposeBlock), func(_, c int) {
		lo := int64(c) * transposeBlock
		for i := lo; i < min(lo+transposeBlock, n); i++ {
			e := i
			if elems != nil {
				e = elems[i]
			}
			row := buf[e*es:]
			for _, p := range paths {
				row[p] = stage[int64(p)*L+e]
			}
		}
	})
}

// slotElems lists the elements of the coefficients k < kmax[s-lo] of
// every slot s of the range, row after row: what putShort changed.
func (r batchRange) slotElems(kmax []int32) []int64 {
	var elems []int64
	for row := 0; row < r.pm.W; row++ {
		for i, k := range kmax {
			e := r.pm.Index(0, row, i, 0)
			for j := int64(0); j < int64(k); j++ {
				elems = append(elems, e+j)
			}
		}
	}
	return elems
}

// toStage copies the paths 0..n-1 of the buffer into the stage, on every
// core.
func (r batchRange) toStage(stage, buf []float64, n int) {
	if !r.interleaved() || n <= 0 {
		return
	}
	L, es := r.elems(), r.h.ElemStride
	par.Run(int((L+transposeBlock-1)/transposeBlock), func(_, c int) {
		lo := int64(c) * transposeBlock
		hi := min(lo+transposeBlock, L)
		for e := lo; e < hi; e++ {
			row := buf[e*es : e*es+int64(n)]
			for p, v := range row {
				stage[int64(p)*L+e] = v
			}
		}
	})
}

// hostLen returns the doubles of the host buffer.
func (r batchRange) hostLen() int64 { return r.h.Doubles() }

// has reports whether slot s is in the range.
func (r batchRange) has(s int) bool { return r.lo <= s && s < r.hi }

// put writes series (slot s of path p in the CPU layout: coefficient k's
// row r at k·W + r; a shorter series is zeros after its end) into the
// stage.
func (r batchRange) put(stage []float64, p, s int, series []float64) {
	w := r.pm.W
	for k := 0; k < r.pm.D1; k++ {
		for row := 0; row < w; row++ {
			v := 0.0
			if i := k*w + row; i < len(series) {
				v = series[i]
			}
			stage[r.pm.Index(p, row, s-r.lo, k)] = v
		}
	}
}

// putShort is put for a series whose coefficients from len(series)/W on
// are zero, into a slot of the stage whose coefficients from held on are
// zero already: it writes only the coefficients below the larger of the
// two (touched), and returns the coefficients that may be nonzero now
// (used: a tracker's coefficient is a short series in a long slot, whose
// tail stays zero).
func (r batchRange) putShort(stage []float64, p, s int, series []float64, held int) (used, touched int) {
	w := r.pm.W
	used = min((len(series)+w-1)/w, r.pm.D1)
	touched = max(used, held)
	for k := 0; k < touched; k++ {
		for row := 0; row < w; row++ {
			v := 0.0
			if i := k*w + row; i < len(series) {
				v = series[i]
			}
			stage[r.pm.Index(p, row, s-r.lo, k)] = v
		}
	}
	return used, touched
}

// get reads slot s of path p from the stage into series (the CPU
// layout, D1·W doubles).
func (r batchRange) get(series, stage []float64, p, s int) {
	w := r.pm.W
	for k := 0; k < r.pm.D1; k++ {
		for row := 0; row < w; row++ {
			series[k*w+row] = stage[r.pm.Index(p, row, s-r.lo, k)]
		}
	}
}
