package fp

import (
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"
)

// bigPrec is the precision of the references (bits).
const bigPrec = 256

// bigLn returns ln x for x > 0 finite: x = m 2^e, m in [1/2, 1), ln m =
// 2 atanh((m-1)/(m+1)) by its series, plus e ln 2.
func bigLn(x *big.Float) *big.Float {
	m := new(big.Float).SetPrec(bigPrec)
	e := x.MantExp(m)
	atanh2 := func(v *big.Float) *big.Float { // 2 atanh((v-1)/(v+1))
		one := big.NewFloat(1).SetPrec(bigPrec)
		s := new(big.Float).SetPrec(bigPrec).Quo(new(big.Float).SetPrec(bigPrec).Sub(v, one), new(big.Float).SetPrec(bigPrec).Add(v, one))
		s2 := new(big.Float).SetPrec(bigPrec).Mul(s, s)
		sum, pow := new(big.Float).SetPrec(bigPrec), new(big.Float).SetPrec(bigPrec).Set(s)
		for k := 0; k < 90; k++ { // |s| <= 1/3: 1/9^90 < 2^-280
			term := new(big.Float).SetPrec(bigPrec).Quo(pow, big.NewFloat(float64(2*k+1)))
			sum.Add(sum, term)
			pow.Mul(pow, s2)
		}
		return sum.Mul(sum, big.NewFloat(2))
	}
	if bigLn2 == nil {
		bigLn2 = atanh2(big.NewFloat(2).SetPrec(bigPrec))
	}
	lnm := atanh2(m)
	return lnm.Add(lnm, new(big.Float).SetPrec(bigPrec).Mul(bigLn2, big.NewFloat(float64(e))))
}

// bigLn2 is ln 2 (bigLn's first call sets it; the tests using it are not
// parallel).
var bigLn2 *big.Float

// bigExp returns e^z for a moderate z: z = n ln 2 + r, |r| <= ln 2 / 2, by
// r's Taylor series, times 2^n.
func bigExp(z *big.Float) *big.Float {
	bigLn(big.NewFloat(1).SetPrec(bigPrec)) // sets bigLn2
	ln2 := bigLn2
	q, _ := new(big.Float).SetPrec(bigPrec).Quo(z, ln2).Float64()
	n := math.Round(q)
	r := new(big.Float).SetPrec(bigPrec).Sub(z, new(big.Float).SetPrec(bigPrec).Mul(ln2, big.NewFloat(n)))
	sum, term := big.NewFloat(1).SetPrec(bigPrec), big.NewFloat(1).SetPrec(bigPrec)
	for k := 1; k < 60; k++ { // |r| <= 0.35: 0.35^60/60! < 2^-300
		term.Mul(term, r)
		term.Quo(term, big.NewFloat(float64(k)))
		sum.Add(sum, term)
	}
	return sum.SetMantExp(sum, int(n))
}

// bigPow returns x^y rounded to float64, from 256-bit ln and exp.
func bigPow(x, y float64) float64 {
	z := bigLn(new(big.Float).SetPrec(bigPrec).SetFloat64(x))
	z.Mul(z, new(big.Float).SetPrec(bigPrec).SetFloat64(y))
	v, _ := bigExp(z).Float64()
	return v
}

// adversarial are inputs at the edges of the float64 range and of the
// functions' special cases.
var adversarial = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, 2, math.Sqrt2, math.Sqrt2 / 2,
	math.SmallestNonzeroFloat64, 0x1p-1022, 0x1.fffffffffffffp-1023, math.MaxFloat64, 0x1p1023,
	1 + 0x1p-52, 1 - 0x1p-53, 1e-300, 1e300, 3, 1.0 / 3, math.Inf(1), math.Inf(-1), math.NaN()}

// TestHypotIsMath: Hypot has math.Hypot's bits on amd64 (its assembly is
// the same computation, never fused) for random inputs over the whole
// exponent range and the adversarial ones; elsewhere, where math.Hypot's Go
// code may be fused, within an ulp.
func TestHypotIsMath(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	wide := func() float64 {
		return math.Ldexp(r.Float64()+0.5, r.IntN(2100)-1075) * float64(1-2*r.IntN(2))
	}
	check := func(p, q float64) {
		got, want := Hypot(p, q), math.Hypot(p, q)
		if math.IsNaN(want) {
			if !math.IsNaN(got) {
				t.Fatalf("Hypot(%g, %g) = %g, want NaN", p, q, got)
			}
			return
		}
		if runtime.GOARCH == "amd64" && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Hypot(%g, %g) = %b, math.Hypot %b", p, q, got, want)
		}
		if got != want && math.Abs(got-want) > 0x1p-52*want {
			t.Fatalf("Hypot(%g, %g) = %g, math.Hypot %g", p, q, got, want)
		}
	}
	for _, p := range adversarial {
		for _, q := range adversarial {
			check(p, q)
		}
	}
	for range 200000 {
		check(wide(), wide())
		p := wide()
		check(p, p*math.Ldexp(r.Float64(), -r.IntN(60)))
	}
}

// TestPowAccuracy: Pow against x^y from math/big (256-bit ln and exp)
// for x over the whole positive range, subnormals included, and the
// exponents the tracker uses (1/k, 0.75, a real k in (0, 10]) and random
// ones: the relative error is at most 2^-52 (4 + |y log2 x| + |y|), the
// bound of the doc comment's operations (log2 x carries an error of
// about its own ulp, which y and then the exponential multiply). Where
// the reference is normal, math.Pow is within that too but on amd64 for a
// subnormal x: its assembly Log reads a subnormal as 2^-1022 times its
// fraction (math.Log(5e-324) = -709.09, not -744.44; golang/go#56600).
func TestPowAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	check := func(x, y float64) {
		want := bigPow(x, y)
		if math.IsInf(want, 0) || want < 0x1p-1000 || want > 0x1p1000 {
			return // the special cases and the ends of the range: TestPowSpecial
		}
		got := Pow(x, y)
		z := math.Abs(y * math.Log2(x))
		err := math.Abs(got-want) / want
		if tol := 0x1p-52 * (4 + z + math.Abs(y)); !(err <= tol) {
			t.Fatalf("Pow(%g, %g) = %.17g, math/big %.17g: relative error %.3g > %.3g", x, y, got, want, err, tol)
		}
		worst = max(worst, err/(0x1p-52*(4+z+math.Abs(y))))
	}
	for _, x := range adversarial {
		for k := 1; k <= 16; k++ {
			if x > 0 && !math.IsInf(x, 0) {
				check(x, 1/float64(k))
			}
		}
	}
	for range 3000 {
		x := math.Ldexp(r.Float64()+0.5, r.IntN(2095)-1073) // 2^-1074 to 2^1022
		k := 1 + r.IntN(16)
		check(x, 1/float64(k))
		check(x, 0.75)
		check(x, 10*r.Float64())
		check(x, -3*r.Float64())
		check(1+math.Ldexp(r.Float64()-0.5, -r.IntN(40)), math.Ldexp(r.Float64(), r.IntN(12)))
	}
	t.Logf("worst error: %.2f of the bound", worst)
}

// TestPowSpecial: the special cases of Pow's doc comment.
func TestPowSpecial(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, c := range []struct{ x, y, want float64 }{
		{3, 0, 1}, {0, 0, 1}, {nan, 0, 1}, {1, nan, 1}, {1, 7.5, 1},
		{nan, 2, nan}, {2, nan, nan}, {-2, 0.5, nan}, {-8, 1.0 / 3, nan},
		{0, 0.5, 0}, {0, -0.5, inf}, {inf, 0.5, inf}, {inf, -0.5, 0},
		{2, inf, inf}, {0.5, inf, 0}, {2, -inf, 0}, {0.5, -inf, inf},
		{2, 1100, inf}, {2, -1100, 0}, {1e300, 10, inf}, {1e-300, 10, 0},
	} {
		got := Pow(c.x, c.y)
		if math.Float64bits(got) != math.Float64bits(c.want) && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("Pow(%g, %g) = %g, want %g", c.x, c.y, got, c.want)
		}
	}
	// Exact where the operations are: a power of two to an integer power.
	for _, c := range []struct{ x, y, want float64 }{{8, 2, 64}, {0x1p-40, 1, 0x1p-40}, {0x1p100, -1, 0x1p-100}, {4, 0.5, 2}} {
		if got := Pow(c.x, c.y); got != c.want {
			t.Errorf("Pow(%g, %g) = %g, want %g exactly", c.x, c.y, got, c.want)
		}
	}
}

// TestPowBits: the bits of Pow at a few of the tracker's arguments. They
// are what the operations of the doc comment give, so every platform and
// the device must give them too: a platform that fused a product or a
// rewrite that changed an operation fails here.
func TestPowBits(t *testing.T) {
	for _, c := range []struct {
		x, y float64
		bits uint64
	}{
		{1e-6, 1.0 / 3, 0x3f847ae147ae147c},
		{0x1p-212, 0.75, 0x3600000000000000}, // 2^-159 exactly (math.Pow: 6 ulps above)
		{2.5e-4, 1.0 / 7, 0x3fd392068a565a4b},
		{123.456, 0.2, 0x4004f5c631b791d4},
		{0.9, 4.3, 0x3fe4578a9b80ab6a},
	} {
		if got := math.Float64bits(Pow(c.x, c.y)); got != c.bits {
			t.Errorf("Pow(%g, %g): bits %#016x, want %#016x", c.x, c.y, got, c.bits)
		}
	}
}

// TestSincos: Sincos against math.Sincos within 2^-52 (absolute: both
// are within an ulp or so of the truth) over the tracker's angles and well
// beyond, the quarter turns exactly where they are exact (sin 0, cos 0),
// and NaN outside its range.
func TestSincos(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	check := func(x float64) {
		s, c := Sincos(x)
		ws, wc := math.Sincos(x)
		if !(math.Abs(s-ws) <= 0x1p-52) || !(math.Abs(c-wc) <= 0x1p-52) {
			t.Fatalf("Sincos(%g) = %.17g, %.17g; math %.17g, %.17g", x, s, c, ws, wc)
		}
	}
	for d := 1; d <= 64; d++ {
		for k := 0; k < d; k++ {
			check(2 * math.Pi * float64(k) / float64(d))
		}
	}
	for range 200000 {
		check(math.Pi / 4 * (2*r.Float64() - 1))
		check(200 * (r.Float64() - 0.5))
		check(math.Ldexp(r.Float64()-0.5, -r.IntN(60)))
	}
	if s, c := Sincos(0); s != 0 || c != 1 {
		t.Errorf("Sincos(0) = %g, %g", s, c)
	}
	for _, x := range []float64{0x1p19, -0x1p20, math.Inf(1), math.NaN()} {
		if s, c := Sincos(x); !math.IsNaN(s) || !math.IsNaN(c) {
			t.Errorf("Sincos(%g) = %g, %g, want NaN", x, s, c)
		}
	}
}

// TestMulDiv: Mul and Div against math/big's exact product and quotient
// (each part within a few ulps of the larger part's modulus, the
// componentwise error bound of the rounded products and Smith's
// division), over random operands across the exponent range.
func TestMulDiv(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	part := func() float64 { return math.Ldexp(r.Float64()-0.5, r.IntN(200)-100) }
	exact := func(ar, ai, br, bi float64, div bool) (float64, float64) {
		f := func(v float64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetFloat64(v) }
		mul := func(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(bigPrec).Mul(a, b) }
		re := new(big.Float).SetPrec(bigPrec).Sub(mul(f(ar), f(br)), mul(f(ai), f(bi)))
		im := new(big.Float).SetPrec(bigPrec).Add(mul(f(ar), f(bi)), mul(f(ai), f(br)))
		if div { // a conj(b) / |b|^2
			re = new(big.Float).SetPrec(bigPrec).Add(mul(f(ar), f(br)), mul(f(ai), f(bi)))
			im = new(big.Float).SetPrec(bigPrec).Sub(mul(f(ai), f(br)), mul(f(ar), f(bi)))
			n := new(big.Float).SetPrec(bigPrec).Add(mul(f(br), f(br)), mul(f(bi), f(bi)))
			re.Quo(re, n)
			im.Quo(im, n)
		}
		x, _ := re.Float64()
		y, _ := im.Float64()
		return x, y
	}
	for range 100000 {
		a, b := complex(part(), part()), complex(part(), part())
		for _, div := range []bool{false, true} {
			got := Mul(a, b)
			if div {
				got = Div(a, b)
			}
			wr, wi := exact(real(a), imag(a), real(b), imag(b), div)
			scale := math.Max(math.Abs(wr), math.Abs(wi))
			tol := 0x1p-52 * 4 * scale
			if div {
				tol *= 2
			}
			if !(math.Abs(real(got)-wr) <= tol) || !(math.Abs(imag(got)-wi) <= tol) {
				t.Fatalf("a = %v, b = %v, div %v: %v, want %g%+gi", a, b, div, got, wr, wi)
			}
		}
	}
}
