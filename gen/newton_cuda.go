package gen

import (
	"fmt"

	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/alg"
)

// NewtonCUSources returns the two CUDA sources of the device-resident
// Newton driver (runtime/gpu.LoadNewtonKernels) at precision p: the
// evaluation kernels of the GPU executor (KernelsCU,
// real and complex, with the headers it includes) and the linear algebra
// with the driver's own kernels (LAKernelsCU: qr, packr, qh, backsub,
// mulsub, norm1, scatter, gather, xupdate, amax), in that order, for
// nvcc.Compiler.Build.
func NewtonCUSources(p mdops.Prec) ([]nvcc.Source, error) {
	n := p.N
	if err := alg.CheckN(n); err != nil {
		return nil, fmt.Errorf("gen: no GPU kernels for %w", err)
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
	laSrc, err := LAKernelsCU([]int{n}, []bool{p.Complex})
	if err != nil {
		return nil, err
	}
	evalSrc, err := KernelsCU([]int{n}, []bool{false, true})
	if err != nil {
		return nil, err
	}
	return []nvcc.Source{
		{Name: fmt.Sprintf("md%d-eval", n), Source: evalSrc,
			Headers: map[string][]byte{"mdbase.cuh": base, fmt.Sprintf("md%d.cuh", n): h, "mdgen.cuh": idx}},
		{Name: fmt.Sprintf("md%d-la-%s", n, p.Kind()[:1]), Source: laSrc},
	}, nil
}
