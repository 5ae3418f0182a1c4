package newton

import (
	"errors"
	"fmt"
	"github.com/mdgen/mdgen/internal/phcdemo"
	"math"
	"math/big"
	"math/cmplx"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/ref"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
	"github.com/mdgen/mdgen/stager/solutions"
)

var precisions = []int{1, 2, 3, 4, 5, 8, 10, 16}

// ratPair is a random small rational k/8, k in -8..8 without 0, with an
// imaginary part of the same kind when complex.
func ratPair(rng *rand.Rand, complex bool) poly.Rational {
	var z poly.Rational
	draw := func(r *big.Rat) {
		k := int64(0)
		for k == 0 {
			k = rng.Int64N(17) - 8
		}
		r.SetFrac64(k, 8)
	}
	draw(&z.Re)
	if complex {
		draw(&z.Im)
	}
	return z
}

type monoKey string

func keyOf(vars, pows []int) monoKey { return monoKey(fmt.Sprint(vars, pows)) }

// randomSystem returns a random system of m equations in n unknowns x1..xn
// and the parameter t with the regular solution z at t = 0: each of the
// first n equations has every linear term and three monomials of degree 2
// or 3, coefficients c0 + c1 t with random small rationals, and the
// constant term chosen so that G(z, 0) = 0; equations n+1..m are random
// combinations of two of the first n (so the system stays consistent).
func randomSystem(n, m int, seed int64, complex bool) (*poly.System, []poly.Rational) {
	rng := rand.New(rand.NewPCG(uint64(seed), 99))
	z := families.RandomPoint(n, seed, complex)
	sys := &poly.System{Vars: make([]string, n), Param: "t", Polys: make([]poly.Polynomial, m)}
	for v := range n {
		sys.Vars[v] = fmt.Sprintf("x%d", v+1)
	}
	for i := 0; i < n; i++ {
		seen := map[monoKey]bool{}
		var terms []poly.Monomial
		add := func(vars, pows []int) {
			k := keyOf(vars, pows)
			if seen[k] {
				return
			}
			seen[k] = true
			terms = append(terms, poly.Monomial{Coef: poly.Series{ratPair(rng, complex), ratPair(rng, complex)}, Vars: vars, Pows: pows})
		}
		for v := range n {
			add([]int{v}, []int{1})
		}
		for len(terms) < n+3 {
			a, b := rng.IntN(n), rng.IntN(n)
			switch {
			case a == b:
				add([]int{a}, []int{2 + rng.IntN(2)})
			case a < b:
				add([]int{a, b}, []int{1, 1 + rng.IntN(2)})
			default:
				add([]int{b, a}, []int{1 + rng.IntN(2), 1})
			}
		}
		sys.Polys[i] = poly.Polynomial{Terms: terms, Const: poly.Series{{}, ratPair(rng, complex)}}
	}
	fix := func(i int) {
		g := sys.EvalAt(z, nil)
		c := &sys.Polys[i].Const[0]
		c.Re.Sub(&c.Re, &g[i].Re)
		c.Im.Sub(&c.Im, &g[i].Im)
	}
	for i := 0; i < n; i++ {
		fix(i)
	}
	for i := n; i < m; i++ {
		p, q := rng.IntN(n), rng.IntN(n)
		sys.Polys[i] = combine(&sys.Polys[p], &sys.Polys[q], ratPair(rng, complex), ratPair(rng, complex))
	}
	return sys, z
}

// combine returns a P + b Q, like terms merged in order of appearance.
func combine(p, q *poly.Polynomial, a, b poly.Rational) poly.Polynomial {
	var out poly.Polynomial
	idx := map[monoKey]int{}
	scale := func(s poly.Series, c poly.Rational) poly.Series {
		r := make(poly.Series, len(s))
		for k := range s {
			mulRat(&r[k], &s[k], &c)
		}
		return r
	}
	for _, pc := range []struct {
		p *poly.Polynomial
		c poly.Rational
	}{{p, a}, {q, b}} {
		out.Const = addSeries(out.Const, scale(pc.p.Const, pc.c))
		for _, t := range pc.p.Terms {
			k := keyOf(t.Vars, t.Pows)
			if j, ok := idx[k]; ok {
				out.Terms[j].Coef = addSeries(out.Terms[j].Coef, scale(t.Coef, pc.c))
				continue
			}
			idx[k] = len(out.Terms)
			out.Terms = append(out.Terms, poly.Monomial{Coef: scale(t.Coef, pc.c), Vars: slices.Clone(t.Vars), Pows: slices.Clone(t.Pows)})
		}
	}
	return out
}

func mulRat(z, x, y *poly.Rational) {
	var a, b, c, d big.Rat
	a.Mul(&x.Re, &y.Re)
	b.Mul(&x.Im, &y.Im)
	c.Mul(&x.Re, &y.Im)
	d.Mul(&x.Im, &y.Re)
	z.Re.Sub(&a, &b)
	z.Im.Add(&c, &d)
}

func addSeries(a, b poly.Series) poly.Series {
	out := make(poly.Series, max(len(a), len(b)))
	for k := range out {
		if k < len(a) {
			out[k].Re.Add(&out[k].Re, &a[k].Re)
			out[k].Im.Add(&out[k].Im, &a[k].Im)
		}
		if k < len(b) {
			out[k].Re.Add(&out[k].Re, &b[k].Re)
			out[k].Im.Add(&out[k].Im, &b[k].Im)
		}
	}
	return out
}

// bigC returns the coefficient as two big.Floats (exact).
func bigC(z poly.Rational) (re, im *big.Float) {
	return new(big.Float).SetPrec(4096).SetRat(&z.Re), new(big.Float).SetPrec(4096).SetRat(&z.Im)
}

func absMaxBig(re, im *big.Float) *big.Float {
	a := new(big.Float).Abs(re)
	b := new(big.Float).Abs(im)
	if b.Cmp(a) > 0 {
		return b
	}
	return a
}

// log2Big returns log2 |x| (-Inf for 0).
func log2Big(x *big.Float) float64 {
	if x.Sign() == 0 {
		return math.Inf(-1)
	}
	m := new(big.Float)
	e := x.MantExp(m)
	f, _ := m.Float64()
	return float64(e) + math.Log2(math.Abs(f))
}

// worstBits returns the smallest number of bits to which a coefficient of
// got agrees with want (want[v][k] re, im), relative to the largest
// coefficient of its variable, and where.
func worstBits(res *Result, want func(v, k int) (re, im *big.Float)) (float64, string) {
	worst, where := math.Inf(1), ""
	for v := range res.Vars {
		big0 := new(big.Float)
		for k := 0; k <= res.Degree; k++ {
			re, im := want(v, k)
			if m := absMaxBig(re, im); m.Cmp(big0) > 0 {
				big0 = m
			}
		}
		for k := 0; k <= res.Degree; k++ {
			re, im := want(v, k)
			g := res.Rat(v, k)
			gre, gim := bigC(g)
			dre := new(big.Float).SetPrec(4096).Sub(gre, re)
			dim := new(big.Float).SetPrec(4096).Sub(gim, im)
			bits := log2Big(big0) - log2Big(absMaxBig(dre, dim))
			if bits < worst {
				worst, where = bits, fmt.Sprintf("%s t^%d", res.Vars[v], k)
			}
		}
	}
	return worst, where
}

func solve(t testing.TB, sys *poly.System, start []poly.Rational, opt Options) *Result {
	t.Helper()
	s, err := New(sys, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Solve(start)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func refStart(z []poly.Rational, prec uint) []ref.Complex {
	out := make([]ref.Complex, len(z))
	for i := range z {
		out[i] = ref.Complex{Re: new(big.Float).SetPrec(prec).SetRat(&z[i].Re), Im: new(big.Float).SetPrec(prec).SetRat(&z[i].Im)}
	}
	return out
}

// TestAgainstReference: random small systems (square and overdetermined),
// every generated precision, real and complex: every coefficient agrees
// with ref.NewtonSeries at 64N+200 bits to 53N-30 bits relative to the
// largest coefficient of its variable.
func TestAgainstReference(t *testing.T) {
	const d = 8
	for _, N := range precisions {
		for _, complex := range []bool{false, true} {
			for _, shape := range [][2]int{{3, 3}, {2, 3}} {
				n, m := shape[0], shape[1]
				name := fmt.Sprintf("%dd/complex=%v/%dx%d", N, complex, m, n)
				t.Run(name, func(t *testing.T) {
					seed := int64(10*N + n + m)
					if complex {
						seed += 1000
					}
					sys, z := randomSystem(n, m, seed, complex)
					res := solve(t, sys, z, Options{Prec: mdops.Prec{N: N, Complex: complex}, Degree: d, Workers: 1})
					if !res.Converged {
						t.Fatalf("not converged: %v", res.Err)
					}
					prec := uint(64*N + 200)
					want, err := ref.NewtonSeries(sys, refStart(z, prec), d, prec, 80)
					if err != nil {
						t.Fatal(err)
					}
					bits, where := worstBits(res, func(v, k int) (*big.Float, *big.Float) {
						c := want.Series[v][k]
						return c.Re, c.Im
					})
					need := float64(53*N - 30)
					t.Logf("%s: %d steps (%d refining), cond %.3g, residual %.3g, worst %.1f bits at %s (need %.0f)",
						name, res.Steps, res.RefineSteps, res.Cond, res.Residual, bits, where, need)
					if bits < need {
						t.Errorf("%s: %.1f bits at %s, want >= %.0f", name, bits, where, need)
					}
				})
			}
		}
	}
}

// TestMonomialExact: the monomial homotopies (one and two columns of
// monomials) against their exact series exp(c_i t): every coefficient to
// 53N-30 bits of the largest coefficient of its variable, less the bits
// that the problem itself loses: log2 of the largest coefficient of the
// matrix series A(t)^-1 = J(x(t), t)^-1 mod t^(d+1) (toeplitzGrowth), which
// carries the rounding of G at every coefficient into x. For one column it
// is a few bits; for two columns with seed 3 (n = 8, d = 16) it is 2^35.7:
// J(x(t), t) is singular near t = 0.2, and ref.NewtonSeries at 64N+200 bits
// stagnates as many bits above its precision.
func TestMonomialExact(t *testing.T) {
	for _, N := range []int{1, 2, 4, 8, 16} {
		for _, complex := range []bool{false, true} {
			for _, cols := range []int{1, 2} {
				for _, seed := range []int64{3} {
					const n, d = 8, 16
					name := fmt.Sprintf("%dd/complex=%v/columns=%d/seed=%d", N, complex, cols, seed)
					t.Run(name, func(t *testing.T) {
						inst, err := families.Build("monomial", families.Options{N: n, Degree: d, Columns: cols, Seed: seed, Complex: complex})
						if err != nil {
							t.Fatal(err)
						}
						res := solve(t, inst.System, inst.Start[0].Values, Options{Prec: mdops.Prec{N: N, Complex: complex}, Degree: d, Workers: 1})
						if !res.Converged {
							t.Fatalf("not converged: %v", res.Err)
						}
						bits, where := worstBits(res, func(v, k int) (*big.Float, *big.Float) { return bigC(inst.Exact[v][k]) })
						growth := math.Max(0, math.Log2(toeplitzGrowth(families.MonomialRates(n, seed, complex), cols, d)))
						need := float64(53*N-30) - growth
						t.Logf("%s: %d steps, cond %.3g, residual %.3g, worst %.1f bits at %s (need %.0f: 53N-30 less %.1f bits of growth of A(t)^-1)",
							name, res.Steps, res.Cond, res.Residual, bits, where, need, growth)
						if bits < need {
							t.Errorf("%.1f bits at %s, want >= %.0f", bits, where, need)
						}
					})
				}
			}
		}
	}
}

// toeplitzGrowth returns the largest magnitude of an entry of Z_k, k = 0..d,
// for Z(t) = A(t)^-1 mod t^(d+1), A(t) the Jacobian of the monomial
// homotopy with the given rates along its solution x_i = exp(c_i t), in
// complex128: A_k(i, j) = (P_i - c_j)^k / k! for j <= i (P_i = c_1+...+c_i),
// plus (S_i - c_j)^k / k! for j >= i with two columns (S_i = c_i+...+c_n).
func toeplitzGrowth(rates []poly.Rational, cols, d int) float64 {
	n := len(rates)
	c := make([]complex128, n)
	for i := range c {
		re, _ := rates[i].Re.Float64()
		im, _ := rates[i].Im.Float64()
		c[i] = complex(re, im)
	}
	mat := func() [][]complex128 {
		m := make([][]complex128, n)
		for i := range m {
			m[i] = make([]complex128, n)
		}
		return m
	}
	a := make([][][]complex128, d+1)
	for k := range a {
		a[k] = mat()
		fact := math.Gamma(float64(k + 1))
		for i := 0; i < n; i++ {
			var pre, suf complex128
			for j := 0; j <= i; j++ {
				pre += c[j]
			}
			for j := i; j < n; j++ {
				suf += c[j]
			}
			for j := 0; j < n; j++ {
				if j <= i {
					a[k][i][j] += cmplx.Pow(pre-c[j], complex(float64(k), 0)) / complex(fact, 0)
				}
				if cols == 2 && j >= i {
					a[k][i][j] += cmplx.Pow(suf-c[j], complex(float64(k), 0)) / complex(fact, 0)
				}
			}
			if k == 0 { // 0^0 = 1 exactly
				for j := 0; j < n; j++ {
					a[0][i][j] = 0
					if j <= i {
						a[0][i][j]++
					}
					if cols == 2 && j >= i {
						a[0][i][j]++
					}
				}
			}
		}
	}
	// Z_0 = A_0^-1 by Gauss-Jordan with partial pivoting.
	aug := make([][]complex128, n)
	for i := range aug {
		aug[i] = make([]complex128, 2*n)
		copy(aug[i], a[0][i])
		aug[i][n+i] = 1
	}
	for col := 0; col < n; col++ {
		p := col
		for r := col + 1; r < n; r++ {
			if cmplx.Abs(aug[r][col]) > cmplx.Abs(aug[p][col]) {
				p = r
			}
		}
		aug[col], aug[p] = aug[p], aug[col]
		for r := 0; r < n; r++ {
			if r != col {
				f := aug[r][col] / aug[col][col]
				for k := range aug[r] {
					aug[r][k] -= f * aug[col][k]
				}
			}
		}
	}
	z := make([][][]complex128, d+1)
	z[0] = mat()
	for i := range z[0] {
		for j := range z[0][i] {
			z[0][i][j] = aug[i][n+j] / aug[i][i]
		}
	}
	growth := 0.0
	for k := 0; k <= d; k++ {
		if k > 0 { // Z_k = -Z_0 sum_(j=1..k) A_j Z_(k-j)
			s := mat()
			for j := 1; j <= k; j++ {
				for p := 0; p < n; p++ {
					for q := 0; q < n; q++ {
						for r := 0; r < n; r++ {
							s[p][r] += a[j][p][q] * z[k-j][q][r]
						}
					}
				}
			}
			z[k] = mat()
			for p := 0; p < n; p++ {
				for q := 0; q < n; q++ {
					for r := 0; r < n; r++ {
						z[k][p][r] -= z[0][p][q] * s[q][r]
					}
				}
			}
		}
		for _, row := range z[k] {
			for _, v := range row {
				growth = max(growth, cmplx.Abs(v))
			}
		}
	}
	return growth
}

// TestWorkersBitIdentical: the series, the residual, the condition and the
// step counts do not depend on the worker count. At 8 doubles the
// single-vector ApplyQH and SolveR run as teams (la's thresholds: from
// m = 4 and n = 8 at N = 8), at 4 doubles and n = 12 they do not; the
// updates and residuals are batches of MulSubs in both.
func TestWorkersBitIdentical(t *testing.T) {
	for _, prec := range []int{4, 8} {
		for _, complex := range []bool{false, true} {
			testWorkersBitIdentical(t, prec, complex)
		}
	}
}

func testWorkersBitIdentical(t *testing.T, prec int, complex bool) {
	inst, err := families.Build("monomial", families.Options{N: 12, Degree: 10, Columns: 2, Seed: 5, Complex: complex})
	if err != nil {
		t.Fatal(err)
	}
	var first *Result
	for _, w := range []int{1, 2, 3, 4} {
		res := solve(t, inst.System, inst.Start[0].Values, Options{Prec: mdops.Prec{N: prec, Complex: complex}, Degree: 10, Workers: w})
		if !res.Converged {
			t.Fatalf("%d doubles, complex=%v, workers %d: %v", prec, complex, w, res.Err)
		}
		if first == nil {
			first = res
			continue
		}
		for i := range res.X {
			if math.Float64bits(res.X[i]) != math.Float64bits(first.X[i]) {
				t.Fatalf("%d doubles, complex=%v: workers %d differ from workers 1 at double %d", prec, complex, w, i)
			}
		}
		if res.Residual != first.Residual || res.Cond != first.Cond || res.Steps != first.Steps || res.Update != first.Update {
			t.Errorf("%d doubles, complex=%v workers %d: residual %v cond %v steps %d update %v, workers 1: %v %v %d %v", prec, complex, w,
				res.Residual, res.Cond, res.Steps, res.Update, first.Residual, first.Cond, first.Steps, first.Update)
		}
	}
}

func parse(t *testing.T, src, param string) *poly.System {
	t.Helper()
	sys, err := poly.Parse("test", []byte(src), poly.ParseOptions{Param: param})
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

func point(vals ...float64) []poly.Rational {
	z := make([]poly.Rational, len(vals))
	for i, v := range vals {
		z[i].Re.SetFloat64(v)
	}
	return z
}

// TestSingularStart: a rank-deficient Jacobian at t = 0 is refused with its
// column; an ill-conditioned one with its condition estimate.
func TestSingularStart(t *testing.T) {
	sys := parse(t, "2 3\n x^2 - t;\n y - 1 - t;\n", "t")
	res := solve(t, sys, point(0, 1), Options{Prec: mdops.Prec{N: 2}, Degree: 4})
	var f *Failure
	if res.Converged || !errors.As(res.Err, &f) || !errors.Is(res.Err, ErrSingular) {
		t.Fatalf("want a singular failure, got converged=%v err=%v", res.Converged, res.Err)
	}
	var rank *la.RankError
	if f.Col != 1 || !errors.As(res.Err, &rank) || rank.Col != 1 || !strings.Contains(res.Err.Error(), "column 1") {
		t.Errorf("want column 1: %v", res.Err)
	}
	// y first: the dependent column is the second.
	sys = parse(t, "2 3\n y - 1 - t;\n x^2 - t;\n", "t")
	res = solve(t, sys, point(1, 0), Options{Prec: mdops.Prec{N: 2}, Degree: 4})
	if !errors.Is(res.Err, ErrSingular) || !strings.Contains(res.Err.Error(), "column 2") {
		t.Errorf("want a singular failure at column 2 (variables %v): %v", sys.Vars, res.Err)
	}
	// x + y = 2, x + (1+e) y = 2+e: cond about 4/e.
	sys = parse(t, "2 2\n x + y - 2;\n x + y + 1/1099511627776*y - 2 - 1/1099511627776;\n", "")
	if len(sys.Vars) != 2 {
		t.Fatalf("vars %v", sys.Vars)
	}
	res = solve(t, sys, point(1, 1), Options{Prec: mdops.Prec{N: 1}})
	if !errors.Is(res.Err, ErrIllConditioned) || !strings.Contains(res.Err.Error(), "condition estimate") {
		t.Errorf("1d: want ill-conditioned, got %v", res.Err)
	}
	res = solve(t, sys, point(1, 1), Options{Prec: mdops.Prec{N: 2}})
	if !res.Converged {
		t.Errorf("2d: want converged (cond 2^42 < 2^53), got %v", res.Err)
	}
}

// TestDiverging: a start that is not a solution at t = 0 (x^2 + 1 = 0 has
// no real root) diverges, and the error says so with the residual.
func TestDiverging(t *testing.T) {
	sys := parse(t, "1 1\n x^2 + 1;\n", "")
	res := solve(t, sys, point(0.5), Options{Prec: mdops.Prec{N: 2}})
	if res.Converged || !errors.Is(res.Err, ErrDiverging) {
		t.Fatalf("want diverging, got converged=%v err=%v", res.Converged, res.Err)
	}
	if msg := res.Err.Error(); !strings.Contains(msg, "not a solution") || !strings.Contains(msg, "1.25") {
		t.Errorf("message: %s", msg)
	}
	// The step limit.
	res = solve(t, sys, point(0.5), Options{Prec: mdops.Prec{N: 2}, MaxSteps: 1})
	if !errors.Is(res.Err, ErrStepLimit) {
		t.Errorf("want a step limit, got %v", res.Err)
	}
}

// TestSqrtSeries: x^2 = 1 + t from x(0) = 1.1 (a rough start, refined),
// the exact binomial series, every precision.
func TestSqrtSeries(t *testing.T) {
	sys := parse(t, "1 2\n x^2 - 1 - t;\n", "t")
	const d = 20
	for _, N := range precisions {
		res := solve(t, sys, point(1.1), Options{Prec: mdops.Prec{N: N}, Degree: d})
		if !res.Converged {
			t.Fatalf("%dd: %v", N, res.Err)
		}
		bits, where := worstBits(res, func(v, k int) (*big.Float, *big.Float) {
			c := big.NewRat(1, 1)
			for i := 0; i < k; i++ {
				c.Mul(c, big.NewRat(int64(1-2*i), int64(2*(i+1))))
			}
			return new(big.Float).SetPrec(4096).SetRat(c), new(big.Float)
		})
		if need := float64(53*N - 30); bits < need {
			t.Errorf("%dd: %.1f bits at %s, want %.0f", N, bits, where, need)
		}
	}
}

// TestBadInput: errors of New and Solve.
func TestBadInput(t *testing.T) {
	sys := parse(t, "1 3\n x*y - 1 - t;\n", "t")
	if _, err := New(sys, Options{Prec: mdops.Prec{N: 2}}); err == nil || !strings.Contains(err.Error(), "1 equations in 2 unknowns") {
		t.Errorf("fewer equations: %v", err)
	}
	sys = parse(t, "1 2\n x^2 - 1 - t;\n", "t")
	if _, err := New(sys, Options{Prec: mdops.Prec{N: 6}}); err == nil {
		t.Errorf("6 doubles: no error")
	}
	s, err := New(sys, Options{Prec: mdops.Prec{N: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Solve(point(1, 2)); err == nil || !strings.Contains(err.Error(), "2 values") {
		t.Errorf("wrong dimension: %v", err)
	}
	z := point(1)
	z[0].Im.SetInt64(1)
	if _, err := s.Solve(z); err == nil || !strings.Contains(err.Error(), "imaginary") {
		t.Errorf("complex start, real data: %v", err)
	}
	csys := parse(t, "1 2\n x^2 - i - t;\n", "t")
	if _, err := New(csys, Options{Prec: mdops.Prec{N: 2}}); err == nil || !strings.Contains(err.Error(), "complex") {
		t.Errorf("complex system, real data: %v", err)
	}
}

// TestCyclic5Refine: the 7 generating solutions of PHCpack's cyclic 5-roots
// demo refined in 8 doubles, residual below 1e-115 each.
func TestCyclic5Refine(t *testing.T) {
	workspace := filepath.Join("..", "..", "..", "shared", "systems", "phcpack-demo")
	dir := phcdemo.Dir(workspace)
	if dir == "" {
		t.Skipf("SKIPPED: PHCpack's demo file cyclic5 is not here (%s, %s)", workspace, phcdemo.Debian)
	}
	path := filepath.Join(dir, "cyclic5")
	sys, sols, err := solutions.ParseWithSystemFile(path, poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sols) != 7 {
		t.Fatalf("%d solutions, want 7", len(sols))
	}
	s, err := New(sys, Options{Prec: mdops.Prec{N: 8, Complex: true}})
	if err != nil {
		t.Fatal(err)
	}
	for i, sol := range sols {
		res, err := s.Solve(sol.Values)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("solution %d: converged %v in %d steps, residual %.3g, cond %.3g, update %.3g", i+1, res.Converged, res.Steps, res.Residual, res.Cond, res.Update)
		if !res.Converged || !(res.Residual < 1e-115) {
			t.Errorf("solution %d: converged %v (%v), residual %.3g", i+1, res.Converged, res.Err, res.Residual)
		}
	}
}

func TestStagger(t *testing.T) {
	if got, want := Stagger(64), []int{0, 1, 2, 4, 7, 11, 17, 26, 40, 61, 64}; !slices.Equal(got, want) {
		t.Errorf("Stagger(64) = %v, want %v", got, want)
	}
	// Near math.MaxInt, w+1+w/2 overflowed and the loop never ended.
	big := Stagger(math.MaxInt)
	if big[len(big)-1] != math.MaxInt || len(big) > 120 || !slices.IsSorted(big) {
		t.Errorf("Stagger(MaxInt): %d degrees, last %d", len(big), big[len(big)-1])
	}
	if got := Stagger(0); !slices.Equal(got, []int{0}) {
		t.Errorf("Stagger(0) = %v", got)
	}
}
