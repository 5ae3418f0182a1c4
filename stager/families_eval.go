package stager

// EvalAt returns the exact values of the polynomials of s at the point x
// (one coordinate per variable, in the order of s.Vars) and the parameter
// value t (ignored when s has no series coefficients; nil means 0).
func (s *System) EvalAt(x []Rational, t *Rational) []Rational {
	var zero Rational
	if t == nil {
		t = &zero
	}
	out := make([]Rational, len(s.Polys))
	var term, pw Rational
	for i := range s.Polys {
		p := &s.Polys[i]
		acc := &out[i]
		famSeriesAt(acc, p.Const, t)
		for j := range p.Terms {
			m := &p.Terms[j]
			famSeriesAt(&term, m.Coef, t)
			for k, v := range m.Vars {
				famPow(&pw, &x[v], m.Pows[k])
				famMul(&term, &term, &pw)
			}
			famAdd(acc, acc, &term)
		}
	}
	return out
}

// famSeriesAt sets z to c(t) (Horner).
func famSeriesAt(z *Rational, c Series, t *Rational) {
	z.Re.SetInt64(0)
	z.Im.SetInt64(0)
	for k := len(c) - 1; k >= 0; k-- {
		famMul(z, z, t)
		famAdd(z, z, &c[k])
	}
}

// famPow sets z = x^p, p >= 0.
func famPow(z, x *Rational, p int) {
	var b Rational
	famSet(&b, x)
	z.Re.SetInt64(1)
	z.Im.SetInt64(0)
	for ; p > 0; p >>= 1 {
		if p&1 == 1 {
			famMul(z, z, &b)
		}
		if p > 1 {
			famMul(&b, &b, &b)
		}
	}
}

// EvalSeries returns the exact values of the polynomials of s at the power
// series x (x[v][k] is the coefficient of t^k of variable v; missing
// coefficients are zero), truncated at degree d: out[i][k] for k = 0..d.
// The series coefficients of s are powers of its parameter, the same t.
func (s *System) EvalSeries(x [][]Rational, d int) [][]Rational {
	out := make([][]Rational, len(s.Polys))
	xs := make([][]Rational, len(x))
	for v := range x {
		xs[v] = famTruncate(x[v], d)
	}
	for i := range s.Polys {
		p := &s.Polys[i]
		acc := famTruncate(p.Const, d)
		for j := range p.Terms {
			m := &p.Terms[j]
			term := famTruncate(m.Coef, d)
			for k, v := range m.Vars {
				for range m.Pows[k] {
					term = famSeriesMul(term, xs[v], d)
				}
			}
			for k := range acc {
				famAdd(&acc[k], &acc[k], &term[k])
			}
		}
		out[i] = acc
	}
	return out
}

// famTruncate returns a fresh copy of c with exactly d+1 coefficients.
func famTruncate(c []Rational, d int) []Rational {
	out := make([]Rational, d+1)
	for k := 0; k <= d && k < len(c); k++ {
		famSet(&out[k], &c[k])
	}
	return out
}

// famSeriesMul returns a·b mod t^(d+1) (both of length d+1).
func famSeriesMul(a, b []Rational, d int) []Rational {
	out := make([]Rational, d+1)
	var prod Rational
	for i := 0; i <= d; i++ {
		if a[i].IsZero() {
			continue
		}
		for j := 0; i+j <= d; j++ {
			if b[j].IsZero() {
				continue
			}
			famMul(&prod, &a[i], &b[j])
			famAdd(&out[i+j], &out[i+j], &prod)
		}
	}
	return out
}
