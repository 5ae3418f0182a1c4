package runtime

import (
	"bytes"
	"fmt"
)

// GPUReferenceKernelsCU returns CUDA source of the plainest kernels that
// keep the GPU contract (gpulayout.go) for precision n, real and complex:
// one block per job, thread k of a block computes coefficient k (stepping
// by the block size), reading and writing global memory directly, with the
// arithmetic of generated/cuda/md<n>.cuh in the order of stager.ConvJob
// (complex: Gauss's three real convolutions), so the bits are the CPU
// executor's. It also defines GPULayoutSymbol.
//
// They are a reference, not a contender: they test the GPU executor without
// mdgen's generated kernels, and give the generated ones a baseline.
// Compile with -I generated/cuda -fmad=false; launch with
// GPUReferenceShape.
func GPUReferenceKernelsCU(n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `// mdgen reference kernels for %[1]d doubles (runtime.GPUReferenceKernelsCU).
#include "md%[1]d.cuh"

extern "C" __device__ int %[2]s = %[3]d;

namespace {
constexpr int N = %[1]d;
typedef md%[1]d T;
typedef cmd%[1]d CT;

__device__ __forceinline__ T ld(const double* data, long long stride, long long at, int part) {
	T x;
#pragma unroll
	for (int l = 0; l < N; l++) x.v[l] = data[(part * N + l) * stride + at];
	return x;
}

__device__ __forceinline__ void st(double* data, long long stride, long long at, int part, T x) {
#pragma unroll
	for (int l = 0; l < N; l++) data[(part * N + l) * stride + at] = x.v[l];
}

__device__ __forceinline__ CT cld(const double* data, long long stride, long long at) {
	CT x;
	x.re = ld(data, stride, at, 0);
	x.im = ld(data, stride, at, 1);
	return x;
}

__device__ __forceinline__ void cst(double* data, long long stride, long long at, CT x) {
	st(data, stride, at, 0, x.re);
	st(data, stride, at, 1, x.im);
}
}  // namespace

extern "C" __global__ void mdgen_conv_r%[1]d(double* data, long long stride, long long degree,
		const int* jobs, long long first, long long count) {
	const long long j = first + blockIdx.x;
	const long long d1 = degree + 1;
	const long long out = jobs[3 * j] * d1, a = jobs[3 * j + 1] * d1, b = jobs[3 * j + 2] * d1;
	for (long long k = threadIdx.x; k <= degree; k += blockDim.x) {
		T acc = md%[1]d_mul(ld(data, stride, a, 0), ld(data, stride, b + k, 0));
		for (long long i = 1; i <= k; i++) {
			acc = md%[1]d_madd(acc, ld(data, stride, a + i, 0), ld(data, stride, b + k - i, 0));
		}
		st(data, stride, out + k, 0, acc);
	}
}

// Complex: Gauss's three real convolutions (stager.ConvJob), with sx, dy,
// sy recomputed at each use.
extern "C" __global__ void mdgen_conv_c%[1]d(double* data, long long stride, long long degree,
		const int* jobs, long long first, long long count) {
	const long long j = first + blockIdx.x;
	const long long d1 = degree + 1;
	const long long out = jobs[3 * j] * d1, a = jobs[3 * j + 1] * d1, b = jobs[3 * j + 2] * d1;
	for (long long k = threadIdx.x; k <= degree; k += blockDim.x) {
		const T xr0 = ld(data, stride, a, 0), xi0 = ld(data, stride, a, 1);
		const T yrk = ld(data, stride, b + k, 0), yik = ld(data, stride, b + k, 1);
		T c1 = md%[1]d_mul(md%[1]d_add(xr0, xi0), yrk);
		T c2 = md%[1]d_mul(xr0, md%[1]d_sub(yik, yrk));
		T c3 = md%[1]d_mul(xi0, md%[1]d_add(yrk, yik));
		for (long long i = 1; i <= k; i++) {
			const T xr = ld(data, stride, a + i, 0), xi = ld(data, stride, a + i, 1);
			const T yr = ld(data, stride, b + k - i, 0), yi = ld(data, stride, b + k - i, 1);
			c1 = md%[1]d_madd(c1, md%[1]d_add(xr, xi), yr);
			c2 = md%[1]d_madd(c2, xr, md%[1]d_sub(yi, yr));
			c3 = md%[1]d_madd(c3, xi, md%[1]d_add(yr, yi));
		}
		st(data, stride, out + k, 0, md%[1]d_sub(c1, c3));
		st(data, stride, out + k, 1, md%[1]d_add(c1, c2));
	}
}

extern "C" __global__ void mdgen_add_r%[1]d(double* data, long long stride, long long degree,
		const int* jobs, long long first, long long count) {
	const long long j = first + blockIdx.x;
	const long long d1 = degree + 1;
	const long long dst = jobs[2 * j] * d1, src = jobs[2 * j + 1] * d1;
	for (long long k = threadIdx.x; k <= degree; k += blockDim.x) {
		st(data, stride, dst + k, 0, md%[1]d_add(ld(data, stride, dst + k, 0), ld(data, stride, src + k, 0)));
	}
}

extern "C" __global__ void mdgen_add_c%[1]d(double* data, long long stride, long long degree,
		const int* jobs, long long first, long long count) {
	const long long j = first + blockIdx.x;
	const long long d1 = degree + 1;
	const long long dst = jobs[2 * j] * d1, src = jobs[2 * j + 1] * d1;
	for (long long k = threadIdx.x; k <= degree; k += blockDim.x) {
		cst(data, stride, dst + k, cmd%[1]d_add(cld(data, stride, dst + k), cld(data, stride, src + k)));
	}
}
`, n, GPULayoutSymbol, GPULayoutVersion)
	return b.Bytes()
}

// GPUReferenceShape is the launch shape of GPUReferenceKernelsCU: a warp
// multiple of threads up to one per coefficient, at most 128, no shared
// memory.
func GPUReferenceShape(kind string, n int, complex bool, degree int) (block, shared int) {
	block = min(128, (degree+1+31)/32*32)
	return block, 0
}
