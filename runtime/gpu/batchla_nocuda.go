//go:build !cuda

package gpu

// BatchLA in a build without CUDA: the API of batchla_cuda.go, every
// constructor returning an error that wraps cudadev.ErrNoCUDA.

import (
	"fmt"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
)

// BatchLAKernels are the batched linear-algebra kernels; this build has none.
type BatchLAKernels struct{}

// LoadBatchLAKernels returns an error wrapping cudadev.ErrNoCUDA.
func LoadBatchLAKernels(dev *cudadev.Device, fatbin []byte, p mdops.Prec) (*BatchLAKernels, error) {
	return nil, errNoGPU(fmt.Sprintf("loading the %s batched linear-algebra kernels", p))
}

func (k *BatchLAKernels) Prec() mdops.Prec { return mdops.Prec{} }
func (k *BatchLAKernels) Close() error     { return nil }

// MaxBatchLAPaths returns an error wrapping cudadev.ErrNoCUDA.
func MaxBatchLAPaths(k *BatchLAKernels, m, n int, inverse bool) (int, error) {
	return 0, errNoGPU("sizing a batch of linear algebra on the GPU")
}

// BatchLA is the batched linear algebra on a CUDA device; this build
// cannot make one.
type BatchLA struct{}

// NewBatchLA returns an error wrapping cudadev.ErrNoCUDA.
func NewBatchLA(k *BatchLAKernels, m, n, paths int, opt BatchLAOptions) (*BatchLA, error) {
	return nil, errNoGPU("preparing batched linear algebra on the GPU")
}

func (b *BatchLA) Paths() int                           { return 0 }
func (b *BatchLA) Rows() int                            { return 0 }
func (b *BatchLA) Cols() int                            { return 0 }
func (b *BatchLA) Threads() int                         { return 0 }
func (b *BatchLA) SetA(a []float64) error               { return errNoGPU("BatchLA") }
func (b *BatchLA) SetB(x []float64) error               { return errNoGPU("BatchLA") }
func (b *BatchLA) SetX(x []float64) error               { return errNoGPU("BatchLA") }
func (b *BatchLA) B() ([]float64, error)                { return nil, errNoGPU("BatchLA") }
func (b *BatchLA) QR() error                            { return errNoGPU("BatchLA") }
func (b *BatchLA) ApplyQH() error                       { return errNoGPU("BatchLA") }
func (b *BatchLA) SolveR() error                        { return errNoGPU("BatchLA") }
func (b *BatchLA) Solve() error                         { return errNoGPU("BatchLA") }
func (b *BatchLA) MulSub() error                        { return errNoGPU("BatchLA") }
func (b *BatchLA) Residual() ([]float64, error)         { return nil, errNoGPU("BatchLA") }
func (b *BatchLA) Norm1() ([]float64, error)            { return nil, errNoGPU("BatchLA") }
func (b *BatchLA) LeadNorm1() ([]float64, error)        { return nil, errNoGPU("BatchLA") }
func (b *BatchLA) Inverse() ([]float64, error)          { return nil, errNoGPU("BatchLA") }
func (b *BatchLA) Info() ([]float64, error)             { return nil, errNoGPU("BatchLA") }
func (b *BatchLA) RankErrors() ([]*la.RankError, error) { return nil, errNoGPU("BatchLA") }
func (b *BatchLA) Factors() (a, tau []float64, err error) {
	return nil, nil, errNoGPU("BatchLA")
}
func (b *BatchLA) Conds() ([]float64, error) { return nil, errNoGPU("BatchLA") }
func (b *BatchLA) Synchronize() error        { return errNoGPU("BatchLA") }
func (b *BatchLA) Close() error              { return nil }
