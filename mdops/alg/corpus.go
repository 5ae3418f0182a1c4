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

// random returns a random normalized N-double with leading exponent near e
// and every limb carrying random bits.
func (g *corpusGen) random(e int) []float64 {
	m := new(big.Float).SetPrec(uint(64*g.n + 64))
	// 64*n random bits as an integer, scaled into [0.5, 1) * 2^e.
	bits := new(big.Int)
	for i := 0; i < g.n+1; i++ {
		bits.Lsh(bits, 64)
		bits.Or(bits, new(big.Int).SetUint64(g.rng.Uint64()))
	}
	bits.SetBit(bits, 64*(g.n+1)-1, 1)
	m.SetInt(bits)
	m.SetMantExp(m, e-m.MantExp(nil))
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

// Corpus returns count operand cases for an operation on n-doubles: random
// values over a wide exponent range and adversarial ones (cancellation,
// renormalization boundaries, powers of two, ±0, subnormal lower limbs,
// near-overflow, far-apart operands). Non-finite cases are not included:
// they are checked separately. op selects the ranges that keep the exact
// result finite (for example, positive operands for sqrt).
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

func (g *corpusGen) make(op, kind string) Case {
	n := g.n
	r := g.rng
	e := r.IntN(400) - 200
	x := g.random(e)
	var y []float64
	switch kind {
	case "random":
		y = g.random(e - r.IntN(60) + 30)
	case "cancel": // y = -x + tiny: the sum is far below x
		t := new(big.Float).SetPrec(uint(64*n + 200)).Set(Exact(g.random(e - 1 - r.IntN(53*n+40))))
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
		y = g.sparse(e - r.IntN(120))
	case "tie":
		x = g.sparse(e)
		y = make([]float64, n)
		copy(y, x)
		if r.IntN(2) == 0 {
			y[0] = -y[0]
			y = RoundToN(Exact(y), n)
		}
	case "far": // y far below x's last limb
		y = g.random(e - 53*n - r.IntN(100))
	case "pow2":
		x = make([]float64, n)
		y = make([]float64, n)
		x[0] = math.Ldexp(1, e)
		y[0] = math.Ldexp(1, e-r.IntN(53*n+10))
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
			c.Y = g.random(e)
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
		c.F = y[0]
		if kind == "overflow" || c.F == 0 && kind != "zero" {
			c.F = math.Ldexp(float64(r.Int64N(1<<53)), -53+r.IntN(3))
		}
		if kind == "cancel" || kind == "headcancel" {
			c.F = math.Ldexp(float64(r.Int64N(1<<53)|1), -53) // odd mantissa
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
// a power of two, zero, subnormal or near overflow.
func (g *corpusGen) accumulator(kind string, x, y []float64, e int) []float64 {
	n, r := g.n, g.rng
	p := new(big.Float).SetPrec(8000).Mul(Exact(x), Exact(y))
	ep := e
	if p.Sign() != 0 {
		ep = p.MantExp(nil)
	}
	neg := func(v []float64) []float64 {
		for k := range v {
			v[k] = -v[k]
		}
		return v
	}
	switch kind {
	case "random":
		return g.random(ep - r.IntN(60) + 30)
	case "cancel": // acc = -x*y + tiny: the result is far below the terms
		t := new(big.Float).SetPrec(8000).Set(Exact(g.random(ep - 1 - r.IntN(53*n+40))))
		return RoundToN(t.Sub(t, p), n)
	case "headcancel": // the heads cancel, the tails are unrelated
		a := g.random(ep - 53 - r.IntN(30))
		a[0] = -RoundToN(p, 1)[0]
		return RoundToN(Exact(a), n)
	case "sparse":
		return g.sparse(ep + 60 - r.IntN(120))
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
		return g.random(min(ep+53*n+r.IntN(100), 1000))
	case "pow2":
		a := make([]float64, n)
		a[0] = math.Ldexp(1, min(ep-53*n-10+r.IntN(2*53*n+20), 1000))
		if r.IntN(2) == 0 {
			a[0] = -a[0]
		}
		return a
	case "zero":
		a := make([]float64, n)
		if r.IntN(2) == 0 {
			return g.random(ep + 10 - r.IntN(20))
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
