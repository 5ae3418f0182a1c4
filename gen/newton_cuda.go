package gen

import (
	"fmt"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/alg"
)

// The CUDA sources that the run time compiles (runtime/gpu/kernels builds
// them with nvcc and loads them): the evaluation kernels of the GPU
// executor, the reference kernels of the contract, and the two sources of
// the device-resident Newton driver. An emitted package's .cu is another
// (systemCU): it carries the job tables of its plan.

// EvalCUSource returns the CUDA source of the GPU executor's evaluation
// kernels of precision n (KernelsCU, real and complex) with the headers it
// includes, for nvcc.Compiler.Build (runtime/gpu.LoadKernels loads the
// fatbin): what mdgen tune and mdgen bench compile, and the first source
// of NewtonCUSources.
func EvalCUSource(n int) (nvcc.Source, error) {
	return evalSource(n, "eval", func() ([]byte, error) { return KernelsCU([]int{n}, []bool{false, true}) })
}

// ReferenceCUSource returns the CUDA source of the contract's reference
// kernels of precision n (gpuabi.ReferenceKernelsCU) with the headers it
// includes: mdgen bench -kernels-src ref.
func ReferenceCUSource(n int) (nvcc.Source, error) {
	return evalSource(n, "ref", func() ([]byte, error) { return gpuabi.ReferenceKernelsCU(n), nil })
}

// evalSource returns the source md<n>-<what> of evaluation kernels of
// precision n, src(), with mdbase.cuh, md<n>.cuh and mdgen.cuh (src runs
// once n is known to be a precision: the printers panic on others).
func evalSource(n int, what string, src func() ([]byte, error)) (nvcc.Source, error) {
	if err := alg.CheckN(n); err != nil {
		return nvcc.Source{}, fmt.Errorf("gen: no GPU kernels for %w", err)
	}
	l := alg.Build(n)
	h, err := CUDAHeader(l, alg.BuildComplex(l))
	if err != nil {
		return nvcc.Source{}, err
	}
	base, err := CUDABase()
	if err != nil {
		return nvcc.Source{}, err
	}
	idx, err := CUDAIndex([]int{n})
	if err != nil {
		return nvcc.Source{}, err
	}
	body, err := src()
	if err != nil {
		return nvcc.Source{}, err
	}
	return nvcc.Source{Name: fmt.Sprintf("md%d-%s", n, what), Source: body,
		Headers: map[string][]byte{"mdbase.cuh": base, fmt.Sprintf("md%d.cuh", n): h, "mdgen.cuh": idx}}, nil
}

// NewtonCUSources returns the two CUDA sources of the device-resident
// Newton driver (runtime/gpu.LoadNewtonKernels) at precision p: the evaluation kernels of the GPU executor (EvalCUSource)
// and the linear algebra with the driver's own kernels (LAKernelsCU: qr,
// packr, qh, backsub, mulsub, norm1, scatter, gather, xupdate, amax), in
// that order, for nvcc.Compiler.Build.
func NewtonCUSources(p mdops.Prec) ([]nvcc.Source, error) {
	eval, err := EvalCUSource(p.N)
	if err != nil {
		return nil, err
	}
	laSrc, err := LAKernelsCU([]int{p.N}, []bool{p.Complex})
	if err != nil {
		return nil, err
	}
	return []nvcc.Source{eval, {Name: fmt.Sprintf("md%d-la-%s", p.N, p.Kind()[:1]), Source: laSrc}}, nil
}
