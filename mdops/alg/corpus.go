package alg

import (
	"math"
	"math/big"
	"math/rand/v2"
)

// Case is one input of an accuracy corpus: the operands of an operation and
// the category that produced them.
type Case struct {
	Kind string
	X, Y []float64 // N-doubles; Y is unused by unary operations
	F    float64   // the float64 operand of mulf64
	A    []float64 // the accumulator of madd (acc + X*Y)
}

// RoundToN rounds x greedily to n limbs: each limb is the float64 nearest to
// what the limbs before it leave. Where a lower limb broke a tie that way,
// exact FastTwoSums restore the pairwise invariant fl(x[k]+x[k+1]) == x[k].
func RoundToN(x *big.Float, n int) []float64 {
	out := roundGreedy(x, n)
	for pass := 0; pass < 2*n && !IsNormalized(out); pass++ {
		for k := 0; k+1 < n; k++ {
			if s := out[k] + out[k+1]; s != out[k] && !math.IsInf(s, 0) {
				out[k], out[k+1] = s, out[k+1]-(s-out[k])
			}
		}
	}
	return out
}

func roundGreedy(x *big.Float, n int) []float64 {
	out := make([]float64, n)
	r := new(big.Float).SetPrec(x.Prec() + 2200).Set(x)
	for k := 0; k < n; k++ {
		f, _ := r.Float64()
		out[k] = f
		if math.IsInf(f, 0) || f == 0 {
			break
		}
		r.Sub(r, new(big.Float).SetFloat64(f))
	}
	return out
}

// Exact returns the exact value of an N-double (finite limbs only).
func Exact(x []float64) *big.Float {
	s := new(big.Float).SetPrec(2300)
	for _, v := range x {
		s.Add(s, new(big.Float).SetFloat64(v))
	}
	return s
}

// corpusGen draws normalized N-doubles.
type corpusGen struct {
	n   int
	rng *rand.Rand
}

// Random returns a random normalized N-double of either sign whose leading
// limb lies in [2^e, 2^(e+1)), with random bits in every limb (those below
// 2^-1074 are lost; e < -1022 gives a subnormal leading limb).
func Random(n, e int, rng *rand.Rand) []float64 {
	return (&corpusGen{n: n, rng: rng}).random(e)
}

// random returns a random normalized N-double of either sign whose leading
// limb lies in [2^e, 2^(e+1)), every limb carrying random bits.
func (g *corpusGen) random(e int) []float64 {
	m := new(big.Float).SetPrec(uint(64*g.n + 64))
	// 64*(n+1) random bits as an integer, top bit set, scaled into
	// [1, 2) * 2^e.
	bits := new(big.Int)
	for i := 0; i < g.n+1; i++ {
		bits.Lsh(bits, 64)
		bits.Or(bits, new(big.Int).SetUint64(g.rng.Uint64()))
	}
	bits.SetBit(bits, 64*(g.n+1)-1, 1)
	m.SetInt(bits)
	m.SetMantExp(m, e+1-m.MantExp(nil))
	if g.rng.IntN(2) == 0 {
		m.Neg(m)
	}
	return RoundToN(m, g.n)
}

// sparse returns an N-double whose lower limbs sit at chosen gaps below the
// one before: exact powers of two, ties (ulp/2) and far-apart limbs.
func (g *corpusGen) sparse(e int) []float64 {
	x := make([]float64, g.n)
	x[0] = math.Ldexp(1, e)
	if g.rng.IntN(2) == 0 {
		x[0] += math.Ldexp(float64(g.rng.Int64N(1<<52)), e-52)
	}
	for k := 1; k < g.n; k++ {
		_, pe := math.Frexp(x[k-1])
		var v float64
		switch g.rng.IntN(4) {
		case 0: // exactly half an ulp: a renormalization boundary (tie)
			v = math.Ldexp(1, pe-54)
		case 1: // just below half an ulp
			v = math.Ldexp(float64(1<<53-1), pe-54-53)
		case 2: // far below
			v = math.Ldexp(1, pe-54-g.rng.IntN(200))
		default:
			v = 0
		}
		if g.rng.IntN(2) == 0 {
			v = -v
		}
		x[k] = v
		if v == 0 {
			break
		}
	}
	// Re-round so that ties satisfy the normalization invariant exactly.
	return RoundToN(Exact(x), g.n)
}

// Float64's exponent range, as leading exponents e of values in
// [2^e, 2^(e+1)).
const (
	MinSubnormalExp = -1074 // 2^-1074, the smallest subnormal
	MinNormalExp    = -1022 // 2^-1022, the smallest normal number
	MaxFiniteExp    = 1023  // MaxFloat64 < 2^1024
)

// ResultExpRange returns [lo, hi]: the leading-limb exponents e (|v| in
// [2^e, 2^(e+1))) of the N-doubles v that Corpus lets the exact results of
// its random and adversarial kinds take (the "subnormal" and "overflow"
// kinds aside, which go beyond on purpose):
//
//   - lo = -1022 + 53N. The lowest limb of v lies near 2^(e-53(N-1)) and
//     the rounding errors that the algorithms carry one level below it near
//     2^(e-53N); lo keeps both at or above 2^-1022, normal, so an N-double
//     can hold v to its full 53N bits. Below lo the float64 format, not the
//     algorithm, limits the accuracy. (N = 1: -969; N = 16: -174.)
//   - hi = 1021: |v| < 2^1022, so that the sum of two such values (x0 + y0
//     in add, the TwoSums of a renormalization, acc + x*y in madd) stays
//     below 2^1023 and cannot overflow.
func ResultExpRange(n int) (lo, hi int) {
	return MinNormalExp + 53*n, MaxFiniteExp - 2
}

// OperandExpRange returns [lo, hi], the leading-limb exponents over which
// Corpus draws op's first operand x (the factor x for madd, the operand of
// sqr and sqrt) so that the exact result stays in ResultExpRange(n) =
// [rlo, rhi]. It follows from where each result lies:
//
//   - add, sub: x + y lies below twice the larger operand: x in
//     [rlo, rhi-1] (y is drawn near x, or below it; cancelling kinds keep
//     the remainder at or above rlo).
//   - mul, madd, mulf64: x*y lies in [2^(ex+ey), 2^(ex+ey+2)), so
//     ex + ey in [rlo, rhi-1] with each factor anywhere in float64's range,
//     subnormal leading limbs included: x in [max(-1074, rlo-rhi), rhi].
//   - sqr: x^2 lies in [2^(2ex), 2^(2ex+2)): 2ex in [rlo, rhi-1].
//   - div: x/y lies in (2^(ex-ey-1), 2^(ex-ey+1)): ex - ey in [rlo+1, rhi],
//     both operands anywhere in float64's range: x in [-1074, rhi].
//   - sqrt: sqrt(x) lies in [2^(ex/2), 2^(ex/2+1)): x in [max(-1074, 2rlo),
//     rhi]; below rlo the operand's own lower limbs are subnormal (and
//     exact), yet its root is not.
//
// pairExps draws the second operand's exponent to match.
func OperandExpRange(op string, n int) (lo, hi int) {
	rlo, rhi := ResultExpRange(n)
	switch op {
	case "add", "sub":
		return rlo, rhi - 1
	case "mul", "madd", "mulf64":
		return max(MinSubnormalExp, rlo-rhi), rhi
	case "sqr":
		return ceilHalf(rlo), floorHalf(rhi - 1)
	case "div":
		return MinSubnormalExp, rhi
	case "sqrt":
		return max(MinSubnormalExp, 2*rlo), rhi
	}
	panic("alg: no exponent range for " + op)
}

// ceilHalf and floorHalf return ceil(v/2) and floor(v/2) (Go's / truncates
// toward zero).
func ceilHalf(v int) int  { return -floorHalf(-v) }
func floorHalf(v int) int { return v >> 1 }

// uniform returns an integer in [lo, hi].
func (g *corpusGen) uniform(lo, hi int) int {
	if hi < lo {
		panic("alg: empty exponent range")
	}
	return lo + g.rng.IntN(hi-lo+1)
}

// pairExps draws the leading exponents of op's operands x and y (y: the
// other factor, the divisor, or mulf64's float64) uniformly over the pairs
// that keep the exact result in ResultExpRange (see OperandExpRange): for
// mul, madd and mulf64 the result's exponent r = ex + ey is drawn in
// [rlo, rhi-1], then ex over the values that leave ey in float64's range;
// for div r = ex - ey in [rlo+1, rhi] likewise. For add and sub, y is x's
// partner within ±30 binades, clamped to [rlo, rhi-1]; the unary operations
// leave ey = ex.
func (g *corpusGen) pairExps(op string) (ex, ey int) {
	rlo, rhi := ResultExpRange(g.n)
	switch op {
	case "mul", "madd", "mulf64":
		r := g.uniform(rlo, rhi-1)
		ex = g.uniform(max(MinSubnormalExp, r-rhi), min(rhi, r-MinSubnormalExp))
		return ex, r - ex
	case "div":
		r := g.uniform(rlo+1, rhi)
		ey = g.uniform(max(MinSubnormalExp, MinSubnormalExp-r), min(rhi, rhi-r))
		return r + ey, ey
	case "add", "sub":
		ex = g.uniform(rlo, rhi-1)
		return ex, min(max(ex-g.rng.IntN(60)+30, rlo), rhi-1)
	}
	ex = g.uniform(OperandExpRange(op, g.n))
	return ex, ex
}

// scaled returns x * 2^d rounded to N limbs (exact unless the scaled limbs
// fall below 2^-1074).
func (g *corpusGen) scaled(x []float64, d int) []float64 {
	v := Exact(x)
	return RoundToN(v.SetMantExp(v, d), g.n)
}

// Corpus returns count operand cases for an operation on n-doubles: random
// values with leading exponents over the whole range in which the exact
// result keeps all its limbs normal and finite (ResultExpRange,
// OperandExpRange), and adversarial ones (cancellation, renormalization
// boundaries, powers of two, ±0, sparse limbs, far-apart operands) over the
// same range; the "subnormal" and "overflow" kinds go beyond it on purpose
// (lower limbs below 2^-1022, operands near 2^1023). Non-finite cases are
// not included: they are checked separately. op selects the ranges that keep
// the exact result finite (for example, positive operands for sqrt).
func Corpus(op string, n int, count int, seed uint64) []Case {
	g := &corpusGen{n: n, rng: rand.New(rand.NewPCG(seed, uint64(n)*0x9E3779B97F4A7C15+uint64(len(op))))}
	var cs []Case
	kinds := []string{"random", "cancel", "headcancel", "sparse", "far", "pow2", "zero", "subnormal", "overflow", "tie"}
	for i := 0; len(cs) < count; i++ {
		kind := kinds[i%len(kinds)]
		c := g.make(op, kind)
		c.Kind = kind
		cs = append(cs, c)
	}
	return cs
}

// make draws one case of the given kind. For add and sub the kinds shape y
// against x (y near x, y = -x + tiny, heads cancelling, y far below x, ...)
// with x's exponent in OperandExpRange. For the other operations the
// exponents come from pairExps and the kinds shape the operands' limbs
// (random, sparse, powers of two, zero); the kinds that build y from x
// (cancel, headcancel, tie) then scale y exactly by 2^(ey-ex), which keeps
// its limbs' relation to x's and puts the result in range.
func (g *corpusGen) make(op, kind string) Case {
	n := g.n
	r := g.rng
	rlo, _ := ResultExpRange(n)
	additive := op == "add" || op == "sub"
	e, ey := g.pairExps(op)
	if additive && kind == "headcancel" {
		// The result is about x1 + y1, 53..83 binades below x.
		e = max(e, rlo+84)
	}
	x := g.random(e)
	var y []float64
	switch kind {
	case "random":
		y = g.random(ey)
	case "cancel": // y = -x + tiny: the sum is far below x (for add and sub >= 2^rlo)
		et := e - 1 - r.IntN(53*n+40)
		if additive {
			et = max(et, rlo)
		}
		t := new(big.Float).SetPrec(uint(64*n + 200)).Set(Exact(g.random(et)))
		t.Sub(t, Exact(x))
		y = RoundToN(t, n)
		if op == "sub" {
			for k := range y {
				y[k] = -y[k]
			}
		}
	case "headcancel": // heads cancel, tails unrelated
		y = g.random(e - 53 - r.IntN(30))
		y[0] = -x[0]
		y = RoundToN(Exact(y), n)
		if op == "sub" {
			y[0] = x[0]
			y = RoundToN(Exact(y), n)
		}
	case "sparse":
		x = g.sparse(e)
		if additive {
			ey = e - r.IntN(120)
		}
		y = g.sparse(ey)
	case "tie":
		x = g.sparse(e)
		y = make([]float64, n)
		copy(y, x)
		if r.IntN(2) == 0 {
			y[0] = -y[0]
			y = RoundToN(Exact(y), n)
		}
	case "far": // y far below x's last limb
		if additive {
			ey = e - 53*n - r.IntN(100)
		}
		y = g.random(ey)
	case "pow2":
		x = make([]float64, n)
		y = make([]float64, n)
		x[0] = math.Ldexp(1, e)
		if additive {
			ey = e - r.IntN(53*n+10)
		}
		y[0] = math.Ldexp(1, ey)
		if r.IntN(2) == 0 {
			y[0] = -y[0]
		}
	case "zero":
		y = make([]float64, n)
		if r.IntN(2) == 0 {
			y[0] = math.Copysign(0, -1)
		}
		if r.IntN(2) == 0 {
			x, y = y, x
		}
	case "subnormal": // lower limbs in the subnormal range
		x = g.random(-1000 + r.IntN(40))
		y = g.random(-1000 + r.IntN(40))
	case "overflow":
		x = g.random(1000 + r.IntN(20))
		y = g.random(1000 + r.IntN(20))
	}
	if !additive && ey != e && (kind == "cancel" || kind == "headcancel" || kind == "tie") {
		y = g.scaled(y, ey-e)
	}
	c := Case{X: x, Y: y}
	switch op {
	case "mul", "div", "madd":
		if kind == "overflow" { // keep the exact result finite
			c.Y = g.random(r.IntN(4))
		}
		if kind == "subnormal" && op != "div" {
			c.Y = g.random(r.IntN(4))
		}
		if op == "div" && c.Y[0] == 0 {
			c.Y = g.random(ey)
		}
	case "sqr":
		if kind == "overflow" {
			c.X = g.random(500 + r.IntN(10))
		}
	case "sqrt":
		if c.X[0] < 0 {
			for k := range c.X {
				c.X[k] = -c.X[k]
			}
		}
	case "mulf64":
		c.F = c.Y[0]
		switch {
		case kind == "overflow":
			c.F = math.Ldexp(float64(r.Int64N(1<<53)), -53+r.IntN(3))
		case kind == "cancel" || kind == "headcancel":
			// An odd 53-bit mantissa: every limb's product has a full
			// error term.
			c.F = math.Ldexp(float64(r.Int64N(1<<52)|1<<52|1), ey-52)
		case c.F == 0 && kind != "zero":
			c.F = g.random(ey)[0]
		}
	}
	if op == "madd" {
		c.A = g.accumulator(kind, c.X, c.Y, e)
	}
	return c
}

// accumulator returns the acc operand of madd for a case of the given kind
// with factors x and y: near the product, cancelling it (exactly, in the
// head only, or down to a tiny remainder), far above or below it, sparse,
// a power of two, zero, subnormal or near overflow. Its leading exponent
// stays at most rhi-1 of ResultExpRange (so that acc + x*y cannot
// overflow) except for the overflow kind. The cancelling kinds' remainders
// may fall below 2^rlo: madd's error is measured against |acc| + |x*y|,
// which stays in range.
func (g *corpusGen) accumulator(kind string, x, y []float64, e int) []float64 {
	n, r := g.n, g.rng
	_, rhi := ResultExpRange(n)
	top := rhi - 1
	p := new(big.Float).SetPrec(8000).Mul(Exact(x), Exact(y))
	ep := e
	if p.Sign() != 0 {
		ep = p.MantExp(nil) - 1 // p in [2^ep, 2^(ep+1))
	}
	neg := func(v []float64) []float64 {
		for k := range v {
			v[k] = -v[k]
		}
		return v
	}
	switch kind {
	case "random":
		return g.random(min(ep-r.IntN(60)+30, top))
	case "cancel": // acc = -x*y + tiny: the result is far below the terms
		t := new(big.Float).SetPrec(8000).Set(Exact(g.random(ep - 1 - r.IntN(53*n+40))))
		return RoundToN(t.Sub(t, p), n)
	case "headcancel": // the heads cancel, the tails are unrelated
		a := g.random(ep - 53 - r.IntN(30))
		a[0] = -RoundToN(p, 1)[0]
		return RoundToN(Exact(a), n)
	case "sparse":
		return g.sparse(min(ep+60-r.IntN(120), top))
	case "tie": // acc = -RN(x*y) (the result is the product's tail) or +RN(x*y)
		a := RoundToN(p, n)
		if r.IntN(2) == 0 {
			return neg(a)
		}
		return a
	case "far": // far below or far above the product
		if r.IntN(2) == 0 {
			return g.random(ep - 53*n - r.IntN(100))
		}
		return g.random(min(ep+53*n+r.IntN(100), top))
	case "pow2":
		a := make([]float64, n)
		a[0] = math.Ldexp(1, min(ep-53*n-10+r.IntN(2*53*n+20), top))
		if r.IntN(2) == 0 {
			a[0] = -a[0]
		}
		return a
	case "zero":
		a := make([]float64, n)
		if r.IntN(2) == 0 {
			return g.random(min(ep+10-r.IntN(20), top))
		}
		if r.IntN(2) == 0 {
			a[0] = math.Copysign(0, -1)
		}
		return a
	case "subnormal":
		return g.random(-1000 + r.IntN(40))
	case "overflow":
		return g.random(1000 + r.IntN(20))
	}
	panic("alg: no accumulator for kind " + kind)
}
