//go:build !cuda

package gpu

// Batch in a build without CUDA: the API of batch_cuda.go, every
// constructor returning an error that wraps cudadev.ErrNoCUDA.

import (
	"fmt"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/stager"
)

// LoadBatchKernels returns an error wrapping cudadev.ErrNoCUDA.
func LoadBatchKernels(dev *cudadev.Device, fatbin []byte, n int, complex ...bool) (*Kernels, error) {
	return nil, errNoGPU(fmt.Sprintf("loading the %d-double batched GPU kernels", n))
}

// MaxBatchPaths returns an error wrapping cudadev.ErrNoCUDA.
func MaxBatchPaths(dev *cudadev.Device, plan *stager.Plan, p mdops.Prec, o gpuabi.BatchOrder) (int, error) {
	return 0, errNoGPU("sizing a batch of paths on the GPU")
}

// Batch evaluates one plan for many paths on a CUDA device; this build
// cannot make one.
type Batch struct{}

// NewBatch returns an error wrapping cudadev.ErrNoCUDA.
func NewBatch(plan *stager.Plan, p mdops.Prec, paths int, k *Kernels, opt BatchOptions) (*Batch, error) {
	return nil, errNoGPU("preparing a batch of paths on the GPU")
}

func (b *Batch) Plan() *stager.Plan                              { return nil }
func (b *Batch) Prec() mdops.Prec                                { return mdops.Prec{} }
func (b *Batch) Paths() int                                      { return 0 }
func (b *Batch) Geometry() gpuabi.BatchGeometry                  { return gpuabi.BatchGeometry{} }
func (b *Batch) Sizes() gpuabi.Sizes                             { return gpuabi.Sizes{} }
func (b *Batch) Launches() int                                   { return 0 }
func (b *Batch) SetInput(p, v int, series []float64)             {}
func (b *Batch) SetValue(p int, s stager.Slot, series []float64) {}
func (b *Batch) Run() error                                      { return errNoGPU("running a batch on the GPU") }
func (b *Batch) RunFirst(n int) error                            { return b.Run() }
func (b *Batch) RunTimed() (kernelMs, wallMs float64, err error) { return 0, 0, b.Run() }
func (b *Batch) Download() error                                 { return errNoGPU("downloading GPU outputs") }
func (b *Batch) Err() error                                      { return nil }
func (b *Batch) Value(p, i int, dst []float64) []float64         { return nil }
func (b *Batch) Deriv(p, poly, v int, dst []float64) []float64   { return nil }
func (b *Batch) Close() error                                    { return nil }
