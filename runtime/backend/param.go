package backend

import (
	"fmt"
	"math"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager"
)

// ParamCoefs are coefficients of a system that are polynomials in one real
// parameter, given to a solver at a value tau of it at once: a path
// tracker's homotopy, whose every coefficient is a polynomial in t, set at
// every solve as its Taylor series at the path's tau. A device that
// computes them itself from tau (a ParamSetter) spares the host a series
// a coefficient a solve, and the copies to the device.
//
// Coefficient k at (tau, e) is the series in s of c_k(tau - s), c_k the
// polynomial Terms[k].Poly in tau, every double of it multiplied by
// 2^(Terms[k].Scale e) where that exponent is not 0: Series computes it.
// A device's computation must round as Shift does, operation for
// operation (runtime/track's shift and mdtrack.cuh's mdtr_shift, checked
// against each other bit for bit).
type ParamCoefs struct {
	Prec  mdops.Prec
	Terms []ParamCoef
	// Shift writes into dst (len(poly) doubles) the series in s of
	// c(tau - s), c the polynomial poly in tau (Prec.Width() doubles a
	// coefficient, lowest first).
	Shift func(dst, poly []float64, tau float64)
	// Len is the most coefficients of a term's polynomial.
	Len int
}

// ParamCoef is one coefficient of ParamCoefs: term J of polynomial I (J =
// -1: its constant), the polynomial Poly in the parameter (Width()
// doubles a coefficient, lowest first), and the factor of the exponent e
// (Series).
type ParamCoef struct {
	I, J  int
	Poly  []float64
	Scale int
}

// NewParamCoefs checks terms and returns their ParamCoefs at precision p.
func NewParamCoefs(p mdops.Prec, terms []ParamCoef, shift func(dst, poly []float64, tau float64)) (*ParamCoefs, error) {
	W := p.Width()
	pc := &ParamCoefs{Prec: p, Terms: terms, Shift: shift}
	for k, t := range terms {
		if len(t.Poly)%W != 0 {
			return nil, fmt.Errorf("backend: parametric coefficient %d has %d doubles: not whole numbers of %d", k, len(t.Poly), W)
		}
		pc.Len = max(pc.Len, len(t.Poly)/W)
	}
	return pc, nil
}

// Series writes coefficient k at (tau, e) into dst (len(Terms[k].Poly)
// doubles): the one place where a parametric coefficient's series is
// computed on the host.
func (pc *ParamCoefs) Series(k int, tau float64, e int, dst []float64) {
	t := &pc.Terms[k]
	pc.Shift(dst, t.Poly, tau)
	if x := t.Scale * e; x != 0 {
		for i := range dst {
			dst[i] = math.Ldexp(dst[i], x)
		}
	}
}

// Slots returns the slot of each term in plan (stager.NoSlot where the
// plan has none).
func (pc *ParamCoefs) Slots(plan *stager.Plan) []stager.Slot {
	cs := plan.CoefSlots()
	out := make([]stager.Slot, len(pc.Terms))
	for k, t := range pc.Terms {
		if t.J < 0 {
			out[k] = cs.Const[t.I]
		} else {
			out[k] = cs.Terms[t.I][t.J]
		}
	}
	return out
}

// ParamAt is a value of the parameter of ParamCoefs and the exponent e of
// their scaling.
type ParamAt struct {
	Tau float64
	E   int
}

// ParamSetter is an executor that may compute the coefficients of
// ParamCoefs itself (a device's, from tau): where TakesParams(pc), SetParam
// stands for SetValue of each of pc's slots, and sets them until the
// next SetParam (a caller does not also set them with SetValue).
type ParamSetter interface {
	// TakesParams tells whether the executor computes pc (its device
	// computes polynomials of pc.Len coefficients, at pc's precision).
	TakesParams(pc *ParamCoefs) bool
	SetParam(pc *ParamCoefs, at ParamAt)
}
