package lockstep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mdgen/mdgen/mdops"
)

// BatchError is the error of a group's batched evaluation (Batched) or
// of a group's whole solves (a SolveExecutor's RunSolves): the stage that
// failed, the step (the working degree of the Evaluate calls) and the
// solvers' configuration, and the tracker's paths of the group's slots.
// Every slot of the failed group gets it; the executor drops what failed
// (Batched: the evaluator), so that the next call makes a new one. It is
// a device's error (runtime/track's DeviceError): the tracker tracks the
// paths again on another device.
type BatchError struct {
	// Stage is the executor's: Batched's are "prepare" (making the
	// evaluator), "evaluate" and "download".
	Stage string
	// W is the working degree of the step (0 for whole solves); Prec and
	// Degree are the solvers' precision and degree.
	W, Degree int
	Prec      mdops.Prec
	// Solves: the group was of whole solves (SolveCall), not of
	// evaluations.
	Solves bool
	// Paths are the 0-based indices of the group's paths (Call.Path),
	// -1 for a slot of no known path.
	Paths []int64
	Err   error
}

// SolveBatchError returns the error of a group of whole solves that
// failed at stage stage (a SolveExecutor's, say "launch"): the precision
// and degree of the calls' Results, their paths in increasing order.
// RunSolves sets it as each call's Err.
func SolveBatchError(stage string, calls []*SolveCall, err error) *BatchError {
	paths := make([]int64, len(calls))
	for i, c := range calls {
		paths[i] = c.Path
	}
	slices.Sort(paths)
	r := calls[0].Result
	return &BatchError{Stage: stage, Degree: r.Degree, Prec: mdops.Prec{N: r.N, Complex: r.Complex}, Solves: true, Paths: paths, Err: err}
}

// maxNamedPaths is how many paths a BatchError's message names.
const maxNamedPaths = 10

func (e *BatchError) Error() string {
	if e.Solves {
		return fmt.Sprintf("lockstep: the batched Newton solves (%s solvers of degree %d) failed at their %s stage, %s: %v",
			e.Prec, e.Degree, e.Stage, namePaths(e.Paths), e.Err)
	}
	return fmt.Sprintf("lockstep: the batched evaluation at working degree %d (%s solvers of degree %d) failed at its %s stage, %s: %v",
		e.W, e.Prec, e.Degree, e.Stage, namePaths(e.Paths), e.Err)
}

func (e *BatchError) Unwrap() error { return e.Err }

// DeviceFailed marks the error as the device's (runtime/track).
func (e *BatchError) DeviceFailed() {}

// namePaths names the paths as mdgen track does (from 1): "paths 3, 8
// and 12", the first maxNamedPaths of more, or the number of slots
// where the paths are not known.
func namePaths(paths []int64) string {
	var named []string
	for _, p := range paths {
		if p < 0 {
			return fmt.Sprintf("%d slots (paths not known)", len(paths))
		}
		if len(named) < maxNamedPaths {
			named = append(named, fmt.Sprint(p+1))
		}
	}
	switch {
	case len(paths) == 1:
		return "path " + named[0]
	case len(paths) > len(named):
		return fmt.Sprintf("paths %s, ... (%d in all)", strings.Join(named, ", "), len(paths))
	}
	return fmt.Sprintf("paths %s and %s", strings.Join(named[:len(named)-1], ", "), named[len(named)-1])
}

// TooLargeError is the error of a NewEvaluator whose batch of Paths paths
// does not fit on the device, where Fit paths would (0: not even one):
// Batched then evaluates its groups in batches of at most Fit paths.
type TooLargeError struct {
	Paths, Fit int
	Err        error // the device's reason
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("lockstep: a batch of %d paths does not fit, %d would: %v", e.Paths, e.Fit, e.Err)
}

func (e *TooLargeError) Unwrap() error { return e.Err }
