package ref

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/mdgen/mdgen/stager/poly"
)

// Complex is a complex number in math/big.Float.
type Complex struct{ Re, Im *big.Float }

// NewtonResult is the outcome of NewtonSeries.
type NewtonResult struct {
	// Series[v][k] is the coefficient of t^k of variable v.
	Series [][]Complex
	// Steps is the number of Newton steps taken.
	Steps int
	// Update is the largest |Δx| coefficient of the last step, relative to
	// the largest coefficient of x.
	Update *big.Float
}

// NewtonSeries computes the Taylor series to degree d of the solution path
// of sys through start (the values of the variables at t = 0), by a plain
// Newton iteration on truncated series in math/big.Float with prec bits: no
// staging, no degree staggering, no Householder QR. At every step it
// evaluates G(x(t), t) and the Jacobian J(x(t), t) directly from the
// monomials, solves the block lower-triangular Toeplitz system
// J(t) Δx(t) = -G(x(t), t) mod t^(d+1) by Gaussian elimination with partial
// pivoting on J(0) (on J(0)^H J(0) and J(0)^H for overdetermined systems,
// which is exact for consistent ones), and adds Δx. It stops when the
// update is below 2^-(prec-16) relative to x, and fails after maxSteps.
//
// It is the independent oracle of the Newton driver: a different
// evaluation, a different factorization, and far more bits.
func NewtonSeries(sys *poly.System, start []Complex, d int, prec uint, maxSteps int) (*NewtonResult, error) {
	n := len(sys.Vars)
	if len(start) != n {
		return nil, fmt.Errorf("ref: start has %d values, the system %d variables", len(start), n)
	}
	if len(sys.Polys) < n {
		return nil, fmt.Errorf("ref: %d equations in %d unknowns", len(sys.Polys), n)
	}
	a := arith{prec: prec, d: d}
	x := make([][]Complex, n)
	for v := range x {
		x[v] = a.zeroSeries()
		x[v][0].Re.Set(start[v].Re)
		x[v][0].Im.Set(start[v].Im)
	}
	tol := new(big.Float).SetMantExp(big.NewFloat(1), -int(prec)+16)
	res := &NewtonResult{}
	for step := 1; step <= maxSteps; step++ {
		g, jac := a.evaluate(sys, x)
		dx, err := a.solveToeplitz(jac, g)
		if err != nil {
			return nil, err
		}
		upd, xmax := a.newFloat(), a.newFloat()
		for v := range x {
			for k := 0; k <= d; k++ {
				a.sub(&x[v][k], x[v][k], dx[v][k]) // b = -G: x -= (J^-1 G)
				m := a.absMax(dx[v][k])
				if m.Cmp(upd) > 0 {
					upd.Set(m)
				}
				m = a.absMax(x[v][k])
				if m.Cmp(xmax) > 0 {
					xmax.Set(m)
				}
			}
		}
		res.Steps = step
		if xmax.Sign() > 0 {
			upd.Quo(upd, xmax)
		}
		res.Update = upd
		if upd.Cmp(tol) <= 0 {
			res.Series = x
			return res, nil
		}
	}
	return nil, fmt.Errorf("ref: no convergence after %d steps (last relative update %.3g)", maxSteps, res.Update)
}

// ErrSingular is returned when J(0) is singular to the working precision.
var ErrSingular = errors.New("ref: singular Jacobian at t = 0")

type arith struct {
	prec uint
	d    int
}

func (a arith) newFloat() *big.Float { return new(big.Float).SetPrec(a.prec) }

func (a arith) zero() Complex { return Complex{a.newFloat(), a.newFloat()} }

func (a arith) zeroSeries() []Complex {
	s := make([]Complex, a.d+1)
	for k := range s {
		s[k] = a.zero()
	}
	return s
}

func (a arith) exact(c poly.Series) []Complex {
	s := a.zeroSeries()
	for k := 0; k < len(c) && k <= a.d; k++ {
		s[k].Re.SetRat(&c[k].Re)
		s[k].Im.SetRat(&c[k].Im)
	}
	return s
}

// mulAdd sets z += x*y.
func (a arith) mulAdd(z *Complex, x, y Complex) {
	t := a.newFloat()
	t.Mul(x.Re, y.Re)
	z.Re.Add(z.Re, t)
	t.Mul(x.Im, y.Im)
	z.Re.Sub(z.Re, t)
	t.Mul(x.Re, y.Im)
	z.Im.Add(z.Im, t)
	t.Mul(x.Im, y.Re)
	z.Im.Add(z.Im, t)
}

func (a arith) sub(z *Complex, x, y Complex) {
	z.Re.Sub(x.Re, y.Re)
	z.Im.Sub(x.Im, y.Im)
}

func (a arith) mul(x, y Complex) Complex {
	z := a.zero()
	a.mulAdd(&z, x, y)
	return z
}

func (a arith) quo(x, y Complex) Complex {
	den := a.newFloat().Mul(y.Re, y.Re)
	den.Add(den, a.newFloat().Mul(y.Im, y.Im))
	conj := Complex{y.Re, a.newFloat().Neg(y.Im)}
	z := a.mul(x, conj)
	z.Re.Quo(z.Re, den)
	z.Im.Quo(z.Im, den)
	return z
}

func (a arith) absMax(x Complex) *big.Float {
	r := a.newFloat().Abs(x.Re)
	i := a.newFloat().Abs(x.Im)
	if i.Cmp(r) > 0 {
		return i
	}
	return r
}

func (a arith) seriesMul(x, y []Complex) []Complex {
	z := a.zeroSeries()
	for k := 0; k <= a.d; k++ {
		for i := 0; i <= k; i++ {
			a.mulAdd(&z[k], x[i], y[k-i])
		}
	}
	return z
}

func (a arith) seriesAddTo(z, x []Complex) {
	for k := range z {
		z[k].Re.Add(z[k].Re, x[k].Re)
		z[k].Im.Add(z[k].Im, x[k].Im)
	}
}

func (a arith) seriesPow(x []Complex, e int) []Complex {
	p := a.zeroSeries()
	p[0].Re.SetInt64(1)
	for ; e > 0; e-- {
		p = a.seriesMul(p, x)
	}
	return p
}

// evaluate returns G(x(t), t)[poly] and J(x(t), t)[poly][var] as series,
// each monomial's derivative formed from scratch (no shared products).
func (a arith) evaluate(sys *poly.System, x [][]Complex) (g [][]Complex, jac [][][]Complex) {
	n := len(x)
	g = make([][]Complex, len(sys.Polys))
	jac = make([][][]Complex, len(sys.Polys))
	for p := range sys.Polys {
		pol := &sys.Polys[p]
		g[p] = a.exact(pol.Const)
		jac[p] = make([][]Complex, n)
		for v := range jac[p] {
			jac[p][v] = a.zeroSeries()
		}
		for _, m := range pol.Terms {
			val := a.exact(m.Coef)
			for j, v := range m.Vars {
				val = a.seriesMul(val, a.seriesPow(x[v], m.Pows[j]))
			}
			a.seriesAddTo(g[p], val)
			for j, v := range m.Vars {
				der := a.exact(m.Coef)
				for i, w := range m.Vars {
					e := m.Pows[i]
					if i == j {
						e--
					}
					der = a.seriesMul(der, a.seriesPow(x[w], e))
				}
				f := Complex{a.newFloat().SetInt64(int64(m.Pows[j])), a.newFloat()}
				for k := range der {
					der[k] = a.mul(der[k], f)
				}
				a.seriesAddTo(jac[p][v], der)
			}
		}
	}
	return g, jac
}

// solveToeplitz solves J(t) Δ(t) = G(t) mod t^(d+1) block by block:
// J0 Δ_k = G_k - sum_{i=1..k} J_i Δ_(k-i).
func (a arith) solveToeplitz(jac [][][]Complex, g [][]Complex) ([][]Complex, error) {
	m, n := len(jac), len(jac[0])
	j0 := make([][]Complex, m)
	for p := range j0 {
		j0[p] = make([]Complex, n)
		for v := range j0[p] {
			j0[p][v] = jac[p][v][0]
		}
	}
	lu, err := a.factor(j0)
	if err != nil {
		return nil, err
	}
	dx := make([][]Complex, n)
	for v := range dx {
		dx[v] = a.zeroSeries()
	}
	for k := 0; k <= a.d; k++ {
		rhs := make([]Complex, m)
		for p := range rhs {
			r := a.zero()
			r.Re.Set(g[p][k].Re)
			r.Im.Set(g[p][k].Im)
			for i := 1; i <= k; i++ {
				for v := 0; v < n; v++ {
					neg := Complex{a.newFloat().Neg(jac[p][v][i].Re), a.newFloat().Neg(jac[p][v][i].Im)}
					a.mulAdd(&r, neg, dx[v][k-i])
				}
			}
			rhs[p] = r
		}
		sol := lu.solve(a, rhs)
		for v := range sol {
			dx[v][k] = sol[v]
		}
	}
	return dx, nil
}

// factored is an LU factorization with partial pivoting of J0 (square) or
// of J0^H J0 (overdetermined; then solve multiplies by J0^H first).
type factored struct {
	j0   [][]Complex // kept for J0^H when overdetermined
	over bool
	lu   [][]Complex
	piv  []int
}

func (a arith) factor(j0 [][]Complex) (*factored, error) {
	m, n := len(j0), len(j0[0])
	f := &factored{j0: j0, over: m > n}
	mat := j0
	if f.over {
		mat = make([][]Complex, n)
		for r := range mat {
			mat[r] = make([]Complex, n)
			for c := range mat[r] {
				s := a.zero()
				for p := 0; p < m; p++ {
					conj := Complex{j0[p][r].Re, a.newFloat().Neg(j0[p][r].Im)}
					a.mulAdd(&s, conj, j0[p][c])
				}
				mat[r][c] = s
			}
		}
	} else {
		cp := make([][]Complex, n)
		for r := range cp {
			cp[r] = make([]Complex, n)
			for c := range cp[r] {
				cp[r][c] = Complex{a.newFloat().Set(mat[r][c].Re), a.newFloat().Set(mat[r][c].Im)}
			}
		}
		mat = cp
	}
	f.piv = make([]int, n)
	for c := 0; c < n; c++ {
		best, bestAbs := c, a.absMax(mat[c][c])
		for r := c + 1; r < n; r++ {
			if v := a.absMax(mat[r][c]); v.Cmp(bestAbs) > 0 {
				best, bestAbs = r, v
			}
		}
		if bestAbs.Sign() == 0 {
			return nil, fmt.Errorf("%w (column %d)", ErrSingular, c+1)
		}
		f.piv[c] = best
		mat[c], mat[best] = mat[best], mat[c]
		for r := c + 1; r < n; r++ {
			l := a.quo(mat[r][c], mat[c][c])
			mat[r][c] = l
			neg := Complex{a.newFloat().Neg(l.Re), a.newFloat().Neg(l.Im)}
			for k := c + 1; k < n; k++ {
				a.mulAdd(&mat[r][k], neg, mat[c][k])
			}
		}
	}
	f.lu = mat
	return f, nil
}

func (f *factored) solve(a arith, rhs []Complex) []Complex {
	n := len(f.lu)
	b := rhs
	if f.over {
		b = make([]Complex, n)
		for r := range b {
			s := a.zero()
			for p := range f.j0 {
				conj := Complex{f.j0[p][r].Re, a.newFloat().Neg(f.j0[p][r].Im)}
				a.mulAdd(&s, conj, rhs[p])
			}
			b[r] = s
		}
	} else {
		b = append([]Complex(nil), rhs...)
	}
	// The factorization swapped whole rows (PA = LU): permute b first.
	for c := 0; c < n; c++ {
		b[c], b[f.piv[c]] = b[f.piv[c]], b[c]
	}
	for c := 0; c < n; c++ {
		for r := c + 1; r < n; r++ {
			neg := Complex{a.newFloat().Neg(f.lu[r][c].Re), a.newFloat().Neg(f.lu[r][c].Im)}
			s := Complex{a.newFloat().Set(b[r].Re), a.newFloat().Set(b[r].Im)}
			a.mulAdd(&s, neg, b[c])
			b[r] = s
		}
	}
	x := make([]Complex, n)
	for r := n - 1; r >= 0; r-- {
		s := Complex{a.newFloat().Set(b[r].Re), a.newFloat().Set(b[r].Im)}
		for c := r + 1; c < n; c++ {
			neg := Complex{a.newFloat().Neg(f.lu[r][c].Re), a.newFloat().Neg(f.lu[r][c].Im)}
			a.mulAdd(&s, neg, x[c])
		}
		x[r] = a.quo(s, f.lu[r][r])
	}
	return x
}
