// Package la is dense multiple-double linear algebra, real and complex, at
// every generated precision: Householder QR, Q^H applied to right-hand
// sides, back substitution with R, the update b -= A x, 1-norm residuals,
// least squares, rank-deficiency detection and a condition estimate of R.
// It is the linear algebra of Newton's method on Taylor series (a block
// lower-triangular Toeplitz system: one QR of A0, reused; then for
// k = 0..w: y = Q^H b_k, R dx_k = y, b_j -= A_(j-k) dx_k for j > k).
//
// Every routine is written once, as a template in gen/la.go, and generated
// for each precision N in 1, 2, 3, 4, 5, 8, 10, 16 on the methods of
// mdops.F<N> and mdops.C<N> (the *_gen.go files); there is no limb code
// here. Generated rather than generic: a Go generic loop over the F<N>
// method set calls the methods through a dictionary (no inlining, arrays
// through memory) and measured 1.7 to 2.5 times slower at N = 2, equal at
// N = 4 (generic_bench_test.go). The order of every operation is fixed and
// documented below: it is the specification the GPU kernels reproduce bit
// for bit, it does not depend on the worker count, and spec_test.go checks
// the generated code against a naive implementation of this text.
//
// # API (shown for F4 / C4; every precision has the same, T is mdops.F<N>
// or mdops.C<N>, R is mdops.F<N>)
//
//	NewQRF4(m, n int, a []mdops.F4, lda, workers int) (*QRF4, error)
//	NewQRC4(m, n int, a []mdops.C4, lda, workers int) (*QRC4, error)
//	    Householder QR of the m x n column-major matrix a (m >= n; a is
//	    copied, not changed). The error is nil or a *RankError; with a
//	    *RankError the returned factorization is still complete and usable.
//	(*QRF4) Rows() int, Cols() int
//	(*QRF4) ApplyQH(b []T)                              b[:m] = Q^H b[:m]
//	(*QRF4) ApplyQHMany(nrhs int, b []T, ldb, workers int)  the same for nrhs columns of b
//	(*QRF4) SolveR(b []T) error                          b[:n] = R^-1 b[:n] (back substitution)
//	(*QRF4) SolveRMany(nrhs int, b []T, ldb, workers int) error
//	(*QRF4) Solve(b []T) error                           least squares: min ||A x - b||_2,
//	                                                     x in b[:n] (ApplyQH, then SolveR)
//	(*QRF4) Cond() float64                               1-norm condition estimate of R
//	(*QRF4) Refactor(a []T, lda, workers int) error      NewQR's result for a new matrix of
//	                                                     the same shape, in q's buffers
//	(*QRF4) Diag(k int) R                                |R_kk| (real, >= 0)
//	QRF4.A []T (column-major m x n, lda = m: R on and above the diagonal,
//	      the Householder vectors below it, v_k[k] = 1 implicit), QRF4.Tau []T
//
//	MulSubF4(m, n int, a []T, lda int, x, b []T, workers int)       b[:m] -= A x
//	Residual1F4(m, n int, a []T, lda int, x, b []T, workers int) R  ||b - A x||_1 (b unchanged)
//	Norm1F4(x []T) R                                                sum_i |x_i|
//
//	type RankError struct{ Col int; Ratio float64; Tol float64 }  (Col is 1-based)
//	Eps(n int) float64                                    2^(-52 n), the tolerance unit
//
// Precision-erased front (the precision chosen at run time), on flat
// []float64 buffers laid out as []F<N> / []C<N> are in memory: element k of
// a real vector at [kN, (k+1)N), of a complex one at [2kN, 2kN+2N) (the N
// limbs of the real part, then the N limbs of the imaginary part). Matrix
// sizes, lda and ldb count elements, not float64s.
//
//	KernelsFor(n int) (Kernels, bool)
//	type Kernels struct {
//	    N int
//	    NewQR, NewQRComplex         func(m, n int, a []float64, lda, workers int) (Factorization, error)
//	    MulSub, MulSubComplex       func(m, n int, a []float64, lda int, x, b []float64, workers int)
//	    Residual1, Residual1Complex func(m, n int, a []float64, lda int, x, b []float64, workers int) float64
//	    Norm1, Norm1Complex         func(x []float64) float64
//	}
//	type Factorization interface {
//	    Rows() int; Cols() int
//	    ApplyQH(b []float64); ApplyQHMany(nrhs int, b []float64, ldb, workers int)
//	    SolveR(b []float64) error; SolveRMany(nrhs int, b []float64, ldb, workers int) error
//	    Solve(b []float64) error
//	    Cond() float64; CondWorkers(workers int) float64
//	    Refactor(a []float64, lda, workers int) error
//	}
//
// Newton on Taylor series with this API: f, err := NewQR(A_0) once (err is
// a *RankError when J0 is singular to working precision; f.Cond() for the
// report); then for k = 0..w: f.ApplyQH(b_k), f.SolveR(b_k) (dx_k = b_k[:n];
// or f.Solve(b_k)); MulSub(A_(j-k), dx_k, b_j) for j = k+1..w; Residual1
// for ||b - A dx||_1. Invalid dimensions panic, as in gonum.
//
// Workers: a count <= 1 runs in the calling goroutine; more split the
// independent pieces of work over that many goroutines: the trailing
// columns of the QR (column j belongs to worker j mod workers, with a
// one-column look-ahead for the next reflector), the right-hand sides of
// ApplyQHMany and SolveRMany, blocks of 16 rows of MulSub and Residual1.
// The results are bit-identical for every worker count (TestSuite/Workers).
// The extra goroutines are persistent helpers that poll for work for 50
// microseconds after each piece (then sleep), and the QR's workers poll for
// the next reflector as long before they sleep: a parallel region then
// starts within a microsecond instead of the tens of microseconds it takes
// to wake a sleeping thread, which is the whole running time of a small
// MulSub. The price is up to 50 microseconds of one core's time per region.
// ApplyQH and SolveR on one vector use a team only above per-precision
// thresholds (small elements: a reflector's or a row's work is shorter
// than a meeting of the team), see laThresholds in the generator. All
// routines are safe for concurrent use on distinct outputs; a factorization
// may be shared by concurrent readers (ApplyQH, SolveR, Solve on distinct
// vectors, Cond). A caller with many independent MulSubs (the Newton
// updates of one stage) may as well run them with workers = 1 in its own
// goroutines: the results are the same.
//
// # Storage
//
// Matrices are column-major (LAPACK's order): element (i, j) of an m x n
// matrix with leading dimension lda >= m is a[i + j*lda]. A Householder
// vector and the columns it updates are contiguous for the CPU; on a GPU,
// the threads of one column's lanes, or one thread per row of b -= A x,
// read consecutive addresses (coalesced; PHCpack's row-major updates are
// not). The factorization also keeps the rows of R packed in reverse
// (R_(i,n-1), ..., R_(i,i+1)) for the back substitution, and 1/R_kk.
//
// # Order of operations (the GPU's specification)
//
// Notation: x.Op(y) is the mdops method; "first operand" matters (MD Mul is
// not bitwise commutative). Products inside reductions are written
// prod(x, y): x.Mul(y) for real elements, C<N>{}.MulAdd(x, y) (from zero)
// for complex ones. conj(x) is C<N>{Re: x.Re, Im: x.Im.Neg()}; neg(x) negates
// every part; |x| is Abs (the modulus for complex elements).
//
// Reductions. A sum of K terms t_0, ..., t_(K-1) is accumulated in Lanes =
// 16 lanes: lane l takes the terms t_i with i ≡ l (mod 16) in increasing i.
// A lane's first term initializes it (a product by prod, a plain term by
// assignment); every later term is added by MulAdd (products: acc.MulAdd(x,
// y)) or Add (plain terms). Then the lanes are combined by the fixed tree:
// for s = 8, 4, 2, 1, lane l < s becomes lane(l).Add(lane(l+s)), only when
// lane l+s received a term (lane j received one exactly when j < K). The
// sum is lane 0 (zero when K = 0; no operation is done on empty lanes).
// On a GPU: 16 threads (half a warp) per sum, thread l striding by 16, then
// shuffles at distance 8, 4, 2, 1.
//
// larfg (one column x = A[k:m, k], K = m-k, alpha = x_0; LAPACK's
// dlarfg/zlarfg with H^H x = beta e_1, beta real):
//  1. amax = the largest magnitude of a leading limb of x_1..x_(K-1) (real
//     and imaginary parts). If amax = 0 (and, complex, alpha.Im = 0):
//     tau = 0, x unchanged (H = I).
//  2. e with 2^e <= max(amax, |alpha|'s leading limbs) < 2^(e+1); scaling by
//     2^-e is MulFloat64(f1) then, only if f2 != 1, MulFloat64(f2), with
//     f1 = 2^-e, f2 = 1, or, when 2^-e is not a float64 (e < -1023),
//     f1 = 2^1000, f2 = 2^(-e-1000). y_i = x_i scaled (both parts), a =
//     alpha scaled. Exact (barring limbs below 2^-1074, negligible), so no
//     square overflows or underflows, and QR(2^s A) = 2^s QR(A) bit for bit.
//  3. ss = the reduction over the tail, t_(i-1) = |y_i|^2: real y.Mul(y)
//     first, acc.MulAdd(y, y) later; complex y.Re.Mul(y.Re).MulAdd(y.Im,
//     y.Im) first, acc.MulAdd(y.Re, y.Re).MulAdd(y.Im, y.Im) later; lanes
//     combined by F<N>.Add. nrm = ss.MulAdd(a, a).Sqrt() (complex:
//     ss.MulAdd(a.Re, a.Re).MulAdd(a.Im, a.Im).Sqrt()).
//  4. beta' = nrm.Neg() if the leading limb of a (a.Re) is >= 0 (-0
//     included), else nrm.
//  5. Real: d = a.Sub(beta'), tau = d.Div(beta').Neg(), r = F(1).Div(d).
//     Complex: d = a.Re.Sub(beta'), tau = (d.Div(beta').Neg(),
//     a.Im.Div(beta').Neg()), r = C{Re: 1}.Div(C{Re: d, Im: a.Im}).
//     x_i = y_i.Mul(r) for i >= 1.
//  6. x_0 = beta' scaled by 2^e: MulFloat64(g1) then, only if g2 != 1,
//     MulFloat64(g2), g1 = 2^e, g2 = 1, or, when e < -1022, g1 = 2^-1000,
//     g2 = 2^(e+1000). Complex: x_0 = (that, 0).
//
// applyH (H^H = I - conj(tau) v v^H applied to a column c = C[k:m, j],
// v_0 = 1 implicit, v_i = A[k+i, k]): nothing when tau is zero (leading
// limbs zero); else w = the reduction with K = m-k terms, t_0 = c_0 (plain,
// it initializes lane 0), t_i = conj(v_i)*c_i for i >= 1 (prod / MulAdd with
// conj(v_i) first); s = neg(conj(tau).Mul(w)); c_0 = c_0.Add(s); c_i =
// c_i.MulAdd(v_i, s) for i >= 1.
//
// QR: for k = 0..n-1: larfg on A[k:m, k] (tau_k), then applyH of reflector
// k to every column j = k+1..n-1 (each column sees the reflectors in
// increasing k; columns are independent). R_kk = A[k,k] is real.
// Rank check (after the factorization, in float64 on the leading limbs):
// the first k with |R_kk| / max_j |R_jj| < n*Eps(N) (or 0/0) gives a
// *RankError{Col: k+1}.
//
// ApplyQH: applyH of reflectors k = 0, 1, ..., n-1 to b[k:m].
//
// SolveR (back substitution): rinv_i = F(1).Div(R_ii) (computed once, at
// the factorization). For i = n-1 down to 0: s_i = the reduction with
// K = n-1-i terms t_q = R_(i,n-1-q) * x_(n-1-q), q = 0..K-1 (j decreasing
// from n-1, R first); x_i = b_i.Sub(s_i) (x_i = b_i when K = 0), then
// x_i = x_i.Mul(rinv_i) (complex: both parts, by the real rinv_i). A tiled
// GPU back substitution that accumulates 16 columns at a time from the
// bottom adds exactly one term per lane per tile, in this order. With a
// zero R_kk, SolveR, SolveRMany and Solve return a *RankError and leave b
// unchanged.
//
// MulSub (b -= A x): for each row i, s_i = the reduction with K = n terms
// t_j = A_ij * x_j, j = 0..n-1 (A first); b_i = b_i.Sub(s_i); nothing when
// n = 0. Residual1 = Norm1 of b - A x computed so. Norm1: the reduction of
// the plain terms |x_i| (Add).
//
// Cond (CPU only, not part of the GPU specification): ||R||_1 times
// LAPACK's dlacn2/zlacn2 estimate of ||R^-1||_1 (Hager, Higham), with
// float64 decisions; +Inf when some R_kk is zero. The estimate is made
// first with float64 solves by the leading limbs of R (LeadR.Cond: its
// documentation gives the order of those solves), and that is Cond when it
// is final: at 1 double, or when it is at most LeadCondLimit(n) =
// 2^-8/((n+1) 2^-53) = 2^45/(n+1), where its relative error from the
// float64 solves and from dropping the lower limbs is at most
// (n+1) 2^-53 cond <= 2^-8; else (above the limit, or not finite) the
// estimate is made again with multiple-double solves by R and R^H, so that
// it stays reliable at condition numbers past 2^53, which the leading
// limbs cannot resolve (they are then within 2^-53 ||R|| of a singular
// matrix, so their estimate is about 2^53/(n+1) or more, well above the
// limit). At 1 and 2 doubles the float64 solves cost a small part of the
// multiple-double ones (issue 20). Its 1-norms (||R||_1: the max over the columns of R;
// the norms of the estimate's iterates) are LeadNorm1's float64 sums of
// the leading limbs, s = s + |x_i|_0 in increasing i from s = 0, with
// |x|_0 = |x_0| (real) or |Re_0| + |Im_0| (complex; within a factor
// sqrt(2) of the modulus): an estimate needs no multiple-double moduli,
// which cost two to three times the step's other 1-norms at 1 and 2
// doubles (issue 20).
//
// # Operation counts and rates
//
// Rates are counted in multiply-adds of the element type (a C<N> MulAdd is
// one complex multiply-add): QR of m x n sum_k 2(m-k-1)(n-k-1) (about
// 2mn^2 - 2n^3/3: v^H c and the update of each trailing column; larfg's
// O(mn) not counted), ApplyQH 2mn - n^2, SolveR n(n-1)/2, MulSub mn; they
// are compared with the bare loop acc = acc.MulAdd(x[i], y[i]) of the same
// type on one core (BenchmarkRates, BenchmarkLA).
package la
