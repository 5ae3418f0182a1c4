package mdops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mdgen/mdgen/mdops/alg"
)

// benchOpsByN maps N to its typed benchmarks (ops_bench_gen_test.go).
var benchOpsByN = map[int]func(b *testing.B, cases []alg.Case){}

// BenchmarkOps measures ns/op of every measured operation at every N on a
// ring of 256 random operands (reported as ns/op and Mflop/s from the IR's
// flop count). The loops call the typed methods directly, as user code
// does, and allocate nothing.
func BenchmarkOps(b *testing.B) {
	for _, n := range Precisions() {
		cases := benchOperands(n, 256, 11)
		b.Run(fmt.Sprintf("F%d", n), func(b *testing.B) { benchOpsByN[n](b, cases) })
	}
}

// benchOperands returns count cases of random operands, the common case:
// positive and negative, every limb carrying random bits, x's leading
// exponent in [-200, 200), y's within 30 binades of x's, and madd's acc
// within 30 of the product's (the accuracy corpus's "random" kind before it
// spanned the whole exponent range: benchmarks stay away from subnormal
// limbs, which are slow on the CPU, and from overflow).
func benchOperands(n, count int, seed uint64) []alg.Case {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	cs := make([]alg.Case, count)
	for i := range cs {
		e := rng.IntN(400) - 200
		ey := e - rng.IntN(60) + 30
		x, y := alg.Random(n, e, rng), alg.Random(n, ey, rng)
		acc := alg.Random(n, e+ey-rng.IntN(60)+30, rng)
		cs[i] = alg.Case{Kind: "random", X: x, Y: y, F: y[0], A: acc}
	}
	return cs
}

// reportFlops reports the Mflop/s of a benchmark of an operation of the
// given flop count.
func reportFlops(b *testing.B, flops int) {
	b.ReportMetric(float64(flops)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mflop/s")
}

// BenchmarkConvolve measures ConvolveF<N> and ConvolveC<N> on series of 32
// coefficients (degree 31), reported per multiply-add: a convolution of L
// coefficients performs L(L+1)/2 of them (the first of each coefficient a
// Mul).
func BenchmarkConvolve(b *testing.B) {
	const length = 32
	const madds = length * (length + 1) / 2
	for _, n := range Precisions() {
		ks, _ := SeriesKernelsFor(n)
		x := make([]float64, 2*n*length)
		y := make([]float64, 2*n*length)
		for k, c := range benchOperands(n, 2*length, 3) {
			copy(x[k*n:], c.X)
			copy(y[k*n:], c.Y)
		}
		z := make([]float64, 2*n*length)
		for _, cplx := range []bool{false, true} {
			name, conv, w := fmt.Sprintf("F%d", n), ks.Conv, n
			if cplx {
				name, conv, w = fmt.Sprintf("C%d", n), ks.ConvComplex, 2*n
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					conv(z[:w*length], x[:w*length], y[:w*length])
				}
				b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/madds, "ns/madd")
			})
		}
	}
}
