package gen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/mdops"
)

// The batched linear-algebra kernels (gen/gpuabi/batchla.go) come from
// templates/batchla.cu.tmpl, appended to the kernels of LAKernelsCU, whose
// element operations (la_ops_<suffix>) and bodies they call.

// BatchLAKernelsCU returns LAKernelsCU(ns, complex) followed by the
// batched kernels (gpuabi.BatchLAOps) of the same precisions and kinds of
// data: one self-contained .cu whose fatbin serves runtime/gpu.BatchLA
// (which also launches its mulsub and norm1). It compiles with nvcc as
// LAKernelsCU does, or as host C++ with g++ -ffp-contract=off.
func BatchLAKernelsCU(ns []int, complex []bool) ([]byte, error) {
	src, err := LAKernelsCU(ns, complex)
	if err != nil {
		return nil, err
	}
	b, err := batchLACU(ns, complex)
	if err != nil {
		return nil, err
	}
	return append(src, b...), nil
}

// batchLACU renders the batched kernels of ns and complex alone: the part
// of BatchLAKernelsCU after LAKernelsCU, which a source that already holds
// the linear algebra (BatchNewtonKernelsCU) appends.
func batchLACU(ns []int, complex []bool) ([]byte, error) {
	if len(complex) == 0 {
		complex = []bool{false}
	}
	var vs []laCUVariant
	ns = slices.Clone(ns)
	slices.Sort(ns)
	for _, n := range slices.Compact(ns) {
		for _, c := range []bool{false, true} {
			if !slices.Contains(complex, c) {
				continue
			}
			p := mdops.Prec{N: n, Complex: c}
			v := laCUVariant{N: n, Complex: c, W: p.Width(), Suffix: p.Suffix()}
			for _, op := range gpuabi.BatchLAOps {
				var names []string
				for _, a := range gpuabi.LAParams[op] {
					names = append(names, a.Name)
				}
				v.Kernels = append(v.Kernels, laCUKernel{Op: string(op), Name: gpuabi.LAKernelName(op, p),
					Sig: gpuabi.LASignature(op), Args: strings.Join(names, ", ")})
			}
			vs = append(vs, v)
		}
	}
	return render("batchla.cu.tmpl", map[string]any{
		"Variants":    vs,
		"MaxThreads":  gpuabi.LAMaxThreads,
		"Lanes":       gpuabi.LALanes,
		"Info":        gpuabi.BatchLAInfo,
		"RankCol":     gpuabi.BatchLARankCol,
		"RankRatio":   gpuabi.BatchLARankRatio,
		"SingularCol": gpuabi.BatchLASingularCol,
		"ANorm":       gpuabi.BatchLAANorm,
	})
}

// BatchLACUSource returns the CUDA source of the batched linear algebra
// at precision p (BatchLAKernelsCU of p's precision and kind of data), for
// nvcc.Compiler.Build (runtime/gpu.LoadBatchLAKernels loads the fatbin).
func BatchLACUSource(p mdops.Prec) (nvcc.Source, error) {
	src, err := BatchLAKernelsCU([]int{p.N}, []bool{p.Complex})
	if err != nil {
		return nvcc.Source{}, fmt.Errorf("gen: batched linear algebra of %s: %w", p, err)
	}
	return nvcc.Source{Name: fmt.Sprintf("md%d-bla-%s", p.N, p.Kind()[:1]), Source: src}, nil
}
