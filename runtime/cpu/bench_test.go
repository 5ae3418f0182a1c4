package cpu

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
)

// envInts reads a comma-separated list from the environment, or returns def.
func envInts(name string, def []int) []int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err == nil {
			out = append(out, v)
		}
	}
	return out
}

// BenchmarkCPU runs the CPU executor on the paper's systems. The grid is
// p1, p2, p3 × degrees × precisions × 1 and 2 workers; narrow it with
// MDGEN_BENCH_SYSTEMS=p1, MDGEN_BENCH_DEGREES=31, MDGEN_BENCH_NS=8 (the full
// grid at d = 152 runs for hours). Each 2-worker case also times one
// 1-worker run and reports the speed-up.
func BenchmarkCPU(b *testing.B) {
	systems := strings.Split(os.Getenv("MDGEN_BENCH_SYSTEMS"), ",")
	if systems[0] == "" {
		systems = []string{"p1", "p2", "p3"}
	}
	degrees := envInts("MDGEN_BENCH_DEGREES", []int{8, 31, 63, 152})
	ns := envInts("MDGEN_BENCH_NS", []int{2, 4, 8, 10})
	for _, name := range systems {
		sys, err := families.BenchmarkSystem(name, 1)
		if err != nil {
			b.Fatal(err)
		}
		for _, d := range degrees {
			plan, err := stager.Stage(sys, d)
			if err != nil {
				b.Fatal(err)
			}
			for _, n := range ns {
				for _, w := range []int{1, 2} {
					b.Run(fmt.Sprintf("%s/d%d/%dd/w%d", name, d, n, w), func(b *testing.B) {
						e, err := New(plan, mdops.Prec{N: n}, w)
						if err != nil {
							b.Fatal(err)
						}
						for v, s := range backend.RandomInputs(plan.NumVars, backend.Layout{Prec: mdops.Prec{N: n}, Degree: d}, 1) {
							e.SetInput(v, s)
						}
						var one time.Duration
						if w > 1 {
							e1, _ := New(plan, mdops.Prec{N: n}, 1)
							for v, s := range backend.RandomInputs(plan.NumVars, backend.Layout{Prec: mdops.Prec{N: n}, Degree: d}, 1) {
								e1.SetInput(v, s)
							}
							start := time.Now()
							e1.Run()
							one = time.Since(start)
						}
						b.ResetTimer()
						for range b.N {
							e.Run()
						}
						sec := b.Elapsed().Seconds() / float64(b.N)
						ops := backend.CountOps(plan, mdops.Prec{N: n})
						b.ReportMetric(sec, "s/eval")
						b.ReportMetric(ops.MulAdds/sec/1e6, "Mmadd/s")
						b.ReportMetric(ops.DoubleOps/sec/1e9, "Gflop/s")
						if w > 1 {
							b.ReportMetric(one.Seconds()/sec, "speedup")
						}
					})
				}
			}
		}
	}
}

// BenchmarkBareMulAdd is the yardstick of the executor's op rate: a bare
// loop of multiply-adds at one precision on one core, both as the fused
// MulAdd the convolutions use and as Mul followed by Add.
func BenchmarkBareMulAdd(b *testing.B) {
	const size = 64
	for _, n := range []int{2, 4, 8, 10} {
		in := backend.RandomInputs(2, backend.Layout{Prec: mdops.Prec{N: n}, Degree: size - 1}, 5)
		k, _ := mdops.SeriesKernelsFor(n)
		z := make([]float64, size*n)
		b.Run(fmt.Sprintf("%dd/conv%d", n, size), func(b *testing.B) {
			for range b.N {
				k.Conv(z, in[0], in[1])
			}
			madds := float64(size*(size+1)/2) * float64(b.N)
			b.ReportMetric(madds/b.Elapsed().Seconds()/1e6, "Mmadd/s")
		})
	}
}

// BenchmarkBareLoop: acc += x[i]*y[i] over 64 typed values on one core, the
// issue's yardstick for the executor's op rate at 4d and 8d.
func BenchmarkBareLoop(b *testing.B) {
	const size = 64
	b.Run("4d/Mul+Add", func(b *testing.B) {
		x, y := typedF4(size, 1), typedF4(size, 2)
		var acc mdops.F4
		for range b.N {
			for i := range x {
				acc = acc.Add(x[i].Mul(y[i]))
			}
		}
		sinkF4 = acc
		b.ReportMetric(float64(size*b.N)/b.Elapsed().Seconds()/1e6, "Mmadd/s")
	})
	b.Run("4d/MulAdd", func(b *testing.B) {
		x, y := typedF4(size, 1), typedF4(size, 2)
		var acc mdops.F4
		for range b.N {
			for i := range x {
				acc = acc.MulAdd(x[i], y[i])
			}
		}
		sinkF4 = acc
		b.ReportMetric(float64(size*b.N)/b.Elapsed().Seconds()/1e6, "Mmadd/s")
	})
	b.Run("8d/Mul+Add", func(b *testing.B) {
		x, y := typedF8(size, 1), typedF8(size, 2)
		var acc mdops.F8
		for range b.N {
			for i := range x {
				acc = acc.Add(x[i].Mul(y[i]))
			}
		}
		sinkF8 = acc
		b.ReportMetric(float64(size*b.N)/b.Elapsed().Seconds()/1e6, "Mmadd/s")
	})
	b.Run("8d/MulAdd", func(b *testing.B) {
		x, y := typedF8(size, 1), typedF8(size, 2)
		var acc mdops.F8
		for range b.N {
			for i := range x {
				acc = acc.MulAdd(x[i], y[i])
			}
		}
		sinkF8 = acc
		b.ReportMetric(float64(size*b.N)/b.Elapsed().Seconds()/1e6, "Mmadd/s")
	})
}

var (
	sinkF4 mdops.F4
	sinkF8 mdops.F8
)

func typedF4(size int, seed uint64) []mdops.F4 {
	raw := backend.RandomInputs(1, backend.Layout{Prec: mdops.Prec{N: 4}, Degree: size - 1}, seed)[0]
	out := make([]mdops.F4, size)
	for i := range out {
		copy(out[i][:], raw[4*i:])
	}
	return out
}

func typedF8(size int, seed uint64) []mdops.F8 {
	raw := backend.RandomInputs(1, backend.Layout{Prec: mdops.Prec{N: 8}, Degree: size - 1}, seed)[0]
	out := make([]mdops.F8, size)
	for i := range out {
		copy(out[i][:], raw[8*i:])
	}
	return out
}
