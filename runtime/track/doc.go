// Package track is the path tracker: it solves a square polynomial system
// f(x) = 0 by homotopy continuation, following each solution of a start
// system from t = 0 to t = 1, with Newton's method on Taylor series
// (runtime/newton) for the series of the path and Padé approximants for
// the predictor: the robust path tracker of Telen, Van Barel and
// Verschelde (SIAM J. Sci. Comput. 42(6), 2020; PHCpack's phc -u), in
// multiple-double precision. This CPU code is the specification of a
// batched GPU tracker: every choice below is a fixed sequence of
// operations, and no result depends on the worker count.
//
// # API
//
//	h, err := track.NewTotalDegree(f, gamma, true, seed) // or track.NewGiven(hsys, starts)
//	run, err := track.Track(h, track.Options{Prec: 0 /* auto */, Workers: 2}, 0, 0)
//	run.Summary  // regular, singular, infinite, failed, real, distinct
//	run.Paths[k] // Status, X (multiple-double limbs), Cond, Residual, Multiplicity, Prec, Steps, ...
//
// # Devices
//
// Options.Devices run the solvers' numeric work elsewhere (a GPU each:
// runtime/lockstep); every worker takes its paths from one queue. A device
// that fails (an error that is a DeviceError, such as a CUDA error inside
// a batch) is not a path that fails: the worker puts its path back in the
// queue and leaves the device, whose other workers take no more paths,
// and the workers of the other devices track those paths from their
// start, so every path's bits are those of a run without the failure
// (and of the CPU tracker). Run.DeviceFailures names the failed devices,
// their first errors and how many paths went back; only when every
// device failed does Track fail, with the paths not tracked and every
// device's error. A worker with no path while paths are in flight (each
// may come back) leaves its device until it gets one.
//
// # Homotopies
//
// Total degree: H(x, t) = gamma (1 - t) g(x) + t f(x), g_i = x_i^(d_i) - 1,
// gamma a unit complex number; path i starts at the roots of unity given
// by the mixed-radix digits of i (Homotopy.Start: nothing is listed). In
// projective coordinates (the default) f is homogenized with a new unknown
// x_0 (g_i = x_i^(d_i) - x_0^(d_i)) and an affine chart sum_j a_j x_j =
// rhs is added: every path stays bounded, and one that goes to infinity
// in affine space ends with x_0 = 0. Each path has its own chart
// (Homotopy.Chart), aligned with its start point s (every |s_j| = 1, x_0
// = 1): a_j = conj(s_j) exp(i phi_j), phi_j uniform in [-pi/4, pi/4] from
// the seed and the path's index, rhs = sum_j a_j s_j, so the path starts
// at modulus 1 in every coordinate. (One random chart sum_j c_j x_j = 1
// for all paths scaled a start point by 1/|sum_j c_j s_j|, at least 1/(n
// + 1), and the Jacobian's rows of an equation of degree d by that to the
// power d - 1: at degree 20 to 1000 paths ended singular or failed at t
// = 0.) The chart changes the representative of a path, not the path. At
// the end, tau = 0, the equations are scaled to the point (level.setAt:
// by powers of two, row i by 2^(-(d_i - 1) e), 2^e the nearest to the
// largest coordinate), so that the condition number that decides a
// regular end is the endpoint's, not its chart's scale. Given: a system
// with a parameter t and start solutions at t = 0.
//
// A badly scaled target (coefficients, and so solutions, many orders of
// magnitude from 1: x = 1e8, or 1e-8 x^2 + y = 1 with x near 1e4) is
// tracked in scaled unknowns: the total-degree homotopy is made from f
// with x_j = 2^s_j y_j and equation i times 2^r_i (Homotopy.Scaling,
// poly.FindScaling: a least-squares fit of the coefficients' binary
// logarithms, used only when it brings the coefficient farthest from 1 at
// least 2^10 closer to 1 and leaves the scaled ones within 2^26 of each
// other; every family of this repository is left as it is). When the fit
// is not used, an equation whose largest coefficient is beyond 2^26 from 1
// is scaled alone, its largest coefficient into [1, 2): an expanded power
// such as (x + y + 1)^30 - 1 (coefficients up to 5.5e12, a spread that no
// units reconcile) would otherwise leave its start at a speed of 1e12.
// Its ends are judged in the scaled equations, where the first row of
// the Jacobian is small at a root of an expanded power (the cancellation
// of its large terms): from about (x + y + 1)^30 on such roots have
// condition numbers above MaxRegularCond and are called singular, each
// found and distinct. The tracker's tolerances are relative to max(1, |y|)
// and its condition numbers are not invariant under such changes of
// units; in the scaled unknowns they see the paths at about unit size.
// Endpoints are refined on the scaled system (Cond, Residual and Err are
// its) and multiplied back, exactly, by 2^s_j; classify compares them in
// those units (Run.Scale).
//
// The tracker runs in tau = 1 - t, from tau = 1 to tau = 0: a double has
// its full relative precision near t = 1, where the paths to singular
// solutions and to infinity need steps of 1e-20 and less. The coefficients
// of H are polynomials in tau (exact rationals, rounded once per precision);
// at a point tau_k Newton's solver gets them shifted to s = tau_k - tau
// (Horner's Taylor shift, arith.go), so that the staged plans never change:
// only the coefficient slots are refilled (newton.Solver.SetCoefficient;
// or, where the solver's executors compute the shifted series themselves,
// a GPU's, the polynomials once and tau at each solve: backend.ParamCoefs,
// newton.Solver.SetParam, the shift's device twin in mdtrack.cuh).
//
// # One step
//
// At (tau_k, x_k), with the series c_0 + c_1 s + ... + c_d s^d of each
// unknown of the path x(tau_k - s), d = L + M + 1 ([L/M] = [2/1] by
// default):
//
//  1. Padé approximants p/q of each unknown from c_0..c_(L+M) (arith.go:
//     the denominator by Gaussian elimination with partial pivoting on the
//     Toeplitz system, Taylor when it is singular), the pole radius R_v (the
//     zero of q for M = 1, Fujiwara's bound for M > 1) and the error
//     coefficient e_v = sum_j q_j c_(L+M+1-j) (the predictor's error is
//     about |e_v| s^(L+M+1)).
//  2. The step: dt = min(MaxStep, tau_k, Beta1 R_v, (PredTol X / |e_v|)^(1/(L+M+1)),
//     (Beta2 D X / |e_v|)^(1/(L+M+1))) over the unknowns v, X = max(1, |x_k|),
//     D the estimated distance to the nearest other path (below); tau_(k+1)
//     = tau_k - dt (0 when below 2^-40 tau_k).
//  3. Predict: x~ = p(dt)/q(dt) (Horner).
//  4. Correct: Newton at tau_(k+1) from x~, refining x(0) until its relative
//     update is at most 1e-6 (newton.Options.RefineTol; at tau = 0 to the
//     working precision), then the series of the path at tau_(k+1). Below
//     5 doubles the series is made at one double (SeriesPrec: the
//     predictor needs a few digits) from the prediction, and one Newton
//     solve at the tracking precision refines the point it corrected
//     (mostly one step); at 1 double one solve does both. Where the
//     condition number leaves the series precision less than half its
//     digits, the series climbs the Ladder below the tracking precision
//     to the first precision that keeps half, else to the tracking
//     precision itself, which may be off the Ladder (3, 5, 10:
//     seriesPrec); after two rejections from a point both run at the
//     tracking precision. Where it leaves the series precision more
//     digits than the corrector's tolerance needs, cond u_q <= 1e-12
//     (refineTol^2) at the last point and at the new one (seriesCorrects),
//     the series solve refines to 1e-6 itself and its point, within about
//     1e-12 of the path as the corrector's would be, is the path's: the
//     corrector at the tracking precision is left out (it would refine a
//     point already as accurate as it makes it; the end, tau = 0, always
//     has it; the start, tau = 1, is refined at the series precision
//     under the same rule). On katsura 6 and 7, noon 4 and 5 and cyclic 5 this takes
//     the CPU time per path down by a factor 1.2 to 1.6 at 2 doubles and
//     1.5 to 2.9 at 4, with the same counts (and on cyclic 6, katsura 10,
//     noon 6); Options.CorrectEveryPoint keeps the corrector everywhere.
//     The last step, to tau = 0, needs no series: below the tracking
//     precision its first solve is Newton at degree 0 (phase 1 only) at
//     SeriesPrec, whose step limit also ends the attempts at t = 1 of
//     paths to infinity or to singular ends sooner (lastLevel). Every
//     solve leaves out the residual of its linear systems
//     (newton.Options.NoResidual: the tracker reads none).
//  5. Accept when the first solve converged, its first update u1 <= 8
//     PredTol, its last update within its tolerance (before tau = 0:
//     Newton also stops on its rounding floor 2^10 u cond, and a point
//     where that floor is above the tolerance may be on no path: the
//     precision is exhausted there), its second update u2 <= u1/4 unless
//     u2 is below the rounding floor 2^12 u cond, the refinement converged
//     (to its tolerance before tau = 0), and, at tau = 0, the end is
//     regular (clean convergence, cond <= MaxRegularCond). Else halve dt
//     and go to 3. (Accepting the floor's points made paths of cyclic
//     6-roots that go to infinity, with cond = 1e26 and more at 2 doubles,
//     jump to a point on no path and stall there.)
//
// The distance to the nearest other path: Newton converges quadratically,
// u2 = omega u1^2, and the nearest other solution of H(., tau) is at about
// 1/omega (for two simple roots of a quadratic exactly their distance), so
// D = u1^2/u2 whenever u2 is above the rounding floor (else D stays). The
// paper takes this distance from the Hessians; the corrector's contraction
// measures the same curvature at no extra cost.
//
// # The end, and the status of a path
//
//   - regular: tau = 0 reached with a regular end; the endpoint (x/x_0 in
//     projective coordinates) is refined on f by Newton at the working
//     precision, which gives Cond and Residual; a cond above
//     MaxRegularCond there makes it singular.
//   - end game: when dt falls below the minimum step (2^-20 tau for tau
//     <= 1e-4; 2^-40 tau before, so that a path passing within delta of a
//     branch point of the homotopy takes the steps of about delta it needs
//     there: path 855 of katsura15 passes at 8.5e-7), or a step is rejected with
//     tau <= u^(3/4) (or tau <= 1e-6 and cond >= 2^-10/u), or the step limit
//     is reached, with tau <= 1e-4: infinite when x_0 <= 1e-6 |x|, or x_0
//     <= 1e-2 |x| and x_0 goes to zero like tau^r, r = Re(-tau c_1/c_0) >=
//     1/64 (a branch of m paths has r = 1/m); else, for tau <= 1e-6,
//     singular, with the endpoint extrapolated by the approximants at s =
//     tau; else failed. With tau > 1e-4: infinite when tau <= 1e-3 and x_0
//     <= 1e-6 |x|, or by the second early rule below at the last point;
//     else failed (the reason says when the precision was exhausted:
//     2^10 u cond above the corrector's tolerance).
//   - infinite, early: after an accepted step with tau <= 0.1, x_0 going
//     to zero like tau^r, with r compared to the r_b of a reference point
//     farther from the end (the first point below 0.1, then each point at
//     least twice as far from the end as the reference, where the
//     reference moves on; goesToInfinity), by either of two rules. Near
//     the end, where the reference moves: tau <= 1e-3, x_0 <= 5e-2 |x| and
//     r >= 1/32 within 5% of r_b (a finite end cannot pass for branches of
//     fewer than 14 paths). At any point: a path to a finite x_0* has x_0 =
//     x_0* + a tau^k, hence the complex r = -tau c_1/c_0 = k/(1 + eps(tau)),
//     eps = x_0*/(a tau^k); |r/r_b - 1| <= dev <= 10%, tau_b = f tau,
//     bounds |eps_b| <= dev/((1 - dev) f^k - 1) whatever the phases, with
//     k >= 0.9 min(|r|, |r_b|) and dev at least the noise of r (1%, or 16
//     cond u/x_0 of its series), and with it |x_0*| <= |eps_b| x_0b:
//     infinite when that is at most 1e-6, infinite by the end's own rule
//     whatever the end (beyondInfTol). Cyclic 6-roots has paths to
//     infinity with x_0 ~ tau^(5/2) or tau^(11/6) and cond ~ x_0^-4 (1e22
//     at tau = 0.015): at 2 doubles they ran out of digits before tau =
//     1e-3, and 6 of 720 failed (1 with -prec auto) for the gamma of seed
//     1; with this rule and the acceptance test of item 5, none fails with
//     -prec auto for the gammas of seeds 1 to 4, and at 2 doubles 0, 0, 0
//     and 1 on the aligned charts (1, 0, 6 and 1 on one random chart for
//     every path; the condition number reaches 1e29: 2 doubles are
//     exhausted, and the reason says so), the same 156 regular solutions.
//   - infinite, stopped: a path whose steps stopped anywhere (the step
//     limit, a step below the minimum) with x_0 at most 1e-12 of the other
//     coordinates (affine coordinates of 1e12 and more;
//     midPathInfX0): PHCpack's eco6 to eco8 have paths, whatever the gamma
//     and the charts, that head to infinity in the middle of the homotopy
//     (x_0 a factor 10 smaller every other step from t = 0.4 on, down to
//     1e-13 at 2 doubles and 1e-70 at 8 at the step limit), with every
//     finite solution found by the other paths.
//   - failed: the reason says where and why (start not converging, step
//     below the minimum, step limit, or a singular end that Newton moves
//     by more than maxSingularTol: not near a solution). Under the
//     automatic rule each of these is first resumed at the next
//     precision, the last too (trackPath).
//   - multiplicity: endpoints that agree within their accuracy (2^10 u cond
//     for regular ones; the larger of u^(1/4), 2^-27 and twice the
//     extrapolation distance for singular ones: singularTol, also the
//     tolerance of their imaginary parts for Real) form one solution (the connected
//     components of that relation over every pair, found in near-linear
//     time; real when its path of the lowest index is); several paths at
//     one point make it singular (classify.go).
//   - paths that crossed: two paths of a generic homotopy never end at one
//     regular root, so when paths that ended Regular agree, one of them
//     jumped to another's path (a root is then missing: x^200 + 3x - 1
//     lost its root 1/3 so). Track tracks such paths again with the
//     bounds of the step (MaxStep, Beta1, Beta2, PredTol) divided by 4,
//     then by 16 (crossingRounds), as PHCpack and HomotopyContinuation.jl
//     re-run clustered paths; Run.Crossed lists them by round. A run in
//     parts (shards) holds each part's first pass (Options.FirstPass),
//     and TrackCrossed runs the rounds on the parts put together: the
//     bits of one run, whichever parts the crossed paths were in.
//
// # Precision
//
// Options.Prec fixes the precision (doubles per number, complex data).
// Prec 0 is automatic: each path starts at MinPrec (2 doubles by default);
// a path that fails, or whose end game cannot tell a singular end from one
// at infinity, resumes at the next precision of Ladder (up to MaxPrec)
// from its last point whose condition number left half the digits of the
// precision it was tracked at (the points after it may be wrong).
//
// # Devices
//
// Options.Devices hands the numeric work of each worker's Newton solvers
// to a Device (runtime/lockstep: the workers' solves batched on a GPU;
// several GPUs, one Device each). Every worker still takes its next path
// from one queue and runs the steps above; a Device computes what the
// CPU back end computes, so no result depends on the Devices or on how
// the paths spread over them.
//
// # Runs in parts
//
// A path's outcome depends only on the homotopy, the options (Filled) and
// its index, except for the paths that crossed another path of the same
// run, which the run tracks again (above); Track(h, opt, first, count)
// tracks a range of paths. What a run adds over its paths is the
// classification (multiplicities, the summary), which Classify computes
// over paths tracked in parts and put together, as Track does over its
// own; Homotopy.Hash and SystemHash name the run (shard.go). mdgen's shard
// files and its merge are built on them. Two paths that crossed in
// different parts are not tracked again: their classification is that
// of two paths at one point (singular), and mdgen says so.
package track
