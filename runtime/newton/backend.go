package newton

import (
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/backend"
)

// Backend does the numeric work of the driver on buffers of its own (the
// layouts of the package documentation), one Newton step at a time: the
// driver (run.go's control flow: phases, staggered degrees, skip test,
// stop rule, failures, progress) calls it in the order of the package
// documentation and needs back only the few numbers that it decides on.
// The CPU back end (the default) is this package's; runtime/gpu has one
// that keeps every buffer on the GPU. Both give the same bits: every
// float64 returned is a leading limb, a max of leading limbs or a Norm1 (a
// float64 sum of leading-limb magnitudes, la.LeadNorm1), computed in the
// order the package documentation specifies.
//
// An error of a method (a CUDA error, say) stops the Solve with that error;
// the driver adds the stage and the step.
type Backend interface {
	// Reset starts a solve from x0 (value v at x0[v*W:(v+1)*W]): x_v[0] =
	// value v, every higher coefficient zero.
	Reset(x0 []float64) error
	// Evaluate is item 1 at working degree w (A_0..A_w too when jac):
	// it returns ||b||_1 = Norm1 of the blocks 0..w as one vector and the
	// largest leading-limb magnitude of those blocks (maxAbs: NaN when a
	// leading limb is NaN).
	Evaluate(w int, jac bool) (fnorm, bmax float64, err error)
	// Factor is item 2: the QR of A_0 (as Evaluate left it), and
	// (when it is not rank deficient: rank == nil) its condition estimate
	// and ||A_0||_1 = max over j of Norm1(column j). inverse says that
	// FormInverse will follow (phase 2): a back end may then start its
	// work already (the GPU queues it right after the condition
	// estimate); FormInverse then completes it. The results do not change.
	Factor(inverse bool) (rank *la.RankError, cond, a0norm float64, err error)
	// MaxAbsX returns maxAbs over every coefficient of x.
	MaxAbsX() (float64, error)
	// BlockNorm returns Norm1(b_k), b_k as the blocks before k left it.
	BlockNorm(k int) (float64, error)
	// SkipBlock sets dx_k = 0.
	SkipBlock(k int) error
	// ApplyQH sets y = b_k, then y = Q^H y (la ApplyQH). Phase 1 only.
	ApplyQH(k int) error
	// SolveR solves R y' = y (la SolveR) and sets dx_k = y'[0..n-1].
	// Phase 1 only.
	SolveR(k int) error
	// FormInverse forms E[0:n, :] = -M = -R^-1 (Q^H)[0:n, :] from the
	// QR of the last Factor (m x m work space E, column-major with lda =
	// m): E = -I_m, then la ApplyQHMany on its m columns, then la
	// SolveRMany on their first n rows. Phase 2, once per QR.
	FormInverse() error
	// SolveBlock sets dx_k = 0 - (-M) b_k: dx_k = 0, then la MulSub with
	// the n x m matrix E (lda = m) and x = b_k. Phase 2, after
	// FormInverse.
	SolveBlock(k int) error
	// UpdateB does b_j -= A_(j-k) dx_k for j = k+1..w (la MulSub each).
	UpdateB(k, w int) error
	// Residual is item 4: the float64 sum over k = 0..w in order of nb[k]
	// (skipped[k]) or Norm1(b_k - A_0 dx_k).
	Residual(w int, skipped []bool, nb []float64) (float64, error)
	// UpdateX is item 5: delta = maxAbs(dx_0..dx_w), deltaOld =
	// maxAbs(dx_0..dx_wPrev), then x_v[k] = Add(x_v[k], dx_k[v]) for the
	// blocks k <= w not skipped, and xmax = maxAbs(x) after the update.
	UpdateX(w, wPrev int, skipped []bool) (delta, deltaOld, xmax float64, err error)
	// X returns x (n series of d+1 coefficients, the executor's layout) as
	// a slice that the Result keeps: a later Reset must not change it.
	X() ([]float64, error)

	// Mark starts a new interval of the stage clock, attributed to no
	// stage; Lap attributes the work since the last Mark or Lap to stage
	// s. The CPU measures wall time; the GPU records an event on its
	// stream (the work queued in between, and the time the device waited
	// for the host, go to s).
	Mark()
	Lap(s Stage)
	// Times returns the stage times since Reset (the GPU waits for its
	// last event).
	Times() (Times, error)

	// Close releases the back end's buffers.
	Close() error
}

// Stage and Times are the stage clock that the driver and its back ends
// share; their home is runtime/backend.
type (
	Stage = backend.Stage
	Times = backend.Times
)
