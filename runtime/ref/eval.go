package ref

import (
	"fmt"
	"math"
	"math/big"

	"github.com/mdgen/mdgen/mdops/alg"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/stager/poly"
)

// Series is a truncated series with math/big coefficients: Re[k] (and
// Im[k] for complex data; Im is nil for real data).
type Series struct {
	Re, Im []*big.Float
}

// Evaluation is a direct evaluation of a system and its Jacobian at series
// inputs in math/big.Float, without staging: the oracle of the executors.
// Mag holds, for each output, the same evaluation with every coefficient and
// input replaced by its absolute value (|re| + |im| for complex numbers): the
// sum of the magnitudes of the terms, against which errors are measured.
type Evaluation struct {
	Value, ValueMag []Series   // [poly]
	Deriv, DerivMag [][]Series // [poly][var]
	// Vars and Param are the system's variable names and series parameter
	// ("" when it has none), for naming outputs (Verify).
	Vars  []string
	Param string
}

type bigArith struct {
	prec    uint
	degree  int
	complex bool
}

func (a *bigArith) newFloat() *big.Float { return new(big.Float).SetPrec(a.prec) }

func (a *bigArith) zero() Series {
	s := Series{Re: make([]*big.Float, a.degree+1)}
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

func (a *bigArith) fromExact(v poly.Series, abs bool) Series {
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
func (a *bigArith) absInPlace(s Series) {
	for k := range s.Re {
		s.Re[k].Abs(s.Re[k])
		if a.complex {
			s.Re[k].Add(s.Re[k], new(big.Float).Abs(s.Im[k]))
			s.Im[k].SetInt64(0)
		}
	}
}

func (a *bigArith) mul(x, y Series) Series {
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

func (a *bigArith) addTo(dst, src Series) {
	for k := range dst.Re {
		dst.Re[k].Add(dst.Re[k], src.Re[k])
		if a.complex {
			dst.Im[k].Add(dst.Im[k], src.Im[k])
		}
	}
}

func (a *bigArith) scale(x Series, f int) Series {
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

func (a *bigArith) pow(x Series, e int, cache map[int]Series) Series {
	if p, ok := cache[e]; ok {
		return p
	}
	var p Series
	if e == 1 {
		p = x
	} else {
		p = a.mul(a.pow(x, e-1, cache), x)
	}
	cache[e] = p
	return p
}

// Evaluate computes the Evaluation of sys at the inputs (one series per
// variable, exact big values) with prec bits, truncated after t^degree. It
// returns an error, never panics, for inputs that do not fit the system or
// are not finite.
func Evaluate(sys *poly.System, inputs []Series, degree int, complex bool, prec uint) (*Evaluation, error) {
	return EvaluateProgress(sys, inputs, degree, complex, prec, nil)
}

// checkBigInputs returns an error unless inputs has one finite series per
// variable of sys with degree+1 coefficients (real and, for complex data,
// imaginary parts).
func checkBigInputs(sys *poly.System, inputs []Series, degree int, complex bool) error {
	if degree < 0 {
		return fmt.Errorf("ref: negative degree %d", degree)
	}
	if len(inputs) != len(sys.Vars) {
		return fmt.Errorf("ref: %d input series for %d variables", len(inputs), len(sys.Vars))
	}
	for v, in := range inputs {
		parts := [][]*big.Float{in.Re}
		if complex {
			parts = append(parts, in.Im)
		}
		for part, cs := range parts {
			if len(cs) < degree+1 {
				return fmt.Errorf("ref: input %s has %d coefficients, want %d", sys.Vars[v], len(cs), degree+1)
			}
			for k, c := range cs[:degree+1] {
				switch {
				case c == nil:
					return fmt.Errorf("ref: input %s, coefficient t^%d (%s) is missing", sys.Vars[v], k, reIm[part])
				case c.IsInf():
					return fmt.Errorf("ref: input %s, coefficient t^%d (%s) is %v, not finite", sys.Vars[v], k, reIm[part], c)
				}
			}
		}
	}
	return nil
}

var reIm = [2]string{"re", "im"}

// EvaluateProgress is Evaluate reporting progress (monomials done of total,
// the magnitudes pass included) to progress, when it is not nil.
func EvaluateProgress(sys *poly.System, inputs []Series, degree int, complex bool, prec uint,
	progress func(done, total int)) (ref *Evaluation, err error) {
	if err := checkBigInputs(sys, inputs, degree, complex); err != nil {
		return nil, err
	}
	// math/big panics with an ErrNaN for 0·∞ and ∞−∞; the inputs are
	// finite and the coefficients exact, so this is a last guard only.
	defer func() {
		if r := recover(); r != nil {
			nan, ok := r.(big.ErrNaN)
			if !ok {
				panic(r)
			}
			ref, err = nil, fmt.Errorf("ref: %s", nan.Error())
		}
	}()
	ref = &Evaluation{Vars: sys.Vars, Param: sys.Param}
	total, done := 0, 0
	for p := range sys.Polys {
		total += 2 * len(sys.Polys[p].Terms)
	}
	for _, abs := range []bool{false, true} {
		a := &bigArith{prec: prec, degree: degree, complex: complex}
		x := make([]Series, len(inputs))
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
		powCache := make([]map[int]Series, len(inputs))
		for v := range powCache {
			powCache[v] = map[int]Series{}
		}
		pow := func(v, e int) Series {
			if e == 0 {
				one := a.zero()
				one.Re[0].SetInt64(1)
				return one
			}
			return a.pow(x[v], e, powCache[v])
		}
		values := make([]Series, len(sys.Polys))
		derivs := make([][]Series, len(sys.Polys))
		for p := range sys.Polys {
			pol := &sys.Polys[p]
			values[p] = a.fromExact(pol.Const, abs)
			derivs[p] = make([]Series, len(sys.Vars))
			for v := range derivs[p] {
				derivs[p][v] = a.zero()
			}
			for _, m := range pol.Terms {
				if done++; progress != nil {
					progress(done, total)
				}
				// factors[0] = c, factors[j+1] = x[v_j]^a_j; prefix and
				// suffix products give the value and every derivative.
				f := make([]Series, len(m.Vars)+1)
				f[0] = a.fromExact(m.Coef, abs)
				for j, v := range m.Vars {
					f[j+1] = pow(v, m.Pows[j])
				}
				pre := make([]Series, len(f))
				pre[0] = f[0]
				for j := 1; j < len(f); j++ {
					pre[j] = a.mul(pre[j-1], f[j])
				}
				a.addTo(values[p], pre[len(f)-1])
				var suf Series // product of f[j+1..]
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
	return ref, nil
}

// AccurateBits returns -log2(|got - want| / mag) for one real number given
// as limbs (alg.AccurateBitsScaled), capped at capBits, which it also returns
// when got equals want.
func AccurateBits(got []float64, want, mag *big.Float, capBits float64) float64 {
	return math.Min(alg.AccurateBitsScaled(got, want, mag), capBits)
}

// Layout describes how an executor stores one series: Degree+1
// coefficients of W doubles each, W = N (real) or 2N (complex: N real
// limbs, then N imaginary).
type Layout = backend.Layout

// SeriesFromLimbs converts series in an executor's layout l (the inputs
// given to it) to exact big values. A limb that is not finite (±Inf, NaN)
// is an error: the evaluation needs finite inputs.
func SeriesFromLimbs(in [][]float64, l Layout) ([]Series, error) {
	out := make([]Series, len(in))
	for v, s := range in {
		if len(s) < l.SlotLen() {
			return nil, fmt.Errorf("ref: input series %d has %d doubles, want %d", v+1, len(s), l.SlotLen())
		}
		for i, x := range s[:l.SlotLen()] {
			if math.IsInf(x, 0) || math.IsNaN(x) {
				k, part := i/l.W(), i%l.W()/l.Prec.N
				return nil, fmt.Errorf("ref: input series %d, coefficient t^%d (%s): %v is not finite", v+1, k, reIm[part], x)
			}
		}
		out[v].Re = make([]*big.Float, l.Degree+1)
		if l.Prec.Complex {
			out[v].Im = make([]*big.Float, l.Degree+1)
		}
		for k := 0; k <= l.Degree; k++ {
			off := k * l.W()
			out[v].Re[k] = alg.Exact(s[off : off+l.Prec.N])
			if l.Prec.Complex {
				out[v].Im[k] = alg.Exact(s[off+l.Prec.N : off+2*l.Prec.N])
			}
		}
	}
	return out, nil
}

// Outputs is what an executor returns after a run (backend.Outputs).
type Outputs interface {
	Value(p int) []float64
	Deriv(p, v int) []float64
}

// Verification is the worst error of an executor's outputs against the
// Evaluation, in accurate bits relative to the sum of the magnitudes of the
// terms of each output coefficient.
type Verification struct {
	WorstBits float64
	// Where names the worst output coefficient with the system's names,
	// polynomials numbered from 1: "f2 coefficient t^3 (re)",
	// "d f1/d x2 coefficient t^0 (im)".
	Where     string
	Checked   int // real numbers compared
	NonFinite int // of those, numbers with a limb that is ±Inf or NaN (0 accurate bits each)
}

// OutputName returns the name Verify gives the value of polynomial p
// (0-based) when v < 0, else its derivative in variable v (0-based): "f1",
// "d f1/d x2", with the variable names of the system (vars; "z<v+1>" where
// vars has none).
func OutputName(vars []string, p, v int) string {
	if v < 0 {
		return fmt.Sprintf("f%d", p+1)
	}
	name := fmt.Sprintf("z%d", v+1)
	if v < len(vars) && vars[v] != "" {
		name = vars[v]
	}
	return fmt.Sprintf("d f%d/d %s", p+1, name)
}

// Verify compares every output coefficient of o, an executor of layout l,
// with the evaluation ref.
func Verify(o Outputs, ref *Evaluation, l Layout) Verification {
	capBits := float64(64*l.Prec.N + 64)
	res := Verification{WorstBits: capBits}
	param := ref.Param
	if param == "" {
		param = "t"
	}
	check := func(got []float64, want, mag Series, name string) {
		for k := 0; k <= l.Degree; k++ {
			for part := range 1 + btoi(l.Prec.Complex) {
				w := want.Re[k]
				if part == 1 {
					w = want.Im[k]
				}
				off := k*l.W() + part*l.Prec.N
				limbs := got[off : off+l.Prec.N]
				finite := true
				for _, x := range limbs {
					finite = finite && !math.IsInf(x, 0) && !math.IsNaN(x)
				}
				b := AccurateBits(limbs, w, mag.Re[k], capBits)
				res.Checked++
				if !finite {
					res.NonFinite++
					b = 0
				}
				if b < res.WorstBits || res.Where == "" && b <= res.WorstBits {
					res.WorstBits = b
					res.Where = fmt.Sprintf("%s coefficient %s^%d (%s)", name, param, k, reIm[part])
					if !finite {
						res.Where += ", not finite"
					}
				}
			}
		}
	}
	for p := range ref.Value {
		check(o.Value(p), ref.Value[p], ref.ValueMag[p], OutputName(ref.Vars, p, -1))
		for v := range ref.Deriv[p] {
			check(o.Deriv(p, v), ref.Deriv[p][v], ref.DerivMag[p][v], OutputName(ref.Vars, p, v))
		}
	}
	return res
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
