#!/usr/bin/env bash
# The GPU bench in two steps: build here (Go, no GPU), run there (GPU, nvcc,
# no Go).
#
#   scripts/gpu-bench.sh build            # here: .gpu/mdgen and .gpu/runtime.test (make gpu + the test binary of runtime/gpu)
#   scripts/gpu-bench.sh run [flags]      # there: compile the kernels, run the table, write $OUT (or bench-out/)
#   scripts/gpu-bench.sh newton [flags]   # there: mdgen bench -newton (problem -1 beside PHCpack's Newton), newton.* in $OUT
#   scripts/gpu-bench.sh part K [flags]   # there: part K (1..5) of the full table, each inside one 10-minute device call
#   scripts/gpu-bench.sh selftest         # there: the GPU executor's own tests (reference kernels vs the CPU executor)
#
# The whole table with -check low does not fit one 10-minute device call:
# the CPU comparisons of the 10d d=152 cases take 0.5 to 3.5 minutes each
# (16 cores), the GPU part of the table about two minutes. The parts split
# it; merge their bench.json files here afterwards:
#
#   part 1: -prec 1,2,3,4,5,8                       (all systems, degrees, real and complex)
#   part 2: -prec 10 -complex real
#   part 3: -prec 10 -complex complex -systems p1,p3
#   part 4: -prec 10 -complex complex -systems p2
#   part 5: -prec 10 -degrees 255,511 -check none   (the extra degrees)
#
#   go run ./cmd/mdgen bench -merge /work/.device/A/bench.json,/work/.device/B/bench.json,... -out bench-results
#
# On the lent H200 (device tool), carrying the tagged binaries:
#
#   run(command: "scripts/gpu-bench.sh run", carry: [".gpu"])
#
# `run` passes its flags to `mdgen bench` (see `mdgen bench -h`), after these
# defaults: -kernels build/kernels (a content-hash cache of the fatbins that
# survives while the machine stays warm; build/ is git-ignored), -out $OUT and
# -deadline 9m (cases and checks not done by then are reported as such).
# Everything it writes is in $OUT: bench.txt (the tables), bench.log (progress
# and nvcc's resource reports), bench.csv, bench.svg, bench.json; the table is
# printed last.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-run}
[ $# -gt 0 ] && shift

case "$mode" in
build)
	make gpu
	make gpu-runtime-test
	ls -l .gpu/mdgen .gpu/runtime.test
	echo "carry .gpu to the GPU machine and run: scripts/gpu-bench.sh run [mdgen bench flags]"
	;;
run | part | selftest | newton)
	out=${OUT:-bench-out}
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	export PATH="$PATH:/usr/local/cuda/bin"
	if [ ! -x .gpu/mdgen ]; then
		echo "gpu-bench: no .gpu/mdgen: build it here with scripts/gpu-bench.sh build and carry .gpu" >&2
		exit 1
	fi
	command -v nvcc >/dev/null || { echo "gpu-bench: nvcc not on PATH nor in /usr/local/cuda/bin" >&2; exit 1; }
	if command -v nvidia-smi >/dev/null; then
		nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader || true
	fi
	nvcc --version | tail -n 2
	if [ "$mode" = selftest ]; then
		[ -x .gpu/runtime.test ] || { echo "gpu-bench: no .gpu/runtime.test (scripts/gpu-bench.sh build)" >&2; exit 1; }
		cd runtime/gpu # the test binary of the GPU executor (package runtime/gpu; make gpu-runtime-test)
		set -o pipefail
		MDGEN_GPU_TEST_CACHE=../../build/kernels-test ../../.gpu/runtime.test -test.run 'GPU' -test.v -test.count=1 "$@" 2>&1 | tee "$out/selftest.log"
		exit "${PIPESTATUS[0]}"
	fi
	if [ "$mode" = newton ]; then
		status=0
		.gpu/mdgen bench -newton -kernels build/kernels -out "$out" -deadline 9m "$@" >/dev/null || status=$?
		[ -f "$out/newton.txt" ] && cat "$out/newton.txt"
		exit $status
	fi
	preset=()
	if [ "$mode" = part ]; then
		k=${1:-}
		[ $# -gt 0 ] && shift
		case "$k" in
		1) preset=(-prec 1,2,3,4,5,8) ;;
		2) preset=(-prec 10 -complex real) ;;
		3) preset=(-prec 10 -complex complex -systems p1,p3) ;;
		4) preset=(-prec 10 -complex complex -systems p2) ;;
		5) preset=(-prec 10 -degrees 255,511 -check none) ;;
		*) echo "gpu-bench: part 1..5, not '$k'" >&2; exit 2 ;;
		esac
	fi
	status=0
	.gpu/mdgen bench -kernels build/kernels -out "$out" -deadline 9m "${preset[@]}" "$@" >/dev/null || status=$?
	[ -f "$out/bench.txt" ] && cat "$out/bench.txt"
	exit $status
	;;
*)
	echo "usage: scripts/gpu-bench.sh build | run [mdgen bench flags] | part 1..5 [mdgen bench flags] | newton [mdgen bench -newton flags] | selftest [go test flags]" >&2
	exit 2
	;;
esac
