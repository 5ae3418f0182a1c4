package alg

import "math"

// ComplexLibrary holds the complex operations for one precision: programs
// over (re, im) pairs of N-doubles built from calls to the real operations,
// so that Go and CUDA perform the same sequence of real operations.
type ComplexLibrary struct {
	N                       int
	Add, Sub, Mul, Div, Abs *Program
	MulAdd                  *Program // acc + x*y ("cmadd")
}

// ComplexOpNames lists the complex operations in the order of Programs.
var ComplexOpNames = []string{"cadd", "csub", "cmul", "cmadd", "cdiv", "cabs"}

// Programs returns the complex programs in dependency order.
func (c *ComplexLibrary) Programs() []*Program {
	return []*Program{c.Add, c.Sub, c.Mul, c.MulAdd, c.Div, c.Abs}
}

// Program returns the complex program of the named operation.
func (c *ComplexLibrary) Program(op string) *Program {
	for _, p := range c.Programs() {
		if p.Op == op {
			return p
		}
	}
	return nil
}

// BuildComplex returns the complex operations over the real library l.
// Results of the binary operations are 2N limbs: the real part, then the
// imaginary part.
func BuildComplex(l *Library) *ComplexLibrary {
	n := l.N
	two := md(n, "a.re", "a.im", "b.re", "b.im")
	c := &ComplexLibrary{N: n}
	cat := func(re, im []Value) []Value { return append(append([]Value(nil), re...), im...) }

	b, a := NewBuilder("cadd", n, two...)
	c.Add = b.Finish(cat(b.Call(l.Add, a[0], a[2]), b.Call(l.Add, a[1], a[3])))

	b, a = NewBuilder("csub", n, two...)
	c.Sub = b.Finish(cat(b.Call(l.Sub, a[0], a[2]), b.Call(l.Sub, a[1], a[3])))

	// (ar + i ai)(br + i bi) = (ar br - ai bi) + i (ar bi + ai br)
	b, a = NewBuilder("cmul", n, two...)
	re := b.Call(l.Sub, b.Call(l.Mul, a[0], a[2]), b.Call(l.Mul, a[1], a[3]))
	im := b.Call(l.Add, b.Call(l.Mul, a[0], a[3]), b.Call(l.Mul, a[1], a[2]))
	c.Mul = b.Finish(cat(re, im))

	// acc + x*y = (acc.re + x.re y.re - x.im y.im) + i (acc.im + x.re y.im + x.im y.re),
	// each part two real madds (the second with a negated factor, which is
	// exact): the error is about twice madd's, relative to |acc.re| +
	// |x.re y.re| + |x.im y.im| (resp. the imaginary terms). For N = 2 each
	// part is one three-term double-double sum (maddDD).
	b, a = NewBuilder("cmadd", n, md(n, "acc.re", "acc.im", "x.re", "x.im", "y.re", "y.im")...)
	nxi := make([]Value, n)
	for k, v := range a[3] {
		nxi[k] = b.Neg(v)
	}
	if n == 2 {
		// Both products and acc in one double-double sum per part.
		re = b.maddDD(a[0], [][2][]Value{{a[2], a[4]}, {nxi, a[5]}})
		im = b.maddDD(a[1], [][2][]Value{{a[2], a[5]}, {a[3], a[4]}})
	} else {
		re = b.Call(l.MulAdd, b.Call(l.MulAdd, a[0], a[2], a[4]), nxi, a[5])
		im = b.Call(l.MulAdd, b.Call(l.MulAdd, a[1], a[2], a[5]), a[3], a[4])
	}
	c.MulAdd = b.Finish(cat(re, im))

	// a / b = a' conj(b') / |b'|^2 with a' = a s, b' = b s for a power of
	// two s (see divisorScale, halved) that brings the larger of |br0|,
	// |bi0| into (1/4, 1/2]: the quotient is unchanged, |b'|^2 lies in
	// (1/16, 1/2] and each numerator part is at most |a'| |b'| = |a/b|
	// |b'|^2 < |a/b| (no overflow when the quotient is finite) and the
	// scale |a/b| |b'|^2 of its terms at least |a/b| / 16, so that the
	// textbook formula keeps the precision's accuracy, relative to |a|/|b|,
	// for every divisor (unscaled, |b|^2 overflowed from |b| = 2^512 on,
	// was subnormal below 2^-511 and zero below about 2^-537, and a
	// conj(b) overflowed for |a| |b| from 2^1024 on). b = 0, Inf or NaN makes s NaN or 0, and the result NaN (as
	// the unscaled 0/0 and Inf/Inf did).
	b, a = NewBuilder("cdiv", n, two...)
	sc, su := b.divisorScale(b.maxAbs(a[2][0], a[3][0]))
	su = b.Mul(su, b.Const(0.5))
	for i := range a {
		a[i] = b.scaleLimbs(b.scaleLimbs(a[i], sc), su)
	}
	d := b.Call(l.Add, b.Call(l.Sqr, a[2]), b.Call(l.Sqr, a[3]))
	re = b.Call(l.Add, b.Call(l.Mul, a[0], a[2]), b.Call(l.Mul, a[1], a[3]))
	im = b.Call(l.Sub, b.Call(l.Mul, a[1], a[2]), b.Call(l.Mul, a[0], a[3]))
	c.Div = b.Finish(cat(b.Call(l.Div, re, d), b.Call(l.Div, im, d)))

	// |a| = sqrt(ar^2 + ai^2) on a s, scaled back by 1/s, with the power of
	// two s of hypotScale bringing the larger of |ar0|, |ai0| into [1, 2):
	// the squares and their sum lie in [1, 8) whatever a's exponent, so
	// that their limbs stay far above the subnormals (unscaled, the result
	// lost its accuracy for |a| below 2^-511, was 0 below about 2^-537 and
	// +Inf from 2^512 on, and the squares' lower limbs underflowed already
	// for |a| below about 2^((53N-1022)/2)). Scaling back is exact
	// unless |a|'s lower limbs are subnormal, where one FastTwoSum sweep
	// restores the normalization (as in sqrt). IEEE hypot's special values:
	// a part ±Inf gives +Inf (even with a NaN), otherwise a NaN part NaN;
	// |a| >= 2^1024 gives +Inf; a = 0 gives +0.
	b, a = NewBuilder("cabs", n, md(n, "a.re", "a.im")...)
	ar, ai := a[0], a[1]
	sc, su, undo := b.hypotScale(b.maxAbs(ar[0], ai[0]))
	ar = b.scaleLimbs(b.scaleLimbs(ar, sc), su)
	ai = b.scaleLimbs(b.scaleLimbs(ai, sc), su)
	r := b.Call(l.Sqrt, b.Call(l.Add, b.Call(l.Sqr, ar), b.Call(l.Sqr, ai)))
	r = b.tidy(b.scaleLimbs(r, undo), 1)
	// A part infinite (|part| > MaxFloat64): +Inf, its absolute value.
	// Otherwise a NaN part makes r NaN.
	big := b.Const(math.MaxFloat64)
	lead := b.SelAbsLess(big, a[0][0], b.Abs(a[0][0]), b.SelAbsLess(big, a[1][0], b.Abs(a[1][0]), b.Const(0)))
	c.Abs = b.Finish(b.specials(lead, r))
	return c
}

// maxAbs returns max(|x|, |y|) for finite x and y (a NaN or infinite
// operand gives one of |x|, |y|: callers select the special result).
func (b *Builder) maxAbs(x, y Value) Value {
	return b.SelAbsLess(x, y, b.Abs(y), b.Abs(x))
}

// hypotScale returns, for m = max(|re0|, |im0|) finite, powers of two c, u
// and undo = 1/(c u) = ufp(m) such that m c u lies in [1, 2), exactly: c
// = 2^600 when m < 2^-900, 2^-600 when m > 2^900 and 1 otherwise, so that
// w = m c lies in [2^-474, 2^424) for every non-zero m, subnormal or near
// MaxFloat64, where ufp is exact and 1/ufp(w) = u representable (m c u
// alone would take factors up to 2^1074, hence two multiplications per
// limb). undo = ufp(w)/c is ufp(m) itself, a float64 down to 2^-1074: one
// multiplication per limb scales back. w + 2^-1000 is w for w >= 2^-474
// and keeps u finite for m = 0 (u = 2^1000, the scaled parts are zero and
// so is the result). One division and eight flops. m = Inf or NaN makes u
// NaN: the caller selects the special result.
func (b *Builder) hypotScale(m Value) (c, u, undo Value) {
	one := b.Const(1)
	small := b.Sub(m, b.Const(0x1p-900))
	large := b.Sub(b.Const(0x1p900), m)
	c = b.SelNegative(small, b.Const(0x1p600), b.SelNegative(large, b.Const(0x1p-600), one))
	ci := b.SelNegative(small, b.Const(0x1p-600), b.SelNegative(large, b.Const(0x1p600), one))
	e := b.ufp(b.Add(b.Mul(m, c), b.Const(0x1p-1000)))
	return c, b.Div(one, e), b.Mul(e, ci)
}
