package gen

import (
	"strings"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/solver"
)

// TestEmitCUNewtonKernels checks that an emitted .cu carries the
// linear-algebra kernels of Newton's method for the emitted precision and
// kind of data (every one that runtime/gpu.LoadNewtonKernelsFrom looks
// up), and none of another precision or kind, next to the evaluation
// kernels, with the multiple-double arithmetic inlined once (one
// translation unit: a second copy would not compile).
func TestEmitCUNewtonKernels(t *testing.T) {
	for _, c := range []struct {
		prec    int
		complex bool
	}{{2, false}, {2, true}, {4, false}, {8, true}} {
		s := textSpec()
		s.Prec = mdops.Prec{N: c.prec, Complex: c.complex}
		em, err := Emit(s, solver.ExampleRunner{})
		if err != nil {
			t.Fatal(err)
		}
		cu := string(em.Files[em.CU])
		for _, n := range []int{1, 2, 4, 8} {
			for _, cx := range []bool{false, true} {
				for _, op := range gpuabi.LAOps {
					name := gpuabi.LAKernelName(op, mdops.Prec{N: n, Complex: cx})
					want := n == c.prec && cx == c.complex
					if got := strings.Count(cu, "\n"+name+"("); got != map[bool]int{true: 1, false: 0}[want] {
						t.Errorf("%d doubles, complex %v: kernel %s defined %d times", c.prec, c.complex, name, got)
					}
				}
				for _, k := range gpuabi.Kinds {
					name := gpuabi.KernelName(k, mdops.Prec{N: n, Complex: cx})
					if got, want := strings.Contains(cu, name+"("), n == c.prec && cx == c.complex; got != want {
						t.Errorf("%d doubles, complex %v: evaluation kernel %s present: %v", c.prec, c.complex, name, got)
					}
				}
			}
		}
		hs, err := emittedHeaders(c.prec)
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range hs {
			if got := strings.Count(cu, h); got != 1 {
				t.Errorf("%d doubles, complex %v: header %d inlined %d times", c.prec, c.complex, i+1, got)
			}
		}
		// The linear algebra follows the job tables.
		if strings.Index(cu, gpuabi.LAKernelName(gpuabi.LAOps[0], mdops.Prec{N: c.prec, Complex: c.complex})) < strings.Index(cu, gpuabi.ConvJobsSymbol) {
			t.Errorf("%d doubles, complex %v: the linear algebra comes before the job tables", c.prec, c.complex)
		}
	}
}
