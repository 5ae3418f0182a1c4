// Kernels for runtime/gpu/cudadev's smoke test (smoke_test.go), compiled there
// with nvcc -fatbin for the GPU at hand. Every parameter is 8 bytes wide
// (pointers, long long, double): gorgonia.org/cu passes each kernel
// argument as one 8-byte word.

// A module-level variable, read back through Module.Global.
extern "C" __device__ long long smoke_version = 20250101;

// y[i] = a*x[i] + y[i], rounded once (the Go side checks with math.FMA).
extern "C" __global__ void axpy(double *y, const double *x, double a, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __fma_rn(a, x[i], y[i]);
}

// out[i] = start + i, as 32-bit integers.
extern "C" __global__ void iota32(int *out, long long n, long long start)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (int)(start + i);
}

// out[block] = sum of the block's blockDim.x elements of x, through dynamic
// shared memory (blockDim.x doubles), summed in index order by thread 0.
extern "C" __global__ void block_sum(double *out, const double *x, long long n)
{
    extern __shared__ double s[];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0;
    __syncthreads();
    if (threadIdx.x == 0) {
        double acc = 0.0;
        for (unsigned k = 0; k < blockDim.x; k++) acc = __dadd_rn(acc, s[k]);
        out[blockIdx.x] = acc;
    }
}

// 8 independent FMA chains of iters steps per thread, for the FMA rate.
extern "C" __global__ void fma_chain(double *out, double a, double b, long long iters)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    double c0 = t, c1 = t + 1, c2 = t + 2, c3 = t + 3, c4 = t + 4, c5 = t + 5, c6 = t + 6, c7 = t + 7;
    for (long long k = 0; k < iters; k++) {
        c0 = __fma_rn(c0, a, b); c1 = __fma_rn(c1, a, b);
        c2 = __fma_rn(c2, a, b); c3 = __fma_rn(c3, a, b);
        c4 = __fma_rn(c4, a, b); c5 = __fma_rn(c5, a, b);
        c6 = __fma_rn(c6, a, b); c7 = __fma_rn(c7, a, b);
    }
    out[t] = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7));
}

// Does nothing: for launch overhead.
extern "C" __global__ void empty(void) {}

// Writes through p: with a bogus p, an illegal address.
extern "C" __global__ void poke(double *p)
{
    p[threadIdx.x] = 1.0;
}
