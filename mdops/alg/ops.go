package alg

import (
	"fmt"
)

// Library is the set of operations for one precision N. Programs call each
// other (div and sqrt call mul, add, mulf64), so printers emit them as
// functions and the interpreter follows the calls.
type Library struct {
	N                                        int
	Neg, Abs, Add, Sub, MulFloat64, Mul, Sqr *Program
	MulAdd                                   *Program // acc + x*y ("madd")
	Div, Sqrt                                *Program
}

// Programs returns the library's programs in dependency order (callees first).
func (l *Library) Programs() []*Program {
	return []*Program{l.Neg, l.Abs, l.Add, l.Sub, l.MulFloat64, l.Mul, l.Sqr, l.MulAdd, l.Div, l.Sqrt}
}

// OpNames lists the operations of a Library in the order of Programs.
var OpNames = []string{"neg", "abs", "add", "sub", "mulf64", "mul", "sqr", "madd", "div", "sqrt"}

// MeasuredOps lists the operations whose accuracy is measured against
// math/big (mdgen ops, the accuracy tests), in report order.
var MeasuredOps = []string{"add", "sub", "mul", "sqr", "mulf64", "madd", "div", "sqrt"}

// Program returns the program of the named operation.
func (l *Library) Program(op string) *Program {
	for _, p := range l.Programs() {
		if p.Op == op {
			return p
		}
	}
	return nil
}

// MaxN is the largest supported number of limbs.
const MaxN = 16

// CheckN returns an error unless the generator can make n-double
// arithmetic (1 <= n <= MaxN): the one bound of everything built from this
// package (Build, gen's Go and CUDA printers, `mdgen generate -n`). Whether
// a build has the arithmetic of n is another question, answered by
// mdops.Prec.Check.
func CheckN(n int) error {
	if n < 1 || n > MaxN {
		return fmt.Errorf("%d doubles: the generator makes 1..%d", n, MaxN)
	}
	return nil
}

// Build returns the operations for N limbs, 1 <= N <= MaxN.
//
// N = 1 is plain double arithmetic. N = 2, 3, 4 add and mul are the
// branch-free floating-point accumulation networks of Zhang & Aiken, as
// shipped in MultiFloats.jl v3, which carry machine-checked error bounds.
// N >= 5 uses pairwise TwoSum (add) or levelled TwoProd/TwoSum accumulation
// (mul), followed by a branch-free renormalization (see renormalize); their
// accuracy is measured, not proven.
func Build(n int) *Library {
	if err := CheckN(n); err != nil {
		panic("alg: " + err.Error())
	}
	l := &Library{N: n}
	l.Neg = buildNeg(n)
	l.Abs = buildAbs(n)
	l.Add = buildAdd(n, "add", false)
	l.Sub = buildAdd(n, "sub", true)
	l.MulFloat64 = buildMulFloat64(n)
	l.Mul = buildMul(n, "mul")
	l.Sqr = buildMul(n, "sqr")
	l.MulAdd = buildMulAdd(l)
	l.Div = buildDiv(l)
	l.Sqrt = buildSqrt(l)
	return l
}

func md(n int, names ...string) []Param {
	ps := make([]Param, len(names))
	for i, s := range names {
		ps[i] = Param{Name: s, Width: n}
	}
	return ps
}

func buildNeg(n int) *Program {
	b, a := NewBuilder("neg", n, md(n, "x")...)
	out := make([]Value, n)
	for k, v := range a[0] {
		out[k] = b.Neg(v)
	}
	return b.Finish(out)
}

func buildAbs(n int) *Program {
	b, a := NewBuilder("abs", n, md(n, "x")...)
	x := a[0]
	out := []Value{b.Abs(x[0])}
	for k := 1; k < n; k++ {
		out = append(out, b.SelNegative(x[0], b.Neg(x[k]), x[k]))
	}
	return b.Finish(out)
}

// buildAdd builds x + y, or x - y when negate is set (the same network on -y).
func buildAdd(n int, op string, negate bool) *Program {
	b, a := NewBuilder(op, n, md(n, "x", "y")...)
	x, y := a[0], a[1]
	if negate {
		ny := make([]Value, n)
		for k, v := range y {
			ny[k] = b.Neg(v)
		}
		y = ny
	}
	if n == 1 {
		return b.Finish([]Value{b.Add(x[0], y[0])})
	}
	var r []Value
	var lead Value
	switch n {
	case 2, 3, 4:
		r, lead = b.addNetwork(x, y)
	default:
		// CAMPARY's certified addition made branch-free: merge the limbs
		// of x and y by magnitude, then renormalize the 2N terms.
		terms := b.mergeByMagnitude(x, y)
		r, lead = b.renormalize(terms, n, addTidyPasses(n)), b.Add(x[0], y[0])
	}
	return b.Finish(b.specials(lead, r))
}

// addNetwork is the Zhang-Aiken accumulation network for N = 2, 3, 4
// (MultiFloats.jl v3 mfadd). It returns the limbs and fl(x0 + y0).
func (b *Builder) addNetwork(x, y []Value) (r []Value, lead Value) {
	ts, fts := b.TwoSum, b.FastTwoSum
	switch len(x) {
	case 2:
		a, bb := ts(x[0], y[0])
		c, d := ts(x[1], y[1])
		a, c = fts(a, c)
		lead = a
		bb = b.Add(bb, d)
		bb = b.Add(bb, c)
		a, bb = fts(a, bb)
		return []Value{a, bb}, lead
	case 3:
		a, bb := ts(x[0], y[0])
		lead = a
		c, d := ts(x[1], y[1])
		e, f := ts(x[2], y[2])
		a, c = fts(a, c)
		bb = b.Add(bb, f)
		d, e = ts(d, e)
		a, d = fts(a, d)
		bb, c = ts(bb, c)
		c = b.Add(c, e)
		c, d = ts(c, d)
		bb, c = ts(bb, c)
		a, bb = fts(a, bb)
		c = b.Add(c, d)
		bb, c = fts(bb, c)
		a, bb = fts(a, bb)
		bb, c = fts(bb, c)
		return []Value{a, bb, c}, lead
	case 4:
		a, bb := ts(x[0], y[0])
		lead = a
		c, d := ts(x[1], y[1])
		e, f := ts(x[2], y[2])
		g, h := ts(x[3], y[3])
		a, c = fts(a, c)
		bb = b.Add(bb, h)
		d, e = ts(d, e)
		f, g = ts(f, g)
		bb, g = ts(bb, g)
		c, d = fts(c, d)
		e, f = ts(e, f)
		a, c = fts(a, c)
		d, e = fts(d, e)
		bb, d = ts(bb, d)
		c, g = fts(c, g)
		e = b.Add(e, f)
		bb, c = ts(bb, c)
		d, e = ts(d, e)
		a, bb = fts(a, bb)
		c, d = ts(c, d)
		e = b.Add(e, g)
		bb, c = fts(bb, c)
		d, e = ts(d, e)
		a, bb = fts(a, bb)
		c, d = fts(c, d)
		bb, c = fts(bb, c)
		d = b.Add(d, e)
		a, bb = fts(a, bb)
		c, d = fts(c, d)
		bb, c = fts(bb, c)
		c, d = fts(c, d)
		return []Value{a, bb, c, d}, lead
	}
	panic("alg: no network")
}

// mulNetwork is the Zhang-Aiken network for N = 2, 3, 4 (MultiFloats.jl v3
// mfmul). It returns the limbs and fl(x0 * y0).
func (b *Builder) mulNetwork(x, y []Value) (r []Value, lead Value) {
	ts, fts, tp := b.TwoSum, b.FastTwoSum, b.TwoProd
	switch len(x) {
	case 2:
		p00, e00 := tp(x[0], y[0])
		p01 := b.Mul(x[0], y[1])
		p10 := b.Mul(x[1], y[0])
		p01 = b.Add(p01, p10)
		e00 = b.Add(e00, p01)
		r0, r1 := fts(p00, e00)
		return []Value{r0, r1}, p00
	case 3:
		p00, e00 := tp(x[0], y[0])
		lead = p00
		p01, e01 := tp(x[0], y[1])
		p10, e10 := tp(x[1], y[0])
		p02 := b.Mul(x[0], y[2])
		p11 := b.Mul(x[1], y[1])
		p20 := b.Mul(x[2], y[0])
		p01, p10 = ts(p01, p10)
		e01 = b.Add(e01, e10)
		p02 = b.Add(p02, p20)
		e00, p01 = ts(e00, p01)
		p02 = b.Add(p02, p11)
		p00, e00 = fts(p00, e00)
		p01 = b.Add(p01, p10)
		e01 = b.Add(e01, p02)
		p01 = b.Add(p01, e01)
		e00, p01 = ts(e00, p01)
		p00, e00 = fts(p00, e00)
		e00, p01 = fts(e00, p01)
		p00, e00 = fts(p00, e00)
		return []Value{p00, e00, p01}, lead
	case 4:
		p00, e00 := tp(x[0], y[0])
		lead = p00
		p01, e01 := tp(x[0], y[1])
		p10, e10 := tp(x[1], y[0])
		p02, e02 := tp(x[0], y[2])
		p11, e11 := tp(x[1], y[1])
		p20, e20 := tp(x[2], y[0])
		p03 := b.Mul(x[0], y[3])
		p12 := b.Mul(x[1], y[2])
		p21 := b.Mul(x[2], y[1])
		p30 := b.Mul(x[3], y[0])
		p01, p10 = ts(p01, p10)
		e01, e10 = ts(e01, e10)
		p02, p20 = ts(p02, p20)
		e02 = b.Add(e02, e20)
		p03 = b.Add(p03, p30)
		p12 = b.Add(p12, p21)
		e00, p01 = ts(e00, p01)
		e01, p11 = ts(e01, p11)
		e10 = b.Add(e10, e02)
		p20 = b.Add(p20, e11)
		p03 = b.Add(p03, p12)
		p00, e00 = fts(p00, e00)
		p01, p10 = fts(p01, p10)
		e01, p02 = ts(e01, p02)
		e10 = b.Add(e10, p03)
		p11 = b.Add(p11, p20)
		p01, e01 = ts(p01, e01)
		p10 = b.Add(p10, p11)
		e10 = b.Add(e10, p02)
		p10 = b.Add(p10, e01)
		p01, p10 = ts(p01, p10)
		e00, p01 = ts(e00, p01)
		p10 = b.Add(p10, e10)
		p00, e00 = fts(p00, e00)
		p01, p10 = ts(p01, p10)
		e00, p01 = ts(e00, p01)
		p00, e00 = fts(p00, e00)
		p01, p10 = fts(p01, p10)
		e00, p01 = fts(e00, p01)
		p00, e00 = fts(p00, e00)
		p01, p10 = fts(p01, p10)
		e00, p01 = fts(e00, p01)
		p01, p10 = fts(p01, p10)
		return []Value{p00, e00, p01, p10}, lead
	}
	panic("alg: no network")
}

// buildMul builds x * y ("mul") or x * x ("sqr").
func buildMul(n int, op string) *Program {
	var b *Builder
	var x, y []Value
	if op == "sqr" {
		var a [][]Value
		b, a = NewBuilder(op, n, md(n, "x")...)
		x, y = a[0], a[0]
	} else {
		var a [][]Value
		b, a = NewBuilder(op, n, md(n, "x", "y")...)
		x, y = a[0], a[1]
	}
	if n == 1 {
		return b.Finish([]Value{b.Mul(x[0], y[0])})
	}
	var r []Value
	var lead Value
	switch {
	case n <= 4:
		r, lead = b.mulNetwork(x, y)
	case op == "sqr":
		r, lead = b.sqrGeneral(x)
	default:
		r, lead = b.mulGeneral(x, y)
	}
	return b.Finish(b.specials(lead, r))
}

// mulGeneral multiplies N-doubles for N >= 5: the partial products
// x_i*y_j with i+j <= N-2 are split exactly by TwoProd (product at level
// i+j, error at level i+j+1), those at level N-1 are rounded products and
// those at level N one FMA chain. Levels 0..N-2 are accumulated error-free
// (TwoSum trees, each error carried to the next level); level N-1, the
// last kept, gathers its products, the errors and carries from level N-2
// and the level-N chain, and is summed with plain adds in a balanced tree:
// its rounding errors are of order 2^(-53N) relative (measured: at most a
// bit of the accuracy, for a third of the flops of summing it exactly).
// The N level sums are renormalized. Products below level N are dropped:
// they are at most N terms of 2^(-53(N+1)) relative size.
func (b *Builder) mulGeneral(x, y []Value) (r []Value, lead Value) {
	sums, lead := b.mulLevelSums(x, y)
	return b.renormalizeUnordered(sums, len(x), mulTidyPasses), lead
}

// mulLevelSums returns the N level sums of mulGeneral before
// renormalization (roughly decreasing, level k about 2^(-53k) of x0*y0, their
// exact sum within about 2^(-53N) of x*y) and fl(x0*y0).
func (b *Builder) mulLevelSums(x, y []Value) (sums []Value, lead Value) {
	n := len(x)
	levels := make([][]Value, n)
	for k := 0; k <= n-2; k++ {
		for i := 0; i <= k; i++ {
			p, e := b.TwoProd(x[i], y[k-i])
			if k == 0 {
				lead = p
			}
			levels[k] = append(levels[k], p)
			levels[k+1] = append(levels[k+1], e)
		}
	}
	for i := 0; i < n; i++ {
		levels[n-1] = append(levels[n-1], b.Mul(x[i], y[n-1-i]))
	}
	// Level N in one FMA chain: one rounding per term, far below the result.
	acc := b.Mul(x[1], y[n-1])
	for i := 2; i < n; i++ {
		acc = b.FMA(x[i], y[n-i], acc)
	}
	levels[n-1] = append(levels[n-1], acc)
	return b.accumulate(levels), lead
}

// sqrGeneral squares an N-double for N >= 5 like mulGeneral, using the
// symmetry x_i*x_j = x_j*x_i: off-diagonal products are split once and
// doubled, which is exact (multiplication by 2).
func (b *Builder) sqrGeneral(x []Value) (r []Value, lead Value) {
	n := len(x)
	two := b.Const(2)
	levels := make([][]Value, n)
	for k := 0; k <= n-2; k++ {
		for i := 0; 2*i <= k; i++ {
			j := k - i
			p, e := b.TwoProd(x[i], x[j])
			if k == 0 {
				lead = p
			}
			if i != j {
				p, e = b.Mul(p, two), b.Mul(e, two)
			}
			levels[k] = append(levels[k], p)
			levels[k+1] = append(levels[k+1], e)
		}
	}
	for i := 0; 2*i <= n-1; i++ {
		j := n - 1 - i
		p := b.Mul(x[i], x[j])
		if i != j {
			p = b.Mul(p, two)
		}
		levels[n-1] = append(levels[n-1], p)
	}
	acc := b.Mul(x[1], x[n-1])
	for i := 2; i < n; i++ {
		acc = b.FMA(x[i], x[n-i], acc)
	}
	levels[n-1] = append(levels[n-1], acc)
	return b.renormalizeUnordered(b.accumulate(levels), n, mulTidyPasses), lead
}

// buildMulAdd builds the fused multiply-add acc + x*y. N = 1 is one FMA,
// N = 2 one double-double sum of the heads and the error terms (maddDD),
// N = 3, 4 the product's level sums and acc's limbs accumulated level by
// level (108 -> 76 and 248 -> 157 flops against mul + add). For N >= 5,
// where that pairing loses accuracy on exact cancellations (measured:
// 643 bits at N = 16), the product's level sums (see
// mulLevelSums; sorted by suffixMaxKeys, since a level can cancel to zero)
// are merged by magnitude with acc's limbs and the 2N terms
// go through one renormalization, as in add: the product is never
// renormalized on its own, so the cost is that of mul + add less one
// N-term renormalization and one tidy sweep. The error is measured
// relative to |acc| + |x*y|.
func buildMulAdd(l *Library) *Program {
	n := l.N
	b, a := NewBuilder("madd", n, md(n, "acc", "x", "y")...)
	acc, x, y := a[0], a[1], a[2]
	switch {
	case n == 1:
		return b.Finish([]Value{b.FMA(x[0], y[0], acc[0])})
	case n == 2:
		return b.Finish(b.maddDD(acc, [][2][]Value{{x, y}}))
	case n <= 4:
		// acc's limbs join the product's level sums level by level
		// (limb k with level k), the levels are accumulated as in mul and
		// renormalized once. Pairing limbs by index is only exact up to the
		// last level when |acc| and |x*y| are far apart, which is why the
		// error is relative to |acc| + |x*y|; measured for N = 3, 4 only
		// (larger N loses accuracy in exact cancellations: see below).
		sums, lead := b.mulLevelSums(x, y)
		levels := make([][]Value, n)
		for k := range levels {
			levels[k] = []Value{acc[k], sums[k]}
		}
		r := b.renormalizeUnordered(b.accumulate(levels), n, 1)
		return b.Finish(b.specials(b.Add(acc[0], lead), r))
	}
	if !FusedMulAddAbove4 {
		// mul then add, as calls: on the CPU the fused form's hundreds of
		// magnitude selections compile to branches and run slower than
		// mul + add (F8: 419 ns against 306; F10: 877 against 711), and
		// CPU and GPU must run the same program.
		return b.Finish(b.Call(l.Add, acc, b.Call(l.Mul, x, y)))
	}
	sums, lead := b.mulLevelSums(x, y)
	r := b.renormalizeUnordered(b.mergeByKey(acc, sums, b.suffixMaxKeys(sums)), n, 3)
	return b.Finish(b.specials(b.Add(acc[0], lead), r))
}

// FusedMulAddAbove4 selects, for N >= 5, the fused madd (one merge and
// renormalization of acc's limbs with the product's level sums: 999 flops
// at N = 8 against 1104 for mul + add) instead of mul followed by add. It
// is off: the fused form is slower on the CPU (its selections become
// branches in Go), and the evaluator needs one program for both back ends.
var FusedMulAddAbove4 = false

// maddDD returns acc + sum of x*y over the pairs of terms for double-doubles:
// the heads exactly (TwoProd, TwoSum), everything of order 2^-53 (|acc| +
// sum |x y|) summed with plain adds into one error term, and one TwoSum to
// normalize. Its error is a few 2^-106 relative to |acc| + sum |x y| (the
// terms; the result may cancel): 19 flops for one product where mul + add
// take 29, and acc enters only at the last TwoSums, so a chain of madds on
// one accumulator (a convolution) waits for little more than two TwoSums
// per step.
func (b *Builder) maddDD(acc []Value, terms [][2][]Value) []Value {
	var heads, lows []Value
	for _, xy := range terms {
		x, y := xy[0], xy[1]
		p, e := b.TwoProd(x[0], y[0])
		heads = append(heads, p)
		lows = append(lows, e, b.FMA(x[0], y[1], b.Mul(x[1], y[0])))
	}
	h := heads[0]
	for _, p := range heads[1:] {
		var t Value
		h, t = b.TwoSum(h, p)
		lows = append(lows, t)
	}
	s, t := b.TwoSum(acc[0], h)
	low := lows[0]
	for _, v := range lows[1:] {
		low = b.Add(low, v)
	}
	low = b.Add(t, b.Add(acc[1], low))
	r0, r1 := b.TwoSum(s, low)
	return b.specials(s, []Value{r0, r1})
}

// buildMulFloat64 builds x * f for an N-double x and a float64 f.
func buildMulFloat64(n int) *Program {
	b, a := NewBuilder("mulf64", n, Param{Name: "x", Width: n}, Param{Name: "f", Width: 1, Scalar: true})
	x, f := a[0], a[1][0]
	if n == 1 {
		return b.Finish([]Value{b.Mul(x[0], f)})
	}
	if n == 2 {
		p, e := b.TwoProd(x[0], f)
		e = b.FMA(x[1], f, e)
		r0, r1 := b.FastTwoSum(p, e)
		return b.Finish(b.specials(p, []Value{r0, r1}))
	}
	// Levels 0..N-2 exactly (TwoProd), level N-1 (the last kept) a
	// rounded product summed with plain adds (see mulGeneral).
	levels := make([][]Value, n)
	var lead Value
	for k := 0; k < n-1; k++ {
		p, e := b.TwoProd(x[k], f)
		if k == 0 {
			lead = p
		}
		levels[k] = append(levels[k], p)
		levels[k+1] = append(levels[k+1], e)
	}
	levels[n-1] = append(levels[n-1], b.Mul(x[n-1], f))
	return b.Finish(b.specials(lead, b.renormalize(b.accumulate(levels), n, 1)))
}

// buildDiv builds x / y by long division: N+1 float64 quotient digits, each
// q_k = r_0 / y_0 of the running remainder r = x - y*(q_0 + ... + q_{k-1})
// computed in N-double arithmetic, then renormalized. Both operands are
// first scaled by exact powers of two (see divisorScale) that bring y0 into
// (1/2, 1]: the quotient is unchanged, x becomes at most the quotient in
// magnitude (no overflow when the quotient is finite) and at least half of
// it, so the remainders' products and their error terms stay as far above
// the subnormals as the quotient's own limbs. (Scaling only when |y0| was
// outside [2^-500, 2^500], by 2^-600 or 2^600, overflowed x when the
// quotient was large and left the remainders' error terms subnormal for
// divisors far from 1.) Division by zero and non-finite operands follow
// IEEE through the leading quotient digit x0 / y0.
func buildDiv(l *Library) *Program {
	n := l.N
	b, a := NewBuilder("div", n, md(n, "x", "y")...)
	x, y := a[0], a[1]
	if n == 1 {
		return b.Finish([]Value{b.Div(x[0], y[0])})
	}
	// The first digit is the same on the scaled operands (scaling by a
	// power of two commutes with the correctly rounded division): taken
	// from x0 and y0 it does not wait for the scaling, and it carries the
	// IEEE result of zero and non-finite operands.
	q := []Value{b.Div(x[0], y[0])}
	c, u := b.divisorScale(y[0])
	x = b.scaleLimbs(b.scaleLimbs(x, c), u)
	y = b.scaleLimbs(b.scaleLimbs(y, c), u)
	r := x
	for k := 1; k <= n; k++ {
		r = b.Call(l.Sub, r, b.Call(l.MulFloat64, y, []Value{q[k-1]}))
		q = append(q, b.Div(r[0], y[0]))
	}
	res := b.renormalize(q, n, divTidyPasses(n))
	// y infinite: the quotient is q0 (0 or NaN); the scaled operands and
	// the remainders are NaN. y zero: q0 is ±Inf or NaN (specials).
	zero := b.Const(0)
	for k := range res {
		lead := q[0]
		if k > 0 {
			lead = zero
		}
		res[k] = b.SelFinite(y[0], res[k], lead)
	}
	return b.Finish(b.specials(q[0], res))
}

// divisorScale returns powers of two c and u such that |y0| c u lies in
// (1/2, 1] (up to a rounding of the reciprocal: within 2^-51 of it), to be
// applied in that order: c = 2^600 when |y0| < 2^-900 (so that 1/(|y0| c)
// below is at most 2^474, where ufp is exact; one factor 1/|y0| would
// overflow for subnormal y0) and 1 otherwise, and u = ufp(1/(|y0| c)). x c
// cannot overflow when x/y is finite: then |x| < 2^1024 |y0| (1 + 2^-52) <
// 2^125. One division, a selection and five flops. y0 = ±0, ±Inf or NaN
// make u NaN or 0: the caller selects the IEEE result.
func (b *Builder) divisorScale(y0 Value) (c, u Value) {
	one := b.Const(1)
	ay := b.Abs(y0)
	c = b.SelNegative(b.Sub(ay, b.Const(0x1p-900)), b.Const(0x1p600), one)
	return c, b.ufp(b.Div(one, b.Mul(ay, c)))
}

// sqrtIterations is the number of Newton steps for 1/sqrt(x) from a float64
// start (about 52 correct bits, doubling each step) to reach 53N+4 bits.
func sqrtIterations(n int) int {
	target := 53*n + 4
	it := 0
	for good := 52; good < target; good *= 2 {
		it++
	}
	return it
}

// buildSqrt builds sqrt(x) from Newton's iteration for r = 1/sqrt(x),
// r <- r + r*(1/2 - (x/2)*r*r), which needs no division, then sqrt(x) = r*x.
// x is first scaled exactly into [1, 4) by an even power of two 2^-2k
// (with 2^k = ufp(sqrt(x0)); see rootScale), and the root scaled back by
// 2^k: so r, r*r and x/2 lie near 1 and their limbs, down to 2^(-53N),
// stay far above the subnormals whatever x's exponent. (Scaling only when
// x0 was outside [2^-500, 2^500], by 2^-600 or 2^600, let r*r's lower limbs
// underflow at N = 16, costing up to 270 bits, and made x/2 inexact on
// subnormal lower limbs.) Zero, infinity and negative inputs follow IEEE
// through sqrt(x0).
func buildSqrt(l *Library) *Program {
	n := l.N
	b, a := NewBuilder("sqrt", n, md(n, "x")...)
	x := a[0]
	s0 := b.Sqrt(x[0])
	if n == 1 {
		return b.Finish([]Value{s0})
	}
	zero := b.Const(0)
	pad := func(v Value) []Value {
		out := []Value{v}
		for len(out) < n {
			out = append(out, zero)
		}
		return out
	}
	u, undo, rho := b.rootScale(s0)
	x = b.scaleLimbs(b.scaleLimbs(x, u), u)
	half := pad(b.Const(0.5))
	h := make([]Value, n)
	for k := range x {
		h[k] = b.Mul(x[k], half[0])
	}
	// The start 1/sqrt(x0 u^2) = fl(1/fl(sqrt(x0)))/u, exactly.
	r := pad(b.Mul(rho, undo))
	for i := 0; i < sqrtIterations(n); i++ {
		t := b.Call(l.Mul, h, b.Call(l.Sqr, r))
		t = b.Call(l.Sub, half, t)
		r = b.Call(l.Add, r, b.Call(l.Mul, r, t))
	}
	// Scaling back is exact unless the root's lower limbs fall below
	// 2^-1022, where each is rounded on its own and a limb can land on half
	// an ulp of the one before: one FastTwoSum sweep restores the
	// normalization (it changes nothing on normalized limbs).
	res := b.tidy(b.scaleLimbs(b.Call(l.Mul, r, x), undo), 1)
	// x0 == 0 and x0 = Inf make the scaled x NaN.
	for k := range res {
		lead := s0
		if k > 0 {
			lead = zero
		}
		res[k] = b.SelNonZero(x[0], b.SelFinite(x[0], res[k], lead), lead)
	}
	return b.Finish(b.specials(s0, res))
}

// rootScale returns, for s0 = fl(sqrt(x0)) with x0 > 0 finite, undo = 2^k
// = ufp(s0), u = 2^-k and rho = fl(1/s0): multiplying x0 by u twice
// brings it exactly into [1, 4) (up to the rounding of the square root:
// [1 - 2^-52, 4)). s0 lies in [2^-537, 2^512] for every positive finite
// x0, subnormal ones included, and rho in [2^-(k+1), 2^-k], where ufp is
// exact; ufp(rho) is 2^-(k+1), or 2^-k when rho = 2^-k, which t = ufp(rho)
// undo (1/2 or 1) tells apart: u = ufp(rho) (3 - 2t). (u u alone would
// overflow for subnormal x0, hence two multiplications per limb.) One
// division, which also gives Newton's start, and ten flops. x0 = 0, Inf
// or NaN make them NaN: the caller selects the IEEE result.
func (b *Builder) rootScale(s0 Value) (u, undo, rho Value) {
	undo = b.ufp(s0)
	rho = b.Div(b.Const(1), s0)
	w := b.ufp(rho)
	t := b.Mul(w, undo)
	return b.Mul(w, b.Sub(b.Const(3), b.Add(t, t))), undo, rho
}

// ufp returns the unit in the first place of v, the power of two 2^e with
// 2^e <= |v| < 2^(e+1), exactly, for every |v| < 2^970, subnormals
// included (Rump's ufp, "Ultimately fast accurate summation", SIAM J. Sci.
// Comput. 31, 2009). With m = |v|/2^e in [1, 2): q = fl((2^52+1) |v|) is
// 2^e (m 2^52 + 1) or 2^e (m 2^52 + 2), whose ulp is 2^e, or, when that
// carries, exactly 2^(e+53). In the first case fl((1-2^-53) q) subtracts
// more than half an ulp and less than an ulp of q, and rounds to q - 2^e; in
// the second q - 2^e is representable. The difference of the two is exact
// (Sterbenz): |q - fl((1-2^-53) q)| = 2^e. 3 flops and an absolute value.
func (b *Builder) ufp(v Value) Value {
	q := b.Mul(v, b.Const(0x1p52+1))
	return b.Abs(b.Sub(q, b.Mul(q, b.Const(1-0x1p-53))))
}

// scaleLimbs multiplies every limb by the power of two s (exact barring
// overflow and underflow).
func (b *Builder) scaleLimbs(x []Value, s Value) []Value {
	out := make([]Value, len(x))
	for k, v := range x {
		out[k] = b.Mul(v, s)
	}
	return out
}
