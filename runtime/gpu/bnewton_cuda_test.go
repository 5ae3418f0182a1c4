//go:build cuda

package gpu_test

// gpu.BatchNewton on a real GPU: every path's Result, steps and series
// those of newton.Solver with the CPU back end on that path alone, bit for
// bit (internal/bntest's cases, as gen's host emulation checks them), and
// the throughput of whole solves for thousands of paths beside the CPU's
// solvers on every core of the host. Build here, run on the GPU machine
// from the repository root:
//
//	CGO_ENABLED=1 CGO_CFLAGS="-I$PWD/build/cudacompat -I$PWD/.cuda-sdk/include" \
//	CGO_LDFLAGS="-L$PWD/.cuda-sdk/lib" go test -c -tags cuda -o .gpu/runtime.test ./runtime/gpu
//	.gpu/runtime.test -test.run 'GPUBatchNewton' -test.v
//	.gpu/runtime.test -test.run '^$' -test.bench GPUBatchNewton -test.benchtime 3x
//
// MDGEN_GPU_BN_PRECS limits the test to the precisions of these suffixes
// (c2,r2,...). MDGEN_GPU_BN_BENCH lists the benchmark's cases (default
// katsura8:newton,cyclic7:newton), MDGEN_GPU_BN_PATHS its batch sizes
// (default 1024,4096), MDGEN_GPU_BN_NS its precisions (default 2,4),
// MDGEN_GPU_BN_THREADS the threads a block (default 32,128),
// MDGEN_GPU_BN_D the series degree (default 9); MDGEN_GPU_BN_NOCPU=1 leaves
// the CPU's run out. MDGEN_GPU_TEST_NVCC_EXTRA adds nvcc flags (-lineinfo
// for Nsight Compute) and MDGEN_GPU_TEST_PTXAS=1 prints ptxas's report.

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/internal/bntest"
	"github.com/mdgen/mdgen/internal/xcheck"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
)

var (
	bnOnce   sync.Once
	bnDev    *cudadev.Device
	bnDevErr error
	bnB      *kernels.Builder
	bnBErr   error
	bnMu     sync.Mutex
	bnKs     = map[mdops.Prec]*gpu.BatchNewtonKernels{}
)

// bnKernels opens GPU 0 (or skips) and builds and loads the batched
// Newton solve of p.
func bnKernels(tb testing.TB, p mdops.Prec) *gpu.BatchNewtonKernels {
	tb.Helper()
	bnOnce.Do(func() {
		if bnDev, bnDevErr = cudadev.Open(0); bnDevErr != nil {
			return
		}
		fmt.Println("gpu:", bnDev.Info())
		cache := xcheck.GPUTestCache()
		bnB, bnBErr = kernels.New(bnDev, "", cache)
		if bnBErr == nil {
			// MDGEN_GPU_TEST_NVCC_EXTRA adds nvcc flags (-lineinfo for a
			// profile); they are part of the cache key.
			bnB.Extra = strings.Fields(os.Getenv("MDGEN_GPU_TEST_NVCC_EXTRA"))
		}
	})
	if bnDevErr != nil {
		tb.Skipf("no GPU: %v", bnDevErr)
	}
	if bnBErr != nil {
		tb.Fatal(bnBErr)
	}
	bnMu.Lock()
	defer bnMu.Unlock()
	if k, ok := bnKs[p]; ok {
		return k
	}
	src, err := gen.BatchNewtonCUSource(p)
	if err != nil {
		tb.Fatal(err)
	}
	t0 := time.Now()
	res, err := bnB.Compile([]nvcc.Source{src})
	if err != nil {
		tb.Fatal(err)
	}
	k, err := gpu.LoadBatchNewtonKernels(bnDev, res[0].Fatbin, p)
	if err != nil {
		tb.Fatal(err)
	}
	fmt.Printf("nvcc: the batched Newton solve of %s in %.1f s\n", p, time.Since(t0).Seconds())
	if os.Getenv("MDGEN_GPU_TEST_PTXAS") != "" {
		fmt.Println(res[0].Report)
	}
	bnKs[p] = k
	return k
}

func TestGPUBatchNewton(t *testing.T) {
	for _, p := range []mdops.Prec{{N: 1, Complex: true}, {N: 2, Complex: true}, {N: 4, Complex: true}, {N: 8, Complex: true},
		{N: 2}, {N: 3, Complex: true}} {
		if only := os.Getenv("MDGEN_GPU_BN_PRECS"); only != "" && !slices.Contains(strings.Split(only, ","), p.Suffix()) {
			continue
		}
		k := bnKernels(t, p)
		for _, c := range []struct {
			spec      string
			d         int
			paths     int
			residuals bool
		}{{"katsura3:newton", 4, 37, false}, {"katsura6:newton", 9, 64, false}, {"cyclic5:newton", 9, 40, true},
			{"noon4:newton", 7, 33, false}, {"katsura5:newton", 0, 33, false}, {"noon4:newton", 0, 33, true}} {
			t.Run(fmt.Sprintf("%s_%s_d%d_residuals%v", p, c.spec, c.d, c.residuals), func(t *testing.T) {
				cs, err := bntest.New(c.spec, p, c.d, c.paths, c.residuals, 7)
				if err != nil {
					t.Fatal(err)
				}
				for _, threads := range []int{32, 128} {
					bn, err := gpu.NewBatchNewton(k, cs.Setup, threads)
					if err != nil {
						t.Fatal(err)
					}
					res, steps, err := bn.Solve(cs.X0, cs.Coef, cs.Tol)
					if err != nil {
						t.Fatal(err)
					}
					bad := 0
					for i := range res {
						if err := cs.Check(i, res[i], steps[i]); err != nil {
							bad++
							if bad <= 3 {
								t.Errorf("%d threads: %v", threads, err)
							}
						}
					}
					if err := bn.Close(); err != nil {
						t.Fatal(err)
					}
				}
				t.Log(cs.Summary())
			})
		}
	}
}

// BenchmarkGPUBatchNewton times one batched solve of P paths (the case's
// 64 paths tiled) beside the same solves on every core of the host
// (newton.Solver, a solver per worker), and reports paths per second.
func BenchmarkGPUBatchNewton(b *testing.B) {
	specs := strings.Split(envOr("MDGEN_GPU_BN_BENCH", "katsura8:newton,cyclic7:newton"), ",")
	for _, n := range batchEnvInts("MDGEN_GPU_BN_NS", []int{2, 4}) {
		p := mdops.Prec{N: n, Complex: true}
		k := bnKernels(b, p)
		for _, spec := range specs {
			const P0 = 64
			d := batchEnvInts("MDGEN_GPU_BN_D", []int{9})[0]
			cs, err := bntest.New(spec, p, d, P0, false, 3)
			if err != nil {
				b.Fatal(err)
			}
			for _, P := range batchEnvInts("MDGEN_GPU_BN_PATHS", []int{1024, 4096}) {
				x0 := make([][]float64, P)
				coef := make([][]float64, P)
				tol := make([]float64, P)
				for i := range P {
					x0[i], coef[i], tol[i] = cs.X0[i%P0], cs.Coef[i%P0], cs.Tol[i%P0]
				}
				for _, threads := range batchEnvInts("MDGEN_GPU_BN_THREADS", []int{32, 128}) {
					b.Run(fmt.Sprintf("%s/%s/P%d/T%d", p, spec, P, threads), func(b *testing.B) {
						setup, err := gpu.NewBNSetup(cs.Setup.Config, cs.Setup.Vars, coefSlots(cs.Setup), d+1, P)
						if err != nil {
							b.Fatal(err)
						}
						bn, err := gpu.NewBatchNewton(k, setup, threads)
						if err != nil {
							b.Fatal(err)
						}
						defer bn.Close()
						var gpuT time.Duration
						for b.Loop() {
							t0 := time.Now()
							if _, _, err := bn.Solve(x0, coef, tol); err != nil {
								b.Fatal(err)
							}
							gpuT += time.Since(t0)
						}
						gpuRate := float64(P*b.N) / gpuT.Seconds()
						cpuRate := 0.0
						if os.Getenv("MDGEN_GPU_BN_NOCPU") != "1" {
							cpuRate = bnCPURate(b, spec, p, d, x0, tol)
						}
						b.ReportMetric(gpuRate, "gpu-paths/s")
						b.ReportMetric(cpuRate, "cpu-paths/s")
						fmt.Printf("batched Newton %s %s d=%d P=%d, %d threads: GPU %.0f paths/s, CPU %d cores %.0f paths/s (%.1fx)\n", p, spec, d, P,
							threads, gpuRate, runtime.GOMAXPROCS(0), cpuRate, gpuRate/cpuRate)
					})
				}
			}
		}
	}
}

// coefSlots returns a setup's coefficient slots by working degree.
func coefSlots(s *gpu.BNSetup) map[int][]stager.Slot {
	out := map[int][]stager.Slot{}
	for _, l := range s.Levels {
		out[l.W] = l.CoefSlots
	}
	return out
}

// bnCPURate solves x0 (the plan's coefficients) on every core, a solver
// per worker, and returns the paths per second.
func bnCPURate(b *testing.B, spec string, p mdops.Prec, d int, x0 [][]float64, tol []float64) float64 {
	inst, err := families.System(spec, families.Options{Complex: p.Complex})
	if err != nil {
		b.Fatal(err)
	}
	workers := runtime.GOMAXPROCS(0)
	solvers := make([]*newton.Solver, workers)
	for w := range solvers {
		s, err := newton.New(inst.System, newton.Options{Prec: p, Degree: d, Workers: 1, NoResidual: true, NoFinalResidual: true,
			NoStageTimes: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Prepare(); err != nil {
			b.Fatal(err)
		}
		solvers[w] = s
	}
	t0 := time.Now()
	var wg sync.WaitGroup
	for w, s := range solvers {
		wg.Go(func() {
			for i := w; i < len(x0); i += workers {
				s.SetRefineTol(tol[i])
				if _, err := s.SolveLimbs(x0[i]); err != nil {
					panic(err)
				}
			}
		})
	}
	wg.Wait()
	return float64(len(x0)) / time.Since(t0).Seconds()
}
