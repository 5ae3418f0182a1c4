package newton

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mdgen/mdgen/stager/poly"
)

// Batch is the outcome of SolveEach: the results in the order of the
// starts, the time of each solve, and the setup time of all the solvers.
type Batch struct {
	Results []*Result
	Seconds []float64
	Setup   time.Duration
	Solvers int // the solvers that ran (at most Options.Workers)
}

// SolveEach runs Newton from every start (root refinement over a list of
// start solutions, say): opt.Workers solvers (<= 0: GOMAXPROCS; at most
// one per start) run in parallel goroutines, each with one worker of its
// own (no goroutines inside a solve: the work of a small system is too
// short to share), and take the next start as they finish one. A result
// does not depend on which solver computed it, so every result is the
// same, bit for bit, for any opt.Workers (and the same as Solve's with any
// worker count). done, when not nil, is called after each solve (from the
// solver's goroutine, one call at a time) with the number of solves done.
// The error is the first one of a solve (bad input), by start index.
// Each solver makes its own back end (opt.NewBackend): meant for the CPU's.
func SolveEach(sys *poly.System, opt Options, starts [][]poly.Rational, done func(finished int)) (*Batch, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = goruntime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(starts)))
	one := opt
	one.Workers = 1
	one.Progress = nil
	solvers := make([]*Solver, workers)
	defer func() {
		for _, s := range solvers {
			if s != nil {
				s.Close()
			}
		}
	}()
	b := &Batch{Results: make([]*Result, len(starts)), Seconds: make([]float64, len(starts)), Solvers: workers}
	for w := range solvers {
		s, err := New(sys, one)
		if err != nil {
			return nil, err
		}
		solvers[w] = s
		if err := s.Prepare(); err != nil {
			return nil, err
		}
		b.Setup += s.Setup()
	}
	errs := make([]error, len(starts))
	var next atomic.Int64
	var mu sync.Mutex
	finished := 0
	var wg sync.WaitGroup
	for _, s := range solvers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(starts) {
					return
				}
				t0 := time.Now()
				b.Results[k], errs[k] = s.Solve(starts[k])
				b.Seconds[k] = time.Since(t0).Seconds()
				if done != nil {
					mu.Lock()
					finished++
					done(finished)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("start solution %d: %w", k+1, err)
		}
	}
	return b, nil
}
