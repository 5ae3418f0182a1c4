package stager

import (
	"fmt"
	"sync"

	"github.com/mdgen/mdgen/stager/poly"
)

// Plans stages one system at most once at each degree, for the solvers
// that share it: a path tracker runs thousands of Newton solvers of one
// homotopy (on the GPU a worker per path), and each would otherwise stage
// the same Plans again. A Plan is read-only after Stage, so the solvers
// share it. Plans is safe for concurrent use; an error is kept like a
// Plan (Stage is deterministic: it would fail again).
type Plans struct {
	sys *poly.System

	// Both maps are read by every solver a tracker makes (on the GPU
	// thousands start at once), and written a few times: sync.Maps, so
	// that the reads take no lock (a mutex here held the paths of
	// katsura12 a tenth of a second each at the start of a GPU run).
	byDegree sync.Map // int -> *plansEntry
	fits     sync.Map // CheckMemoryTogether's passes: fitsKey -> struct{}
}

type plansEntry struct {
	once sync.Once
	plan *Plan
	err  error
}

// fitsKey is CheckMemoryTogether's arguments.
type fitsKey struct {
	degrees string
	n       int
	complex bool
}

// NewPlans returns the cache of sys's Plans (none staged yet).
func NewPlans(sys *poly.System) *Plans {
	return &Plans{sys: sys}
}

// System is the system the Plans stage.
func (ps *Plans) System() *poly.System { return ps.sys }

// Stage returns Stage(ps.System(), degree), staged on the first call for
// that degree; calls for other degrees do not wait for it.
func (ps *Plans) Stage(degree int) (*Plan, error) {
	v, ok := ps.byDegree.Load(degree)
	if !ok {
		v, _ = ps.byDegree.LoadOrStore(degree, &plansEntry{})
	}
	e := v.(*plansEntry)
	e.once.Do(func() { e.plan, e.err = Stage(ps.sys, degree) })
	return e.plan, e.err
}

// CheckMemoryTogether is the package's CheckMemoryTogether for the Plans'
// system, run once for each set of arguments that passes: every solver of
// a tracker checks the same sizes, and the survey behind them costs about
// a staging. A refusal is not kept (memory may be freed meanwhile).
func (ps *Plans) CheckMemoryTogether(degrees []int, n int, complex bool) error {
	key := fitsKey{fmt.Sprint(degrees), n, complex}
	if _, ok := ps.fits.Load(key); ok {
		return nil
	}
	if err := CheckMemoryTogether(ps.sys, degrees, n, complex); err != nil {
		return err
	}
	ps.fits.Store(key, struct{}{})
	return nil
}
