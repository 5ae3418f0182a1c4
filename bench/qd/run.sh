#!/usr/bin/env bash
# bench/qd/run.sh -- `make bench-qd`: time libqd (dd_real, qd_real) and the
# generated Go package mdops (F2, F4) on the same inputs in one process,
# interleaved (bench/qd/ratio), and print a side-by-side table of ns/op, the
# ratios and the worst-case accuracy of both. Exits
# non-zero when a judged target misses (speed against libqd's accurate add,
# mdgen's accuracy; see bench/qd/README.md).
#
# Environment:
#   BENCH_QD_OUT  if set, the table is also written to this file
#   CXX           C++ compiler (default g++)
set -euo pipefail

orig_pwd=$PWD
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

log() { printf 'bench-qd: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

cxx=${CXX:-g++}

# --- dependencies -----------------------------------------------------------
pkgs=()
[ -f /usr/include/qd/qd_real.h ] || pkgs+=(libqd-dev)
command -v "$cxx" >/dev/null 2>&1 || pkgs+=(g++)
if [ ${#pkgs[@]} -gt 0 ]; then
  log "installing ${pkgs[*]} with apt-get..."
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >&2
fi
command -v go >/dev/null 2>&1 || die "go not found in PATH"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# --- build libqd's loops twice, and the timing command -------------------------
# 'vectorized': Debian's default optimisation for x86-64 (-O3 turns on the
# loop and SLP vectorizers). 'scalar': the same with both vectorizers off, the
# baseline the dd target is stated against. Each build is a shared library
# with its own symbol prefix (bench/qd/qdbench.cpp), so that command
# bench/qd/ratio links both and times them beside the Go loops in one
# process.
vec_flags=(-O3 -march=x86-64)
sca_flags=(-O3 -march=x86-64 -fno-tree-vectorize -fno-tree-slp-vectorize)
lib_flags=(-fPIC -shared -fvisibility=hidden -fvisibility-inlines-hidden)
log "building libqdb_vec.so (vectorized: ${vec_flags[*]})..."
"$cxx" "${vec_flags[@]}" "${lib_flags[@]}" -DQDB_PREFIX=qdb_vec_ -o "$tmp/libqdb_vec.so" bench/qd/qdbench.cpp -lqd
log "building libqdb_sca.so (scalar: ${sca_flags[*]})..."
"$cxx" "${sca_flags[@]}" "${lib_flags[@]}" -DQDB_PREFIX=qdb_sca_ -o "$tmp/libqdb_sca.so" bench/qd/qdbench.cpp -lqd
log "building bench/qd/ratio..."
CGO_ENABLED=1 CXX="$cxx" CGO_LDFLAGS="-L$tmp -Wl,-rpath,$tmp" \
  go build -tags libqd -o "$tmp/ratio" ./bench/qd/ratio

# --- run ------------------------------------------------------------------------
# Go and both libqd builds in one process, interleaved in rounds; each ratio
# is the median over the rounds of the ratio within a round (bench/qd/ratio).
log "timing Go and libqd in one process, interleaved (about 15 s)..."
"$tmp/ratio" >"$tmp/ratio.txt"

# "ns <src> <type> <op> <ns/op>" and "ratio <build> <type> <variant> <median> <min> <max>"
grep -E '^(ns|ratio) ' "$tmp/ratio.txt" >"$tmp/all.txt"

# --- table ----------------------------------------------------------------------
qdver=$(dpkg-query -W -f '${Version}' libqd-dev 2>/dev/null || echo unknown)
cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
{
  echo "mdgen (Go) vs libqd $qdver: ns/op over the same 1024 operand pairs (lower is better),"
  echo "$(sed -n 's/^# //p' "$tmp/ratio.txt"), medians in one process"
  echo "cpu: ${cpu:-unknown}; $(go version | cut -d' ' -f3-) GOAMD64=$(go env GOAMD64); $("$cxx" --version | head -n1)"
  echo "libqd vectorized build: ${vec_flags[*]}; scalar build: ${sca_flags[*]}"
  echo
  awk -v missfile="$tmp/misses" '
    BEGIN { misses = 0 }
    $1 == "ns" { v[$2 " " $3 " " $4] = $5 }
    $1 == "ratio" { q[$2 " " $3 " " $4] = $5; rng[$2 " " $3 " " $4] = sprintf("%.2f-%.2f", $6, $7) }
    function get(k) { return (k in v) ? v[k] : "" }
    function ns(x) { return x == "" ? "-" : sprintf("%.2f", x) }
    # ratio is the median over the rounds of Go / libqd variant k ("sca dd add_ieee").
    function ratio(k) { return (k in q) ? q[k] : "" }
    function info(k) { return (k in q) ? sprintf("%.2f (rounds %s)", q[k], rng[k]) : "n/a" }
    # judge prints one judged ratio; a missing number counts as a miss.
    function judge(what, k, lim, strict,   r, ok) {
      r = ratio(k)
      ok = r != "" && (strict ? r < lim : r <= lim)
      if (!ok) misses++
      printf "  %s %s %s %s %s\n", what, info(k), strict ? "<" : "<=", lim, ok ? "ok" : "MISS"
    }
    END {
      row["dd add"] = "add_sloppy add_ieee sloppy_add / ieee_add"
      row["dd mul"] = "mul - operator* / -"
      row["dd div"] = "div_sloppy div_accurate operator/=sloppy_div / accurate_div"
      row["qd add"] = "add_sloppy add_ieee sloppy_add / ieee_add"
      row["qd mul"] = "mul_sloppy mul_accurate sloppy_mul=operator* / accurate_mul"
      row["qd div"] = "div_sloppy div_accurate operator/=sloppy_div / accurate_div"
      split("dd add,dd mul,dd div,qd add,qd mul,qd div", order, ",")
      printf "%-7s %9s | %-20s | %-20s |\n", "", "", "libqd vectorized", "libqd scalar"
      printf "%-7s %9s | %9s %10s | %9s %10s | %s\n", "op", "mdgen Go",
        "fast", "accurate", "fast", "accurate", "libqd fast / accurate variant"
      for (i = 1; i <= 6; i++) {
        r = order[i]; split(r, to, " "); t = to[1]; o = to[2]
        n = split(row[r], f, " ")
        names = f[3]; for (k = 4; k <= n; k++) names = names " " f[k]
        printf "%-7s %9s | %9s %10s | %9s %10s | %s\n", r, ns(get("go " t " " o)),
          ns(get("vec " t " " f[1])), ns(get("vec " t " " f[2])),
          ns(get("sca " t " " f[1])), ns(get("sca " t " " f[2])), names
      }
      # Judged targets (a MISS makes bench-qd fail): against the fastest
      # libqd variant that meets the accuracy target with a proven bound.
      # add: ieee_add, because sloppy_add fails the target in double-double
      # (51.6 bits under cancellation; target 103) and has no proven bound
      # in quad-double (its renormalization branches on the data), while
      # mdgen keeps the proven networks at N <= 4. dd mul: operator*, the
      # only one. qd mul: sloppy_mul (it meets the target).
      print ""
      print "judged (ours / libqd, the median over the rounds of the ratio within a round, and the rounds range;"
      print "a MISS fails bench-qd): dd against the scalar build (target <= 1.5), qd against both builds"
      print "(target < 1); libqd accurate add, see bench/qd/README.md"
      judge("dd add  vs ieee_add    scalar    ", "sca dd add_ieee", 1.5, 0)
      judge("dd mul  vs operator*   scalar    ", "sca dd mul", 1.5, 0)
      judge("qd add  vs ieee_add    scalar    ", "sca qd add_ieee", 1, 1)
      judge("qd add  vs ieee_add    vectorized", "vec qd add_ieee", 1, 1)
      judge("qd mul  vs sloppy_mul  scalar    ", "sca qd mul_sloppy", 1, 1)
      judge("qd mul  vs sloppy_mul  vectorized", "vec qd mul_sloppy", 1, 1)
      print "not judged (libqd fast add: below the accuracy target for dd, no proven bound for qd):"
      printf "  dd add  vs sloppy_add  scalar     %s\n", info("sca dd add_sloppy")
      printf "  qd add  vs sloppy_add  scalar     %s\n", info("sca qd add_sloppy")
      printf "  qd add  vs sloppy_add  vectorized %s\n", info("vec qd add_sloppy")
      printf "%d\n", misses > missfile
    }' "$tmp/all.txt"
} >"$tmp/table.txt"

# --- accuracy ---------------------------------------------------------------------
# The same libqd variants on mdgen's accuracy corpus, against math/big: what
# the fast variants give up (bench/qd/accuracy).
log "building qdaccuracy and measuring accuracy (a few seconds)..."
"$cxx" "${sca_flags[@]}" -o "$tmp/qdaccuracy" bench/qd/qdaccuracy.cpp -lqd
accuracy_ok=1
{
  echo
  go run ./bench/qd/accuracy -qd "$tmp/qdaccuracy"
} >>"$tmp/table.txt" || accuracy_ok=0

cat "$tmp/table.txt"
if [ -n "${BENCH_QD_OUT:-}" ]; then
  out=$BENCH_QD_OUT
  case $out in /*) ;; *) out="$orig_pwd/$out" ;; esac
  cp "$tmp/table.txt" "$out"
  log "table written to $out"
fi

# --- verdict ------------------------------------------------------------------------
speed_misses=$(cat "$tmp/misses" 2>/dev/null || echo 1)
status=0
if [ "$speed_misses" != 0 ]; then
  log "FAIL: $speed_misses judged speed target(s) missed (MISS above)"
  status=1
fi
if [ "$accuracy_ok" != 1 ]; then
  log "FAIL: bench/qd/accuracy failed or mdgen missed an accuracy target"
  status=1
fi
[ "$status" = 0 ] && log "all judged targets met"
exit "$status"
