package mdops

import (
	"fmt"
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
	for _, n := range generatedNs {
		// Random operands only (every tenth case of the corpus): the common case.
		all := alg.Corpus("madd", n, 10*256, 11)
		cases := make([]alg.Case, 256)
		for i := range cases {
			cases[i] = all[10*i]
		}
		b.Run(fmt.Sprintf("F%d", n), func(b *testing.B) { benchOpsByN[n](b, cases) })
	}
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
	for _, n := range generatedNs {
		ks, _ := SeriesKernelsFor(n)
		x := make([]float64, 2*n*length)
		y := make([]float64, 2*n*length)
		for k, c := range alg.Corpus("mul", n, 2*length, 3) {
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
