package gen

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// The evaluation of a whole plan by one block per path (gpuabi.BatchEval
// and the device function of gpuabi.BatchEvalBlockName), compiled as host
// C++ and run by the fiber emulation of la_cuda_test.go (laHostShim: the
// threads of a block resumed in a fresh random order after every barrier,
// so that a missing barrier shows as a wrong result): every path's values
// and derivatives must be those of the CPU executor of the working degree
// w (the plan staged at w, as runtime/newton's executors are) on that
// path's data, bit for bit, for w = 0, 1 and the full degree. The kernel
// runs an array of the plan's own degree; the device function, called by a
// kernel of the test as a Newton solver's kernel calls it, an array whose
// slots keep the full degree's coefficients (d1 > w+1), whose coefficients
// past w must be neither read nor written.

// evalEmuMain is the host program: stdin n, complex, mode (0: the kernel,
// 1: the device function), degree, d1, paths, elemStride, pathStride,
// rowStride, block, convLayers, addLayers, the layers, the conv and add
// tables (count, words) and the data array (count, doubles); stdout the
// data array.
func evalEmuMain(table string) string {
	return `#include "kernels.cu"
#include <cstdio>
#include <cstdlib>
#include <vector>
unsigned mdgen_dynamic_smem() { return 0; }
double mdgen_smem[1];
typedef void (*beval_kernel)(double*, long long, long long, long long, long long, const int*, const int*,
                             const long long*, long long, long long, long long);
typedef void (*beval_block)(double*, long long, long long, long long, long long, long long, const int*,
                            const int*, const long long*, long long, long long, long long);
static beval_kernel kernel;
static beval_block block_fn;
static double* data;
static long long degree, d1, paths, es, ps, rs, nconv, nadd;
static std::vector<long long> layers;
static std::vector<int> tables[2];
static void run_kernel(const uint64_t*) {
  kernel(data, es, ps, rs, degree, tables[0].data(), tables[1].data(), layers.data(), nconv, nadd, paths);
}
// A Newton solver's kernel: block p evaluates path p in an array of d1 coefficients per slot.
static void run_block(const uint64_t*) {
  block_fn(data, es, ps, rs, d1, degree, tables[0].data(), tables[1].data(), layers.data(), nconv, nadd,
           (long long)blockIdx.x);
}
static long long rd() { long long v; if (fread(&v, 8, 1, stdin) != 1) exit(3); return v; }
int main() {
  const int n = (int)rd(), cplx = (int)rd(), mode = (int)rd();
  degree = rd(); d1 = rd(); paths = rd(); es = rd(); ps = rd(); rs = rd();
  const long long block = rd();
  nconv = rd(); nadd = rd();
  const char c = cplx ? 'c' : 'r';
` + table + `  if (!kernel || !block_fn) return 2;
  layers.resize(2 * (nconv + nadd));
  for (auto& x : layers) x = rd();
  for (int k = 0; k < 2; ++k) { long long m = rd(); tables[k].resize(m + 1); for (long long i = 0; i < m; ++i) tables[k][i] = (int)rd(); }
  long long nd = rd();
  std::vector<double> buf(nd);
  if (fread(buf.data(), 8, nd, stdin) != (size_t)nd) return 3;
  data = buf.data();
  la_emu_launch(mode == 0 ? run_kernel : run_block, nullptr, (unsigned)paths, (unsigned)block);
  fwrite(buf.data(), 8, nd, stdout);
  fprintf(stderr, "%lld blocks, %lld barriers\n", la_emu_blocks, la_emu_barriers);
  return 0;
}
`
}

// evalGeometry is the batch geometry of plan with d1 coefficients per slot.
func evalGeometry(plan *stager.Plan, prec mdops.Prec, paths int, o gpuabi.BatchOrder, d1 int) gpuabi.BatchGeometry {
	g := gpuabi.NewBatchGeometry(plan, prec, paths, o)
	g.D1 = d1
	g.SlotStride = int64(g.Slots) * int64(d1)
	if o == gpuabi.PathMajor {
		g.PathStride = int64(g.W) * g.SlotStride
	}
	return g
}

// evalUnused marks the coefficients past the working degree: they must
// come back with these bits.
const evalUnused = 0x7ff8_dead_beef_0001

func TestBatchEvalEmulation(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles kernels with g++")
	}
	// One emulation process at a time (one core): the other emulation
	// tests run beside it.
	t.Parallel()
	cxx := needCXX(t)
	ns := []int{1, 2, 3, 4, 8}
	dir := t.TempDir()
	src, err := BatchKernelsCU(ns, []bool{false, true})
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	for _, n := range ns {
		for _, c := range []bool{false, true} {
			p := mdops.Prec{N: n, Complex: c}
			fmt.Fprintf(&table, "  if (n == %d && c == '%c') { kernel = %s; block_fn = %s; }\n",
				n, p.Suffix()[0], gpuabi.BatchKernelName(gpuabi.BatchEval, p), gpuabi.BatchEvalBlockName(p))
		}
	}
	for name, text := range map[string]string{"kernels.cu": string(src), "la_host_shim.h": laHostShim, "main.cpp": evalEmuMain(table.String())} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "main")
	inc, _ := filepath.Abs("../generated/cuda")
	args := []string{"-std=c++20", "-O1", "-ffp-contract=off", "-DMD_HD=static __attribute__((noinline))",
		"-include", filepath.Join(dir, "la_host_shim.h"), "-I", inc, "-I", dir, "-o", bin, filepath.Join(dir, "main.cpp")}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	if out, err := exec.CommandContext(ctx, cxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, lastLines(out, 30))
	}
	t.Logf("g++: %v doubles in %.1f s", ns, time.Since(start).Seconds())

	emu, err := poly.Parse("emu", []byte(emuSystem), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	emuT, err := poly.Parse("emu_t", []byte(emuSystem), poly.ParseOptions{Param: "t"})
	if err != nil {
		t.Fatal(err)
	}
	family := func(name string, opt families.Options) *poly.System {
		inst, err := families.Build(name, opt)
		if err != nil {
			t.Fatal(err)
		}
		return inst.System
	}
	const degree, paths = 4, 3
	// The systems: katsura, cyclic and noon; emu, and emu with t its
	// series parameter, whose terms with a coefficient t drop out of the
	// plan of degree 0 (61 slots there, 76 at degrees 1 and 4); a Newton
	// homotopy of cyclic from a random point (complex for complex data),
	// and a monomial homotopy with random rates.
	type named struct {
		name string
		sys  *poly.System
	}
	systems := func(complex bool) []named {
		return []named{
			{"katsura4", family("katsura", families.Options{N: 4})},
			{"cyclic4", family("cyclic", families.Options{N: 4})},
			{"noon3", family("noon", families.Options{N: 3})},
			{"emu", emu},
			{"emu_t", emuT},
			{"cyclic4newton", family("cyclic", families.Options{N: 4, Newton: true, Seed: 3, Complex: complex})},
			{"monomial4", family("monomial", families.Options{N: 4, Degree: degree, Seed: 5, Complex: complex})},
		}
	}
	blocks := []int{32, 5, 64}
	run := 0
	for _, n := range ns {
		for _, complex := range []bool{false, true} {
			prec := mdops.Prec{N: n, Complex: complex}
			for _, sys := range systems(complex) {
				for _, w := range []int{0, 1, degree} {
					plan, err := stager.Stage(sys.sys, w)
					if err != nil {
						t.Fatal(err)
					}
					l := backend.Layout{Prec: prec, Degree: w}
					cases := batchCases(plan, l, paths, uint64(1000*n+10*w))
					for _, mode := range []int{0, 1} {
						d1, order := w+1, gpuabi.BatchOrder(run/2%2)
						if mode == 1 {
							d1, order = degree+1, gpuabi.PathMajor
						}
						block := blocks[run%len(blocks)]
						run++
						t.Run(fmt.Sprintf("%s/%s/w%d/mode%d_d1%d_%s_T%d", prec, sys.name, w, mode, d1, order, block), func(t *testing.T) {
							g := evalGeometry(plan, prec, paths, order, d1)
							data := evalEmulate(t, bin, plan, prec, g, mode, block, cases)
							evalCheck(t, plan, prec, g, cases, data)
						})
					}
				}
			}
		}
	}
}

// evalCheck compares every path's outputs in data with the CPU executor's
// on that path's data, and checks that the coefficients past the plan's
// degree kept evalUnused.
func evalCheck(t *testing.T, plan *stager.Plan, prec mdops.Prec, g gpuabi.BatchGeometry, cases []batchCase, data []float64) {
	t.Helper()
	w := prec.Width()
	for p, cs := range cases {
		e := batchCPU(t, plan, prec, cs)
		check := func(what string, s stager.Slot, want []float64) {
			for k := 0; k <= plan.Degree; k++ {
				for r := 0; r < w; r++ {
					got := 0.0
					if s != stager.NoSlot {
						got = data[g.Index(p, r, int(s), k)]
					}
					if math.Float64bits(got) != math.Float64bits(want[k*w+r]) {
						t.Fatalf("path %d: %s: coefficient %d, double %d: CPU %v, block %v", p, what, k, r, want[k*w+r], got)
					}
				}
			}
		}
		for i := 0; i < plan.NumPolys; i++ {
			check(fmt.Sprintf("value %d", i), plan.Value[i], e.Value(i))
			for v := 0; v < plan.NumVars; v++ {
				check(fmt.Sprintf("d p%d/d x%d", i, v), plan.DerivSlot(i, v), e.Deriv(i, v))
			}
		}
		for s := range plan.NumSlots() {
			for k := plan.Degree + 1; k < g.D1; k++ {
				for r := 0; r < w; r++ {
					if got := math.Float64bits(data[g.Index(p, r, s, k)]); got != evalUnused {
						t.Fatalf("path %d: slot %d, coefficient %d past the degree, double %d: %#x written", p, s, k, r, got)
					}
				}
			}
		}
	}
}

// evalEmulate fills the data array of g (coefficients 0..Degree of the
// read-only slots rounded as the CPU executor rounds them, then each
// path's own values and inputs, zeros elsewhere; evalUnused past the
// degree), runs the emulation binary and returns the data array.
func evalEmulate(t *testing.T, bin string, plan *stager.Plan, prec mdops.Prec, g gpuabi.BatchGeometry, mode, block int, cases []batchCase) []float64 {
	t.Helper()
	l := backend.Layout{Prec: prec, Degree: plan.Degree}
	w := l.W()
	data := make([]float64, g.Doubles())
	for p := range cases {
		for s := range plan.NumSlots() {
			for k := plan.Degree + 1; k < g.D1; k++ {
				for r := 0; r < w; r++ {
					data[g.Index(p, r, s, k)] = math.Float64frombits(evalUnused)
				}
			}
		}
	}
	put := func(p int, s stager.Slot, series []float64) {
		for k := 0; k <= plan.Degree; k++ {
			for r := 0; r < w; r++ {
				data[g.Index(p, r, int(s), k)] = series[k*w+r]
			}
		}
	}
	buf := make([]float64, l.SlotLen())
	for s, v := range plan.Values {
		if err := backend.RoundSeries(buf, v, l); err != nil {
			t.Fatal(err)
		}
		for p := range cases {
			put(p, s, buf)
		}
	}
	for p, c := range cases {
		for s, v := range c.values {
			put(p, s, v)
		}
		for v, s := range plan.Inputs {
			put(p, s, c.inputs[v])
		}
	}
	tables := gpuabi.NewEvalTables(plan)
	var b bytes.Buffer
	w64 := func(v int64) { binary.Write(&b, binary.LittleEndian, v) }
	cplx := 0
	if prec.Complex {
		cplx = 1
	}
	for _, v := range []int64{int64(prec.N), int64(cplx), int64(mode), int64(plan.Degree), int64(g.D1), int64(g.Paths),
		g.ElemStride, g.PathStride, g.RowStride(), int64(block), int64(tables.ConvLayers), int64(tables.AddLayers)} {
		w64(v)
	}
	for _, x := range tables.Layers {
		w64(x)
	}
	for _, tb := range [][]int32{tables.Conv, tables.Add} {
		w64(int64(len(tb)))
		for _, x := range tb {
			w64(int64(x))
		}
	}
	w64(int64(len(data)))
	binary.Write(&b, binary.LittleEndian, data)
	readDoubles(t, runEmulation(t, bin, &b), data)
	return data
}
