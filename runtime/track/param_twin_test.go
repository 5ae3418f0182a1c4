package track

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
)

// paramTwinDriver runs mdtrack.cuh's mdtr_param_series (what the batched
// Newton solve's parametric-coefficient kernel computes for a slot) on
// the host for the cases on stdin: "N len ck x tau", then the len
// coefficients of the polynomial as bits; it writes the slot's ck
// coefficients.
const paramTwinDriver = twinPrelude + `int main() {
  int N, len, ck, x;
  while (std::scanf("%d %d %d %d", &N, &len, &ck, &x) == 4) {
    double tau = rd();
    std::vector<double> poly(len * 2 * N + 1), dst(ck * 2 * N);
    for (int i = 0; i < len * 2 * N; ++i) poly[i] = rd();
    if (N == 1) mdtr_param_series<cmd1>(dst.data(), poly.data(), len, ck, tau, x);
    if (N == 2) mdtr_param_series<cmd2>(dst.data(), poly.data(), len, ck, tau, x);
    if (N == 4) mdtr_param_series<cmd4>(dst.data(), poly.data(), len, ck, tau, x);
    if (N == 8) mdtr_param_series<cmd8>(dst.data(), poly.data(), len, ck, tau, x);
    for (double v : dst) wd(v);
    std::printf("\n");
  }
  return 0;
}
`

// TestParamSeriesDeviceTwin: mdtrack.cuh's mdtr_param_series, compiled
// with g++ -ffp-contract=off, writes a coefficient slot as the host sets
// it (backend.ParamCoefs.Series with this package's shift, truncated or
// padded with zeros to the slot), bit for bit, at 1, 2, 4 and 8 doubles:
// polynomials of 1 to gpuabi.BNParamMaxLen coefficients, slots shorter
// and longer, tau in [0, 1] and 0, and scalings by 2^x over the whole
// exponent range (results that overflow, and that round to subnormals).
// Skipped without g++ unless MDGEN_REQUIRE_CXX=1.
func TestParamSeriesDeviceTwin(t *testing.T) {
	cases := paramTwinCases()
	var in bytes.Buffer
	for _, c := range cases {
		fmt.Fprintf(&in, "%d %d %d %d %s", c.N, len(c.poly)/(2*c.N), c.ck, c.x, hexBits(c.tau))
		for _, l := range c.poly {
			in.WriteString(" " + hexBits(l))
		}
		in.WriteString("\n")
	}
	lines := runTwinDriver(t, paramTwinDriver, &in, len(cases))
	for i, c := range cases {
		want, err := paramWant(c)
		if err != nil {
			t.Fatal(err)
		}
		got := lines[i]
		if len(got) != len(want) {
			t.Fatalf("case %d: the twin wrote %d doubles, Go %d", i, len(got), len(want))
		}
		for j, w := range want {
			if got[j] != hexBits(w) {
				t.Fatalf("case %d (%d doubles, %d coefficients, slot %d, 2^%d, tau %v): double %d: the twin %s, Go %s (%v)",
					i, c.N, len(c.poly)/(2*c.N), c.ck, c.x, c.tau, j, got[j], hexBits(w), w)
			}
		}
	}
	t.Logf("%d cases at 1, 2, 4 and 8 doubles: every bit equal", len(cases))
}

// paramCase is one slot of a parametric coefficient for its device twin:
// the polynomial (limbs, 2N a coefficient), the slot's ck coefficients,
// the scaling 2^x and tau.
type paramCase struct {
	N, ck, x int
	tau      float64
	poly     []float64
}

// paramTwinCases returns TestParamSeriesDeviceTwin's cases (see there),
// 300 at each of 1, 2, 4 and 8 doubles.
func paramTwinCases() []paramCase {
	r := rand.New(rand.NewPCG(5, 6))
	var cases []paramCase
	for _, N := range []int{1, 2, 4, 8} {
		W := 2 * N
		for k := range 300 {
			c := paramCase{N: N, ck: 1 + r.IntN(10), tau: r.Float64()}
			n := 1 + r.IntN(gpuabi.BNParamMaxLen)
			if k%3 == 0 {
				n = 1 + r.IntN(2) // the total-degree homotopy's: linear in t
			}
			switch k % 5 {
			case 0:
				c.x = 0
			case 1:
				c.x = r.IntN(40) - 20
			case 2:
				c.x = -1000 - r.IntN(120) // to subnormals and zero
			case 3:
				c.x = 900 + r.IntN(200) // to infinity
			default:
				c.x = r.IntN(2001) - 1000
			}
			if k%11 == 0 {
				c.tau = 0
			}
			c.poly = make([]float64, n*W)
			for i := range n {
				for part := range 2 {
					l := c.poly[i*W+part*N : i*W+(part+1)*N]
					l[0] = math.Ldexp(2*r.Float64()-1, r.IntN(200)-100)
					for j := 1; j < N; j++ {
						l[j] = l[j-1] * 0x1p-53 * (r.Float64() - 0.5)
					}
				}
			}
			cases = append(cases, c)
		}
	}
	return cases
}

// paramWant is the slot as the host sets it: ParamCoefs.Series (with this
// package's shift, scale x and exponent 1), its first ck coefficients,
// zeros after.
func paramWant(c paramCase) ([]float64, error) {
	ar, err := arithFor(c.N)
	if err != nil {
		return nil, err
	}
	pc, err := backend.NewParamCoefs(mdops.Prec{N: c.N, Complex: true}, []backend.ParamCoef{{Poly: c.poly, Scale: c.x}}, ar.shift)
	if err != nil {
		return nil, err
	}
	series := make([]float64, len(c.poly))
	pc.Series(0, c.tau, 1, series)
	want := make([]float64, c.ck*2*c.N)
	copy(want, series)
	return want, nil
}
