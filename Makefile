# mdgen: multiple-double arithmetic for Go and CUDA.
GO ?= go

.PHONY: cudacompat bench-cpu gpu-kernels all generate check-generated test test-short fuzz-smoke bench bench-qd ops build gpu gpu-runtime-test bench-gpu

all: build test

build:
	$(GO) build ./...

# Regenerate mdops/f<N>_gen.go and generated/cuda/*.cuh from the IR, and the
# emitted solver packages generated/p1, p2, p3 (8-double real, degree 31;
# sources only: `make gpu-kernels` builds their fatbins where nvcc is), and
# the packages of the examples' go:generate directives.
generate:
	$(GO) run ./cmd/mdgen generate
	for p in p1 p2 p3; do $(GO) run ./cmd/mdgen emit $$p -prec 8 -degree 31 -nvcc none -profile none -o generated/$$p || exit 1; done
	cd examples/evaldemo && $(GO) generate
	cd examples/pathdemo && $(GO) generate

# Fail when the committed generated code differs from what the generator writes.
check-generated: generate
	@git diff --exit-code --stat -- mdops generated examples || { echo "generated code is stale: run make generate and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- mdops generated)" || { git status --porcelain -- mdops generated; echo "untracked generated files"; exit 1; }

# All tests: accuracy against math/big, special values, Go vs host-C++ bit
# identity of the CUDA headers (needs g++), the PHCpack round trip (needs
# phc), fuzz seed corpora, freshness. About 12 minutes on 2 cores;
# test-short (go test -short) takes 2 to 4.
# The report lists every skipped test at the end (demo files or a GPU
# missing), so that a quiet skip cannot pass for a run.
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 40m -json ./... | $(GO) run ./internal/testreport

test-short:
	$(GO) test -short -count=1 ./...

# A few seconds of real fuzzing per operation (about 8,000 executions a
# second on 2 cores). The budget is a count, not a time: with -fuzztime 5s
# Go 1.26's fuzzer once failed on its own deadline with no failing input
# (golang/go#75804).
FUZZ_SMOKE_EXECS ?= 40000
fuzz-smoke:
	for f in FuzzAdd FuzzSub FuzzMul FuzzSqr FuzzMulFloat64 FuzzDiv FuzzSqrt; do \
		$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZ_SMOKE_EXECS)x ./mdops || exit 1; done

# The CPU executor on p1, p2, p3 (time, speed-up from 1 to 2 workers, op
# rate) and the bare multiply-add loops it is measured against. GOAMD64=v3
# lets math.FMA compile to one instruction (about 10% faster; the results are
# bit-identical: every product in the generated code is an explicit
# float64(x*y), so nothing is fused). Narrow the grid with
# MDGEN_BENCH_SYSTEMS, MDGEN_BENCH_DEGREES, MDGEN_BENCH_NS.
CPU_GOAMD64 ?= v3
bench-cpu:
	GOAMD64=$(CPU_GOAMD64) $(GO) test -run '^$$' -bench 'BenchmarkCPU|BenchmarkBare' -benchtime 1x -timeout 0 ./runtime

# ns/op of every operation at every N.
bench:
	$(GO) test -run '^$$' -bench '^BenchmarkOps$$' ./mdops

# Side-by-side with libqd (installs libqd-dev when missing). Its judged
# ratios come from one process: Go's and libqd's loops interleaved in
# rounds, timed by the thread's CPU time, the median of the rounds' ratios
# (bench/qd/README.md).
bench-qd:
	bash bench/qd/run.sh

# Flop counts and measured accuracy per N and operation.
ops:
	$(GO) run ./cmd/mdgen ops

# Tagged CUDA build (driver API through gorgonia.org/cu): .gpu/mdgen and the
# device smoke-test binary .gpu/cudadev.test. cuda.h and libcuda.so come from
# CUDA_PATH when it is set (a toolkit: include/, lib64/stubs/), else from
# .cuda-sdk/{include/cuda.h,lib/libcuda.so} when that exists (copied from a GPU
# machine, never committed), else from /usr/local/cuda.
# Our compatibility header goes first: runtime/gpu/cudacompat/mdgen_cuda_compat.h,
# installed as build/cudacompat/cuda.h (git-ignored, so that no file named
# cuda.h is tracked), lets gorgonia.org/cu v0.9.6 compile against CUDA 13
# headers.
ifeq ($(origin CUDA_PATH),undefined)
ifneq ($(wildcard .cuda-sdk/include/cuda.h),)
CUDA_INC := $(CURDIR)/.cuda-sdk/include
CUDA_LIB := $(CURDIR)/.cuda-sdk/lib
else
CUDA_PATH := /usr/local/cuda
endif
endif
ifdef CUDA_PATH
CUDA_INC := $(CUDA_PATH)/include
CUDA_LIB := $(CUDA_PATH)/lib64/stubs
endif
# GPUDIR: where the tagged binaries go (several builds can live side by side).
GPUDIR ?= .gpu
GPU_ENV = CGO_ENABLED=1 CGO_CFLAGS="-O2 -g -I$(CURDIR)/build/cudacompat -I$(CUDA_INC)" CGO_LDFLAGS="-L$(CUDA_LIB)"

cudacompat: build/cudacompat/cuda.h
build/cudacompat/cuda.h: runtime/gpu/cudacompat/mdgen_cuda_compat.h
	@mkdir -p build/cudacompat
	cp $< $@

gpu: build/cudacompat/cuda.h
	@test -f "$(CUDA_INC)/cuda.h" || { echo "gpu: no $(CUDA_INC)/cuda.h: set CUDA_PATH to a CUDA toolkit, or put cuda.h and libcuda.so under .cuda-sdk/include and .cuda-sdk/lib"; exit 1; }
	@mkdir -p $(GPUDIR)
	$(GPU_ENV) $(GO) test -tags cuda -c -o $(GPUDIR)/cudadev.test ./runtime/gpu/cudadev
	$(GPU_ENV) $(GO) build -tags cuda -o $(GPUDIR)/mdgen ./cmd/mdgen

# The GPU executor's device tests (reference kernels vs the CPU executor):
# .gpu/runtime.test, run there by scripts/gpu-bench.sh selftest.
gpu-runtime-test: build/cudacompat/cuda.h
	@mkdir -p $(GPUDIR)
	$(GPU_ENV) $(GO) test -tags cuda -c -o $(GPUDIR)/runtime.test ./runtime/gpu

# The GPU bench on a machine with a GPU and nvcc (no Go needed there): build
# .gpu here with `scripts/gpu-bench.sh build`, carry it, then `make bench-gpu`
# (BENCH_FLAGS, e.g. -prec 8,10 -complex real, go to mdgen bench).
bench-gpu:
	bash scripts/gpu-bench.sh run $(BENCH_FLAGS)

# The fatbins of the emitted packages generated/p1, p2, p3 (git-ignored), on
# a machine with nvcc (no Go needed): the command each package's README and
# doc comment give. A later Go build embeds them (run with -tags cuda).
# The nvcc command is the one each package's fatbin/README.txt prints (one
# flag set: gen/nvcc); the stamp ties the fatbin to its .cu.
NVCC ?= nvcc
gpu-kernels:
	for p in p1 p2 p3; do (cd generated/$$p && eval "$$(sed -n 's/^  nvcc /$(NVCC) /p' fatbin/README.txt)" && \
		sha256sum $$p.cu > fatbin/$$p.fatbin.sha256) || exit 1; done
