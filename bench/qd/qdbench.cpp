// qdbench times libqd (dd_real, qd_real) on the same inputs that
// mdops/qdcompare_test.go (BenchmarkQDCompare) feeds to the generated Go
// code, so that bench/qd/run.sh can print both side by side.
//
// Build: g++ -O3 -march=x86-64 qdbench.cpp -lqd
//
// Output, one machine-readable line per measurement on stdout:
//
//   qd <type> <op> <ns/op>          e.g. "qd dd add_sloppy 1.23"
//   qd fingerprint <type> 0x<hex>   FNV-1a of the input limbs
//
// Human-oriented details (compiler flags, checksums) go to stderr.
#include <qd/dd_real.h>
#include <qd/fpu.h>
#include <qd/qd_real.h>

#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

// Number of (x, y) pairs in the ring; a power of two so that the ring index
// is i & (kPairs - 1), exactly as in the Go benchmark.
constexpr long kPairs = 1024;
constexpr long kMask = kPairs - 1;

// Each timed run repeats the ring loop until it lasts at least this long.
constexpr double kMinRunSeconds = 0.2;
// Best of this many timed runs is reported.
constexpr int kRuns = 5;

// splitmix64, bit-for-bit the generator in qdcompare_test.go.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // unit returns a uniform double in [0, 1); the conversion and the scaling
  // by 2^-53 are both exact, so Go and C++ agree bit for bit.
  double unit() { return (double)(next() >> 11) * 0x1p-53; }
};

// fill_operand writes n normalized limbs: limb0 in [1, 2), and each further
// limb at most half an ulp of its predecessor. Only exact operations
// (frexp, ldexp, subtraction of 0.5 from a value in [0, 1)) are used so the
// Go side reproduces the same bits. unit() is drawn for every limb, even when
// the predecessor is zero, so the stream position never depends on values.
void fill_operand(SplitMix64 &rng, double *limb, int n) {
  limb[0] = 1.0 + rng.unit();
  for (int k = 1; k < n; k++) {
    int e;
    std::frexp(limb[k - 1], &e);  // ulp(limb[k-1]) = 2^(e-53)
    double v = std::ldexp(rng.unit() - 0.5, e - 53);
    limb[k] = (limb[k - 1] == 0.0) ? 0.0 : v;
  }
}

// make_limbs fills kPairs pairs (x then y for each i) of n-limb operands from
// a fresh generator seeded with 42.
void make_limbs(int n, double *x, double *y) {
  SplitMix64 rng{42};
  for (long i = 0; i < kPairs; i++) {
    fill_operand(rng, x + i * n, n);
    fill_operand(rng, y + i * n, n);
  }
}

// fingerprint is FNV-1a over the IEEE bits of the limbs in generation order
// (x0, y0, x1, y1, ...); the Go test pins the same value so that both sides
// provably use identical inputs.
uint64_t fingerprint(int n, const double *x, const double *y) {
  uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](double d) {
    uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    for (int s = 0; s < 64; s += 8) {
      h ^= (b >> s) & 0xff;
      h *= 0x100000001b3ULL;
    }
  };
  for (long i = 0; i < kPairs; i++) {
    for (int k = 0; k < n; k++) mix(x[i * n + k]);
    for (int k = 0; k < n; k++) mix(y[i * n + k]);
  }
  return h;
}

// Operands and results live in static arrays (like the Go side's fixed-size
// arrays) so the ring loop indexes them without any indirection.
dd_real g_ddx[kPairs], g_ddy[kPairs], g_ddout[kPairs];
qd_real g_qdx[kPairs], g_qdy[kPairs], g_qdout[kPairs];

// g_sink receives a checksum of every run so the results are observable.
volatile double g_sink;

inline void clobber() { asm volatile("" ::: "memory"); }

// ring_loop is the timed kernel: the same loop as the Go benchmark.
// Op is a lambda, so the libqd inline functions are inlined into the loop,
// just as the Go compiler may inline the generated methods.
template <class T, class Op>
__attribute__((noinline)) void ring_loop(long iters, const T *x, const T *y,
                                         T *out, Op op) {
  for (long i = 0; i < iters; i++) {
    long j = i & kMask;
    out[j] = op(x[j], y[j]);
  }
}

template <class T>
double checksum(const T *out) {
  double s = 0;
  for (long j = 0; j < kPairs; j++) s += out[j].x[0];
  return s;
}

template <class T, class Op>
double run_seconds(long iters, const T *x, const T *y, T *out, Op op) {
  clobber();
  auto t0 = std::chrono::steady_clock::now();
  clobber();
  ring_loop(iters, x, y, out, op);
  clobber();
  auto t1 = std::chrono::steady_clock::now();
  clobber();
  g_sink = checksum(out);
  return std::chrono::duration<double>(t1 - t0).count();
}

// bench returns the best-of-kRuns time per operation in nanoseconds, after
// calibrating the iteration count so one run lasts >= kMinRunSeconds.
template <class T, class Op>
double bench(const T *x, const T *y, T *out, Op op) {
  long iters = kPairs;
  while (run_seconds(iters, x, y, out, op) < kMinRunSeconds) iters *= 2;
  double best = 1e300;
  for (int r = 0; r < kRuns; r++) {
    double s = run_seconds(iters, x, y, out, op);
    if (s < best) best = s;
  }
  return best * 1e9 / (double)iters;
}

template <class T, class Op>
void report(const char *type, const char *name, const T *x, const T *y,
            T *out, Op op) {
  double ns = bench(x, y, out, op);
  std::printf("qd %s %s %.3f\n", type, name, ns);
  std::fflush(stdout);
  std::fprintf(stderr, "qdbench: %s %s %.3f ns/op (checksum %.17g)\n", type,
               name, ns, (double)g_sink);
}

}  // namespace

int main() {
  // On x86-64 arithmetic is SSE2 and this is a no-op, but libqd asks for it
  // on every platform (it fixes x87 precision where that matters).
  unsigned int old_cw;
  fpu_fix_start(&old_cw);

  static double lx[kPairs * 4], ly[kPairs * 4];

  make_limbs(2, lx, ly);
  std::printf("qd fingerprint dd 0x%016" PRIx64 "\n", fingerprint(2, lx, ly));
  for (long i = 0; i < kPairs; i++) {
    g_ddx[i] = dd_real(lx[2 * i], lx[2 * i + 1]);
    g_ddy[i] = dd_real(ly[2 * i], ly[2 * i + 1]);
  }

  make_limbs(4, lx, ly);
  std::printf("qd fingerprint qd 0x%016" PRIx64 "\n", fingerprint(4, lx, ly));
  for (long i = 0; i < kPairs; i++) {
    g_qdx[i] = qd_real(lx[4 * i], lx[4 * i + 1], lx[4 * i + 2], lx[4 * i + 3]);
    g_qdy[i] = qd_real(ly[4 * i], ly[4 * i + 1], ly[4 * i + 2], ly[4 * i + 3]);
  }

#ifdef QD_FMA
  std::fprintf(stderr, "qdbench: libqd two_prod uses QD_FMA\n");
#else
  std::fprintf(stderr, "qdbench: libqd two_prod uses Dekker split (no QD_FMA)\n");
#endif

  using D = dd_real;
  using Q = qd_real;
  const D *dx = g_ddx, *dy = g_ddy;
  D *dout = g_ddout;
  const Q *qx = g_qdx, *qy = g_qdy;
  Q *qout = g_qdout;

  // dd_real. operator+ is sloppy_add unless libqd was configured with
  // QD_IEEE_ADD, so both are named explicitly. operator* has one variant.
  // operator/ is sloppy_div under QD_SLOPPY_DIV (the Debian default).
  report("dd", "add_sloppy", dx, dy, dout,
         [](const D &a, const D &b) { return D::sloppy_add(a, b); });
  report("dd", "add_ieee", dx, dy, dout,
         [](const D &a, const D &b) { return D::ieee_add(a, b); });
  report("dd", "mul", dx, dy, dout,
         [](const D &a, const D &b) { return a * b; });
  report("dd", "div_sloppy", dx, dy, dout,
         [](const D &a, const D &b) { return a / b; });
  report("dd", "div_accurate", dx, dy, dout,
         [](const D &a, const D &b) { return D::accurate_div(a, b); });

  // qd_real. sloppy_add/ieee_add and sloppy_mul/accurate_mul are inline in
  // qd_inline.h (so they follow our compiler flags); sloppy_div and
  // accurate_div are compiled into libqd.so with Debian's flags.
  report("qd", "add_sloppy", qx, qy, qout,
         [](const Q &a, const Q &b) { return Q::sloppy_add(a, b); });
  report("qd", "add_ieee", qx, qy, qout,
         [](const Q &a, const Q &b) { return Q::ieee_add(a, b); });
  report("qd", "mul_sloppy", qx, qy, qout,
         [](const Q &a, const Q &b) { return Q::sloppy_mul(a, b); });
  report("qd", "mul_accurate", qx, qy, qout,
         [](const Q &a, const Q &b) { return Q::accurate_mul(a, b); });
  report("qd", "div_sloppy", qx, qy, qout,
         [](const Q &a, const Q &b) { return Q::sloppy_div(a, b); });
  report("qd", "div_accurate", qx, qy, qout,
         [](const Q &a, const Q &b) { return Q::accurate_div(a, b); });

  fpu_fix_end(&old_cw);
  return 0;
}
