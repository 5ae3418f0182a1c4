package poly

import (
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// Rational is an exact complex rational number Re + Im·i, as read from a
// system file. Coefficients stay exact until an executor rounds them once to
// its working precision, so that 1/3 and 0.1 are right to the last limb.
type Rational struct {
	Re, Im big.Rat
}

// IsZero reports whether r is 0.
func (r *Rational) IsZero() bool { return r.Re.Sign() == 0 && r.Im.Sign() == 0 }

// IsReal reports whether r has no imaginary part.
func (r *Rational) IsReal() bool { return r.Im.Sign() == 0 }

// Set sets z = x.
func (z *Rational) Set(x *Rational) {
	z.Re.Set(&x.Re)
	z.Im.Set(&x.Im)
}

// Add sets z = a + b (z may be a or b).
func (z *Rational) Add(a, b *Rational) {
	z.Re.Add(&a.Re, &b.Re)
	z.Im.Add(&a.Im, &b.Im)
}

// Mul sets z = a·b (z may be a or b).
func (z *Rational) Mul(a, b *Rational) {
	if a.IsReal() && b.IsReal() {
		z.Re.Mul(&a.Re, &b.Re)
		z.Im.SetInt64(0)
		return
	}
	var re, im, u big.Rat
	re.Mul(&a.Re, &b.Re)
	u.Mul(&a.Im, &b.Im)
	re.Sub(&re, &u)
	im.Mul(&a.Re, &b.Im)
	u.Mul(&a.Im, &b.Re)
	im.Add(&im, &u)
	z.Re.Set(&re)
	z.Im.Set(&im)
}

// Series is a polynomial in the series parameter: Series[k] is the
// coefficient of t^k. A system without a parameter has series of length 1.
// Trailing zero coefficients are trimmed; the zero series has length 0.
type Series []Rational

// Trim drops trailing zero coefficients, as Series keeps them: nil for the
// zero series.
func (s Series) Trim() Series {
	n := len(s)
	for n > 0 && s[n-1].IsZero() {
		n--
	}
	if n == 0 {
		return nil
	}
	return s[:n]
}

// Monomial is one term Coef(t) · x[Vars[0]]^Pows[0] ··· x[Vars[m-1]]^Pows[m-1]
// of a polynomial. Vars are strictly increasing variable indices into
// System.Vars and every Pows[k] >= 1; a monomial with no variables is a
// constant term.
type Monomial struct {
	Coef Series
	Vars []int
	Pows []int
}

// Polynomial is a sum of monomials with distinct exponent vectors (like
// terms are combined when parsed), listed in the order of their first
// appearance in the file. Const is the constant term (a monomial with no
// variables), kept apart because it is never a convolution input.
type Polynomial struct {
	Const Series
	Terms []Monomial
}

// Degree returns the total degree of p in the unknowns (the largest sum of
// the exponents of a term with a nonzero coefficient; 0 for a constant):
// the number of paths p contributes to a total-degree homotopy.
func (p *Polynomial) Degree() int {
	d := 0
	for j := range p.Terms {
		if len(p.Terms[j].Coef) == 0 {
			continue
		}
		e := 0
		for _, pw := range p.Terms[j].Pows {
			e += pw
		}
		d = max(d, e)
	}
	return d
}

// System is a polynomial system in the variables Vars (the series parameter
// excluded). Every polynomial shares the input series z, one per variable.
type System struct {
	Vars  []string     // variable names, in order of first appearance
	Param string       // name of the series parameter; "" when there is none
	Polys []Polynomial // one per equation
	// Source is the file name used in error messages; "" for generated systems.
	Source string
	// PolyPos is where each polynomial begins in Source (its first
	// token), so that a message about an equation can point at it
	// (PolyError); nil for generated systems.
	PolyPos []Pos
	// Warnings are what Parse accepted but a user should hear about,
	// positioned like errors (Error() gives "file:line:col: text"); nil
	// for generated systems and for most files. Commands print them to
	// standard error. For now: a variable t read as an ordinary variable
	// by PHCpack's convention in a system that is not square with it (it
	// looks like a series parameter), and a SERIES PARAMETER line that
	// ParseOptions.Param overrides.
	Warnings []*ParseError
}

// MaxCoefDegree returns the largest power of the parameter in any
// coefficient (0 when there is no parameter).
func (s *System) MaxCoefDegree() int {
	d := 0
	for i := range s.Polys {
		p := &s.Polys[i]
		if len(p.Const)-1 > d {
			d = len(p.Const) - 1
		}
		for j := range p.Terms {
			if len(p.Terms[j].Coef)-1 > d {
				d = len(p.Terms[j].Coef) - 1
			}
		}
	}
	return d
}

// Pos is a 1-based line and column of a system file.
type Pos struct{ Line, Col int }

// PolyError returns reason as an error about polynomial i (0-based): a
// *ParseError at the polynomial's first token ("file:line:col: reason")
// when the system was read from a file, else reason alone. The reason
// names the polynomial itself.
func (s *System) PolyError(i int, reason string) error {
	if s.Source != "" && i >= 0 && i < len(s.PolyPos) && len(s.PolyPos) == len(s.Polys) {
		return &ParseError{File: s.Source, Line: s.PolyPos[i].Line, Col: s.PolyPos[i].Col, Reason: reason}
	}
	return errors.New(reason)
}

// CheckDoubleRange returns an error naming the first coefficient of s
// that does not round to a finite, normal double (Rational.DoubleRange):
// Parse refuses such a coefficient, so a generated system that has one
// would be written and then refused by every reader.
func (s *System) CheckDoubleRange() error {
	check := func(k int, what string, c Series) error {
		for d := range c {
			if msg := c[d].DoubleRange(); msg != "" {
				return fmt.Errorf("coefficient %s of %s in polynomial %d %s", c[d].Text(), what, k+1, msg)
			}
		}
		return nil
	}
	for k := range s.Polys {
		p := &s.Polys[k]
		if err := check(k, "the constant term", p.Const); err != nil {
			return err
		}
		for j := range p.Terms {
			if err := check(k, fmt.Sprintf("term %d", j+1), p.Terms[j].Coef); err != nil {
				return err
			}
		}
	}
	return nil
}

// ParseNumber reads a rational number as a system file writes one: an
// optional sign, a decimal literal (12, 0.5, 1e-3) and optionally '/' and
// another (33/64), with the limits of Parse on digits and exponents, and
// the value, not each literal, in the range of a double.
func ParseNumber(text string) (*big.Rat, error) {
	s := strings.TrimSpace(text)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	num, den, slash := strings.Cut(s, "/")
	v, err := literal(num)
	if err == nil && slash {
		var q *big.Rat
		if q, err = literal(den); err == nil && q.Sign() == 0 {
			err = fmt.Errorf("division by zero")
		}
		if err == nil {
			v.Quo(v, q)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%q is not a rational number: %v", text, err)
	}
	if neg {
		v.Neg(v)
	}
	if msg := doubleRange(v); msg != "" {
		return nil, fmt.Errorf("%s %s", text, msg)
	}
	return v, nil
}

// literal reads one unsigned decimal literal, all of text.
func literal(text string) (*big.Rat, error) {
	lx := sysLexer{src: []byte(text)}
	tok := lx.next()
	if tok.kind != tkNum || tok.end != len(text) {
		return nil, fmt.Errorf("%q is not a decimal number", text)
	}
	v, msg := parseNumberValue(tok.text)
	if msg != "" {
		return nil, errors.New(msg)
	}
	return v, nil
}
