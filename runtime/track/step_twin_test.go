package track

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// stepTwinDriver runs mdtrack.cuh's mdtr_step_size and mdtr_max_mag on the
// host for the cases on stdin: "N n", the bits of tau, dist, the point's
// limbs' scale, MaxStep, Beta1, Beta2 and PredTol, then n times the bits
// of a pole bound, an error term, and an order, then the n complex
// numbers of N doubles (2N limbs' bits each); it writes the step and the
// largest modulus.
const stepTwinDriver = twinPrelude + `int main() {
  int N, n;
  while (std::scanf("%d %d", &N, &n) == 2) {
    double tau = rd(), dist = rd(), scale = rd(), maxStep = rd(), beta1 = rd(), beta2 = rd(), predTol = rd();
    std::vector<double> pole(n), err(n), x(2 * N * n);
    std::vector<int> order(n);
    for (int v = 0; v < n; ++v) { pole[v] = rd(); err[v] = rd(); std::scanf("%d", &order[v]); }
    for (auto& l : x) l = rd();
    wd(mdtr_step_size(pole.data(), err.data(), order.data(), n, tau, dist, scale, maxStep, beta1, beta2, predTol));
    if (N == 1) wd(mdtr_max_mag((const cmd1*)x.data(), n));
    if (N == 2) wd(mdtr_max_mag((const cmd2*)x.data(), n));
    if (N == 4) wd(mdtr_max_mag((const cmd4*)x.data(), n));
    std::printf("\n");
  }
  return 0;
}
`

// TestStepDeviceTwin: mdtrack.cuh's mdtr_step_size and mdtr_max_mag,
// compiled with g++ -ffp-contract=off, give stepSize's and maxMag's bits
// (a NaN for a NaN): random approximants of the tracker's ranges, and
// adversarial ones (pole bounds of +Inf, 0 and NaN, error terms of 0, of
// subnormals and of 1e300, orders 1 to 5, no distance estimate, zeros of
// both signs, NaN and infinite points), the default options and others.
// Skipped without g++ unless MDGEN_REQUIRE_CXX=1.
func TestStepDeviceTwin(t *testing.T) {
	cases := stepTwinCases()
	var in bytes.Buffer
	for _, c := range cases {
		fmt.Fprintf(&in, "%d %d", c.N, c.n)
		for _, f := range []float64{c.tau, c.dist, c.scale, c.opt.MaxStep, c.opt.Beta1, c.opt.Beta2, c.opt.PredTol} {
			in.WriteString(" " + hexBits(f))
		}
		for v := range c.n {
			fmt.Fprintf(&in, " %s %s %d", hexBits(c.pole[v]), hexBits(c.err[v]), c.order[v])
		}
		for _, l := range c.x {
			in.WriteString(" " + hexBits(l))
		}
		in.WriteString("\n")
	}
	lines := runTwinDriver(t, stepTwinDriver, &in, len(cases))
	nan := 0
	for i, c := range cases {
		dt, mag := stepWant(c)
		if math.IsNaN(dt) {
			nan++
		}
		want := []string{hexBits(dt), hexBits(mag)}
		if j, ok := twinFieldsEqual(lines[i], want); !ok {
			t.Fatalf("case %d (%d doubles, %d components): field %d: the twin %v, Go %v", i, c.N, c.n, j, lines[i], want)
		}
	}
	t.Logf("%d cases (%d steps NaN): every bit equal", len(cases), nan)
}

// stepCase is one case of the step-size rule and maxMag for their device
// twins.
type stepCase struct {
	N, n             int
	tau, dist, scale float64
	opt              Options
	pole, err        []float64
	order            []int
	x                []float64
}

// stepTwinCases returns TestStepDeviceTwin's cases (see there).
func stepTwinCases() []stepCase {
	var def Options
	if err := def.fill(); err != nil {
		panic(err) // the defaults fill
	}
	r := rand.New(rand.NewPCG(7, 8))
	pick := func(xs ...float64) float64 { return xs[r.IntN(len(xs))] }
	var cases []stepCase
	for k := range 1500 {
		N := []int{1, 2, 4}[k%3]
		n := 1 + r.IntN(12)
		c := stepCase{N: N, n: n, tau: math.Ldexp(r.Float64(), -r.IntN(60)), dist: math.Inf(1), scale: 1 + math.Ldexp(r.Float64(), r.IntN(20)), opt: def}
		if k%2 == 0 {
			c.dist = math.Ldexp(r.Float64(), -r.IntN(30))
		}
		if k%5 == 0 {
			c.opt.MaxStep, c.opt.Beta1, c.opt.Beta2, c.opt.PredTol = r.Float64(), r.Float64(), r.Float64(), math.Ldexp(r.Float64(), -r.IntN(20))
		}
		if k%13 == 0 {
			c.tau = pick(0, math.Copysign(0, -1), 1)
		}
		for range n {
			pole := math.Ldexp(r.Float64(), r.IntN(20)-10)
			er := math.Ldexp(r.Float64(), r.IntN(80)-60)
			switch r.IntN(8) {
			case 0:
				pole = pick(math.Inf(1), 0, math.NaN())
			case 1:
				er = pick(0, 5e-324, 1e300, math.Copysign(0, -1), math.NaN(), math.Inf(1))
			}
			c.pole, c.err, c.order = append(c.pole, pole), append(c.err, er), append(c.order, 1+r.IntN(5))
		}
		c.x = make([]float64, 2*N*n)
		for v := range n {
			for part := range 2 {
				l := c.x[v*2*N+part*N : v*2*N+(part+1)*N]
				l[0] = math.Ldexp(2*r.Float64()-1, r.IntN(40)-20)
				for i := 1; i < N; i++ {
					l[i] = l[i-1] * 0x1p-53 * (r.Float64() - 0.5)
				}
			}
			if r.IntN(20) == 0 {
				c.x[v*2*N] = pick(math.NaN(), math.Inf(-1), math.Copysign(0, -1))
			}
		}
		cases = append(cases, c)
	}
	return cases
}

// stepWant is stepSize's step and maxMag's modulus of c.
func stepWant(c stepCase) (dt, mag float64) {
	pd := &padeSet{Pole: c.pole, Err: c.err, Order: c.order}
	return stepSize(&c.opt, pd, c.n, c.tau, c.dist, c.scale), maxMag(c.x, 2*c.N)
}
