package gen

import (
	"fmt"

	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/mdops/alg"
)

// NewtonCUSources returns the two CUDA sources of the device-resident
// Newton driver (runtime/gpu.LoadNewtonKernels) at precision n for real or
// complex data: the evaluation kernels of the GPU executor (KernelsCU,
// real and complex, with the headers it includes) and the linear algebra
// with the driver's own kernels (LAKernelsCU: qr, packr, qh, backsub,
// mulsub, norm1, scatter, gather, xupdate, amax), in that order, for
// nvcc.Compiler.Build.
func NewtonCUSources(n int, complex bool) ([]nvcc.Source, error) {
	if n < 1 || n > alg.MaxN {
		return nil, fmt.Errorf("gen: no GPU kernels for %d doubles (1..%d)", n, alg.MaxN)
	}
	l := alg.Build(n)
	h, err := CUDAHeader(l, alg.BuildComplex(l))
	if err != nil {
		return nil, err
	}
	base, err := CUDABase()
	if err != nil {
		return nil, err
	}
	idx, err := CUDAIndex([]int{n})
	if err != nil {
		return nil, err
	}
	laSrc, err := LAKernelsCU([]int{n}, []bool{complex})
	if err != nil {
		return nil, err
	}
	kind := "r"
	if complex {
		kind = "c"
	}
	return []nvcc.Source{
		{Name: fmt.Sprintf("md%d-eval", n), Source: KernelsCU([]int{n}, []bool{false, true}),
			Headers: map[string][]byte{"mdbase.cuh": base, fmt.Sprintf("md%d.cuh", n): h, "mdgen.cuh": idx}},
		{Name: fmt.Sprintf("md%d-la-%s", n, kind), Source: laSrc},
	}, nil
}
