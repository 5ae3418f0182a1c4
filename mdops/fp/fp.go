// Package fp has the float64 functions whose bits the project's
// decisions depend on, written so that they are the same on every
// platform and can be written again, operation for operation, on the
// device: only IEEE operations that are correctly rounded everywhere (+,
// -, *, /, Sqrt), exact ones (Frexp, Ldexp, Floor, comparisons), and every
// product rounded by an explicit float64 conversion, so that no Go
// compiler fuses it into an FMA (amd64 with GOAMD64=v3, arm64 and others
// may fuse x*y+z).
//
// math.Pow is not such a function: its Exp and Log are assembly on amd64
// (and Exp takes an FMA path where the CPU has one) and Go elsewhere, so
// the tracker's step sizes, which call Pow, could differ from one host to
// the next, and a device cannot follow them. math.Hypot is: amd64's
// assembly and the Go code compute max * Sqrt(1 + (min/max)^2) alike, but
// the Go code may be fused; Hypot here is that computation, unfused.
package fp

import (
	"math"
	"slices"
)

// Hypot returns sqrt(p*p + q*q) as math.Hypot computes it on amd64: +Inf
// if either is infinite, else NaN if either is NaN, else 0 if both are
// zero, else max * Sqrt(1 + r*r) with r = min/max of the moduli. On amd64
// the bits are math.Hypot's (TestHypotIsMath).
func Hypot(p, q float64) float64 {
	p, q = math.Abs(p), math.Abs(q)
	switch {
	case math.IsInf(p, 1) || math.IsInf(q, 1):
		return math.Inf(1)
	case math.IsNaN(p) || math.IsNaN(q):
		return math.NaN()
	}
	if p < q {
		p, q = q, p
	}
	if p == 0 {
		return 0
	}
	q = q / p
	return p * math.Sqrt(1+float64(q*q))
}

// The series of Pow, fixed here because they are the specification:
//
// log2(x) for x = m 2^e, m in [sqrt(1/2), sqrt(2)): e + 2 atanh(s)/ln 2,
// s = (m-1)/(m+1), |s| < 0.1716, atanh(s) = s (1 + s^2/3 + s^4/5 + ...),
// the odd reciprocals 1/(2k+1) for k = 0..logTerms-1 (the first left out
// is below 2^-60 relative to the sum);
//
// 2^z for z = n + f, n = Floor(z + 1/2), |f| <= 1/2: Ldexp(exp(t), n),
// t = f ln 2, exp(t) = sum t^k/k! for k = 0..expTerms-1 by Horner (|t| <=
// 0.347; the first term left out is below 2^-60).
const (
	logTerms = 12
	expTerms = 18
)

// ln2 and invLn2 are ln 2 and 1/ln 2 rounded to float64.
const (
	ln2     = 0.6931471805599453094172321214581766
	invLn2  = 1.4426950408889634073599246810018921
	sqrt1_2 = math.Sqrt2 / 2 // log2's split of m at sqrt(1/2)
)

var (
	// oddRecip[k] = 1/(2k+1), rounded.
	oddRecip [logTerms]float64
	// invFact[k] = 1/k!, rounded.
	invFact [expTerms]float64
)

func init() {
	for k := range oddRecip {
		oddRecip[k] = 1 / float64(2*k+1)
	}
	f := 1.0
	for k := range invFact {
		if k > 0 {
			f *= float64(k)
		}
		invFact[k] = 1 / f
	}
}

// Pow returns x^y for x >= 0 (the tracker's magnitudes) in the
// operations above: log2(x) times y, then 2 to that. Its relative error is
// at most 2^-52 (4 + |y log2 x| + |y|) (TestPowAccuracy, against math/big):
// log2(x) carries about its own ulp, which y and then the exponential
// multiply; the tracker's step sizes need three digits. Unlike math.Pow
// on amd64 it is right for a subnormal x (golang/go#56600: the assembly
// Log reads a subnormal as 2^-1022 times its fraction). Special cases:
// y = 0 or x = 1: 1; y = 1: x (x >= 0); NaN in: NaN; x < 0: NaN (not
// defined here); x = 0: 0 for y > 0, +Inf for y < 0; x = +Inf: +Inf for
// y > 0, 0 for y < 0; y = ±Inf: by x against 1; a result beyond the
// float64 range: +Inf or 0 (Ldexp's rounding below the normal range).
func Pow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case y == 1 && x >= 0:
		return x
	case math.IsNaN(x) || math.IsNaN(y) || x < 0:
		return math.NaN()
	case x == 0 || math.IsInf(x, 1):
		if (x == 0) == (y > 0) {
			return 0
		}
		return math.Inf(1)
	case math.IsInf(y, 0):
		if (x > 1) == (y > 0) {
			return math.Inf(1)
		}
		return 0
	}
	return exp2(float64(y * log2(x)))
}

// Log2 returns log2(x) in Pow's operations (its log2): -Inf for 0, +Inf
// for +Inf, NaN for NaN or x < 0.
func Log2(x float64) float64 {
	switch {
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	case !(x > 0):
		return math.NaN()
	}
	return log2(x)
}

// log2 returns log2(x) for a finite x > 0.
func log2(x float64) float64 {
	m, e := math.Frexp(x) // x = m 2^e, m in [1/2, 1)
	if m < sqrt1_2 {
		m, e = 2*m, e-1
	}
	s := (m - 1) / (m + 1)
	s2 := float64(s * s)
	sum := oddRecip[logTerms-1]
	for k := logTerms - 2; k >= 0; k-- {
		sum = float64(sum*s2) + oddRecip[k]
	}
	// 2 s sum / ln 2, then + e.
	return float64(float64(2*float64(s*sum))*invLn2) + float64(e)
}

// exp2 returns 2^z (+Inf above the range, 0 or a subnormal below it).
func exp2(z float64) float64 {
	switch {
	case z > 1100:
		return math.Inf(1)
	case z < -1100:
		return 0
	}
	n := math.Floor(z + 0.5)
	t := float64((z - n) * ln2)
	sum := invFact[expTerms-1]
	for k := expTerms - 2; k >= 0; k-- {
		sum = float64(sum*t) + invFact[k]
	}
	return math.Ldexp(sum, int(n))
}

// Mul returns a*b: (ar br - ai bi) + (ar bi + ai br) i, each product
// rounded first (Go's complex128 product may be fused).
func Mul(a, b complex128) complex128 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	return complex(float64(ar*br)-float64(ai*bi), float64(ar*bi)+float64(ai*br))
}

// Div returns a/b by Smith's algorithm, each product rounded first (Go's
// complex128 division is the runtime's, and may be fused): for |br| >=
// |bi|, r = bi/br, d = br + bi r, (ar + ai r)/d + (ai - ar r)/d i; else the
// same with the parts of b exchanged. A zero b gives Infs and NaNs as the
// divisions by zero do (the tracker never divides by zero: it tests
// first).
func Div(a, b complex128) complex128 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	if math.Abs(br) >= math.Abs(bi) {
		r := bi / br
		d := br + float64(bi*r)
		return complex((ar+float64(ai*r))/d, (ai-float64(ar*r))/d)
	}
	r := br / bi
	d := bi + float64(br*r)
	return complex((float64(ar*r)+ai)/d, (float64(ai*r)-ar)/d)
}

// The split of pi/2 for Sincos's reduction (fdlibm's pio2_1 and
// pio2_1t): pio2Hi has 33 bits, so n pio2Hi is exact for |n| < 2^20.
const (
	pio2Hi    = 1.57079632673412561417e+00
	pio2Lo    = 6.07710050650619224932e-11
	twoOverPi = 2 / math.Pi
)

// sinTerms and cosTerms are the Taylor coefficients (-1)^k/(2k+1)! and
// (-1)^k/(2k)!, k = 0..sincosTerms-1, rounded: on |r| <= pi/4 the first
// term left out is below 2^-60.
const sincosTerms = 11

var sinTerms, cosTerms [sincosTerms]float64

func init() {
	f := 1.0 // k!
	for k := 0; k < 2*sincosTerms; k++ {
		if k > 0 {
			f *= float64(k)
		}
		sign := 1.0
		if (k/2)%2 == 1 {
			sign = -1
		}
		if k%2 == 0 {
			cosTerms[k/2] = sign / f
		} else {
			sinTerms[k/2] = sign / f
		}
	}
}

// Sincos returns sin x and cos x for |x| < 2^19 (the tracker's angles are
// within 2 pi), to about an ulp: n = Floor(x/(pi/2) + 1/2), r = (x - n
// pio2Hi) - n pio2Lo, the Taylor polynomials of sin and cos at r by Horner
// in r^2, the pair rotated by n quarter turns. Outside the range: NaN.
func Sincos(x float64) (sin, cos float64) {
	if !(math.Abs(x) < 0x1p19) {
		return math.NaN(), math.NaN()
	}
	n := math.Floor(float64(x*twoOverPi) + 0.5)
	r := (x - float64(n*pio2Hi)) - float64(n*pio2Lo)
	r2 := float64(r * r)
	s, c := sinTerms[sincosTerms-1], cosTerms[sincosTerms-1]
	for k := sincosTerms - 2; k >= 0; k-- {
		s = float64(s*r2) + sinTerms[k]
		c = float64(c*r2) + cosTerms[k]
	}
	s = float64(s * r)
	switch int(n) & 3 {
	case 0:
		return s, c
	case 1:
		return c, -s
	case 2:
		return -s, -c
	}
	return -c, s
}

// Constants are the numbers the functions above are made of, exactly as
// they use them: gen writes them, as exact hexadecimal floats, into their
// twins for the device (generated/cuda/mdfp.cuh), so that the tables have
// one home.
type Constants struct {
	OddRecip, InvFact, Sin, Cos                     []float64 // the series' coefficients, lowest first
	Ln2, InvLn2, Sqrt1_2, Pio2Hi, Pio2Lo, TwoOverPi float64
}

// Table returns the Constants.
func Table() Constants {
	return Constants{OddRecip: slices.Clone(oddRecip[:]), InvFact: slices.Clone(invFact[:]),
		Sin: slices.Clone(sinTerms[:]), Cos: slices.Clone(cosTerms[:]),
		Ln2: ln2, InvLn2: invLn2, Sqrt1_2: sqrt1_2, Pio2Hi: pio2Hi, Pio2Lo: pio2Lo, TwoOverPi: twoOverPi}
}
