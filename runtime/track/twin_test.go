package track

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mdgen/mdgen/internal/xcheck"
)

// twinPrelude opens the twins' host drivers: mdtrack.cuh at 1, 2, 4 and
// 8 doubles, and rd and wd, which read and write a double's bits in hex.
const twinPrelude = `#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include "md1.cuh"
#include "md2.cuh"
#include "md4.cuh"
#include "md8.cuh"
#include "mdtrack.cuh"
MDTR_OPS(1)
MDTR_OPS(2)
MDTR_OPS(4)
MDTR_OPS(8)
static double rd() { unsigned long long b; std::scanf("%llx", &b); double x; std::memcpy(&x, &b, 8); return x; }
static void wd(double x) { uint64_t b; std::memcpy(&b, &x, 8); std::printf("%llx ", (unsigned long long)b); }
`

// arithTwinDriver runs generated/cuda/mdtrack.cuh on the host for the
// cases on stdin: "N n d L M deg tau s", then the deg+1 coefficients of a
// polynomial and the n(d+1) coefficients of the series, each as its 2N
// limbs' bits in hex. It writes the shifted polynomial, P, Q, the Taylor
// flags, poles, errors and orders, and the prediction at s, as bits.
const arithTwinDriver = twinPrelude + `template <class T> static T rn() { T z; double* l = (double*)&z; for (int i = 0; i < mdtr_limbs<T>(); ++i) l[i] = rd(); return z; }
template <class T> static void wn(const T& z) { const double* l = (const double*)&z; for (int i = 0; i < mdtr_limbs<T>(); ++i) wd(l[i]); }
template <class T> static void run(int n, int d, int L, int M, int deg, double tau, double s) {
  std::vector<T> poly(deg + 1), x(n * (d + 1)), P(n * (L + 1)), Q(n * M + 1), A(M * M + 1), b(M + 1), out(n);
  for (auto& z : poly) z = rn<T>();
  for (auto& z : x) z = rn<T>();
  mdtr_shift(poly.data(), deg, tau);
  std::vector<double> pole(n), err(n);
  std::vector<int> order(n);
  bool taylor[64];
  mdtr_pade(x.data(), n, d, L, M, P.data(), Q.data(), taylor, pole.data(), err.data(), order.data(), A.data(), b.data());
  mdtr_predict(out.data(), P.data(), Q.data(), taylor, n, L, M, s);
  for (auto& z : poly) wn(z);
  for (int i = 0; i < n * (L + 1); ++i) wn(P[i]);
  for (int i = 0; i < n * M; ++i) wn(Q[i]);
  for (int v = 0; v < n; ++v) { std::printf("%d ", (int)taylor[v]); wd(pole[v]); wd(err[v]); std::printf("%d ", order[v]); }
  for (auto& z : out) wn(z);
  std::printf("\n");
}
int main() {
  int N, n, d, L, M, deg;
  while (std::scanf("%d %d %d %d %d %d", &N, &n, &d, &L, &M, &deg) == 6) {
    double tau = rd(), s = rd();
    if (N == 1) run<cmd1>(n, d, L, M, deg, tau, s);
    if (N == 2) run<cmd2>(n, d, L, M, deg, tau, s);
    if (N == 4) run<cmd4>(n, d, L, M, deg, tau, s);
  }
  return 0;
}
`

// TestArithDeviceTwin: generated/cuda/mdtrack.cuh, the device's twin of
// this package's arithmetic, compiled with g++ -ffp-contract=off (as nvcc
// -fmad=false computes it on the device), gives arithC's bits at 1, 2 and
// 4 doubles: the shift of a polynomial to tau, the [L/M] approximants (P,
// Q, the Taylor flags, the pole bounds, the error terms and orders) of
// random Taylor series and of adversarial ones (polynomials, whose
// denominator system is singular; zeros; series that grow or shrink over
// hundreds of binades; a NaN; coefficients of one modulus, whose pivots
// tie), and the prediction at s. Skipped without
// g++ unless MDGEN_REQUIRE_CXX=1.
func TestArithDeviceTwin(t *testing.T) {
	cases := twinCases()
	var in bytes.Buffer
	for _, c := range cases {
		fmt.Fprintf(&in, "%d %d %d %d %d %d %s %s", c.N, c.n, c.d, c.L, c.M, len(c.poly)/(2*c.N)-1, hexBits(c.tau), hexBits(c.s))
		for _, l := range append(append([]float64(nil), c.poly...), c.x...) {
			in.WriteString(" " + hexBits(l))
		}
		in.WriteString("\n")
	}
	lines := runTwinDriver(t, arithTwinDriver, &in, len(cases))
	for i, c := range cases {
		want, err := twinWant(c)
		if err != nil {
			t.Fatal(err)
		}
		got := lines[i]
		if j, ok := twinFieldsEqual(got, want); !ok {
			if j < min(len(got), len(want)) {
				t.Fatalf("case %d (%d doubles, n %d, d %d, [%d/%d]): field %d: the twin %s, Go %s", i, c.N, c.n, c.d, c.L, c.M, j, got[j], want[j])
			}
			t.Fatalf("case %d: the twin wrote %d fields, Go %d", i, len(got), len(want))
		}
	}
	t.Logf("%d cases at 1, 2 and 4 doubles: every bit equal", len(cases))
}

// hexBits is x's bits in hex, as the twins' drivers read and write them.
func hexBits(x float64) string { return fmt.Sprintf("%x", math.Float64bits(x)) }

// runTwinDriver compiles driver against generated/cuda with g++ (skipping
// the test without it: xcheck.CompileHeaders), runs it on in and returns
// the fields of its first n lines (a line a case).
func runTwinDriver(t *testing.T, driver string, in *bytes.Buffer, n int) [][]string {
	t.Helper()
	bin := xcheck.CompileHeaders(t, driver)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Stdin = in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the driver: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var lines [][]string
	for len(lines) < n && sc.Scan() {
		lines = append(lines, strings.Fields(sc.Text()))
	}
	if len(lines) < n {
		t.Fatalf("the driver wrote %d lines for %d cases", len(lines), n)
	}
	return lines
}

// twinCase is one case of the tracker's arithmetic for its device twin:
// a polynomial to shift to tau, n series of d+1 coefficients for [L/M]
// approximants, and the point s of the prediction (limbs, 2N a number).
type twinCase struct {
	N, n, d, L, M int
	tau, s        float64
	poly, x       []float64
}

// twinCases returns TestArithDeviceTwin's cases: random Taylor series and
// adversarial ones (see there), 400 at each of 1, 2 and 4 doubles.
func twinCases() []twinCase {
	r := rand.New(rand.NewPCG(11, 12))
	// number writes a random complex N-double of modulus about 2^e (each
	// part's limbs a fraction of half an ulp of the one before).
	number := func(dst []float64, N, e int) {
		for part := 0; part < 2; part++ {
			l := dst[part*N : (part+1)*N]
			l[0] = math.Ldexp(2*r.Float64()-1, e)
			for i := 1; i < N; i++ {
				l[i] = l[i-1] * 0x1p-53 * (r.Float64() - 0.5)
			}
		}
	}
	var cases []twinCase
	for _, N := range []int{1, 2, 4} {
		for k := range 400 {
			W := 2 * N
			L, M := r.IntN(4), r.IntN(4)
			if k%7 == 0 {
				L, M = 2, 2 // the tracker's default
			}
			d := L + M + 1 + r.IntN(2)
			n := 1 + r.IntN(5)
			deg := r.IntN(4)
			c := twinCase{N: N, n: n, d: d, L: L, M: M, tau: r.Float64(), s: math.Ldexp(r.Float64(), -r.IntN(20))}
			c.poly = make([]float64, (deg+1)*W)
			for i := 0; i <= deg; i++ {
				number(c.poly[i*W:(i+1)*W], N, r.IntN(20)-10)
			}
			c.x = make([]float64, n*(d+1)*W)
			grow := r.IntN(60) - 30 // binades a coefficient
			for v := range n {
				for i := 0; i <= d; i++ {
					number(c.x[(v*(d+1)+i)*W:(v*(d+1)+i+1)*W], N, grow*i+r.IntN(6))
				}
				switch k % 11 {
				case 1: // a polynomial: the top coefficients zero
					for i := d / 2; i <= d; i++ {
						clear(c.x[(v*(d+1)+i)*W : (v*(d+1)+i+1)*W])
					}
				case 2: // a constant series
					clear(c.x[(v*(d+1)+1)*W : (v+1)*(d+1)*W])
				case 3: // a NaN coefficient
					c.x[(v*(d+1)+d)*W] = math.NaN()
				case 5: // every coefficient +-1 or +-i: the pivots tie
					for i := 0; i <= d; i++ {
						z := c.x[(v*(d+1)+i)*W : (v*(d+1)+i+1)*W]
						clear(z)
						z[r.IntN(2)*N] = float64(1 - 2*r.IntN(2))
					}
				case 4: // huge and tiny scales
					for i := 0; i <= d; i++ {
						for j := range W {
							c.x[(v*(d+1)+i)*W+j] = math.Ldexp(c.x[(v*(d+1)+i)*W+j], 600-400*(v%3))
						}
					}
				}
			}
			cases = append(cases, c)
		}
	}
	return cases
}

// twinWant returns arithC's outputs for c in the order the twins write
// them: the shifted polynomial, P, Q, then (Taylor flag, pole bound,
// error term, order) of each series, then the prediction; the floats as
// their bits in hex, the flags and orders in decimal.
func twinWant(c twinCase) ([]string, error) {
	ar, err := arithFor(c.N)
	if err != nil {
		return nil, err
	}
	W := 2 * c.N
	var want []string
	bits := func(xs ...float64) {
		for _, x := range xs {
			want = append(want, fmt.Sprintf("%x", math.Float64bits(x)))
		}
	}
	shifted := make([]float64, len(c.poly))
	ar.shift(shifted, c.poly, c.tau)
	bits(shifted...)
	pd := newPadeSet(c.L, c.M, c.n, W)
	ar.pade(pd, c.x, c.n, c.d)
	bits(pd.P...)
	bits(pd.Q...)
	for v := range c.n {
		tay := 0
		if pd.Taylor[v] {
			tay = 1
		}
		want = append(want, fmt.Sprint(tay))
		bits(pd.Pole[v], pd.Err[v])
		want = append(want, fmt.Sprint(pd.Order[v]))
	}
	pred := make([]float64, c.n*W)
	ar.predict(pred, pd, c.s)
	bits(pred...)
	return want, nil
}

// twinFieldsEqual reports whether the twin's fields equal Go's: equal
// text, or two NaNs (whose payloads are not specified: fp returns
// math.NaN(), the twins C's NAN); else the first field that differs.
func twinFieldsEqual(got, want []string) (int, bool) {
	same := func(a, b string) bool {
		if a == b {
			return true
		}
		var x, y uint64
		_, e1 := fmt.Sscanf(a, "%x", &x)
		_, e2 := fmt.Sscanf(b, "%x", &y)
		return e1 == nil && e2 == nil && math.IsNaN(math.Float64frombits(x)) && math.IsNaN(math.Float64frombits(y))
	}
	for j := range min(len(got), len(want)) {
		if !same(got[j], want[j]) {
			return j, false
		}
	}
	return min(len(got), len(want)), len(got) == len(want)
}
