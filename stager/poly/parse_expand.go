package poly

import (
	"encoding/binary"
	"fmt"
	"math/big"
)

// This file holds the exact polynomial arithmetic the system reader uses to
// expand products and powers of sums. While a file is read, every
// identifier (the series parameter included: it is only known at the end)
// is an ordinary variable, numbered in order of first appearance.

// Limits on what one file may ask the reader to compute. They keep a
// malicious or mistyped file (x^99999999, (x+y+z)^5000) from exhausting time
// or memory; every limit is reported as a ParseError at the offending token.
//
// The limits that bound the whole file grow with its size, so that a big
// file of plain terms (10^5 equations, a product of 10^5 variables) is read
// in time and memory linear in its size, while a small file cannot ask for
// more than a fixed amount.
const (
	parseMaxExponent    = 1 << 16 // largest power of one variable in any monomial (and largest exponent literal)
	parseMaxTerms       = 1 << 17 // most terms in one expanded (sub)expression; at least the file's size in bytes
	parseMaxWork        = 1 << 19 // work units (about 1µs each: see workUnits) in one file, plus one per byte
	parseMaxCoefBits    = 1 << 16 // bits in a coefficient's numerator or denominator
	parseMaxSeriesCoefs = 1 << 19 // series coefficients stored in one System (dense, t^0..t^d per monomial), plus one per byte
	parseMaxNesting     = 1000    // nested parentheses
	parseMaxNumberExp   = 10000   // |E| in a literal such as 1.0E-10000 (the digits after the point included)
	parseMaxDigits      = 20000   // significant digits in a literal (2^65536 has 19,729)
	parseMaxErrors      = 10      // errors collected before Parse gives up
)

type xexp struct{ v, p int } // variable index (order of first appearance), power >= 1

type xterm struct {
	exps []xexp // increasing v
	c    Rational
	off  int // offset of the source term that last changed c (for errors)
}

// xpoly is a sum of terms with distinct exponent vectors, in order of first
// appearance. A zero coefficient never creates a term; a term whose
// coefficient cancels to zero keeps its place (so that it comes back there)
// until compact drops it. Small polynomials are searched linearly; idx, a
// map from exponent key to term, is made once they grow past xpolySmall
// terms, so that a token costs no map.
type xpoly struct {
	terms []*xterm
	idx   map[string]int
}

const xpolySmall = 8

func xkey(buf []byte, exps []xexp) []byte {
	buf = buf[:0]
	for _, e := range exps {
		buf = binary.AppendUvarint(buf, uint64(e.v))
		buf = binary.AppendUvarint(buf, uint64(e.p))
	}
	return buf
}

// xconst returns the constant polynomial c (no terms when c is zero).
func xconst(c *Rational, off int) *xpoly {
	p := &xpoly{}
	p.add(nil, c, false, nil, off, 1)
	return p
}

// xvar returns the polynomial x[v].
func xvar(v, off int) *xpoly {
	p := &xpoly{}
	var one Rational
	one.Re.SetInt64(1)
	p.add([]xexp{{v, 1}}, &one, false, nil, off, 1)
	return p
}

func expsEqual(a, b []xexp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// find returns the index of the term with exponents exps.
func (p *xpoly) find(exps []xexp, buf *[]byte) (int, bool) {
	if p.idx == nil {
		for i, t := range p.terms {
			if expsEqual(t.exps, exps) {
				return i, true
			}
		}
		return -1, false
	}
	var kb []byte
	if buf != nil {
		*buf = xkey(*buf, exps)
		kb = *buf
	} else {
		kb = xkey(nil, exps)
	}
	i, ok := p.idx[string(kb)]
	return i, ok
}

// index makes idx once p has more than xpolySmall terms.
func (p *xpoly) index(buf *[]byte) {
	if p.idx != nil || len(p.terms) <= xpolySmall {
		return
	}
	p.idx = make(map[string]int, 2*len(p.terms))
	var b []byte
	if buf == nil {
		buf = &b
	}
	for i, t := range p.terms {
		*buf = xkey(*buf, t.exps)
		p.idx[string(*buf)] = i
	}
}

// add adds ±c·x^exps to p, copying c and exps; off is the source offset
// charged with the change. It reports whether c was added to an existing
// term (an exact sum, which costs work) and false in ok when a new term
// would exceed limit terms.
func (p *xpoly) add(exps []xexp, c *Rational, neg bool, buf *[]byte, off, limit int) (merged, ok bool) {
	if c.IsZero() {
		return false, true
	}
	if i, ok := p.find(exps, buf); ok {
		t := p.terms[i]
		if neg {
			t.c.Re.Sub(&t.c.Re, &c.Re)
			t.c.Im.Sub(&t.c.Im, &c.Im)
		} else {
			t.c.Re.Add(&t.c.Re, &c.Re)
			t.c.Im.Add(&t.c.Im, &c.Im)
		}
		t.off = off
		return true, true
	}
	if len(p.terms) >= limit {
		return false, false
	}
	t := &xterm{exps: append([]xexp(nil), exps...), off: off}
	if neg {
		t.c.Re.Neg(&c.Re)
		t.c.Im.Neg(&c.Im)
	} else {
		t.c.Re.Set(&c.Re)
		t.c.Im.Set(&c.Im)
	}
	p.terms = append(p.terms, t)
	if p.idx != nil {
		var b []byte
		if buf == nil {
			buf = &b
		}
		*buf = xkey(*buf, exps)
		p.idx[string(*buf)] = len(p.terms) - 1
	} else {
		p.index(buf)
	}
	return false, true
}

// compact drops the terms whose coefficients cancelled.
func (p *xpoly) compact() {
	n := 0
	for _, t := range p.terms {
		if !t.c.IsZero() {
			p.terms[n] = t
			n++
		}
	}
	if n == len(p.terms) {
		return
	}
	clear(p.terms[n:])
	p.terms = p.terms[:n]
	p.idx = nil
	p.index(nil)
}

func (p *xpoly) negate() {
	for _, t := range p.terms {
		t.c.Re.Neg(&t.c.Re)
		t.c.Im.Neg(&t.c.Im)
	}
}

func (x *parseExpander) errTooManyTerms() string {
	return fmt.Sprintf("expansion too large: more than %d terms", x.maxTerms)
}

// addPoly sets p = p ± q.
func (x *parseExpander) addPoly(p, q *xpoly, neg bool) string {
	var buf []byte
	for _, t := range q.terms {
		merged, ok := p.add(t.exps, &t.c, neg, &buf, x.off, x.maxTerms)
		if !ok {
			return x.errTooManyTerms()
		}
		if merged && !x.charge(sumUnits(&t.c)) {
			return x.errWork()
		}
	}
	return ""
}

// parseRatBits is the largest bit length of the numerators and denominators of r.
func parseRatBits(r *Rational) int {
	b := r.Re.Num().BitLen()
	b = max(b, r.Re.Denom().BitLen())
	b = max(b, r.Im.Num().BitLen())
	b = max(b, r.Im.Denom().BitLen())
	return b
}

func parseErrCoefTooLarge() string {
	return fmt.Sprintf("coefficient too large (more than %d bits)", parseMaxCoefBits)
}

func parseErrExponentTooLarge() string {
	return fmt.Sprintf("exponent too large (at most %d)", parseMaxExponent)
}

// parseRatMul sets z = a·b; z must not alias a or b.
func parseRatMul(z, a, b *Rational) {
	if a.IsReal() && b.IsReal() {
		z.Re.Mul(&a.Re, &b.Re)
		z.Im.SetInt64(0)
		return
	}
	var t big.Rat
	z.Re.Mul(&a.Re, &b.Re)
	t.Mul(&a.Im, &b.Im)
	z.Re.Sub(&z.Re, &t)
	z.Im.Mul(&a.Re, &b.Im)
	t.Mul(&a.Im, &b.Re)
	z.Im.Add(&z.Im, &t)
}

// parseExpander multiplies and raises to powers within the work limit.
type parseExpander struct {
	work     int64
	budget   int64 // work allowed: parseMaxWork plus one unit per byte of the file
	maxTerms int   // terms allowed in one expanded (sub)expression
	off      int   // offset of the source term being read, charged with new coefficients
}

func newParseExpander(size int) parseExpander {
	return parseExpander{budget: parseMaxWork + int64(size), maxTerms: max(parseMaxTerms, size)}
}

func (x *parseExpander) charge(units int64) bool {
	x.work += units
	return x.work <= x.budget
}

// Work units. big.Rat normalizes every result by a gcd, so a product or a
// sum of b-bit rationals costs about (b/256)^2 units of about 1µs (measured:
// 1.3µs at 64 bits, 23µs at 1024, 0.54ms at 8192, 0.77s at 262144).
func workUnits(bitsA, bitsB int) int64 { return 1 + int64(bitsA)*int64(bitsB)>>16 }

func productUnits(a, b *Rational) int64 { return workUnits(parseRatBits(a), parseRatBits(b)) }

// sumUnits is charged for adding c into an existing term; the sum is about
// as large as c when it matters.
func sumUnits(c *Rational) int64 { b := parseRatBits(c); return workUnits(b, b) }

func (x *parseExpander) errWork() string {
	return fmt.Sprintf("expansion too large: more than %d units of work", x.budget)
}

// mergeUnits is the work of merging two exponent vectors.
func mergeUnits(a, b []xexp) int64 { return int64(len(a)+len(b)) / 8 }

// xmergeExps sets dst to the product of the monomials a and b.
func xmergeExps(dst, a, b []xexp) ([]xexp, bool) {
	dst = dst[:0]
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].v < b[j].v:
			dst = append(dst, a[i])
			i++
		case i == len(a) || b[j].v < a[i].v:
			dst = append(dst, b[j])
			j++
		default:
			p := a[i].p + b[j].p
			if p > parseMaxExponent {
				return dst, false
			}
			dst = append(dst, xexp{a[i].v, p})
			i++
			j++
		}
	}
	return dst, true
}

// mul returns a·b.
func (x *parseExpander) mul(a, b *xpoly) (*xpoly, string) {
	a.compact()
	b.compact()
	r := &xpoly{}
	var exps []xexp
	var buf []byte
	var c Rational
	for _, s := range a.terms {
		for _, t := range b.terms {
			var ok bool
			exps, ok = xmergeExps(exps, s.exps, t.exps)
			if !ok {
				return nil, parseErrExponentTooLarge()
			}
			if !x.charge(productUnits(&s.c, &t.c) + mergeUnits(s.exps, t.exps)) {
				return nil, x.errWork()
			}
			parseRatMul(&c, &s.c, &t.c)
			if parseRatBits(&c) > parseMaxCoefBits {
				return nil, parseErrCoefTooLarge()
			}
			merged, ok := r.add(exps, &c, false, &buf, x.off, x.maxTerms)
			if !ok {
				return nil, x.errTooManyTerms()
			}
			if merged && !x.charge(sumUnits(&c)) {
				return nil, x.errWork()
			}
		}
	}
	return r, ""
}

// mulMono multiplies every term of p, zero coefficients included (so that
// they keep their places), by the monomial c·x^exps in place. Multiplying
// by a monomial maps distinct exponent vectors to distinct ones, so no
// terms merge.
func (x *parseExpander) mulMono(p *xpoly, c *Rational, exps []xexp) string {
	var merged []xexp
	var tmp Rational
	for _, t := range p.terms {
		var ok bool
		merged, ok = xmergeExps(merged, t.exps, exps)
		if !ok {
			return parseErrExponentTooLarge()
		}
		if !x.charge(productUnits(&t.c, c) + mergeUnits(t.exps, exps)) {
			return x.errWork()
		}
		parseRatMul(&tmp, &t.c, c)
		if parseRatBits(&tmp) > parseMaxCoefBits {
			return parseErrCoefTooLarge()
		}
		t.exps = append(t.exps[:0:0], merged...)
		t.c.Re.Set(&tmp.Re)
		t.c.Im.Set(&tmp.Im)
		t.off = x.off
	}
	p.idx = nil
	p.index(nil)
	return ""
}

// scale multiplies p by the real rational q in place.
func (x *parseExpander) scale(p *xpoly, q *big.Rat) string {
	var qc Rational
	qc.Re.Set(q)
	for _, t := range p.terms {
		if !x.charge(2 * productUnits(&t.c, &qc)) {
			return x.errWork()
		}
		t.c.Re.Mul(&t.c.Re, q)
		t.c.Im.Mul(&t.c.Im, q)
		t.off = x.off
		if parseRatBits(&t.c) > parseMaxCoefBits {
			return parseErrCoefTooLarge()
		}
	}
	return ""
}

// pow returns a^k for 0 <= k <= parseMaxExponent (a^0 = 1, also for a = 0).
func (x *parseExpander) pow(a *xpoly, k int) (*xpoly, string) {
	a.compact()
	var one Rational
	one.Re.SetInt64(1)
	switch {
	case k == 0:
		return xconst(&one, x.off), ""
	case k == 1 || len(a.terms) == 0:
		return a, ""
	case len(a.terms) == 1:
		t := a.terms[0]
		exps := make([]xexp, len(t.exps))
		for i, e := range t.exps {
			if int64(e.p)*int64(k) > parseMaxExponent {
				return nil, parseErrExponentTooLarge()
			}
			exps[i] = xexp{e.v, e.p * k}
		}
		// c^k has at least (bits-1)·k bits.
		if int64(parseRatBits(&t.c)-1)*int64(k) > parseMaxCoefBits {
			return nil, parseErrCoefTooLarge()
		}
		c, msg := x.ratPow(&t.c, k)
		if msg != "" {
			return nil, msg
		}
		r := &xpoly{}
		r.add(exps, c, false, nil, x.off, 1)
		return r, ""
	}
	r := a
	for j := 2; j <= k; j++ {
		var msg string
		if r, msg = x.mul(r, a); msg != "" {
			return nil, msg
		}
	}
	return r, ""
}

// ratPow returns c^k for k >= 1 by repeated squaring.
func (x *parseExpander) ratPow(c *Rational, k int) (*Rational, string) {
	r := new(Rational)
	if c.IsReal() {
		// c^k has about (bits-1)·k+1 to bits·k bits (at most 2× the
		// estimate, which pow keeps under parseMaxCoefBits).
		est := (parseRatBits(c)-1)*k + 1
		if !x.charge(8 * workUnits(est, est)) {
			return nil, x.errWork()
		}
		var n, d big.Int
		e := big.NewInt(int64(k))
		n.Exp(c.Re.Num(), e, nil)
		d.Exp(c.Re.Denom(), e, nil)
		r.Re.SetFrac(&n, &d)
		if parseRatBits(r) > parseMaxCoefBits {
			return nil, parseErrCoefTooLarge()
		}
		return r, ""
	}
	r.Re.SetInt64(1)
	var b, tmp Rational
	b.Re.Set(&c.Re)
	b.Im.Set(&c.Im)
	for k > 0 {
		if !x.charge(4 * (productUnits(r, &b) + productUnits(&b, &b))) {
			return nil, x.errWork()
		}
		if k&1 == 1 {
			parseRatMul(&tmp, r, &b)
			r.Re.Set(&tmp.Re)
			r.Im.Set(&tmp.Im)
			if parseRatBits(r) > parseMaxCoefBits {
				return nil, parseErrCoefTooLarge()
			}
		}
		k >>= 1
		if k > 0 {
			parseRatMul(&tmp, &b, &b)
			b.Re.Set(&tmp.Re)
			b.Im.Set(&tmp.Im)
			if parseRatBits(&b) > parseMaxCoefBits {
				return nil, parseErrCoefTooLarge()
			}
		}
	}
	return r, ""
}
