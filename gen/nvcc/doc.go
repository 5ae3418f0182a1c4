// Package nvcc runs NVIDIA's CUDA compiler for mdgen: where nvcc is found
// (Find: one search order for every caller), the flags mdgen's kernels are
// compiled with (Args: one flag set, for the emitted packages, the
// benchmarks and the tests), a content-hash cache of fatbins (Compiler) and
// the build of one fatbin in a package folder (RunFatbin). Pure Go: it runs
// nvcc as a program and needs no CUDA headers.
package nvcc
