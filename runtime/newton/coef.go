package newton

import (
	"fmt"
	"math"
	"slices"

	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
)

// New coefficients on a prepared Solver (a path tracker calls Newton on the
// same system thousands of times per path, with coefficients that depend
// on t): the executors' coefficient slots are refilled in place, with no
// staging and, for SetCoefficient, no allocation after its first call on
// each polynomial; or, by SetParam, computed by executors that take a
// homotopy's parameter. A solve after a refill gives the bits of a Solver
// made for the new coefficients.

// coefSlots returns the coefficient slots of the executor of degree w
// (stager.Plan.CoefSlots), worked out once.
func (s *Solver) coefSlots(w int) *stager.CoefSlots {
	if cs, ok := s.slots[w]; ok {
		return cs
	}
	cs := s.execs[w].Plan().CoefSlots()
	s.slots[w] = cs
	return cs
}

// setter returns the executor of degree w as a ValueSetter.
func (s *Solver) setter(w int) (backend.ValueSetter, error) {
	vs, ok := s.execs[w].(backend.ValueSetter)
	if !ok {
		return nil, fmt.Errorf("newton: the executor (%T) cannot take new coefficients", s.execs[w])
	}
	return vs, nil
}

// SetCoefficient sets the coefficient of term j of polynomial i (j = -1:
// the constant term) to series, already rounded to the working precision:
// coefficient k of the series in t at series[k*W:(k+1)*W] (W = N, or 2N
// for complex data), k = 0..d (a shorter series: the rest zero). Every
// later Solve uses it. A coefficient that was zero to a working degree
// when the system was staged has no slot there: it must stay zero to that
// degree (else stage anew: New). After the first call on polynomial i
// (which prepares the executors and finds the places of its terms) it
// allocates nothing.
func (s *Solver) SetCoefficient(i, j int, series []float64) error {
	if err := s.Prepare(); err != nil {
		return err
	}
	if i < 0 || i >= s.m || j < -1 || j >= len(s.sys.Polys[i].Terms) {
		return fmt.Errorf("newton: no term %d of polynomial %d", j, i)
	}
	wd := s.opt.Prec.Width()
	if len(series)%wd != 0 {
		return fmt.Errorf("newton: a coefficient of %d doubles: not whole numbers of %d", len(series), wd)
	}
	if s.targets == nil {
		s.targets = make([][]coefTargets, s.m)
	}
	if s.targets[i] == nil {
		if err := s.makeTargets(i); err != nil {
			return err
		}
	}
	ct := &s.targets[i][j+1]
	for _, n := range ct.zeroTo {
		for _, x := range series[:min(len(series), n)] {
			if x != 0 {
				return fmt.Errorf("newton: polynomial %d, term %d: the coefficient was zero to degree %d when staged (no slot): make a new Solver", i+1, j+1, n/wd-1)
			}
		}
	}
	for _, t := range ct.slots {
		t.vs.SetValue(t.slot, series[:min(len(series), t.n)])
	}
	return nil
}

// SetParam sets the coefficients of pc at at (backend.ParamCoefs.Series)
// when every executor of the solver computes them itself (a
// backend.ParamSetter that takes pc: a device's, from tau) and returns
// true; else it sets nothing and returns false, and the caller sets each
// (Series, then SetCoefficient: the same values). After true, the
// solver's executors hold pc's coefficients until the next SetParam: the
// caller does not set them with SetCoefficient. pc is checked once (its
// precision, its terms, and that a term is zero wherever the staged
// system has no slot for it, as SetCoefficient requires).
func (s *Solver) SetParam(pc *backend.ParamCoefs, at backend.ParamAt) (bool, error) {
	if err := s.Prepare(); err != nil {
		return false, err
	}
	if pc != s.paramsFor {
		ok, err := s.takesParams(pc)
		if err != nil {
			return false, err
		}
		s.paramsFor, s.paramsOK = pc, ok
	}
	if !s.paramsOK {
		return false, nil
	}
	for _, w := range Stagger(s.opt.Degree) {
		if e, ok := s.execs[w]; ok {
			e.(backend.ParamSetter).SetParam(pc, at)
		}
	}
	return true, nil
}

// takesParams checks pc against the staged system and tells whether every
// executor takes it.
func (s *Solver) takesParams(pc *backend.ParamCoefs) (bool, error) {
	if pc.Prec != s.opt.Prec {
		return false, fmt.Errorf("newton: parametric coefficients of %s data for a solver of %s data", pc.Prec, s.opt.Prec)
	}
	for k, t := range pc.Terms {
		if t.I < 0 || t.I >= s.m || t.J < -1 || t.J >= len(s.sys.Polys[t.I].Terms) {
			return false, fmt.Errorf("newton: parametric coefficient %d: no term %d of polynomial %d", k, t.J, t.I)
		}
		if slices.ContainsFunc(t.Poly, func(x float64) bool { return x != 0 }) {
			for w := range s.execs {
				if s.coefSlot(w, t.I, t.J) == stager.NoSlot {
					return false, fmt.Errorf("newton: parametric coefficient %d (polynomial %d, term %d) is not zero and was zero when staged at degree %d (no slot): make a new Solver", k, t.I+1, t.J+1, w)
				}
			}
		}
	}
	for _, w := range Stagger(s.opt.Degree) {
		e, ok := s.execs[w]
		if !ok {
			continue
		}
		if p, ok := e.(backend.ParamSetter); !ok || !p.TakesParams(pc) {
			return false, nil
		}
	}
	return true, nil
}

// coefTargets are the places of one coefficient in the executors, worked
// out once after Prepare (SetCoefficient runs at every step of a path
// tracker).
type coefTargets struct {
	slots []coefTarget
	// zeroTo: for each executor with no slot for the coefficient, the
	// float64s of the series that must be zero, (w+1)*W.
	zeroTo []int
}

type coefTarget struct {
	vs   backend.ValueSetter
	slot stager.Slot
	n    int // the float64s of the series the executor holds, (w+1)*W
}

// makeTargets fills s.targets[i]: targets[i][j+1] for term j of
// polynomial i (j = -1: the constant), the executors in the order of
// Stagger; a row on first use (a path tracker whose device computes the
// homotopy's coefficients sets only its chart's row: SetParam).
func (s *Solver) makeTargets(i int) error {
	wd := s.opt.Prec.Width()
	ws := Stagger(s.opt.Degree)
	row := make([]coefTargets, len(s.sys.Polys[i].Terms)+1)
	slots := make([]coefTarget, 0, len(row)*len(ws))
	zeroTo := make([]int, 0, len(row)*len(ws))
	for j := -1; j < len(s.sys.Polys[i].Terms); j++ {
		ct := &row[j+1]
		s0, z0 := len(slots), len(zeroTo)
		for _, w := range ws {
			if _, ok := s.execs[w]; !ok {
				continue
			}
			vs, err := s.setter(w)
			if err != nil {
				return err
			}
			if slot := s.coefSlot(w, i, j); slot != stager.NoSlot {
				slots = append(slots, coefTarget{vs: vs, slot: slot, n: (w + 1) * wd})
			} else {
				zeroTo = append(zeroTo, (w+1)*wd)
			}
		}
		ct.slots, ct.zeroTo = slots[s0:len(slots):len(slots)], zeroTo[z0:len(zeroTo):len(zeroTo)]
	}
	s.targets[i] = row
	return nil
}

// coefSlot returns the slot of term j of polynomial i (j = -1: the
// constant) in the executor of degree w.
func (s *Solver) coefSlot(w, i, j int) stager.Slot {
	cs := s.coefSlots(w)
	if j < 0 {
		return cs.Const[i]
	}
	return cs.Terms[i][j]
}

// checkSlots returns an error when series is nonzero to a working degree
// at which the coefficient has no slot.
func (s *Solver) checkSlots(i, j int, series []float64) error {
	wd := s.opt.Prec.Width()
	for w := range s.execs {
		if s.coefSlot(w, i, j) != stager.NoSlot {
			continue
		}
		for _, x := range series[:min(len(series), (w+1)*wd)] {
			if x != 0 {
				return fmt.Errorf("newton: polynomial %d, term %d: the coefficient was zero to degree %d when staged (no slot): make a new Solver", i+1, j+1, w)
			}
		}
	}
	return nil
}

// SetSystem gives the solver the coefficients of sys, a system with its
// variables and monomials (stager.SameMonomials) whose coefficients are
// zero where those of the staged system are (see SetCoefficient): each is
// rounded once to the working precision, as an executor rounds it, and
// later solves use them. The Solver keeps sys.
func (s *Solver) SetSystem(sys *poly.System) error {
	if err := stager.SameMonomials(s.sys, sys); err != nil {
		return fmt.Errorf("newton: %w", err)
	}
	if !s.opt.Prec.Complex && SystemIsComplex(sys) {
		return fmt.Errorf("newton: the system has complex coefficients: complex data needed")
	}
	if err := s.Prepare(); err != nil {
		return err
	}
	// Round and check every coefficient first, so that an error leaves
	// the coefficients as they were.
	l := backend.Layout{Prec: s.opt.Prec, Degree: s.opt.Degree}
	type coef struct {
		i, j   int
		series []float64
	}
	var coefs []coef
	round := func(i, j int, c poly.Series) error {
		buf := make([]float64, l.SlotLen())
		if err := backend.RoundSeries(buf, c, l); err != nil {
			return fmt.Errorf("newton: %w", err)
		}
		for _, x := range buf {
			if math.IsInf(x, 0) {
				return fmt.Errorf("newton: polynomial %d: a coefficient outside the float64 range", i+1)
			}
		}
		if err := s.checkSlots(i, j, buf); err != nil {
			return err
		}
		coefs = append(coefs, coef{i, j, buf})
		return nil
	}
	for i := range sys.Polys {
		if err := round(i, -1, sys.Polys[i].Const); err != nil {
			return err
		}
		for j := range sys.Polys[i].Terms {
			if err := round(i, j, sys.Polys[i].Terms[j].Coef); err != nil {
				return err
			}
		}
	}
	for _, c := range coefs {
		if err := s.SetCoefficient(c.i, c.j, c.series); err != nil {
			return err
		}
	}
	s.sys = sys
	return nil
}
