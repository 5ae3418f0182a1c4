package gen

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
)

// The linear-algebra kernels (LAKernelsCU) compiled as host C++ and run by
// an emulation of the launches (laHostShim: every CUDA thread a fiber of
// one OS thread, __syncthreads a switch, the threads of a block resumed in
// a fresh random order after every barrier, so that a missing barrier
// shows as a wrong result), against mdops/la, bit for bit: the QR factors
// A and Tau, Q^H b, the back substitution, the Toeplitz updates of Newton's
// method, the residuals and their 1-norms, for real and complex data,
// several precisions, sizes around multiples of 16, matrices scaled by
// 2^±1000, with zero columns or already triangular, and several block
// sizes. The launch sequences are gpuabi's (LAQR, LAApplyQH, ...), the
// ones a device driver runs.

// laHostShim makes the kernels compile as host C++ and runs launches.
const laHostShim = `// la_host_shim.h: runs CUDA kernels on the host (gen's tests): each thread of
// a block is a fiber (ucontext) of the one OS thread; __syncthreads switches
// back to the scheduler, which resumes every thread of the block, in a new
// random order, once all of them wait at the barrier; a block whose threads
// disagree (some at a barrier, some finished) is an error.
#pragma once

#define MDGEN_HOST_EMULATION 1

#include <ucontext.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __shared__
#define __forceinline__ inline
#define __launch_bounds__(...)

struct la_emu_dim3 {
  unsigned x, y, z;
};
inline la_emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

struct la_emu_fiber {
  ucontext_t ctx;
  std::vector<char> stack;
  bool done, waiting;
};
inline std::vector<la_emu_fiber> la_emu_fibers;
inline ucontext_t la_emu_main;
inline la_emu_fiber* la_emu_cur;
inline void (*la_emu_call)(const uint64_t*);
inline const uint64_t* la_emu_args;
inline uint64_t la_emu_rng = 0x9E3779B97F4A7C15ull;
inline long long la_emu_barriers, la_emu_blocks;

inline void __syncthreads() {
  la_emu_cur->waiting = true;
  swapcontext(&la_emu_cur->ctx, &la_emu_main);
}

inline void la_emu_entry() {
  la_emu_call(la_emu_args);
  la_emu_cur->done = true;
}

inline unsigned la_emu_rand(unsigned n) {
  la_emu_rng ^= la_emu_rng << 13;
  la_emu_rng ^= la_emu_rng >> 7;
  la_emu_rng ^= la_emu_rng << 17;
  return (unsigned)(la_emu_rng % n);
}

// la_emu_launch runs grid blocks of block threads, one block at a time.
inline void la_emu_launch(void (*call)(const uint64_t*), const uint64_t* args, unsigned grid, unsigned block) {
  if (la_emu_fibers.size() < block) la_emu_fibers.resize(block);
  for (auto& f : la_emu_fibers)
    if (f.stack.empty()) f.stack.resize(1 << 20);
  blockDim = {block, 1, 1};
  gridDim = {grid, 1, 1};
  la_emu_call = call;
  la_emu_args = args;
  std::vector<unsigned> order(block);
  for (unsigned b = 0; b < grid; ++b) {
    blockIdx = {b, 0, 0};
    ++la_emu_blocks;
    for (unsigned t = 0; t < block; ++t) {
      la_emu_fiber& f = la_emu_fibers[t];
      getcontext(&f.ctx);
      f.ctx.uc_stack.ss_sp = f.stack.data();
      f.ctx.uc_stack.ss_size = f.stack.size();
      f.ctx.uc_link = &la_emu_main;
      makecontext(&f.ctx, la_emu_entry, 0);
      f.done = false;
    }
    for (;;) {
      for (unsigned t = 0; t < block; ++t) order[t] = t;
      for (unsigned t = block; t > 1; --t) std::swap(order[t - 1], order[la_emu_rand(t)]);
      unsigned done = 0, waiting = 0;
      for (unsigned t : order) {
        la_emu_fiber& f = la_emu_fibers[t];
        f.waiting = false;
        threadIdx = {t, 0, 0};
        la_emu_cur = &f;
        swapcontext(&la_emu_main, &f.ctx);
        if (f.done) ++done; else ++waiting;
      }
      if (waiting == 0) break;
      if (done != 0) {
        fprintf(stderr, "block %u of %u: %u threads wait at a barrier, %u have finished\n", b, grid, waiting, done);
        exit(4);
      }
      ++la_emu_barriers;
    }
  }
}
`

// laDeviceStub declares what the device branch of the kernels uses, for a
// syntax check by g++.
const laDeviceStub = `#pragma once
#define __CUDA_ARCH__ 900
#define __global__
#define __device__
#define __host__
#define __shared__
#define __forceinline__ inline
#define __launch_bounds__(...)
struct la_stub_dim3 { unsigned x, y, z; };
extern la_stub_dim3 threadIdx, blockIdx, blockDim;
double __shfl_down_sync(unsigned mask, double v, unsigned delta, int width);
double __shfl_sync(unsigned mask, double v, int src, int width);
void __syncwarp(unsigned mask);
void __syncthreads();
double __dadd_rn(double, double);
double __dsub_rn(double, double);
double __dmul_rn(double, double);
double __fma_rn(double, double, double);
double __ddiv_rn(double, double);
double __dsqrt_rn(double);
`

// laEmuMain returns the interpreter of launch scripts: stdin is a stream
// of int64 commands (1 id count doubles...: a buffer; 2 kernel grid block
// nargs (0 buf off | 1 value)...: a launch; 0: the end); at the end it
// writes every buffer (count, doubles) to stdout.
func laEmuMain(kernels []string) string {
	var calls strings.Builder
	for _, name := range kernels {
		op := gpuabi.LAOp(strings.Split(strings.TrimPrefix(name, "mdgen_la_"), "_")[0])
		var args []string
		for i, p := range gpuabi.LAParams[op] {
			if p.Pointer() {
				args = append(args, fmt.Sprintf("(%s)(uintptr_t)a[%d]", p.Type, i))
			} else {
				args = append(args, fmt.Sprintf("(%s)a[%d]", p.Type, i))
			}
		}
		fmt.Fprintf(&calls, "    [](const uint64_t* a) { %s(%s); },\n", name, strings.Join(args, ", "))
	}
	return `#include "la.cu"
#include <cstdio>
#include <cstdlib>
#include <vector>

typedef void (*la_call)(const uint64_t*);
static const la_call la_calls[] = {
` + calls.String() + `};

static long long rd() {
  long long v;
  if (fread(&v, 8, 1, stdin) != 1) exit(3);
  return v;
}

int main() {
  std::vector<std::vector<double>> bufs;
  for (;;) {
    const long long op = rd();
    if (op == 0) break;
    if (op == 1) {
      const long long id = rd(), n = rd();
      if ((long long)bufs.size() <= id) bufs.resize(id + 1);
      bufs[id].resize(n);
      if (n > 0 && fread(bufs[id].data(), 8, n, stdin) != (size_t)n) return 3;
    } else if (op == 2) {
      const long long k = rd(), grid = rd(), block = rd(), nargs = rd();
      std::vector<uint64_t> args;
      for (long long i = 0; i < nargs; ++i) {
        if (rd() == 0) {
          const long long b = rd(), off = rd();
          args.push_back((uint64_t)(uintptr_t)(bufs[b].data() + off));
        } else {
          args.push_back((uint64_t)rd());
        }
      }
      la_emu_launch(la_calls[k], args.data(), (unsigned)grid, (unsigned)block);
    } else {
      return 5;
    }
  }
  for (auto& b : bufs) {
    const long long n = (long long)b.size();
    fwrite(&n, 8, 1, stdout);
    fwrite(b.data(), 8, n, stdout);
  }
  fprintf(stderr, "%lld blocks, %lld barriers\n", la_emu_blocks, la_emu_barriers);
  return 0;
}
`
}

// laCompile compiles the kernels of ns (real and complex) with the
// interpreter and returns the binary and the kernel indices.
func laCompile(t *testing.T, ns []int) (string, map[string]int) {
	t.Helper()
	return laCompileOps(t, ns, LAKernelsCU, gpuabi.LAOps)
}

// laCompileOps compiles the kernels of ops that source gives for ns (real
// and complex) with the interpreter.
func laCompileOps(t *testing.T, ns []int, source func([]int, []bool) ([]byte, error), ops []gpuabi.LAOp) (string, map[string]int) {
	t.Helper()
	cxx := needCXX(t)
	src, err := source(ns, []bool{false, true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range ns {
		for _, c := range []bool{false, true} {
			for _, op := range ops {
				names = append(names, gpuabi.LAKernelName(op, mdops.Prec{N: n, Complex: c}))
			}
		}
	}
	index := map[string]int{}
	for i, s := range names {
		index[s] = i
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"la.cu": string(src), "la_host_shim.h": laHostShim, "main.cpp": laEmuMain(names)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "main")
	// MD_HD: the arithmetic as functions of their own (compiled once,
	// not inlined into every kernel): the same bits, a quicker build.
	args := []string{"-std=c++20", "-O1", "-ffp-contract=off", "-DMD_HD=static __attribute__((noinline))",
		"-include", filepath.Join(dir, "la_host_shim.h"), "-I", dir, "-o", bin, filepath.Join(dir, "main.cpp")}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(ctx, cxx, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, lastLines(out, 30))
	}
	t.Logf("g++: %d kernels of %v doubles in %.1f s", len(names), ns, time.Since(start).Seconds())
	return bin, index
}

// The lanes of the kernels' reductions are mdops/la's.
func TestLALanes(t *testing.T) {
	if la.Lanes != gpuabi.LALanes {
		t.Fatalf("la.Lanes = %d, gpuabi.LALanes = %d", la.Lanes, gpuabi.LALanes)
	}
}

// TestLAKernelsCUSyntax compiles the linear-algebra kernels of every
// default precision, real and complex, as host C++, with warnings as errors.
func TestLAKernelsCUSyntax(t *testing.T) {
	cxx := needCXX(t)
	src, err := LAKernelsCU(DefaultNs, []bool{false, true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "la.cu")
	shim := filepath.Join(dir, "la_host_shim.h")
	if err := os.WriteFile(f, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shim, []byte(laHostShim), 0o644); err != nil {
		t.Fatal(err)
	}
	// The device branch (__CUDA_ARCH__) too, with declarations in place
	// of CUDA's intrinsics: no nvcc here, but its code must at least be C++.
	dev := filepath.Join(dir, "device_stub.h")
	if err := os.WriteFile(dev, []byte(laDeviceStub), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sh := range []string{shim, "testdata/cuda_host_shim.h", dev} {
		out, err := exec.Command(cxx, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Wno-unused-function",
			"-Wno-unknown-pragmas", "-include", sh, "-x", "c++", f).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Fatalf("g++ with %s: %v\n%s", sh, err, lastLines(out, 30))
		}
	}
	for _, v := range []gpuabi.LAVariant{{Prec: mdops.Prec{N: 2}}, {Prec: mdops.Prec{N: 16, Complex: true}}} {
		for _, op := range gpuabi.LAOps {
			name := gpuabi.LAKernelName(op, v.Prec)
			if !bytes.Contains(src, []byte(name+"("+gpuabi.LASignature(op)+")")) {
				t.Errorf("%s(%s) is not in the source", name, gpuabi.LASignature(op))
			}
		}
	}
	if _, err := LAKernelsCU([]int{17}, nil); err == nil {
		t.Error("LAKernelsCU(17) gave no error")
	}
}

// laEmu is one run of the interpreter: buffers and launches.
type laEmu struct {
	index  map[string]int
	script bytes.Buffer
	bufs   [][]float64
}

// laGuard doubles before and after every buffer must survive the run.
const laGuard = 64

var laGuardBits = math.Float64bits(math.NaN()) | 0x5a5a

// buffer adds a copy of x and returns a pointer to its first double.
func (e *laEmu) buffer(x []float64) gpuabi.LAPtr {
	b := make([]float64, len(x)+2*laGuard)
	for i := range b {
		b[i] = math.Float64frombits(laGuardBits)
	}
	copy(b[laGuard:], x)
	e.bufs = append(e.bufs, b)
	return gpuabi.LAPtr{Buf: len(e.bufs) - 1, Off: laGuard}
}

func (e *laEmu) w(v int64) { binary.Write(&e.script, binary.LittleEndian, v) }

func (e *laEmu) launch(t *testing.T, ls []gpuabi.LALaunch) {
	t.Helper()
	for _, l := range ls {
		k, ok := e.index[l.Kernel]
		if !ok {
			t.Fatalf("no kernel %s", l.Kernel)
		}
		if l.Block%gpuabi.LALanes != 0 || l.Block > gpuabi.LAMaxThreads || l.Grid < 1 ||
			(l.Op == gpuabi.LAQRStep || l.Op == gpuabi.LAQH) && l.Block%32 != 0 {
			t.Fatalf("%s: launch shape %d x %d", l.Kernel, l.Grid, l.Block)
		}
		e.launchArgs(t, l.Kernel, k, l.Grid, l.Block, l.Args)
	}
}

// launchArgs writes the launch of kernel index k (named name) on grid
// blocks of block threads with args (LAPtr pointers, int64 values) into
// the script.
func (e *laEmu) launchArgs(t *testing.T, name string, k, grid, block int, args []any) {
	t.Helper()
	for _, v := range []int64{2, int64(k), int64(grid), int64(block), int64(len(args))} {
		e.w(v)
	}
	for _, a := range args {
		switch a := a.(type) {
		case gpuabi.LAPtr:
			e.w(0)
			e.w(int64(a.Buf))
			e.w(a.Off)
		case int64:
			e.w(1)
			e.w(a)
		default:
			t.Fatalf("%s: argument of type %T", name, a)
		}
	}
}

// run runs the script and returns the buffers (without their guards).
func (e *laEmu) run(t *testing.T, bin string) [][]float64 {
	t.Helper()
	var in bytes.Buffer
	for id, b := range e.bufs {
		for _, v := range []int64{1, int64(id), int64(len(b))} {
			binary.Write(&in, binary.LittleEndian, v)
		}
		binary.Write(&in, binary.LittleEndian, b)
	}
	in.Write(e.script.Bytes())
	binary.Write(&in, binary.LittleEndian, int64(0))
	r := bytes.NewReader(runEmulation(t, bin, &in))
	res := make([][]float64, len(e.bufs))
	for id := range e.bufs {
		var n int64
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil || n != int64(len(e.bufs[id])) {
			t.Fatalf("buffer %d: %d doubles back (%v), want %d", id, n, err, len(e.bufs[id]))
		}
		b := make([]float64, n)
		if err := binary.Read(r, binary.LittleEndian, b); err != nil {
			t.Fatal(err)
		}
		for i := range laGuard {
			if math.Float64bits(b[i]) != laGuardBits || math.Float64bits(b[len(b)-1-i]) != laGuardBits {
				t.Fatalf("buffer %d: a kernel wrote outside it", id)
			}
		}
		res[id] = b[laGuard : len(b)-laGuard]
	}
	return res
}

// laTyped are the typed routines of one variant the flat API lacks: the
// factors A, Tau of NewQR and the full N-double 1-norm.
type laTyped struct {
	qr    func(m, n int, a []float64, lda int) (A, tau []float64, err error)
	norm1 func(x []float64) []float64
}

func mkLATyped[E, R, Q any](newQR func(int, int, []E, int, int) (*Q, error), parts func(*Q) ([]E, []E), norm1 func([]E) R) laTyped {
	var e E
	w := int(unsafe.Sizeof(e) / 8)
	as := func(x []float64) []E {
		if len(x) == 0 {
			return nil
		}
		return unsafe.Slice((*E)(unsafe.Pointer(&x[0])), len(x)/w)
	}
	flat := func(x []E) []float64 {
		if len(x) == 0 {
			return nil
		}
		return slices.Clone(unsafe.Slice((*float64)(unsafe.Pointer(&x[0])), len(x)*w))
	}
	return laTyped{
		qr: func(m, n int, a []float64, lda int) ([]float64, []float64, error) {
			q, err := newQR(m, n, as(a), lda, 1)
			A, tau := parts(q)
			return flat(A), flat(tau), err
		},
		norm1: func(x []float64) []float64 {
			r := norm1(as(x))
			return slices.Clone(unsafe.Slice((*float64)(unsafe.Pointer(&r)), unsafe.Sizeof(r)/8))
		},
	}
}

var laTypedFns = map[gpuabi.LAVariant]laTyped{
	{Prec: mdops.Prec{N: 1}}:                 mkLATyped(la.NewQRF1, func(q *la.QRF1) ([]mdops.F1, []mdops.F1) { return q.A, q.Tau }, la.Norm1F1),
	{Prec: mdops.Prec{N: 1, Complex: true}}:  mkLATyped(la.NewQRC1, func(q *la.QRC1) ([]mdops.C1, []mdops.C1) { return q.A, q.Tau }, la.Norm1C1),
	{Prec: mdops.Prec{N: 2}}:                 mkLATyped(la.NewQRF2, func(q *la.QRF2) ([]mdops.F2, []mdops.F2) { return q.A, q.Tau }, la.Norm1F2),
	{Prec: mdops.Prec{N: 2, Complex: true}}:  mkLATyped(la.NewQRC2, func(q *la.QRC2) ([]mdops.C2, []mdops.C2) { return q.A, q.Tau }, la.Norm1C2),
	{Prec: mdops.Prec{N: 3}}:                 mkLATyped(la.NewQRF3, func(q *la.QRF3) ([]mdops.F3, []mdops.F3) { return q.A, q.Tau }, la.Norm1F3),
	{Prec: mdops.Prec{N: 3, Complex: true}}:  mkLATyped(la.NewQRC3, func(q *la.QRC3) ([]mdops.C3, []mdops.C3) { return q.A, q.Tau }, la.Norm1C3),
	{Prec: mdops.Prec{N: 4}}:                 mkLATyped(la.NewQRF4, func(q *la.QRF4) ([]mdops.F4, []mdops.F4) { return q.A, q.Tau }, la.Norm1F4),
	{Prec: mdops.Prec{N: 4, Complex: true}}:  mkLATyped(la.NewQRC4, func(q *la.QRC4) ([]mdops.C4, []mdops.C4) { return q.A, q.Tau }, la.Norm1C4),
	{Prec: mdops.Prec{N: 5}}:                 mkLATyped(la.NewQRF5, func(q *la.QRF5) ([]mdops.F5, []mdops.F5) { return q.A, q.Tau }, la.Norm1F5),
	{Prec: mdops.Prec{N: 5, Complex: true}}:  mkLATyped(la.NewQRC5, func(q *la.QRC5) ([]mdops.C5, []mdops.C5) { return q.A, q.Tau }, la.Norm1C5),
	{Prec: mdops.Prec{N: 8}}:                 mkLATyped(la.NewQRF8, func(q *la.QRF8) ([]mdops.F8, []mdops.F8) { return q.A, q.Tau }, la.Norm1F8),
	{Prec: mdops.Prec{N: 8, Complex: true}}:  mkLATyped(la.NewQRC8, func(q *la.QRC8) ([]mdops.C8, []mdops.C8) { return q.A, q.Tau }, la.Norm1C8),
	{Prec: mdops.Prec{N: 10}}:                mkLATyped(la.NewQRF10, func(q *la.QRF10) ([]mdops.F10, []mdops.F10) { return q.A, q.Tau }, la.Norm1F10),
	{Prec: mdops.Prec{N: 10, Complex: true}}: mkLATyped(la.NewQRC10, func(q *la.QRC10) ([]mdops.C10, []mdops.C10) { return q.A, q.Tau }, la.Norm1C10),
	{Prec: mdops.Prec{N: 16}}:                mkLATyped(la.NewQRF16, func(q *la.QRF16) ([]mdops.F16, []mdops.F16) { return q.A, q.Tau }, la.Norm1F16),
	{Prec: mdops.Prec{N: 16, Complex: true}}: mkLATyped(la.NewQRC16, func(q *la.QRC16) ([]mdops.C16, []mdops.C16) { return q.A, q.Tau }, la.Norm1C16),
}

// laRandom returns k random elements of w doubles, each part a normalized
// multiple-double number (limb i+1 below half an ulp of limb i) times 2^scale.
func laRandom(r *rand.Rand, k, w, n, scale int) []float64 {
	x := make([]float64, k*w)
	for p := 0; p < k*w; p += n {
		v := r.NormFloat64()
		for i := 0; i < n; i++ {
			x[p+i] = math.Ldexp(v, scale)
			v *= math.Ldexp(r.Float64()-0.5, -53)
		}
	}
	return x
}

// laCase is one test: an m x n matrix and the right-hand sides.
type laCase struct {
	m, n, lda int
	scale     int    // the matrix times 2^scale
	shape     string // "": random; "triu": zero below the diagonal; "zerocol": column n/2 is zero; "spike": see laCheck
	nrhs, ldb int
	w, k      int // Toeplitz blocks 0..w, updates from block k
	groups    int // gpuabi.LAVariant.Groups (0: the default shapes)
	seed      uint64
}

func laSame(t *testing.T, what string, w int, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d doubles, want %d", what, len(got), len(want))
	}
	for i := range want {
		// NaN payloads are not portable (x86 keeps an operand's, which
		// depends on the compiler's operand order; CUDA makes its own):
		// any NaN matches any NaN.
		if math.IsNaN(got[i]) && math.IsNaN(want[i]) {
			continue
		}
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: element %d, double %d of %d: kernels %v, mdops/la %v", what, i/w, i%w, w, got[i], want[i])
		}
	}
}

// laCheck runs one case on the kernels and on mdops/la and compares.
func laCheck(t *testing.T, bin string, index map[string]int, v gpuabi.LAVariant, c laCase) {
	r := rand.New(rand.NewPCG(c.seed, uint64(v.N)))
	w := v.W()
	m, n, lda := c.m, c.n, c.lda
	a := laRandom(r, lda*n, w, v.N, c.scale)
	switch c.shape {
	case "triu":
		for j := 0; j < n; j++ {
			for i := j + 1; i < lda; i++ {
				clear(a[(i+j*lda)*w : (i+j*lda+1)*w])
			}
		}
	case "zerocol":
		clear(a[(n/2)*lda*w : (n/2+1)*lda*w])
	case "spike":
		// Column j times 2^-600 but row j+20 (a row of the QR panel's
		// second group of lanes) times 2^600: larfg's sum of squares
		// needs the largest leading limb of the whole column to scale.
		for j := 0; j < n; j++ {
			for i := j; i < m; i++ {
				e := -600
				if i == j+20 {
					e = 600
				}
				for d := 0; d < w; d++ {
					a[(i+j*lda)*w+d] = math.Ldexp(a[(i+j*lda)*w+d], e)
				}
			}
		}
	}
	bs := laRandom(r, c.ldb*c.nrhs, w, v.N, 0)
	lk, _ := la.KernelsFor(v.N)
	newQR, mulSub := lk.NewQR, lk.MulSub
	if v.Complex {
		newQR, mulSub = lk.NewQRComplex, lk.MulSubComplex
	}

	// mdops/la.
	wantA, wantTau, rankErr := laTypedFns[gpuabi.LAVariant{Prec: v.Prec}].qr(m, n, a, lda)
	f, _ := newQR(m, n, a, lda, 1)
	wantQH := slices.Clone(bs)
	f.ApplyQHMany(c.nrhs, wantQH, c.ldb, 1)
	wantX := slices.Clone(wantQH)
	solveErr := f.SolveRMany(c.nrhs, wantX, c.ldb, 1)
	// Newton's block Toeplitz system: blocks A_0..A_w (m x n, lda = m), b_0..b_w, dx_0..dx_w.
	nb := c.w + 1
	ta := laRandom(r, nb*m*n, w, v.N, 0)
	tb := laRandom(r, nb*m, w, v.N, 0)
	tdx := laRandom(r, nb*n, w, v.N, -3)
	wantB := slices.Clone(tb)
	for j := c.k + 1; j <= c.w; j++ {
		mulSub(m, n, ta[(j-c.k)*m*n*w:(j-c.k+1)*m*n*w], m, tdx[c.k*n*w:(c.k+1)*n*w], wantB[j*m*w:(j+1)*m*w], 1)
	}
	wantR := slices.Clone(wantB)
	var wantNorm []float64
	for k := 0; k < nb; k++ {
		rk := wantR[k*m*w : (k+1)*m*w]
		mulSub(m, n, ta[:m*n*w], m, tdx[k*n*w:(k+1)*n*w], rk, 1)
		wantNorm = append(wantNorm, la.LeadNorm1(rk, v.Prec))
	}

	// The kernels, with gpuabi's launch sequences.
	e := &laEmu{index: index}
	pa := e.buffer(a)
	ptau := e.buffer(make([]float64, n*w))
	prinv := e.buffer(make([]float64, n*v.N))
	prrev := e.buffer(make([]float64, gpuabi.LARRevLen(n)*w))
	pb := e.buffer(bs)
	e.launch(t, v.LAQR(m, n, lda, pa, ptau))
	e.launch(t, v.LAPackR(m, n, lda, pa, prinv, prrev))
	e.launch(t, v.LAApplyQH(m, n, lda, pa, ptau, c.nrhs, pb, c.ldb))
	e.launch(t, v.LABackSub(n, prrev, prinv, c.nrhs, pb, c.ldb))
	pta, ptb, ptdx := e.buffer(ta), e.buffer(tb), e.buffer(tdx)
	e.launch(t, v.LAToeplitzUpdate(m, n, pta, ptb, ptdx, c.k, c.w))
	pr, pout := e.buffer(make([]float64, nb*m*w)), e.buffer(make([]float64, nb))
	e.launch(t, v.LAResiduals(m, n, pta, ptb, ptdx, c.w, pr, pout))
	got := e.run(t, bin)

	// A and Tau (rows m..lda-1 of a are not the factorization's).
	gotA := make([]float64, 0, m*n*w)
	for j := 0; j < n; j++ {
		gotA = append(gotA, got[pa.Buf][j*lda*w:(j*lda+m)*w]...)
	}
	laSame(t, "QR: A", w, gotA, wantA)
	laSame(t, "QR: Tau", w, got[ptau.Buf], wantTau)
	// rrev is a copy of R's rows.
	for i := 0; i < n; i++ {
		for q := 0; q < n-1-i; q++ {
			o := (gpuabi.LARowOff(n, i) + q) * w
			laSame(t, "packr: rrev", w, got[prrev.Buf][o:o+w], wantA[(i+(n-1-q)*m)*w:(i+(n-1-q)*m+1)*w])
		}
	}
	// packrh: U = P R^H P packed (row n-1-i: conj(R_(q,i)), q < i), rinv
	// reversed, R's column norms (la.LeadNorm1, in the leading limb) and
	// the leading limbs of its diagonal.
	{
		e := &laEmu{index: index}
		qa, qrinv := e.buffer(got[pa.Buf]), e.buffer(got[prinv.Buf])
		prrevh, prinvh := e.buffer(make([]float64, gpuabi.LARRevLen(n)*w)), e.buffer(make([]float64, n*v.N))
		pcn, pdiag := e.buffer(make([]float64, n*v.N)), e.buffer(make([]float64, n))
		e.launch(t, v.LAPackRH(m, n, lda, qa, qrinv, prrevh, prinvh, pcn, pdiag))
		g := e.run(t, bin)
		for i := 0; i < n; i++ {
			for q := 0; q < i; q++ {
				o := (gpuabi.LARowOff(n, n-1-i) + q) * w
				want := slices.Clone(wantA[(q+i*m)*w : (q+i*m+1)*w])
				if v.Complex {
					for c := v.N; c < w; c++ {
						want[c] = -want[c]
					}
				}
				laSame(t, "packrh: rrevh", w, g[prrevh.Buf][o:o+w], want)
			}
			laSame(t, "packrh: rinvh", v.N, g[prinvh.Buf][(n-1-i)*v.N:(n-i)*v.N], got[prinv.Buf][i*v.N:(i+1)*v.N])
			wantCN := make([]float64, v.N)
			wantCN[0] = la.LeadNorm1(wantA[i*m*w:(i*m+i+1)*w], v.Prec)
			laSame(t, "packrh: column norms", v.N, g[pcn.Buf][i*v.N:(i+1)*v.N], wantCN)
			if d := g[pdiag.Buf][i]; math.Float64bits(d) != math.Float64bits(wantA[(i+i*m)*w]) {
				t.Fatalf("packrh: diag[%d] = %v, want %v", i, d, wantA[(i+i*m)*w])
			}
		}
	}
	if solveErr == nil {
		laSame(t, "Q^H b then R^-1", w, got[pb.Buf], wantX)
	} else if rankErr == nil {
		t.Fatalf("SolveRMany: %v, but NewQR found the rank full", solveErr)
	}
	laSame(t, "Toeplitz updates", w, got[ptb.Buf], wantB)
	laSame(t, "residuals b_k - A_0 dx_k", w, got[pr.Buf], wantR)
	laSame(t, "residual 1-norms", 1, got[pout.Buf], wantNorm)

	// Q^H b alone (without the back substitution), when SolveR refused.
	if solveErr != nil {
		e := &laEmu{index: index}
		pa, ptau, pb := e.buffer(got[pa.Buf]), e.buffer(got[ptau.Buf]), e.buffer(bs)
		e.launch(t, v.LAApplyQH(m, n, lda, pa, ptau, c.nrhs, pb, c.ldb))
		laSame(t, "Q^H b", w, e.run(t, bin)[pb.Buf], wantQH)
	}
	// qh1: Q^H b of the first column by a whole block, qh's bits.
	{
		e := &laEmu{index: index}
		pa, ptau, pb := e.buffer(got[pa.Buf]), e.buffer(got[ptau.Buf]), e.buffer(bs[:m*w])
		e.launch(t, v.LAApplyQH1(m, n, lda, pa, ptau, pb))
		laSame(t, "qh1: Q^H b", w, e.run(t, bin)[pb.Buf], wantQH[:m*w])
	}
	// backsub1: R^-1 of the first column, pipelined by a whole block, backsub's bits.
	if solveErr == nil {
		e := &laEmu{index: index}
		prrev, prinv := e.buffer(got[prrev.Buf]), e.buffer(got[prinv.Buf])
		pb, pacc := e.buffer(wantQH[:m*w]), e.buffer(make([]float64, gpuabi.LABackSub1Acc(n)*w))
		e.launch(t, v.LABackSub1(n, prrev, prinv, pb, pacc))
		laSame(t, "backsub1: R^-1 b", w, e.run(t, bin)[pb.Buf], wantX[:m*w])
	}
}

// laEdges checks mulsub with n = 0 (r = b, as la's MulSub leaves b) and
// norm1 and leadnorm1 of empty and one-element vectors.
func laEdges(t *testing.T, bin string, index map[string]int, v gpuabi.LAVariant) {
	r := rand.New(rand.NewPCG(5, uint64(v.N)))
	w := v.W()
	b := laRandom(r, 2*5, w, v.N, 0)
	e := &laEmu{index: index}
	pa, pb, pr := e.buffer(laRandom(r, 5, w, v.N, 0)), e.buffer(b), e.buffer(make([]float64, 2*5*w))
	px := e.buffer(nil)
	e.launch(t, v.LAMulSub(5, 0, pa, 5, 0, px, 0, pb, 5, pr, 5, 2))
	pout := e.buffer(make([]float64, 3*v.N))
	e.launch(t, v.LANorm1(pb, 0, 5, 2, pout))
	e.launch(t, v.LANorm1(pb, 1, 0, 1, pout.At(2, v.N)))
	plead := e.buffer(make([]float64, 3))
	e.launch(t, v.LALeadNorm1(pb, 0, 5, 2, plead))
	e.launch(t, v.LALeadNorm1(pb, 1, 0, 1, plead.At(2, 1)))
	got := e.run(t, bin)
	laSame(t, "mulsub, n = 0", w, got[pr.Buf], b)
	want := append(make([]float64, 2*v.N), laTypedFns[gpuabi.LAVariant{Prec: v.Prec}].norm1(b[:w])...)
	laSame(t, "norm1 of 0 and 1 elements", v.N, got[pout.Buf], want)
	laSame(t, "leadnorm1 of 0 and 1 elements", 1, got[plead.Buf], []float64{0, 0, la.LeadNorm1(b[:w], v.Prec)})
}

// TestLAKernelEmulation checks the kernels against mdops/la at 1, 2, 4, 8
// and 16 doubles (MDGEN_LA_NS picks others, e.g. 3,5,10).
func TestLAKernelEmulation(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles kernels with g++")
	}
	ns := []int{1, 2, 4, 8, 16}
	if s := os.Getenv("MDGEN_LA_NS"); s != "" {
		ns = nil
		for _, f := range strings.Split(s, ",") {
			var n int
			if _, err := fmt.Sscan(f, &n); err != nil {
				t.Fatalf("MDGEN_LA_NS=%q: %v", s, err)
			}
			ns = append(ns, n)
		}
	}
	bin, index := laCompile(t, ns)
	base := []laCase{
		{m: 1, n: 1},
		{m: 2, n: 2},
		{m: 5, n: 3},
		{m: 16, n: 16},
		{m: 17, n: 17, nrhs: 1},
		{m: 33, n: 20},
		{m: 40, n: 37, w: 4, k: 1},
	}
	special := []laCase{
		{m: 20, n: 18, lda: 23, ldb: 25, nrhs: 4},
		{m: 19, n: 19, scale: 1000},
		{m: 19, n: 17, scale: -1030},
		{m: 18, n: 18, scale: -1070},
		{m: 21, n: 18, shape: "triu"},
		{m: 21, n: 21, shape: "zerocol"},
		{m: 34, n: 34, groups: 3, nrhs: 5, w: 2},
		{m: 35, n: 33, groups: 5, nrhs: 7, w: 3, k: 2},
		{m: 50, n: 3, groups: 16, nrhs: 33},
		{m: 150, n: 24, groups: 2, nrhs: 2}, // the QR panel's threads own several rows (block of 64)
		{m: 40, n: 12, shape: "spike"},
		{m: 90, n: 12, shape: "spike", groups: 2},
	}
	for _, n := range ns {
		cases := base
		switch {
		case n <= 4:
			cases = append(slices.Clone(base), special...)
		case n <= 8:
			cases = append(slices.Clone(base[:6]), special[1], special[4], special[6])
		default:
			cases = []laCase{base[2], base[4], special[4], {m: 24, n: 21, groups: 3, w: 2}}
		}
		for _, complex := range []bool{false, true} {
			t.Run(fmt.Sprintf("N%d_complex%v_edges", n, complex), func(t *testing.T) {
				laEdges(t, bin, index, gpuabi.LAVariant{Prec: mdops.Prec{N: n, Complex: complex}})
			})
			t.Run(fmt.Sprintf("N%d_complex%v_newton", n, complex), func(t *testing.T) {
				laNewtonKernels(t, bin, index, gpuabi.LAVariant{Prec: mdops.Prec{N: n, Complex: complex}})
			})
			if n <= 2 {
				t.Run(fmt.Sprintf("N%d_complex%v_backsub1_rows", n, complex), func(t *testing.T) {
					laBackSub1Rows(t, bin, index, gpuabi.LAVariant{Prec: mdops.Prec{N: n, Complex: complex}})
				})
			}
			for i, c := range cases {
				if c.lda == 0 {
					c.lda = c.m
				}
				if c.nrhs == 0 {
					c.nrhs = 3
				}
				if c.ldb == 0 {
					c.ldb = c.m + 1
				}
				if c.w == 0 {
					c.w = 3
				}
				c.seed = uint64(100*i + 7)
				v := gpuabi.LAVariant{Prec: mdops.Prec{N: n, Complex: complex}, Groups: c.groups}
				name := fmt.Sprintf("N%d_complex%v_%dx%d", n, complex, c.m, c.n)
				if c.scale != 0 || c.shape != "" || c.groups != 0 {
					name += fmt.Sprintf("_s%d%s_g%d", c.scale, c.shape, c.groups)
				}
				t.Run(name, func(t *testing.T) { laCheck(t, bin, index, v, c) })
			}
		}
	}
}

// laBackSub1Rows checks backsub1 where a thread owns several rows (n >
// the block of 256 threads: n = 300 and 600) against la's SolveR on the
// same R (QRFromFactors of an upper-triangular matrix), with packr's rows.
func laBackSub1Rows(t *testing.T, bin string, index map[string]int, v gpuabi.LAVariant) {
	r := rand.New(rand.NewPCG(13, uint64(v.N)))
	w := v.W()
	lk, _ := la.KernelsFor(v.N)
	from := lk.QRFromFactors
	if v.Complex {
		from = lk.QRFromFactorsComplex
	}
	for _, n := range []int{300, 600} {
		a := laRandom(r, n*n, w, v.N, 0)
		for i := 0; i < n; i++ { // a real diagonal away from zero
			d := a[(i+i*n)*w : (i+i*n+1)*w]
			clear(d[v.N:])
			d[0] += math.Copysign(4, d[0])
		}
		b := laRandom(r, n, w, v.N, 0)
		f, err := from(n, n, a, make([]float64, n*w))
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(b)
		if err := f.SolveR(want, 1); err != nil {
			t.Fatal(err)
		}
		e := &laEmu{index: index}
		pa, prinv, prrev := e.buffer(a), e.buffer(make([]float64, n*v.N)), e.buffer(make([]float64, gpuabi.LARRevLen(n)*w))
		pb, pacc := e.buffer(b), e.buffer(make([]float64, gpuabi.LABackSub1Acc(n)*w))
		e.launch(t, v.LAPackR(n, n, n, pa, prinv, prrev))
		e.launch(t, v.LABackSub1(n, prrev, prinv, pb, pacc))
		laSame(t, fmt.Sprintf("backsub1, n = %d", n), w, e.run(t, bin)[pb.Buf], want)
	}
}

// laNewtonKernels checks the Newton driver's kernels (gpuabi/newton.go)
// against Go: scatter and gather against the limb-major indexing of the
// executor's data array (a negative slot: skipped, or the zero series,
// negated to -0 as runtime/newton's negateInto does), xupdate against
// mdops' AddTo, amax against the max of the leading limbs (NaN absorbs).
func laNewtonKernels(t *testing.T, bin string, index map[string]int, v gpuabi.LAVariant) {
	r := rand.New(rand.NewPCG(11, uint64(v.N)))
	n, w := v.N, v.W()
	i64 := func(xs ...int64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = math.Float64frombits(uint64(x))
		}
		return out
	}
	// A data array of 6 slots of degree 3, x of 3 variables of degree 5,
	// working degree 3.
	const nslots, d1, d1x, wd = 6, 4, 6, 3
	stride := int64(nslots * d1)
	data := laRandom(r, int(stride), w, n, 0) // w chunks of stride doubles
	x := laRandom(r, 3*d1x, w, n, 0)
	in, vs := []int64{4, -1, 1}, []int64{2, -1, 4, 0}
	e := &laEmu{index: index}
	px, pdata, pin, pvs := e.buffer(x), e.buffer(data), e.buffer(i64(in...)), e.buffer(i64(vs...))
	pb, pa := e.buffer(make([]float64, len(vs)*(wd+1)*w)), e.buffer(make([]float64, len(vs)*(wd+1)*w))
	e.launch(t, v.LAScatter(px, d1x, pdata, stride, d1, pin, len(in), wd))
	e.launch(t, v.LAGather(pdata, stride, d1, pvs, len(vs), wd, true, pb))
	e.launch(t, v.LAGather(pdata, stride, d1, pvs, len(vs), wd, false, pa))
	// xupdate: blocks 1 and 3 of dx (k = 0..3) into x, blocks 0 and 2 skipped.
	dx := laRandom(r, (wd+1)*3, w, n, -2)
	pdx, pskip := e.buffer(dx), e.buffer(i64(1, 0, 1, 0))
	x2 := laRandom(r, 3*d1x, w, n, 0)
	px2 := e.buffer(x2)
	e.launch(t, v.LAXUpdate(px2, d1x, pdx, 3, pskip, wd))
	// amax of three vectors of 7 elements: random, one with a NaN, one with an Inf.
	am := laRandom(r, 21, w, n, 0)
	am[(7+3)*w+w-n] = math.NaN() // the leading limb of the last part of element 3 of vector 1
	am[(14+5)*w] = math.Inf(-1)
	pam, pout := e.buffer(am), e.buffer(make([]float64, 3))
	e.launch(t, v.LAAmax(pam, 7, 7, 3, pout))
	got := e.run(t, bin)

	wantData := slices.Clone(data)
	for vv, s := range in {
		for k := 0; s >= 0 && k <= wd; k++ {
			for c := 0; c < w; c++ {
				wantData[int64(c)*stride+s*d1+int64(k)] = x[(vv*d1x+k)*w+c]
			}
		}
	}
	laSame(t, "scatter", 1, got[pdata.Buf], wantData)
	wantA := make([]float64, len(vs)*(wd+1)*w)
	wantB := make([]float64, len(wantA))
	for k := 0; k <= wd; k++ {
		for i, s := range vs {
			for c := 0; c < w; c++ {
				val := 0.0
				if s >= 0 {
					val = wantData[int64(c)*stride+s*d1+int64(k)]
				}
				wantA[(k*len(vs)+i)*w+c] = val
				wantB[(k*len(vs)+i)*w+c] = -val
			}
		}
	}
	laSame(t, "gather", w, got[pa.Buf], wantA)
	laSame(t, "gather, negated", w, got[pb.Buf], wantB)
	sk, _ := mdops.SeriesKernelsFor(n)
	addTo := sk.AddTo
	if v.Complex {
		addTo = sk.AddToComplex
	}
	wantX := slices.Clone(x2)
	for _, k := range []int{1, 3} {
		for vv := 0; vv < 3; vv++ {
			addTo(wantX[(vv*d1x+k)*w:(vv*d1x+k+1)*w], dx[(k*3+vv)*w:(k*3+vv+1)*w])
		}
	}
	laSame(t, "xupdate", w, got[px2.Buf], wantX)
	wantMax := make([]float64, 3)
	for p := range 3 {
		for i := 0; i < 7; i++ {
			a := math.Abs(am[(p*7+i)*w])
			if v.Complex {
				a = math.Max(a, math.Abs(am[(p*7+i)*w+n]))
			}
			if a != a || wantMax[p] != wantMax[p] {
				wantMax[p] = math.NaN()
			} else if a > wantMax[p] {
				wantMax[p] = a
			}
		}
	}
	laSame(t, "amax", 1, got[pout.Buf], wantMax)
	if !math.IsNaN(got[pout.Buf][1]) || !math.IsInf(got[pout.Buf][2], 1) {
		t.Fatalf("amax: %v, want NaN for vector 1 and +Inf for vector 2", got[pout.Buf])
	}
}
