package poly

import (
	"bufio"
	"bytes"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// Format writes s in PHCpack's plain format, exactly, so that
//
//	Parse(name, Format(s), ParseOptions{})
//
// gives s back (Source and Warnings aside), with no options: the file says
// which variable is the series parameter. The first line is `neq nvar`
// (nvar counts the parameter); every polynomial ends with ';' and wraps
// before an operator after about 78 columns.
//
// The parameter. By PHCpack's convention it is the extra variable t of a
// system with one more variable than equations, and there is none with any
// other count. When that convention would read the file differently from s
// (p2 is one equation in 128 variables and t; a parameter named s; or a
// variable named t, no parameter and one more variable than equations),
// Format writes one line after the last polynomial, in the trailing text
// that PHCpack ignores and Parse reads:
//
//	SERIES PARAMETER : t
//	NO SERIES PARAMETER
//
// Coefficients are integers or rationals p/q, complex
// ones (a + b*i); a series coefficient c0 + c1*t + ... is written as one
// parenthesized factor, (c0 + c1*t + c2*t^2)*x*y, or as c*t^k*x*y when it has
// one term. Monomials come in their order, the constant last.
//
// PHCpack numbers variables by first appearance; when the terms alone would
// not show the variables in the order of s.Vars (or would not show the
// parameter), the first polynomial starts with a zero term that lists them:
// 0*x*y*z*t + ... . A system with series coefficients but no Param is
// written with the parameter t (t0, t1, ... if t is a variable), which a
// reader then names.
//
// s must satisfy the System invariants (valid distinct identifiers, Vars
// indices in range); Format does not check them.
func Format(s *System) []byte {
	var b bytes.Buffer
	WriteTo(&b, s, nil) // a bytes.Buffer does not fail
	return b.Bytes()
}

// WriteTo writes Format(s) to w as it goes, without the whole text in
// memory (a system of 400 MB took gigabytes as one []byte), and calls
// progress, when not nil, after each polynomial with the polynomials
// written and their count.
func WriteTo(w io.Writer, s *System, progress func(done, total int)) error {
	return write(w, s, 0, progress)
}

// WriteDecimalTo writes FormatDecimal(s, digits) to w as WriteTo does.
func WriteDecimalTo(w io.Writer, s *System, digits int, progress func(done, total int)) error {
	return write(w, s, max(digits, 1), progress)
}

// write writes s to w, its coefficients exact (digits = 0) or as
// FormatDecimal's decimals of digits significant digits.
func write(w io.Writer, s *System, digits int, progress func(done, total int)) error {
	f := sysFormatter{s: s, param: s.Param, digits: digits, b: bufio.NewWriterSize(w, 1<<16), progress: progress}
	if f.param == "" && s.MaxCoefDegree() > 0 {
		f.param = "t"
		for k := 0; slices.Contains(s.Vars, f.param); k++ {
			f.param = "t" + strconv.Itoa(k)
		}
	}
	f.format()
	return f.b.Flush()
}

// FormatDecimal is Format with the coefficients that PHCpack would misread
// written as decimals of digits significant digits (rounded to nearest):
// phc 2.4.86 reads an integer of more than about 18 digits wrongly in
// double precision (123456789012345678901234567 as 1.23456789012346E+17),
// and so a rational p/q with such a p or q. An integer of at most
// decimalIntDigits digits stays an integer; every other number becomes
// d.ddd...E+XX with trailing zeros dropped (exact when its decimal
// expansion has at most digits digits, such as 11/10 = 1.1E+00). With
// digits = 65 (mdgen system -decimal) the file holds every digit of
// PHCpack's quad double, its highest precision. Parse reads the decimals
// back exactly, so the system read is s rounded to that many digits.
func FormatDecimal(s *System, digits int) []byte {
	var b bytes.Buffer
	WriteDecimalTo(&b, s, digits, nil) // a bytes.Buffer does not fail
	return b.Bytes()
}

// decimalIntDigits is the most digits of an integer coefficient that
// FormatDecimal keeps as an integer: exact in a double, so that PHCpack
// reads it right in every precision.
const decimalIntDigits = 15

// numberText writes r >= 0 exactly (digits = 0: an integer or p/q) or as
// FormatDecimal's decimal.
func numberText(r *big.Rat, digits int) string {
	if digits == 0 || r.IsInt() && len(r.Num().String()) <= decimalIntDigits {
		return r.RatString()
	}
	if r.Sign() == 0 {
		return "0"
	}
	text := new(big.Float).SetPrec(uint(4*digits+64)).SetRat(r).Text('E', digits-1)
	mant, exp, _ := strings.Cut(text, "E")
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	return mant + "E" + exp
}

// String returns Format(s).
func (s *System) String() string { return string(Format(s)) }

type sysFormatter struct {
	s        *System
	param    string
	digits   int           // significant digits of a decimal coefficient; 0: exact
	b        *bufio.Writer // its error, if any, is the one Flush returns
	col      int
	progress func(done, total int)
}

const formatWidth = 78

// put writes sep and text, moving to a new line first (and dropping the
// blanks of sep) when the line would grow past formatWidth.
func (f *sysFormatter) put(sep, text string) {
	if f.col > 1 && f.col+len(sep)+len(text) > formatWidth {
		f.b.WriteString("\n ")
		f.col = 1
		sep = strings.TrimLeft(sep, " ")
	}
	f.b.WriteString(sep)
	f.b.WriteString(text)
	f.col += len(sep) + len(text)
}

func (f *sysFormatter) format() {
	s := f.s
	nvar := len(s.Vars)
	if f.param != "" {
		nvar++
	}
	f.b.WriteString(strconv.Itoa(len(s.Polys)))
	f.b.WriteByte(' ')
	f.b.WriteString(strconv.Itoa(nvar))
	f.b.WriteByte('\n')
	prefix := f.needsPrefix()
	for i := range s.Polys {
		p := &s.Polys[i]
		f.col = 0
		first := true
		if i == 0 && prefix {
			f.put("", "0")
			for _, v := range s.Vars {
				f.put("*", v)
			}
			if f.param != "" {
				f.put("*", f.param)
			}
			first = false
		}
		for j := range p.Terms {
			m := &p.Terms[j]
			var vars []string
			for k, v := range m.Vars {
				vars = append(vars, powString(s.Vars[v], m.Pows[k]))
			}
			if f.term(m.Coef, vars, first) {
				first = false
			}
		}
		if f.term(p.Const, nil, first) {
			first = false
		}
		if first {
			f.put("", "0")
		}
		f.b.WriteString(";\n")
		if f.progress != nil {
			f.progress(i+1, len(s.Polys))
		}
	}
	// Would PHCpack's convention find the parameter that s has? With one
	// more variable than equations it takes t, and refuses a file without
	// a t; with other counts there is none.
	conv := ""
	if nvar == len(s.Polys)+1 {
		conv = "(refused)"
		if slices.Contains(s.Vars, "t") || f.param == "t" {
			conv = "t"
		}
	}
	switch {
	case conv == f.param:
	case f.param != "":
		f.b.WriteString("\nSERIES PARAMETER : " + f.param + "\n")
	default:
		f.b.WriteString("\nNO SERIES PARAMETER\n")
	}
}

func powString(name string, p int) string {
	if p == 1 {
		return name
	}
	return name + "^" + strconv.Itoa(p)
}

// term writes the monomial c·vars with its sign as the operator; it reports
// false (writing nothing) when c is zero.
func (f *sysFormatter) term(c Series, vars []string, first bool) bool {
	nz, last := 0, -1
	for k := range c {
		if !c[k].IsZero() {
			nz++
			last = k
		}
	}
	var neg bool
	var factors []string
	switch nz {
	case 0:
		return false
	case 1:
		rest := vars
		if last > 0 {
			rest = append([]string{powString(f.param, last)}, vars...)
		}
		neg, factors = coefFactors(&c[last], rest, f.digits)
	default:
		var sum strings.Builder
		sum.WriteByte('(')
		firstIn := true
		for k := range c {
			if c[k].IsZero() {
				continue
			}
			var rest []string
			if k > 0 {
				rest = []string{powString(f.param, k)}
			}
			n, fs := coefFactors(&c[k], rest, f.digits)
			switch {
			case firstIn && n:
				sum.WriteByte('-')
			case n:
				sum.WriteString(" - ")
			case !firstIn:
				sum.WriteString(" + ")
			}
			sum.WriteString(strings.Join(fs, "*"))
			firstIn = false
		}
		sum.WriteByte(')')
		factors = append([]string{sum.String()}, vars...)
	}
	switch {
	case first && neg:
		f.put("", "-"+factors[0])
	case first:
		f.put("", factors[0])
	case neg:
		f.put(" - ", factors[0])
	default:
		f.put(" + ", factors[0])
	}
	for _, x := range factors[1:] {
		f.put("*", x)
	}
	return true
}

// coefFactors splits c·rest into a sign and factors: 3/4*x, i*x, 2*i,
// (1/2 - 3*i)*x; a unit coefficient is left out unless rest is empty.
// Numbers are exact (digits = 0) or decimals (numberText).
func coefFactors(c *Rational, rest []string, digits int) (neg bool, factors []string) {
	var a big.Rat
	switch {
	case c.IsReal():
		neg = c.Re.Sign() < 0
		a.Abs(&c.Re)
		if !isOne(&a) || len(rest) == 0 {
			factors = append(factors, numberText(&a, digits))
		}
	case c.Re.Sign() == 0:
		neg = c.Im.Sign() < 0
		a.Abs(&c.Im)
		if !isOne(&a) {
			factors = append(factors, numberText(&a, digits))
		}
		factors = append(factors, "i")
	default:
		var b strings.Builder
		b.WriteByte('(')
		b.WriteString(numberText(&c.Re, digits))
		if c.Im.Sign() < 0 {
			b.WriteString(" - ")
		} else {
			b.WriteString(" + ")
		}
		a.Abs(&c.Im)
		if !isOne(&a) {
			b.WriteString(numberText(&a, digits))
			b.WriteByte('*')
		}
		b.WriteString("i)")
		factors = append(factors, b.String())
	}
	return neg, append(factors, rest...)
}

func isOne(r *big.Rat) bool { return r.IsInt() && r.Num().IsInt64() && r.Num().Int64() == 1 }

// needsPrefix reports whether the terms, as Format writes them, would miss
// a variable, show the variables out of the order of s.Vars, or miss the
// parameter.
func (f *sysFormatter) needsPrefix() bool {
	s := f.s
	seen := make([]bool, len(s.Vars))
	next := 0 // the variable that must appear next
	paramSeen := f.param == ""
	hasParam := func(c Series) bool {
		for k := 1; k < len(c); k++ {
			if !c[k].IsZero() {
				return true
			}
		}
		return false
	}
	for i := range s.Polys {
		p := &s.Polys[i]
		for j := range p.Terms {
			m := &p.Terms[j]
			nz := false
			for k := range m.Coef {
				if !m.Coef[k].IsZero() {
					nz = true
					break
				}
			}
			if !nz {
				continue
			}
			if hasParam(m.Coef) {
				paramSeen = true
			}
			for _, v := range m.Vars {
				if v < 0 || v >= len(seen) {
					return true
				}
				if seen[v] {
					continue
				}
				if v != next {
					return true
				}
				seen[v] = true
				next++
			}
		}
		if hasParam(p.Const) {
			paramSeen = true
		}
	}
	return next != len(s.Vars) || !paramSeen
}
