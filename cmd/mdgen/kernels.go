package main

// The -kernels and -nvcc flags of solve, tune and bench: where the kernels
// that runtime/gpu/kernels builds are cached, and which nvcc builds them.

import (
	"flag"

	"github.com/mdgen/mdgen/runtime/gpu/kernels"
)

// kernelFlags registers -kernels (default kernels.DefaultDir) and -nvcc
// on fs; when prefixes their usage (e.g. "with -gpu: ").
func kernelFlags(fs *flag.FlagSet, when string) (dir, nvccPath *string) {
	dir = fs.String("kernels", kernels.DefaultDir, when+"folder of the fatbin cache (and of the kernel sources nvcc compiled)")
	nvccPath = fs.String("nvcc", "", when+"path of nvcc (default: $NVCC, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin)")
	return dir, nvccPath
}
