package gpu

// Batched root refinement (Newton at degree 0 for many start points of one
// system at once): the per-path decisions, written for both builds and for
// any batched device (refineDevice); refine_cuda.go has the GPU's, whose
// evaluation is a Batch and whose linear algebra is a BatchLA.

import (
	"fmt"
	"math"

	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager/poly"
)

// RefineOptions tune the batched refinement; the zero value is the
// default. MaxSteps, MaxCond and RefineTol are newton.Options' (the same
// defaults).
type RefineOptions struct {
	MaxSteps  int
	MaxCond   float64
	RefineTol float64
	// Paths is the most start points refined at once (the size of the
	// device's batch); 0 means all of them, or as many as fit in the
	// device memory (a longer list is refined in batches of that many).
	Paths int
	Batch BatchOptions
	LA    BatchLAOptions
}

// refineDevice is the numeric work of one Newton step at degree 0 for a
// batch of slots, on flat host buffers in la's layouts, slot after slot:
// A_s (m x n, column-major) at s·m·n, b_s at s·m, dx_s at s·n numbers. A
// device may compute every slot; only those asked for are read.
type refineDevice interface {
	// evaluate runs the plan at x[s] (the n values of slot s; nil: a
	// slot not asked for), and writes b_s = -G(x[s]) and A_s = J(x[s])
	// for every slot asked for.
	evaluate(x [][]float64, b, a []float64) error
	// factor makes the QR of every A_s (a as evaluate left it): la's
	// *RankError of slot s (nil: full rank), and for the slots in want
	// without one the condition estimate (la's Cond).
	factor(a []float64, want []bool) (rank []*la.RankError, cond []float64, err error)
	// solve sets dx_s = R_s^-1 Q_s^H b_s (la ApplyQH, SolveR) for the
	// slots in want, and returns ||b_s - A_s dx_s||_1 of each (la's MulSub,
	// then la.LeadNorm1: runtime/newton's Norm1): b is unchanged.
	solve(b []float64, want []bool, dx []float64) (resid []float64, err error)
}

// refiner is the driver of the batched refinement: run.go's phase 1 and
// its final residual evaluation (runtime/newton, Degree 0), step by step
// for every path of a batch at once, with the decisions of each path taken
// on the host exactly as run.go takes them for one, and runtime/cpu's
// Newton back end's order of operations. Each path's Result is
// newton.Solver's on that path alone, bit for bit.
type refiner struct {
	sys  *poly.System
	prec mdops.Prec
	opt  newton.Options // defaults filled in by newton.New
	n, m int
	// u and sqrtU as newton.Solver has them (newton.go): the unit
	// roundoff, and its square root rounded up to a power of two.
	u, sqrtU float64
	addTo    func(dst, src []float64)
}

// newRefiner checks sys and prec as newton.New does, and takes its
// defaults.
func newRefiner(sys *poly.System, prec mdops.Prec, opt RefineOptions) (*refiner, error) {
	s, err := newton.New(sys, newton.Options{Prec: prec, Degree: 0, Workers: 1,
		MaxSteps: opt.MaxSteps, MaxCond: opt.MaxCond, RefineTol: opt.RefineTol})
	if err != nil {
		return nil, err
	}
	r := &refiner{sys: sys, prec: prec, opt: s.Options(), n: len(sys.Vars), m: len(sys.Polys)}
	if err := s.Close(); err != nil {
		return nil, err
	}
	r.u = prec.UnitRoundoff()
	r.sqrtU = newton.HalfPrecision(r.u)
	sk, ok := mdops.SeriesKernelsFor(prec.N)
	if !ok {
		return nil, fmt.Errorf("gpu: refining: %w", prec.Check())
	}
	r.addTo = sk.AddTo
	if prec.Complex {
		r.addTo = sk.AddToComplex
	}
	return r, nil
}

// norm1 is runtime/newton's Norm1 (la.LeadNorm1).
func (r *refiner) norm1(x []float64) float64 { return la.LeadNorm1(x, r.prec) }

// refinePath is the state of one path: run.go's run at degree 0.
type refinePath struct {
	res   *newton.Result
	x     []float64 // n values (W doubles each): the Result's X
	steps int
	prev  float64 // the relative update of the step before (none: -1)
	cond  float64
	stage pathStage

	// This step's numbers (stepOut).
	fnorm, a0norm, nb float64
	skipped           bool
}

type pathStage int

const (
	pathActive   pathStage = iota // refining
	pathResidual                  // converged; the final residual evaluation is due
	pathDone
)

// checkStarts checks the length of every start.
func (r *refiner) checkStarts(starts [][]float64) error {
	w := r.prec.Width()
	for i, x0 := range starts {
		if len(x0) != r.n*w {
			return fmt.Errorf("gpu: refining: start %d has %d doubles, want %d (%d unknowns of %d)", i+1, len(x0), r.n*w, r.n, w)
		}
	}
	return nil
}

// run refines starts on dev, which has slots slots (len(starts) <=
// slots; start i in slot i). The error is the device's, naming the step.
func (r *refiner) run(dev refineDevice, slots int, starts [][]float64) ([]*newton.Result, error) {
	n, m, W, N := r.n, r.m, r.prec.Width(), r.prec.N
	P := len(starts)
	paths := make([]*refinePath, P)
	for i, x0 := range starts {
		paths[i] = &refinePath{prev: -1, x: append([]float64(nil), x0...),
			res: &newton.Result{N: N, Complex: r.prec.Complex, Degree: 0, Vars: r.sys.Vars}}
		paths[i].res.X = paths[i].x
	}
	a := make([]float64, slots*m*n*W)
	b := make([]float64, slots*m*W)
	dx := make([]float64, slots*n*W)
	xs := make([][]float64, slots)
	want := make([]bool, slots)
	each := func(f func(s int, p *refinePath)) {
		par.Run(P, func(_, s int) { f(s, paths[s]) })
	}
	for step := 1; ; step++ {
		// The step limit, at the top of run.go's loop; then evaluate the
		// active paths and those due their final residual.
		due := false
		for s, p := range paths {
			xs[s] = nil
			if p.stage == pathActive && p.steps >= r.opt.MaxSteps {
				r.fail(p, &newton.Failure{Kind: newton.StepLimit, Step: p.steps, Degree: 0, Refine: true,
					Update: p.res.Update, Residual: p.res.Residual, FNorm: p.res.FNorm})
			}
			switch p.stage {
			case pathActive:
				p.steps++
				fallthrough
			case pathResidual:
				xs[s], due = p.x, true
			}
		}
		if !due {
			break
		}
		if err := dev.evaluate(xs, b, a); err != nil {
			return nil, fmt.Errorf("gpu: refining %d paths: evaluation (step %d): %w", P, step, err)
		}
		// 1. b = -G, A = J; ||b||_1 and max |b|.
		each(func(s int, p *refinePath) {
			bs := b[s*m*W : (s+1)*m*W]
			switch p.stage {
			case pathResidual:
				p.res.Residual = r.norm1(bs)
				p.res.Converged, p.res.Steps, p.res.Cond = true, p.steps, p.cond
				p.stage = pathDone
			case pathActive:
				p.fnorm = r.norm1(bs)
				if p.steps == 1 {
					p.res.StartResidual = p.fnorm
				}
				if bmax := backend.MaxAbs(bs, r.prec); math.IsNaN(bmax) || math.IsInf(bmax, 0) {
					r.fail(p, &newton.Failure{Kind: newton.Diverging, NonFinite: true, Step: p.steps, Degree: 0, Refine: true})
				}
			}
		})
		// 2. The QR of A_0 (every step of the refinement makes one: a
		// step that moves x(0) invalidates it, one that does not ends
		// the refinement), its rank, condition and ||A_0||_1.
		nwant := 0
		for s, p := range paths {
			want[s] = p.stage == pathActive
			if want[s] {
				nwant++
			}
		}
		if nwant == 0 {
			continue
		}
		rank, cond, err := dev.factor(a, want)
		if err != nil {
			return nil, fmt.Errorf("gpu: refining %d paths: QR (step %d): %w", P, step, err)
		}
		each(func(s int, p *refinePath) {
			if p.stage != pathActive {
				return
			}
			p.res.Work.QRs++
			if rank[s] != nil {
				r.fail(p, &newton.Failure{Kind: newton.Singular, Rank: rank[s], Col: rank[s].Col, Step: p.steps, Degree: 0, Refine: true})
				return
			}
			p.cond = cond[s]
			p.a0norm = 0
			as := a[s*m*n*W : (s+1)*m*n*W]
			for j := 0; j < n; j++ {
				p.a0norm = max(p.a0norm, r.norm1(as[j*m*W:(j+1)*m*W]))
			}
			if !(p.cond <= r.opt.MaxCond) {
				r.fail(p, &newton.Failure{Kind: newton.IllConditioned, Cond: p.cond, MaxCond: r.opt.MaxCond, Step: p.steps, Degree: 0, Refine: true})
				return
			}
			// 3. The skip test of block 0 (its norm is the fnorm).
			xs := backend.MaxAbs(p.x, r.prec)
			if xs == 0 {
				xs = 1
			}
			p.nb = p.fnorm
			p.skipped = p.nb <= newton.SkipTol(r.u, xs, p.a0norm, p.cond)
		})
		nwant = 0
		for s, p := range paths {
			want[s] = p.stage == pathActive && !p.skipped
			if want[s] {
				nwant++
			}
		}
		// 3, 4. dx = R^-1 Q^H b and the residual of the linear system.
		var resid []float64
		if nwant > 0 {
			if resid, err = dev.solve(b, want, dx); err != nil {
				return nil, fmt.Errorf("gpu: refining %d paths: solve (step %d): %w", P, step, err)
			}
		}
		// 5. x += dx, then the stop rule (run.go's phase 1).
		each(func(s int, p *refinePath) {
			if p.stage != pathActive {
				return
			}
			dxs := dx[s*n*W : (s+1)*n*W]
			residual := p.nb
			if p.skipped {
				clear(dxs)
			} else {
				residual = resid[s]
			}
			delta := backend.MaxAbs(dxs, r.prec)
			if !p.skipped {
				for v := 0; v < n; v++ {
					r.addTo(p.x[v*W:(v+1)*W], dxs[v*W:(v+1)*W])
				}
			}
			xsNew := backend.MaxAbs(p.x, r.prec)
			if math.IsNaN(xsNew) || math.IsInf(xsNew, 0) || math.IsNaN(delta) || math.IsInf(delta, 0) {
				r.fail(p, &newton.Failure{Kind: newton.Diverging, NonFinite: true, Step: p.steps, Degree: 0, Refine: true})
				return
			}
			if xsNew == 0 {
				xsNew = 1
			}
			rel := delta / xsNew
			// report
			p.res.Update = rel
			if !p.skipped {
				p.res.PointUpdate = delta
			}
			p.res.Residual, p.res.FNorm = residual, p.fnorm
			if r.converged(p, rel) || rel <= r.opt.RefineTol {
				p.res.RefineSteps = p.steps
				if p.skipped {
					p.res.Converged, p.res.Steps, p.res.Cond = true, p.steps, p.cond
					p.stage = pathDone
				} else {
					p.stage = pathResidual
				}
				return
			}
			if kind := newton.Growing(rel, p.prev, r.sqrtU); kind != 0 {
				r.fail(p, &newton.Failure{Kind: kind, Step: p.steps, Degree: 0, Refine: true, Update: rel, PrevUpdate: p.prev,
					Residual: residual, FNorm: p.fnorm, StartResidual: p.res.StartResidual, Cond: p.cond, SqrtU: r.sqrtU})
				return
			}
			p.prev = rel
		})
	}
	out := make([]*newton.Result, P)
	for i, p := range paths {
		out[i] = p.res
	}
	return out, nil
}

// converged is run.go's stop rule.
func (r *refiner) converged(p *refinePath, delta float64) bool {
	return newton.Converged(delta, p.prev, r.u, r.sqrtU, p.cond)
}

// fail is run.go's fail: the path stops with f.
func (r *refiner) fail(p *refinePath, f *newton.Failure) {
	p.res.Converged = false
	p.res.Err = f
	p.res.Steps = p.steps
	p.res.Cond = p.cond
	if f.Cond == 0 {
		f.Cond = p.cond
	}
	if f.StartResidual == 0 {
		f.StartResidual = p.res.StartResidual
	}
	p.stage = pathDone
}
