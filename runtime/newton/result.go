package newton

import (
	"errors"
	"fmt"
	"math"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/stager/poly"
)

// Result is the outcome of one Solve.
type Result struct {
	N       int  // doubles per number
	Complex bool // complex data
	Degree  int  // d: the series have d+1 coefficients
	Vars    []string

	// X holds the series of the variables in the executor's layout:
	// coefficient k of variable v is X[(v*(Degree+1)+k)*W : ...+W], W = N
	// or 2N (N real limbs, then N imaginary limbs). It is the last iterate,
	// also when Newton failed.
	X []float64

	// Converged says whether the stop rule was met; otherwise Err says why
	// not (a *Failure).
	Converged bool
	Err       error

	Steps       int // Newton steps in all (refinement steps included)
	RefineSteps int // steps of the refinement of x(0) (Newton at degree 0)

	// Update is the max-norm of the last update dx of the coefficients
	// the last step started with (those it computed for the first time
	// are not corrections), relative to the max-norm of x: the measure of
	// the stop rule. With Degree 0 it is PointUpdate / max |x(0)|.
	Update float64
	// PointUpdate is the max-norm of the last correction made to x(0) in
	// the refinement (phase 1; a step whose residual passes the skip test
	// makes none), not relative: PHCpack's err of the point, with
	// |z| = max(|Re z|, |Im z|) of the leading limbs (PHCpack takes |Re z| +
	// |Im z|, at most twice as much).
	PointUpdate float64
	// Residual: with Degree 0 (root refinement), ||G(x(0), 0)||_1 at the
	// final x(0), as evaluated (PHCpack's res). With Degree d > 0, the
	// 1-norm of the residual of the last linear system, sum over k = 0..d
	// of ||b_k - sum_(i<=k) A_(k-i) dx_i||_1 with b = -G at the x before
	// the last update (see the package documentation): to first order the
	// 1-norm of G(x(t), t) mod t^(d+1) at the final x, at no extra
	// evaluation. Every 1-norm of the Result (Residual, FNorm,
	// StartResidual) is the package documentation's Norm1: the float64 sum
	// of |Re| + |Im| of the leading limbs of the elements.
	Residual float64
	// FNorm is ||G(x(t), t) mod t^(w+1)||_1 at the x of the start of the
	// last step (before its update), as evaluated.
	FNorm float64
	// StartResidual is ||G(x(0), 0)||_1 at the start point as given.
	StartResidual float64
	// Cond is the 1-norm condition estimate of R in the QR of A_0 = J(x(0))
	// at the final x(0) (la's Factorization.Cond).
	Cond float64

	Times Times
	// Work counts the linear algebra of the solve (for rates: the
	// operations of each stage over its time).
	Work Work
}

// Work is the linear algebra of one Solve, in la's operations: the QRs of
// A_0 (m x n: sum over k < n of 2(m-k-1)(n-k-1) multiply-adds, la's count;
// each with its condition estimate), the formings of -M = -R^-1 Q^H
// (phase 2: ApplyQHMany and SolveRMany on m columns), and the update
// products b_j -= A_(j-k) dx_k (MulSub of m x n: m n multiply-adds each).
type Work struct {
	QRs      int
	Inverses int
	Updates  int
}

// W returns the doubles per number.
func (r *Result) W() int { return mdops.Prec{N: r.N, Complex: r.Complex}.Width() }

// Coef returns the limbs of coefficient k of variable v (W doubles; a view
// of X).
func (r *Result) Coef(v, k int) []float64 {
	w := r.W()
	off := (v*(r.Degree+1) + k) * w
	return r.X[off : off+w : off+w]
}

// Rat returns the exact value of coefficient k of variable v (zero parts
// for non-finite limbs).
func (r *Result) Rat(v, k int) poly.Rational {
	var z poly.Rational
	c := r.Coef(v, k)
	if re := limbsRat(c[:r.N]); re != nil {
		z.Re.Set(re)
	}
	if r.Complex {
		if im := limbsRat(c[r.N:]); im != nil {
			z.Im.Set(im)
		}
	}
	return z
}

// Text returns coefficient k of variable v as decimal strings with all the
// digits of the precision (ceil(53 N log10 2) + 1 significant digits, E
// notation; "0" for zero); the imaginary part is "0" for real data.
func (r *Result) Text(v, k int) (re, im string) {
	c := r.Coef(v, k)
	re = formatLimbs(c[:r.N], r.N)
	im = "0"
	if r.Complex {
		im = formatLimbs(c[r.N:], r.N)
	}
	return re, im
}

// Series returns the exact series of the variables: out[v][k].
func (r *Result) Series() [][]poly.Rational {
	out := make([][]poly.Rational, len(r.Vars))
	for v := range out {
		out[v] = make([]poly.Rational, r.Degree+1)
		for k := range out[v] {
			z := r.Rat(v, k)
			out[v][k].Re.Set(&z.Re)
			out[v][k].Im.Set(&z.Im)
		}
	}
	return out
}

// FailureKind classifies why Newton's method stopped without converging.
type FailureKind int

const (
	// Singular: A_0 = J(x(0)) is rank deficient (la.RankError; the column
	// is named).
	Singular FailureKind = iota + 1
	// IllConditioned: the condition estimate of A_0 is above Options.MaxCond.
	IllConditioned
	// Diverging: the update grew (or a value became Inf or NaN).
	Diverging
	// StepLimit: no convergence within Options.MaxSteps steps.
	StepLimit
	// Stalled: the update stopped decreasing between 2^-26 and half the
	// working precision (the floor that rounding and the conditioning of
	// the problem set): x is as good as this precision makes it, short of
	// the convergence test.
	Stalled
)

// Sentinel errors, matched by errors.Is on a *Failure of that kind.
var (
	ErrSingular       = errors.New("singular Jacobian at t = 0")
	ErrIllConditioned = errors.New("ill-conditioned Jacobian at t = 0")
	ErrDiverging      = errors.New("diverging")
	ErrStepLimit      = errors.New("step limit")
	ErrStalled        = errors.New("stalled")
)

// Failure says why Newton's method did not converge.
type Failure struct {
	Kind   FailureKind
	Step   int // the step at which it stopped (1-based, counting refinement steps)
	Degree int // the working degree w of that step
	Refine bool
	// Singular: the rank error of the QR of A_0 (Col is the 1-based column).
	Rank *la.RankError
	// Col is the 1-based column of A_0 found dependent (Singular), else 0.
	Col int
	// Cond is the condition estimate (IllConditioned; also set otherwise
	// when known); MaxCond the limit it passed.
	Cond, MaxCond float64
	// Update and PrevUpdate: the last two relative updates (Diverging,
	// Stalled); SqrtU half the working precision, 2^(-53N/2) (Stalled).
	Update, PrevUpdate, SqrtU float64
	// Residual is the residual of the last linear system, FNorm the 1-norm
	// of G at the last iterate (before its update), StartResidual
	// ||G(x(0), 0)||_1 at the start point.
	Residual, FNorm, StartResidual float64
	// NonFinite: a value of x or G became Inf or NaN.
	NonFinite bool
}

func (f *Failure) sentinel() error {
	switch f.Kind {
	case Singular:
		return ErrSingular
	case IllConditioned:
		return ErrIllConditioned
	case Diverging:
		return ErrDiverging
	case StepLimit:
		return ErrStepLimit
	case Stalled:
		return ErrStalled
	}
	return nil
}

// Is makes errors.Is(f, ErrSingular) and the like work.
func (f *Failure) Is(target error) bool { return target != nil && target == f.sentinel() }

// Unwrap returns the la.RankError of a Singular failure.
func (f *Failure) Unwrap() error {
	if f.Rank != nil {
		return f.Rank
	}
	return nil
}

func (f *Failure) Error() string {
	where := fmt.Sprintf("step %d, degree %d", f.Step, f.Degree)
	if f.Refine {
		where = fmt.Sprintf("step %d, refining x(0)", f.Step)
	}
	switch f.Kind {
	case Singular:
		return fmt.Sprintf("singular Jacobian at t = 0: column %d is dependent on the columns before it (|R_kk| / max |R_jj| = %.3g below %.3g; %s)",
			f.Col, f.Rank.Ratio, f.Rank.Tol, where)
	case IllConditioned:
		return fmt.Sprintf("ill-conditioned Jacobian at t = 0: condition estimate %.3g above %.3g (%s)", f.Cond, f.MaxCond, where)
	case Diverging:
		if f.NonFinite {
			return fmt.Sprintf("diverging: a value became Inf or NaN (%s; residual of the start %.3g)", where, f.StartResidual)
		}
		msg := fmt.Sprintf("diverging: the update grew from %.3g to %.3g (relative; %s), ||f||_1 = %.3g there", f.PrevUpdate, f.Update, where, f.FNorm)
		if f.Refine {
			msg += fmt.Sprintf("; the start is not a solution at t = 0: ||f(x(0), 0)||_1 = %.3g", f.StartResidual)
		}
		return msg
	case Stalled:
		return fmt.Sprintf("stalled: the relative update stopped decreasing at %.3g (%.3g the step before; %s), about %.0f bits, short of half the working precision (%.0f bits): the conditioning of the problem limits it at this precision; ||f||_1 = %.3g there",
			f.Update, f.PrevUpdate, where, -math.Log2(f.Update), -math.Log2(f.SqrtU), f.FNorm)
	case StepLimit:
		return fmt.Sprintf("step limit: no convergence after %d steps (%s; last relative update %.3g, ||f||_1 = %.3g, residual of the linear system %.3g)", f.Step, where, f.Update, f.FNorm, f.Residual)
	}
	return "newton: unknown failure"
}
