package gen

import (
	"bytes"
	"fmt"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/templates"
)

// The batched kernels (gpuabi's batched contract: one plan, many paths)
// come from templates/batch.cu.tmpl, appended to the kernels of KernelsCU,
// whose value operations (mdgen_ops_<suffix>) they share.

// batchKernelData fills the "bprecision" template.
type batchKernelData struct {
	kernelData
	BatchConv, BatchAdd, BatchEval string
	EvalBlock                      string // the block's device function
	BatchBlock, BatchEvalBlock     int
}

// BatchKernelsCU returns KernelsCU(ns, complex) followed by the batched
// kernels of the same precisions and kinds of data and the batched
// layout's version symbol: one .cu whose fatbin serves the GPU executor
// and runtime/gpu.Batch alike.
func BatchKernelsCU(ns []int, complex []bool) ([]byte, error) {
	src, err := KernelsCU(ns, complex)
	if err != nil {
		return nil, err
	}
	_, ks := kernelList(ns, complex)
	bs := make([]batchKernelData, len(ks))
	for i, k := range ks {
		p := k.prec()
		bs[i] = batchKernelData{kernelData: k, BatchBlock: gpuabi.BatchBlock, BatchEvalBlock: gpuabi.BatchEvalBlock,
			BatchConv: gpuabi.BatchKernelName(gpuabi.BatchConv, p), BatchAdd: gpuabi.BatchKernelName(gpuabi.BatchAdd, p),
			BatchEval: gpuabi.BatchKernelName(gpuabi.BatchEval, p), EvalBlock: gpuabi.BatchEvalBlockName(p)}
	}
	t, err := templates.Parse("batch.cu.tmpl")
	if err != nil {
		return nil, fmt.Errorf("gen: template batch.cu.tmpl: %w", err)
	}
	var buf bytes.Buffer
	data := map[string]any{"Version": gpuabi.BatchLayoutVersion, "Symbol": gpuabi.BatchLayoutSymbol, "Kernels": bs}
	if err := t.ExecuteTemplate(&buf, "batch", data); err != nil {
		return nil, fmt.Errorf("gen: template batch.cu.tmpl: %w", err)
	}
	return append(src, buf.Bytes()...), nil
}

// BatchCUSource returns the CUDA source of the batched kernels of
// precision n, real and complex (BatchKernelsCU), with the headers it
// includes, for nvcc.Compiler.Build (runtime/gpu.LoadBatchKernels loads
// the fatbin).
func BatchCUSource(n int) (nvcc.Source, error) {
	return evalSource(n, "batch", func() ([]byte, error) { return BatchKernelsCU([]int{n}, []bool{false, true}) })
}
