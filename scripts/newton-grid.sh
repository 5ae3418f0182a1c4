#!/usr/bin/env bash
# newton-grid.sh: the CPU Newton benchmark grid of issue 11 (BenchmarkMonomial
# with MDGEN_BENCH_LARGE=1: n = 32, 64, 128; d = 16, 32, 64; 2, 4, 8 doubles;
# real and complex; 1 and 2 workers) and la's BenchmarkRates, on a machine
# with many cores: the cases run as independent processes, at most JOBS at a
# time (each uses at most 2 cores), so the grid fits in minutes.
#
#   scripts/newton-grid.sh build        # compile the test binaries into .gpu/
#   scripts/newton-grid.sh grid OUTDIR  # the Newton grid (JOBS=10 at a time)
#   scripts/newton-grid.sh la OUTDIR    # la's rates and 2-worker speedups, pinned (see la)
#   scripts/newton-grid.sh la-table RAWDIR  # the medians of la's repeats
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
	# la's BenchmarkRates, pinned: independent processes, one per unit
	# (a type, a size, some routines; a variant of the team settings) and
	# repeat, each pinned by taskset to two distinct physical cores (one
	# logical CPU of each, from lscpu; their SMT siblings stay idle), as many
	# at a time as there are such pairs (JOBS), longest units first.
	# REPS (3) repeats of each unit on different pairs; la-table takes the
	# medians. Before them: BenchmarkMeeting and BenchmarkBareScaling on a
	# pair of distinct cores and on two SMT siblings of one core (if any).
	# LA_TEST names the test binary (.gpu/la.test); LIMIT (s, 170) cuts the
	# units off (what finished is kept).
	out=${2:?usage: newton-grid.sh la OUTDIR}
	bin=$(realpath "${LA_TEST:-.gpu/la.test}")
	reps=${REPS:-3}
	mkdir -p "$out/raw"
	out=$(realpath "$out")
	lscpu >"$out/lscpu.txt"
	lscpu -p=CPU,CORE,SOCKET | grep -v '^#' >"$out/cpus.txt"
	mapfile -t phys < <(awk -F, '!seen[$3","$2]++ {print $1}' "$out/cpus.txt")
	sib=$(awk -F, -v c="${phys[0]}" '{cpu[NR]=$1; key[NR]=$3","$2; if ($1==c) k=$3","$2} END {for (i=1; i<=NR; i++) if (key[i]==k && cpu[i]!=c) {print cpu[i]; exit}}' "$out/cpus.txt")
	pairs=""
	for ((i = 0; i + 1 < ${#phys[@]}; i += 2)); do pairs+="${phys[i]},${phys[i+1]} "; done
	npairs=$((${#phys[@]} / 2))
	jobs=${JOBS:-$npairs}
	echo "logical CPUs $(wc -l <"$out/cpus.txt"), physical cores ${#phys[@]}, pairs: $pairs; SMT sibling of ${phys[0]}: ${sib:-none}" | tee "$out/pairs.txt"
	cd mdops/la
	taskset -c "${phys[0]},${phys[1]}" "$bin" -test.run '^$' -test.bench 'Meeting|BareScaling' -test.benchtime 1x -test.cpu 2 >"$out/raw/topology-distinct-cores.txt" 2>&1 || true
	if [ -n "$sib" ]; then
		taskset -c "${phys[0]},$sib" "$bin" -test.run '^$' -test.bench 'Meeting|BareScaling' -test.benchtime 1x -test.cpu 2 >"$out/raw/topology-smt-siblings.txt" 2>&1 || true
	fi
	# The units, longest first: name|environment|-test.bench pattern.
	rest='^(MulSub|ApplyQHMany16|SolveRMany16|ApplyQH|SolveR)$'
	units() {
		local t n N c
		for u in C8:128:QR F8:128:QR C8:128:rest C8:64:QR F8:128:rest C8:64:rest C4:128: F8:64: C8:32: F8:32: F4:128: C4:64: C4:32: C2:128: F2:128: F4:64: F4:32: C2:64: F2:64: C2:32: F2:32:; do
			IFS=: read -r t n c <<<"$u"
			N=${t#?}
			cx=0
			[ "${t:0:1}" = C ] && cx=1
			case $c in
			QR) pat="Rates/^$t\$/^QR\$/" ;;
			rest) pat="Rates/^$t\$/$rest/" ;;
			*) pat="Rates/^$t\$/" ;;
			esac
			echo "$t-n$n${c:+-$c}|LA_BENCH_NS=$N LA_BENCH_SIZES=$n LA_BENCH_COMPLEX=$cx|$pat"
		done
		# The single-vector teams with other settings than the generated
		# ones (team thresholds at their minimum; ApplyQH's lane groups).
		for N in 2 4; do
			echo "teams-q1-g1-N$N|LA_BENCH_NS=$N LA_BENCH_QHMIN=1 LA_BENCH_TRMIN=0 LA_BENCH_QHGROUP=1|Rates/./^(ApplyQH|SolveR)\$/"
			echo "teams-q1-g8-N$N|LA_BENCH_NS=$N LA_BENCH_QHMIN=1 LA_BENCH_QHGROUP=8|Rates/./^ApplyQH\$/"
			echo "teams-q8-g8-N$N|LA_BENCH_NS=$N LA_BENCH_QHMIN=8 LA_BENCH_QHGROUP=8|Rates/./^ApplyQH\$/"
		done
		echo "teams-tr16-N2|LA_BENCH_NS=2 LA_BENCH_TRMIN=16|Rates/./^SolveR\$/"
	}
	run_unit() {
		local name env pat cpus
		IFS='|' read -r name env pat <<<"$1"
		cpus=$(echo $PAIRS | cut -d' ' -f$((SLOT + 1)))
		left=$((DEADLINE - $(date +%s)))
		[ "$left" -gt 0 ] || return 0
		{
			echo "# unit $name on CPUs $cpus: $env $pat"
			timeout "$left" env $env ${PIN:+$PIN "$cpus"} "$BIN" -test.run '^$' -test.bench "$pat" -test.benchtime 1x -test.cpu 2 -test.timeout 20m 2>&1 || echo "FAILED or cut off: $name"
		} >"$OUT/raw/$name.txt"
	}
	export -f run_unit
	PIN="taskset -c"
	command -v taskset >/dev/null || { PIN=; echo "no taskset: NOT pinned" | tee -a "$out/pairs.txt"; }
	export PIN
	export PAIRS="$pairs" BIN="$bin" OUT="$out" DEADLINE=$(($(date +%s) + ${LIMIT:-170}))
	# Round r of the repeats starts after round r-1 has (so that the
	# repeats of a unit do not run at the same moment). The QRs of n = 128
	# at 8 doubles run once: each takes a minute, and its speed-up is
	# already the median of at least 5 pairs of timings.
	for ((r = 1; r <= reps; r++)); do
		units | while IFS= read -r u; do
			case $u in ?8-n128-QR\|*) [ "$r" = 1 ] || continue ;; esac
			echo "${u/|/.r$r|}"
		done
	done >"$out/units.txt"
	xargs -d '\n' -P "$jobs" --process-slot-var=SLOT -I{} bash -c 'run_unit "$@"' _ {} <"$out/units.txt"
	cd ../..
	"$0" la-table "$out/raw" >"$out/la-rates.txt"
	# the raw outputs in one file (a device's copy back may cap the count)
	tar czf "$out/raw.tgz" -C "$out" raw
	echo "wrote $out/la-rates.txt, $out/raw.tgz"
	;;
la-table)
	# The medians over the repeats of each case of the la mode's raw
	# outputs: one line per unit variant and case.
	raw=${2:?usage: newton-grid.sh la-table RAWDIR}
	for f in "$raw"/*.txt; do
		v=$(basename "$f" .txt)
		v=${v%.r[0-9]*}
		case $v in teams-*) v=${v%-N[0-9]*} ;; topology-*) continue ;; *) v=generated ;; esac
		{ grep '^BenchmarkRates/' "$f" || true; } | sed "s|^|$v |"
	done | awk '
	function med(s,   a, n, i, j, t) {
		n = split(s, a, " ")
		for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j+1] = a[j]; a[j+1] = t }
		return n ? a[int((n + 1) / 2)] : "-"
	}
	{
		key = $1 " " $2; sub(/-[0-9]+$/, "", key)
		if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
		cnt[key]++
		for (i = 6; i < NF; i += 2) { vals[key, $(i+1)] = vals[key, $(i+1)] " " $i; has[$(i+1)] = 1 }
	}
	END {
		split("Mmadd/s of-bare speedup speedup-best control bound bare-Mmadd/s", ms, " ")
		printf "%-12s %-42s %4s", "settings", "case", "reps"
		for (j = 1; j <= 7; j++) printf " %12s", ms[j]
		printf "\n"
		for (k = 1; k <= nk; k++) {
			split(order[k], kk, " ")
			printf "%-12s %-42s %4d", kk[1], kk[2], cnt[order[k]]
			for (j = 1; j <= 7; j++) printf " %12s", ((order[k], ms[j]) in vals) ? med(vals[order[k], ms[j]]) : "-"
			printf "\n"
		}
	}'
	;;
*)
	echo "usage: scripts/newton-grid.sh build | grid OUTDIR | la OUTDIR | la-table RAWDIR" >&2
	exit 2
	;;
esac
