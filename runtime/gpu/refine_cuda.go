//go:build cuda

package gpu

import (
	"errors"
	"fmt"

	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
)

// Refiner refines many start points of one system at once on a CUDA
// device: Newton's method at degree 0 (root refinement), every path's
// Result that of newton.Solver with Degree 0 on that start alone, bit for
// bit. Each Newton step is one Batch evaluation of the active paths (and
// of those due their final residual), one BatchLA QR with its rank check,
// one solve and one residual for the whole batch; the host gathers the
// values and the Jacobians into the linear algebra's layout, takes the
// condition estimates from the factors (la's), takes each path's
// decisions as runtime/newton's driver does, and adds the updates (the
// CPU's Add). A path that stops is left out of the host's work; the
// device computes every slot. Not safe for concurrent use.
type Refiner struct {
	r     *refiner
	batch *Batch
	bla   *BatchLA
	from  func(m, n int, a, tau []float64) (la.Factorization, error)
	slots int
}

// NewRefiner prepares the refinement of sys at precision prec for batches
// of paths start points (at most: fewer when the batch and its linear
// algebra do not fit together in the device's free memory; Paths says how
// many), with ek from LoadBatchKernels (prec's kind of data) and lk from
// LoadBatchLAKernels(prec). Close leaves the kernels loaded.
func NewRefiner(sys *poly.System, prec mdops.Prec, ek *Kernels, lk *BatchLAKernels, paths int, opt RefineOptions) (*Refiner, error) {
	r, err := newRefiner(sys, prec, opt)
	if err != nil {
		return nil, err
	}
	if ek == nil || lk == nil {
		return nil, errors.New("gpu: NewRefiner: nil kernels")
	}
	if lk.Prec() != prec {
		return nil, fmt.Errorf("gpu: NewRefiner: %s data with the batched linear algebra of %s", prec, lk.Prec())
	}
	if paths < 1 {
		return nil, fmt.Errorf("gpu: NewRefiner: %d paths", paths)
	}
	plan, err := stager.Stage(sys, 0)
	if err != nil {
		return nil, err
	}
	// The evaluation and the linear algebra live together: each path
	// needs the bytes of both, fit = 1 / (1/fitEval + 1/fitLA).
	fitE, err := MaxBatchPaths(ek.dev, plan, prec, opt.Batch.Order)
	if err != nil {
		return nil, fmt.Errorf("gpu: NewRefiner: %w", err)
	}
	fitL, err := MaxBatchLAPaths(lk, r.m, r.n, false)
	if err != nil {
		return nil, fmt.Errorf("gpu: NewRefiner: %w", err)
	}
	if fitE > 0 && fitL > 0 {
		paths = min(paths, max(1, int(1/(1/float64(fitE)+1/float64(fitL)))))
	}
	rf := &Refiner{r: r, slots: paths}
	lak, _ := la.KernelsFor(prec.N)
	rf.from = lak.QRFromFactors
	if prec.Complex {
		rf.from = lak.QRFromFactorsComplex
	}
	if rf.batch, err = NewBatch(plan, prec, paths, ek, opt.Batch); err != nil {
		return nil, err
	}
	if rf.bla, err = NewBatchLA(lk, r.m, r.n, paths, opt.LA); err != nil {
		return nil, errors.Join(err, rf.batch.Close())
	}
	return rf, nil
}

// Paths returns the start points refined at once.
func (rf *Refiner) Paths() int { return rf.slots }

// Refine refines every start (value v of start i at starts[i][v*W:(v+1)*W],
// W = prec.Width(): newton.Solver.SolveLimbs's x0), Paths at a time, and
// returns the Results in the order of starts (their Times are zero: the
// steps of a batch are shared). The error is for a start of the wrong
// length or a CUDA error (it names the step); a Newton failure is in its
// Result, as SolveLimbs has it.
func (rf *Refiner) Refine(starts [][]float64) ([]*newton.Result, error) {
	if err := rf.r.checkStarts(starts); err != nil {
		return nil, err
	}
	out := make([]*newton.Result, 0, len(starts))
	for lo := 0; lo < len(starts); lo += rf.slots {
		hi := min(lo+rf.slots, len(starts))
		res, err := rf.r.run(rf, rf.slots, starts[lo:hi])
		if err != nil {
			return nil, fmt.Errorf("%w (start points %d..%d)", err, lo+1, hi)
		}
		out = append(out, res...)
	}
	return out, nil
}

// Close frees the device memory.
func (rf *Refiner) Close() error { return errors.Join(rf.batch.Close(), rf.bla.Close()) }

// RefineBatch refines starts as a Refiner of opt.Paths paths (0: all of
// them, or as many as fit) does, and closes it.
func RefineBatch(sys *poly.System, prec mdops.Prec, ek *Kernels, lk *BatchLAKernels, starts [][]float64, opt RefineOptions) ([]*newton.Result, error) {
	if len(starts) == 0 {
		return nil, nil
	}
	paths := len(starts)
	if opt.Paths > 0 {
		paths = min(paths, opt.Paths)
	}
	rf, err := NewRefiner(sys, prec, ek, lk, paths, opt)
	if err != nil {
		return nil, err
	}
	res, err := rf.Refine(starts)
	return res, errors.Join(err, rf.Close())
}

// evaluate: the Batch at x of the slots asked for; b = -values, A = the
// derivatives (zero where the plan has none), gathered on the host.
func (rf *Refiner) evaluate(x [][]float64, b, a []float64) error {
	n, m, W := rf.r.n, rf.r.m, rf.r.prec.Width()
	for s, xs := range x {
		if xs != nil {
			for v := 0; v < n; v++ {
				rf.batch.SetInput(s, v, xs[v*W:(v+1)*W])
			}
		}
	}
	if err := rf.batch.Run(); err != nil {
		return err
	}
	if err := rf.batch.Download(); err != nil {
		return err
	}
	par.Run(len(x), func(_, s int) {
		if x[s] == nil {
			return
		}
		for i := 0; i < m; i++ {
			bi := rf.batch.Value(s, i, b[(s*m+i)*W:(s*m+i+1)*W])
			for k := range bi {
				bi[k] = -bi[k]
			}
			for j := 0; j < n; j++ {
				off := (s*m*n + i + j*m) * W
				rf.batch.Deriv(s, i, j, a[off:off+W])
			}
		}
	})
	return nil
}

// factor: BatchLA's QR and rank check; the estimates from its factors.
func (rf *Refiner) factor(a []float64, want []bool) ([]*la.RankError, []float64, error) {
	n, m, W := rf.r.n, rf.r.m, rf.r.prec.Width()
	if err := rf.bla.SetA(a); err != nil {
		return nil, nil, err
	}
	if err := rf.bla.QR(); err != nil {
		return nil, nil, err
	}
	rank, err := rf.bla.RankErrors()
	if err != nil {
		return nil, nil, err
	}
	af, tau, err := rf.bla.Factors()
	if err != nil {
		return nil, nil, err
	}
	cond := make([]float64, len(want))
	errs := make([]error, len(want))
	par.Run(len(want), func(_, s int) {
		if !want[s] || rank[s] != nil {
			return
		}
		f, err := rf.from(m, n, af[s*m*n*W:(s+1)*m*n*W], tau[s*n*W:(s+1)*n*W])
		if err != nil {
			errs[s] = fmt.Errorf("slot %d: %w", s, err)
			return
		}
		cond[s] = f.Cond()
	})
	return rank, cond, errors.Join(errs...)
}

// solve: BatchLA's ApplyQH and SolveR on b, then its Residual at dx.
func (rf *Refiner) solve(b []float64, want []bool, dx []float64) ([]float64, error) {
	n, m, W := rf.r.n, rf.r.m, rf.r.prec.Width()
	if err := rf.bla.SetB(b); err != nil {
		return nil, err
	}
	if err := rf.bla.Solve(); err != nil {
		return nil, err
	}
	y, err := rf.bla.B()
	if err != nil {
		return nil, err
	}
	for s, ok := range want {
		if ok {
			copy(dx[s*n*W:(s+1)*n*W], y[s*m*W:s*m*W+n*W])
		}
	}
	if err := rf.bla.SetB(b); err != nil {
		return nil, err
	}
	if err := rf.bla.SetX(dx); err != nil {
		return nil, err
	}
	return rf.bla.Residual()
}
