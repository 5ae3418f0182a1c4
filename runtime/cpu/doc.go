// Package cpu is the CPU back end: Executor evaluates and differentiates a
// staged plan with the generated mdops kernels on goroutines over the
// layers, and Newton is the CPU back end of runtime/newton's driver, with
// mdops/la's routines. Its order of every operation is the specification
// that the GPU back end (runtime/gpu) reproduces bit for bit.
package cpu
