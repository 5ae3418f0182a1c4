package backend

import (
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager"
)

// Executor runs a staged plan on one back end. Series go in and come out in
// the CPU layout (Layout: coefficient k at [k*W, (k+1)*W), W = Prec().Width():
// N real limbs, or N real then N imaginary limbs), whatever the back end
// keeps inside.
type Executor interface {
	Plan() *stager.Plan
	Prec() mdops.Prec
	// SetInput sets the series of input variable v (Layout.SlotLen doubles).
	SetInput(v int, series []float64)
	// Run evaluates the system and its Jacobian at the inputs.
	Run() error
	// Value and Deriv return the outputs of the last Run (owned by the
	// executor, valid until the next Run).
	Value(p int) []float64
	Deriv(p, v int) []float64
	Close() error
}

// ValueSetter is an executor whose read-only slots (a plan's constant and
// coefficient slots, stager.Plan.CoefSlots) can be given new values after
// it was made: a system with new coefficients on the same staged plan, with
// no staging and no allocation (a path tracker's homotopy, whose
// coefficients change with t). The CPU executor is one.
type ValueSetter interface {
	// SetValue sets read-only slot s to series (the CPU layout of
	// Layout, coefficient k at [k*W, (k+1)*W)): its first SlotLen
	// doubles, zeros after a shorter series.
	SetValue(s stager.Slot, series []float64)
}
