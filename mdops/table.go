package mdops

import "slices"

// limbFuncs holds one precision's operations on limb slices, so that tests
// and tools can range over every generated precision without naming types.
type limbFuncs struct {
	add, sub, mul, div     func(x, y []float64) []float64
	sqr, sqrt, neg, abs    func(x []float64) []float64
	mulFloat64             func(x []float64, f float64) []float64
	cadd, csub, cmul, cdiv func(ar, ai, br, bi []float64) (re, im []float64)
	cabs                   func(re, im []float64) []float64
	madd                   func(acc, x, y []float64) []float64
	cmadd                  func(accr, acci, xr, xi, yr, yi []float64) (re, im []float64)
}

// limbFuncsByN maps N to its operations, filled by the generated files' init functions.
var limbFuncsByN = map[int]limbFuncs{}

// Precisions returns the precisions N generated into this package, ascending:
// those whose f<N>_gen.go registered its kernels (gen.DefaultNs, plus any
// that `mdgen generate -n` added). Tools and tests range over this list
// rather than keeping their own.
func Precisions() []int {
	ns := make([]int, 0, len(seriesKernelsByN))
	for n := range seriesKernelsByN {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}
