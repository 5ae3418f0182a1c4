package mdops

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// limbCounts are the N-double sizes the conversion tests cover.
var limbCounts = []int{1, 2, 3, 4, 5, 8, 10, 16}

// cvtRand returns a deterministic generator for one test and limb count, so
// that failures reproduce.
func cvtRand(seed uint64, n int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(n)*0x9E3779B97F4A7C15))
}

// cvtRandomBig returns a random value with about 60*n significant bits, a
// leading exponent in [-1000, 1000] and a random sign. With large n and small
// exponents its lower bits fall into the subnormal range.
func cvtRandomBig(rng *rand.Rand, n int) *big.Float {
	bits := 60*n + 4
	m := new(big.Int)
	for m.BitLen() < bits {
		m.Lsh(m, 64)
		m.Or(m, new(big.Int).SetUint64(rng.Uint64()))
	}
	m.Rsh(m, uint(m.BitLen()-bits))
	m.SetBit(m, bits-1, 1)
	e := rng.IntN(2001) - 1000
	x := new(big.Float).SetInt(m)
	x.SetMantExp(x, e-bits)
	if rng.IntN(2) == 0 {
		x.Neg(x)
	}
	return x
}

// cvtHalfGap returns half the distance from a to its neighbour in the
// direction of sign s (the largest tail the pair can absorb, up to ties).
func cvtHalfGap(a float64, s float64) float64 {
	nb := math.Nextafter(a, math.Inf(int(s)))
	if math.IsInf(nb, 0) {
		return math.Abs(a-math.Nextafter(a, 0)) / 2
	}
	return math.Abs(nb-a) / 2
}

// cvtTrickyBig returns an exact sum of limbs chosen at normalization
// boundaries: ties at half an ulp, just below and above them, powers of two,
// odd and even limbs, near-overflow and subnormal leading limbs, plus an
// optional tiny perturbation that pushes it off an exact boundary.
func cvtTrickyBig(rng *rand.Rand, n int) *big.Float {
	var a float64
	switch rng.IntN(8) {
	case 0:
		a = math.MaxFloat64
		if rng.IntN(2) == 0 {
			a = math.Nextafter(a, 0)
		}
	case 1:
		a = math.Ldexp(1+float64(rng.IntN(4))/4, -1000-rng.IntN(60))
	case 2:
		a = math.Ldexp(1, rng.IntN(200)-100)
	default:
		a = math.Ldexp(float64(1<<52+rng.Int64N(1<<52)), rng.IntN(400)-252)
	}
	if rng.IntN(2) == 0 {
		a = -a
	}
	x := new(big.Float).SetPrec(5000).SetFloat64(a)
	low := limbLSB(a)
	for k := 1; k < n+2 && a != 0; k++ {
		s := 1.0
		if rng.IntN(2) == 0 {
			s = -1
		}
		h := cvtHalfGap(a, s)
		var v float64
		switch rng.IntN(7) {
		case 0, 1:
			v = h
		case 2:
			v = math.Nextafter(h, 0)
		case 3:
			v = math.Nextafter(h, math.Inf(1))
		case 4:
			v = h / 2
		case 5:
			v = math.Ldexp(h, -rng.IntN(100))
		default:
			v = h * (0.5 + rng.Float64()/2)
		}
		v *= s
		if v == 0 {
			break
		}
		x.Add(x, new(big.Float).SetFloat64(v))
		a = v
		low = limbLSB(v)
	}
	if rng.IntN(2) == 0 {
		p := new(big.Float).SetMantExp(big.NewFloat(1), low-1-rng.IntN(60))
		if rng.IntN(2) == 0 {
			p.Neg(p)
		}
		x.Add(x, p)
	}
	return x
}

// cvtSparse returns hand-made values with far-apart and subnormal limbs.
func cvtSparse() [][]float64 {
	p := func(e int) float64 { return math.Ldexp(1, e) }
	return [][]float64{
		{1, p(-200), p(-700)},
		{-1, -p(-200), p(-700)},
		{p(-1000), p(-1060)},
		{p(-1000), -p(-1060), p(-1074)},
		{3 * p(-1022), p(-1074)},
		{math.MaxFloat64, p(970 - 60), -p(400)},
		{1, p(-60), p(-120), p(-180), p(-240), p(-300), p(-360), p(-420)},
		{0.1, 0.1 * p(-60)},
		{p(1023), p(-1074)},
		{-p(-1074)},
	}
}

// cvtExactSum sums limbs at a precision that cannot round.
func cvtExactSum(x []float64) *big.Float {
	s := new(big.Float).SetPrec(5000)
	for _, v := range x {
		s.Add(s, new(big.Float).SetFloat64(v))
	}
	return s
}

// cvtNormalized reports whether x is a normalized N-double.
func cvtNormalized(x []float64) bool {
	if len(x) == 0 {
		return true
	}
	if math.IsNaN(x[0]) || math.IsInf(x[0], 0) {
		for _, v := range x[1:] {
			if math.Float64bits(v) != 0 {
				return false
			}
		}
		return true
	}
	for k := 0; k+1 < len(x); k++ {
		a, b := x[k], x[k+1]
		if a+b != a || (a == 0 && math.Float64bits(b) != 0) || math.Signbit(b) && b == 0 {
			return false
		}
	}
	return true
}

// cvtSame reports whether x and y are bitwise identical.
func cvtSame(x, y []float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

// cvtRoundErrorOK checks that sum(x) is within the rounding error of the
// last limb (or of 2^-1075 if the value ended early) from want.
func cvtRoundErrorOK(x []float64, want *big.Float) bool {
	if math.IsInf(x[0], 0) {
		f, _ := want.Float64() // overflow as for float64
		return f == x[0]
	}
	if math.Abs(x[0]) == math.MaxFloat64 {
		return true // clamped near overflow: checked separately
	}
	err := new(big.Float).SetPrec(5000).Sub(want, cvtExactSum(x))
	err.Abs(err)
	bound := new(big.Float).SetMantExp(big.NewFloat(1), -1075)
	if last := x[len(x)-1]; last != 0 {
		bound.SetMantExp(big.NewFloat(1), ulpExp(last))
	}
	return err.Cmp(bound) <= 0
}

// cvtValues returns a mixed set of canonical N-doubles for one limb count.
func cvtValues(n, count int, seed uint64) [][]float64 {
	rng := cvtRand(seed, n)
	var out [][]float64
	for _, s := range cvtSparse() {
		x := make([]float64, n)
		limbsFromBig(x, cvtExactSum(s))
		out = append(out, x)
	}
	for len(out) < count {
		var b *big.Float
		if len(out)%4 == 3 {
			b = cvtTrickyBig(rng, n)
		} else {
			b = cvtRandomBig(rng, n)
		}
		x := make([]float64, n)
		limbsFromBig(x, b)
		out = append(out, x)
	}
	return out
}

func TestLimbsFromBigRounding(t *testing.T) {
	for _, n := range limbCounts {
		rng := cvtRand(1, n)
		x := make([]float64, n)
		back := make([]float64, n)
		for i := 0; i < 3000; i++ {
			var b *big.Float
			if i%2 == 0 {
				b = cvtRandomBig(rng, n)
			} else {
				b = cvtTrickyBig(rng, n)
			}
			limbsFromBig(x, b)
			if !cvtNormalized(x) {
				t.Fatalf("n=%d: limbsFromBig(%s) = %v is not normalized", n, b.Text('g', 40), x)
			}
			if !cvtRoundErrorOK(x, b) {
				t.Fatalf("n=%d: limbsFromBig(%s) = %v is not correctly rounded", n, b.Text('g', 40), x)
			}
			// Greedy rounding: the leading limb is the float64 nearest to x,
			// except where the normalization cascade moved it to its even
			// neighbour without changing the value.
			f, _ := b.Float64()
			if x[0] != f && math.Nextafter(x[0], f) != f {
				t.Fatalf("n=%d: leading limb %v of %s, want %v", n, x[0], b.Text('g', 40), f)
			}
			limbsFromBig(back, limbsToBig(x))
			if !cvtSame(back, x) {
				t.Fatalf("n=%d: limbsFromBig(limbsToBig(%v)) = %v", n, x, back)
			}
		}
	}
}

// TestLimbsFromBigCascade pins the case where plain greedy rounding is not
// normalized: 1 + 2^-52 + 2^-53 - 2^-110 as a 2-double.
func TestLimbsFromBigCascade(t *testing.T) {
	b := cvtExactSum([]float64{1, math.Ldexp(1, -52), math.Ldexp(1, -53), -math.Ldexp(1, -110)})
	x := make([]float64, 2)
	limbsFromBig(x, b)
	want := []float64{1 + math.Ldexp(1, -51), -math.Ldexp(1, -53)}
	if !cvtSame(x, want) {
		t.Fatalf("got %v, want %v", x, want)
	}
	// Near overflow the cascade is impossible and the last limb is clamped.
	b = cvtExactSum([]float64{math.MaxFloat64, math.Ldexp(1, 970), -math.Ldexp(1, 900)})
	limbsFromBig(x, b)
	want = []float64{math.MaxFloat64, math.Nextafter(math.Ldexp(1, 970), 0)}
	if !cvtSame(x, want) {
		t.Fatalf("near overflow: got %v, want %v", x, want)
	}
}

func TestLimbsFromBigSpecial(t *testing.T) {
	negZero := math.Copysign(0, -1)
	p := func(e int) *big.Float { return new(big.Float).SetMantExp(big.NewFloat(1), e) }
	cases := []struct {
		name string
		in   *big.Float
		want []float64
	}{
		{"nil", nil, []float64{math.NaN(), 0, 0}},
		{"+0", new(big.Float), []float64{0, 0, 0}},
		{"-0", new(big.Float).Neg(new(big.Float)), []float64{negZero, 0, 0}},
		{"+Inf", new(big.Float).SetInf(false), []float64{math.Inf(1), 0, 0}},
		{"-Inf", new(big.Float).SetInf(true), []float64{math.Inf(-1), 0, 0}},
		{"2^1024", p(1024), []float64{math.Inf(1), 0, 0}},
		{"-2^5000", new(big.Float).Neg(p(5000)), []float64{math.Inf(-1), 0, 0}},
		{"2^-1075", p(-1075), []float64{0, 0, 0}},
		{"-2^-1080", new(big.Float).Neg(p(-1080)), []float64{negZero, 0, 0}},
		{"1", big.NewFloat(1), []float64{1, 0, 0}},
		{"1+2^-1074", new(big.Float).SetPrec(2000).Add(big.NewFloat(1), p(-1074)), []float64{1, math.Ldexp(1, -1074), 0}},
		{"1+2^-1075", new(big.Float).SetPrec(2000).Add(big.NewFloat(1), p(-1075)), []float64{1, 0, 0}},
	}
	for _, c := range cases {
		got := make([]float64, 3)
		limbsFromBig(got, c.in)
		if !cvtSame(got, c.want) && !(math.IsNaN(got[0]) && math.IsNaN(c.want[0]) && got[1] == 0 && got[2] == 0) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	limbsFromBig(nil, big.NewFloat(1)) // must not panic

	// Subnormal rounding of remainders agrees with strconv, which is
	// correctly rounded: 2^-1000 + d for decimal d in the subnormal range
	// and below half an ulp of 2^-1000 (2^-1053 > 1e-317).
	rng := cvtRand(2, 0)
	for i := 0; i < 500; i++ {
		d := strconv.FormatFloat(rng.Float64(), 'f', -1, 64) + "e-" + strconv.Itoa(317+rng.IntN(8))
		want, err := strconv.ParseFloat(d, 64)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := new(big.Rat).SetString(d)
		b := new(big.Float).SetPrec(4000).SetRat(r)
		b.Add(b, p(-1000))
		got := make([]float64, 2)
		limbsFromBig(got, b)
		if got[0] != math.Ldexp(1, -1000) || got[1] != want {
			t.Fatalf("2^-1000 + %s: got %v, want second limb %v", d, got, want)
		}
	}
}

func TestLimbsToBigExact(t *testing.T) {
	for _, n := range limbCounts {
		for _, x := range cvtValues(n, 500, 3) {
			got := limbsToBig(x)
			if got.Cmp(cvtExactSum(x)) != 0 {
				t.Fatalf("limbsToBig(%v) = %s, not exact", x, got.Text('g', 60))
			}
		}
	}
	// Arbitrary (non-normalized) limbs are summed exactly too.
	rng := cvtRand(4, 0)
	for i := 0; i < 1000; i++ {
		x := make([]float64, 1+rng.IntN(16))
		for k := range x {
			x[k] = math.Ldexp(rng.NormFloat64(), rng.IntN(2100)-1075)
		}
		if limbsToBig(x).Cmp(cvtExactSum(x)) != 0 {
			t.Fatalf("limbsToBig(%v) not exact", x)
		}
	}
	if limbsToBig([]float64{math.NaN(), 0}) != nil || limbsToBig([]float64{1, math.NaN()}) != nil {
		t.Error("NaN must give nil")
	}
	if limbsToBig([]float64{math.Inf(1), math.Inf(-1)}) != nil {
		t.Error("Inf-Inf must give nil")
	}
	if b := limbsToBig([]float64{math.Inf(-1), 0}); !b.IsInf() || b.Sign() > 0 {
		t.Errorf("-Inf gave %v", b)
	}
	if b := limbsToBig([]float64{math.Copysign(0, -1), 0}); b.Sign() != 0 || !b.Signbit() {
		t.Errorf("-0 gave %v", b)
	}
	if b := limbsToBig([]float64{0, 0}); b.Sign() != 0 || b.Signbit() {
		t.Errorf("+0 gave %v", b)
	}
}

func TestFormatParseLimbsRoundTrip(t *testing.T) {
	for _, n := range limbCounts {
		back := make([]float64, n)
		for _, x := range cvtValues(n, 3000, 5) {
			s := formatLimbs(x)
			if err := parseLimbs(back, s, "F"); err != nil {
				t.Fatalf("n=%d: parseLimbs(formatLimbs(%v) = %q): %v", n, x, s, err)
			}
			if !cvtSame(back, x) {
				t.Fatalf("n=%d: parseLimbs(formatLimbs(%v) = %q) = %v", n, x, s, back)
			}
			// One digit fewer must not round-trip when the output is far from
			// exact, or the search was not the shortest (spot check).
			if n <= 2 && len(s) < 40 {
				checkShorter(t, x, s)
			}
		}
	}
}

// checkShorter checks that rounding the mantissa of s to one digit fewer
// does not round-trip x, so that formatLimbs output is the shortest.
func checkShorter(t *testing.T, x []float64, s string) {
	t.Helper()
	if isNaNLimbs(x) || isInfLimbs(x) {
		return
	}
	mant, exp, _ := strings.Cut(strings.TrimPrefix(s, "-"), "e")
	digits := strings.Trim(strings.ReplaceAll(mant, ".", ""), "0")
	if len(digits) <= 1 {
		return
	}
	b := limbsToBig(x)
	short := b.Text('e', len(digits)-2)
	y := make([]float64, len(x))
	if parseLimbs(y, short, "F") == nil && cvtSame(x, y) {
		t.Errorf("%v: %q round-trips but formatLimbs gave %q (exp %q)", x, short, s, exp)
	}
}

func TestFormatLimbsText(t *testing.T) {
	p := func(e int) float64 { return math.Ldexp(1, e) }
	negZero := math.Copysign(0, -1)
	parsed := func(n int, s string) []float64 {
		x := make([]float64, n)
		if err := parseLimbs(x, s, "F"); err != nil {
			t.Fatal(err)
		}
		return x
	}
	cases := []struct {
		x    []float64
		want string
	}{
		{[]float64{math.NaN(), 0}, "NaN"},
		{[]float64{1, math.NaN()}, "NaN"},
		{[]float64{math.Inf(1), 0}, "+Inf"},
		{[]float64{math.Inf(-1), 0}, "-Inf"},
		{[]float64{0, 0}, "0"},
		{[]float64{negZero, 0}, "-0"},
		{[]float64{1, 0}, "1"},
		{[]float64{-2.5, 0, 0, 0}, "-2.5"},
		{[]float64{1, p(-60)}, "1.0000000000000000008673617379884035"},
		{[]float64{1, p(-60), 0}, "1.000000000000000000867361737988403547205962240695953369140625"},
		{[]float64{1e21, 0}, "1e+21"},
		{[]float64{1e20, 0}, "100000000000000000000"},
		{[]float64{0.0001, 0}, "0.000100000000000000004792173602385929598312941379845142364501953125"},
		{parsed(4, "0.1"), "0.1"},
		{parsed(4, "0.0001"), "0.0001"},
		{parsed(4, "0.00001"), "1e-05"},
		{parsed(8, "-3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745028410270193852110555964462294895493038196"), "-3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955"},
		{[]float64{p(-1074)}, "5e-324"},
		{[]float64{math.MaxFloat64}, "1.7976931348623157e+308"},
		{[]float64{0.1}, "0.1"},
	}
	for _, c := range cases {
		if got := formatLimbs(c.x); got != c.want {
			t.Errorf("formatLimbs(%v) = %q, want %q", c.x, got, c.want)
		}
	}
	// A 1-double prints the same digits as strconv's shortest text (the
	// exponent form starts at 1e21 here, so compare digit strings only).
	rng := cvtRand(6, 1)
	for i := 0; i < 2000; i++ {
		f := math.Float64frombits(rng.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		got := formatLimbs([]float64{f})
		want := strconv.FormatFloat(f, 'e', -1, 64)
		gm, _, _ := strings.Cut(strings.ReplaceAll(strings.TrimPrefix(got, "-"), ".", ""), "e")
		wm, _, _ := strings.Cut(strings.ReplaceAll(strings.TrimPrefix(want, "-"), ".", ""), "e")
		gm, wm = strings.Trim(gm, "0"), strings.Trim(wm, "0")
		if gm != wm {
			t.Fatalf("formatLimbs(%v) = %q, strconv gives %q", f, got, want)
		}
	}
}

// cvtArbNormalized returns a normalized N-double built limb by limb, each
// lower limb drawn from what its predecessor accepts with a bias towards the
// boundaries (ties at half an ulp). Unlike cvtValues these are often not
// canonical: they model what arithmetic may return.
func cvtArbNormalized(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	var a float64
	switch rng.IntN(6) {
	case 0:
		a = math.Ldexp(1, rng.IntN(2000)-1000)
	case 1:
		a = math.MaxFloat64
	case 2:
		a = math.Ldexp(float64(1<<52+rng.Int64N(1<<52)), -1074+rng.IntN(60))
	default:
		a = math.Ldexp(float64(1<<52+rng.Int64N(1<<52)), rng.IntN(2000)-1052)
	}
	if rng.IntN(2) == 0 {
		a = -a
	}
	x[0] = a
	for k := 1; k < n; k++ {
		s := float64(rng.IntN(2)*2 - 1)
		h := cvtHalfGap(a, s)
		var v float64
		switch rng.IntN(6) {
		case 0, 1:
			v = h
		case 2:
			v = math.Nextafter(h, 0)
		case 3:
			v = h * rng.Float64()
		case 4:
			v = math.Ldexp(h, -rng.IntN(80))
		default:
			v = math.Ldexp(h, -rng.IntN(3))
		}
		v *= s
		if a+v != a {
			v = math.Nextafter(v, 0) // a tie that goes away from an odd a
		}
		if a+v != a || v == 0 {
			break
		}
		x[k] = v
		a = v
	}
	return x
}

// TestLimbsNonCanonicalValues checks, for normalized inputs that need not be
// canonical, what does hold: text and big.Float conversions keep the value
// and return normalized limbs, and cmpLimbs is exact.
func TestLimbsNonCanonicalValues(t *testing.T) {
	for _, n := range limbCounts {
		rng := cvtRand(10, n)
		back := make([]float64, n)
		for i := 0; i < 1500; i++ {
			x := cvtArbNormalized(rng, n)
			if !cvtNormalized(x) {
				t.Fatalf("generator: %v not normalized", x)
			}
			s := formatLimbs(x)
			if err := parseLimbs(back, s, "F"); err != nil {
				t.Fatal(err)
			}
			if !cvtNormalized(back) || cvtExactSum(back).Cmp(cvtExactSum(x)) != 0 {
				t.Fatalf("n=%d: %v -> %q -> %v", n, x, s, back)
			}
			limbsFromBig(back, limbsToBig(x))
			if !cvtNormalized(back) || cvtExactSum(back).Cmp(cvtExactSum(x)) != 0 {
				t.Fatalf("n=%d: %v -> big -> %v", n, x, back)
			}
			y := cvtArbNormalized(rng, n)
			if i%2 == 0 { // a neighbour: differs in the last bit of one limb
				y = append(y[:0], x...)
				k := rng.IntN(n)
				y[k] = math.Nextafter(y[k], math.Inf(rng.IntN(2)*2-1))
				if !cvtNormalized(y) {
					continue
				}
			}
			if got, want := cmpLimbs(x, y), cvtExactSum(x).Cmp(cvtExactSum(y)); got != want {
				t.Fatalf("cmpLimbs(%v, %v) = %d, want %d", x, y, got, want)
			}
		}
	}
}

// TestFormatLimbsNonCanonical covers normalized inputs that limbsFromBig does
// not produce: they come back with the same value, and normalized.
func TestFormatLimbsNonCanonical(t *testing.T) {
	p := func(e int) float64 { return math.Ldexp(1, e) }
	x := []float64{1, p(-53), p(-106)}
	if !cvtNormalized(x) {
		t.Fatal("test value not normalized")
	}
	s := formatLimbs(x)
	y := make([]float64, 3)
	if err := parseLimbs(y, s, "F3"); err != nil {
		t.Fatal(err)
	}
	want := []float64{1 + p(-52), -(p(-53) - p(-106)), 0}
	if !cvtSame(y, want) {
		t.Fatalf("parse(format(%v)) = %v, want %v", x, y, want)
	}
	if cmpLimbs(x, y) != 0 || cvtExactSum(x).Cmp(cvtExactSum(y)) != 0 {
		t.Fatal("values differ")
	}
}

func TestParseLimbsErrors(t *testing.T) {
	cases := []struct {
		in, msg string
		err     error
	}{
		{"", `mdops: ParseF4: unexpected end of input at offset 0 in ""`, strconv.ErrSyntax},
		{"1.2x", `mdops: ParseF4: invalid character 'x' at offset 3 in "1.2x"`, strconv.ErrSyntax},
		{"1.2.3", `mdops: ParseF4: invalid character '.' at offset 3 in "1.2.3"`, strconv.ErrSyntax},
		{"abc", `mdops: ParseF4: invalid character 'a' at offset 0 in "abc"`, strconv.ErrSyntax},
		{"1e", `mdops: ParseF4: unexpected end of input at offset 2 in "1e"`, strconv.ErrSyntax},
		{"1e+", `mdops: ParseF4: unexpected end of input at offset 3 in "1e+"`, strconv.ErrSyntax},
		{"1ex", `mdops: ParseF4: invalid character 'x' at offset 2 in "1ex"`, strconv.ErrSyntax},
		{"--1", `mdops: ParseF4: invalid character '-' at offset 1 in "--1"`, strconv.ErrSyntax},
		{"-", `mdops: ParseF4: unexpected end of input at offset 1 in "-"`, strconv.ErrSyntax},
		{".", `mdops: ParseF4: unexpected end of input at offset 1 in "."`, strconv.ErrSyntax},
		{".e1", `mdops: ParseF4: invalid character 'e' at offset 1 in ".e1"`, strconv.ErrSyntax},
		{" 1", `mdops: ParseF4: invalid character ' ' at offset 0 in " 1"`, strconv.ErrSyntax},
		{"1 ", `mdops: ParseF4: invalid character ' ' at offset 1 in "1 "`, strconv.ErrSyntax},
		{"0x10", `mdops: ParseF4: invalid character 'x' at offset 1 in "0x10"`, strconv.ErrSyntax},
		{"1_000", `mdops: ParseF4: invalid character '_' at offset 1 in "1_000"`, strconv.ErrSyntax},
		{"infx", `mdops: ParseF4: invalid character 'x' at offset 3 in "infx"`, strconv.ErrSyntax},
		{"infinit", `mdops: ParseF4: invalid character 'i' at offset 3 in "infinit"`, strconv.ErrSyntax},
		{"+nan", `mdops: ParseF4: invalid character 'n' at offset 1 in "+nan"`, strconv.ErrSyntax},
		{"na", `mdops: ParseF4: unexpected end of input at offset 2 in "na"`, strconv.ErrSyntax},
		{"12é", `mdops: ParseF4: invalid character 'é' at offset 2 in "12é"`, strconv.ErrSyntax},
		{"1e99999999999999999999", `mdops: ParseF4: exponent out of range at offset 2 in "1e99999999999999999999"`, strconv.ErrRange},
		{"0e-99999999999999999999", `mdops: ParseF4: exponent out of range at offset 3 in "0e-99999999999999999999"`, strconv.ErrRange},
	}
	for _, c := range cases {
		dst := []float64{7, 7, 7, 7}
		err := parseLimbs(dst, c.in, "F4")
		if err == nil {
			t.Errorf("parseLimbs(%q): no error", c.in)
			continue
		}
		if err.Error() != c.msg {
			t.Errorf("parseLimbs(%q): error %q, want %q", c.in, err, c.msg)
		}
		if !errors.Is(err, c.err) {
			t.Errorf("parseLimbs(%q): error %v is not %v", c.in, err, c.err)
		}
		if !cvtSame(dst, []float64{0, 0, 0, 0}) {
			t.Errorf("parseLimbs(%q): dst = %v after error, want zeros", c.in, dst)
		}
	}
	long := strings.Repeat("1", 200) + "x"
	if err := parseLimbs(make([]float64, 2), long, "F2"); err == nil || !strings.Contains(err.Error(), "offset 200") || len(err.Error()) > 160 {
		t.Errorf("long input: %v", err)
	}
}

func TestParseLimbsSpecial(t *testing.T) {
	negZero := math.Copysign(0, -1)
	inf, ninf := math.Inf(1), math.Inf(-1)
	cases := []struct {
		in   string
		want float64 // leading limb; the others must be +0
	}{
		{"NaN", math.NaN()}, {"nan", math.NaN()}, {"nAn", math.NaN()},
		{"Inf", inf}, {"+Inf", inf}, {"-Inf", ninf}, {"inf", inf}, {"-infinity", ninf}, {"INFINITY", inf},
		{"0", 0}, {"-0", negZero}, {"+0.000", 0}, {"-0e999999999", negZero}, {"0e-99999", 0},
		{"1e400", inf}, {"-1e309", ninf}, {"1e-400", 0}, {"-1e-400", negZero},
		{"2.4703282292062327e-324", 0}, {"2.4703282292062328e-324", math.Ldexp(1, -1074)},
		{"1.7976931348623159e308", inf}, {"1.", 1}, {".5", 0.5}, {"5E-1", 0.5}, {"+1e+0", 1},
		{"00012.50", 12.5}, {"1e-999999999", 0}, {"1e999999999", inf}, {"0.0000001e-2147483647", 0},
	}
	for _, c := range cases {
		dst := []float64{7, 7, 7}
		if err := parseLimbs(dst, c.in, "F3"); err != nil {
			t.Errorf("parseLimbs(%q): %v", c.in, err)
			continue
		}
		ok := math.Float64bits(dst[0]) == math.Float64bits(c.want) || math.IsNaN(dst[0]) && math.IsNaN(c.want)
		if !ok || math.Float64bits(dst[1]) != 0 || math.Float64bits(dst[2]) != 0 {
			t.Errorf("parseLimbs(%q) = %v, want {%v, 0, 0}", c.in, dst, c.want)
		}
	}
	if err := parseLimbs(nil, "1.5", "F0"); err != nil {
		t.Error(err)
	}
	if err := parseLimbs(nil, "1.5x", "F0"); err == nil {
		t.Error("syntax must be checked even for no limbs")
	}
}

// TestParseLimbsCorrectlyRounded checks the decimal conversion against
// strconv (correctly rounded) for 1 limb and against an exact big.Rat greedy
// rounding for more limbs, on random and halfway-biased decimal strings.
func TestParseLimbsCorrectlyRounded(t *testing.T) {
	rng := cvtRand(7, 0)
	randDec := func() string {
		var sb strings.Builder
		if rng.IntN(2) == 0 {
			sb.WriteByte('-')
		}
		nd := 1 + rng.IntN(60)
		if rng.IntN(8) == 0 {
			nd += rng.IntN(1800) // past maxParseDigits sometimes
		}
		for i := 0; i < nd; i++ {
			sb.WriteByte(byte('0' + rng.IntN(10)))
			if i == 0 {
				sb.WriteByte('.')
			}
		}
		sb.WriteString("e" + strconv.Itoa(rng.IntN(660)-340))
		return sb.String()
	}
	// Exact decimal expansions of float64 halfway points, nudged by a digit.
	halfway := func() string {
		f := math.Float64frombits(rng.Uint64() &^ (1 << 63))
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = 1
		}
		h := new(big.Float).SetPrec(2000).SetFloat64(f)
		h.Add(h, new(big.Float).SetFloat64(cvtHalfGap(f, 1)))
		s := h.Text('e', 1200)
		mant, exp, _ := strings.Cut(s, "e")
		mant = strings.TrimRight(mant, "0")
		switch rng.IntN(3) {
		case 0:
			mant += "1"
		case 1:
			mant = mant[:len(mant)-1] + string(mant[len(mant)-1]-1) + "9999"
		}
		return mant + "e" + exp
	}
	one := make([]float64, 1)
	for i := 0; i < 3000; i++ {
		s := randDec()
		if i%2 == 1 {
			s = halfway()
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			t.Fatal(err)
		}
		if err := parseLimbs(one, s, "F1"); err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(one[0]) != math.Float64bits(want) {
			t.Fatalf("parseLimbs(%q) = %v, strconv gives %v", s, one[0], want)
		}
	}
	// More limbs: greedy rounding of the exact rational, where it is
	// normalized (it is not only at rare ties, where the cascade applies).
	for _, n := range []int{2, 3, 4, 8, 16} {
		dst := make([]float64, n)
		ref := make([]float64, n)
		for i := 0; i < 300; i++ {
			s := randDec()
			if i%2 == 1 {
				s = halfway()
			}
			if err := parseLimbs(dst, s, "F"); err != nil {
				t.Fatal(err)
			}
			r, ok := new(big.Rat).SetString(s)
			if !ok {
				t.Fatal(s)
			}
			clear(ref)
			for k := range ref {
				f, _ := r.Float64()
				if f == 0 || math.IsInf(f, 0) {
					if k == 0 {
						ref[0] = f
					}
					break
				}
				ref[k] = f
				r.Sub(r, new(big.Rat).SetFloat64(f))
			}
			if cvtNormalized(ref) && !cvtSame(dst, ref) {
				t.Fatalf("n=%d: parseLimbs(%q) = %v, want %v", n, s, dst, ref)
			}
		}
	}
}

func TestCmpLimbs(t *testing.T) {
	p := func(e int) float64 { return math.Ldexp(1, e) }
	nan := math.NaN()
	fixed := []struct {
		x, y []float64
		want int
	}{
		{[]float64{nan, 0}, []float64{nan, 0}, 0},
		{[]float64{1, nan}, []float64{nan, 0}, 0},
		{[]float64{nan, 0}, []float64{math.Inf(-1), 0}, -1},
		{[]float64{0, 0}, []float64{nan, 0}, 1},
		{[]float64{math.Copysign(0, -1), 0}, []float64{0, 0}, 0},
		{[]float64{math.Inf(1), 0}, []float64{math.MaxFloat64, p(970 - 1)}, 1},
		{[]float64{math.Inf(-1), 0}, []float64{math.Inf(-1), 0}, 0},
		{[]float64{1, p(-53), p(-106)}, []float64{1 + p(-52), -(p(-53) - p(-106)), -p(-300)}, 1},
		{[]float64{1, p(-53), p(-106)}, []float64{1 + p(-52), -(p(-53) - p(-106)), 0}, 0},
		{[]float64{0, 0}, []float64{p(-1074), 0}, -1},
		{[]float64{1, p(-60)}, []float64{1, p(-61)}, 1},
		{[]float64{1}, []float64{1, -p(-80)}, 1},
	}
	for _, c := range fixed {
		if got := cmpLimbs(c.x, c.y); got != c.want {
			t.Errorf("cmpLimbs(%v, %v) = %d, want %d", c.x, c.y, got, c.want)
		}
		if got := cmpLimbs(c.y, c.x); got != -c.want {
			t.Errorf("cmpLimbs(%v, %v) = %d, want %d", c.y, c.x, got, -c.want)
		}
	}
	for _, n := range limbCounts {
		vals := cvtValues(n, 400, 8)
		rng := cvtRand(9, n)
		for i := 0; i < 3000; i++ {
			x := vals[rng.IntN(len(vals))]
			var y []float64
			switch i % 3 {
			case 0:
				y = vals[rng.IntN(len(vals))]
			case 1: // same value nudged in the last bit of some limb
				y = append([]float64(nil), x...)
				k := rng.IntN(n)
				y[k] = math.Nextafter(y[k], math.Inf(rng.IntN(2)*2-1))
				limbsFromBig(y, cvtExactSum(y))
			default: // equal value
				y = append([]float64(nil), x...)
			}
			want := cvtExactSum(x).Cmp(cvtExactSum(y))
			if got := cmpLimbs(x, y); got != want {
				t.Fatalf("cmpLimbs(%v, %v) = %d, want %d", x, y, got, want)
			}
		}
	}
}

func TestIsNaNInfLimbs(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		x        []float64
		isNaN    bool
		isInfVal bool
	}{
		{[]float64{nan, 0}, true, false},
		{[]float64{1, nan}, true, false},
		{[]float64{inf, nan}, true, false},
		{[]float64{inf, 0}, false, true},
		{[]float64{-inf, 0}, false, true},
		{[]float64{math.MaxFloat64, 1e290}, false, false},
		{nil, false, false},
	}
	for _, c := range cases {
		if isNaNLimbs(c.x) != c.isNaN || isInfLimbs(c.x) != c.isInfVal {
			t.Errorf("%v: isNaNLimbs %v isInfLimbs %v", c.x, isNaNLimbs(c.x), isInfLimbs(c.x))
		}
	}
}

func FuzzParseLimbs(f *testing.F) {
	for _, s := range []string{
		"", "0", "-0", "1", "-1.5e-300", "0.1", "1e308", "1.8e308", "4.9e-324",
		"2.4703282292062328e-324", "NaN", "-Inf", "infinity", "1.2.3", "1e",
		"--1", "1e99999999999999999999", ".5", "5.", "1E+5",
		"3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745028410270193852110555964462294895493038196",
		"1.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, n := range []int{1, 4, 16} {
			x := make([]float64, n)
			if err := parseLimbs(x, s, "F"); err != nil {
				if !cvtSame(x, make([]float64, n)) {
					t.Fatalf("dst not zeroed after error %v", err)
				}
				continue
			}
			if !cvtNormalized(x) {
				t.Fatalf("parseLimbs(%q) = %v is not normalized", s, x)
			}
			text := formatLimbs(x)
			y := make([]float64, n)
			if err := parseLimbs(y, text, "F"); err != nil {
				t.Fatalf("parseLimbs(formatLimbs(%v) = %q): %v", x, text, err)
			}
			if !cvtSame(x, y) && !(isNaNLimbs(x) && isNaNLimbs(y)) {
				t.Fatalf("parseLimbs(%q) = %v, but %q parses to %v", s, x, text, y)
			}
		}
	})
}
