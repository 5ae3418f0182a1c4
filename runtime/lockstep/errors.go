package lockstep

import (
	"fmt"
	"strings"

	"github.com/mdgen/mdgen/mdops"
)

// BatchError is the error of a group's batched evaluation (Batched): the
// stage that failed, the step (the working degree of the Evaluate calls
// and the solver's configuration) and the tracker's paths of the group's
// slots. Every slot of the failed evaluation gets it; the executor drops
// the evaluator, so that the next call makes a new one. It is a device's
// error (runtime/track's DeviceError): the tracker tracks the paths again
// on another device.
type BatchError struct {
	// Stage is "prepare" (making the evaluator), "evaluate" or
	// "download".
	Stage string
	// W is the working degree of the step; Prec and Degree are the
	// solvers' precision and degree.
	W, Degree int
	Prec      mdops.Prec
	// Paths are the 0-based indices of the group's paths (Call.Path),
	// -1 for a slot of no known path.
	Paths []int64
	Err   error
}

// maxNamedPaths is how many paths a BatchError's message names.
const maxNamedPaths = 10

func (e *BatchError) Error() string {
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
