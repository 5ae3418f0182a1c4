// Package runtime holds the CPU executor of staged plans (goroutines over
// the layers of a stager.Plan, arithmetic from mdops), the Executor
// interface every back end implements, the layout of a series in memory
// (Layout, RoundSeries), inputs and checksums.
//
// The GPU side is in subpackages (beside the others, such as runtime/ref):
//
//	runtime/gpuabi    the GPU contract (layout version, kernels, shapes, schedule); no cgo
//	runtime/gpu       the GPU executor (build tag cuda; stubs otherwise)
//	runtime/cudadev   the CUDA driver layer on gorgonia.org/cu (runtime/cudacompat: CUDA 13 header)
//	runtime/nvcc      finding nvcc, its flags, the content-hash fatbin cache
//	runtime/solver    what the packages of `mdgen emit` call
//
// Its name clashes with the standard library's runtime on purpose of the
// design card's layout; import it as
//
//	mdrt "github.com/mdgen/mdgen/runtime"
package runtime
