package stager

import (
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

	mu       sync.Mutex
	byDegree map[int]*plansEntry
}

type plansEntry struct {
	once sync.Once
	plan *Plan
	err  error
}

// NewPlans returns the cache of sys's Plans (none staged yet).
func NewPlans(sys *poly.System) *Plans {
	return &Plans{sys: sys, byDegree: map[int]*plansEntry{}}
}

// System is the system the Plans stage.
func (ps *Plans) System() *poly.System { return ps.sys }

// Stage returns Stage(ps.System(), degree), staged on the first call for
// that degree; calls for other degrees do not wait for it.
func (ps *Plans) Stage(degree int) (*Plan, error) {
	ps.mu.Lock()
	e := ps.byDegree[degree]
	if e == nil {
		e = &plansEntry{}
		ps.byDegree[degree] = e
	}
	ps.mu.Unlock()
	e.once.Do(func() { e.plan, e.err = Stage(ps.sys, degree) })
	return e.plan, e.err
}
