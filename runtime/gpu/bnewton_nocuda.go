//go:build !cuda

package gpu

// BatchNewton in a build without CUDA: the API of bnewton_cuda.go, every
// constructor returning an error that wraps cudadev.ErrNoCUDA.

import (
	"fmt"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/newton"
)

// BatchNewtonKernels are the batched Newton solve's kernel; this build has none.
type BatchNewtonKernels struct{}

// LoadBatchNewtonKernels returns an error wrapping cudadev.ErrNoCUDA.
func LoadBatchNewtonKernels(dev *cudadev.Device, fatbin []byte, p mdops.Prec) (*BatchNewtonKernels, error) {
	return nil, errNoGPU(fmt.Sprintf("loading the %s batched Newton solve", p))
}

func (k *BatchNewtonKernels) Prec() mdops.Prec { return mdops.Prec{} }
func (k *BatchNewtonKernels) Close() error     { return nil }

// BatchNewton is the batched Newton solve on a CUDA device; this build
// cannot make one.
type BatchNewton struct{}

// NewBatchNewton returns an error wrapping cudadev.ErrNoCUDA.
func NewBatchNewton(k *BatchNewtonKernels, s *BNSetup, threads int) (*BatchNewton, error) {
	return nil, errNoGPU("preparing the batched Newton solve on the GPU")
}

func (bn *BatchNewton) Paths() int { return 0 }
func (bn *BatchNewton) Solve(x0, coef [][]float64, tol []float64) ([]*newton.Result, [][]newton.StepInfo, error) {
	return nil, nil, errNoGPU("BatchNewton")
}
func (bn *BatchNewton) SolveWith(x0 [][]float64, param []backend.ParamAt, pack func(p int, dst []float64) error, tol []float64) ([]*newton.Result, [][]newton.StepInfo, error) {
	return nil, nil, errNoGPU("BatchNewton")
}
func (bn *BatchNewton) Close() error   { return nil }
func (bn *BatchNewton) Times() BNTimes { return BNTimes{} }
