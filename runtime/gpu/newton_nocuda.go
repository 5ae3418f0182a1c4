//go:build !cuda

package gpu

import (
	"fmt"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/newton"
)

// NewtonKernels are the loaded fatbins of the device-resident Newton
// driver; this build has none.
type NewtonKernels struct{}

// LoadNewtonKernels returns an error wrapping cudadev.ErrNoCUDA: this
// binary lacks the GPU (callers fall back to the CPU).
func LoadNewtonKernels(dev *cudadev.Device, evalFatbin, laFatbin []byte, p mdops.Prec) (*NewtonKernels, error) {
	return nil, errNoGPU(fmt.Sprintf("loading the %d-double GPU Newton kernels", p.N))
}

// NewtonOptions returns opt unchanged (no GPU in this build).
func NewtonOptions(k *NewtonKernels, opt newton.Options) newton.Options { return opt }

func (k *NewtonKernels) Close() error { return nil }
