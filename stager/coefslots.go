package stager

import (
	"fmt"
	"slices"

	"github.com/mdgen/mdgen/stager/poly"
)

// CoefSlots says where the coefficients of the staged system live in a
// Plan, so that an executor can be given new coefficient values without a
// new staging (a path tracker's homotopy changes its coefficients with t,
// not its monomials).
type CoefSlots struct {
	// Const[i] is the slot of polynomial i's constant term, NoSlot when
	// it was zero to the plan's degree (no slot).
	Const []Slot
	// Terms[i][j] is the slot of the coefficient of term j of polynomial
	// i, NoSlot when it was zero to the plan's degree (the term was
	// dropped).
	Terms [][]Slot
}

// CoefSlots returns the coefficient slots of a Plan made by Stage (Stage's
// numbering: the constants of the polynomials that have one, then the
// coefficients of the surviving terms, polynomial by polynomial). It
// returns nil for a Plan without its System.
func (p *Plan) CoefSlots() *CoefSlots {
	s := p.System
	if s == nil {
		return nil
	}
	cs := &CoefSlots{Const: make([]Slot, len(s.Polys)), Terms: make([][]Slot, len(s.Polys))}
	next := Slot(0)
	for i := range s.Polys {
		cs.Const[i] = NoSlot
		if len(truncate(s.Polys[i].Const, p.Degree)) > 0 {
			cs.Const[i] = next
			next++
		}
	}
	for i := range s.Polys {
		cs.Terms[i] = make([]Slot, len(s.Polys[i].Terms))
		for j, t := range s.Polys[i].Terms {
			cs.Terms[i][j] = NoSlot
			if len(truncate(t.Coef, p.Degree)) > 0 {
				cs.Terms[i][j] = next
				next++
			}
		}
	}
	return cs
}

// SameMonomials returns an error unless b has a's variables and
// polynomials with the same terms (variables and exponents, in order): the
// systems differ in their coefficients only, so that a Plan of a serves b
// with its coefficient slots refilled (where a coefficient of a is zero to
// the plan's degree, b's must be too: see CoefSlots).
func SameMonomials(a, b *poly.System) error {
	if len(a.Vars) != len(b.Vars) || len(a.Polys) != len(b.Polys) {
		return fmt.Errorf("stager: %d polynomials in %d variables, want %d in %d", len(b.Polys), len(b.Vars), len(a.Polys), len(a.Vars))
	}
	for v := range a.Vars {
		if a.Vars[v] != b.Vars[v] {
			return fmt.Errorf("stager: variable %d is %s, want %s", v+1, b.Vars[v], a.Vars[v])
		}
	}
	for i := range a.Polys {
		ta, tb := a.Polys[i].Terms, b.Polys[i].Terms
		if len(ta) != len(tb) {
			return fmt.Errorf("stager: %s has %d terms, want %d", polyName(b, i), len(tb), len(ta))
		}
		for j := range ta {
			same := len(ta[j].Vars) == len(tb[j].Vars)
			for k := 0; same && k < len(ta[j].Vars); k++ {
				same = ta[j].Vars[k] == tb[j].Vars[k] && ta[j].Pows[k] == tb[j].Pows[k]
			}
			if !same {
				return fmt.Errorf("stager: %s, term %d: another monomial", polyName(b, i), j+1)
			}
		}
	}
	return nil
}

// Equal says whether two plans number the coefficients alike (the plans
// of one system at two degrees do unless a coefficient is zero to the
// lower degree): then a coefficient's series set at one degree's slot is,
// truncated, the other's at the same slot. Nil equals nothing.
func (c *CoefSlots) Equal(d *CoefSlots) bool {
	if c == nil || d == nil || !slices.Equal(c.Const, d.Const) || len(c.Terms) != len(d.Terms) {
		return false
	}
	for i := range c.Terms {
		if !slices.Equal(c.Terms[i], d.Terms[i]) {
			return false
		}
	}
	return true
}
