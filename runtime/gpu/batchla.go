package gpu

// What both builds share of BatchLA: its options and the size of a batch.

import (
	"fmt"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
)

// BatchLAOptions tune NewBatchLA; the zero value is the default.
type BatchLAOptions struct {
	// Threads is the block of each path: a multiple of 32 up to
	// gpuabi.LAMaxThreads (32: one warp per path); 0 means the model's
	// (gpuabi.BatchLAThreads). It changes the time, never the bits.
	Threads int
	// Inverse allocates the m x m matrix E of each path (Inverse).
	Inverse bool
}

// BatchLAMemory returns the device bytes of a BatchLA of paths m x n
// systems at precision p: per path the matrix and its factors, tau, rinv,
// the packed rows of R, the info, b, x, b - A x, its norm, the back
// substitution's work space, the condition estimate's work space and its
// result and, with inverse, E.
func BatchLAMemory(p mdops.Prec, m, n, paths int, inverse bool) int64 {
	W, N := int64(p.Width()), int64(p.N)
	m64, n64 := int64(m), int64(n)
	per := W*(2*m64*n64+n64+int64(gpuabi.LARRevLen(n))+3*m64+n64+int64(gpuabi.LABackSub1Acc(n))) + N*(n64+1) + gpuabi.BatchLAInfo + 1 +
		int64(gpuabi.LABCondWork(p, n)) + 1
	if inverse {
		per += W * m64 * m64
	}
	return 8 * per * int64(paths)
}

// batchLAMaxPaths returns the most paths whose BatchLA fits in bytes.
func batchLAMaxPaths(p mdops.Prec, m, n int, inverse bool, bytes int64) int {
	per := BatchLAMemory(p, m, n, 1, inverse)
	if bytes <= 0 {
		return 0
	}
	return int(min(bytes/per, 1<<31-1))
}

func (o BatchLAOptions) check() error {
	if t := o.Threads; t != 0 && (t%32 != 0 || t < 0 || t > gpuabi.LAMaxThreads) {
		return fmt.Errorf("%d threads per path, want a multiple of 32 up to %d (0: the model's)", t, gpuabi.LAMaxThreads)
	}
	return nil
}
