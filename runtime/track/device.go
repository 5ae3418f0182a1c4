package track

import "github.com/mdgen/mdgen/runtime/newton"

// Device runs the numeric work of the workers' Newton solvers elsewhere
// (runtime/lockstep: every worker's solves batched on a GPU). Each worker
// joins before it makes a solver and leaves when it has no more paths;
// its solvers take their options through Solver. The results do not
// change.
type Device interface {
	Join()
	Leave()
	Solver(newton.Options) newton.Options
}

// solverOptions returns o as the worker's device wants it (o without a
// device).
func (opt *Options) solverOptions(o newton.Options) newton.Options {
	if opt.device == nil {
		return o
	}
	return opt.device.Solver(o)
}
