// qdbench is the libqd half of `make bench-qd`: ring loops of libqd
// (dd_real, qd_real) over the operands of package bench/qd/ring, built as a
// shared library that command bench/qd/ratio calls from the process in
// which it times the Go loops, so that both sides are timed side by side,
// interleaved, under the same load.
//
// bench/qd/run.sh builds it twice, with different optimisation flags and a
// prefix that keeps the two builds' symbols apart:
//
//   g++ -O3 -march=x86-64 -fPIC -shared -fvisibility=hidden \
//       -fvisibility-inlines-hidden -DQDB_PREFIX=qdb_vec_ \
//       -o libqdb_vec.so qdbench.cpp -lqd
//
// Only the extern "C" functions are visible: libqd's inline functions,
// compiled with each build's flags, stay inside their library.
#include <qd/dd_real.h>
#include <qd/fpu.h>
#include <qd/qd_real.h>

#ifndef QDB_PREFIX
#error "define QDB_PREFIX, the prefix of this build's symbols (qdb_vec_, qdb_sca_)"
#endif
#define QDB_CAT2(a, b) a##b
#define QDB_CAT(a, b) QDB_CAT2(a, b)
#define QDB_API(type, name) \
  extern "C" __attribute__((visibility("default"))) type QDB_CAT(QDB_PREFIX, name)

namespace {

// Number of (x, y) pairs in the ring (ring.Pairs); a power of two so that
// the ring index is i & (kPairs - 1), exactly as in the Go loops.
constexpr long kPairs = 1024;
constexpr long kMask = kPairs - 1;

// Operands and results live in static arrays (like the Go side's
// package-level arrays) so the ring loop indexes them without any
// indirection.
dd_real g_ddx[kPairs], g_ddy[kPairs], g_ddout[kPairs];
qd_real g_qdx[kPairs], g_qdy[kPairs], g_qdout[kPairs];

// g_sink receives a checksum of every run so the results are observable.
volatile double g_sink;

inline void clobber() { asm volatile("" ::: "memory"); }

// ring_loop is the timed kernel: the same loop as the Go side's.
// Op is a lambda, so the libqd inline functions are inlined into the loop,
// just as the Go compiler inlines the generated methods.
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

// once runs iters operations and publishes a checksum of the results.
template <class T, class Op>
void once(long iters, const T *x, const T *y, T *out, Op op) {
  clobber();
  ring_loop(iters, x, y, out, op);
  clobber();
  g_sink = checksum(out);
}

using D = dd_real;
using Q = qd_real;

// Kernel k runs iters operations of one variant (the caller times it).
// dd_real's operator+ is sloppy_add unless libqd was configured with
// QD_IEEE_ADD, so both are named explicitly; operator* has one variant;
// operator/ is sloppy_div under QD_SLOPPY_DIV (the Debian default). For
// qd_real, sloppy_add/ieee_add and sloppy_mul/accurate_mul are inline in
// qd_inline.h (so they follow our compiler flags); sloppy_div and
// accurate_div are compiled into libqd.so with Debian's flags.
struct Kernel {
  const char *name;  // "<type> <variant>"
  void (*run)(long iters);
};

const Kernel kKernels[] = {
    {"dd add_sloppy", [](long n) { once(n, g_ddx, g_ddy, g_ddout, [](const D &a, const D &b) { return D::sloppy_add(a, b); }); }},
    {"dd add_ieee", [](long n) { once(n, g_ddx, g_ddy, g_ddout, [](const D &a, const D &b) { return D::ieee_add(a, b); }); }},
    {"dd mul", [](long n) { once(n, g_ddx, g_ddy, g_ddout, [](const D &a, const D &b) { return a * b; }); }},
    {"dd div_sloppy", [](long n) { once(n, g_ddx, g_ddy, g_ddout, [](const D &a, const D &b) { return a / b; }); }},
    {"dd div_accurate", [](long n) { once(n, g_ddx, g_ddy, g_ddout, [](const D &a, const D &b) { return D::accurate_div(a, b); }); }},
    {"qd add_sloppy", [](long n) { once(n, g_qdx, g_qdy, g_qdout, [](const Q &a, const Q &b) { return Q::sloppy_add(a, b); }); }},
    {"qd add_ieee", [](long n) { once(n, g_qdx, g_qdy, g_qdout, [](const Q &a, const Q &b) { return Q::ieee_add(a, b); }); }},
    {"qd mul_sloppy", [](long n) { once(n, g_qdx, g_qdy, g_qdout, [](const Q &a, const Q &b) { return Q::sloppy_mul(a, b); }); }},
    {"qd mul_accurate", [](long n) { once(n, g_qdx, g_qdy, g_qdout, [](const Q &a, const Q &b) { return Q::accurate_mul(a, b); }); }},
    {"qd div_sloppy", [](long n) { once(n, g_qdx, g_qdy, g_qdout, [](const Q &a, const Q &b) { return Q::sloppy_div(a, b); }); }},
    {"qd div_accurate", [](long n) { once(n, g_qdx, g_qdy, g_qdout, [](const Q &a, const Q &b) { return Q::accurate_div(a, b); }); }},
};
constexpr int kCount = sizeof kKernels / sizeof kKernels[0];

}  // namespace

// init copies the ring's operands (ring.Limbs(2), ring.Limbs(4): pair i at
// [i*n, (i+1)*n)) into the static arrays.
QDB_API(void, init)(const double *ddx, const double *ddy, const double *qdx, const double *qdy) {
  // On x86-64 arithmetic is SSE2 and this is a no-op, but libqd asks for
  // it on every platform (it fixes x87 precision where that matters).
  unsigned int old_cw;
  fpu_fix_start(&old_cw);
  for (long i = 0; i < kPairs; i++) {
    g_ddx[i] = dd_real(ddx[2 * i], ddx[2 * i + 1]);
    g_ddy[i] = dd_real(ddy[2 * i], ddy[2 * i + 1]);
    g_qdx[i] = qd_real(qdx[4 * i], qdx[4 * i + 1], qdx[4 * i + 2], qdx[4 * i + 3]);
    g_qdy[i] = qd_real(qdy[4 * i], qdy[4 * i + 1], qdy[4 * i + 2], qdy[4 * i + 3]);
  }
}

// count is the number of kernels; name(k) is kernel k's "<type> <variant>".
QDB_API(int, count)(void) { return kCount; }
QDB_API(const char *, name)(int k) { return kKernels[k].name; }

// run runs kernel k on iters operations.
QDB_API(void, run)(int k, long iters) { kKernels[k].run(iters); }

// fma says how libqd's two_prod multiplies: with FMA, or Dekker's split.
QDB_API(int, fma)(void) {
#ifdef QD_FMA
  return 1;
#else
  return 0;
#endif
}
