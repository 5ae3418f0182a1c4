package xcheck

// This file is mirrored line for line by the xc namespace of driver.cu. Any
// change to the generator must be made on both sides, in the same order of
// random draws, or every "N inputs HASH" line of the cross-check will differ
// (which is exactly what that line is for: it tells a generator mismatch apart
// from an arithmetic mismatch).
//
// Rules that keep the two sides bit-identical:
//   - Only exact operations build values: splitmix64 integer arithmetic,
//     conversion of integers below 2^53 to float64, Ldexp/Frexp on values
//     whose result is exactly representable, Abs, negation and copying. No
//     rounded +, -, *, / is ever used, so neither FMA contraction nor
//     x87-style excess precision can make the sides diverge.
//   - Every random draw is its own statement: C++ leaves the order of
//     evaluation of function arguments unspecified, so r.next() is never
//     called twice within one expression.
//   - rng.intn uses a plain modulo; its bias is irrelevant here and a modulo
//     is trivially identical in both languages.

import "math"

// HashInit is the FNV-1a 64 offset basis, the value every hash starts from.
const HashInit uint64 = 14695981039346656037

// fnvPrime is the FNV-1a 64 multiplier.
const fnvPrime uint64 = 1099511628211

// canonicalNaN replaces every NaN before hashing. Go's math.NaN, the x86 SSE
// default NaN and CUDA's canonical NaN have different bits, and NaN payload
// propagation through arithmetic differs between the platforms, so only
// "is NaN" is meaningful to compare.
const canonicalNaN uint64 = 0x7ff8000000000000

// Hash folds limbs into the FNV-1a 64 hash h: for each limb, the eight bytes
// of math.Float64bits, least significant first, after replacing any NaN by
// 0x7ff8000000000000. Start from HashInit. Hashing is streaming, so
// Hash(Hash(h, a...), b...) == Hash(h, append(a, b...)...).
func Hash(h uint64, limbs ...float64) uint64 {
	for _, v := range limbs {
		b := math.Float64bits(v)
		if v != v {
			b = canonicalNaN
		}
		for k := 0; k < 8; k++ {
			h ^= b & 0xff
			h *= fnvPrime
			b >>= 8
		}
	}
	return h
}

// Category classifies how a pair was generated; Pair draws one per index.
type Category int

// The categories, with their share of the indices in parentheses.
const (
	CatRandom    Category = iota // (60%) normalized values, leading exponents in ±600, y's exponent often close to x's
	CatCancel                    // (15%) y = ±x exactly, or ±x with its tail or leading limb's low bits replaced
	CatPow2                      // (5%) x and/or y an exact power of two, with a zero or power-of-two tail
	CatZero                      // (3%) x and/or y is ±0 (all limbs zero)
	CatTruncated                 // (6%) random values whose limbs are zero from some index on
	CatSubnormal                 // (6%) leading exponents near -1000 or subnormal, so lower limbs are subnormal or zero
	CatOverflow                  // (4%) leading exponents 1020..1023 (sometimes ±MaxFloat64)
	CatSpecial                   // (1%) x and/or y has an Inf or NaN leading limb (and zero tail)
	NumCategories
)

var categoryNames = [NumCategories]string{
	"random", "cancel", "pow2", "zero", "truncated", "subnormal", "overflow", "special",
}

// String returns the category's short name, e.g. "cancel".
func (c Category) String() string {
	if c >= 0 && c < NumCategories {
		return categoryNames[c]
	}
	return "invalid"
}

// Exponent bounds of float64 values, as leading exponents e of 1.f * 2^e.
const (
	minSubExp  = -1074 // exponent of the smallest subnormal, 2^-1074
	minNormExp = -1022 // exponent of the smallest normal number
	maxExp     = 1023  // exponent of MaxFloat64
	randExp    = 600   // leading exponents of random values lie in [-randExp, randExp]
)

// golden is the splitmix64 increment (2^64 / golden ratio), also used to
// spread the index over the seed space.
const golden uint64 = 0x9E3779B97F4A7C15

// rng is a splitmix64 generator.
type rng struct{ s uint64 }

// mix64 is the splitmix64 output function (a bijective 64-bit mixer).
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// newRNG seeds a generator for pair i of precision n. The state is mixed
// once more after combining seed, i and n: with a bare seed ^ i*golden, index
// i's second draw would equal index i+1's first draw when seed is 0, since
// splitmix64 advances its state by golden.
func newRNG(n int, seed uint64, i int) rng {
	s := seed ^ (uint64(i) * golden)
	s ^= uint64(n) * 0xD6E8FEB86659FD93
	return rng{s: mix64(s)}
}

// next returns the next 64 random bits.
func (r *rng) next() uint64 {
	r.s += golden
	return mix64(r.s)
}

// intn returns a value in [0, k), k > 0, from one draw.
func (r *rng) intn(k int) int { return int(r.next() % uint64(k)) }

// rangeInt returns a value in [lo, hi] from one draw.
func (r *rng) rangeInt(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// coin returns a random bool from one draw.
func (r *rng) coin() bool { return r.next()&1 == 1 }

// mantissa returns a random 53-bit significand in [2^52, 2^53). One time in
// eight its low bits are cleared, so short significands (which take exact
// shortcuts in TwoSum/TwoProd and in renormalization) also occur.
func (r *rng) mantissa() int64 {
	m := int64(r.next()>>11) | 1<<52
	if r.intn(8) == 0 {
		k := r.intn(53)
		m &^= (int64(1) << k) - 1
	}
	return m
}

// scaled returns ±m * 2^(e-52) for a significand m in [0, 2^53), i.e. a value
// with leading exponent e when m >= 2^52. Where the value would be subnormal,
// the bits of m below 2^-1074 are dropped in the integer domain first, so
// that Ldexp's result is always exactly representable: Ldexp then never
// rounds (math.Ldexp and C's ldexp would be free to round differently, and
// math.Ldexp flushes results below 2^-1075 to zero).
func scaled(m int64, e int, neg bool) float64 {
	s := e - 52
	if s < minSubExp {
		sh := minSubExp - s
		if sh > 52 {
			m = 0
		} else {
			m >>= uint(sh)
		}
		s = minSubExp
	}
	v := math.Ldexp(float64(m), s)
	if neg {
		v = -v
	}
	return v
}

// limb returns a random limb with leading exponent e (or its subnormal
// truncation, possibly ±0) and a random sign.
func (r *rng) limb(e int) float64 {
	m := r.mantissa()
	neg := r.coin()
	return scaled(m, e, neg)
}

// isFiniteNonzero reports whether v is neither ±0, ±Inf nor NaN, using
// comparisons only (exact).
func isFiniteNonzero(v float64) bool {
	return v == v && v != 0 && !math.IsInf(v, 0)
}

// below returns a random limb that may follow prev in a normalized
// N-double, i.e. fl(prev + limb) == prev. With e prev's leading exponent, so
// that ulp(prev) = 2^(e-52):
//   - usually the limb's leading exponent is e-54..e-57 (dense), so
//     |limb| < 2^(e-53) = ulp(prev)/2, which rounds back to prev. Just below
//     a power of two the spacing halves, so there a limb of exponent e-54 and
//     opposite sign could round prev down; it gets prev's sign instead;
//   - one time in 32 the gap is 55..310 bits (far below, often underflowing);
//   - one time in 32, when prev is normal and its significand is even, the
//     limb is exactly ±ulp(prev)/2, a tie that rounds back to prev (with the
//     sign of prev when prev is a power of two, for the reason above).
//
// Below a zero, Inf, NaN or subnormal prev only zero fits, which the gap
// produces by itself for a subnormal prev (everything underflows).
func (r *rng) below(prev float64) float64 {
	if !isFiniteNonzero(prev) {
		return 0
	}
	frac, e := math.Frexp(prev)
	lead := e - 1
	pow2 := math.Abs(frac) == 0.5
	sel := r.intn(32)
	if sel == 0 && lead >= minNormExp+1 {
		m := int64(math.Ldexp(math.Abs(frac), 53))
		if m&1 == 0 {
			neg := r.coin()
			if pow2 {
				neg = prev < 0
			}
			return scaled(1<<52, lead-53, neg)
		}
	}
	gap := 54 + r.intn(4)
	if sel == 1 {
		gap = 55 + r.intn(256)
	}
	m := r.mantissa()
	neg := r.coin()
	if gap == 54 && pow2 {
		neg = prev < 0
	}
	return scaled(m, lead-gap, neg)
}

// fill writes a random normalized value with leading exponent e into dst.
func (r *rng) fill(dst []float64, e int) {
	dst[0] = r.limb(e)
	for k := 1; k < len(dst); k++ {
		dst[k] = r.below(dst[k-1])
	}
}

// fillTail replaces dst[from:] by random limbs below dst[from-1].
func (r *rng) fillTail(dst []float64, from int) {
	for k := from; k < len(dst); k++ {
		dst[k] = r.below(dst[k-1])
	}
}

// fillPow2 writes ±2^e into dst[0]; its tail is zero or (by a coin) a chain
// of powers of two of random signs, each 55..70 bits below the previous.
func (r *rng) fillPow2(dst []float64, e int) {
	neg := r.coin()
	dst[0] = scaled(1<<52, e, neg)
	tail := r.coin()
	for k := 1; k < len(dst); k++ {
		if !tail || !isFiniteNonzero(dst[k-1]) {
			dst[k] = 0
			continue
		}
		_, pe := math.Frexp(dst[k-1])
		gap := r.rangeInt(55, 70)
		neg := r.coin()
		dst[k] = scaled(1<<52, pe-1-gap, neg)
	}
}

// zeroFrom sets dst[from:] to +0.
func zeroFrom(dst []float64, from int) {
	for k := from; k < len(dst); k++ {
		dst[k] = 0
	}
}

// fillZero makes dst ±0: a leading zero of random sign, then +0 limbs.
func (r *rng) fillZero(dst []float64) {
	neg := r.coin()
	zeroFrom(dst, 0)
	if neg {
		dst[0] = math.Copysign(0, -1)
	}
}

// special returns +Inf, -Inf or a quiet NaN of random sign, with the bits
// written out so that both sides start from the same NaN.
func (r *rng) special() float64 {
	k := r.intn(4)
	switch k {
	case 0:
		return math.Inf(1)
	case 1:
		return math.Inf(-1)
	case 2:
		return math.Float64frombits(0x7ff8000000000000)
	default:
		return math.Float64frombits(0xfff8000000000000)
	}
}

// partnerExp picks y's leading exponent given x's leading exponent ex: a
// third of the time within ±8 of ex (so additions really mix the limbs), a
// third within the N-double's whole span, and a third independently in
// ±randExp. The result is clamped to the float64 exponent range.
func (r *rng) partnerExp(ex, n int) int {
	var e int
	switch r.intn(3) {
	case 0:
		e = ex + r.rangeInt(-8, 8)
	case 1:
		span := 53*n + 8
		e = ex + r.rangeInt(-span, span)
	default:
		e = r.rangeInt(-randExp, randExp)
	}
	if e > maxExp {
		e = maxExp
	}
	if e < minSubExp {
		e = minSubExp
	}
	return e
}

// generate is Pair and Category in one: it writes pair i of precision n into
// x and y (each of length n) and returns its category.
func generate(n int, seed uint64, i int, x, y []float64) Category {
	r := newRNG(n, seed, i)
	u := r.intn(1000)
	switch {
	case u < 10:
		// Inf/NaN in x, y or both; the other operand stays random.
		which := r.intn(3)
		ex := r.rangeInt(-randExp, randExp)
		r.fill(x, ex)
		ey := r.partnerExp(ex, n)
		r.fill(y, ey)
		if which != 1 {
			x[0] = r.special()
			zeroFrom(x, 1)
		}
		if which != 0 {
			y[0] = r.special()
			zeroFrom(y, 1)
		}
		return CatSpecial

	case u < 40:
		// ±0 in x, y or both (division by zero, 0*Inf, sqrt(-0), ...).
		which := r.intn(3)
		ex := r.rangeInt(-randExp, randExp)
		if which == 1 {
			r.fill(x, ex)
		} else {
			r.fillZero(x)
		}
		if which == 0 {
			ey := r.partnerExp(ex, n)
			r.fill(y, ey)
		} else {
			r.fillZero(y)
		}
		return CatZero

	case u < 90:
		// Exact powers of two in x, y or both.
		which := r.intn(3)
		ex := r.rangeInt(-randExp, randExp)
		ey := r.partnerExp(ex, n)
		if which != 2 {
			r.fillPow2(x, ex)
		} else {
			r.fill(x, ex)
		}
		if which != 1 {
			r.fillPow2(y, ey)
		} else {
			r.fill(y, ey)
		}
		return CatPow2

	case u < 150:
		// Near the bottom of the exponent range: lower limbs subnormal or
		// zero; one time in four the leading limb itself is subnormal.
		var ex int
		if r.intn(4) == 0 {
			ex = r.rangeInt(minSubExp, minNormExp-1)
		} else {
			ex = r.rangeInt(minNormExp, -960)
		}
		r.fill(x, ex)
		var ey int
		if r.coin() {
			ey = r.rangeInt(minSubExp, -960)
		} else {
			ey = r.partnerExp(ex, n)
		}
		r.fill(y, ey)
		return CatSubnormal

	case u < 190:
		// Near overflow; one time in four x's leading limb is ±MaxFloat64.
		ex := r.rangeInt(1020, maxExp)
		if r.intn(4) == 0 {
			neg := r.coin()
			x[0] = scaled(1<<53-1, maxExp, neg)
			r.fillTail(x, 1)
		} else {
			r.fill(x, ex)
		}
		var ey int
		if r.coin() {
			ey = r.rangeInt(1020, maxExp)
		} else {
			ey = r.partnerExp(ex, n)
		}
		r.fill(y, ey)
		return CatOverflow

	case u < 340:
		// Cancellation: y starts as -x or +x (so that both add and sub
		// cancel), then is kept exact, gets a new tail from a random limb
		// on, or gets the low bits of its leading limb flipped and a new
		// tail.
		ex := r.rangeInt(-randExp, randExp)
		r.fill(x, ex)
		flip := r.coin()
		for k := range x {
			if flip {
				y[k] = -x[k]
			} else {
				y[k] = x[k]
			}
		}
		switch r.intn(4) {
		case 0:
			// exact ±x
		case 1, 2:
			if n > 1 {
				j := r.rangeInt(1, n-1)
				r.fillTail(y, j)
			}
		default:
			// x[0] is normal here (ex >= -600), so its 53-bit significand
			// is exact and the flipped significand keeps its top bit.
			frac, e := math.Frexp(y[0])
			m := int64(math.Ldexp(math.Abs(frac), 53))
			bits := r.rangeInt(1, 52)
			m ^= int64(r.next() & (uint64(1)<<uint(bits) - 1))
			y[0] = scaled(m, e-1, y[0] < 0)
			r.fillTail(y, 1)
		}
		return CatCancel

	case u < 400:
		// Zero limbs: random values cut off from a random limb on.
		ex := r.rangeInt(-randExp, randExp)
		r.fill(x, ex)
		ey := r.partnerExp(ex, n)
		r.fill(y, ey)
		if n > 1 {
			which := r.intn(3)
			jx := r.rangeInt(1, n-1)
			jy := r.rangeInt(1, n-1)
			if which != 1 {
				zeroFrom(x, jx)
			}
			if which != 0 {
				zeroFrom(y, jy)
			}
		}
		return CatTruncated

	default:
		ex := r.rangeInt(-randExp, randExp)
		r.fill(x, ex)
		ey := r.partnerExp(ex, n)
		r.fill(y, ey)
		return CatRandom
	}
}

// Pair returns operand pair i of precision n (n limbs each, leading limb
// first) for the given seed. It is stateless per index, deterministic and
// identical to xc::pair in driver.cu bit for bit. Every value is normalized:
// fl(v[k] + v[k+1]) == v[k] for all k (NaN leading limbs aside).
func Pair(n int, seed uint64, i int) (x, y []float64) {
	x = make([]float64, n)
	y = make([]float64, n)
	generate(n, seed, i, x, y)
	return x, y
}

// PairInto is Pair writing into caller-provided slices of length n, which
// avoids two allocations per pair in bulk use.
func PairInto(n int, seed uint64, i int, x, y []float64) {
	generate(n, seed, i, x[:n], y[:n])
}

// CategoryOf returns the category pair i of precision n was drawn from, for
// describing a mismatching input.
func CategoryOf(n int, seed uint64, i int) Category {
	x := make([]float64, n)
	y := make([]float64, n)
	return generate(n, seed, i, x, y)
}
