package gpuabi

import (
	"fmt"
	"math"

	"github.com/mdgen/mdgen/mdops"
)

// The batched linear algebra (gen.BatchLAKernelsCU,
// templates/batchla.cu.tmpl, runtime/gpu.BatchLA): the linear algebra of
// Newton's method for a batch of P small systems at once, one launch per
// operation for the whole batch, each path's bits those of mdops/la on that
// path's data (the single-path kernels' order, la.go).
//
// # Data
//
// Path-major: path p's m x n matrix (column-major, lda >= m) at a + p·sa,
// its n scalars tau at tau + p·n, its vectors at b + p·sb (strides in
// elements of W doubles, as every size of la.go). The arrays that the
// factorization derives are packed per path: rinv at rinv + p·n N-double
// reals, rrev at rrev + p·LARRevLen(n) elements, the back substitution's
// work space at acc + p·LABackSub1Acc(n) elements, and the path's
// BatchLAInfo doubles at info + p·BatchLAInfo. A path is a block of
// threads: its matrix is contiguous, so the block reads it as the
// single-path kernels do (the evaluation batch interleaves its paths
// instead: batch.go).
//
// # Kernels
//
// One block per path (blockIdx.x = path; blockDim.x a multiple of 32, at
// most LAMaxThreads: one warp per path at 32), every parameter 8 bytes;
// names LAKernelName (mdgen_la_b<op>_<r|c><N>), parameters LAParams:
//
//	bqr     (double* a, double* tau, m, n, lda, sa, count)
//	    The whole Householder QR of each path (la NewQR): for k = -1..n-2
//	    the QR step's panel (qr's block 0: reflector k applied to column
//	    k+1, reflector k+1 generated from it), then reflector k applied to
//	    the columns k+2..n-1, a warp per column (la_apply).
//	bpackr  (const double* a, m, n, lda, sa, double* rinv, double* rrev,
//	         tolBits, double* info, count)
//	    packr's rinv and rrev, and info (BatchLAInfo doubles): [0] the
//	    1-based column of la's rank check (la.RankCheck on the leading limbs
//	    of Re R_kk, tol = float64 bits tolBits = n·Eps(N)), 0 when R passes;
//	    [1] its ratio (0 when it passes); [2] the first 1-based column with a
//	    zero R_kk (la's singular: SolveR's refusal), 0 when none; [3]
//	    ||R||_1 of la's condition estimate (the largest la.LeadNorm1 of the
//	    columns of R, in column order).
//	bqh1    (const double* a, const double* tau, m, n, lda, sa, double* b, sb, count)
//	    b_p = Q_p^H b_p (la ApplyQH): qh1's operations.
//	bbacksub1 (const double* rrev, const double* rinv, const double* info, n,
//	         double* b, sb, double* acc, count)
//	    b_p[:n] = R_p^-1 b_p[:n] (la SolveR): backsub1's operations; a path
//	    with info[2] != 0 keeps b_p (la's *RankError).
//	bqh     (const double* a, const double* tau, m, n, lda, sa, double* b, ldb, sb,
//	         nrhs, count)
//	    The nrhs columns (at ldb) of b_p: Q_p^H (la ApplyQHMany), a warp per
//	    column (qh's operations).
//	bbacksub (const double* rrev, const double* rinv, const double* info, n,
//	         double* b, ldb, sb, nrhs, count)
//	    R_p^-1 on the first n rows of the nrhs columns of b_p (la
//	    SolveRMany), a group of 16 lanes per column (backsub's operations);
//	    info[2] != 0 keeps b_p.
//	bcond   (const double* a, n, lda, sa, const double* rinv, const double* rrev,
//	         const double* info, double* work, sw, double* cond, count)
//	    cond[p] = la's Cond of path p's R after bqr and bpackr (its bits:
//	    +Inf when info[2] != 0; else info[3] times LAPACK's dlacn2/zlacn2
//	    estimate of ||R^-1||_1, first in float64 on the leading limbs of R
//	    (la.LeadR.Cond, by thread 0), final at N = 1 or at most
//	    la.LeadCondLimit(n); else again with multiple-double solves by R
//	    (backsub1's operations on rrev, rinv) and R^H (backsub1's on the
//	    packed rows of U = P R^H P, packrh's trick) by the block, the
//	    decisions by thread 0). work holds LABCondWork(p, n) doubles per
//	    path at stride sw (sw >= LABCondWork). The device function
//	    la_bcond_block of the template is the same estimate for a kernel
//	    whose block runs a whole Newton solve.
//
// The products b -= A x and the norms need no kernels of their own:
// mulsub, norm1 and leadnorm1 (la.go) take count matrices and vectors at a
// stride (LAMulSub, LANorm1, LALeadNorm1 with count = P).

// The batched operations.
const (
	LABQR       LAOp = "bqr"
	LABPackR    LAOp = "bpackr"
	LABQH1      LAOp = "bqh1"
	LABBackSub1 LAOp = "bbacksub1"
	LABQH       LAOp = "bqh"
	LABBackSub  LAOp = "bbacksub"
	LABCond     LAOp = "bcond"
)

// BatchLAOps lists the batched kernels of one precision and kind of data
// (gen.BatchLAKernelsCU adds them to LAOps' kernels).
var BatchLAOps = []LAOp{LABQR, LABPackR, LABQH1, LABBackSub1, LABQH, LABBackSub, LABCond}

// BatchLAInfo is the doubles of one path's info (bpackr).
const BatchLAInfo = 4

// The places in a path's info.
const (
	BatchLARankCol = iota
	BatchLARankRatio
	BatchLASingularCol
	BatchLAANorm
)

// BatchLAThreads returns the model's threads per path of an m x n batch:
// one warp per path up to m = 32, then a warp per 32 rows, at most
// LAMaxThreads (threads, when positive, is the caller's choice, rounded up
// to a multiple of 32 and capped).
func BatchLAThreads(m, threads int) int {
	if threads <= 0 {
		threads = m
	}
	return min(LAMaxThreads, max(32, (threads+31)/32*32))
}

func (v LAVariant) batch(op LAOp, paths, threads int, args ...any) []LALaunch {
	if paths <= 0 {
		return nil
	}
	if threads%32 != 0 || threads < 32 || threads > LAMaxThreads {
		panic(fmt.Sprintf("gpuabi: %s: %d threads per path", op, threads))
	}
	return []LALaunch{v.launch(op, paths, threads, args...)}
}

// BatchQR returns the launch of the QR of paths m x n matrices (m >= n) at
// a (path p at a + p·sa, lda), tau receiving n scalars per path.
func (v LAVariant) BatchQR(m, n, lda, sa int, a, tau LAPtr, paths, threads int) []LALaunch {
	if n == 0 {
		return nil
	}
	return v.batch(LABQR, paths, threads, a, tau, m, n, lda, sa, paths)
}

// BatchPackR returns the launch of bpackr after BatchQR: rinv (n N-double
// reals per path), rrev (LARRevLen(n) elements per path), info
// (BatchLAInfo doubles per path); tol is la's rank tolerance n·Eps(N).
func (v LAVariant) BatchPackR(m, n, lda, sa int, a, rinv, rrev LAPtr, tol float64, info LAPtr, paths, threads int) []LALaunch {
	if n == 0 {
		return nil
	}
	return v.batch(LABPackR, paths, threads, a, m, n, lda, sa, rinv, rrev, int64(math.Float64bits(tol)), info, paths)
}

// BatchApplyQH1 returns the launch of b_p = Q_p^H b_p (b_p at b + p·sb).
func (v LAVariant) BatchApplyQH1(m, n, lda, sa int, a, tau, b LAPtr, sb, paths, threads int) []LALaunch {
	if n == 0 {
		return nil
	}
	return v.batch(LABQH1, paths, threads, a, tau, m, n, lda, sa, b, sb, paths)
}

// BatchBackSub1 returns the launch of b_p[:n] = R_p^-1 b_p[:n], acc a work
// space of LABackSub1Acc(n) elements per path.
func (v LAVariant) BatchBackSub1(n int, rrev, rinv, info, b LAPtr, sb int, acc LAPtr, paths, threads int) []LALaunch {
	if n == 0 {
		return nil
	}
	return v.batch(LABBackSub1, paths, threads, rrev, rinv, info, n, b, sb, acc, paths)
}

// BatchApplyQH returns the launch of Q_p^H on the nrhs columns of b_p
// (column c at b + p·sb + c·ldb).
func (v LAVariant) BatchApplyQH(m, n, lda, sa int, a, tau LAPtr, nrhs int, b LAPtr, ldb, sb, paths, threads int) []LALaunch {
	if n == 0 || nrhs == 0 {
		return nil
	}
	return v.batch(LABQH, paths, threads, a, tau, m, n, lda, sa, b, ldb, sb, nrhs, paths)
}

// BatchBackSub returns the launch of R_p^-1 on the first n rows of the
// nrhs columns of b_p.
func (v LAVariant) BatchBackSub(n int, rrev, rinv, info LAPtr, nrhs int, b LAPtr, ldb, sb, paths, threads int) []LALaunch {
	if n == 0 || nrhs == 0 {
		return nil
	}
	return v.batch(LABBackSub, paths, threads, rrev, rinv, info, n, b, ldb, sb, nrhs, paths)
}

// LABCondWork returns the doubles of work of one path's condition estimate
// (bcond, la_bcond_block) of an n x n R of elements of p: the leading
// limbs of R (n² doubles, twice for complex data), the float64 estimate's
// vectors (x, its imaginary parts for complex data, the signs and the
// inverted diagonal: n doubles each), 4 doubles the block shares (the
// broadcasts of thread 0's decisions), and the multiple-double estimate's
// vector x (n elements), the packed rows of U = P R^H P (LARRevLen(n)
// elements) with their inverted diagonal (n N-double reals) and the back
// substitution's work space (LABackSub1Acc(n) elements).
func LABCondWork(p mdops.Prec, n int) int {
	k := 1
	if p.Complex {
		k = 2
	}
	return k*n*n + (k+2)*n + 4 + p.Width()*(n+LARRevLen(n)+LABackSub1Acc(n)) + p.N*n
}

// BatchCond returns the launch of bcond after BatchQR and BatchPackR:
// cond receives a double per path; work holds sw >= LABCondWork(v.Prec, n)
// doubles per path.
func (v LAVariant) BatchCond(n, lda, sa int, a, rinv, rrev, info, work LAPtr, sw int, cond LAPtr, paths, threads int) []LALaunch {
	if n == 0 {
		return nil
	}
	return v.batch(LABCond, paths, threads, a, n, lda, sa, rinv, rrev, info, work, sw, cond, paths)
}
