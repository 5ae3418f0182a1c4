// Package backend is what every back end of the run time shares: the
// Executor interface (evaluation and differentiation of a staged plan),
// the layout of a series in memory (Layout, RoundSeries), the rounding of
// a plan's coefficients (RoundValues: the same bits on every back end),
// inputs and checksums, operation counts, the stage clock and
// configuration of Newton's back ends (Stage, Times, NewtonConfig), and
// coefficients that are polynomials in a homotopy's parameter
// (ParamCoefs: a device that computes them from the parameter is a
// ParamSetter).
//
// The run time is a folder of packages (see the README's layout):
//
//	runtime/backend   this package: the contract between the drivers and the back ends
//	runtime/cpu       the CPU back end: the executor (goroutines over the layers) and Newton's CPU back end
//	runtime/gpu       the GPU back end (build tag cuda; stubs otherwise): executor and device-resident Newton;
//	                  runtime/gpu/cudadev (the driver layer), runtime/gpu/kernels (building and loading kernels)
//	runtime/newton    Newton's method on Taylor series: the driver over a back end
//	runtime/ref       math/big.Float references
//	runtime/tune      offline search of launch shapes (tuning profiles)
//	runtime/solver    what the packages of `mdgen emit` call
//
// It imports no back end, so each back end and each driver can import it.
package backend
