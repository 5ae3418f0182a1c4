package mdops

import (
	"fmt"
	"sync"
	"unsafe"
)

// SeriesKernels are one precision's slice kernels for truncated power series
// with multiple-double coefficients, on flat []float64 buffers, for code
// (such as the series evaluator) that selects the precision at run time.
//
// A real series of N-double coefficients is a []float64 holding coefficient
// k at [k*N : (k+1)*N], leading limb first, exactly as a []F<N> lays it out in
// memory; a complex series holds coefficient k at [2kN : 2kN+2N], the N limbs
// of the real part then the N limbs of the imaginary part, as a []C<N>. The
// kernels reinterpret the buffers in place (no copying); a buffer whose
// length is not a multiple of N (2N for complex) makes them panic.
type SeriesKernels struct {
	N int
	// Conv and ConvComplex are ConvolveF<N> and ConvolveC<N>: z[k] = sum of
	// x[i]*y[k-i], i = 0..k, for each coefficient k of z, in the canonical
	// order (stager.ConvJob; complex: Gauss's three real convolutions). x
	// and y need at least as many coefficients as z, and z must not overlap
	// them. Both are safe for concurrent use.
	Conv, ConvComplex func(z, x, y []float64)
	// AddTo and AddToComplex are AddToF<N> and AddToC<N>: dst[k] += src[k]
	// for each coefficient k of dst.
	AddTo, AddToComplex func(dst, src []float64)
	// ConvJobs and ConvJobsComplex run a layer of convolutions on an
	// executor's flat data array (slot s at data[s*slotLen:(s+1)*slotLen],
	// whole series): jobs[3i] = jobs[3i+1] * jobs[3i+2] for each i, in
	// order, each as Conv computes it (the same bits), in one call (no
	// call through a function value per job; for complex data one scratch
	// for the layer). The output of a job must not be one of its operands
	// (it panics) nor overlap them (a staged plan's jobs: stager.Check).
	ConvJobs, ConvJobsComplex func(data []float64, slotLen int, jobs []int32)
	// AddJobs and AddJobsComplex run jobs[2i] += jobs[2i+1] for each i,
	// in order, as AddTo does.
	AddJobs, AddJobsComplex func(data []float64, slotLen int, jobs []int32)
}

// seriesKernelsByN is filled by the generated files' init functions.
var seriesKernelsByN = map[int]SeriesKernels{}

func registerSeries(k SeriesKernels) { seriesKernelsByN[k.N] = k }

// SeriesKernelsFor returns the series kernels of N-double coefficients, and
// false when N is not one of the generated precisions.
func SeriesKernelsFor(n int) (SeriesKernels, bool) {
	k, ok := seriesKernelsByN[n]
	return k, ok
}

// limbsAs reinterprets v, w float64 limbs per element, as a []T (T is F<N>
// or C<N>, whose size is w float64s), sharing its memory. It is small
// enough to inline (the panics are calls), so that the generated kernels'
// constant w makes its check a few instructions: a degree-0 convolution of
// a small system's evaluation is tens of nanoseconds of arithmetic.
func limbsAs[T any](v []float64, w int) []T {
	if len(v)%w != 0 {
		panicLimbs(len(v), w)
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(v))), len(v)/w)
}

//go:noinline
func panicLimbs(l, w int) {
	panic(fmt.Sprintf("mdops: series buffer of %d float64s is not a whole number of %d-limb coefficients", l, w))
}

// checkConvolve panics unless x and y have at least len(z) elements and z
// overlaps neither's first len(z) elements.
func checkConvolve[T any](name string, z, x, y []T) {
	if len(x) < len(z) || len(y) < len(z) {
		panicConvolveLen(name, len(z), len(x), len(y))
	}
	// The first len(z) elements of x (of y) overlap z when each starts
	// before the other ends.
	n := uintptr(len(z)) * unsafe.Sizeof(*new(T))
	pz := uintptr(unsafe.Pointer(unsafe.SliceData(z)))
	px := uintptr(unsafe.Pointer(unsafe.SliceData(x)))
	py := uintptr(unsafe.Pointer(unsafe.SliceData(y)))
	if n > 0 && (px < pz+n && pz < px+n || py < pz+n && pz < py+n) {
		panicConvolveOverlap(name)
	}
}

//go:noinline
func panicConvolveLen(name string, lz, lx, ly int) {
	panic(fmt.Sprintf("mdops: %s: len(z) = %d but len(x) = %d, len(y) = %d", name, lz, lx, ly))
}

//go:noinline
func panicConvolveOverlap(name string) {
	panic(fmt.Sprintf("mdops: %s: z overlaps x or y", name))
}

// checkAddTo panics unless src has at least as many elements as dst.
func checkAddTo(name string, ldst, lsrc int) {
	if lsrc < ldst {
		panicAddTo(name, ldst, lsrc)
	}
}

//go:noinline
func panicAddTo(name string, ldst, lsrc int) {
	panic(fmt.Sprintf("mdops: %s: len(dst) = %d but len(src) = %d", name, ldst, lsrc))
}

// seriesScratch holds the scratch buffers of the complex convolutions of
// series longer than their stack arrays (*[]float64, any length).
var seriesScratch sync.Pool

// getSeriesScratch returns a buffer of n float64s (contents undefined) from
// seriesScratch; give it back with putSeriesScratch.
func getSeriesScratch(n int) *[]float64 {
	p, _ := seriesScratch.Get().(*[]float64)
	if p == nil {
		p = new([]float64)
	}
	if cap(*p) < n {
		*p = make([]float64, n)
	}
	*p = (*p)[:n]
	return p
}

func putSeriesScratch(p *[]float64) { seriesScratch.Put(p) }
