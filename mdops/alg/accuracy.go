package alg

import (
	"math"
	"math/big"
)

// UnderflowSlack is the absolute error below which a difference is blamed on
// the float64 format rather than on the algorithm: limbs below 2^-1022 have
// fewer than 53 bits, so no N-double can be more accurate there.
var UnderflowSlack = math.Ldexp(1, -1060)

// Reference returns the exact (add, sub, mul, sqr, mulf64) or correctly
// rounded to prec bits (div, sqrt) result of op on c.
func Reference(op string, c Case, prec uint) *big.Float {
	x := Exact(c.X)
	switch op {
	case "add":
		return x.Add(x, Exact(c.Y))
	case "sub":
		return x.Sub(x, Exact(c.Y))
	case "mul":
		return new(big.Float).SetPrec(5000).Mul(x, Exact(c.Y))
	case "sqr":
		return new(big.Float).SetPrec(5000).Mul(x, x)
	case "mulf64":
		return new(big.Float).SetPrec(5000).Mul(x, new(big.Float).SetFloat64(c.F))
	case "madd":
		p := new(big.Float).SetPrec(8000).Mul(x, Exact(c.Y))
		return p.Add(p, Exact(c.A))
	case "div":
		return new(big.Float).SetPrec(prec).Quo(x, Exact(c.Y))
	case "sqrt":
		return new(big.Float).SetPrec(prec).Sqrt(x)
	case "neg":
		return x.Neg(x)
	case "abs":
		return x.Abs(x)
	}
	panic("alg: no reference for " + op)
}

// Args returns the interpreter arguments of op for case c.
func Args(op string, c Case) [][]float64 {
	switch op {
	case "add", "sub", "mul", "div":
		return [][]float64{c.X, c.Y}
	case "mulf64":
		return [][]float64{c.X, {c.F}}
	case "madd":
		return [][]float64{c.A, c.X, c.Y}
	}
	return [][]float64{c.X}
}

// Scale returns the magnitude that op's error is measured against on case
// c: |acc| + |x*y| for madd, whose result may cancel (the error bound is
// relative to the terms), and nil (the result itself) for the other
// operations.
func Scale(op string, c Case) *big.Float {
	if op != "madd" {
		return nil
	}
	p := new(big.Float).SetPrec(8000).Mul(Exact(c.X), Exact(c.Y))
	p.Abs(p)
	return p.Add(p, new(big.Float).Abs(Exact(c.A)))
}

// AccurateBitsScaled is AccurateBits with the error measured relative to
// |scale| instead of |want| (scale nil: |want|).
func AccurateBitsScaled(got []float64, want, scale *big.Float) float64 {
	if scale == nil || want.IsInf() {
		return AccurateBits(got, want)
	}
	for _, g := range got {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return 0
		}
	}
	d := new(big.Float).SetPrec(want.Prec()+2300).Sub(Exact(got), want)
	d.Abs(d)
	d.Sub(d, new(big.Float).SetFloat64(UnderflowSlack))
	if d.Sign() <= 0 {
		return math.Inf(1)
	}
	if scale.Sign() == 0 {
		return 0
	}
	return -log2Ratio(d, scale)
}

// log2Ratio returns log2(|a|/|b|) for non-zero finite a and b.
func log2Ratio(a, b *big.Float) float64 {
	var ma, mb big.Float
	ea := a.MantExp(&ma)
	eb := b.MantExp(&mb)
	fa, _ := ma.Float64()
	fb, _ := mb.Float64()
	return float64(ea-eb) + math.Log2(math.Abs(fa)) - math.Log2(math.Abs(fb))
}

// AccurateBits returns -log2(|got - want| / |want|), with errors below
// UnderflowSlack ignored; exact results give +Inf. A zero reference with a
// non-zero result gives 0 bits.
func AccurateBits(got []float64, want *big.Float) float64 {
	if want.IsInf() {
		if math.IsInf(got[0], want.Sign()) {
			return math.Inf(1)
		}
		return 0
	}
	for _, g := range got {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return 0
		}
	}
	d := new(big.Float).SetPrec(want.Prec()+2300).Sub(Exact(got), want)
	d.Abs(d)
	d.Sub(d, new(big.Float).SetFloat64(UnderflowSlack))
	if d.Sign() <= 0 {
		return math.Inf(1)
	}
	if want.Sign() == 0 {
		return 0
	}
	// log2(|d|/|want|) from mantissas and exponents.
	return -log2Ratio(d, want)
}

// IsNormalized reports whether fl(x[k] + x[k+1]) == x[k] and the rounding
// error is x[k+1] for every k, the invariant every operation must keep:
// each limb is at most half an ulp of the one before (ties to even).
func IsNormalized(x []float64) bool {
	for k := 0; k+1 < len(x); k++ {
		a, b := x[k], x[k+1]
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return true
		}
		s := a + b
		if s != a || (a == 0 && b != 0) {
			return false
		}
	}
	return true
}

// Worst is the least accurate case of a measurement.
type Worst struct {
	Bits float64
	Case Case
}

// Measure runs p on every case and returns the worst accurate bits (relative
// to Scale: the result, or the terms' magnitude for madd) and how many
// results were not normalized.
func Measure(p *Program, cases []Case) (worst Worst, unnormalized int) {
	worst.Bits = math.Inf(1)
	prec := uint(64*p.N + 200)
	for _, c := range cases {
		got := p.Eval(Args(p.Op, c)...)
		bits := AccurateBitsScaled(got, Reference(p.Op, c, prec), Scale(p.Op, c))
		if bits < worst.Bits {
			worst = Worst{bits, c}
		}
		if !IsNormalized(got) {
			unnormalized++
		}
	}
	return worst, unnormalized
}
