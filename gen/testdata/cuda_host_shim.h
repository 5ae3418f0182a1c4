// cuda_host_shim.h: compiles the generated kernels as host C++ (g++
// -std=c++20) for the tests of package gen. Each CUDA thread of a block is a
// std::thread; __syncthreads is a std::barrier; the dynamic shared memory
// is one array, so blocks run one at a time. Not a CUDA emulator: only what
// mdgen's kernels use.
#pragma once

#define MDGEN_HOST_EMULATION 1

#include <barrier>
#include <cstdint>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __shared__
#define __forceinline__ inline
#define __launch_bounds__(...)

struct mdgen_emu_dim3 {
  unsigned x, y, z;
};
inline thread_local mdgen_emu_dim3 threadIdx;
inline mdgen_emu_dim3 blockIdx, blockDim;
inline std::barrier<>* mdgen_emu_barrier;
inline unsigned mdgen_emu_dynamic_smem;

inline void __syncthreads() { mdgen_emu_barrier->arrive_and_wait(); }
unsigned mdgen_dynamic_smem() { return mdgen_emu_dynamic_smem; }

// The dynamic shared memory of the running block (extern __shared__).
double mdgen_smem[1 << 20];

typedef void (*mdgen_emu_kernel)(double*, long long, long long, const int*, long long, long long);

// mdgen_emu_launch runs grid blocks of block threads, one block at a time.
inline void mdgen_emu_launch(mdgen_emu_kernel k, unsigned grid, unsigned block, unsigned shared, double* data,
                             long long stride, long long degree, const int* jobs, long long first, long long count) {
  mdgen_emu_dynamic_smem = shared;
  blockDim = {block, 1, 1};
  for (unsigned b = 0; b < grid; ++b) {
    blockIdx = {b, 0, 0};
    std::barrier<> bar(block);
    mdgen_emu_barrier = &bar;
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < block; ++t) {
      ts.emplace_back([=] {
        threadIdx = {t, 0, 0};
        k(data, stride, degree, jobs, first, count);
      });
    }
    for (auto& t : ts) t.join();
  }
}
