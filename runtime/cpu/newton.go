package cpu

import (
	"errors"
	"fmt"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/stager"
)

// Newton is the CPU back end of Newton's method (it implements
// runtime/newton.Backend, the default one): flat buffers in the layouts of
// the executor (x) and of la (A, b, dx, y), the executors of the
// NewtonConfig (this package's by default), and la's routines with the
// Solver's workers. Its order of operations is the specification that
// runtime/gpu reproduces bit for bit.
type Newton struct {
	c       backend.NewtonConfig
	addTo   func(dst, src []float64)
	newQR   func(m, n int, a []float64, lda, workers int) (la.Factorization, error)
	mulSub  func(m, n int, a []float64, lda int, x, b []float64, workers int)
	mulSubs func(count, m, n int, a []float64, lda, strideA int, x []float64, strideX int, b []float64, strideB int, workers int)

	x  []float64 // n series of d+1 coefficients: (v*(d+1)+k)*W
	a  []float64 // A_k, k = 0..d: m x n column-major, (k*m*n + i + j*m)*W
	b  []float64 // b_k, k = 0..d: (k*m + i)*W
	dx []float64 // dx_k, k = 0..d: (k*n + j)*W
	y  []float64 // m numbers: Q^H b_k, then dx_k in y[:n]
	e  []float64 // m x m (lda = m): -R^-1 Q^H in its first n rows (phase 2)
	rb []float64 // d+1 vectors of m numbers: b_k - A_0 dx_k (the residual)
	qr la.Factorization
	// qrMem is the factorization made by the first Factor, refactored in
	// place by the later ones (the same bits, no allocation); qr is qrMem
	// once a solve has factored.
	qrMem la.Factorization
	// b0norm is Norm1(b_0) when b0valid: the fnorm of the last Evaluate
	// at degree 0 (the same sum of the same terms), which BlockNorm(0)
	// then returns instead of summing again (b_0 does not change after
	// Evaluate: the updates write b_j, j > k).
	b0norm  float64
	b0valid bool
	// outs caches the output series of each executor, by degree.
	outs map[int]*execOutputs

	// The stage clock: Mark, Lap and Times.
	backend.StageClock
}

// NewNewton makes the CPU back end for c.
func NewNewton(c backend.NewtonConfig) (*Newton, error) {
	sk, ok := mdops.SeriesKernelsFor(c.Prec.N)
	if !ok {
		return nil, fmt.Errorf("newton: %w", c.Prec.Check())
	}
	lk, ok := la.KernelsFor(c.Prec.N)
	if !ok {
		return nil, fmt.Errorf("newton: no linear algebra for %d doubles", c.Prec.N)
	}
	be := &Newton{c: c}
	if c.Prec.Complex {
		be.addTo = sk.AddToComplex
		be.newQR, be.mulSub, be.mulSubs = lk.NewQRComplex, lk.MulSubComplex, lk.MulSubBatchComplex
	} else {
		be.addTo = sk.AddTo
		be.newQR, be.mulSub, be.mulSubs = lk.NewQR, lk.MulSub, lk.MulSubBatch
	}
	return be, nil
}

func (be *Newton) Reset(x0 []float64) error {
	c := be.c
	d, n, m, W := c.Degree, c.Vars, c.Eqs, c.Prec.Width()
	// x is the Result's: a fresh one per solve. The work buffers are made
	// by the first solve and reused by the later ones (a tracker solves
	// thousands of times per path): every element that a solve reads is
	// written before, by Evaluate (A_k, b_k up to the working degree),
	// SkipBlock or SolveR/SolveBlock (dx_k), ApplyQH (y), FormInverse (E)
	// and Residual (rb), so nothing of the last solve shows.
	be.x = make([]float64, n*(d+1)*W)
	if be.a == nil {
		be.a = make([]float64, (d+1)*m*n*W)
		be.b = make([]float64, (d+1)*m*W)
		be.dx = make([]float64, (d+1)*n*W)
		be.y = make([]float64, m*W)
		be.rb = make([]float64, (d+1)*m*W)
	}
	be.qr = nil
	be.b0valid = false
	for v := 0; v < n; v++ {
		copy(be.x[v*(d+1)*W:v*(d+1)*W+W], x0[v*W:(v+1)*W])
	}
	be.StartClock()
	return nil
}

func (be *Newton) X() ([]float64, error) { return be.x, nil }

func (be *Newton) Close() error { return nil }

func (be *Newton) maxAbs(x []float64) float64 { return backend.MaxAbs(x, be.c.Prec) }

// norm1 is the 1-norm of the driver's decisions and reports (the package
// documentation of runtime/newton): la.LeadNorm1, a float64 sum of the
// magnitudes of the leading limbs. They need no more digits than a
// float64's, and a multiple-double norm of complex elements (moduli: square
// roots) cost a fifth of a small system's Newton step.
func (be *Newton) norm1(x []float64) float64 { return la.LeadNorm1(x, be.c.Prec) }

// Evaluate runs the executor of degree w at x mod t^(w+1) and sets
// b_k = -G_k (k = 0..w) and, with jac, A_k = J_k.
func (be *Newton) Evaluate(w int, jac bool) (float64, float64, error) {
	c := be.c
	d, n, m, W := c.Degree, c.Vars, c.Eqs, c.Prec.Width()
	e, err := c.Exec(w)
	if err != nil { // staged by Prepare; cannot happen
		return 0, 0, err
	}
	for v := 0; v < n; v++ {
		off := v * (d + 1) * W
		e.SetInput(v, be.x[off:off+(w+1)*W])
	}
	if err := e.Run(); err != nil {
		return 0, 0, fmt.Errorf("executor: %w", err)
	}
	outs := be.outputs(w, e)
	for i := 0; i < m; i++ {
		val := outs.values[i]
		for k := 0; k <= w; k++ {
			off := (k*m + i) * W
			negateInto(be.b[off:off+W], val[k*W:(k+1)*W])
		}
	}
	if jac {
		for j := 0; j < n; j++ {
			for i := 0; i < m; i++ {
				der := outs.derivs[i+j*m]
				for k := 0; k <= w; k++ {
					off := (k*m*n + i + j*m) * W
					if der == nil {
						clear(be.a[off : off+W])
					} else {
						copy(be.a[off:off+W], der[k*W:(k+1)*W])
					}
				}
			}
		}
	}
	bw := be.b[:(w+1)*m*W]
	fnorm := be.norm1(bw)
	be.b0norm, be.b0valid = fnorm, w == 0
	return fnorm, be.maxAbs(bw), nil
}

// execOutputs are the output series of one executor (its memory, written
// by every Run): the values of the m polynomials, and the m x n
// derivatives column-major (nil: identically zero).
type execOutputs struct {
	values [][]float64
	derivs [][]float64
}

// StableOutputs is an executor whose Value and Deriv return the same
// slices after every Run, the run's outputs in them, as this package's
// executor does (runtime/lockstep's batched executor's recorders).
type StableOutputs interface{ StableOutputs() }

// outputs returns the outputs of e, the executor of degree w, after a
// Run. Those of this package's executor (fixed places in its memory) and
// of a StableOutputs are looked up once (a plan finds a derivative by a
// binary search); another executor's only promise to be valid until its
// next Run.
func (be *Newton) outputs(w int, e backend.Executor) *execOutputs {
	if o, ok := be.outs[w]; ok {
		return o
	}
	_, cache := e.(*Executor)
	if _, ok := e.(StableOutputs); ok {
		cache = true
	}
	n, m := be.c.Vars, be.c.Eqs
	o := &execOutputs{values: make([][]float64, m), derivs: make([][]float64, m*n)}
	plan := e.Plan()
	for i := 0; i < m; i++ {
		o.values[i] = e.Value(i)
		for j := 0; j < n; j++ {
			if plan.DerivSlot(i, j) != stager.NoSlot {
				o.derivs[i+j*m] = e.Deriv(i, j)
			}
		}
	}
	if cache {
		if be.outs == nil {
			be.outs = map[int]*execOutputs{}
		}
		be.outs[w] = o
	}
	return o
}

func (be *Newton) Factor(bool) (*la.RankError, float64, float64, error) {
	c := be.c
	n, m, W := c.Vars, c.Eqs, c.Prec.Width()
	qr := be.qrMem
	var err error
	if qr == nil {
		qr, err = be.newQR(m, n, be.a[:m*n*W], m, c.Workers)
		be.qrMem = qr
	} else {
		err = qr.Refactor(be.a[:m*n*W], m, c.Workers)
	}
	if err != nil {
		// Declared here: errors.As makes it escape, an allocation per QR.
		var rank *la.RankError
		if errors.As(err, &rank) {
			return rank, 0, 0, nil
		}
		return nil, 0, 0, fmt.Errorf("QR: %w", err)
	}
	be.qr = qr
	cond := qr.CondWorkers(c.Workers)
	a0norm := 0.0
	for j := 0; j < n; j++ {
		a0norm = max(a0norm, be.norm1(be.a[j*m*W:(j+1)*m*W]))
	}
	return nil, cond, a0norm, nil
}

func (be *Newton) MaxAbsX() (float64, error) { return be.maxAbs(be.x), nil }

func (be *Newton) BlockNorm(k int) (float64, error) {
	if k == 0 && be.b0valid {
		return be.b0norm, nil
	}
	m, W := be.c.Eqs, be.c.Prec.Width()
	return be.norm1(be.b[k*m*W : (k+1)*m*W]), nil
}

func (be *Newton) SkipBlock(k int) error {
	n, W := be.c.Vars, be.c.Prec.Width()
	clear(be.dx[k*n*W : (k+1)*n*W])
	return nil
}

func (be *Newton) ApplyQH(k int) error {
	m, W := be.c.Eqs, be.c.Prec.Width()
	copy(be.y, be.b[k*m*W:(k+1)*m*W])
	be.qr.ApplyQH(be.y, be.c.Workers)
	return nil
}

func (be *Newton) SolveR(k int) error {
	n, W := be.c.Vars, be.c.Prec.Width()
	if err := be.qr.SolveR(be.y, be.c.Workers); err != nil {
		return fmt.Errorf("back substitution: %w", err)
	}
	copy(be.dx[k*n*W:(k+1)*n*W], be.y[:n*W])
	return nil
}

// FormInverse: E = -I_m, E = Q^H E (ApplyQHMany, the m columns), then
// SolveRMany on the first n rows of each column: E[0:n, :] = -R^-1 Q^H.
func (be *Newton) FormInverse() error {
	m, W := be.c.Eqs, be.c.Prec.Width()
	if be.e == nil {
		be.e = make([]float64, m*m*W)
	} else {
		clear(be.e)
	}
	for i := 0; i < m; i++ {
		be.e[(i+i*m)*W] = -1
	}
	be.qr.ApplyQHMany(m, be.e, m, be.c.Workers)
	if err := be.qr.SolveRMany(m, be.e, m, be.c.Workers); err != nil {
		return fmt.Errorf("forming R^-1 Q^H: %w", err)
	}
	return nil
}

// SolveBlock: dx_k = 0 - E[0:n, :] b_k (la MulSub; E[0:n, :] = -M).
func (be *Newton) SolveBlock(k int) error {
	n, m, W := be.c.Vars, be.c.Eqs, be.c.Prec.Width()
	dx := be.dx[k*n*W : (k+1)*n*W]
	clear(dx)
	be.mulSub(n, m, be.e, m, be.b[k*m*W:(k+1)*m*W], dx, be.c.Workers)
	return nil
}

// UpdateB: b_j -= A_(j-k) dx_k for j = k+1..w: independent products
// (A_1..A_(w-k) are consecutive, as are b_(k+1)..b_w), spread over the
// workers.
func (be *Newton) UpdateB(k, w int) error {
	n, m, W := be.c.Vars, be.c.Eqs, be.c.Prec.Width()
	be.mulSubs(w-k, m, n, be.a[m*n*W:], m, m*n, be.dx[k*n*W:(k+1)*n*W], 0, be.b[(k+1)*m*W:], m, be.c.Workers)
	return nil
}

// Residual: sum_k ||b_k - A_0 dx_k||_1, b_k as updated by the blocks
// before k (||b_k||_1 for a skipped block). Each run of unskipped blocks
// k0..k1-1 is one batch of products rb_k = b_k - A_0 dx_k (a copy of b_k,
// then la's MulSub), whose norms are then summed in order (norm1).
func (be *Newton) Residual(w int, skipped []bool, nb []float64) (float64, error) {
	n, m, W := be.c.Vars, be.c.Eqs, be.c.Prec.Width()
	copy(be.rb[:(w+1)*m*W], be.b[:(w+1)*m*W])
	for k0 := 0; k0 <= w; {
		if skipped[k0] {
			k0++
			continue
		}
		k1 := k0 + 1
		for k1 <= w && !skipped[k1] {
			k1++
		}
		be.mulSubs(k1-k0, m, n, be.a[:m*n*W], m, 0, be.dx[k0*n*W:], n, be.rb[k0*m*W:], m, be.c.Workers)
		k0 = k1
	}
	r := 0.0
	for k := 0; k <= w; k++ {
		if skipped[k] {
			r += nb[k]
			continue
		}
		r += be.norm1(be.rb[k*m*W : (k+1)*m*W])
	}
	return r, nil
}

// UpdateX: x += dx, block by block, variable by variable.
func (be *Newton) UpdateX(w, wPrev int, skipped []bool) (float64, float64, float64, error) {
	d, n, W := be.c.Degree, be.c.Vars, be.c.Prec.Width()
	delta := be.maxAbs(be.dx[:(w+1)*n*W])
	deltaOld := be.maxAbs(be.dx[:(wPrev+1)*n*W])
	for k := 0; k <= w; k++ {
		if skipped[k] {
			continue
		}
		for v := 0; v < n; v++ {
			off := (v*(d+1) + k) * W
			be.addTo(be.x[off:off+W], be.dx[(k*n+v)*W:(k*n+v+1)*W])
		}
	}
	return delta, deltaOld, be.maxAbs(be.x), nil
}

// negateInto sets dst = -src limb by limb (exact: a normalized number stays
// normalized).
func negateInto(dst, src []float64) {
	for i, v := range src {
		dst[i] = -v
	}
}
