// Package gpuabi is the GPU contract: what the emitted CUDA code (package
// gen, templates/kernels.cu.tmpl) and the GPU executor (package
// runtime/gpu, build tag cuda) agree on, in plain Go without cgo, so that
// the emitter, the executor, the benchmarks and the tests share one copy.
//
// It holds the layout version, the data layout and the job tables, the
// kernels' names, kinds and parameters, the convolution kernel's schedule
// (Schedule, ThreadChains: the specification that the kernel's
// mdgen_schedule reproduces, checked by gen's tests) and the launch shapes
// with their fitted model of the H100/H200 (LaunchShape), and the plainest
// kernels that keep the contract (ReferenceKernelsCU).
//
// Change LayoutVersion with any change of the contract; emitted packages
// carry a compile-time guard on it and fatbins carry it in a symbol
// (LayoutSymbol), so a stale one is refused at build or load time.
//
// # Data
//
// One device array of doubles. Limb l (0..N-1) of part q (0 real, 1
// imaginary; real data has part 0 only) of coefficient k of slot s is at
//
//	data[(q*N + l)*slotStride + s*(degree+1) + k],  slotStride = numSlots*(degree+1)
//
// that is one array per limb and part, every series degree+1 consecutive
// doubles (PHCpack's layout: threads of a block reading consecutive
// coefficients of one limb coalesce).
//
// # Job tables
//
// int32. Convolution job j is (out, a, b) at jobs[3j:3j+3]; addition job
// j is (dst, src) at jobs[2j:2j+2]; jobs are stored layer after layer, so
// a layer is the range [first, first+count) (JobTables).
//
// # Kernels
//
// One per precision N and real/complex (extern "C" names, KernelName):
//
//	mdgen_conv_r<N>, mdgen_conv_c<N>: out = a * b (stager.ConvJob order, bit for bit;
//	                                  complex: Gauss's three real convolutions)
//	mdgen_add_r<N>,  mdgen_add_c<N>:  dst += src
//
// all with the same parameters, each 8 bytes (gorgonia.org/cu passes every
// kernel argument as 8 bytes):
//
//	(double* data, long long slotStride, long long degree,
//	 const int* jobs, long long first, long long count)
//
// launched with gridDim.x = count (one block per job) and the block size and
// dynamic shared memory that LaunchShape returns.
//
// # Batches
//
// The batched contract (batch.go, BatchLayoutVersion) runs one plan for
// many paths, each with its own data, one thread per job and path, or one
// block per path for all layers (a device function that a block per path
// calls: BatchEvalBlockName, EvalTables). The batched linear algebra
// (batchla.go) is Newton's for many small systems, one block per path;
// the batched Newton solve (bnewton.go) is runtime/newton's whole driver
// per block, on both.
package gpuabi
