# mdgen: multiple-double arithmetic for Go and CUDA.
GO ?= go

.PHONY: all generate check-generated test test-short fuzz-smoke bench bench-qd ops build

all: build test

build:
	$(GO) build ./...

# Regenerate mdops/f<N>_gen.go and generated/cuda/*.cuh from the IR.
generate:
	$(GO) run ./cmd/mdgen generate

# Fail when the committed generated code differs from what the generator writes.
check-generated: generate
	@git diff --exit-code --stat -- mdops generated || { echo "generated code is stale: run make generate and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- mdops generated)" || { git status --porcelain -- mdops generated; echo "untracked generated files"; exit 1; }

# All tests: accuracy against math/big, special values, Go vs host-C++ bit
# identity of the CUDA headers (needs g++), fuzz seed corpora, freshness.
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

test-short:
	$(GO) test -short -count=1 ./...

# A few seconds of real fuzzing per operation.
fuzz-smoke:
	for f in FuzzAdd FuzzSub FuzzMul FuzzSqr FuzzMulFloat64 FuzzDiv FuzzSqrt; do \
		$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime 5s ./mdops || exit 1; done

# ns/op of every operation at every N.
bench:
	$(GO) test -run '^$$' -bench '^BenchmarkOps$$' ./mdops

# Side-by-side with libqd (installs libqd-dev when missing).
bench-qd:
	bash bench/qd/run.sh

# Flop counts and measured accuracy per N and operation.
ops:
	$(GO) run ./cmd/mdgen ops
