//go:build !cuda

package runtime

// The GPU executor in a build without CUDA: the API of gpu_cuda.go, every
// constructor returning an error that wraps cudadev.ErrNoCUDA.

import (
	"fmt"

	"github.com/mdgen/mdgen/runtime/cudadev"
	"github.com/mdgen/mdgen/stager"
)

// GPUEnabled reports whether this build has the GPU executor (build tag cuda).
const GPUEnabled = false

// errNoGPU says why there is no GPU executor and how to get one.
func errNoGPU(what string) error {
	return fmt.Errorf("runtime: %s: %w (or CGO_CFLAGS=\"-I$PWD/build/cudacompat -I$CUDA_PATH/include\" "+
		"CGO_LDFLAGS=\"-L$CUDA_PATH/lib64/stubs\" go build -tags cuda)", what, cudadev.ErrNoCUDA)
}

// GPUKernels is a loaded fatbin of mdgen kernels; this build has none.
type GPUKernels struct{}

// LoadGPUKernels returns an error wrapping cudadev.ErrNoCUDA.
func LoadGPUKernels(dev *cudadev.Device, fatbin []byte, n int, complex ...bool) (*GPUKernels, error) {
	return nil, errNoGPU(fmt.Sprintf("loading the %d-double GPU kernels", n))
}

// UseGPUKernels returns an error wrapping cudadev.ErrNoCUDA.
func UseGPUKernels(dev *cudadev.Device, mod *cudadev.Module, n int, complex ...bool) (*GPUKernels, error) {
	return nil, errNoGPU(fmt.Sprintf("loading the %d-double GPU kernels", n))
}

func (k *GPUKernels) N() int               { return 0 }
func (k *GPUKernels) LayoutVersion() int64 { return -1 }
func (k *GPUKernels) Attributes(kind string, complex bool) (cudadev.FuncAttributes, bool) {
	return cudadev.FuncAttributes{}, false
}
func (k *GPUKernels) Close() error { return nil }

// GPU runs a stager.Plan on a CUDA device; this build cannot make one.
type GPU struct{}

var _ Executor = (*GPU)(nil)

// NewGPU returns an error wrapping cudadev.ErrNoCUDA.
func NewGPU(plan *stager.Plan, n int, complex bool, fatbin []byte, dev *cudadev.Device) (*GPU, error) {
	return nil, errNoGPU("preparing the GPU executor")
}

// NewGPUWithOptions returns an error wrapping cudadev.ErrNoCUDA.
func NewGPUWithOptions(plan *stager.Plan, n int, complex bool, fatbin []byte, dev *cudadev.Device, opt GPUOptions) (*GPU, error) {
	return nil, errNoGPU("preparing the GPU executor")
}

// NewGPUFromKernels returns an error wrapping cudadev.ErrNoCUDA.
func NewGPUFromKernels(plan *stager.Plan, complex bool, k *GPUKernels, opt GPUOptions) (*GPU, error) {
	return nil, errNoGPU("preparing the GPU executor")
}

func (g *GPU) Plan() *stager.Plan                              { return nil }
func (g *GPU) N() int                                          { return 0 }
func (g *GPU) Complex() bool                                   { return false }
func (g *GPU) Sizes() GPUSizes                                 { return GPUSizes{} }
func (g *GPU) Launches() int                                   { return 0 }
func (g *GPU) Kernels() *GPUKernels                            { return nil }
func (g *GPU) Shapes() []GPUShapeInfo                          { return nil }
func (g *GPU) SetInput(v int, series []float64)                {}
func (g *GPU) Run() error                                      { return errNoGPU("running the GPU executor") }
func (g *GPU) RunTimed() (kernelMs, wallMs float64, err error) { return 0, 0, g.Run() }
func (g *GPU) Err() error                                      { return nil }
func (g *GPU) Download() error                                 { return errNoGPU("downloading GPU outputs") }
func (g *GPU) Value(p int) []float64                           { return nil }
func (g *GPU) Deriv(p, v int) []float64                        { return nil }
func (g *GPU) Close() error                                    { return nil }
