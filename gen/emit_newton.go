package gen

import (
	"fmt"
	"strings"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/alg"
)

// An emitted .cu holds, after the evaluation kernels and the job tables,
// the linear algebra of Newton's method on Taylor series at the package's
// precision and kind of data (LAKernelsCU: the kernels that
// runtime/gpu.LoadNewtonKernelsFrom loads, that the device-resident Newton
// back end launches), so that one nvcc run builds one fatbin with
// everything the emitted Solver runs on the GPU. Both parts inline the
// same multiple-double arithmetic: the file inlines it once (the whole of
// md<N>.cuh, a superset of what the evaluation kernels call), and the
// linear algebra follows without its own copy. Their other names do not
// meet (mdgen_* and la_*), so they share the translation unit.

// emittedHeaders returns mdbase.cuh and the whole of md<n>.cuh (real and
// complex arithmetic), stripped as LAKernelsCU inlines them.
func emittedHeaders(n int) ([]string, error) {
	base, err := CUDABase()
	if err != nil {
		return nil, err
	}
	l := alg.Build(n)
	h, err := CUDAHeader(l, alg.BuildComplex(l))
	if err != nil {
		return nil, err
	}
	return []string{stripHeader(base), stripHeader(h)}, nil
}

// newtonLACU returns the linear-algebra kernels of LAKernelsCU for
// precision n and one kind of data without their inlined headers (which
// must be headers, in that order: emittedHeaders(n)) and without the
// comment that opens that file, introduced by a comment of its own.
func newtonLACU(p mdops.Prec, headers []string) (string, error) {
	n := p.N
	src, err := LAKernelsCU([]int{n}, []bool{p.Complex})
	if err != nil {
		return "", err
	}
	s := string(src)
	pos := 0
	for i, h := range headers {
		k := strings.Index(s[pos:], h)
		if k < 0 {
			return "", fmt.Errorf("gen: the linear-algebra kernels of %d doubles do not inline header %d as the emitted .cu does (gen.LAKernelsCU changed: update gen/emit_newton.go)", n, i+1)
		}
		pos += k + len(h)
	}
	var names []string
	for _, op := range gpuabi.LAOps {
		names = append(names, gpuabi.LAKernelName(op, p))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n// ---------------------------------------------------------------------------\n")
	fmt.Fprintf(&b, "// Newton's method on Taylor series on the device: the linear algebra of\n")
	fmt.Fprintf(&b, "// %s data (gen.LAKernelsCU; contract gen/gpuabi/la.go,\n", p)
	fmt.Fprintf(&b, "// bit for bit mdops/la), launched by runtime/gpu's Newton back end on the\n")
	fmt.Fprintf(&b, "// data of the evaluation kernels above. It uses the arithmetic inlined at\n")
	fmt.Fprintf(&b, "// the top of this file. Kernels:\n")
	for i := 0; i < len(names); i += 4 {
		fmt.Fprintf(&b, "//   %s\n", strings.Join(names[i:min(i+4, len(names))], ", "))
	}
	fmt.Fprintf(&b, "// ---------------------------------------------------------------------------\n")
	b.WriteString(s[pos:])
	return b.String(), nil
}
