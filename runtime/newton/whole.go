package newton

// Whole solves: a back end that runs the driver itself (a GPU kernel that
// runs the solves of many paths in one launch, runtime/lockstep's groups)
// takes a solve at once instead of a call per item of each step.

// Settings are what the driver reads of a Solver for one solve: its
// options in effect (defaults filled in) and its tolerances. A whole
// solve must read them, and no other option, as run.go does.
type Settings struct {
	Degree   int // d: phase 2 runs when d > 0 (Options.Degree)
	MaxSteps int // Options.MaxSteps (> 0: the default filled in)
	// MaxCond is Options.MaxCond (> 0: the default filled in).
	MaxCond float64
	// RefineTol is Options.RefineTol as it is for this solve
	// (Solver.SetRefineTol changes it between solves: runtime/track sets
	// 0 at t = 1).
	RefineTol float64
	// NoResidual, NoFinalResidual and NoStageTimes are the Options'.
	NoResidual, NoFinalResidual, NoStageTimes bool
	// U is the unit roundoff (Prec.UnitRoundoff()), SqrtU
	// HalfPrecision(U): the stop rule's, the skip test's and the divergence
	// test's.
	U, SqrtU float64
}

// WholeSolve is one solve handed to a back end whole: the start and the
// settings, and the outcome.
type WholeSolve struct {
	// X0 is the start, rounded (Solver.SolveLimbs): value v at
	// X0[v*W:(v+1)*W]. It is the caller's: read, not kept.
	X0       []float64
	Settings Settings
	// Result is made by the Solver with its header (N, Complex, Degree,
	// Vars) set; the back end fills every other field as run.go would
	// on a Backend driven method by method, bit for bit: Converged, Err
	// (a *Failure with every field), Steps, RefineSteps, Cond, Update,
	// PointUpdate, Residual, FNorm, StartResidual, Work and X (a slice
	// the Result keeps). Times may differ (zero: not measured).
	Result *Result
	// Steps is empty (a reused slice, length 0) when the solve starts;
	// the back end appends the StepInfo of every step in order, as run.go
	// reports them (Elapsed may differ), and the Solver replays them
	// through Options.Progress after the solve.
	Steps []StepInfo
}

// WholeSolver is a Backend that runs whole solves: Solver.SolveLimbs
// hands it the solve (SolveWhole) instead of calling its methods one
// item at a time (it calls none of the others for that solve). The
// result must be the driver's on the back end's numeric work (the
// package documentation's order of operations), bit for bit.
type WholeSolver interface {
	Backend
	// SolveWhole runs ws (see WholeSolve). An error is the back end's
	// (a device's): the Solve fails with it; the steps appended before
	// it are still replayed.
	SolveWhole(ws *WholeSolve) error
}

// Driver runs run.go's driver (the one in this package) over a Backend,
// method by method: the Solver's own way of solving, and a whole-solve
// back end's on the CPU (runtime/lockstep's reference executor runs it
// for each slot on its CPU back end, so that its solves are the Solver's
// by construction). The zero Driver is ready; it keeps its run state
// between solves. A Driver is not safe for concurrent use.
type Driver struct{ r run }

// Solve runs ws on be: it fills ws.Result (Times included) and appends
// the steps to ws.Steps, as WholeSolver.SolveWhole must. The error is
// be's (the Result is then incomplete).
func (d *Driver) Solve(be Backend, ws *WholeSolve) error { return d.drive(be, ws, nil, true) }
