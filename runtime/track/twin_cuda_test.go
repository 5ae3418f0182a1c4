//go:build cuda

package track

// The device twins on a real GPU: generated/cuda/mdfp.cuh (mdops/fp's
// Pow, Hypot, Sincos, complex Mul and Div) and generated/cuda/mdtrack.cuh
// (this package's arith.go, the parametric coefficients' series, the step
// size), compiled by nvcc (-fmad=false, cached by
// content under MDGEN_GPU_TEST_CACHE) and run a call or a case a thread,
// against the Go code bit for bit. Build here, run on a GPU machine:
//
//	CGO_CFLAGS="-I$PWD/build/cudacompat -I$PWD/.cuda-sdk/include" \
//	CGO_LDFLAGS="-L$PWD/.cuda-sdk/lib" go test -c -tags cuda -o .gpu/track.test ./runtime/track
//	cd runtime/track && ../../.gpu/track.test -test.run DeviceTwinsGPU -test.v

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/internal/xcheck"
	"github.com/mdgen/mdgen/mdops/fp"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
)

const twinKernels = `#include "md1.cuh"
#include "md2.cuh"
#include "md4.cuh"
#include "md8.cuh"
#include "mdtrack.cuh"
MDTR_OPS(1)
MDTR_OPS(2)
MDTR_OPS(4)
MDTR_OPS(8)

// One slot of a parametric coefficient a thread (paramTwinCases): at
// in + inOff[i] N, the polynomial's coefficients, the slot's ck, the
// scaling's exponent x and tau, then the polynomial's limbs; the slot's
// ck coefficients at out + outOff[i].
extern "C" __global__ void mdtr_param_twin(const double* in, const long long* inOff, double* out, const long long* outOff, long long count) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const double* p = in + inOff[i];
  const int N = (int)p[0], len = (int)p[1], ck = (int)p[2], x = (int)p[3];
  double* o = out + outOff[i];
  if (N == 1) mdtr_param_series<cmd1>(o, p + 5, len, ck, p[4], x);
  if (N == 2) mdtr_param_series<cmd2>(o, p + 5, len, ck, p[4], x);
  if (N == 4) mdtr_param_series<cmd4>(o, p + 5, len, ck, p[4], x);
  if (N == 8) mdtr_param_series<cmd8>(o, p + 5, len, ck, p[4], x);
}

// One step size and largest modulus a thread (stepTwinCases): at in +
// inOff[i] N, n, tau, dist, scale, MaxStep, Beta1, Beta2, PredTol, then n
// times a pole bound, an error term and an order, then the n complex
// numbers' limbs; out[2i], out[2i + 1].
extern "C" __global__ void mdtr_step_twin(const double* in, const long long* inOff, double* out, long long count) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const double* p = in + inOff[i];
  const int N = (int)p[0], n = (int)p[1];
  double pole[12], err[12];
  int order[12];
  const double* q = p + 9;
  for (int v = 0; v < n; ++v) {
    pole[v] = q[3 * v];
    err[v] = q[3 * v + 1];
    order[v] = (int)q[3 * v + 2];
  }
  out[2 * i] = mdtr_step_size(pole, err, order, n, p[2], p[3], p[4], p[5], p[6], p[7], p[8]);
  const double* x = q + 3 * n;
  if (N == 1) out[2 * i + 1] = mdtr_max_mag((const cmd1*)x, n);
  if (N == 2) out[2 * i + 1] = mdtr_max_mag((const cmd2*)x, n);
  if (N == 4) out[2 * i + 1] = mdtr_max_mag((const cmd4*)x, n);
}

// One call of mdfp.cuh a thread: in[5i] the operation (0 pow, 1 hypot,
// 2 sincos, 3 mul, 4 div), in[5i+1..4] its arguments; out[2i..2i+1].
extern "C" __global__ void mdfp_twin(const double* in, double* out, long long count) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const double* a = in + 5 * i;
  double r0 = 0.0, r1 = 0.0;
  switch ((int)a[0]) {
    case 0: r0 = mdfp_pow(a[1], a[2]); break;
    case 1: r0 = mdfp_hypot(a[1], a[2]); break;
    case 2: mdfp_sincos(a[1], &r0, &r1); break;
    case 3: mdfp_cmul(a[1], a[2], a[3], a[4], &r0, &r1); break;
    case 4: mdfp_cdiv(a[1], a[2], a[3], a[4], &r0, &r1); break;
  }
  out[2 * i] = r0;
  out[2 * i + 1] = r1;
}

template <class T> __device__ T tw_read(const double*& p) {
  T z;
  double* l = (double*)&z;
  for (int i = 0; i < mdtr_limbs<T>(); ++i) l[i] = *p++;
  return z;
}
template <class T> __device__ void tw_write(double*& o, const T& z) {
  const double* l = (const double*)&z;
  for (int i = 0; i < mdtr_limbs<T>(); ++i) *o++ = l[i];
}

// One case of mdtrack.cuh a thread (n <= 5, d <= 8, L, M <= 3, deg <= 3).
template <class T> __device__ void tw_case(const double* p, double* o, int n, int d, int L, int M, int deg, double tau, double s) {
  T poly[4], x[5 * 9], P[5 * 4], Q[5 * 3 + 1], A[9 + 1], b[3 + 1], out[5];
  bool taylor[5];
  double pole[5], err[5];
  int order[5];
  for (int i = 0; i <= deg; ++i) poly[i] = tw_read<T>(p);
  for (int i = 0; i < n * (d + 1); ++i) x[i] = tw_read<T>(p);
  mdtr_shift(poly, deg, tau);
  mdtr_pade(x, n, d, L, M, P, Q, taylor, pole, err, order, A, b);
  mdtr_predict(out, P, Q, taylor, n, L, M, s);
  for (int i = 0; i <= deg; ++i) tw_write(o, poly[i]);
  for (int i = 0; i < n * (L + 1); ++i) tw_write(o, P[i]);
  for (int i = 0; i < n * M; ++i) tw_write(o, Q[i]);
  for (int v = 0; v < n; ++v) {
    *o++ = taylor[v] ? 1.0 : 0.0;
    *o++ = pole[v];
    *o++ = err[v];
    *o++ = (double)order[v];
  }
  for (int v = 0; v < n; ++v) tw_write(o, out[v]);
}

extern "C" __global__ void mdtr_twin(const double* in, const long long* inOff, double* out, const long long* outOff, long long count) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const double* p = in + inOff[i];
  const int N = (int)p[0], n = (int)p[1], d = (int)p[2], L = (int)p[3], M = (int)p[4], deg = (int)p[5];
  const double tau = p[6], s = p[7];
  double* o = out + outOff[i];
  if (N == 1) tw_case<cmd1>(p + 8, o, n, d, L, M, deg, tau, s);
  if (N == 2) tw_case<cmd2>(p + 8, o, n, d, L, M, deg, tau, s);
  if (N == 4) tw_case<cmd4>(p + 8, o, n, d, L, M, deg, tau, s);
}
`

func TestDeviceTwinsGPU(t *testing.T) {
	dev, err := cudadev.Open(0)
	if err != nil {
		t.Fatalf("opening GPU 0 (this cuda-tagged test needs a GPU): %v", err)
	}
	defer dev.Close()
	headers := map[string][]byte{}
	for _, h := range []string{"mdbase.cuh", "md1.cuh", "md2.cuh", "md4.cuh", "md8.cuh", "mdfp.cuh", "mdtrack.cuh"} {
		b, err := os.ReadFile(filepath.Join("../../generated/cuda", h))
		if err != nil {
			t.Fatal(err)
		}
		headers[h] = b
	}
	cache := xcheck.GPUTestCache()
	c := &nvcc.Compiler{Dir: cache, Archs: []string{dev.Info().Arch()}, Log: os.Stdout}
	res, err := c.Build([]nvcc.Source{{Name: "twins", Source: []byte(twinKernels), Headers: headers}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	mod, err := dev.LoadModule(res[0].Fatbin)
	if err != nil {
		t.Fatal(err)
	}
	defer mod.Unload()
	// run launches kernel a thread per item (count of them) on in, with
	// the arguments args makes of the buffers, and returns outLen doubles
	// of out.
	run := func(kernel string, count int, in []float64, outLen int, args func(in, out cudadev.Buffer) []any) []float64 {
		t.Helper()
		fn, err := mod.Function(kernel)
		if err != nil {
			t.Fatal(err)
		}
		inB, err := dev.AllocFloat64s(int64(len(in)))
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Free(inB)
		outB, err := dev.AllocFloat64s(int64(outLen))
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Free(outB)
		if err := dev.CopyHtoD(inB, in); err != nil {
			t.Fatal(err)
		}
		if err := dev.Launch(fn, cudadev.Dim3{(count + 63) / 64}, cudadev.Dim3{64}, 0, args(inB, outB)...); err != nil {
			t.Fatal(err)
		}
		if err := dev.Synchronize(); err != nil {
			t.Fatal(err)
		}
		out := make([]float64, outLen)
		if err := dev.CopyDtoH(out, outB); err != nil {
			t.Fatal(err)
		}
		return out
	}
	same := func(got, want float64) bool {
		return math.Float64bits(got) == math.Float64bits(want) || math.IsNaN(got) && math.IsNaN(want)
	}

	// mdfp.cuh.
	r := rand.New(rand.NewPCG(13, 14))
	wide := func() float64 { return math.Ldexp(r.Float64()+0.5, r.IntN(2095)-1073) }
	part := func() float64 { return math.Ldexp(r.Float64()-0.5, r.IntN(200)-100) }
	var calls []float64
	for range 50000 {
		calls = append(calls,
			0, wide(), 1/float64(1+r.IntN(16)), 0, 0,
			0, 1+math.Ldexp(r.Float64()-0.5, -r.IntN(40)), math.Ldexp(r.Float64(), r.IntN(12)), 0, 0,
			1, wide(), wide(), 0, 0,
			2, 2*math.Pi*float64(r.IntN(64))/float64(1+r.IntN(64)), 0, 0, 0,
			2, math.Pi/4*(2*r.Float64()-1), 0, 0, 0,
			3, part(), part(), part(), part(),
			4, part(), part(), part(), part())
	}
	count := len(calls) / 5
	out := run("mdfp_twin", count, calls, 2*count, func(in, out cudadev.Buffer) []any { return []any{in, out, int64(count)} })
	bad := 0
	for i := range count {
		a := calls[5*i : 5*i+5]
		var w0, w1 float64
		switch int(a[0]) {
		case 0:
			w0 = fp.Pow(a[1], a[2])
		case 1:
			w0 = fp.Hypot(a[1], a[2])
		case 2:
			w0, w1 = fp.Sincos(a[1])
		case 3:
			z := fp.Mul(complex(a[1], a[2]), complex(a[3], a[4]))
			w0, w1 = real(z), imag(z)
		case 4:
			z := fp.Div(complex(a[1], a[2]), complex(a[3], a[4]))
			w0, w1 = real(z), imag(z)
		}
		if !same(out[2*i], w0) || !same(out[2*i+1], w1) {
			if bad++; bad <= 10 {
				t.Errorf("mdfp op %g (%g, %g, %g, %g): the GPU %g, %g; Go %g, %g", a[0], a[1], a[2], a[3], a[4], out[2*i], out[2*i+1], w0, w1)
			}
		}
	}
	t.Logf("mdfp.cuh: %d calls on %s, %d differ", count, dev.Info().Name, bad)

	// mdtrack.cuh.
	cases := twinCases()
	var in []float64
	var inOff, outOff []int64
	var wants [][]string
	outLen := int64(0)
	for _, c := range cases {
		want, err := twinWant(c)
		if err != nil {
			t.Fatal(err)
		}
		wants = append(wants, want)
		inOff = append(inOff, int64(len(in)))
		in = append(in, float64(c.N), float64(c.n), float64(c.d), float64(c.L), float64(c.M), float64(len(c.poly)/(2*c.N)-1), c.tau, c.s)
		in = append(in, c.poly...)
		in = append(in, c.x...)
		outOff = append(outOff, outLen)
		outLen += int64(len(want))
	}
	offs := func(x []int64) cudadev.Buffer {
		b, err := dev.AllocFloat64s(int64(len(x)))
		if err != nil {
			t.Fatal(err)
		}
		f := make([]float64, len(x))
		for i, v := range x {
			f[i] = math.Float64frombits(uint64(v))
		}
		if err := dev.CopyHtoD(b, f); err != nil {
			t.Fatal(err)
		}
		return b
	}
	inOffB, outOffB := offs(inOff), offs(outOff)
	defer dev.Free(inOffB)
	defer dev.Free(outOffB)
	got := run("mdtr_twin", len(cases), in, int(outLen), func(in, out cudadev.Buffer) []any {
		return []any{in, inOffB, out, outOffB, int64(len(cases))}
	})
	for i, c := range cases {
		want := wants[i]
		fields := make([]string, len(want))
		vals := got[outOff[i] : outOff[i]+int64(len(want))]
		// The layout of twinWant: hex floats but the Taylor flags and
		// orders (decimal), four per series after the shift, P and Q.
		W := 2 * c.N
		flags := len(c.poly) + c.n*(c.L+1)*W + c.n*c.M*W
		for j, v := range vals {
			k := j - flags
			if k >= 0 && k < 4*c.n && (k%4 == 0 || k%4 == 3) {
				fields[j] = fmt.Sprint(int(v))
			} else {
				fields[j] = fmt.Sprintf("%x", math.Float64bits(v))
			}
		}
		if j, ok := twinFieldsEqual(fields, want); !ok {
			t.Fatalf("mdtrack case %d (%d doubles, n %d, d %d, [%d/%d]): field %d: the GPU %s, Go %s", i, c.N, c.n, c.d, c.L, c.M, j, fields[j], want[j])
		}
	}
	t.Logf("mdtrack.cuh: %d cases at 1, 2 and 4 doubles on %s: every bit equal", len(cases), dev.Info().Name)

	// mdtr_param_series: the slots the batched solve's parametric
	// coefficients' kernel writes.
	pcases := paramTwinCases()
	in, inOff, outOff, outLen = nil, nil, nil, 0
	var pwants [][]float64
	for _, c := range pcases {
		want, err := paramWant(c)
		if err != nil {
			t.Fatal(err)
		}
		pwants = append(pwants, want)
		inOff = append(inOff, int64(len(in)))
		in = append(in, float64(c.N), float64(len(c.poly)/(2*c.N)), float64(c.ck), float64(c.x), c.tau)
		in = append(in, c.poly...)
		outOff = append(outOff, outLen)
		outLen += int64(len(want))
	}
	pInOffB, pOutOffB := offs(inOff), offs(outOff)
	defer dev.Free(pInOffB)
	defer dev.Free(pOutOffB)
	got = run("mdtr_param_twin", len(pcases), in, int(outLen), func(in, out cudadev.Buffer) []any {
		return []any{in, pInOffB, out, pOutOffB, int64(len(pcases))}
	})
	for i, c := range pcases {
		for j, w := range pwants[i] {
			if g := got[outOff[i]+int64(j)]; math.Float64bits(g) != math.Float64bits(w) {
				t.Fatalf("mdtr_param_series case %d (%d doubles, slot %d, 2^%d, tau %v): double %d: the GPU %v, Go %v", i, c.N, c.ck, c.x, c.tau, j, g, w)
			}
		}
	}
	t.Logf("mdtr_param_series: %d slots at 1, 2, 4 and 8 doubles on %s: every bit equal", len(pcases), dev.Info().Name)

	// mdtr_step_size and mdtr_max_mag.
	scases := stepTwinCases()
	in, inOff = nil, nil
	for _, c := range scases {
		inOff = append(inOff, int64(len(in)))
		in = append(in, float64(c.N), float64(c.n), c.tau, c.dist, c.scale, c.opt.MaxStep, c.opt.Beta1, c.opt.Beta2, c.opt.PredTol)
		for v := range c.n {
			in = append(in, c.pole[v], c.err[v], float64(c.order[v]))
		}
		in = append(in, c.x...)
	}
	sInOffB := offs(inOff)
	defer dev.Free(sInOffB)
	got = run("mdtr_step_twin", len(scases), in, 2*len(scases), func(in, out cudadev.Buffer) []any {
		return []any{in, sInOffB, out, int64(len(scases))}
	})
	for i, c := range scases {
		dt, mag := stepWant(c)
		if !same(got[2*i], dt) || !same(got[2*i+1], mag) {
			t.Fatalf("mdtr_step_size case %d (%d doubles, %d components): the GPU %v, %v; Go %v, %v", i, c.N, c.n, got[2*i], got[2*i+1], dt, mag)
		}
	}
	t.Logf("mdtr_step_size, mdtr_max_mag: %d cases on %s: every bit equal", len(scases), dev.Info().Name)
}
