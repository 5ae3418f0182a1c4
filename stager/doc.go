// Package stager reads polynomial systems in PHCpack's plain format and
// stages their evaluation and differentiation at truncated power series into
// layered job tables (Verschelde's data staging, arXiv:2101.10881).
//
// The pipeline is Parse (system file → System) then Stage (System, degree →
// Plan). A Plan is pure data: slots of series in one data array, and layers of
// convolution and addition jobs. Executors (package runtime on the CPU, the
// emitted CUDA code on the GPU) run the layers in order; within a layer every
// job is independent, which Check proves for every Plan.
//
// Scale. Parse, Stage and Check take time and memory linear in the size of
// their input (and of the Plan made): a file of 10^5 sparse equations or a
// product of 10^5 variables is read, staged and checked in about a second.
// Derivatives are kept sparse (Plan.Partials, Plan.DerivSlot); nothing is
// sized by equations × variables unless the system is small or dense (the
// optional Plan.Deriv). Stage counts every table it will make, and the data
// array, before it allocates (Plan.Memory, Plan.CheckMemory). Expansions in
// a file (powers and products of sums) are bounded by limits that grow with
// the file, so that a small file cannot ask for much.
//
// The file format is PHCpack's, with one addition that PHCpack ignores: a
// line "SERIES PARAMETER : t" (or "NO SERIES PARAMETER") after the
// polynomials names the series parameter where PHCpack's convention (one
// more variable than equations) cannot. Format writes it where needed, so
// that what Format writes reads back as the same System with no options.
package stager
