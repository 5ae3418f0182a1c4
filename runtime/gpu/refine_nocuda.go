//go:build !cuda

package gpu

// The batched refinement in a build without CUDA: the API of
// refine_cuda.go, every constructor returning an error that wraps
// cudadev.ErrNoCUDA.

import (
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager/poly"
)

// Refiner refines many start points at once on a CUDA device; this build
// cannot make one.
type Refiner struct{}

// NewRefiner returns an error wrapping cudadev.ErrNoCUDA.
func NewRefiner(sys *poly.System, prec mdops.Prec, ek *Kernels, lk *BatchLAKernels, paths int, opt RefineOptions) (*Refiner, error) {
	return nil, errNoGPU("refining a batch of start points on the GPU")
}

func (rf *Refiner) Paths() int { return 0 }
func (rf *Refiner) Refine(starts [][]float64) ([]*newton.Result, error) {
	return nil, errNoGPU("refining a batch of start points on the GPU")
}
func (rf *Refiner) Close() error { return nil }

// RefineBatch returns an error wrapping cudadev.ErrNoCUDA.
func RefineBatch(sys *poly.System, prec mdops.Prec, ek *Kernels, lk *BatchLAKernels, starts [][]float64, opt RefineOptions) ([]*newton.Result, error) {
	return nil, errNoGPU("refining a batch of start points on the GPU")
}
