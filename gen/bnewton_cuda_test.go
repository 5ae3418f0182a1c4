package gen

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/internal/bntest"
	"github.com/mdgen/mdgen/mdops"
)

// The batched Newton solve (BatchNewtonKernelsCU) compiled as host C++ and
// run by la_cuda_test.go's emulation (every thread a fiber, the block's
// threads resumed in a random order after every barrier), each path's
// Result, steps and series against newton.Solver with the CPU back end on
// that path alone, bit for bit (internal/bntest's cases: Newton homotopies
// of katsura, cyclic and noon from perturbed and from random starts,
// degrees 0 and d, refinement tolerances the solver's and 0, coefficient
// slots set per path).

// bnEmuMain is la_cuda_test.go's interpreter for the batched Newton
// kernels names.
func bnEmuMain(names []string) string {
	var calls strings.Builder
	for _, name := range names {
		var args []string
		for i, p := range gpuabi.BNParams {
			if p.Pointer() {
				args = append(args, fmt.Sprintf("(%s)(uintptr_t)a[%d]", p.Type, i))
			} else {
				args = append(args, fmt.Sprintf("(%s)a[%d]", p.Type, i))
			}
		}
		fmt.Fprintf(&calls, "    [](const uint64_t* a) { %s(%s); },\n", name, strings.Join(args, ", "))
	}
	main := laEmuMain(nil)
	main = strings.Replace(main, `#include "la.cu"`, "unsigned mdgen_dynamic_smem() { return 0; }\ndouble mdgen_smem[1];\n#include \"bnewton.cu\"", 1)
	return strings.Replace(main, "static const la_call la_calls[] = {\n", "static const la_call la_calls[] = {\n"+calls.String(), 1)
}

// bnCompile compiles the batched Newton solve of the precisions ps, one
// binary each.
func bnCompile(t *testing.T, p mdops.Prec) string {
	t.Helper()
	cxx := needCXX(t)
	src, err := BatchNewtonKernelsCU(p)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"bnewton.cu": string(src), "la_host_shim.h": laHostShim,
		"main.cpp": bnEmuMain([]string{gpuabi.BNKernelName(p)})} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inc, _ := filepath.Abs("../generated/cuda")
	bin := filepath.Join(dir, "main")
	args := []string{"-std=c++20", "-O1", "-ffp-contract=off", "-DMD_HD=static __attribute__((noinline))",
		"-include", filepath.Join(dir, "la_host_shim.h"), "-I", dir, "-I", inc, "-o", bin, filepath.Join(dir, "main.cpp")}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(ctx, cxx, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, lastLines(out, 40))
	}
	t.Logf("g++: the batched Newton solve of %s in %.1f s", p, time.Since(start).Seconds())
	return bin
}

// int32Doubles packs int32s into float64s (the emulation's buffers).
func int32Doubles(x []int32) []float64 {
	f := make([]float64, (len(x)+1)/2+1)
	copy(unsafe.Slice((*int32)(unsafe.Pointer(&f[0])), 2*len(f)), x)
	return f
}

func int64Doubles(x []int64) []float64 {
	f := make([]float64, len(x)+1)
	for i, v := range x {
		f[i] = math.Float64frombits(uint64(v))
	}
	return f
}

func TestBatchNewtonEmulation(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the batched Newton solve with g++")
	}
	// One emulation process at a time (one core): the other emulation
	// tests run beside it.
	t.Parallel()
	for _, p := range []mdops.Prec{{N: 2, Complex: true}, {N: 1, Complex: false}, {N: 4, Complex: true}, {N: 3, Complex: false}} {
		bin := bnCompile(t, p)
		for _, c := range []struct {
			spec      string
			degree    int
			paths     int
			threads   int
			residuals bool
		}{
			{"katsura3:newton", 4, 6, 32, false},
			{"cyclic4:newton", 4, 6, 64, true},
			{"noon3:newton", 7, 5, 32, false},
			{"katsura3:newton", 0, 5, 32, false},
			{"katsura3:newton", 0, 6, 64, true},
			{"katsura4:newton", 9, 4, 96, false},
		} {
			t.Run(fmt.Sprintf("%s_%s_d%d_residuals%v", p, c.spec, c.degree, c.residuals), func(t *testing.T) {
				bnCase(t, bin, p, c.spec, c.degree, c.paths, c.threads, c.residuals)
			})
		}
	}
}

func bnCase(t *testing.T, bin string, p mdops.Prec, spec string, d, P, threads int, residuals bool) {
	c, err := bntest.New(spec, p, d, P, residuals, 1)
	if err != nil {
		t.Fatal(err)
	}
	setup := c.Setup
	W, N := p.Width(), p.N
	// The levels number the coefficients alike: they share the top
	// degree's block of coefficients, which alone is packed.
	packs := 0
	for _, l := range setup.Levels {
		if l.Packs {
			packs++
		}
	}
	if packs != 1 {
		t.Fatalf("%d of %d levels pack their coefficients, want 1 (a shared block)", packs, len(setup.Levels))
	}
	image, err := setup.Image()
	if err != nil {
		t.Fatal(err)
	}
	st := setup.Strides
	data := make([]float64, 0, int64(P)*setup.PathDoubles)
	for range P {
		data = append(data, image...)
	}
	var x0, coef []float64
	for i := range P {
		x0 = append(x0, c.X0[i]...)
		coef = append(coef, c.Coef[i]...)
	}
	tol := c.Tol
	e := &laEmu{index: map[string]int{gpuabi.BNKernelName(p): 0}}
	W64, P64 := int64(W), int64(P)
	bufs := []gpuabi.LAPtr{
		e.buffer(data), e.buffer(int32Doubles(setup.Conv)), e.buffer(int32Doubles(setup.Add)), e.buffer(int64Doubles(setup.Tabs)),
		e.buffer(int64Doubles(setup.Lv)), e.buffer(coef), e.buffer(x0),
		e.buffer(make([]float64, P64*st.X*W64)), e.buffer(make([]float64, P64*st.A*W64)),
		e.buffer(make([]float64, P64*st.QA*W64)), e.buffer(make([]float64, P64*st.Tau*W64)),
		e.buffer(make([]float64, P64*st.Rinv*int64(N))), e.buffer(make([]float64, P64*st.RRev*W64+1)),
		e.buffer(make([]float64, P64*st.Info)), e.buffer(make([]float64, P64*st.Acc*W64)),
		e.buffer(make([]float64, P64*st.B*W64)), e.buffer(make([]float64, P64*st.DX*W64)),
		e.buffer(make([]float64, P64*st.Y*W64)), e.buffer(make([]float64, P64*st.E*W64)),
		e.buffer(make([]float64, P64*st.RB*W64)), e.buffer(make([]float64, P64*st.CW+1)), e.buffer(tol),
		e.buffer(make([]float64, P64*st.Rec)),
	}
	const iX, iRec = 7, 22
	args := []any{bufs[0], setup.PathDoubles, bufs[1], bufs[2], bufs[3], bufs[4], int64(len(setup.Levels)), bufs[5], st.Coef, bufs[6]}
	for i, b := range bufs[7:] {
		args = append(args, b)
		if i+7 == 20 { // cw
			args = append(args, st.CW)
		}
	}
	args = append(args, setup.Scalars()...)
	if len(args) != len(gpuabi.BNParams) {
		t.Fatalf("%d arguments for %d parameters", len(args), len(gpuabi.BNParams))
	}
	e.launchArgs(t, gpuabi.BNKernelName(p), 0, P, threads, args)
	out := e.run(t, bin)
	xs, records := out[bufs[iX].Buf], out[bufs[iRec].Buf]
	sx := st.X * W64
	t.Log(c.Summary())
	for i := range P {
		got, gotSteps := setup.Result(records[int64(i)*st.Rec:int64(i+1)*st.Rec], xs[int64(i)*sx:int64(i+1)*sx])
		if err := c.Check(i, got, gotSteps); err != nil {
			t.Error(err)
		}
	}
}
