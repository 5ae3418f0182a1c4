package runtime

import (
	"math"
	"math/big"

	"github.com/mdgen/mdgen/mdops/alg"
	"github.com/mdgen/mdgen/stager"
)

// BigSeries is a truncated series with math/big coefficients: Re[k] (and
// Im[k] for complex data; Im is nil for real data).
type BigSeries struct {
	Re, Im []*big.Float
}

// Reference is a direct evaluation of a system and its Jacobian at series
// inputs in math/big.Float, without staging: the oracle of the executors.
// Mag holds, for each output, the same evaluation with every coefficient and
// input replaced by its absolute value (|re| + |im| for complex numbers): the
// sum of the magnitudes of the terms, against which errors are measured.
type Reference struct {
	Value, ValueMag []BigSeries   // [poly]
	Deriv, DerivMag [][]BigSeries // [poly][var]
}

type bigArith struct {
	prec    uint
	degree  int
	complex bool
}

func (a *bigArith) newFloat() *big.Float { return new(big.Float).SetPrec(a.prec) }

func (a *bigArith) zero() BigSeries {
	s := BigSeries{Re: make([]*big.Float, a.degree+1)}
	for k := range s.Re {
		s.Re[k] = a.newFloat()
	}
	if a.complex {
		s.Im = make([]*big.Float, a.degree+1)
		for k := range s.Im {
			s.Im[k] = a.newFloat()
		}
	}
	return s
}

func (a *bigArith) fromExact(v stager.Series, abs bool) BigSeries {
	s := a.zero()
	for k := 0; k < len(v) && k <= a.degree; k++ {
		s.Re[k].SetRat(&v[k].Re)
		if a.complex {
			s.Im[k].SetRat(&v[k].Im)
		}
	}
	if abs {
		a.absInPlace(s)
	}
	return s
}

// absInPlace replaces each coefficient by |re| + |im| (real for complex data).
func (a *bigArith) absInPlace(s BigSeries) {
	for k := range s.Re {
		s.Re[k].Abs(s.Re[k])
		if a.complex {
			s.Re[k].Add(s.Re[k], new(big.Float).Abs(s.Im[k]))
			s.Im[k].SetInt64(0)
		}
	}
}

func (a *bigArith) mul(x, y BigSeries) BigSeries {
	z := a.zero()
	t := a.newFloat()
	for k := 0; k <= a.degree; k++ {
		for i := 0; i <= k; i++ {
			t.Mul(x.Re[i], y.Re[k-i])
			z.Re[k].Add(z.Re[k], t)
			if a.complex {
				t.Mul(x.Im[i], y.Im[k-i])
				z.Re[k].Sub(z.Re[k], t)
				t.Mul(x.Re[i], y.Im[k-i])
				z.Im[k].Add(z.Im[k], t)
				t.Mul(x.Im[i], y.Re[k-i])
				z.Im[k].Add(z.Im[k], t)
			}
		}
	}
	return z
}

func (a *bigArith) addTo(dst, src BigSeries) {
	for k := range dst.Re {
		dst.Re[k].Add(dst.Re[k], src.Re[k])
		if a.complex {
			dst.Im[k].Add(dst.Im[k], src.Im[k])
		}
	}
}

func (a *bigArith) scale(x BigSeries, f int) BigSeries {
	z := a.zero()
	g := new(big.Float).SetInt64(int64(f))
	for k := range x.Re {
		z.Re[k].Mul(x.Re[k], g)
		if a.complex {
			z.Im[k].Mul(x.Im[k], g)
		}
	}
	return z
}

func (a *bigArith) pow(x BigSeries, e int, cache map[int]BigSeries) BigSeries {
	if p, ok := cache[e]; ok {
		return p
	}
	var p BigSeries
	if e == 1 {
		p = x
	} else {
		p = a.mul(a.pow(x, e-1, cache), x)
	}
	cache[e] = p
	return p
}

// Evaluate computes the Reference of sys at the inputs (one series per
// variable, exact big values) with prec bits, truncated after t^degree.
func Evaluate(sys *stager.System, inputs []BigSeries, degree int, complex bool, prec uint) *Reference {
	return EvaluateProgress(sys, inputs, degree, complex, prec, nil)
}

// EvaluateProgress is Evaluate reporting progress (monomials done of total,
// the magnitudes pass included) to progress, when it is not nil.
func EvaluateProgress(sys *stager.System, inputs []BigSeries, degree int, complex bool, prec uint,
	progress func(done, total int)) *Reference {
	ref := &Reference{}
	total, done := 0, 0
	for p := range sys.Polys {
		total += 2 * len(sys.Polys[p].Terms)
	}
	for _, abs := range []bool{false, true} {
		a := &bigArith{prec: prec, degree: degree, complex: complex}
		x := make([]BigSeries, len(inputs))
		for v := range inputs {
			x[v] = a.zero()
			for k := 0; k <= degree; k++ {
				x[v].Re[k].Set(inputs[v].Re[k])
				if complex {
					x[v].Im[k].Set(inputs[v].Im[k])
				}
			}
			if abs {
				a.absInPlace(x[v])
			}
		}
		powCache := make([]map[int]BigSeries, len(inputs))
		for v := range powCache {
			powCache[v] = map[int]BigSeries{}
		}
		pow := func(v, e int) BigSeries {
			if e == 0 {
				one := a.zero()
				one.Re[0].SetInt64(1)
				return one
			}
			return a.pow(x[v], e, powCache[v])
		}
		values := make([]BigSeries, len(sys.Polys))
		derivs := make([][]BigSeries, len(sys.Polys))
		for p := range sys.Polys {
			poly := &sys.Polys[p]
			values[p] = a.fromExact(poly.Const, abs)
			derivs[p] = make([]BigSeries, len(sys.Vars))
			for v := range derivs[p] {
				derivs[p][v] = a.zero()
			}
			for _, m := range poly.Terms {
				if done++; progress != nil {
					progress(done, total)
				}
				// factors[0] = c, factors[j+1] = x[v_j]^a_j; prefix and
				// suffix products give the value and every derivative.
				f := make([]BigSeries, len(m.Vars)+1)
				f[0] = a.fromExact(m.Coef, abs)
				for j, v := range m.Vars {
					f[j+1] = pow(v, m.Pows[j])
				}
				pre := make([]BigSeries, len(f))
				pre[0] = f[0]
				for j := 1; j < len(f); j++ {
					pre[j] = a.mul(pre[j-1], f[j])
				}
				a.addTo(values[p], pre[len(f)-1])
				var suf BigSeries // product of f[j+1..]
				for j := len(f) - 1; j >= 1; j-- {
					d := pre[j-1]
					if j < len(f)-1 {
						d = a.mul(d, suf)
					}
					v, e := m.Vars[j-1], m.Pows[j-1]
					if e > 1 {
						d = a.mul(a.scale(pow(v, e-1), e), d)
					}
					a.addTo(derivs[p][v], d)
					if j == len(f)-1 {
						suf = f[j]
					} else {
						suf = a.mul(f[j], suf)
					}
				}
			}
		}
		if abs {
			ref.ValueMag, ref.DerivMag = values, derivs
		} else {
			ref.Value, ref.Deriv = values, derivs
		}
	}
	return ref
}

// AccurateBits returns -log2(|got - want| / mag) for one real number given
// as limbs (alg.AccurateBitsScaled), capped at capBits, which it also returns
// when got equals want.
func AccurateBits(got []float64, want, mag *big.Float, capBits float64) float64 {
	return math.Min(alg.AccurateBitsScaled(got, want, mag), capBits)
}
