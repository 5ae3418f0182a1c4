package poly

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
		seriesAt(acc, p.Const, t)
		for j := range p.Terms {
			m := &p.Terms[j]
			seriesAt(&term, m.Coef, t)
			for k, v := range m.Vars {
				ratPow(&pw, &x[v], m.Pows[k])
				term.Mul(&term, &pw)
			}
			acc.Add(acc, &term)
		}
	}
	return out
}

// seriesAt sets z to c(t) (Horner).
func seriesAt(z *Rational, c Series, t *Rational) {
	z.Re.SetInt64(0)
	z.Im.SetInt64(0)
	for k := len(c) - 1; k >= 0; k-- {
		z.Mul(z, t)
		z.Add(z, &c[k])
	}
}

// ratPow sets z = x^p, p >= 0.
func ratPow(z, x *Rational, p int) {
	var b Rational
	b.Set(x)
	z.Re.SetInt64(1)
	z.Im.SetInt64(0)
	for ; p > 0; p >>= 1 {
		if p&1 == 1 {
			z.Mul(z, &b)
		}
		if p > 1 {
			b.Mul(&b, &b)
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
		xs[v] = truncSeries(x[v], d)
	}
	for i := range s.Polys {
		p := &s.Polys[i]
		acc := truncSeries(p.Const, d)
		for j := range p.Terms {
			m := &p.Terms[j]
			term := truncSeries(m.Coef, d)
			for k, v := range m.Vars {
				for range m.Pows[k] {
					term = seriesMul(term, xs[v], d)
				}
			}
			for k := range acc {
				acc[k].Add(&acc[k], &term[k])
			}
		}
		out[i] = acc
	}
	return out
}

// truncSeries returns a fresh copy of c with exactly d+1 coefficients.
func truncSeries(c []Rational, d int) []Rational {
	out := make([]Rational, d+1)
	for k := 0; k <= d && k < len(c); k++ {
		out[k].Set(&c[k])
	}
	return out
}

// seriesMul returns a·b mod t^(d+1) (both of length d+1).
func seriesMul(a, b []Rational, d int) []Rational {
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
			prod.Mul(&a[i], &b[j])
			out[i+j].Add(&out[i+j], &prod)
		}
	}
	return out
}
