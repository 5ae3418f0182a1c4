package mdops

import (
	"fmt"
	"testing"

	"github.com/mdgen/mdgen/mdops/alg"
)

var sink []float64

// BenchmarkOps measures ns/op of every generated operation at every N on a
// ring of 256 random operands (reported as ns/op and Mflop/s from the IR's
// flop count).
func BenchmarkOps(b *testing.B) {
	for _, n := range generatedNs {
		f := limbFuncsByN[n]
		lib := alg.Build(n)
		cases := alg.Corpus("mul", n, 256, 11)
		for i := range cases { // random operands only: the common case
			c := alg.Corpus("mul", n, 10*256, 11)[10*i]
			c.A = c.Y // the accumulator of madd
			cases[i] = c
		}
		for _, op := range arithOps {
			flops := lib.Program(op).Count().Flops()
			b.Run(fmt.Sprintf("F%d/%s", n, op), func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					c := &cases[i&255]
					sink = apply(f, op, *c)
				}
				b.ReportMetric(float64(flops)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mflop/s")
			})
		}
	}
}
