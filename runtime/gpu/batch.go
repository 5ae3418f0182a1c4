package gpu

// What both builds share of Batch: the options, and moving a range of
// slots of every path between the batch's device array (gpuabi's batched
// layout) and a host buffer, and a series of one path between the host
// buffer and the CPU layout.

import (
	"github.com/mdgen/mdgen/gen/gpuabi"
)

// BatchOptions tune NewBatch; the zero value is the default.
type BatchOptions struct {
	// Order is the order of the data array: gpuabi.Interleaved (the
	// default, the paths of one element side by side: coalesced) or
	// gpuabi.PathMajor (to measure against).
	Order gpuabi.BatchOrder
	// Block is the threads (paths) of a block, 1..gpuabi.BatchBlock; 0
	// means gpuabi.BatchBlock.
	Block int
}

// batchRange is the slots [lo, hi) of every path of a batch. Its host
// buffer is laid out as a batch of the same paths and order whose plan
// had only those slots, so that it moves to and from the device array in
// few copies: one per row when interleaved, one per row and path when
// path-major.
type batchRange struct {
	g, h   gpuabi.BatchGeometry // the device array's and the host buffer's
	lo, hi int
}

func newBatchRange(g gpuabi.BatchGeometry, r slotRun) batchRange {
	h := g
	h.Slots = r.hi - r.lo
	h.SlotStride = int64(h.Slots) * int64(h.D1)
	if h.Order == gpuabi.PathMajor {
		h.PathStride = int64(h.W) * h.SlotStride
	}
	return batchRange{g: g, h: h, lo: r.lo, hi: r.hi}
}

// hostLen returns the doubles of the host buffer.
func (r batchRange) hostLen() int64 { return r.h.Doubles() }

// has reports whether slot s is in the range.
func (r batchRange) has(s int) bool { return r.lo <= s && s < r.hi }

// chunks calls f for every contiguous piece of the range: n doubles at dev
// in the device array and at host in the host buffer. f's error stops it.
func (r batchRange) chunks(f func(dev, host, n int64) error) error {
	if r.hi <= r.lo {
		return nil
	}
	if r.g.Order == gpuabi.PathMajor {
		for p := 0; p < r.g.Paths; p++ {
			for row := 0; row < r.g.W; row++ {
				if err := f(r.g.Index(p, row, r.lo, 0), r.h.Index(p, row, 0, 0), r.h.SlotStride); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for row := 0; row < r.g.W; row++ {
		if err := f(r.g.Index(0, row, r.lo, 0), r.h.Index(0, row, 0, 0), r.h.SlotStride*r.h.ElemStride); err != nil {
			return err
		}
	}
	return nil
}

// put writes series (slot s of path p in the CPU layout: coefficient k's
// row r at k·W + r; a shorter series is zeros after its end) into the host
// buffer.
func (r batchRange) put(buf []float64, p, s int, series []float64) {
	w := r.h.W
	for k := 0; k < r.h.D1; k++ {
		for row := 0; row < w; row++ {
			v := 0.0
			if i := k*w + row; i < len(series) {
				v = series[i]
			}
			buf[r.h.Index(p, row, s-r.lo, k)] = v
		}
	}
}

// get reads slot s of path p from the host buffer into series (the CPU
// layout, D1·W doubles).
func (r batchRange) get(series, buf []float64, p, s int) {
	w := r.h.W
	for k := 0; k < r.h.D1; k++ {
		for row := 0; row < w; row++ {
			series[k*w+row] = buf[r.h.Index(p, row, s-r.lo, k)]
		}
	}
}
