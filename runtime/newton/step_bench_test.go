package newton_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/mdgen/mdgen/internal/bench"
	"github.com/mdgen/mdgen/mdops"
)

// BenchmarkNewtonStep times one Newton step of root refinement (degree 0,
// one worker, complex data) on the small systems a path tracker lives on
// (bench.StepBench): evaluation and Jacobian, QR and condition estimate,
// Q^H b, back substitution, residual and update. It reports the step's
// counted double operations (bench.StepOps) per second and their
// percentage of the bare multiply-add loop's rate at the same precision
// (acc = acc.MulAdd(x_i, y_i), timed in the same run):
//
//	go test ./runtime/newton -run '^$' -bench NewtonStep
//
// mdgen bench -newton-step prints the same as a table.
func BenchmarkNewtonStep(b *testing.B) {
	for _, sys := range []string{"cyclic7", "katsura6", "noon5"} {
		for _, prec := range []int{1, 2, 4, 8} {
			b.Run(fmt.Sprintf("%s/%dd", sys, prec), func(b *testing.B) {
				st, err := bench.NewStepBench(sys+":newton", mdops.Prec{N: prec, Complex: true}, 1)
				if err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				for b.Loop() {
					if err := st.Step(); err != nil {
						b.Fatal(err)
					}
				}
				sec := b.Elapsed().Seconds() / float64(b.N)
				bare := bench.BareMulAddRate(st.Prec, 20*time.Millisecond)
				b.ReportMetric(sec*1e3, "ms/step")
				b.ReportMetric(st.Ops/sec/1e9, "Gflop/s")
				b.ReportMetric(100*st.Ops/sec/bare, "%bare")
			})
		}
	}
}
