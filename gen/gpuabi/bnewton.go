package gpuabi

import (
	"fmt"

	"github.com/mdgen/mdgen/mdops"
)

// The batched Newton solve (gen.BatchNewtonKernelsCU,
// templates/bnewton.cu.tmpl, runtime/gpu.BatchNewton): a whole solve of
// runtime/newton's driver (run.go: the refinement of x(0), then Newton on
// series with staggered degrees, the skip tests, the stop rules and the
// failures) for every path of a batch in ONE launch, one block per path
// (blockIdx.x), each path's Result and steps those of newton.Solver with
// runtime/cpu's back end on that path alone, bit for bit. The operations
// are runtime/cpu/newton.go's, each on the block's path: the evaluation
// of the staged plan at the working degree (every layer by the block,
// mdgen_beval_block), the batched linear algebra's bodies (batchla.go:
// the QR, its rank check, Q^H b, R^-1, the inverse -R^-1 Q^H), la's
// condition estimate (la_bcond_block), b -= A x in la's lane order, and
// the float64 norms and decisions, which every thread of the block
// computes alike from the same data after a barrier (so that the control
// flow is the block's, and every barrier and shuffle meets).
//
// # Data
//
// Every array is path-major: path p's part at base + p·stride. Elements
// are W doubles (la's layout) unless said otherwise; BNStrides gives the
// strides of a shape.
//
//	data   the evaluation's arrays, one per level: runtime/newton stages a
//	       plan per working degree w (the staggered degrees 0, 1, 2, 4,
//	       7, ... up to d: a coefficient that vanishes mod t^(w+1) drops
//	       its terms), and a path's region (ps doubles) holds the PathMajor
//	       array of each one's plan (d1 = w+1) after the other: the plan's
//	       read-only slots set once, the coefficient slots of each solve
//	       copied in from coef, the inputs from x before each evaluation
//	conv, add   the job tables of every level (EvalTables), one after the other
//	tabs   the int64 tables of every level: the layers (EvalTables), the
//	       input slots (n), the value slots (m), the derivative slots (m x n
//	       column-major, -1: none), the coefficient slots (nc)
//	lv     BNLvLen int64s per level (BNLv*): its working degree and where
//	       its parts are
//	coef   per path (coefStride elements): each level's nc series of ck
//	       coefficients (the rest up to w zero), for its coefficient slots,
//	       cs apart (levels that number the coefficients alike share the
//	       top degree's block and read their first ck of each series)
//	x0     n values: the start
//	x      n series of d+1 coefficients (the Result's X: (v·(d+1)+k))
//	a      A_k, k = 0..d: (k·m·n + i + j·m)
//	qa     the QR of A_0 (m·n; la's factored A), tau n, rinv n N-double
//	       reals, rrev LARRevLen(n), info BatchLAInfo doubles, acc
//	       LABackSub1Acc(n): batchla.go's per-path arrays
//	b      b_k, k = 0..d: (k·m + i)
//	dx     dx_k, k = 0..d: (k·n + j)
//	y      m
//	e      m·m (lda m): -R^-1 Q^H in its first n rows
//	rb     the residuals b_k - A_0 dx_k, k = 0..d: (k·m + i)
//	cw     the condition estimate's work (cwStride >= LABCondWork(p, n)
//	       doubles)
//	tol    one double: the solve's RefineTol
//	rec    BNRecLen doubles (BNRec*), then BNStepLen doubles per step
//	       (BNStep*), at most maxSteps steps
//
// # Kernel
//
// BNKernelName (mdgen_bnewton_<r|c><N>), the parameters BNParams, every
// one 8 bytes; a block of 32 to LAMaxThreads threads (a multiple of 32),
// grid = paths.
type BNParam = LAParam

// BNParams lists the kernel's parameters in order: the evaluation's
// arrays and tables, the arrays above, and the scalars: m, n, d;
// maxSteps; the float64 bits of maxCond, u, sqrtU and the rank check's
// tolerance n·Eps(N); the flags (BNNoResidual, BNNoFinalResidual).
var BNParams = laParams("double* data, long long ps, const int* conv, const int* add, const long long* tabs, " +
	"const long long* lv, long long nlv, const double* coef, long long coefStride, " +
	"const double* x0, double* x, double* a, double* qa, double* tau, double* rinv, double* rrev, double* info, " +
	"double* acc, double* b, double* dx, double* y, double* e, double* rb, double* cw, long long cwStride, const double* tol, double* rec, " +
	"long long m, long long n, long long d, long long maxSteps, long long maxCondBits, long long uBits, " +
	"long long sqrtUBits, long long rankTolBits, long long flags")

// The kernel's flags (its last parameter): newton.Options'.
const (
	BNNoResidual      = 1 << iota // Options.NoResidual: no residual of the linear systems
	BNNoFinalResidual             // Options.NoFinalResidual: no evaluation after a root refinement
)

// The fields of a level (lv): offsets count doubles in a path's data
// region, words in conv and add, int64s in tabs, elements in a path's coef.
const (
	BNLvW          = iota // the working degree w of the level's plan
	BNLvData              // its array's offset in the path's region
	BNLvRowStride         // its row stride: NumSlots·(w+1)
	BNLvConv              // its convolution table's offset
	BNLvAdd               // its addition table's offset
	BNLvLayers            // its layers' offset in tabs
	BNLvConvLayers        // its convolution layers
	BNLvAddLayers         // its addition layers
	BNLvIn                // its input slots' offset in tabs
	BNLvVal               // its value slots'
	BNLvDer               // its derivative slots'
	BNLvCoefSlots         // its coefficient slots'
	BNLvNC                // its coefficient slots
	BNLvCoef              // its coefficients' offset in a path's coef
	BNLvCK                // the coefficients of each
	BNLvCS                // the stride between two slots' coefficients (CK, or more in a block that levels share)
	BNLvLen
)

// BNKernelName returns the kernel of precision p.
func BNKernelName(p mdops.Prec) string { return "mdgen_bnewton_" + p.Suffix() }

// BNParamKernelName returns the kernel of complex precision p that
// computes a batch's parametric coefficients (runtime/backend.ParamCoefs)
// from each path's parameter before the solve: a thread per path and
// entry of BNSetup's parameter table (its arguments: templates/bnewton.cu.tmpl).
func BNParamKernelName(p mdops.Prec) string { return "mdgen_bnparam_" + p.Suffix() }

// The parametric coefficients' kernel (BNParamKernelName): the most
// coefficients of a polynomial it computes (mdtrack.cuh's MDTR_PARAM_MAX:
// a series in registers); its tables, BNParamEntry int64s an entry (a
// slot of a path's block of coefficients: its offset in coefficients, the
// coefficients it holds, its term) and BNParamTerm a term (the offset of
// its polynomial in the polynomials' doubles, its coefficients, its
// scale); BNParamAt doubles a path's parameter (tau, the exponent e); and
// its threads a block.
const (
	BNParamMaxLen  = 16
	BNParamEntry   = 3
	BNParamTerm    = 3
	BNParamAt      = 2
	BNParamThreads = 128
)

// BNSignature returns the kernel's C parameter list.
func BNSignature() string {
	s := ""
	for i, p := range BNParams {
		if i > 0 {
			s += ", "
		}
		s += p.Type + " " + p.Name
	}
	return s
}

// The record of a path's solve (rec): what runtime/newton's Result and
// its *Failure hold, as doubles (counts and flags as whole numbers).
const (
	BNRecState         = iota // 1: converged, 2: failed
	BNRecKind                 // newton.FailureKind
	BNRecFailStep             // Failure.Step
	BNRecFailDegree           // Failure.Degree
	BNRecFailRefine           // Failure.Refine (0 or 1)
	BNRecFailUpdate           // Failure.Update
	BNRecFailPrev             // Failure.PrevUpdate
	BNRecFailResidual         // Failure.Residual
	BNRecFailFNorm            // Failure.FNorm
	BNRecFailCond             // Failure.Cond
	BNRecFailMaxCond          // Failure.MaxCond
	BNRecFailSqrtU            // Failure.SqrtU
	BNRecFailStart            // Failure.StartResidual
	BNRecNonFinite            // Failure.NonFinite (0 or 1)
	BNRecRankCol              // Failure.Rank.Col (0: no rank error)
	BNRecRankRatio            // Failure.Rank.Ratio
	BNRecSteps                // Result.Steps
	BNRecRefineSteps          // Result.RefineSteps
	BNRecCond                 // Result.Cond
	BNRecUpdate               // Result.Update
	BNRecPointUpdate          // Result.PointUpdate
	BNRecResidual             // Result.Residual
	BNRecFNorm                // Result.FNorm
	BNRecStartResidual        // Result.StartResidual
	BNRecQRs                  // Result.Work.QRs
	BNRecInverses             // Result.Work.Inverses
	BNRecUpdates              // Result.Work.Updates
	BNRecReported             // the steps reported (StepInfo: the step records)
	BNRecLen
)

// The record of one step (newton.StepInfo, after the path's record).
const (
	BNStepRefine    = iota // StepInfo.Refine (0 or 1)
	BNStepDegree           // StepInfo.Degree
	BNStepUpdate           // StepInfo.Update
	BNStepUpdateOld        // StepInfo.UpdateOld
	BNStepResidual         // StepInfo.Residual
	BNStepSkipped          // StepInfo.Skipped
	BNStepLen
)

// BNRecStride returns the doubles of one path's record with maxSteps steps.
func BNRecStride(maxSteps int) int { return BNRecLen + BNStepLen*maxSteps }

// BNStrides are the per-path strides (elements of W doubles, except Rinv:
// N-double reals, Info, CW and Rec: doubles) of a batched solve of m
// equations in n unknowns at degree d.
type BNStrides struct {
	X0, Coef, X, A, QA, Tau, Rinv, RRev, Info, Acc, B, DX, Y, E, RB, CW, Rec int64
}

// NewBNStrides returns the strides for m x n at degree d, coef elements
// of coefficients a path, at most maxSteps steps, elements of p.
func NewBNStrides(p mdops.Prec, m, n, d, coef, maxSteps int) BNStrides {
	if m < n || n < 1 || d < 0 || coef < 0 || maxSteps < 0 {
		panic(fmt.Sprintf("gpuabi: NewBNStrides(%d, %d, %d, %d, %d)", m, n, d, coef, maxSteps))
	}
	d1 := int64(d + 1)
	M, N := int64(m), int64(n)
	return BNStrides{
		X0: N, Coef: int64(coef), X: N * d1, A: d1 * M * N, QA: M * N, Tau: N, Rinv: N,
		RRev: int64(LARRevLen(n)), Info: BatchLAInfo, Acc: int64(LALanes) * N,
		B: d1 * M, DX: d1 * N, Y: M, E: M * M, RB: d1 * M, CW: int64(LABCondWork(p, n)), Rec: int64(BNRecStride(maxSteps)),
	}
}

// Doubles returns the doubles of one path's arrays (without data) at
// precision p.
func (s BNStrides) Doubles(p mdops.Prec) int64 {
	w, n := int64(p.Width()), int64(p.N)
	return w*(s.X0+s.Coef+s.X+s.A+s.QA+s.Tau+s.RRev+s.Acc+s.B+s.DX+s.Y+s.E+s.RB) + n*s.Rinv + s.Info + s.CW + 1 + s.Rec
}
