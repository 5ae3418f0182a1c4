/*
 * mdgen's CUDA driver API compatibility header.
 *
 * Installed as cuda.h in a folder put FIRST on the C include path of every
 * cgo package that includes <cuda.h> (gorgonia.org/cu and runtime/gpu/cudadev):
 * `make cudacompat` copies it to build/cudacompat/cuda.h (git-ignored; the
 * repository tracks no file named cuda.h), then
 *
 *     CGO_CFLAGS="-I$PWD/build/cudacompat -I$CUDA_PATH/include"
 *
 * (`make gpu` does both). It includes the real cuda.h with #include_next and
 * then makes two adjustments:
 *
 * 1. CUDA 13 (CUDA_VERSION >= 13000) re-maps five driver API names to new
 *    entry points with new signatures:
 *        cuCtxCreate            -> cuCtxCreate_v4            (+ CUctxCreateParams *)
 *        cuMemAdvise            -> cuMemAdvise_v2            (CUmemLocation)
 *        cuMemPrefetchAsync     -> cuMemPrefetchAsync_v2     (CUmemLocation, flags)
 *        cuGraphAddDependencies -> cuGraphAddDependencies_v2 (+ CUgraphEdgeData *)
 *        cuGraphGetEdges        -> cuGraphGetEdges_v2        (+ CUgraphEdgeData *)
 *    gorgonia.org/cu v0.9.6 calls them with the CUDA 12 argument lists and
 *    does not compile. The driver (and the toolkit's stub libcuda.so) still
 *    export the CUDA 12 entry points (cuCtxCreate_v2, cuMemAdvise,
 *    cuMemPrefetchAsync[_ptsz], cuGraphAddDependencies, cuGraphGetEdges), so
 *    below the names are pointed back at them, with their CUDA 12 prototypes
 *    (the same ones cuda.h 13.0 itself lists in its __CUDA_API_VERSION_INTERNAL
 *    section). With this, gorgonia.org/cu v0.9.6 builds unmodified.
 *
 * 2. Deferred cuInit (all CUDA versions; define MDGEN_CUDACOMPAT_NO_DEFERRED_INIT
 *    to turn it off). gorgonia.org/cu calls cuInit(0) in its package init()
 *    and calls os.Exit(1) when that fails, so a cuda-tagged program on a
 *    machine with a driver but no usable GPU would die before main() and
 *    could never fall back to the CPU. Here cuInit is replaced, for every
 *    file that includes this header, by a wrapper that calls the real cuInit
 *    and reports success; runtime/gpu/cudadev calls the real cuInit again
 *    (mdgen_cudacompat_cuInit_real) in Open and returns its error. Every other
 *    driver call made before a successful cuInit fails with
 *    CUDA_ERROR_NOT_INITIALIZED, so nothing goes unnoticed.
 *
 * This file is mdgen's own; it contains no NVIDIA code.
 */
#ifndef MDGEN_CUDACOMPAT_CUDA_H
#define MDGEN_CUDACOMPAT_CUDA_H

#include_next <cuda.h>

#define MDGEN_CUDACOMPAT 1

#if defined(CUDA_VERSION) && CUDA_VERSION >= 13000

#ifdef __cplusplus
extern "C" {
#endif

#undef cuCtxCreate
#undef cuMemAdvise
#undef cuMemPrefetchAsync
#undef cuGraphAddDependencies
#undef cuGraphGetEdges

/* cuCtxCreate: CUDA 12's cuCtxCreate was #defined to cuCtxCreate_v2. */
#define cuCtxCreate cuCtxCreate_v2
CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);

/* cuMemAdvise: the unversioned CUDA 12 entry point. */
CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUdevice device);

/* cuMemPrefetchAsync: unversioned; _ptsz under per-thread default streams. */
#if defined(__CUDA_API_PER_THREAD_DEFAULT_STREAM)
#define cuMemPrefetchAsync cuMemPrefetchAsync_ptsz
CUresult CUDAAPI cuMemPrefetchAsync_ptsz(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream);
#else
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, CUdevice dstDevice, CUstream hStream);
#endif

/* Graph edges without CUgraphEdgeData. */
CUresult CUDAAPI cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to, size_t numDependencies);
CUresult CUDAAPI cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges);

#ifdef __cplusplus
}
#endif

#endif /* CUDA_VERSION >= 13000 */

#ifndef MDGEN_CUDACOMPAT_NO_DEFERRED_INIT
#define MDGEN_CUDACOMPAT_DEFERRED_INIT 1

/* The real cuInit, for runtime/gpu/cudadev's Open. */
static inline CUresult mdgen_cudacompat_cuInit_real(unsigned int flags) {
	return cuInit(flags);
}

/* What every other includer (gorgonia.org/cu's init) calls as cuInit. */
static inline CUresult mdgen_cudacompat_cuInit_deferred(unsigned int flags) {
	(void)cuInit(flags);
	return CUDA_SUCCESS;
}

#undef cuInit
#define cuInit mdgen_cudacompat_cuInit_deferred
#endif /* MDGEN_CUDACOMPAT_NO_DEFERRED_INIT */

#endif /* MDGEN_CUDACOMPAT_CUDA_H */
