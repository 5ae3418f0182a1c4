package gen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

// The batched kernels of BatchKernelsCU, compiled as host C++ (as
// TestKernelEmulation does for the single-path ones), run layer by layer
// on a batch of paths, each with its own inputs and its own values of the
// read-only slots; every path's values and derivatives must be the CPU
// executor's on that path's data, bit for bit, in both orders of the data
// array and with blocks that leave the last one partly empty.

// batchEmuMain is the host program: stdin n, complex, degree, paths,
// elemStride, pathStride, rowStride, block, the conv and add layers (count,
// then (first, count) pairs), the tables (count, words) and the data array
// (count, doubles); stdout the data array.
func batchEmuMain(table string) string {
	return `#include "kernels.cu"
#include <cstdio>
#include <cstdlib>
typedef void (*bkernel)(double*, long long, long long, long long, long long, const int*, long long, long long, long long);
static long long rd(FILE* f) { long long v; if (fread(&v, 8, 1, f) != 1) exit(3); return v; }
int main() {
  FILE* in = stdin;
  const int n = (int)rd(in), cplx = (int)rd(in);
  const long long degree = rd(in), paths = rd(in), es = rd(in), ps = rd(in), rs = rd(in), block = rd(in);
  const char c = cplx ? 'c' : 'r';
  bkernel conv = 0, add = 0;
` + table + `  if (!conv) return 2;
  std::vector<long long> layers[2];
  for (int k = 0; k < 2; ++k) { long long m = rd(in); layers[k].resize(2 * m); for (auto& x : layers[k]) x = rd(in); }
  std::vector<int> tables[2];
  for (int k = 0; k < 2; ++k) { long long m = rd(in); tables[k].resize(m + 1); for (long long i = 0; i < m; ++i) tables[k][i] = (int)rd(in); }
  long long nd = rd(in);
  std::vector<double> data(nd);
  if (fread(data.data(), 8, nd, in) != (size_t)nd) return 3;
  blockDim = {(unsigned)block, 1, 1};
  const unsigned gx = (unsigned)((paths + block - 1) / block);
  for (int k = 0; k < 2; ++k)
    for (size_t l = 0; l < layers[k].size(); l += 2)
      for (unsigned by = 0; by < (unsigned)layers[k][l + 1]; ++by)
        for (unsigned bx = 0; bx < gx; ++bx) {
          blockIdx = {bx, by, 0};
          for (unsigned t = 0; t < (unsigned)block; ++t) {
            threadIdx = {t, 0, 0};
            (k == 0 ? conv : add)(data.data(), es, ps, rs, degree, tables[k].data(), layers[k][l], layers[k][l + 1], paths);
          }
        }
  fwrite(data.data(), 8, nd, stdout);
  return 0;
}
`
}

// batchCase is one path's data: its inputs and its read-only slots.
type batchCase struct {
	inputs [][]float64
	values map[stager.Slot][]float64 // the slots set for this path; the others keep the plan's values
}

// batchCases makes the data of paths paths: random inputs per path, and
// random values for every other read-only slot (the others keep the
// plan's), different per path.
func batchCases(plan *stager.Plan, l backend.Layout, paths int, seed uint64) []batchCase {
	var ro []stager.Slot
	for s, k := range plan.Kinds {
		if (k == stager.SlotConst || k == stager.SlotCoef) && s%2 == 0 {
			ro = append(ro, stager.Slot(s))
		}
	}
	cs := make([]batchCase, paths)
	for p := range cs {
		cs[p].inputs = backend.RandomInputs(plan.NumVars, l, seed+uint64(p))
		vs := backend.RandomInputs(len(ro), l, seed+uint64(p)+1<<32)
		cs[p].values = map[stager.Slot][]float64{}
		for i, s := range ro {
			cs[p].values[s] = vs[i]
		}
	}
	return cs
}

// batchCPU runs the CPU executor on one path's data.
func batchCPU(t *testing.T, plan *stager.Plan, p mdops.Prec, c batchCase) *cpu.Executor {
	t.Helper()
	e, err := cpu.New(plan, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	for v, in := range c.inputs {
		e.SetInput(v, in)
	}
	for s, v := range c.values {
		e.SetValue(s, v)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestBatchKernelEmulation(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles kernels with g++")
	}
	ns := []int{1, 2, 3, 4, 5, 8, 10}
	dir := t.TempDir()
	src, err := BatchKernelsCU(ns, []bool{false, true})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kernels.cu"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	for _, n := range ns {
		for _, c := range []string{"r", "c"} {
			fmt.Fprintf(&table, "  if (n == %d && c == '%s') { conv = mdgen_bconv_%s%d; add = mdgen_badd_%s%d; }\n", n, c, c, n, c, n)
		}
	}
	bin := compileHost(t, dir, batchEmuMain(table.String()), "-O1")
	emu, err := poly.Parse("emu", []byte(emuSystem), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	family := func(name string, n int) *poly.System {
		inst, err := families.Build(name, families.Options{N: n})
		if err != nil {
			t.Fatal(err)
		}
		return inst.System
	}
	systems := map[string]*poly.System{"emu": emu, "katsura4": family("katsura", 4), "cyclic4": family("cyclic", 4), "noon3": family("noon", 3)}
	type cfg struct {
		sys     string
		n       int
		complex bool
		degree  int
		paths   int
		block   int
		order   gpuabi.BatchOrder
	}
	var cfgs []cfg
	for _, n := range ns {
		for _, complex := range []bool{false, true} {
			cfgs = append(cfgs, cfg{"emu", n, complex, 3, 5, 2, gpuabi.Interleaved}, cfg{"emu", n, complex, 0, 3, 4, gpuabi.PathMajor})
		}
	}
	cfgs = append(cfgs, cfg{"katsura4", 2, false, 4, 37, 16, gpuabi.Interleaved}, cfg{"cyclic4", 4, true, 4, 37, 16, gpuabi.Interleaved},
		cfg{"noon3", 8, true, 5, 9, 4, gpuabi.PathMajor}, cfg{"noon3", 1, false, 9, 33, 32, gpuabi.Interleaved},
		cfg{"emu", 4, true, 8, 7, 3, gpuabi.Interleaved})
	for _, c := range cfgs {
		t.Run(fmt.Sprintf("%s_n%d_complex%v_d%d_P%d_T%d_%s", c.sys, c.n, c.complex, c.degree, c.paths, c.block, c.order), func(t *testing.T) {
			plan, err := stager.Stage(systems[c.sys], c.degree)
			if err != nil {
				t.Fatal(err)
			}
			prec := mdops.Prec{N: c.n, Complex: c.complex}
			l := backend.Layout{Prec: prec, Degree: plan.Degree}
			cases := batchCases(plan, l, c.paths, uint64(c.degree*1000+c.n))
			g := gpuabi.NewBatchGeometry(plan, prec, c.paths, c.order)
			data := batchEmulate(t, bin, plan, prec, g, c.block, cases)
			w := l.W()
			for p, cs := range cases {
				e := batchCPU(t, plan, prec, cs)
				check := func(what string, s stager.Slot, want []float64) {
					for k := 0; k < g.D1; k++ {
						for r := 0; r < w; r++ {
							got := 0.0
							if s != stager.NoSlot {
								got = data[g.Index(p, r, int(s), k)]
							}
							if math.Float64bits(got) != math.Float64bits(want[k*w+r]) {
								t.Fatalf("path %d: %s: coefficient %d, double %d: CPU %v, kernels %v", p, what, k, r, want[k*w+r], got)
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
			}
		})
	}
}

// batchEmulate fills the batch's data array (read-only slots rounded as
// the CPU executor rounds them, then each path's own values and inputs),
// runs the emulation binary and returns the data array.
func batchEmulate(t *testing.T, bin string, plan *stager.Plan, prec mdops.Prec, g gpuabi.BatchGeometry, block int, cases []batchCase) []float64 {
	t.Helper()
	l := backend.Layout{Prec: prec, Degree: plan.Degree}
	w := l.W()
	data := make([]float64, g.Doubles())
	put := func(p int, s stager.Slot, series []float64) {
		for k := 0; k < g.D1; k++ {
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
	var b bytes.Buffer
	w64 := func(v int64) { binary.Write(&b, binary.LittleEndian, v) }
	cplx := 0
	if prec.Complex {
		cplx = 1
	}
	for _, v := range []int64{int64(prec.N), int64(cplx), int64(plan.Degree), int64(g.Paths), g.ElemStride, g.PathStride, g.RowStride(), int64(block)} {
		w64(v)
	}
	conv, add, convLayers, addLayers := gpuabi.JobTables(plan)
	for _, ls := range [][][2]int{convLayers, addLayers} {
		w64(int64(len(ls)))
		for _, x := range ls {
			w64(int64(x[0]))
			w64(int64(x[1]))
		}
	}
	for _, tb := range [][]int32{conv, add} {
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

// TestBatchKernelsCUSyntax compiles the batched kernels of every default
// precision, real and complex, as host C++ with warnings on (short mode
// too: it is the quick check that the template still compiles).
func TestBatchKernelsCUSyntax(t *testing.T) {
	cxx := needCXX(t)
	src, err := BatchKernelsCU(DefaultNs, []bool{false, true})
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "kernels.cu")
	if err := os.WriteFile(f, src, 0o644); err != nil {
		t.Fatal(err)
	}
	shim, _ := filepath.Abs("testdata/cuda_host_shim.h")
	out, err := exec.Command(cxx, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Wno-unused-function",
		"-Wno-unused-parameter", "-Wno-unknown-pragmas", "-include", shim, "-I", "../generated/cuda", "-x", "c++", f).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	for _, n := range DefaultNs {
		for _, c := range []bool{false, true} {
			for _, kind := range gpuabi.BatchKinds {
				if name := gpuabi.BatchKernelName(kind, mdops.Prec{N: n, Complex: c}); !bytes.Contains(src, []byte(name+"(")) {
					t.Errorf("BatchKernelsCU lacks %s", name)
				}
			}
			if name := gpuabi.BatchEvalBlockName(mdops.Prec{N: n, Complex: c}); !bytes.Contains(src, []byte(name+"(")) {
				t.Errorf("BatchKernelsCU lacks %s", name)
			}
		}
	}
}
