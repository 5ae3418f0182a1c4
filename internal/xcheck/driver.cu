// driver.cu: the C++/CUDA side of mdgen's Go/C++/CUDA cross-check.
//
// One source, two builds:
//
//   host C++:  g++ -std=c++17 -O2 -ffp-contract=off -x c++ -I generated/cuda
//                  internal/xcheck/driver.cu -o xcheck
//   GPU:       nvcc -std=c++17 -O2 -fmad=false -arch=sm_90 -I generated/cuda
//                  internal/xcheck/driver.cu -o xcheck_gpu
//
// Under nvcc (__CUDACC__) every operation runs on the GPU: inputs are made on
// the host, copied to the device, one kernel per (N, op) computes all outputs,
// and they are copied back and hashed on the host. The host build computes
// the outputs on the CPU. -ffp-contract=off and -fmad=false forbid fusing a*b+c
// into an FMA, which would change results; the headers call fma explicitly
// where they want one.
//
// Usage:
//   xcheck COUNT SEED
//       For each N in 1 2 3 4 5 8 10 16: a line "N inputs HASH" (FNV-1a of
//       x's then y's limbs of every pair, pair by pair, in index order), then
//       one line "N OP HASH" per operation, OP in
//       add sub mul div sqr sqrt neg abs mulf64 cadd csub cmul cdiv cabs
//       madd maddc cmadd,
//       hashing the limbs of the outputs for all COUNT inputs in index order
//       (complex outputs: re limbs, then im limbs, per element). HASH is 16
//       lowercase hex digits.
//   xcheck COUNT SEED dump N OP K
//       The first K outputs (K is clamped to COUNT) of operation OP at
//       precision N, one element per line: the index, then each limb's bits
//       as 16 hex digits (complex: re limbs then im limbs). OP may also be
//       "inputs": x's limbs then y's limbs.
//   With XCHECK_TIMING set in the environment, each operation's compute time
//   is reported on stderr.
//
// Built with -DXCHECK_INPUTS_ONLY the driver needs no header and supports only
// the "N inputs HASH" lines and "dump N inputs K"; internal/xcheck's tests use
// that to check the generator mirror on its own.
//
// Operand conventions (mdops/xcheck_test.go uses the same): binary ops take
// (x, y); unary ops take x; mulf64 takes (x, y[0]); complex ops take
// a = (re x, im y) and b = (re y, im x); cabs takes a. The multiply-adds
// also read z, the x of the next pair (index i+1, wrapping to 0): madd is
// madd(acc = x, y, z); maddc is madd(acc = neg(mul(y, z)), y, z), a
// cancellation down to mul's rounding error; cmadd is
// cmadd(acc = (re x, im y), (re y, im z), (re z, im x)).
//
// The input generator and the hash mirror internal/xcheck/inputs.go line for
// line (see the comments there): only exact operations, one random draw per
// statement. Keep the two in step.

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#ifndef XCHECK_INPUTS_ONLY
#include "mdgen.cuh"
#endif

#ifdef __CUDACC__
#define XC_HD __host__ __device__ __forceinline__
#else
#define XC_HD inline
#endif

// ---------------------------------------------------------------------------
// Input generator and hash: mirror of internal/xcheck/inputs.go.
// ---------------------------------------------------------------------------
namespace xc {

const uint64_t kHashInit = 14695981039346656037ULL;
const uint64_t kFnvPrime = 1099511628211ULL;
const uint64_t kCanonicalNaN = 0x7ff8000000000000ULL;

const int kMinSubExp = -1074;
const int kMinNormExp = -1022;
const int kMaxExp = 1023;
const int kRandExp = 600;
const uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

enum Category {
  CatRandom, CatCancel, CatPow2, CatZero, CatTruncated, CatSubnormal,
  CatOverflow, CatSpecial,
};

inline uint64_t bits_of(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

inline double from_bits(uint64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// hash folds n limbs into h: FNV-1a over each limb's 8 little-endian bytes,
// every NaN replaced by 0x7ff8000000000000 first (Go's Hash).
inline uint64_t hash(uint64_t h, const double* limbs, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    double v = limbs[i];
    uint64_t b = bits_of(v);
    if (v != v) b = kCanonicalNaN;
    for (int k = 0; k < 8; ++k) {
      h ^= b & 0xff;
      h *= kFnvPrime;
      b >>= 8;
    }
  }
  return h;
}

inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Rng is splitmix64 (Go's rng); every helper consumes exactly one draw.
struct Rng {
  uint64_t s;
  uint64_t next() {
    s += kGolden;
    return mix64(s);
  }
  int intn(int k) { return (int)(next() % (uint64_t)k); }
  int range(int lo, int hi) { return lo + intn(hi - lo + 1); }
  bool coin() { return (next() & 1) == 1; }
};

inline Rng new_rng(int n, uint64_t seed, int64_t i) {
  uint64_t s = seed ^ ((uint64_t)i * kGolden);
  s ^= (uint64_t)n * 0xD6E8FEB86659FD93ULL;
  Rng r;
  r.s = mix64(s);
  return r;
}

inline bool is_finite_nonzero(double v) {
  return v == v && v != 0 && !std::isinf(v);
}

inline int64_t mantissa(Rng& r) {
  int64_t m = (int64_t)(r.next() >> 11) | ((int64_t)1 << 52);
  if (r.intn(8) == 0) {
    int k = r.intn(53);
    m &= ~((((int64_t)1) << k) - 1);
  }
  return m;
}

// scaled: ±m * 2^(e-52), with bits below 2^-1074 dropped in the integer
// domain so that ldexp is always exact.
inline double scaled(int64_t m, int e, bool neg) {
  int s = e - 52;
  if (s < kMinSubExp) {
    int sh = kMinSubExp - s;
    if (sh > 52) {
      m = 0;
    } else {
      m >>= sh;
    }
    s = kMinSubExp;
  }
  double v = std::ldexp((double)m, s);
  if (neg) v = -v;
  return v;
}

inline double limb(Rng& r, int e) {
  int64_t m = mantissa(r);
  bool neg = r.coin();
  return scaled(m, e, neg);
}

inline double below(Rng& r, double prev) {
  if (!is_finite_nonzero(prev)) return 0;
  int e;
  double frac = std::frexp(prev, &e);
  int lead = e - 1;
  bool pow2 = std::fabs(frac) == 0.5;
  int sel = r.intn(32);
  if (sel == 0 && lead >= kMinNormExp + 1) {
    int64_t m = (int64_t)std::ldexp(std::fabs(frac), 53);
    if ((m & 1) == 0) {
      bool neg = r.coin();
      if (pow2) neg = prev < 0;
      return scaled((int64_t)1 << 52, lead - 53, neg);
    }
  }
  int gap = 54 + r.intn(4);
  if (sel == 1) gap = 55 + r.intn(256);
  int64_t m = mantissa(r);
  bool neg = r.coin();
  if (gap == 54 && pow2) neg = prev < 0;
  return scaled(m, lead - gap, neg);
}

inline void fill(Rng& r, double* dst, int n, int e) {
  dst[0] = limb(r, e);
  for (int k = 1; k < n; ++k) dst[k] = below(r, dst[k - 1]);
}

inline void fill_tail(Rng& r, double* dst, int n, int from) {
  for (int k = from; k < n; ++k) dst[k] = below(r, dst[k - 1]);
}

inline void fill_pow2(Rng& r, double* dst, int n, int e) {
  bool neg = r.coin();
  dst[0] = scaled((int64_t)1 << 52, e, neg);
  bool tail = r.coin();
  for (int k = 1; k < n; ++k) {
    if (!tail || !is_finite_nonzero(dst[k - 1])) {
      dst[k] = 0;
      continue;
    }
    int pe;
    std::frexp(dst[k - 1], &pe);
    int gap = r.range(55, 70);
    bool kneg = r.coin();
    dst[k] = scaled((int64_t)1 << 52, pe - 1 - gap, kneg);
  }
}

inline void zero_from(double* dst, int n, int from) {
  for (int k = from; k < n; ++k) dst[k] = 0;
}

inline void fill_zero(Rng& r, double* dst, int n) {
  bool neg = r.coin();
  zero_from(dst, n, 0);
  if (neg) dst[0] = std::copysign(0.0, -1.0);
}

inline double special(Rng& r) {
  int k = r.intn(4);
  switch (k) {
    case 0: return from_bits(0x7ff0000000000000ULL);  // +Inf
    case 1: return from_bits(0xfff0000000000000ULL);  // -Inf
    case 2: return from_bits(0x7ff8000000000000ULL);
    default: return from_bits(0xfff8000000000000ULL);
  }
}

inline int partner_exp(Rng& r, int ex, int n) {
  int e;
  switch (r.intn(3)) {
    case 0:
      e = ex + r.range(-8, 8);
      break;
    case 1: {
      int span = 53 * n + 8;
      e = ex + r.range(-span, span);
      break;
    }
    default:
      e = r.range(-kRandExp, kRandExp);
      break;
  }
  if (e > kMaxExp) e = kMaxExp;
  if (e < kMinSubExp) e = kMinSubExp;
  return e;
}

// pair writes pair i of precision n into x[0..n) and y[0..n) (Go's generate).
inline Category pair(int n, uint64_t seed, int64_t i, double* x, double* y) {
  Rng r = new_rng(n, seed, i);
  int u = r.intn(1000);
  if (u < 10) {
    int which = r.intn(3);
    int ex = r.range(-kRandExp, kRandExp);
    fill(r, x, n, ex);
    int ey = partner_exp(r, ex, n);
    fill(r, y, n, ey);
    if (which != 1) {
      x[0] = special(r);
      zero_from(x, n, 1);
    }
    if (which != 0) {
      y[0] = special(r);
      zero_from(y, n, 1);
    }
    return CatSpecial;
  }
  if (u < 40) {
    int which = r.intn(3);
    int ex = r.range(-kRandExp, kRandExp);
    if (which == 1) {
      fill(r, x, n, ex);
    } else {
      fill_zero(r, x, n);
    }
    if (which == 0) {
      int ey = partner_exp(r, ex, n);
      fill(r, y, n, ey);
    } else {
      fill_zero(r, y, n);
    }
    return CatZero;
  }
  if (u < 90) {
    int which = r.intn(3);
    int ex = r.range(-kRandExp, kRandExp);
    int ey = partner_exp(r, ex, n);
    if (which != 2) {
      fill_pow2(r, x, n, ex);
    } else {
      fill(r, x, n, ex);
    }
    if (which != 1) {
      fill_pow2(r, y, n, ey);
    } else {
      fill(r, y, n, ey);
    }
    return CatPow2;
  }
  if (u < 150) {
    int ex;
    if (r.intn(4) == 0) {
      ex = r.range(kMinSubExp, kMinNormExp - 1);
    } else {
      ex = r.range(kMinNormExp, -960);
    }
    fill(r, x, n, ex);
    int ey;
    if (r.coin()) {
      ey = r.range(kMinSubExp, -960);
    } else {
      ey = partner_exp(r, ex, n);
    }
    fill(r, y, n, ey);
    return CatSubnormal;
  }
  if (u < 190) {
    int ex = r.range(1020, kMaxExp);
    if (r.intn(4) == 0) {
      bool neg = r.coin();
      x[0] = scaled(((int64_t)1 << 53) - 1, kMaxExp, neg);
      fill_tail(r, x, n, 1);
    } else {
      fill(r, x, n, ex);
    }
    int ey;
    if (r.coin()) {
      ey = r.range(1020, kMaxExp);
    } else {
      ey = partner_exp(r, ex, n);
    }
    fill(r, y, n, ey);
    return CatOverflow;
  }
  if (u < 340) {
    int ex = r.range(-kRandExp, kRandExp);
    fill(r, x, n, ex);
    bool flip = r.coin();
    for (int k = 0; k < n; ++k) y[k] = flip ? -x[k] : x[k];
    switch (r.intn(4)) {
      case 0:
        break;
      case 1:
      case 2:
        if (n > 1) {
          int j = r.range(1, n - 1);
          fill_tail(r, y, n, j);
        }
        break;
      default: {
        int e;
        double frac = std::frexp(y[0], &e);
        int64_t m = (int64_t)std::ldexp(std::fabs(frac), 53);
        int nbits = r.range(1, 52);
        m ^= (int64_t)(r.next() & ((((uint64_t)1) << nbits) - 1));
        y[0] = scaled(m, e - 1, y[0] < 0);
        fill_tail(r, y, n, 1);
        break;
      }
    }
    return CatCancel;
  }
  if (u < 400) {
    int ex = r.range(-kRandExp, kRandExp);
    fill(r, x, n, ex);
    int ey = partner_exp(r, ex, n);
    fill(r, y, n, ey);
    if (n > 1) {
      int which = r.intn(3);
      int jx = r.range(1, n - 1);
      int jy = r.range(1, n - 1);
      if (which != 1) zero_from(x, n, jx);
      if (which != 0) zero_from(y, n, jy);
    }
    return CatTruncated;
  }
  int ex = r.range(-kRandExp, kRandExp);
  fill(r, x, n, ex);
  int ey = partner_exp(r, ex, n);
  fill(r, y, n, ey);
  return CatRandom;
}

}  // namespace xc

// ---------------------------------------------------------------------------
// Operations: a uniform, templatable face on each precision's functions.
// ---------------------------------------------------------------------------

enum Op {
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_SQR, OP_SQRT, OP_NEG, OP_ABS, OP_MULF64,
  OP_CADD, OP_CSUB, OP_CMUL, OP_CDIV, OP_CABS, OP_MADD, OP_MADDC, OP_CMADD,
  NUM_OPS,
  OP_INPUTS = NUM_OPS,  // pseudo-op for dump: x's limbs then y's limbs
};

static const char* const kOpNames[NUM_OPS + 1] = {
    "add", "sub", "mul", "div", "sqr", "sqrt", "neg", "abs", "mulf64",
    "cadd", "csub", "cmul", "cdiv", "cabs", "madd", "maddc", "cmadd", "inputs",
};

// Limbs per output element: complex results (and the inputs pseudo-op) have
// two N-doubles. XC_HD because kernels call it (nvcc rejects calls of plain
// constexpr host functions from device code without --expt-relaxed-constexpr).
XC_HD constexpr int out_width(int op, int n) {
  return (op == OP_CADD || op == OP_CSUB || op == OP_CMUL || op == OP_CDIV ||
          op == OP_CMADD || op == OP_INPUTS)
             ? 2 * n
             : n;
}

// die reports a fatal error on stderr and exits with status 1.
static void die(const char* msg) {
  std::fprintf(stderr, "xcheck: %s\n", msg);
  std::exit(1);
}

// print_hash prints one "N WHAT HASH" line, the format the Go test parses.
static void print_hash(int n, const char* what, uint64_t h) {
  std::printf("%d %s %016" PRIx64 "\n", n, what, h);
}

// dump_lines prints elements [0, k) of out, w limbs each, as hex bits.
static void dump_lines(const std::vector<double>& out, int w, long k) {
  for (long i = 0; i < k; ++i) {
    std::printf("%ld", i);
    for (int j = 0; j < w; ++j)
      std::printf(" %016" PRIx64, xc::bits_of(out[(size_t)i * w + j]));
    std::printf("\n");
  }
}

#ifndef XCHECK_INPUTS_ONLY

// OpsN wraps mdN_* and cmdN_* so that the templates below need not paste
// names together; the wrappers are inlined away.
#define XC_DEFINE_OPS(N)                                                        \
  struct Ops##N {                                                               \
    typedef md##N R;                                                            \
    typedef cmd##N C;                                                           \
    static constexpr int n = N;                                                 \
    static XC_HD R add(R a, R b) { return md##N##_add(a, b); }                  \
    static XC_HD R sub(R a, R b) { return md##N##_sub(a, b); }                  \
    static XC_HD R mul(R a, R b) { return md##N##_mul(a, b); }                  \
    static XC_HD R div(R a, R b) { return md##N##_div(a, b); }                  \
    static XC_HD R sqr(R a) { return md##N##_sqr(a); }                          \
    static XC_HD R sqrt(R a) { return md##N##_sqrt(a); }                        \
    static XC_HD R neg(R a) { return md##N##_neg(a); }                          \
    static XC_HD R abs(R a) { return md##N##_abs(a); }                          \
    static XC_HD R mulf64(R a, double f) { return md##N##_mulf64(a, f); }       \
    static XC_HD C cadd(C a, C b) { return cmd##N##_add(a, b); }                \
    static XC_HD C csub(C a, C b) { return cmd##N##_sub(a, b); }                \
    static XC_HD C cmul(C a, C b) { return cmd##N##_mul(a, b); }                \
    static XC_HD C cdiv(C a, C b) { return cmd##N##_div(a, b); }                \
    static XC_HD R cabs(C a) { return cmd##N##_abs(a); }                        \
    static XC_HD R madd(R a, R x, R y) { return md##N##_madd(a, x, y); }        \
    static XC_HD C cmadd(C a, C x, C y) { return cmd##N##_madd(a, x, y); }      \
  };

XC_DEFINE_OPS(1)
XC_DEFINE_OPS(2)
XC_DEFINE_OPS(3)
XC_DEFINE_OPS(4)
XC_DEFINE_OPS(5)
XC_DEFINE_OPS(8)
XC_DEFINE_OPS(10)
XC_DEFINE_OPS(16)

template <class O>
XC_HD void put(const typename O::R& r, double* out) {
  for (int k = 0; k < O::n; ++k) out[k] = r.v[k];
}

template <class O>
XC_HD void put_c(const typename O::C& c, double* out) {
  put<O>(c.re, out);
  put<O>(c.im, out + O::n);
}

template <class O>
XC_HD typename O::C make_c(const typename O::R& re, const typename O::R& im) {
  typename O::C c;
  c.re = re;
  c.im = im;
  return c;
}

// apply computes operation OP on pair (x, y) (and z, the next pair's x, for
// the multiply-adds) and stores its out_width limbs. OP is a template
// parameter so that each kernel inlines one operation only.
template <class O, int OP>
XC_HD void apply(const typename O::R& x, const typename O::R& y,
                 const typename O::R& z, double* out) {
  if constexpr (OP == OP_ADD) put<O>(O::add(x, y), out);
  else if constexpr (OP == OP_SUB) put<O>(O::sub(x, y), out);
  else if constexpr (OP == OP_MUL) put<O>(O::mul(x, y), out);
  else if constexpr (OP == OP_DIV) put<O>(O::div(x, y), out);
  else if constexpr (OP == OP_SQR) put<O>(O::sqr(x), out);
  else if constexpr (OP == OP_SQRT) put<O>(O::sqrt(x), out);
  else if constexpr (OP == OP_NEG) put<O>(O::neg(x), out);
  else if constexpr (OP == OP_ABS) put<O>(O::abs(x), out);
  else if constexpr (OP == OP_MULF64) put<O>(O::mulf64(x, y.v[0]), out);
  else if constexpr (OP == OP_CADD) put_c<O>(O::cadd(make_c<O>(x, y), make_c<O>(y, x)), out);
  else if constexpr (OP == OP_CSUB) put_c<O>(O::csub(make_c<O>(x, y), make_c<O>(y, x)), out);
  else if constexpr (OP == OP_CMUL) put_c<O>(O::cmul(make_c<O>(x, y), make_c<O>(y, x)), out);
  else if constexpr (OP == OP_CDIV) put_c<O>(O::cdiv(make_c<O>(x, y), make_c<O>(y, x)), out);
  else if constexpr (OP == OP_CABS) put<O>(O::cabs(make_c<O>(x, y)), out);
  else if constexpr (OP == OP_MADD) put<O>(O::madd(x, y, z), out);
  else if constexpr (OP == OP_MADDC) put<O>(O::madd(O::neg(O::mul(y, z)), y, z), out);
  else if constexpr (OP == OP_CMADD)
    put_c<O>(O::cmadd(make_c<O>(x, y), make_c<O>(y, z), make_c<O>(z, x)), out);
  else if constexpr (OP == OP_INPUTS) {
    put<O>(x, out);
    put<O>(y, out + O::n);
  }
}

// ---------------------------------------------------------------------------
// Where the outputs are computed: the GPU under nvcc, the CPU otherwise.
// ---------------------------------------------------------------------------
#ifdef __CUDACC__

#define XC_CUDA(call)                                                         \
  do {                                                                        \
    cudaError_t err_ = (call);                                                \
    if (err_ != cudaSuccess) {                                                \
      std::fprintf(stderr, "xcheck: %s:%d: %s: %s\n", __FILE__, __LINE__,     \
                   #call, cudaGetErrorString(err_));                          \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)

template <class O, int OP>
__global__ void op_kernel(const typename O::R* __restrict__ x,
                          const typename O::R* __restrict__ y,
                          double* __restrict__ out, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) {
    typename O::R xi = x[i];
    typename O::R yi = y[i];
    typename O::R zi = x[i + 1 < count ? i + 1 : 0];
    apply<O, OP>(xi, yi, zi, out + (size_t)i * out_width(OP, O::n));
  }
}

// Engine holds the device copies of one precision's inputs and an output
// buffer wide enough for any operation.
template <class O>
struct Engine {
  typedef typename O::R R;
  int count;
  R* dx = nullptr;
  R* dy = nullptr;
  double* dout = nullptr;

  Engine(const std::vector<R>& xs, const std::vector<R>& ys) : count((int)xs.size()) {
    size_t in_bytes = xs.size() * sizeof(R);
    size_t out_bytes = xs.size() * (size_t)(2 * O::n) * sizeof(double);
    XC_CUDA(cudaMalloc(&dx, in_bytes ? in_bytes : 1));
    XC_CUDA(cudaMalloc(&dy, in_bytes ? in_bytes : 1));
    XC_CUDA(cudaMalloc(&dout, out_bytes ? out_bytes : 1));
    if (in_bytes) {
      XC_CUDA(cudaMemcpy(dx, xs.data(), in_bytes, cudaMemcpyHostToDevice));
      XC_CUDA(cudaMemcpy(dy, ys.data(), in_bytes, cudaMemcpyHostToDevice));
    }
  }
  ~Engine() {
    XC_CUDA(cudaFree(dx));
    XC_CUDA(cudaFree(dy));
    XC_CUDA(cudaFree(dout));
  }

  template <int OP>
  void run(std::vector<double>& out) {
    const int w = out_width(OP, O::n);
    out.resize((size_t)count * w);
    if (count == 0) return;
    const int block = 128;
    const int grid = (count + block - 1) / block;
    op_kernel<O, OP><<<grid, block>>>(dx, dy, dout, count);
    XC_CUDA(cudaGetLastError());
    XC_CUDA(cudaDeviceSynchronize());
    XC_CUDA(cudaMemcpy(out.data(), dout, out.size() * sizeof(double),
                       cudaMemcpyDeviceToHost));
  }
};

static void init_device() {
  int devices = 0;
  XC_CUDA(cudaGetDeviceCount(&devices));
  if (devices == 0) die("no CUDA device");
  XC_CUDA(cudaSetDevice(0));
  cudaDeviceProp prop;
  XC_CUDA(cudaGetDeviceProperties(&prop, 0));
  // stderr, so that stdout stays diffable against the Go side's lines.
  std::fprintf(stderr, "xcheck: computing on GPU %s (sm_%d%d)\n", prop.name,
               prop.major, prop.minor);
}

#else  // host C++

template <class O>
struct Engine {
  typedef typename O::R R;
  const std::vector<R>& xs;
  const std::vector<R>& ys;

  Engine(const std::vector<R>& xs_, const std::vector<R>& ys_) : xs(xs_), ys(ys_) {}

  template <int OP>
  void run(std::vector<double>& out) {
    const int w = out_width(OP, O::n);
    out.resize(xs.size() * (size_t)w);
    for (size_t i = 0; i < xs.size(); ++i)
      apply<O, OP>(xs[i], ys[i], xs[i + 1 < xs.size() ? i + 1 : 0], &out[i * w]);
  }
};

static void init_device() {}

#endif

// run_op dispatches a runtime op to the Engine's template.
template <class O>
static void run_op(Engine<O>& eng, int op, std::vector<double>& out) {
  switch (op) {
    case OP_ADD: eng.template run<OP_ADD>(out); break;
    case OP_SUB: eng.template run<OP_SUB>(out); break;
    case OP_MUL: eng.template run<OP_MUL>(out); break;
    case OP_DIV: eng.template run<OP_DIV>(out); break;
    case OP_SQR: eng.template run<OP_SQR>(out); break;
    case OP_SQRT: eng.template run<OP_SQRT>(out); break;
    case OP_NEG: eng.template run<OP_NEG>(out); break;
    case OP_ABS: eng.template run<OP_ABS>(out); break;
    case OP_MULF64: eng.template run<OP_MULF64>(out); break;
    case OP_CADD: eng.template run<OP_CADD>(out); break;
    case OP_CSUB: eng.template run<OP_CSUB>(out); break;
    case OP_CMUL: eng.template run<OP_CMUL>(out); break;
    case OP_CDIV: eng.template run<OP_CDIV>(out); break;
    case OP_CABS: eng.template run<OP_CABS>(out); break;
    case OP_MADD: eng.template run<OP_MADD>(out); break;
    case OP_MADDC: eng.template run<OP_MADDC>(out); break;
    case OP_CMADD: eng.template run<OP_CMADD>(out); break;
    case OP_INPUTS: eng.template run<OP_INPUTS>(out); break;
    default: die("bad op");
  }
}

// run_n does everything for one precision: generate the inputs, then either
// print the hash lines (dump_op < 0) or dump one operation's outputs.
template <class O>
static void run_n(int count, uint64_t seed, int dump_op, long dump_k) {
  typedef typename O::R R;
  const int n = O::n;
  std::vector<R> xs((size_t)count), ys((size_t)count);
  uint64_t h = xc::kHashInit;
  for (int i = 0; i < count; ++i) {
    xc::pair(n, seed, i, xs[i].v, ys[i].v);
    h = xc::hash(h, xs[i].v, n);
    h = xc::hash(h, ys[i].v, n);
  }
  Engine<O> eng(xs, ys);
  std::vector<double> out;
  if (dump_op >= 0) {
    run_op<O>(eng, dump_op, out);
    long k = dump_k < count ? dump_k : count;
    dump_lines(out, out_width(dump_op, n), k);
    return;
  }
  print_hash(n, "inputs", h);
  const bool timing = std::getenv("XCHECK_TIMING") != nullptr;
  for (int op = 0; op < NUM_OPS; ++op) {
    auto t0 = std::chrono::steady_clock::now();
    std::clock_t c0 = std::clock();
    run_op<O>(eng, op, out);
    if (timing) {
      std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
      double cpu = (double)(std::clock() - c0) / CLOCKS_PER_SEC;
      std::fprintf(stderr, "xcheck: N=%-2d %-6s %8.3f s wall %8.3f s cpu\n", n, kOpNames[op], dt.count(), cpu);
    }
    print_hash(n, kOpNames[op], xc::hash(xc::kHashInit, out.data(), out.size()));
  }
  std::fflush(stdout);
}

static void run_any(int n, int count, uint64_t seed, int dump_op, long dump_k) {
  switch (n) {
    case 1: run_n<Ops1>(count, seed, dump_op, dump_k); break;
    case 2: run_n<Ops2>(count, seed, dump_op, dump_k); break;
    case 3: run_n<Ops3>(count, seed, dump_op, dump_k); break;
    case 4: run_n<Ops4>(count, seed, dump_op, dump_k); break;
    case 5: run_n<Ops5>(count, seed, dump_op, dump_k); break;
    case 8: run_n<Ops8>(count, seed, dump_op, dump_k); break;
    case 10: run_n<Ops10>(count, seed, dump_op, dump_k); break;
    case 16: run_n<Ops16>(count, seed, dump_op, dump_k); break;
    default: die("N must be one of 1 2 3 4 5 8 10 16");
  }
}

#else  // XCHECK_INPUTS_ONLY

// Built with -DXCHECK_INPUTS_ONLY (no headers needed), the driver only
// generates and hashes inputs: internal/xcheck's own tests use this to check
// that the C++ generator mirrors the Go one before any header exists.
static void init_device() {}

static void run_any(int n, int count, uint64_t seed, int dump_op, long dump_k) {
  if (n != 1 && n != 2 && n != 3 && n != 4 && n != 5 && n != 8 && n != 10 && n != 16)
    die("N must be one of 1 2 3 4 5 8 10 16");
  if (dump_op >= 0 && dump_op != OP_INPUTS)
    die("built with XCHECK_INPUTS_ONLY: only \"dump N inputs K\" is available");
  const int w = 2 * n;
  std::vector<double> out((size_t)count * w);
  for (int i = 0; i < count; ++i)
    xc::pair(n, seed, i, &out[(size_t)i * w], &out[(size_t)i * w + n]);
  if (dump_op >= 0) {
    dump_lines(out, w, dump_k < count ? dump_k : count);
    return;
  }
  print_hash(n, "inputs", xc::hash(xc::kHashInit, out.data(), out.size()));
}

#endif  // XCHECK_INPUTS_ONLY

static void usage() {
  std::fprintf(stderr,
               "usage: xcheck COUNT SEED\n"
               "       xcheck COUNT SEED dump N OP K\n"
               "OP: add sub mul div sqr sqrt neg abs mulf64 cadd csub cmul cdiv "
               "cabs madd maddc cmadd inputs\n");
  std::exit(2);
}

// parse_u64 parses a decimal unsigned integer, rejecting anything else.
static uint64_t parse_u64(const char* s) {
  if (*s == 0 || *s == '-' || *s == '+') usage();
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (errno != 0 || *end != 0) usage();
  return (uint64_t)v;
}

int main(int argc, char** argv) {
  if (argc != 3 && argc != 7) usage();
  uint64_t count = parse_u64(argv[1]);
  if (count > 100000000ULL) die("COUNT too large");
  uint64_t seed = parse_u64(argv[2]);
  init_device();
  if (argc == 7) {
    if (std::strcmp(argv[3], "dump") != 0) usage();
    int n = (int)parse_u64(argv[4]);
    int op = -1;
    for (int k = 0; k <= NUM_OPS; ++k)
      if (std::strcmp(argv[5], kOpNames[k]) == 0) op = k;
    if (op < 0) usage();
    long k = (long)parse_u64(argv[6]);
    run_any(n, (int)count, seed, op, k);
    std::fflush(stdout);
    return 0;
  }
  static const int kNs[] = {1, 2, 3, 4, 5, 8, 10, 16};
  for (int n : kNs) run_any(n, (int)count, seed, -1, 0);
  return std::ferror(stdout) ? 1 : 0;
}
