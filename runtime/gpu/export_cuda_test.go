//go:build cuda

package gpu

import "github.com/mdgen/mdgen/gen/gpuabi"

// SetLaunchFault makes the Newton back end's launches that f picks fail
// in the driver (see launchFault); nil clears it.
func SetLaunchFault(f func(op gpuabi.LAOp) bool) { launchFault = f }

// Speculations returns the speculative solves queued so far.
func Speculations() int64 { return speculations.Load() }

// SameBits is refine_test.go's sameBits: Results compared bit for bit, any
// NaN equal to any NaN.
var SameBits = sameBits
