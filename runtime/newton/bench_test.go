package newton

import (
	"fmt"
	"os"
	"testing"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/stager/families"
)

// BenchmarkMonomial times Newton on the monomial homotopy (PHCpack's
// problem -1: x_1···x_i = b_i(t), x_i(t) = exp(c_i t), start x(0) = 1) and
// reports the six stage times of one solve (seconds per op) and its steps:
//
//	go test ./runtime/newton -run '^$' -bench Monomial -benchtime 1x
//	go test ./runtime/newton -run '^$' -bench 'Monomial/n=64/d=32/8d/real/w=2' -benchtime 1x
//
// n = 32, 64 and d = 16, 32 (with MDGEN_BENCH_LARGE=1 also n = 128 and
// d = 64: the whole grid, an hour of CPU time), in 2, 4, 8
// doubles, real and complex, 1 and 2 workers. Staging the plans is outside
// the timer (Solver.Prepare).
func BenchmarkMonomial(b *testing.B) {
	ns, ds := []int{32, 64}, []int{16, 32}
	if os.Getenv("MDGEN_BENCH_LARGE") != "" {
		ns, ds = append(ns, 128), append(ds, 64)
	}
	for _, n := range ns {
		for _, d := range ds {
			for _, prec := range []int{2, 4, 8} {
				for _, complex := range []bool{false, true} {
					for _, workers := range []int{1, 2} {
						kind := "real"
						if complex {
							kind = "complex"
						}
						b.Run(fmt.Sprintf("n=%d/d=%d/%dd/%s/w=%d", n, d, prec, kind, workers), func(b *testing.B) {
							benchMonomial(b, n, d, prec, complex, workers)
						})
					}
				}
			}
		}
	}
}

func benchMonomial(b *testing.B, n, d, prec int, complex bool, workers int) {
	inst, err := families.Build("monomial", families.Options{N: n, Degree: d, Seed: 1, Complex: complex})
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(inst.System, Options{Prec: mdops.Prec{N: prec, Complex: complex}, Degree: d, Workers: workers})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.Prepare(); err != nil {
		b.Fatal(err)
	}
	var sum Times
	steps := 0
	b.ResetTimer()
	for range b.N {
		res, err := s.Solve(inst.Start[0].Values)
		if err != nil {
			b.Fatal(err)
		}
		if !res.Converged {
			b.Fatalf("not converged: %v", res.Err)
		}
		sum = sum.Add(res.Times)
		steps = res.Steps
	}
	per := func(x interface{ Seconds() float64 }) float64 { return x.Seconds() / float64(b.N) }
	b.ReportMetric(per(sum.Evaluate), "evaluate-s")
	b.ReportMetric(per(sum.QR), "qr-s")
	b.ReportMetric(per(sum.QHB), "qhb-s")
	b.ReportMetric(per(sum.BackSub), "backsub-s")
	b.ReportMetric(per(sum.Update), "update-s")
	b.ReportMetric(per(sum.Residual), "residual-s")
	b.ReportMetric(float64(steps), "steps")
}
