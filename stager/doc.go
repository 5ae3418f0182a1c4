// Package stager stages the evaluation and differentiation of a polynomial
// system at truncated power series into layered job tables (Verschelde's
// data staging, arXiv:2101.10881), and checks what it made.
//
// The pipeline is poly.Parse (system file → poly.System) then Stage
// (System, degree → Plan). A Plan is pure data: slots of series in one data
// array, and layers of convolution and addition jobs. Executors
// (runtime/cpu on the CPU, runtime/gpu and the emitted CUDA code on the GPU)
// run the layers in order; within a layer every job is independent, which
// Check proves for every Plan. Plan.Hash names a Plan by its content.
//
// Scale. Stage and Check take time and memory linear in the size of the
// System (and of the Plan made): a system of 10^5 sparse equations or a
// product of 10^5 variables is staged and checked in about a second.
// Derivatives are kept sparse (Plan.Partials, Plan.DerivSlot); nothing is
// sized by equations × variables unless the system is small or dense (the
// optional Plan.Deriv). Stage counts every table it will make, and the data
// array, before it allocates (Plan.Memory, Plan.CheckMemory).
//
// The neighbours: package stager/poly holds the System (polynomials with
// series coefficients) and PHCpack's system reader and writer;
// stager/solutions reads and writes PHCpack's solution lists;
// stager/families builds the families of test systems and the benchmark
// systems p1, p2, p3.
package stager
