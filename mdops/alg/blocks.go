package alg

// TwoSum returns s = fl(x+y) and the exact error e = x+y-s (Knuth; 6 flops,
// no condition on the operands).
func (b *Builder) TwoSum(x, y Value) (s, e Value) {
	s = b.Add(x, y)
	xv := b.Sub(s, y)
	yv := b.Sub(s, xv)
	dx := b.Sub(x, xv)
	dy := b.Sub(y, yv)
	return s, b.Add(dx, dy)
}

// FastTwoSum returns s = fl(x+y) and e = x+y-s (Dekker; 3 flops). It is exact
// when x is zero or exponent(x) >= exponent(y).
func (b *Builder) FastTwoSum(x, y Value) (s, e Value) {
	s = b.Add(x, y)
	z := b.Sub(s, x)
	return s, b.Sub(y, z)
}

// TwoProd returns p = fl(x*y) and the exact error e = x*y-p with one FMA
// (2 flops; exact unless the product underflows).
func (b *Builder) TwoProd(x, y Value) (p, e Value) {
	p = b.Mul(x, y)
	return p, b.FMA(x, y, b.Neg(p))
}

// sumTree adds terms pairwise in a balanced tree with plain rounded adds.
func (b *Builder) sumTree(terms []Value) Value {
	if len(terms) == 0 {
		return b.Const(0)
	}
	q := append([]Value(nil), terms...)
	for len(q) > 1 {
		q = append(q[2:], b.Add(q[0], q[1]))
	}
	return q[0]
}

// accumulate sums terms grouped by level (level k holds terms of magnitude
// about 2^(-53k) relative to the leading one) into one value per level,
// error-free for levels 0..len(levels)-2: terms of a level are added with
// TwoSum in a balanced tree and each error is carried to the next level. The
// last level is summed with plain adds; its rounding errors lie below the
// precision kept.
func (b *Builder) accumulate(levels [][]Value) []Value {
	carry := make([][]Value, len(levels)+1)
	sums := make([]Value, len(levels))
	last := len(levels) - 1
	for k := range levels {
		q := append(append([]Value(nil), levels[k]...), carry[k]...)
		if k == last {
			sums[k] = b.sumTree(q)
			continue
		}
		if len(q) == 0 {
			sums[k] = b.Const(0)
			continue
		}
		for len(q) > 1 {
			s, e := b.TwoSum(q[0], q[1])
			q = append(q[2:], s)
			carry[k+1] = append(carry[k+1], e)
		}
		sums[k] = q[0]
	}
	return sums
}

// renormalize returns n limbs, leading first, of the exact sum of terms,
// which must be ordered by roughly decreasing magnitude. It is CAMPARY's
// renormalization (VecSum then VecSumErrBranch) made branch-free: a
// bottom-up VecSum with TwoSum (error-free, leaves the rounded total on top),
// then a top-down pass of FastTwoSums in which a zero error means "keep
// accumulating" instead of "emit a limb". The emission goes to the first
// empty output slot, chosen with selections; filled slots are never zero
// because a FastTwoSum with a non-zero error has a non-zero sum. Without the
// skipping, exact cancellation (x + (-x + tiny)) leaves zero limbs in front
// of the significant ones and loses the tail.
func (b *Builder) renormalize(terms []Value, n, tidyPasses int) []Value {
	return b.renormalizeSorted(terms, n, tidyPasses, false)
}

// renormalizeUnordered is renormalize for terms that may be out of order,
// such as mul's level sums, where a level can cancel down to a term far
// below the next level's (sparse operands). Each FastTwoSum of the top-down
// pass first orders its operands by magnitude (two selections, no flop), so
// it is exact whatever the order: a small remainder followed by a larger
// error term is then kept instead of lost. On ordered terms the results
// are the same bits as renormalize's.
func (b *Builder) renormalizeUnordered(terms []Value, n, tidyPasses int) []Value {
	return b.renormalizeSorted(terms, n, tidyPasses, true)
}

func (b *Builder) renormalizeSorted(terms []Value, n, tidyPasses int, swap bool) []Value {
	m := len(terms)
	zero := b.Const(0)
	if m == 1 {
		out := []Value{terms[0]}
		for len(out) < n {
			out = append(out, zero)
		}
		return out
	}
	u := make([]Value, m)
	s := terms[m-1]
	for i := m - 2; i >= 0; i-- {
		s, u[i+1] = b.TwoSum(terms[i], s)
	}
	u[0] = s
	out := make([]Value, n)
	for k := range out {
		out[k] = zero
	}
	place := func(v Value, filledBefore int) {
		for k := min(filledBefore, n-1); k >= 0; k-- {
			if k == 0 {
				out[0] = b.SelNonZero(out[0], out[0], v)
				continue
			}
			out[k] = b.SelNonZero(out[k], out[k], b.SelNonZero(out[k-1], v, zero))
		}
	}
	e := u[0]
	for i := 1; i < m; i++ {
		hi, lo := e, u[i]
		if swap {
			hi, lo = b.compareExchange(e, u[i])
		}
		r, err := b.FastTwoSum(hi, lo)
		// At step i at most i-1 limbs have been emitted.
		place(b.SelNonZero(err, r, zero), i-1)
		e = b.SelNonZero(err, err, r)
	}
	place(e, m-1)
	return b.tidy(out, tidyPasses)
}

// tidy makes ulp-nonoverlapping limbs (|x[k+1]| <= ulp(x[k]), what
// VecSumErrBranch guarantees) strictly normalized (at most half an ulp, ties
// to even) with top-down sweeps of FastTwoSums. Each sweep leaves pair k
// normalized when it passes it, but its next FastTwoSum changes limb k+1
// and can break pair k again near a tie, so the operations use as many
// sweeps as their measured worst case needs (addTidyPasses, mulTidyPasses,
// divTidyPasses; three after madd's merge; one after a scaling by a power
// of two).
func (b *Builder) tidy(x []Value, tidyPasses int) []Value {
	x = append([]Value(nil), x...)
	for pass := 0; pass < tidyPasses; pass++ {
		for k := 0; k+1 < len(x); k++ {
			x[k], x[k+1] = b.FastTwoSum(x[k], x[k+1])
		}
	}
	return x
}

// specials makes non-finite results IEEE-like: when lead (an operation on
// the leading limbs that the algorithm computes anyway, such as fl(x0+y0))
// is not finite, the result is (lead, 0, ..., 0); and when the algorithm's own
// leading limb is not finite (an intermediate overflow), the lower limbs are
// zeroed, so NaN and Inf reach the leading limb and never leave finite
// garbage below it.
func (b *Builder) specials(lead Value, r []Value) []Value {
	out := make([]Value, len(r))
	out[0] = b.SelFinite(lead, r[0], lead)
	zero := b.Const(0)
	for k := 1; k < len(r); k++ {
		out[k] = b.SelFinite(out[0], r[k], zero)
	}
	return out
}

// compareExchange orders two values by decreasing magnitude, branch-free.
// A zero constant is already in place and costs nothing.
func (b *Builder) compareExchange(x, y Value) (hi, lo Value) {
	if b.IsZeroConst(y) {
		return x, y
	}
	if b.IsZeroConst(x) {
		return y, x
	}
	return b.SelAbsLess(x, y, y, x), b.SelAbsLess(x, y, x, y)
}

// mergeByMagnitude merges two sequences sorted by decreasing magnitude into
// one, with a bitonic merging network (data-oblivious, so it is straight-line
// code): the first is padded with zeros to a power of two, the second is
// padded and reversed, and the bitonic sequence they form is sorted.
func (b *Builder) mergeByMagnitude(x, y []Value) []Value {
	p := 1
	for p < len(x) || p < len(y) {
		p *= 2
	}
	zero := b.Const(0)
	seq := make([]Value, 2*p)
	for i := range seq {
		seq[i] = zero
	}
	copy(seq, x)
	for i, v := range y {
		seq[2*p-1-i] = v
	}
	for half := p; half >= 1; half /= 2 {
		for start := 0; start < 2*p; start += 2 * half {
			for i := start; i < start+half; i++ {
				seq[i], seq[i+half] = b.compareExchange(seq[i], seq[i+half])
			}
		}
	}
	// At most len(x)+len(y) entries are non-zero and they come first.
	return seq[:len(x)+len(y)]
}

// keyed is a term of a merge and the magnitude it is sorted by.
type keyed struct{ v, k Value }

// compareExchangeKeyed orders two keyed terms by decreasing |key|,
// branch-free; zero padding costs nothing.
func (b *Builder) compareExchangeKeyed(x, y keyed) (hi, lo keyed) {
	if b.IsZeroConst(y.v) && b.IsZeroConst(y.k) {
		return x, y
	}
	if b.IsZeroConst(x.v) && b.IsZeroConst(x.k) {
		return y, x
	}
	hi.v, lo.v = b.SelAbsLess(x.k, y.k, y.v, x.v), b.SelAbsLess(x.k, y.k, x.v, y.v)
	if x.k == x.v && y.k == y.v {
		hi.k, lo.k = hi.v, lo.v
	} else {
		hi.k, lo.k = b.SelAbsLess(x.k, y.k, y.k, x.k), b.SelAbsLess(x.k, y.k, x.k, y.k)
	}
	return hi, lo
}

// mergeByKey is mergeByMagnitude for terms that are sorted by decreasing
// |key| rather than by their own magnitude: x is sorted by magnitude (its
// keys are its values), y by the keys ky. It returns the values.
func (b *Builder) mergeByKey(x, y, ky []Value) []Value {
	p := 1
	for p < len(x) || p < len(y) {
		p *= 2
	}
	zero := b.Const(0)
	seq := make([]keyed, 2*p)
	for i := range seq {
		seq[i] = keyed{zero, zero}
	}
	for i, v := range x {
		seq[i] = keyed{v, v}
	}
	for i, v := range y {
		seq[2*p-1-i] = keyed{v, ky[i]}
	}
	for half := p; half >= 1; half /= 2 {
		for start := 0; start < 2*p; start += 2 * half {
			for i := start; i < start+half; i++ {
				seq[i], seq[i+half] = b.compareExchangeKeyed(seq[i], seq[i+half])
			}
		}
	}
	out := make([]Value, len(x)+len(y))
	for i := range out {
		out[i] = seq[i].v
	}
	return out
}

// suffixMaxKeys returns keys for roughly decreasing terms (such as
// mulLevelSums' level sums, where a level can cancel to zero or to less
// than the next level) that do decrease: key k is the term of largest
// magnitude among terms k, k+1, .... A term smaller than one after it is
// then merged next to that one instead of above the terms between them.
func (b *Builder) suffixMaxKeys(terms []Value) []Value {
	keys := make([]Value, len(terms))
	m := len(terms) - 1
	keys[m] = terms[m]
	for k := m - 1; k >= 0; k-- {
		keys[k] = b.SelAbsLess(terms[k], keys[k+1], keys[k+1], terms[k])
	}
	return keys
}

// Tidy sweeps after the renormalization of each operation for N >= 5. One
// sweep is not enough because a sweep's later FastTwoSum can move limb k+1
// of a pair it already tidied onto or past half an ulp of limb k: that
// needs limb k+1 within a few of its ulps of that boundary, which sparse
// operands (limbs at exact half ulps) produce in chains. Measured with
// TestNormalizationSweep (MDGEN_SWEEP=1e6: 10^6 cases per operation at
// N = 5, 8, 10, 16): with 2 sweeps after add, 1 after mul and div, about 1
// sparse result in 10^4 was broken at N >= 8; with 3 after add, 2 after mul
// and 2 + N/8 after div, 6 in 4.8 * 10^7 (madd = add at N = 16, div at
// N = 10 and 16, cdiv), each cleared by one or two more sweeps; with the
// counts below, none. Div's quotient digits for a divisor y0 + ulp(y0)/2
// are each about half an ulp of the one before with alternating signs: the
// longest chains. This is measured, not proven: no fixed number of sweeps
// is known to normalize every ulp-nonoverlapping input.
const mulTidyPasses = 2

// addTidyPasses is the number of tidy sweeps after add's renormalization of
// the 2N merged limbs: 3 up to N = 10, 4 above (3 left 2 broken results in
// 10^6 madds at N = 16; at N = 5 a fourth would also cost more flops than
// CAMPARY's addition, 122).
func addTidyPasses(n int) int {
	if n <= 10 {
		return 3
	}
	return 4
}

// divTidyPasses is the number of tidy sweeps after div's renormalization of
// its N+1 quotient digits: one for N <= 4 (unchanged; no break measured), and
// 2 + N/4 above (3 at N = 5, 4 at N = 8, 10, 6 at N = 16).
func divTidyPasses(n int) int {
	if n <= 4 {
		return 1
	}
	return 2 + n/4
}
