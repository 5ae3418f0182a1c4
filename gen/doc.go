// Package gen prints mdgen's IR (package mdops/alg) as code: Go source for
// package mdops through github.com/dave/jennifer, and CUDA headers for
// generated/cuda through the skeletons in package templates. Printers only
// translate instructions one for one; they never invent arithmetic, so the
// Go code, the CUDA code and the IR interpreter agree bit for bit.
//
// Package gen runs nothing and imports nothing of the run time (runtime/...):
// the emitter (Emit) gets the outputs of an emitted package's Examples from
// an ExampleRunner its caller gives (runtime/solver.ExampleRunner), and the
// run time builds the CUDA sources gen prints (runtime/gpu/kernels).
package gen
