// Package newton is the Newton driver: Newton's method on truncated power
// series (Verschelde et al., arXiv:2301.12659, CASC 2024) for a system
// G(x, t) = 0 of m equations in n unknowns (m >= n: least squares) and the
// series parameter t, from a regular solution x(0) at t = 0 to the Taylor
// series x(t) = x_0 + x_1 t + ... + x_d t^d, every coefficient to the
// working precision of N doubles, real or complex. With d = 0 it is a root
// refiner (PHCpack's phc -v).
//
// This CPU implementation is the specification that a GPU version must
// reproduce bit for bit: every operation below is listed in its order, on
// flat []float64 buffers in the layouts of the executor (runtime) and of the
// linear algebra (mdops/la), and no result depends on the worker count.
//
// # API
//
//	s, err := newton.New(sys, newton.Options{Prec: 8, Degree: 32, Complex: false, Workers: 2})
//	res, err := s.Solve(start)   // start: the values at t = 0, exact (poly.Rational)
//	res.Converged, res.Err       // res.Err is a *Failure: Singular (column), IllConditioned, Diverging, Stalled, StepLimit
//	res.Coef(v, k), res.Text(v, k), res.Rat(v, k), res.Series()
//	res.Residual, res.Cond, res.Update, res.Steps, res.Times (six stages)
//
//	s.SetSystem(sys2)               // new coefficients, same monomials: no staging (coef.go)
//	s.SetCoefficient(i, j, limbs)   // one coefficient, rounded already: no allocation
//	b, err := newton.SolveEach(sys, opt, starts, done) // many starts, one per worker (many.go)
//
// A path tracker calls Newton on one system thousands of times per path,
// from new points and with new coefficients: the Solver is prepared once
// (plans staged, executors and buffers made) and SetCoefficient refills the
// executors' coefficient slots in place; a solve then gives the bits of a
// Solver made for the new coefficients (TestSetSystem). SolveEach runs
// one solver per worker, each with one worker of its own: the work of a
// small system is too short to share, and every result is independent of
// the worker count.
//
// # Buffers (W = N doubles per real number, 2N per complex one: the N limbs
// of the real part, then the N limbs of the imaginary part)
//
//	x   n series of d+1 coefficients (the executor's input layout):
//	    coefficient k of variable v at (v*(d+1) + k)*W
//	A   d+1 matrices A_k = coefficient k of the Jacobian J(x(t), t), m x n,
//	    column-major with lda = m (la's layout): A_k(i, j) at (k*m*n + i + j*m)*W
//	b   d+1 vectors b_k = -coefficient k of G(x(t), t), m numbers: b_k[i] at (k*m + i)*W
//	dx  d+1 vectors dx_k, n numbers: dx_k[j] at (k*n + j)*W
//	y   m numbers of work space
//	E   m x m numbers (phase 2), column-major with lda = m (la's layout):
//	    E(i, j) at (i + j*m)*W; its first n rows hold -M = -R^-1 (Q^H)[0:n, :]
//
// # Plans per working degree
//
// A stager.Plan is staged for one degree. The staggered degrees need an
// evaluation at each working degree w; the Solver stages one plan and makes
// one executor per distinct w (Stagger(d): about log_1.5(d) of them) and
// keeps them for every step and every start point. The alternative, one
// plan at degree d run with the coefficients above w zero, costs
// (d+1)(d+2)/2 multiply-adds per convolution at every step instead of
// (w+1)(w+2)/2: over a solve the staged plans do about a third of the
// convolution work of the full-degree plan (d = 32: 2,370 against 5,610
// coefficient products per convolution over 10 steps; d = 64: 7,791 against
// 23,595 over 11), for 3 to 4 times its memory (the sum of w+1 over the
// stagger against d+1: 109 against 33 at d = 32, 244 against 65 at d = 64). An executor that runs a plan truncated at a lower degree on the
// same data array would give both; see the report of issue 11.
//
// # The driver, in order
//
// Tolerances use u = 2^(-53 N) and magnitudes |z| = max(|re_0|, |im_0|) of
// the leading limbs (a max-norm is exact in any order). Norm1 is
// la.LeadNorm1: the float64 sum s = s + |z_i|_0 in increasing i from
// s = 0, |z|_0 = |re_0| + |im_0| of the leading limbs (|re_0| for real
// data), so every 1-norm below is a float64 computed in that order (they
// feed only decisions and reports, which need no more digits; the moduli
// of complex multiple-double numbers, square roots, had cost a fifth of a
// small system's step). MulSub, NewQR, ApplyQH, ApplyQHMany, SolveR,
// SolveRMany and Cond are la's, with la's documented reduction orders; Add
// is mdops' (the series kernels' AddTo).
//
// Phase 1, refinement of x(0): Newton steps at working degree w = 0.
// Phase 2, series: Newton steps at w = 1, 2, 4, 7, 11, 17, 26, 40, 61, ...
// (w <- min(w + 1 + w/2, d)), then at w = d until the stop rule holds.
// x(0) is frozen in phase 2: block 0 of the series system is the equation
// G(x(0), 0) = 0 on which phase 1 converged (it does not depend on the higher
// coefficients), so its update would be rounding noise and would force a new
// QR at every step.
//
// One Newton step at working degree w (wPrev: the degree of the step before):
//
//  1. Evaluate: for v = 0..n-1 the executor's input v is coefficients
//     0..w of x_v; the executor runs its layers (its own order); then for
//     i = 0..m-1, k = 0..w: b_k[i] = -G_i[k] (each limb negated), and for
//     j = 0..n-1, i = 0..m-1, k = 0..w: A_k(i, j) = dG_i/dx_j[k] (zero when
//     the plan has no such derivative); then Norm1 of b (all w+1 blocks as
//     one vector: ||G(x(t), t) mod t^(w+1)||_1, Result.FNorm). If a leading
//     limb of b is Inf or NaN: diverging.
//  2. QR, when no QR of A_0 at the current x(0) exists (every step of phase
//     1 that changed x(0), the first step of phase 2): Householder QR of
//     A_0 (la NewQR); a rank error stops with Singular and its column; then
//     cond = Cond() (la's estimate, whose own 1-norms are float64 sums of
//     the leading limbs, la.LeadNorm1): first with float64 solves by the
//     leading limbs of R (la.LeadR), which is cond when it is final (at 1
//     double, or at most la.LeadCondLimit(n) = 2^45/(n+1)); else again
//     with multiple-double solves by R and R^H; ||A_0||_1 = max over
//     j = 0..n-1 of Norm1(column j);
//     cond > MaxCond stops with IllConditioned.
//  3. For k = 0..w, in order:
//     nb_k = Norm1(b_k) (b_k as updated by the blocks before k);
//     skip block k when k = 0 in phase 2, or when
//     nb_k <= 2^8 u max|x| ||A_0||_1 / cond (so the bound
//     cond/||A_0||_1 * nb_k on ||dx_k|| is below 2^8 units of the last
//     place of x; max|x| over every coefficient of x, 1 when x = 0);
//     a skipped block gets dx_k = 0 and no updates. Otherwise the solve
//     of block k, in phase 1 (one block per QR):
//     Q^H b: y = b_k, ApplyQH(y);
//     back substitution: SolveR(y), dx_k = y[0..n-1];
//     and in phase 2 (one QR serves every block of every step):
//     inverse, before the first block that is not skipped after each QR
//     (once per solve when x(0) needs no new QR in phase 2): E = -I_m
//     (every element zero but the leading limb of the real part of
//     E(i, i), -1), ApplyQHMany(nrhs = m, E, ldb = m), then
//     SolveRMany(nrhs = m, E, ldb = m) (on the first n rows of each
//     column), so that E[0:n, :] = -M, M = R^-1 (Q^H)[0:n, :] (a QR that
//     passed the rank check has no zero R_kk);
//     product: dx_k = 0, then MulSub(E[0:n, :] (n x m, lda = m), b_k,
//     dx_k), that is dx_k = 0 - (-M) b_k = M b_k, each row one reduction
//     of m terms in la's order;
//     then the updates: for j = k+1..w in order: MulSub(A_(j-k), dx_k,
//     b_j), that is b_j -= A_(j-k) dx_k. (M b_k is the least-squares
//     solution of A_0 dx_k = b_k as ApplyQH and SolveR compute it, with
//     other roundings: a chain of n dependent reflectors and n dependent
//     rows per block becomes one product of independent rows.)
//  4. Residual: for k = 0..w in order, r += nb_k (skipped) or
//     r += Norm1(b_k - A_0 dx_k), b_k - A_0 dx_k computed by MulSub on a
//     copy of b_k (float64 sums in that order). Since b_k holds b_k - sum_(i<k) A_(k-i) dx_i, r is the
//     1-norm of the residual of the whole block lower-triangular Toeplitz
//     system: Result.Residual for d > 0. It is, to first order in dx, the
//     1-norm of G(x(t), t) mod t^(w+1) at the updated x (exactly that, as
//     evaluated, when the step skipped every block). With d = 0 (root
//     refinement) Result.Residual is ||G(x(0), 0)||_1 at the final x(0)
//     instead: after phase 1, unless its last step skipped block 0 (or
//     Options.NoFinalResidual is set), one more evaluation at degree 0 (item 1 without the Jacobian, timed as
//     Residual) and Norm1 of b_0.
//  5. Update: delta = max |dx_k[j]| over k = 0..w, deltaOld the same over
//     k = 0..wPrev; for k = 0..w not skipped, for v = 0..n-1:
//     x_v[k] = Add(x_v[k], dx_k[v]). Then max|x| (Inf or NaN: diverging),
//     and the relative updates delta/max|x|, deltaOld/max|x|.
//
// # Stop rule
//
// The staggering keeps w <= 2 wPrev + 1. If the coefficients 0..wPrev of x
// are right when a step at degree w starts, the step computes coefficients
// wPrev+1..w exactly up to rounding: the error of the linearization is made
// of products of two updates of those new coefficients, of degree at least
// 2 (wPrev + 1) > w, which the truncation drops. So every step measures,
// in deltaOld, how far the coefficients that were there had still to move,
// and a step at degree d whose deltaOld is below the tolerance has made
// every coefficient right: no step to confirm is needed.
//
// The phase has converged after a step at its full degree (w = 0 in phase
// 1, w = d in phase 2) when its deltaOld (= delta in phase 1 and at every
// later step at d) is at most 2^10 u max(1, cond) (clean convergence), or
// when it is at most 2^(-53N/2) (half the precision) and greater than 1/16
// of the deltaOld of the step before, whatever its degree (for the first
// step of phase 2: the delta of the last step of phase 1): the corrections
// of the coefficients no longer shrink, quadratic convergence has reached
// the rounding floor of the evaluation, and the attained accuracy is about
// deltaOld. After any step that did not converge, Newton is
// diverging when deltaOld is greater than the previous step's delta and
// above half the precision. Every step counts toward MaxSteps
// (DefaultMaxSteps by default); reaching it is StepLimit. So a regular
// start takes its refinement steps (about log2 of the bits it lacks) plus
// one step per staggered degree: 8 for d = 32, 10 for d = 64.
//
// # Options of a path tracker
//
// A path tracker (runtime/track) solves thousands of times per path and
// reads only the iterates, the updates and the condition estimate; these
// opt-in options (defaults off) leave out work whose results it does not
// read, without changing any other bit: RefineTol (phase 1 ends at a
// relative update at most RefineTol), NoFinalResidual (no evaluation
// after phase 1 with Degree 0), NoResidual (item 4 is left out at every
// step: no call of Backend.Residual, the residuals are NaN) and
// NoStageTimes (no call of Backend.Mark or Lap: Times is zero).
//
// # Stage times
//
// Times splits the time of a Solve over the six kinds of work (wall time
// on the CPU; on the GPU, the device's time line between CUDA events
// recorded at the same points, which includes the time the device waits
// for the host): Evaluate
// (item 1, gathering included), QR (item 2, and in phase 2 the forming
// of E), QHB (the skip tests, and ApplyQH in phase 1), BackSub (SolveR and
// the copy into dx_k in phase 1, the product dx_k = M b_k in phase 2),
// Update (the updates of item 3 and item 5) and Residual (item 4). Staging plans and making executors is
// Solver.Setup, outside them.
//
// # Back ends
//
// The control flow above (phases, staggered degrees, skip test, stop rule,
// failures, progress, stage clock) is written once (run.go); the numeric
// work of each item is a method of a Backend (backend.go) that owns the
// buffers. The CPU back end (cpu.go, the default) is the code that was here
// before the split, with the same bits and the same speed;
// Options.NewBackend picks another: runtime/gpu's keeps every buffer on
// the GPU and returns the same bits (TestGPUNewton). A back end returns
// only the float64s the driver decides on (norms, maxima, the condition
// estimate), each computed in the order specified above.
//
// A back end may also take whole solves (WholeSolver): SolveLimbs then
// hands it the solve (WholeSolve: the start X0, the Settings the driver
// reads: Degree, MaxSteps, MaxCond, RefineTol as set for this solve,
// NoResidual, NoFinalResidual, NoStageTimes, u and sqrt(u)) and calls
// none of its other methods for it; the back end fills the Result
// (every field but Times bit for bit as the driver fills it) and the
// steps, which the Solver replays through Options.Progress in order.
// runtime/lockstep groups the whole solves of many paths so that a GPU
// can run the driver for all of them in one launch. Driver runs the
// driver over any Backend, method by method, the Solver's way: a
// whole-solve back end on the CPU runs it (runtime/lockstep's
// NewCPUSolves), so that run.go stays the driver's one home.
//
// # Results
//
// Result.Cond is the 1-norm condition estimate of R of the last QR (A_0
// at the final x(0) in phase 2; with d = 0, at x(0) before the last
// update). Result.Update is the relative update of the stop rule (the
// coefficients the last step started with), Result.PointUpdate the last
// correction of x(0), absolute (PHCpack's err); 1/Cond estimates PHCpack's
// rco. TermSize gives the size of the terms of G at the result, against
// which Residual is relative (RelativeResidual); PHCpack's res is
// max_i |Re G_i(x(0), 0)| + |Im G_i(x(0), 0)| (cmd/mdgen evaluates it).
package newton
