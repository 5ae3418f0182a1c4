package gen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/internal/xcheck"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
)

// The kernels are CUDA, and neither CI nor this machine has a GPU. These
// tests compile them as host C++ with g++ (testdata/cuda_host_shim.h: a
// thread per CUDA thread, a barrier for __syncthreads) and check the logic:
// the schedule covers every output coefficient once, and the kernels
// reproduce the CPU executor bit for bit on real plans, for many block
// sizes, with and without shared memory staging. What they cannot check is
// anything about the GPU itself: nvcc, registers, speed.

// needCXX returns the path of g++, or skips (fails with MDGEN_REQUIRE_CXX=1).
func needCXX(t *testing.T) string {
	t.Helper()
	return xcheck.NeedCXX(t)
}

// compileHost compiles the C++ file src (including the kernels file
// kernels.cu in dir) with the host shim and returns the binary.
func compileHost(t *testing.T, dir, src string, extra ...string) string {
	t.Helper()
	cxx := needCXX(t)
	shim, _ := filepath.Abs("testdata/cuda_host_shim.h")
	inc, _ := filepath.Abs("../generated/cuda")
	main := filepath.Join(dir, "main.cpp")
	if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "main")
	args := append([]string{"-std=c++20", "-O1", "-ffp-contract=off", "-pthread", "-include", shim, "-I", inc, "-I", dir}, extra...)
	args = append(args, "-o", bin, main)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, cxx, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return bin
}

// TestKernelsCUSyntax compiles the kernels of every default precision, real
// and complex, as host C++.
func TestKernelsCUSyntax(t *testing.T) {
	cxx := needCXX(t)
	dir := t.TempDir()
	src := kernelsCU(t, DefaultNs, []bool{false, true})
	f := filepath.Join(dir, "kernels.cu")
	if err := os.WriteFile(f, src, 0o644); err != nil {
		t.Fatal(err)
	}
	shim, _ := filepath.Abs("testdata/cuda_host_shim.h")
	out, err := exec.Command(cxx, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Wno-unused-function",
		"-Wno-unused-parameter", "-Wno-unknown-pragmas", "-include", shim, "-I", "../generated/cuda", "-x", "c++", f).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("g++: %v\n%s", err, out)
	}
}

var schedDegrees = func() []int {
	var ds []int
	for d := 0; d <= 260; d++ {
		ds = append(ds, d)
	}
	return append(ds, 300, 383, 384, 437, 511, 512, 700, 1023, 1024, 2047)
}()

var schedThreads = []int{1, 2, 3, 7, 16, 31, 32, 33, 64, 96, 128, 160, 192, 256, 384, 512}

// schedHash folds one thread's chains into h as the C++ side of
// TestKernelSchedule does (FNV-1a over 64-bit words: the thread, its
// chains, then 0).
func schedHash(h uint64, t int, chains []int) uint64 {
	mix := func(v uint64) {
		h ^= v
		h *= 1099511628211
	}
	mix(uint64(t))
	for _, k := range chains {
		mix(uint64(k))
	}
	mix(0)
	return h
}

// TestKernelSchedule runs the kernel's mdgen_schedule, compiled as host
// C++, for every thread of many (degree, block size) pairs and compares it
// with its specification, gpuabi.ThreadChains and gpuabi.Schedule: the
// same chains for every thread, in the same order, and every thread's
// steps the schedule's L. (That every coefficient is computed once and no
// thread runs more than L multiply-adds is gpuabi's own test.)
func TestKernelSchedule(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kernels.cu"), kernelsCU(t, []int{1}, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	var ds, ts strings.Builder
	for _, d := range schedDegrees {
		fmt.Fprintf(&ds, "%d,", d)
	}
	for _, x := range schedThreads {
		fmt.Fprintf(&ts, "%d,", x)
	}
	src := `#include "kernels.cu"
#include <cstdio>
#include <cstdlib>
// No arguments: one line "d T comp steps hash" per case (comp 0: pairs,
// 1: complement, 2: complement, strict; steps -1 when the threads
// disagree). "d T comp": one line "t steps k..." per thread.
static unsigned long long mix(unsigned long long h, unsigned long long v) { return (h ^ v) * 1099511628211ull; }
int main(int argc, char** argv) {
  if (argc == 4) {
    const int d = atoi(argv[1]), T = atoi(argv[2]), comp = atoi(argv[3]);
    for (int t = 0; t < T; ++t) {
      mdgen_chains c = mdgen_schedule(d, T, t, comp != 0, comp == 2);
      printf("%d %d", t, c.steps);
      for (int k = c.next(); k != 0; k = c.next()) printf(" %d", k);
      printf("\n");
    }
    return 0;
  }
  const int ds[] = {` + ds.String() + `};
  const int ts[] = {` + ts.String() + `};
  for (int d : ds) for (int T : ts) for (int comp = 0; comp < 3; ++comp) {
    unsigned long long h = 14695981039346656037ull;
    int steps = -2;
    for (int t = 0; t < T; ++t) {
      mdgen_chains c = mdgen_schedule(d, T, t, comp != 0, comp == 2);
      if (steps == -2) steps = c.steps;
      if (c.steps != steps) steps = -1;
      h = mix(h, (unsigned long long)t);
      for (int k = c.next(); k != 0; k = c.next()) h = mix(h, (unsigned long long)k);
      h = mix(h, 0);
    }
    printf("%d %d %d %d %llu\n", d, T, comp, steps, h);
  }
  return 0;
}
`
	bin := compileHost(t, dir, src, "-O2")
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, lastLines(out, 5))
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	n, bad := 0, 0
	for sc.Scan() {
		var d, T, comp, steps int
		var h uint64
		if _, err := fmt.Sscan(sc.Text(), &d, &T, &comp, &steps, &h); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		n++
		complement, strict := comp >= 1, comp == 2
		want, _ := gpuabi.Schedule(d, T, complement, strict)
		wh := uint64(14695981039346656037)
		for th := 0; th < T; th++ {
			wh = schedHash(wh, th, gpuabi.ThreadChains(d, T, th, complement, strict))
		}
		if steps == want && h == wh {
			continue
		}
		if bad++; bad > 5 {
			continue
		}
		t.Errorf("d=%d T=%d mode=%d: the kernel's schedule differs from gpuabi's (steps %d, want %d): %s",
			d, T, comp, steps, want, firstScheduleDiff(t, bin, d, T, comp))
	}
	if want := len(schedDegrees) * len(schedThreads) * 3; n != want {
		t.Fatalf("%d results, want %d", n, want)
	}
}

// firstScheduleDiff names the first thread whose chains differ.
func firstScheduleDiff(t *testing.T, bin string, d, T, comp int) string {
	out, err := exec.Command(bin, strconv.Itoa(d), strconv.Itoa(T), strconv.Itoa(comp)).Output()
	if err != nil {
		return err.Error()
	}
	for th, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		want := gpuabi.ThreadChains(d, T, th, comp >= 1, comp == 2)
		if got := strings.Fields(line)[2:]; fmt.Sprint(got) != fmt.Sprint(want) {
			return fmt.Sprintf("thread %d: kernel %v, gpuabi %v", th, got, want)
		}
	}
	return "same chains"
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// emuSystem is a small system with powers, a constant, a linear term and
// monomials of up to 5 variables, so that the plan has every kind of job.
const emuSystem = `3 6
 x1*x2*x3*x4*x5 + 3/7*t*x1^2*x3 - (1 + 2*t)*x2*x4 + x5 - 1/3;
 (2 - t^2)*x1*x3*x5 + x2^3*x4 + x1 + 5;
 x1*x2 + x3*x4 + x5*x1*x2*x3 - t*x4^2*x5^2;
`

// TestKernelEmulation runs the kernels of KernelsCU, compiled as host C++,
// layer by layer on a plan, and compares every value and derivative with
// the CPU executor's, bit for bit: real and complex data, several
// precisions and degrees, the block size of gpuabi.LaunchShape and odd ones,
// and every staging: real a and b in shared memory or read from the data
// array; complex (Gauss) with 7, 4, 1 or 0 sets of shared memory (and odd
// amounts between), at degrees where gpuabi.LaunchShape gives each.
func TestKernelEmulation(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles kernels with g++")
	}
	ns := []int{1, 2, 3, 4, 5, 8, 10}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kernels.cu"), kernelsCU(t, ns, []bool{false, true}), 0o644); err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	for _, n := range ns {
		for _, c := range []string{"r", "c"} {
			fmt.Fprintf(&table, "  if (n == %d && c == '%s') { conv = mdgen_conv_%s%d; add = mdgen_add_%s%d; }\n", n, c, c, n, c, n)
		}
	}
	bin := compileHost(t, dir, emuMain(table.String()), "-O1")
	sys, err := poly.Parse("emu", []byte(emuSystem), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type cfg struct {
		n       int
		complex bool
		degree  int
		threads int // 0: LaunchShape's
		sets    int // shared memory in real series of n*(degree+1) doubles; -1: LaunchShape's
	}
	var cfgs []cfg
	for _, n := range ns {
		for _, d := range []int{0, 1, 6, 23} {
			cfgs = append(cfgs, cfg{n, false, d, 0, 2}, cfg{n, false, d, 0, 0})
			if n == 3 || n == 5 {
				continue // real only: the complex kernels are checked at 1, 2, 4, 8, 10
			}
			for _, sets := range []int{7, 4, 1, 0} {
				cfgs = append(cfgs, cfg{n, true, d, 0, sets})
			}
		}
	}
	cfgs = append(cfgs, cfg{3, false, 40, 7, 2}, cfg{3, false, 40, 33, 0}, cfg{5, true, 17, 1, 7},
		cfg{8, false, 31, 16, 0}, cfg{2, false, 63, 96, 2}, cfg{1, false, 100, 64, 0},
		cfg{3, true, 9, 160, 7}, cfg{4, true, 31, 0, 6}, cfg{8, true, 31, 0, 5}, cfg{2, true, 31, 0, 3},
		cfg{10, true, 13, 7, 1}, cfg{1, true, 40, 33, 0},
		// The split schedule (complex, n >= 5, 4 or more sets): groups
		// of unequal sizes, one thread per group, and no split below 3.
		cfg{8, true, 23, 4, 7}, cfg{5, true, 40, 7, 4}, cfg{10, true, 31, 64, 7}, cfg{8, true, 17, 2, 7},
		cfg{8, true, 40, 3, 4}, cfg{10, true, 9, 100, 7})
	// Degrees above the limits of 7 and 4 sets in 48 KiB, with
	// LaunchShape's staging (4 or 1 sets) and block.
	cfgs = append(cfgs, cfg{8, true, 95, 0, -1}, cfg{8, true, 160, 0, -1}, cfg{10, true, 100, 0, -1},
		cfg{10, true, 160, 0, -1}, cfg{4, true, 250, 0, -1}, cfg{2, true, 700, 0, -1}, cfg{1, true, 900, 0, -1})
	for _, c := range cfgs {
		name := fmt.Sprintf("n%d_complex%v_d%d_T%d_sets%d", c.n, c.complex, c.degree, c.threads, c.sets)
		t.Run(name, func(t *testing.T) {
			if c.degree > 100 && testing.Short() {
				t.Skip("high degree")
			}
			plan, err := stager.Stage(sys, c.degree)
			if err != nil {
				t.Fatal(err)
			}
			convT, shared := gpuabi.LaunchShape(gpuabi.Conv, c.n, c.complex, c.degree)
			addT, _ := gpuabi.LaunchShape(gpuabi.Add, c.n, c.complex, c.degree)
			if c.threads > 0 {
				convT, addT = c.threads, c.threads
			}
			if c.sets >= 0 {
				shared = c.sets * gpuabi.SetBytes(c.n, c.degree)
			} else {
				t.Logf("LaunchShape: %d threads, %d bytes (%d sets)", convT, shared, shared/gpuabi.SetBytes(c.n, c.degree))
			}
			got := emulate(t, bin, plan, c.n, c.complex, convT, addT, shared)
			compareCPU(t, plan, c.n, c.complex, got)
		})
	}
}

// compareCPU runs the CPU executor on plan with emulate's inputs and
// compares every value and derivative with got, bit for bit.
func compareCPU(t *testing.T, plan *stager.Plan, n int, complex bool, got *emuData) {
	t.Helper()
	cpu, err := cpu.New(plan, mdops.Prec{N: n, Complex: complex}, 1)
	if err != nil {
		t.Fatal(err)
	}
	in := backend.RandomInputs(plan.NumVars, backend.Layout{Prec: mdops.Prec{N: n, Complex: complex}, Degree: plan.Degree}, 7)
	for v := range in {
		cpu.SetInput(v, in[v])
	}
	if err := cpu.Run(); err != nil {
		t.Fatal(err)
	}
	check := func(what string, want, got []float64) {
		for i := range want {
			if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
				t.Fatalf("%s: double %d: CPU %v, kernels %v", what, i, want[i], got[i])
			}
		}
	}
	for p := 0; p < plan.NumPolys; p++ {
		check(fmt.Sprintf("value %d", p), cpu.Value(p), got.series(plan.Value[p]))
		for v := 0; v < plan.NumVars; v++ {
			check(fmt.Sprintf("d p%d/d x%d", p, v), cpu.Deriv(p, v), got.series(plan.DerivSlot(p, v)))
		}
	}
}

// TestReferenceKernelEmulation runs gpuabi.ReferenceKernelsCU as host
// C++ on plans, against the CPU executor, bit for bit.
func TestReferenceKernelEmulation(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles kernels with g++")
	}
	sys, err := poly.Parse("emu", []byte(emuSystem), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 8} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "kernels.cu"), gpuabi.ReferenceKernelsCU(n), 0o644); err != nil {
			t.Fatal(err)
		}
		table := fmt.Sprintf("  if (c == 'r') { conv = mdgen_conv_r%d; add = mdgen_add_r%d; }\n", n, n) +
			fmt.Sprintf("  if (c == 'c') { conv = mdgen_conv_c%d; add = mdgen_add_c%d; }\n", n, n)
		bin := compileHost(t, dir, emuMain(table), "-O1")
		for _, complex := range []bool{false, true} {
			for _, d := range []int{0, 5, 40} {
				t.Run(fmt.Sprintf("n%d_complex%v_d%d", n, complex, d), func(t *testing.T) {
					plan, err := stager.Stage(sys, d)
					if err != nil {
						t.Fatal(err)
					}
					convT, shared := gpuabi.ReferenceShape(gpuabi.Conv, n, complex, d)
					addT, _ := gpuabi.ReferenceShape(gpuabi.Add, n, complex, d)
					compareCPU(t, plan, n, complex, emulate(t, bin, plan, n, complex, convT, addT, shared))
				})
			}
		}
	}
}

func emuMain(table string) string {
	return `#include "kernels.cu"
#include <cstdio>
#include <cstdlib>
// stdin: n, complex, degree, slots, convT, addT, shared, then the conv and
// add layers (count, then (first, count) pairs), the tables (count, words)
// and the data array (count, doubles). stdout: the data array.
static long long rd(FILE* f) { long long v; if (fread(&v, 8, 1, f) != 1) exit(3); return v; }
int main() {
  FILE* in = stdin;
  const int n = (int)rd(in), cplx = (int)rd(in);
  const long long degree = rd(in), slots = rd(in), convT = rd(in), addT = rd(in), shared = rd(in);
  const char c = cplx ? 'c' : 'r';
  mdgen_emu_kernel conv = 0, add = 0;
` + table + `  if (!conv) return 2;
  std::vector<long long> layers[2];
  for (int k = 0; k < 2; ++k) { long long m = rd(in); layers[k].resize(2 * m); for (auto& x : layers[k]) x = rd(in); }
  std::vector<int> tables[2];
  for (int k = 0; k < 2; ++k) { long long m = rd(in); tables[k].resize(m + 1); for (long long i = 0; i < m; ++i) tables[k][i] = (int)rd(in); }
  long long nd = rd(in);
  std::vector<double> data(nd);
  if (fread(data.data(), 8, nd, in) != (size_t)nd) return 3;
  const long long stride = slots * (degree + 1);
  for (int k = 0; k < 2; ++k)
    for (size_t l = 0; l < layers[k].size(); l += 2)
      mdgen_emu_launch(k == 0 ? conv : add, (unsigned)layers[k][l + 1], (unsigned)(k == 0 ? convT : addT),
                       k == 0 ? (unsigned)shared : 0u, data.data(), stride, degree, tables[k].data(),
                       layers[k][l], layers[k][l + 1]);
  fwrite(data.data(), 8, nd, stdout);
  return 0;
}
`
}

// emuData is the data array of the GPU contract (gpuabi) after a run.
type emuData struct {
	data            []float64
	n, w, d1        int
	stride          int
	complex         bool
	zero            []float64
	plan            *stager.Plan
	layout          backend.Layout
	cpuSlot, gpuIdx func(s, k, r int) int
}

// series returns slot s in the CPU layout (zeros for NoSlot).
func (e *emuData) series(s stager.Slot) []float64 {
	out := make([]float64, e.d1*e.w)
	if s == stager.NoSlot {
		return out
	}
	for k := 0; k < e.d1; k++ {
		for r := 0; r < e.w; r++ {
			out[k*e.w+r] = e.data[r*e.stride+int(s)*e.d1+k]
		}
	}
	return out
}

// emulate fills the data array as the GPU executor would (read-only slots
// rounded like the CPU executor's, the same random inputs), runs the
// emulation binary and returns the data array.
func emulate(t *testing.T, bin string, plan *stager.Plan, n int, complex bool, convT, addT, shared int) *emuData {
	t.Helper()
	l := backend.Layout{Prec: mdops.Prec{N: n, Complex: complex}, Degree: plan.Degree}
	e := &emuData{n: n, w: l.W(), d1: plan.Degree + 1, complex: complex, plan: plan, layout: l}
	e.stride = plan.NumSlots() * e.d1
	e.data = make([]float64, e.w*e.stride)
	put := func(s stager.Slot, series []float64) {
		for k := 0; k < e.d1; k++ {
			for r := 0; r < e.w; r++ {
				e.data[r*e.stride+int(s)*e.d1+k] = series[k*e.w+r]
			}
		}
	}
	buf := make([]float64, l.SlotLen())
	for s, v := range plan.Values {
		if err := backend.RoundSeries(buf, v, l); err != nil {
			t.Fatal(err)
		}
		put(s, buf)
	}
	in := backend.RandomInputs(plan.NumVars, l, 7)
	for v, s := range plan.Inputs {
		put(s, in[v])
	}
	var b bytes.Buffer
	w64 := func(v int64) { binary.Write(&b, binary.LittleEndian, v) }
	cplx := 0
	if complex {
		cplx = 1
	}
	for _, v := range []int{n, cplx, plan.Degree, plan.NumSlots(), convT, addT, shared} {
		w64(int64(v))
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
	w64(int64(len(e.data)))
	binary.Write(&b, binary.LittleEndian, e.data)
	readDoubles(t, runEmulation(t, bin, &b), e.data)
	return e
}

// kernelsCU is KernelsCU for precisions the generator makes.
func kernelsCU(t *testing.T, ns []int, complex []bool) []byte {
	t.Helper()
	src, err := KernelsCU(ns, complex)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestKernelsCUPrecision: a precision the generator cannot make is an
// error (alg.CheckN), not a panic.
func TestKernelsCUPrecision(t *testing.T) {
	for _, n := range []int{0, -1, 17} {
		if _, err := KernelsCU([]int{n}, nil); err == nil {
			t.Errorf("KernelsCU(%d) gave no error", n)
		}
	}
}

// runEmulation runs the host emulation bin with in on its standard input
// and returns its output (the test fails with its standard error when it
// fails).
func runEmulation(t testing.TB, bin string, in io.Reader) []byte {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Stdin = in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("emulation: %v\n%s", err, stderr.String())
	}
	return out
}

// readDoubles reads the emulation's output out into data, which it must
// fill exactly.
func readDoubles(t testing.TB, out []byte, data []float64) {
	t.Helper()
	if len(out) != 8*len(data) {
		t.Fatalf("emulation returned %d bytes, want %d", len(out), 8*len(data))
	}
	if err := binary.Read(bytes.NewReader(out), binary.LittleEndian, data); err != nil {
		t.Fatal(err)
	}
}
