package poly

import (
	"math"
	"math/big"

	"github.com/mdgen/mdgen/mdops/fp"
)

// Scaling is a change of unknowns x_j = 2^Var[j] y_j together with the
// multiplication of equation i by 2^Eq[i]: the scaled system in y has the
// coefficients c 2^(Eq[i] + sum_j a_j Var[j]) for a term c x^a of equation
// i, exactly (powers of two), and the same solutions, y_j = 2^-Var[j] x_j.
// Badly scaled systems (coefficients from 1e-8 to 1e8, solutions of
// magnitude 1e6) make a path tracker's tolerances, which are relative to
// max(1, |x|), and its condition numbers, which are not invariant under
// such changes, misjudge paths; PHCpack offers the same remedy (phc -s).
type Scaling struct {
	Eq, Var []int
}

// scaleMinGain is how many binary orders of magnitude closer to 1 the
// coefficient farthest from 1 must come for FindScaling to scale: a system
// whose coefficients are all within a few orders of magnitude of 1 (every
// family of this repository) is left as it is, bit for bit.
const scaleMinGain = 10

// scaleMaxSpread is the largest spread (binary orders of magnitude) of the
// scaled coefficients for which fitScaling scales (and the distance from 1
// of an equation's largest coefficient beyond which equationScaling
// scales it): a fit that leaves them
// more than 2^26 (about 7e7) apart did not find the system's natural units
// (x^2 - 2y + 1e-10 = 0, whose fit leaves 2^34, pulls its unknowns toward
// units that the other equations' solutions do not have: scaled, its
// paths' unknowns were worse scaled than before), while PHCpack's pb601,
// coefficients from 1 to 1e16, leaves 2^25 and is tracked only scaled.
const scaleMaxSpread = 26

// scaleIters bounds the conjugate gradient iterations of FindScaling: the
// exponents are rounded to integers, so a few digits suffice, and the cost
// stays linear in the size of the system.
const scaleIters = 200

// FindScaling returns the scaling of s that a path tracker should track
// in, and whether there is one: the least-squares fit of fitScaling when
// it is worth using; else, when the largest coefficient of an equation is
// more than 2^scaleMaxSpread away from 1, that equation multiplied by the
// power of two that brings its largest coefficient into [1, 2)
// (equationScaling). The second keeps a homotopy's start system and
// target of one size: (x + y + 1)^50 - 1 has coefficients up to 4e22,
// and with gamma (1 - t) g + t f every path left its start at a speed of
// 1e22 and stopped at t = 0 (the spread of its coefficients, 2^75, is
// beyond any diagonal scaling).
func FindScaling(s *System) (Scaling, bool) {
	if sc, ok := fitScaling(s); ok {
		return sc, true
	}
	return equationScaling(s)
}

// equationScaling is FindScaling's second choice: Eq[i] = -floor(log2 of
// the largest |c| of equation i) for the equations whose largest |c| is
// outside [2^-scaleMaxSpread, 2^scaleMaxSpread] and whose smallest
// coefficient stays well inside the double range so scaled, every other
// exponent 0; no scaling when there is no such equation. The bound is high because the tracker's
// regular ends are judged by the condition number of the scaled Jacobian,
// which a scaled row changes: at 2^10, five systems of PHCpack's demo
// database scaled so (camera1s, cassou, chemequs, des18_3, sendra), and
// chemequs and des18_3 lost regular solutions to singular ones.
func equationScaling(s *System) (Scaling, bool) {
	m, n := len(s.Polys), len(s.Vars)
	if s.Param != "" || m == 0 || n == 0 {
		return Scaling{}, false
	}
	sc := Scaling{Eq: make([]int, m), Var: make([]int, n)}
	scaled := false
	for i := range s.Polys {
		p := &s.Polys[i]
		lo, hi := math.Inf(1), math.Inf(-1)
		see := func(c Series) {
			if len(c) == 0 || c[0].IsZero() {
				return
			}
			e := log2Mag(&c[0])
			lo, hi = min(lo, e), max(hi, e)
		}
		see(p.Const)
		for j := range p.Terms {
			see(p.Terms[j].Coef)
		}
		if math.IsInf(hi, -1) || math.Abs(hi) <= scaleMaxSpread {
			continue
		}
		e := -int(math.Floor(hi))
		if !(math.Abs(lo+float64(e)) < 900) {
			continue // its smallest coefficient would leave the double range
		}
		sc.Eq[i], scaled = e, true
	}
	return sc, scaled
}

// fitScaling returns the scaling that makes the coefficients of s (a
// system without a series parameter) as close to 1 as the least-squares
// fit of their binary logarithms allows (minimize sum over the terms c x^a
// of equation i of (log2|c| + Eq[i] + a . Var)^2, plus a small multiple
// of the sum of the squares of the exponents, which picks the smallest
// scaling where the fit does not decide, e.g. for homogeneous equations),
// rounded to integers; and whether to use it: only when it brings the
// coefficient farthest from 1 at least scaleMinGain binary orders of
// magnitude closer to 1, leaves the scaled coefficients' binary exponents
// at most scaleMaxSpread apart, and keeps every coefficient within the
// double range. The fit is solved by conjugate gradients on its normal
// equations, at most scaleIters products with the sparse matrix of the
// exponents.
func fitScaling(s *System) (Scaling, bool) {
	m, n := len(s.Polys), len(s.Vars)
	if s.Param != "" || m == 0 || n == 0 {
		return Scaling{}, false
	}
	// One row per nonzero coefficient: equation, exponents, -log2|c|.
	type row struct {
		eq         int
		vars, pows []int
		b          float64
	}
	var rows []row
	for i := range s.Polys {
		p := &s.Polys[i]
		add := func(c Series, vars, pows []int) {
			if len(c) == 0 || c[0].IsZero() {
				return
			}
			rows = append(rows, row{i, vars, pows, -log2Mag(&c[0])})
		}
		add(p.Const, nil, nil)
		for j := range p.Terms {
			add(p.Terms[j].Coef, p.Terms[j].Vars, p.Terms[j].Pows)
		}
	}
	before := far(len(rows), func(k int) float64 { return -rows[k].b })
	if before < scaleMinGain {
		return Scaling{}, false
	}
	// z = (Eq, Var); A z = b in the least-squares sense, (A^T A + lambda) z
	// = A^T b by conjugate gradients.
	const lambda = 1e-3
	dim := m + n
	apply := func(z, out []float64) { // out = (A^T A + lambda) z
		for k := range out {
			out[k] = lambda * z[k]
		}
		for _, r := range rows {
			v := z[r.eq]
			for q, j := range r.vars {
				v += float64(float64(r.pows[q]) * z[m+j])
			}
			out[r.eq] += v
			for q, j := range r.vars {
				out[m+j] += float64(float64(r.pows[q]) * v)
			}
		}
	}
	rhs := make([]float64, dim)
	for _, r := range rows {
		rhs[r.eq] += r.b
		for q, j := range r.vars {
			rhs[m+j] += float64(float64(r.pows[q]) * r.b)
		}
	}
	z := make([]float64, dim)
	res := append([]float64(nil), rhs...)
	dir := append([]float64(nil), rhs...)
	az := make([]float64, dim)
	rr := dot(res, res)
	tol := 1e-20 * max(rr, 1)
	for it := 0; it < scaleIters && rr > tol; it++ {
		apply(dir, az)
		alpha := rr / dot(dir, az)
		for k := range z {
			z[k] += float64(alpha * dir[k])
			res[k] -= float64(alpha * az[k])
		}
		next := dot(res, res)
		for k := range dir {
			dir[k] = res[k] + float64(next/rr*dir[k])
		}
		rr = next
	}
	sc := Scaling{Eq: make([]int, m), Var: make([]int, n)}
	for i := range sc.Eq {
		sc.Eq[i] = int(math.Round(z[i]))
	}
	for j := range sc.Var {
		sc.Var[j] = int(math.Round(z[m+j]))
	}
	shift := func(r row) float64 {
		e := float64(sc.Eq[r.eq])
		for q, j := range r.vars {
			e += float64(float64(r.pows[q]) * float64(sc.Var[j]))
		}
		return e
	}
	scaled := func(k int) float64 { return -rows[k].b + shift(rows[k]) }
	after := far(len(rows), scaled)
	for _, r := range rows {
		// The scaled coefficients stay well inside the double range.
		if e := -r.b + shift(r); !(math.Abs(e) < 900) {
			return Scaling{}, false
		}
	}
	if !(after <= before-scaleMinGain && spread(len(rows), scaled) <= scaleMaxSpread) {
		return Scaling{}, false
	}
	return sc, true
}

// Apply returns the scaled system (the same variables, names and source;
// coefficients times 2^(Eq[i] + a . Var), exact).
func (sc Scaling) Apply(s *System) *System {
	out := &System{Vars: s.Vars, Param: s.Param, Source: s.Source, PolyPos: s.PolyPos, Polys: make([]Polynomial, len(s.Polys))}
	for i := range s.Polys {
		p, q := &s.Polys[i], &out.Polys[i]
		q.Const = scaleSeries(p.Const, sc.Eq[i])
		q.Terms = make([]Monomial, len(p.Terms))
		for j, t := range p.Terms {
			e := sc.Eq[i]
			for k, v := range t.Vars {
				e += t.Pows[k] * sc.Var[v]
			}
			q.Terms[j] = Monomial{Coef: scaleSeries(t.Coef, e), Vars: t.Vars, Pows: t.Pows}
		}
	}
	return out
}

// scaleSeries returns c times 2^e.
func scaleSeries(c Series, e int) Series {
	if c == nil {
		return nil
	}
	f := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(abs(e))))
	out := make(Series, len(c))
	for k := range c {
		if e >= 0 {
			out[k].Re.Mul(&c[k].Re, f)
			out[k].Im.Mul(&c[k].Im, f)
		} else {
			out[k].Re.Quo(&c[k].Re, f)
			out[k].Im.Quo(&c[k].Im, f)
		}
	}
	return out
}

func abs(e int) int {
	if e < 0 {
		return -e
	}
	return e
}

// log2Mag is the binary logarithm of |c| (c nonzero, its parts within
// the double range, as Parse ensures).
func log2Mag(c *Rational) float64 {
	re, _ := c.Re.Float64()
	im, _ := c.Im.Float64()
	return fp.Log2(fp.Hypot(re, im))
}

// far is the largest of |f(0)|, ..., |f(k-1)|: how many binary orders of
// magnitude the coefficient farthest from 1 is away from it.
func far(k int, f func(int) float64) float64 {
	m := 0.0
	for i := range k {
		m = max(m, math.Abs(f(i)))
	}
	return m
}

// spread is the largest minus the smallest of f(0), ..., f(k-1) (0 when
// k = 0).
func spread(k int, f func(int) float64) float64 {
	if k == 0 {
		return 0
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range k {
		v := f(i)
		lo, hi = min(lo, v), max(hi, v)
	}
	return hi - lo
}

func dot(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += float64(a[k] * b[k])
	}
	return s
}
