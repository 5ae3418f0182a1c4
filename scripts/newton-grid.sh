#!/usr/bin/env bash
# newton-grid.sh: the CPU Newton benchmark grid of issue 11 (BenchmarkMonomial
# with MDGEN_BENCH_LARGE=1: n = 32, 64, 128; d = 16, 32, 64; 2, 4, 8 doubles;
# real and complex; 1 and 2 workers) and la's BenchmarkRates, on a machine
# with many cores: the cases run as independent processes, at most JOBS at a
# time (each uses at most 2 cores), so the grid fits in minutes.
#
#   scripts/newton-grid.sh build        # compile the test binaries into .gpu/
#   scripts/newton-grid.sh grid OUTDIR  # the Newton grid (JOBS=10 at a time)
#   scripts/newton-grid.sh la OUTDIR    # la's rates and 2-worker speedups, alone
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
build)
	mkdir -p .gpu
	go test -c -o .gpu/newton.test ./runtime/newton
	go test -c -o .gpu/la.test ./mdops/la
	;;
grid)
	out=${2:?usage: newton-grid.sh grid OUTDIR}
	mkdir -p "$out"
	jobs=${JOBS:-10}
	cases=()
	for n in 128 64 32; do
		for d in 64 32 16; do
			for p in 8 4 2; do
				for k in complex real; do
					for w in 1 2; do
						cases+=("n=$n/d=$d/${p}d/$k/w=$w")
					done
				done
			done
		done
	done
	run_case() {
		local c=$1 out=$2 f
		f=$out/newton-$(echo "$c" | tr '/=' '_-').txt
		MDGEN_BENCH_LARGE=1 .gpu/newton.test -test.run '^$' -test.bench "Monomial/$c" -test.benchtime 1x >"$f" 2>&1 || echo "FAILED $c" >>"$f"
		# one line per case, appended as it completes (short appends are
		# atomic), so a run cut off by a time limit keeps what finished
		{ grep -h '^BenchmarkMonomial' "$f" || echo "FAILED $c"; } >>"$out/newton-grid.txt"
	}
	export -f run_case
	: >"$out/newton-grid.txt"
	printf '%s\n' "${cases[@]}" | xargs -P "$jobs" -I{} bash -c 'run_case "$@"' _ {} "$out"
	sort -o "$out/newton-grid.txt" "$out/newton-grid.txt"
	echo "wrote $out/newton-grid.txt"
	;;
la)
	out=${2:?usage: newton-grid.sh la OUTDIR}
	mkdir -p "$out"
	(cd mdops/la && ../../.gpu/la.test -test.run '^$' -test.bench Rates -test.benchtime 1x -test.cpu 2) >"$out/la-rates.txt" 2>&1 || echo FAILED >>"$out/la-rates.txt"
	echo "wrote $out/la-rates.txt"
	;;
*)
	echo "usage: scripts/newton-grid.sh build | grid OUTDIR | la OUTDIR" >&2
	exit 2
	;;
esac
