// qdaccuracy.cpp -- part of `make bench-qd` (bench/qd/run.sh): runs libqd's
// fast and accurate add and mul on operands read from stdin and writes the
// results, so that bench/qd/accuracy can measure their worst-case accuracy
// on mdgen's own corpus (mdops/alg.Corpus) against math/big.
//
// Input, one case per line: op (add|mul), n (2|4), then the 2n limbs of x
// and y as IEEE bit patterns in decimal. Output, one line per case: the n
// limbs of the fast variant's result, then the n limbs of the accurate one
// (dd mul has one variant, written twice).
#include <qd/dd_real.h>
#include <qd/qd_real.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

static double f64(unsigned long long u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

static unsigned long long bits(double x) {
  unsigned long long u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

int main() {
  char op[8];
  int n;
  unsigned long long a[8];
  while (std::scanf("%7s %d", op, &n) == 2) {
    if (n != 2 && n != 4) return 2;
    for (int k = 0; k < 2 * n; k++)
      if (std::scanf("%llu", &a[k]) != 1) return 2;
    const bool add = std::strcmp(op, "add") == 0;
    double r[8];
    if (n == 2) {
      const dd_real x(f64(a[0]), f64(a[1])), y(f64(a[2]), f64(a[3]));
      const dd_real fast = add ? dd_real::sloppy_add(x, y) : x * y;
      const dd_real acc = add ? dd_real::ieee_add(x, y) : x * y;
      r[0] = fast.x[0], r[1] = fast.x[1], r[2] = acc.x[0], r[3] = acc.x[1];
    } else {
      const qd_real x(f64(a[0]), f64(a[1]), f64(a[2]), f64(a[3]));
      const qd_real y(f64(a[4]), f64(a[5]), f64(a[6]), f64(a[7]));
      const qd_real fast = add ? qd_real::sloppy_add(x, y) : qd_real::sloppy_mul(x, y);
      const qd_real acc = add ? qd_real::ieee_add(x, y) : qd_real::accurate_mul(x, y);
      for (int k = 0; k < 4; k++) r[k] = fast[k], r[4 + k] = acc[k];
    }
    for (int k = 0; k < 2 * n; k++) std::printf(k ? " %llu" : "%llu", bits(r[k]));
    std::printf("\n");
  }
  return 0;
}
