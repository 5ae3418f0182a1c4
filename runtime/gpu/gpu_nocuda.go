//go:build !cuda

package gpu

// The GPU executor in a build without CUDA: the API of gpu_cuda.go, every
// constructor returning an error that wraps cudadev.ErrNoCUDA.

import (
	"fmt"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/stager"
)

// Enabled reports whether this build has the GPU executor (build tag cuda).
const Enabled = false

// errNoGPU says why there is no GPU executor and how to get one.
func errNoGPU(what string) error {
	return fmt.Errorf("gpu: %s: %w (or CGO_CFLAGS=\"-I$PWD/build/cudacompat -I$CUDA_PATH/include\" "+
		"CGO_LDFLAGS=\"-L$CUDA_PATH/lib64/stubs\" go build -tags cuda)", what, cudadev.ErrNoCUDA)
}

// Kernels is a loaded fatbin of mdgen kernels; this build has none.
type Kernels struct{}

// LoadKernels returns an error wrapping cudadev.ErrNoCUDA.
func LoadKernels(dev *cudadev.Device, fatbin []byte, n int, complex ...bool) (*Kernels, error) {
	return nil, errNoGPU(fmt.Sprintf("loading the %d-double GPU kernels", n))
}

// UseKernels returns an error wrapping cudadev.ErrNoCUDA.
func UseKernels(dev *cudadev.Device, mod *cudadev.Module, n int, complex ...bool) (*Kernels, error) {
	return nil, errNoGPU(fmt.Sprintf("loading the %d-double GPU kernels", n))
}

func (k *Kernels) N() int               { return 0 }
func (k *Kernels) LayoutVersion() int64 { return -1 }
func (k *Kernels) Attributes(kind gpuabi.Kind, complex bool) (cudadev.FuncAttributes, bool) {
	return cudadev.FuncAttributes{}, false
}
func (k *Kernels) Close() error { return nil }

// Executor runs a stager.Plan on a CUDA device; this build cannot make one.
type Executor struct{}

var _ backend.Executor = (*Executor)(nil)

// New returns an error wrapping cudadev.ErrNoCUDA.
func New(plan *stager.Plan, p mdops.Prec, fatbin []byte, dev *cudadev.Device) (*Executor, error) {
	return nil, errNoGPU("preparing the GPU executor")
}

// NewWithOptions returns an error wrapping cudadev.ErrNoCUDA.
func NewWithOptions(plan *stager.Plan, p mdops.Prec, fatbin []byte, dev *cudadev.Device, opt Options) (*Executor, error) {
	return nil, errNoGPU("preparing the GPU executor")
}

// NewFromKernels returns an error wrapping cudadev.ErrNoCUDA.
func NewFromKernels(plan *stager.Plan, complex bool, k *Kernels, opt Options) (*Executor, error) {
	return nil, errNoGPU("preparing the GPU executor")
}

func (g *Executor) Plan() *stager.Plan                              { return nil }
func (g *Executor) Prec() mdops.Prec                                { return mdops.Prec{} }
func (g *Executor) Sizes() gpuabi.Sizes                             { return gpuabi.Sizes{} }
func (g *Executor) Launches() int                                   { return 0 }
func (g *Executor) Kernels() *Kernels                               { return nil }
func (g *Executor) Shapes() []ShapeInfo                             { return nil }
func (g *Executor) SetInput(v int, series []float64)                {}
func (g *Executor) Run() error                                      { return errNoGPU("running the GPU executor") }
func (g *Executor) RunTimed() (kernelMs, wallMs float64, err error) { return 0, 0, g.Run() }
func (g *Executor) Err() error                                      { return nil }
func (g *Executor) Download() error                                 { return errNoGPU("downloading GPU outputs") }
func (g *Executor) Value(p int) []float64                           { return nil }
func (g *Executor) Deriv(p, v int) []float64                        { return nil }
func (g *Executor) Close() error                                    { return nil }
