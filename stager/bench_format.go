package stager

import (
	"bytes"
	"math/big"
	"strconv"
)

// BenchFormat writes s in PHCpack's plain format: a first line
// `neq nvar` (nvar counting the parameter when s has one), then one
// polynomial per equation, one term per line, each polynomial ended by `;`.
// Coefficients are exact rationals (`-5/7`, complex `(5/7 - 1/3*i)`); a
// series coefficient c_0 + c_1 t + ... is written as one term per power of
// the parameter. Reading the text back with the parameter named gives s
// again.
//
// Temporary: it stands in for the reader's Format until that lands.
func BenchFormat(s *System) []byte {
	var b bytes.Buffer
	param := s.Param
	if param == "" && s.MaxCoefDegree() > 0 {
		param = "t"
	}
	nvar := len(s.Vars)
	if param != "" {
		nvar++
	}
	b.WriteString(strconv.Itoa(len(s.Polys)))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(nvar))
	b.WriteByte('\n')
	for i := range s.Polys {
		p := &s.Polys[i]
		first := true
		term := func(c *Rational, k int, vars, pows []int) {
			b.WriteByte(' ')
			writeCoef(&b, c, first)
			first = false
			if k > 0 {
				b.WriteByte('*')
				b.WriteString(param)
				if k > 1 {
					b.WriteByte('^')
					b.WriteString(strconv.Itoa(k))
				}
			}
			for j, v := range vars {
				b.WriteByte('*')
				b.WriteString(s.Vars[v])
				if pows[j] > 1 {
					b.WriteByte('^')
					b.WriteString(strconv.Itoa(pows[j]))
				}
			}
			b.WriteByte('\n')
		}
		for _, m := range p.Terms {
			for k := range m.Coef {
				if !m.Coef[k].IsZero() {
					term(&m.Coef[k], k, m.Vars, m.Pows)
				}
			}
		}
		for k := range p.Const {
			if !p.Const[k].IsZero() {
				term(&p.Const[k], k, nil, nil)
			}
		}
		if first {
			b.WriteString(" 0\n")
		}
		b.WriteString(";\n")
	}
	return b.Bytes()
}

// writeCoef writes c with its sign as an operator (` + 5/7`, ` - 5/7`,
// ` + (5/7 - 1/3*i)`); the first term of a polynomial omits a leading `+`.
func writeCoef(b *bytes.Buffer, c *Rational, first bool) {
	if c.IsReal() {
		if c.Re.Sign() < 0 {
			b.WriteString("- ")
		} else if !first {
			b.WriteString("+ ")
		}
		var a big.Rat
		a.Abs(&c.Re)
		b.WriteString(a.RatString())
		return
	}
	if !first {
		b.WriteString("+ ")
	}
	b.WriteByte('(')
	if c.Re.Sign() != 0 {
		b.WriteString(c.Re.RatString())
		if c.Im.Sign() < 0 {
			b.WriteString(" - ")
		} else {
			b.WriteString(" + ")
		}
	} else if c.Im.Sign() < 0 {
		b.WriteString("-")
	}
	var a big.Rat
	a.Abs(&c.Im)
	b.WriteString(a.RatString())
	b.WriteString("*i)")
}
