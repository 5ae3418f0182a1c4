// Package xcheck is the shared input generator and hash of the Go/C++/CUDA
// cross-check of the generated multiple-double arithmetic.
//
// mdgen emits every operation twice from one IR: as Go code in package mdops
// and as CUDA/C++ headers in generated/cuda. Both must produce bit-identical
// results. The cross-check feeds the same operands to both implementations
// and compares FNV-1a hashes of their outputs:
//
//   - Pair generates the operands. It is mirrored line for line by
//     driver.cu in this directory, and it uses only exact operations
//     (splitmix64 integers, conversion of 53-bit integers to float64,
//     ldexp/frexp of exactly representable values, negation, copying), so
//     the Go and C++ sides obtain the same bits without depending on how
//     either compiler rounds or contracts floating-point arithmetic.
//   - Hash folds limbs into an FNV-1a 64 hash, canonicalising NaNs, whose
//     payload and sign legitimately differ between Go, host C++ and CUDA.
//
// NeedCXX and CompileHeaders (cxx.go) are the tests' one way to find g++ and
// compile a driver against generated/cuda with -ffp-contract=off.
//
// driver.cu compiles both as plain host C++ (g++ -x c++) and with nvcc; the
// nvcc build computes every output on the GPU. Usage of the built driver:
//
//	xcheck COUNT SEED                  # hash lines: "N inputs HASH", "N OP HASH"
//	xcheck COUNT SEED dump N OP K      # limbs of the first K outputs, in hex
//
// XCHECK_TIMING=1 in the driver's environment reports each operation's
// compute time on stderr. Compiled with -DXCHECK_INPUTS_ONLY the driver needs
// no generated header and only prints the "N inputs" lines (and dumps
// inputs); TestDriverMirrorsPair uses that to check the C++ mirror of Pair
// on its own.
//
// The Go side of the comparison is TestCUDAHeadersMatchGo in package mdops
// (mdops/xcheck_test.go), which builds the driver with g++, runs it and
// recomputes every hash with the generated Go code. Setting
// MDGEN_XCHECK_EXPECT=/some/file makes that test write the Go side's lines
// to the file, for diffing against the output of an nvcc-built driver on a
// GPU machine:
//
//	nvcc -std=c++17 -O2 -fmad=false -arch=sm_90 -I generated/cuda \
//	    internal/xcheck/driver.cu -o xcheck_gpu
//	./xcheck_gpu 100000 1 | diff expected.txt -
package xcheck
