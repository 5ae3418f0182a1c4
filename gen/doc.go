// Package gen prints mdgen's IR (package mdops/alg) as code: Go source for
// package mdops through github.com/dave/jennifer, and CUDA headers for
// generated/cuda through the skeletons in package templates. Printers only
// translate instructions one for one; they never invent arithmetic, so the
// Go code, the CUDA code and the IR interpreter agree bit for bit.
package gen
