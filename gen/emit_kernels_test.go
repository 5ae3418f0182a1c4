package gen

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	mdrt "github.com/mdgen/mdgen/runtime"
	"github.com/mdgen/mdgen/stager"
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
	cxx, err := exec.LookPath("g++")
	if err != nil {
		if os.Getenv("MDGEN_REQUIRE_CXX") == "1" {
			t.Fatalf("g++ not found (%v) and MDGEN_REQUIRE_CXX=1", err)
		}
		t.Skipf("g++ not found (%v): skipping the host compilation of the kernels", err)
	}
	return cxx
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
	src := KernelsCU(DefaultNs, []bool{false, true})
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

// schedModel is runtime.gpuConvSchedule (unexported there), kept here to
// check the kernel's mdgen_schedule and GPULaunchShape's choice.
func schedModel(d, t int, complement, strict bool) int {
	if d <= 0 {
		return 0
	}
	units := d/2 + 1
	q := (units + t - 1) / t
	lm := q * d
	if complement && q >= 2 {
		m := d * (d + 1) / 2
		l := max(d, (m+t-1)/t)
		for it := 0; it < 64 && l < lm && l < 2*d && (!strict || 4*l <= 3*lm); it, l = it+1, l+1 {
			if compBinsModel(d, l) <= t {
				return l
			}
		}
	}
	return lm
}

func compBinsModel(d, l int) int {
	h := l / 2
	nb, load := 0, 0
	if l%2 == 0 {
		nb, load = 1, h
	}
	for x := l - d - 1; x >= 1; x-- {
		if nb == 0 || load+x > l {
			nb++
			load = x
		} else {
			load += x
		}
	}
	return d - h + nb
}

var schedDegrees = func() []int {
	var ds []int
	for d := 0; d <= 260; d++ {
		ds = append(ds, d)
	}
	return append(ds, 300, 383, 384, 437, 511, 512, 700, 1023, 1024, 2047)
}()

var schedThreads = []int{1, 2, 3, 7, 16, 31, 32, 33, 64, 96, 128, 160, 192, 256, 384, 512}

// TestKernelSchedule runs the kernel's mdgen_schedule for every thread of
// many (degree, block size) pairs: every coefficient 1..d must be computed
// by exactly one thread, and no thread may run more multiply-adds than the
// schedule's L, which must be the Go model's and every thread's steps.
func TestKernelSchedule(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kernels.cu"), KernelsCU([]int{1}, nil), 0o644); err != nil {
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
int main() {
  const int ds[] = {` + ds.String() + `};
  const int ts[] = {` + ts.String() + `};
  std::vector<int> seen;
  for (int d : ds) for (int T : ts) for (int comp = 0; comp < 3; ++comp) {  // 2: complement, strict
    seen.assign(d + 1, 0);
    int L = 0, steps = -1;
    for (int t = 0; t < T; ++t) {
      mdgen_chains c = mdgen_schedule(d, T, t, comp != 0, comp == 2);
      if (steps < 0) steps = c.steps;
      if (c.steps != steps) { printf("steps %d %d %d %d: %d, thread 0 %d\n", d, T, comp, t, c.steps, steps); return 1; }
      int load = 0;
      for (int k = c.next(); k != 0; k = c.next()) {
        if (k < 1 || k > d) { printf("bad %d %d %d %d %d\n", d, T, comp, t, k); return 1; }
        seen[k]++;
        load += k;
      }
      if (load > L) L = load;
    }
    for (int k = 1; k <= d; ++k) if (seen[k] != 1) { printf("cover %d %d %d %d %d\n", d, T, comp, k, seen[k]); return 1; }
    printf("%d %d %d %d %d\n", d, T, comp, L, steps);
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
	n := 0
	for sc.Scan() {
		var d, T, comp, L, steps int
		if _, err := fmt.Sscan(sc.Text(), &d, &T, &comp, &L, &steps); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		// The largest load is at most the schedule's capacity L, which
		// every thread gets as its steps (the trip count of the chain loop).
		want := schedModel(d, T, comp >= 1, comp == 2)
		if L > want {
			t.Errorf("d=%d T=%d complement=%d: largest load %d, model L %d", d, T, comp, L, want)
		}
		if steps != want {
			t.Errorf("d=%d T=%d complement=%d: steps %d, model L %d", d, T, comp, steps, want)
		}
		n++
	}
	if want := len(schedDegrees) * len(schedThreads) * 3; n != want {
		t.Fatalf("%d results, want %d", n, want)
	}
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestLaunchShapeWithinBounds checks runtime.GPULaunchShape against the
// kernels' __launch_bounds__ and against the schedule model: its block is
// the one with the fewest warp-steps (the split schedule's, from an
// occupancy model, only in its range).
func TestLaunchShapeWithinBounds(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 8, 10, 16} {
		for _, c := range []bool{false, true} {
			for d := 0; d <= 1100; d++ {
				th, sh := mdrt.GPULaunchShape("conv", n, c, d)
				bound := mdrt.GPUConvMaxThreads(n, c)
				if th < 32 || th > bound || th%32 != 0 {
					t.Fatalf("conv n=%d complex=%v d=%d: %d threads, bound %d", n, c, d, th, bound)
				}
				// Staging: 2 real series (a, b) real, else 7, 4 or 1 (Gauss), the most that fits.
				set := 8 * n * (d + 1)
				want, wantSets := 0, 0
				for _, sets := range map[bool][]int{false: {2}, true: {7, 4, 1}}[c] {
					if sets*set <= mdrt.GPUStageLimit {
						want, wantSets = sets*set, sets
						break
					}
				}
				if sh != want {
					t.Fatalf("conv n=%d complex=%v d=%d: %d bytes of shared memory, want %d", n, c, d, sh, want)
				}
				// The kernel splits the three chains of a complex coefficient
				// over three threads at n >= 5 when the derived series are
				// staged; without the split such a block holds at most 128.
				split := c && n >= 5 && wantSets >= 4
				if got := mdrt.GPUConvSplit(n, c, d); got != split {
					t.Fatalf("conv n=%d complex=%v d=%d: split %v, want %v", n, c, d, got, split)
				}
				if split {
					// The split block comes from an occupancy model of the
					// H200 (runtime.gpuConvSplitBlock); here only its range:
					// at least 4 warps unless fewer give every pair three
					// threads.
					if lo := min(128, (3*(d/2+1)+31)/32*32); th < lo {
						t.Fatalf("conv n=%d complex=%v d=%d: split block of %d threads, want >= %d", n, c, d, th, lo)
					}
				} else {
					checkFewestWarpSteps(t, n, c, d, th)
				}
				th, sh = mdrt.GPULaunchShape("add", n, c, d)
				if th < 32 || th > addMaxThreads || sh != 0 {
					t.Fatalf("add n=%d d=%d: shape (%d, %d)", n, d, th, sh)
				}
			}
		}
	}
}

// checkFewestWarpSteps checks that th, GPULaunchShape's convolution block
// (without the split), has the fewest warp-steps in the schedule model.
func checkFewestWarpSteps(t *testing.T, n int, c bool, d, th int) {
	t.Helper()
	w := n
	if c {
		w = 2 * n
	}
	limit := mdrt.GPUConvMaxThreads(n, c)
	if c && n >= 5 {
		limit = 128 // three accumulators per thread
	}
	best := int64(-1)
	first := 32 // one pair per thread when the bound allows (GPULaunchShape)
	if u := (d/2 + 1 + 31) / 32 * 32; u <= limit && mdrt.GPUConvPairsOnly(n, c) {
		first = u
	}
	for T := first; T <= limit; T += 32 {
		cost := int64(T/32) * int64(schedModel(d, T, convComplement(w), false)+(d+T)/T)
		if best < 0 || cost < best {
			best = cost
		}
	}
	got := int64(th/32) * int64(schedModel(d, th, convComplement(w), false)+(d+th)/th)
	if got != best {
		t.Fatalf("conv n=%d complex=%v d=%d: %d threads cost %d warp-steps, the best from %d threads up %d", n, c, d, th, got, first, best)
	}
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
// precisions and degrees, the block size of GPULaunchShape and odd ones,
// and every staging: real a and b in shared memory or read from the data
// array; complex (Gauss) with 7, 4, 1 or 0 sets of shared memory (and odd
// amounts between), at degrees where GPULaunchShape gives each.
func TestKernelEmulation(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles kernels with g++")
	}
	ns := []int{1, 2, 3, 4, 5, 8, 10}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kernels.cu"), KernelsCU(ns, []bool{false, true}), 0o644); err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	for _, n := range ns {
		for _, c := range []string{"r", "c"} {
			fmt.Fprintf(&table, "  if (n == %d && c == '%s') { conv = mdgen_conv_%s%d; add = mdgen_add_%s%d; }\n", n, c, c, n, c, n)
		}
	}
	bin := compileHost(t, dir, emuMain(table.String()), "-O1")
	sys, err := stager.Parse("emu", []byte(emuSystem), stager.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type cfg struct {
		n       int
		complex bool
		degree  int
		threads int // 0: GPULaunchShape's
		sets    int // shared memory in real series of n*(degree+1) doubles; -1: GPULaunchShape's
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
	// GPULaunchShape's staging (4 or 1 sets) and block.
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
			convT, shared := mdrt.GPULaunchShape("conv", c.n, c.complex, c.degree)
			addT, _ := mdrt.GPULaunchShape("add", c.n, c.complex, c.degree)
			if c.threads > 0 {
				convT, addT = c.threads, c.threads
			}
			if c.sets >= 0 {
				shared = c.sets * mdrt.GPUSetBytes(c.n, c.degree)
			} else {
				t.Logf("GPULaunchShape: %d threads, %d bytes (%d sets)", convT, shared, shared/mdrt.GPUSetBytes(c.n, c.degree))
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
	cpu, err := mdrt.NewCPU(plan, n, complex, 1)
	if err != nil {
		t.Fatal(err)
	}
	in := mdrt.RandomInputs(plan.NumVars, mdrt.Layout{N: n, Degree: plan.Degree, Complex: complex}, 7)
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
			check(fmt.Sprintf("d p%d/d x%d", p, v), cpu.Deriv(p, v), got.series(plan.Deriv[p][v]))
		}
	}
}

// TestReferenceKernelEmulation runs runtime.GPUReferenceKernelsCU as host
// C++ on plans, against the CPU executor, bit for bit.
func TestReferenceKernelEmulation(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles kernels with g++")
	}
	sys, err := stager.Parse("emu", []byte(emuSystem), stager.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{2, 8} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "kernels.cu"), mdrt.GPUReferenceKernelsCU(n), 0o644); err != nil {
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
					convT, shared := mdrt.GPUReferenceShape("conv", n, complex, d)
					addT, _ := mdrt.GPUReferenceShape("add", n, complex, d)
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

// emuData is the data array of gpulayout.go after a run.
type emuData struct {
	data            []float64
	n, w, d1        int
	stride          int
	complex         bool
	zero            []float64
	plan            *stager.Plan
	layout          mdrt.Layout
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
	l := mdrt.Layout{N: n, Degree: plan.Degree, Complex: complex}
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
		if err := mdrt.RoundSeries(buf, v, l); err != nil {
			t.Fatal(err)
		}
		put(s, buf)
	}
	in := mdrt.RandomInputs(plan.NumVars, l, 7)
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
	conv, add, convLayers, addLayers := mdrt.GPUJobTables(plan)
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
	cmd := exec.Command(bin)
	cmd.Stdin = &b
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("emulation: %v\n%s", err, stderr.String())
	}
	if len(out) != 8*len(e.data) {
		t.Fatalf("emulation returned %d bytes, want %d", len(out), 8*len(e.data))
	}
	if err := binary.Read(bytes.NewReader(out), binary.LittleEndian, e.data); err != nil {
		t.Fatal(err)
	}
	return e
}

var _ = strconv.Itoa
