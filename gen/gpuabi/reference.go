package gpuabi

import (
	"bytes"
	"fmt"

	"github.com/mdgen/mdgen/templates"
)

// ReferenceKernelsCU returns CUDA source (templates/reference.cu.tmpl) of
// the plainest kernels that keep the contract for precision n, real and
// complex: one block per job, thread k of a block computes coefficient k
// (stepping by the block size), reading and writing global memory
// directly, with the arithmetic of generated/cuda/md<n>.cuh in the order of
// stager.ConvJob (complex: Gauss's three real convolutions), so the bits
// are the CPU executor's. It also defines LayoutSymbol.
//
// They are a reference, not a contender: they test the GPU executor without
// mdgen's generated kernels, and give the generated ones a baseline.
// Compile with -I generated/cuda -fmad=false; launch with ReferenceShape.
func ReferenceKernelsCU(n int) []byte {
	t, err := templates.Parse("reference.cu.tmpl")
	if err != nil {
		panic(fmt.Sprintf("gpuabi: template reference.cu.tmpl: %v", err))
	}
	var b bytes.Buffer
	if err := t.Execute(&b, map[string]any{"N": n, "Symbol": LayoutSymbol, "Version": LayoutVersion}); err != nil {
		panic(fmt.Sprintf("gpuabi: template reference.cu.tmpl: %v", err))
	}
	return b.Bytes()
}

// ReferenceShape is the launch shape of ReferenceKernelsCU: a warp
// multiple of threads up to one per coefficient, at most 128, no shared
// memory.
func ReferenceShape(kind Kind, n int, complex bool, degree int) (block, shared int) {
	block = min(128, (degree+1+31)/32*32)
	return block, 0
}
