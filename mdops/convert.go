package mdops

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file holds the limb-level conversions shared by every generated
// N-double type: to and from *big.Float, decimal text, and comparison. They
// work on []float64 so that one implementation serves F1 through F16; the
// generated methods only slice their arrays and add the type name.
//
// Terminology used below:
//
//   - normalized: for every i, fl(x[i]+x[i+1]) == x[i] (so TwoSum(x[i],
//     x[i+1]) returns the pair unchanged), and a zero limb is followed only by
//     zero limbs. This is what the arithmetic produces.
//   - canonical: the output of limbsFromBig. Canonical values are normalized.
//     Normalized representations are not unique, e.g. the 3-doubles
//     {1, 2^-53, 2^-106} and {1+2^-52, -(2^-53-2^-106), 0} are both normalized
//     and have the same value; only the second is canonical. Conversions that
//     go through a value (text, *big.Float) therefore reproduce canonical
//     inputs bit for bit and other normalized inputs value for value.

// remainderSlack is added to the minimum precision of the value being rounded
// so that every remainder in limbsFromBig is computed exactly: a remainder's
// bits lie between the lower of the input's lowest set bit and 2^-1074 (the
// lowest bit of any float64 limb) and the input's top bit (at most 2^1024, or
// the value would have rounded to infinity), so the span grows by at most
// about 2100 bits over the input's own.
const remainderSlack = 2200

// limbsFromBig rounds x to len(dst) limbs and stores them in dst.
//
// Why greedy: each limb is the float64 nearest (ties to even) to what the
// limbs before it leave, which is the natural "correctly rounded, limb by
// limb" meaning of converting a wide value to an N-double, and being a
// function of the value alone it makes text and big.Float round trips
// reproduce its own output bit for bit.
//
// Plain greedy rounding is not always normalized: when a remainder is just
// below half an ulp of an odd limb, it can round up to exactly half an ulp,
// and then fl(limb+next) ties away from the limb. In that case the pair is
// rewritten by an exact TwoSum (the odd limb becomes its even neighbour and
// the next limb changes sign), cascading towards the leading limb while the
// rewrite breaks the pair above. The value of the limbs is unchanged by this,
// so the result has the value of the greedy rounding of x (its leading limb
// may then be the even neighbour of fl(x)). Only if the cascade would
// overflow (the leading limb is MaxFloat64) is the new limb instead clamped
// to the largest magnitude its predecessor accepts; this keeps values just
// below the N-double overflow threshold finite at a small loss of accuracy.
//
// Special cases: x == nil (big.Float has no NaN) gives NaN; ±Inf and values
// whose leading limb rounds beyond MaxFloat64 give ±Inf; zero gives a zero of
// x's sign (values that underflow below 2^-1075 give a signed zero too, as
// for float64). Limbs after the remainder becomes zero, and all limbs after a
// NaN or infinite leading limb, are +0.
func limbsFromBig(dst []float64, x *big.Float) {
	clear(dst)
	if len(dst) == 0 {
		return
	}
	if x == nil {
		dst[0] = math.NaN()
		return
	}
	if x.IsInf() {
		dst[0] = math.Inf(x.Sign())
		return
	}
	f, _ := x.Float64()
	dst[0] = f
	if f == 0 || math.IsInf(f, 0) {
		return
	}
	rem := new(big.Float).SetPrec(x.MinPrec() + remainderSlack).Set(x)
	lim := new(big.Float).SetPrec(64)
	rem.Sub(rem, lim.SetFloat64(f))

	// The cascade is tried on a copy so that a failed one leaves dst intact.
	var buf [16]float64
	tmp := buf[:]
	if len(dst) > len(buf) {
		tmp = make([]float64, len(dst))
	}
	for i := 1; i < len(dst); i++ {
		d, _ := rem.Float64()
		if d == 0 {
			break // the remainder is zero or below 2^-1075: the rest stay +0
		}
		prev := dst[i-1]
		if prev+d != prev {
			copy(tmp, dst[:i])
			tmp[i] = d
			if cascadeLimbs(tmp[:i+1]) {
				copy(dst, tmp[:i+1])
				rem.Sub(rem, lim.SetFloat64(d)) // the pair sums are unchanged
				continue
			}
			d = clampLimb(prev, d)
			if d == 0 {
				break
			}
		}
		dst[i] = d
		rem.Sub(rem, lim.SetFloat64(d))
	}
}

// cascadeLimbs restores normalization of x, which is normalized except for
// its last pair, by replacing violating pairs with their exact TwoSum from
// the bottom up. It reports false, leaving x in an unspecified state, when a
// sum overflows or the result is still not normalized with a nonzero last
// limb; the caller then falls back to clampLimb. Why TwoSum: it keeps the
// value exact, so the rounding decisions already made stay valid.
func cascadeLimbs(x []float64) bool {
	for j := len(x) - 1; j > 0; j-- {
		a, b := x[j-1], x[j]
		s := a + b
		if s == a {
			break
		}
		if math.IsInf(s, 0) {
			return false
		}
		x[j-1], x[j] = s, twoSumErr(a, b, s)
	}
	if x[len(x)-1] == 0 {
		return false
	}
	for k := 0; k+1 < len(x); k++ {
		if x[k]+x[k+1] != x[k] || x[k] == 0 {
			return false
		}
	}
	return true
}

// twoSumErr returns a+b-s exactly, where s = fl(a+b) (Knuth's TwoSum error
// term). It is branch-free and correct for any order of magnitudes, which the
// cascade needs because a limb may be smaller than the one it is added to.
func twoSumErr(a, b, s float64) float64 {
	bb := s - a
	return (a - (s - bb)) + (b - bb)
}

// clampLimb returns the float64 nearest to d among those t with fl(a+t) == a
// and the sign of d. Why: it is the best next limb that keeps the pair (a, t)
// normalized when the TwoSum cascade is not available (it would overflow).
func clampLimb(a, d float64) float64 {
	dir := math.Inf(1)
	if d < 0 {
		dir = math.Inf(-1)
	}
	nb := math.Nextafter(a, dir)
	var gap float64
	if math.IsInf(nb, 0) {
		gap = math.Abs(a - math.Nextafter(a, 0)) // beyond MaxFloat64
	} else {
		gap = math.Abs(nb - a)
	}
	h := gap / 2 // a power of two; rounds to 0 only for the subnormal gap
	if a+math.Copysign(h, d) != a {
		h = math.Nextafter(h, 0)
	}
	if math.Abs(d) > h {
		return math.Copysign(h, d)
	}
	return d
}

// limbClass classifies x for the conversions: NaN if any limb is NaN or if
// infinities of both signs occur (their sum is undefined), ±Inf if some limb
// is infinite, otherwise finite. Why whole-slice: a NaN in any limb poisons
// the value, and checking every limb keeps non-normalized input from
// producing a finite result by accident.
func limbClass(x []float64) (nan bool, inf int) {
	for _, v := range x {
		switch {
		case v != v:
			return true, 0
		case math.IsInf(v, 1):
			if inf < 0 {
				return true, 0
			}
			inf = 1
		case math.IsInf(v, -1):
			if inf > 0 {
				return true, 0
			}
			inf = -1
		}
	}
	return false, inf
}

// exactLimbs returns m and e with sum(x) == m * 2^e exactly, for finite limbs,
// with m odd unless it is zero. Why integers: one big.Int sum of aligned
// 53-bit mantissas is exact for any limbs, cheap, and gives both the big.Float
// value and the exact decimal expansion without choosing a precision.
func exactLimbs(x []float64) (*big.Int, int) {
	lo := math.MaxInt
	for _, v := range x {
		if v != 0 {
			lo = min(lo, limbLSB(v))
		}
	}
	m := new(big.Int)
	if lo == math.MaxInt {
		return m, 0
	}
	t := new(big.Int)
	for _, v := range x {
		if v == 0 {
			continue
		}
		fr, e := math.Frexp(v)
		t.SetInt64(int64(fr * (1 << 53))) // exact: |fr| < 1 has 53 bits
		t.Lsh(t, uint(e-53-lo))
		m.Add(m, t)
	}
	if m.Sign() == 0 {
		return m, 0
	}
	tz := m.TrailingZeroBits()
	m.Rsh(m, tz)
	return m, lo + int(tz)
}

// limbLSB returns the exponent of the lowest bit that v's 53-bit mantissa can
// hold, i.e. v is an integer multiple of 2^limbLSB(v). Why not the ulp: Frexp
// normalizes subnormals, so v/2^limbLSB(v) is always a 53-bit integer, which
// is what exactLimbs shifts; for subnormals it is below the ulp.
func limbLSB(v float64) int {
	_, e := math.Frexp(v)
	return e - 53
}

// ulpExp returns the exponent of the ulp of the nonzero finite v (2^-1074 for
// subnormals). Why: it is the resolution a decimal must reach for the limb v
// to be reproduced.
func ulpExp(v float64) int {
	return max(limbLSB(v), -1074)
}

// limbsToBig returns the exact sum of the limbs of x.
//
// Why exact: converting through *big.Float is how callers print, compare and
// check N-doubles, so no rounding may happen here; the precision is the bit
// span of the sum (at most about 2100 bits, at least 64). It returns nil when
// the value is NaN (any NaN limb, or infinities of both signs), because
// big.Float cannot represent NaN; ±Inf when a limb is infinite; and a zero of
// x[0]'s sign when all limbs are zero, so that -0 survives the conversion.
func limbsToBig(x []float64) *big.Float {
	nan, inf := limbClass(x)
	switch {
	case nan:
		return nil
	case inf != 0:
		return new(big.Float).SetInf(inf < 0)
	}
	m, e := exactLimbs(x)
	if m.Sign() == 0 {
		z := new(big.Float)
		if len(x) > 0 && math.Signbit(x[0]) {
			z.Neg(z)
		}
		return z
	}
	z := new(big.Float).SetInt(m) // precision max(64, bits of m): exact
	return z.SetMantExp(z, e)
}

// formatLimbs returns decimal text for x that parseLimbs converts back to the
// same limbs.
//
// Why this search: the text must round-trip every canonical value (see the
// top of the file) bit for bit, and should be as short as possible so that
// values that came from short decimals ("0.1") print that way. The exact
// decimal expansion of the value always round-trips; starting from a digit
// count estimated from the precision the last limb needs, the count is
// doubled until the rounded expansion round-trips and then shrunk by binary
// search. Round-tripping is in practice monotone in the digit count, so the
// result is the shortest or very close to it; it is always verified.
//
// For normalized but non-canonical x no decimal reproduces the limbs, and the
// exact decimal expansion is returned: it parses to the same value.
//
// Format: like strconv 'g' with the shortest digits: "-12.5", "0.001",
// "1.2345e-10", "1e+21" (exponent form when the decimal exponent is below -4
// or at least 21). Special values are "NaN", "+Inf", "-Inf", "0" and "-0".
func formatLimbs(x []float64) string {
	nan, inf := limbClass(x)
	switch {
	case nan:
		return "NaN"
	case inf > 0:
		return "+Inf"
	case inf < 0:
		return "-Inf"
	}
	m, e := exactLimbs(x)
	if m.Sign() == 0 {
		if len(x) > 0 && math.Signbit(x[0]) {
			return "-0"
		}
		return "0"
	}
	neg := m.Sign() < 0
	m.Abs(m)
	dexp := 0
	if e >= 0 {
		m.Lsh(m, uint(e))
	} else {
		m.Mul(m, pow5(-e))
		dexp = e
	}
	digits := m.Text(10)
	digits, dexp = trimZeros(digits, dexp)
	nd := len(digits)

	tmp := make([]float64, len(x))
	roundTrips := func(d int) bool {
		dg, de := roundDigits(digits, dexp, d)
		decimalToLimbs(tmp, neg, dg, de)
		for i := range x {
			if math.Float64bits(tmp[i]) != math.Float64bits(x[i]) {
				return false
			}
		}
		return true
	}

	// Estimate the digits needed so that the text lies within the rounding
	// interval of the last limb (or within 2^-1075 if trailing limbs are zero).
	t := -1076
	if last := x[len(x)-1]; last != 0 {
		t = ulpExp(last) - 2
	}
	e10 := nd + dexp - 1
	est := int(math.Ceil(float64(e10+1)-float64(float64(t+1)*math.Log10(2)))) + 1
	hi := min(max(est, 1), nd)
	for !roundTrips(hi) {
		if hi == nd {
			return formatDecimal(neg, digits, dexp) // non-canonical input
		}
		hi = min(2*hi, nd)
	}
	lo := 1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if roundTrips(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	dg, de := roundDigits(digits, dexp, hi)
	return formatDecimal(neg, dg, de)
}

// pow5 returns 5^k. Why 5 and not 10: dividing or multiplying by 10^k is a
// shift by k plus a product with 5^k, and the smaller operand is cheaper.
func pow5(k int) *big.Int {
	return new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(k)), nil)
}

// trimZeros drops trailing zero digits, moving them into the exponent, so
// that digit strings compare and round without special cases.
func trimZeros(digits string, dexp int) (string, int) {
	n := len(digits)
	for n > 0 && digits[n-1] == '0' {
		n--
	}
	return digits[:n], dexp + len(digits) - n
}

// roundDigits rounds the decimal digits×10^dexp (no leading or trailing
// zeros) to at most d significant digits, ties to even. Why on digits: the
// exact expansion is computed once per formatLimbs call, and rounding its
// digits is exact and much cheaper than formatting the big value again.
func roundDigits(digits string, dexp, d int) (string, int) {
	nd := len(digits)
	if d >= nd {
		return digits, dexp
	}
	next := digits[d]
	up := next > '5' || next == '5' && (nd > d+1 || (digits[d-1]-'0')%2 == 1)
	dexp += nd - d
	if !up {
		return trimZeros(digits[:d], dexp)
	}
	b := []byte(digits[:d])
	i := d - 1
	for i >= 0 && b[i] == '9' {
		b[i] = '0'
		i--
	}
	if i < 0 {
		return "1", dexp + d // 999… rounded up to 10^d
	}
	b[i]++
	return trimZeros(string(b), dexp)
}

// formatDecimal writes ±digits×10^dexp in strconv's 'g' style. Why a fixed
// threshold of 21 for the exponent form instead of strconv's 6: N-doubles
// print many digits, and integers up to 10^21 read better without exponent.
func formatDecimal(neg bool, digits string, dexp int) string {
	var sb strings.Builder
	if neg {
		sb.WriteByte('-')
	}
	nd := len(digits)
	e10 := nd + dexp - 1
	switch {
	case e10 < -4 || e10 >= 21:
		sb.WriteByte(digits[0])
		if nd > 1 {
			sb.WriteByte('.')
			sb.WriteString(digits[1:])
		}
		sb.WriteByte('e')
		if e10 < 0 {
			sb.WriteByte('-')
			e10 = -e10
		} else {
			sb.WriteByte('+')
		}
		if e10 < 10 {
			sb.WriteByte('0')
		}
		sb.WriteString(strconv.Itoa(e10))
	case dexp >= 0:
		sb.WriteString(digits)
		sb.WriteString(strings.Repeat("0", dexp))
	case e10 >= 0:
		sb.WriteString(digits[:e10+1])
		sb.WriteByte('.')
		sb.WriteString(digits[e10+1:])
	default:
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", -e10-1))
		sb.WriteString(digits)
	}
	return sb.String()
}

// Limits of the decimal conversion. maxParseDigits keeps the cost bounded for
// long inputs: digits beyond it are replaced by a sticky nonzero digit, which
// cannot change any rounding decision because those only compare against
// values with bits no lower than 2^-1077, whose decimal expansions end above
// the 10^-1077 position, and the cut is below it (the leading digit is at most
// 10^308). The quotient in decimalToLimbs is truncated at 2^-quoBits with a
// sticky bit for the same reason.
const (
	maxParseDigits = 1500
	quoBits        = 1080
	maxDecExp      = 308  // values ≥ 10^309 exceed every N-double: ±Inf
	minDecExp      = -324 // values < 10^-324 < 2^-1075 round to ±0
)

// decimalToLimbs rounds ±digits×10^dexp to len(dst) limbs. digits has no
// leading zeros (may be empty for zero). Why not big.Float.SetString: its
// decimal conversion is not guaranteed to be correctly rounded, while this
// one is exact up to a sticky bit far below every limb, so limbsFromBig
// makes exactly the decisions it would make on the true value.
func decimalToLimbs(dst []float64, neg bool, digits string, dexp int) {
	clear(dst)
	if len(dst) == 0 {
		return
	}
	zero := func() {
		if neg {
			dst[0] = math.Copysign(0, -1)
		}
	}
	if len(digits) == 0 {
		zero()
		return
	}
	e10 := len(digits) + dexp - 1
	switch {
	case e10 > maxDecExp:
		dst[0] = math.Inf(1)
		if neg {
			dst[0] = math.Inf(-1)
		}
		return
	case e10 < minDecExp:
		zero()
		return
	}
	m, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		panic("mdops: decimalToLimbs: bad digits") // callers pass digits only
	}
	x := new(big.Float)
	if dexp >= 0 {
		m.Mul(m, pow5(dexp))
		m.Lsh(m, uint(dexp))
		x.SetInt(m)
	} else {
		// m/10^k scaled by 2^quoBits is m·2^(quoBits-k)/5^k; it is truncated
		// and an inexact quotient gets a sticky low bit (round to odd).
		k := -dexp
		den := pow5(k)
		s := quoBits
		if s >= k {
			m.Lsh(m, uint(s-k))
		} else {
			den.Lsh(den, uint(k-s))
		}
		r := new(big.Int)
		m.QuoRem(m, den, r)
		if r.Sign() != 0 {
			m.Lsh(m, 1)
			m.SetBit(m, 0, 1)
			s++
		}
		x.SetInt(m)
		x.SetMantExp(x, -s)
	}
	if neg {
		x.Neg(x)
	}
	limbsFromBig(dst, x)
}

// parseError reports malformed N-double text. Why a type: the offset and
// input are useful to callers, and Unwrap lets them test for
// strconv.ErrSyntax or strconv.ErrRange as with strconv.ParseFloat.
type parseError struct {
	typeName string // the N-double type, e.g. "F4"
	input    string
	offset   int    // byte offset of the first bad character
	msg      string // what is wrong at offset
	err      error  // strconv.ErrSyntax or strconv.ErrRange
}

func (e *parseError) Error() string {
	in := e.input
	if len(in) > 80 {
		in = in[:80] + "..." // keep huge (e.g. fuzzed) inputs out of logs
	}
	return fmt.Sprintf("mdops: Parse%s: %s at offset %d in %q", e.typeName, e.msg, e.offset, in)
}

func (e *parseError) Unwrap() error { return e.err }

// parseLimbs parses decimal floating-point text into len(dst) limbs, rounded
// greedily (see limbsFromBig) from the exact decimal value.
//
// Accepted syntax, as strconv.ParseFloat for base 10 without underscores:
// an optional sign, digits with an optional '.', at least one digit, an
// optional exponent 'e' or 'E' with an optional sign and at least one digit;
// or, case-insensitively, "inf" and "infinity" with an optional sign, and
// "nan" without one. Surrounding white space is not trimmed and is an error,
// as in strconv: callers that read fields should trim them. Values too large
// for the type give ±Inf and tiny ones a signed zero, without error; only an
// exponent whose magnitude does not fit in an int is reported (as
// strconv.ErrRange).
//
// Why an offset in the error: N-double literals are long, and pointing at the
// first bad byte ("invalid character 'x' at offset 3") saves the reader from
// counting digits. typeName (e.g. "F4") names the caller in the message. On
// error dst is set to all zeros so that no partial value escapes.
func parseLimbs(dst []float64, s string, typeName string) error {
	clear(dst)
	neg, digits, dexp, special, err := scanDecimal(s)
	if err != nil {
		err.typeName = typeName
		err.input = s
		return err
	}
	if len(dst) == 0 {
		return nil
	}
	switch special {
	case 'n':
		dst[0] = math.NaN()
		return nil
	case 'i':
		dst[0] = math.Inf(1)
		if neg {
			dst[0] = math.Inf(-1)
		}
		return nil
	}
	decimalToLimbs(dst, neg, digits, dexp)
	return nil
}

// scanDecimal splits s into sign, significant digits (no leading or trailing
// zeros, at most maxParseDigits+1 of them) and decimal exponent, or reports
// the first bad byte. special is 'n' for NaN, 'i' for infinity, 0 otherwise.
// Why a hand-written scanner: it must report offsets, and the exponent and
// digit count must be tracked without overflow for arbitrarily long input.
func scanDecimal(s string) (neg bool, digits string, dexp int, special byte, perr *parseError) {
	bad := func(i int) *parseError {
		if i >= len(s) {
			return &parseError{offset: i, msg: "unexpected end of input", err: strconv.ErrSyntax}
		}
		r, _ := utf8.DecodeRuneInString(s[i:])
		return &parseError{offset: i, msg: fmt.Sprintf("invalid character %q", r), err: strconv.ErrSyntax}
	}
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i < len(s) && (s[i] == 'i' || s[i] == 'I') {
		switch n := prefixFold(s[i:], "infinity"); {
		case n == 8:
			i += 8
		case n >= 3:
			i += 3
		default:
			return false, "", 0, 0, bad(i + n)
		}
		special = 'i'
	} else if i < len(s) && (s[i] == 'n' || s[i] == 'N') {
		if i > 0 {
			return false, "", 0, 0, bad(i) // no sign on NaN, as in strconv
		}
		if n := prefixFold(s, "nan"); n < 3 {
			return false, "", 0, 0, bad(n)
		}
		i += 3
		special = 'n'
	}
	if special != 0 {
		if i != len(s) {
			return false, "", 0, 0, bad(i)
		}
		return neg, "", 0, special, nil
	}

	var (
		buf      []byte
		sawDigit bool
		sawDot   bool
		sticky   bool
		adj      int // decimal exponent adjustment from '.' and dropped digits
	)
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if sawDot {
				adj--
			}
			switch {
			case len(buf) == 0 && c == '0':
				// leading zero: not significant
			case len(buf) < maxParseDigits:
				buf = append(buf, c)
			default:
				adj++ // dropped digit: the kept ones are scaled down
				if c != '0' {
					sticky = true
				}
			}
			continue
		case c == '.' && !sawDot:
			sawDot = true
			continue
		}
		break
	}
	if !sawDigit {
		return false, "", 0, 0, bad(i)
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		start := i
		overflow := false
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			dgt := int(s[i] - '0')
			if exp > (math.MaxInt-dgt)/10 {
				overflow = true
			} else if !overflow {
				exp = exp*10 + dgt
			}
		}
		if i == start {
			return false, "", 0, 0, bad(i)
		}
		if overflow {
			return false, "", 0, 0, &parseError{offset: start, msg: "exponent out of range", err: strconv.ErrRange}
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return false, "", 0, 0, bad(i)
	}
	if sticky {
		buf = append(buf, '1')
		adj--
	}
	// Add in int64 and clamp, so that nothing overflows even with 32-bit
	// ints: with at most maxParseDigits+1 digits, any decimal exponent beyond
	// the clamp gives ±Inf or ±0 whatever the digits.
	const expClamp = 1 << 30
	total := max(min(int64(exp)+int64(adj), expClamp), -expClamp)
	digits, dexp = trimZeros(string(buf), int(total))
	if len(digits) == 0 {
		dexp = 0
	}
	return neg, digits, dexp, 0, nil
}

// prefixFold returns the length of the longest common prefix of s and the
// lower-case ASCII word, ignoring ASCII case in s. Why: the special values
// are matched case-insensitively as strconv does, and the length locates the
// first mismatching byte for the error offset.
func prefixFold(s, word string) int {
	n := 0
	for n < len(s) && n < len(word) {
		c := s[n]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != word[n] {
			break
		}
		n++
	}
	return n
}

// cmpLimbs compares the values of x and y, returning -1, 0 or +1.
//
// NaN (any NaN limb) sorts below every other value and equal to itself, and
// -0 equals +0, as for cmp.Compare on float64: this gives a total order that
// sorting and map-like code can rely on.
//
// Why mostly limb by limb: for normalized inputs the tail after limb i is at
// most about half an ulp of limb i, so the first differing limbs decide the
// order unless they are adjacent floats. Only then (for instance {1, 2^-53,
// 2^-106} against {1+2^-52, -(2^-53-2^-106), -2^-300}, where the larger
// leading limb has the smaller value) are the exact sums compared, which is rare and always exact.
// Non-normalized inputs get a meaningful but not necessarily exact order.
func cmpLimbs(x, y []float64) int {
	xn, yn := isNaNLimbs(x), isNaNLimbs(y)
	switch {
	case xn && yn:
		return 0
	case xn:
		return -1
	case yn:
		return 1
	}
	n := max(len(x), len(y))
	for i := 0; i < n; i++ {
		var a, b float64
		if i < len(x) {
			a = x[i]
		}
		if i < len(y) {
			b = y[i]
		}
		if a == b {
			continue
		}
		if math.Nextafter(a, b) != b {
			if a < b {
				return -1
			}
			return 1
		}
		return cmpExact(x[min(i, len(x)):], y[min(i, len(y)):])
	}
	return 0
}

// cmpExact compares the exact sums of x and y (no NaN). Why separate: it is
// the slow path of cmpLimbs, kept out of line so the fast path stays small.
func cmpExact(x, y []float64) int {
	bx, by := limbsToBig(x), limbsToBig(y)
	if bx == nil || by == nil { // infinities of both signs in one operand
		return 0
	}
	return bx.Cmp(by)
}

// isNaNLimbs reports whether any limb of x is NaN. Why any limb: arithmetic
// on non-finite values may leave NaN below a non-NaN leading limb, and such a
// value must still count as NaN.
func isNaNLimbs(x []float64) bool {
	for _, v := range x {
		if v != v {
			return true
		}
	}
	return false
}

// isInfLimbs reports whether x is ±Inf: an infinite leading limb and no NaN.
// Why the NaN check: {Inf, NaN} is NaN, not an infinity.
func isInfLimbs(x []float64) bool {
	return len(x) > 0 && math.IsInf(x[0], 0) && !isNaNLimbs(x)
}
