package mdops

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/mdgen/mdgen/mdops/alg"
)

// targetBits is the worst-case accuracy each operation must reach at N limbs.
func targetBits(op string, n int) float64 {
	switch op {
	case "add", "sub":
		return float64(53*n - 3)
	case "mul", "sqr", "mulf64", "madd":
		return float64(53*n - 6) // madd: relative to |acc| + |x*y|
	}
	return float64(53*n - 10) // div, sqrt
}

// knownLimit lists (N, op, corpus kind) combinations whose accuracy is
// limited by the float64 exponent range rather than by the algorithm, with
// the bits they do reach. For N = 16 the 848-bit span of an operand near
// 2^±1000 reaches below 2^-1074 inside div and sqrt even after scaling.
var knownLimit = map[string]float64{
	"16/div/subnormal":  600,
	"16/sqrt/overflow":  600,
	"16/sqrt/subnormal": 600,
}

// apply runs the generated operation op on case c.
func apply(f limbFuncs, op string, c alg.Case) []float64 {
	switch op {
	case "add":
		return f.add(c.X, c.Y)
	case "sub":
		return f.sub(c.X, c.Y)
	case "mul":
		return f.mul(c.X, c.Y)
	case "div":
		return f.div(c.X, c.Y)
	case "sqr":
		return f.sqr(c.X)
	case "sqrt":
		return f.sqrt(c.X)
	case "mulf64":
		return f.mulFloat64(c.X, c.F)
	case "madd":
		return f.madd(c.A, c.X, c.Y)
	}
	panic(op)
}

var arithOps = alg.MeasuredOps

// TestAccuracyAgainstBig checks every generated operation at every N
// against math/big.Float (exact, or 64N+200 bits for div and sqrt) on
// random and adversarial inputs, checks that results are normalized, and
// that the generated Go code is bit-identical to the IR interpreter.
func TestAccuracyAgainstBig(t *testing.T) {
	count := 1500
	if testing.Short() {
		count = 200
	}
	for _, n := range generatedNs {
		lib := alg.Build(n)
		f := limbFuncsByN[n]
		for _, op := range arithOps {
			t.Run(fmt.Sprintf("N%d/%s", n, op), func(t *testing.T) {
				t.Parallel()
				prec := uint(64*n + 200)
				worst := math.Inf(1)
				for i, c := range alg.Corpus(op, n, count, 7) {
					got := apply(f, op, c)
					want := lib.Program(op).Eval(alg.Args(op, c)...)
					for k := range got {
						if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
							t.Fatalf("case %d (%s): generated Go %v differs from the IR interpreter %v", i, c.Kind, got, want)
						}
					}
					if !alg.IsNormalized(got) {
						t.Errorf("case %d (%s): result %v is not normalized (x=%v y=%v)", i, c.Kind, got, c.X, c.Y)
					}
					bits := alg.AccurateBitsScaled(got, alg.Reference(op, c, prec), alg.Scale(op, c))
					target := targetBits(op, n)
					if lim, ok := knownLimit[fmt.Sprintf("%d/%s/%s", n, op, c.Kind)]; ok {
						target = lim
					}
					if bits < target {
						t.Errorf("case %d (%s): %.1f accurate bits < %.0f\nx=%v\ny=%v f=%v acc=%v\ngot=%v", i, c.Kind, bits, target, c.X, c.Y, c.F, c.A, got)
					}
					worst = min(worst, bits)
				}
				t.Logf("worst %.1f accurate bits over %d cases", worst, count)
			})
		}
	}
}

// TestSpecialValues checks that NaN and Inf reach the leading limb and
// never leave finite garbage, and that division by zero follows IEEE.
func TestSpecialValues(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, n := range generatedNs {
		f := limbFuncsByN[n]
		v := func(x0 float64) []float64 { x := make([]float64, n); x[0] = x0; return x }
		one, zero := v(1), v(0)
		cases := []struct {
			name string
			got  []float64
			want float64 // leading limb; NaN means NaN
		}{
			{"Inf+1", f.add(v(inf), one), inf},
			{"1-Inf", f.sub(one, v(inf)), -inf},
			{"Inf-Inf", f.sub(v(inf), v(inf)), nan},
			{"NaN+1", f.add(v(nan), one), nan},
			{"Inf*2", f.mul(v(inf), v(2)), inf},
			{"Inf*0", f.mul(v(inf), zero), nan},
			{"NaN*1", f.mul(v(nan), one), nan},
			{"1/0", f.div(one, zero), inf},
			{"-1/0", f.div(v(-1), zero), -inf},
			{"0/0", f.div(zero, zero), nan},
			{"1/Inf", f.div(one, v(inf)), 0},
			{"Inf/2", f.div(v(inf), v(2)), inf},
			{"sqrt(0)", f.sqrt(zero), 0},
			{"sqrt(-1)", f.sqrt(v(-1)), nan},
			{"sqrt(Inf)", f.sqrt(v(inf)), inf},
			{"sqr(Inf)", f.sqr(v(inf)), inf},
			{"max+max", f.add(v(math.MaxFloat64), v(math.MaxFloat64)), inf},
			{"max*2", f.mulFloat64(v(math.MaxFloat64), 2), inf},
			{"Inf+1*1", f.madd(v(inf), one, one), inf},
			{"1+Inf*2", f.madd(one, v(inf), v(2)), inf},
			{"-Inf+Inf*2", f.madd(v(-inf), v(inf), v(2)), nan},
			{"1+Inf*0", f.madd(one, v(inf), zero), nan},
			{"NaN+1*1", f.madd(v(nan), one, one), nan},
			{"1+NaN*1", f.madd(one, v(nan), one), nan},
			{"max+max*2", f.madd(v(math.MaxFloat64), v(math.MaxFloat64), v(2)), inf},
			{"0+1*0", f.madd(zero, one, zero), 0},
		}
		for _, c := range cases {
			lead := c.got[0]
			ok := lead == c.want || math.IsNaN(c.want) && math.IsNaN(lead)
			if !ok {
				t.Errorf("N=%d %s: leading limb %v, want %v (all %v)", n, c.name, lead, c.want, c.got)
			}
			if math.IsNaN(lead) || math.IsInf(lead, 0) {
				for k := 1; k < n; k++ {
					if c.got[k] != 0 {
						t.Errorf("N=%d %s: non-finite result has lower limb %d = %v", n, c.name, k, c.got[k])
					}
				}
			}
		}
	}
}

// TestStringRoundTrip checks ParseF<N>(x.String()) == x on the typed API.
func TestStringRoundTrip(t *testing.T) {
	for _, c := range alg.Corpus("add", 4, 300, 3) {
		x := F4(c.X)
		y, err := ParseF4(x.String())
		if err != nil || y != x {
			t.Fatalf("ParseF4(%q) = %v, %v; want %v", x.String(), y, err, x)
		}
	}
	for _, c := range alg.Corpus("add", 16, 100, 3) {
		x := F16(c.X)
		y, err := ParseF16(x.String())
		if err != nil || y != x {
			t.Fatalf("ParseF16(%q) = %v, %v; want %v", x.String(), y, err, x)
		}
	}
	third := F8FromBig(new(big.Float).SetPrec(1000).Quo(big.NewFloat(1), big.NewFloat(3)))
	if got := third.Mul(F8FromFloat64(3)); got.Cmp(F8FromFloat64(1)) == 0 {
		t.Logf("1/3*3 rounds to 1 exactly")
	} else if d := got.Sub(F8FromFloat64(1)); math.Abs(d[0]) > 0x1p-420 {
		t.Errorf("1/3*3 - 1 = %v, too large", d)
	}
	if _, err := ParseF2("1.5x"); err == nil {
		t.Errorf("ParseF2 accepted 1.5x")
	}
}

// TestComplex checks complex multiplication and division against math/big.
func TestComplex(t *testing.T) {
	for _, n := range generatedNs {
		f := limbFuncsByN[n]
		var cs []alg.Case
		for _, c := range alg.Corpus("mul", n, 400, 5) {
			// Moderate exponents: the textbook formulas overflow otherwise.
			// N = 16 limbs span 848 bits: keep them above the subnormals.
			lo := math.Ldexp(1, 53*n-900)
			if (c.Kind == "random" || c.Kind == "sparse" || c.Kind == "cancel") && math.Abs(c.X[0]) > lo && math.Abs(c.Y[0]) > lo {
				cs = append(cs, c)
			}
		}
		for i := 0; i+1 < len(cs); i += 2 {
			ar, ai, br, bi := cs[i].X, cs[i].Y, cs[i+1].X, cs[i+1].Y
			re, im := f.cmul(ar, ai, br, bi)
			prec := uint(64*n + 400)
			m := func(a, b []float64) *big.Float {
				return new(big.Float).SetPrec(prec).Mul(alg.Exact(a), alg.Exact(b))
			}
			wantRe := new(big.Float).SetPrec(prec).Sub(m(ar, br), m(ai, bi))
			wantIm := new(big.Float).SetPrec(prec).Add(m(ar, bi), m(ai, br))
			// Componentwise accuracy is relative to |a||b|, the natural bound.
			abs2 := func(u, v *big.Float) *big.Float {
				return new(big.Float).SetPrec(prec).Add(new(big.Float).Abs(u), new(big.Float).Abs(v))
			}
			for _, p := range []struct {
				got         []float64
				want, scale *big.Float
			}{{re, wantRe, abs2(m(ar, br), m(ai, bi))}, {im, wantIm, abs2(m(ar, bi), m(ai, br))}} {
				scale := p.scale
				d := new(big.Float).SetPrec(prec).Sub(alg.Exact(p.got), p.want)
				if d.Sign() == 0 || scale.Sign() == 0 {
					continue
				}
				q, _ := new(big.Float).Quo(d.Abs(d), scale).Float64()
				if q > 0 && -math.Log2(q) < float64(53*n-8) && q > math.Ldexp(1, -1000) {
					t.Errorf("N=%d case %d: complex product off by 2^%.1f relative", n, i, math.Log2(q))
				}
			}
			// (a*b)/b recovers a to about the precision.
			qr, _ := f.cdiv(re, im, br, bi)
			d := new(big.Float).Sub(alg.Exact(qr), alg.Exact(ar))
			if ar[0] != 0 && d.Sign() != 0 && !math.IsInf(re[0], 0) {
				rel, _ := new(big.Float).Quo(d.Abs(d), new(big.Float).Abs(alg.Exact(ar))).Float64()
				// Relative to |a|, a component much smaller than the other loses
				// accuracy in the quotient: bound by the larger component.
				big1 := math.Max(math.Abs(ar[0]), math.Abs(ai[0]))
				if rel*math.Abs(ar[0])/big1 > math.Ldexp(1, -(53*n-20)) {
					t.Errorf("N=%d case %d: (a*b)/b differs from a by 2^%.1f relative", n, i, math.Log2(rel))
				}
			}
		}
	}
}
