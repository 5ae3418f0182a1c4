package track

import (
	"errors"

	"github.com/mdgen/mdgen/runtime/newton"
)

// Device runs the numeric work of the workers' Newton solvers elsewhere
// (runtime/lockstep: every worker's solves batched on a GPU). Each worker
// joins before it makes a solver and leaves when it has no more paths
// (and while it waits for a path that may come back from a failed
// device); its solvers take their options through Solver. The results do
// not change.
type Device interface {
	Join()
	Leave()
	Solver(newton.Options) newton.Options
}

// PathNamer is a Device that names the tracker's paths in its errors: a
// worker's solvers take their options through SolverFor, whose path
// returns the index of the path the worker tracks (valid while the worker
// is in a call of one of those solvers).
type PathNamer interface {
	Device
	SolverFor(o newton.Options, path func() int64) newton.Options
}

// DeviceError is an error of a device, not of the path it tracked (a
// CUDA error inside a batch: runtime/lockstep's BatchError). The worker
// that gets one puts its path back in the queue and leaves the device,
// which takes no more paths; see Run.DeviceFailures.
type DeviceError interface {
	error
	// DeviceFailed marks the error as the device's.
	DeviceFailed()
}

// DeviceFailure is a device that failed during a run: Requeued paths went
// back to the queue (each tracked again from its start on another device,
// so its bits are those of a run without the failure).
type DeviceFailure struct {
	Device   int   // its index in Options.Devices
	Err      error // the first error
	Requeued int
}

func isDeviceError(err error) bool {
	var de DeviceError
	return errors.As(err, &de)
}

// solverOptions returns o as the worker's device wants it (o without a
// device).
func (opt *Options) solverOptions(o newton.Options) newton.Options {
	if opt.device == nil {
		return o
	}
	if pn, ok := opt.device.(PathNamer); ok && opt.path != nil {
		return pn.SolverFor(o, opt.path)
	}
	return opt.device.Solver(o)
}
