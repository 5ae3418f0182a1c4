//go:build cuda

package gpu_test

// gpu.Refiner on a real GPU: every path's Result bit-identical to
// newton.Solver's with Degree 0 on that start alone (cyclic5, katsura6,
// noon5; 37 start points each: near the roots that the CPU tracker finds,
// random, zero, huge, NaN), and the throughput of refining the roots of
// cyclic 7-roots beside newton.SolveEach on every core of the host. Build
// here, run on the GPU machine from the repository root (nvcc compiles the
// kernels there, cached by content):
//
//	CGO_ENABLED=1 CGO_CFLAGS="-I$PWD/build/cudacompat -I$PWD/.cuda-sdk/include" \
//	CGO_LDFLAGS="-L$PWD/.cuda-sdk/lib" go test -c -tags cuda -o .gpu/runtime.test ./runtime/gpu
//	.gpu/runtime.test -test.run 'GPURefine' -test.v
//	.gpu/runtime.test -test.run '^$' -test.bench GPURefine -test.benchtime 3x
//
// MDGEN_GPU_REFINE_NS picks the precisions of the test (default 1,2,4,8;
// the benchmark runs 2,4,8). Without a device the tests skip.

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mdgen/mdgen/internal/xcheck"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/runtime/track"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

var (
	refOnce  sync.Once
	refErr   error
	refDevOK bool
	refEval  map[int]*gpu.Kernels
	refLA    map[mdops.Prec]*gpu.BatchLAKernels
)

// refSetup opens GPU 0 (or skips) and builds the batched evaluation and
// linear algebra of ns, real and complex.
func refSetup(tb testing.TB, ns []int) (map[int]*gpu.Kernels, map[mdops.Prec]*gpu.BatchLAKernels) {
	tb.Helper()
	refOnce.Do(func() {
		dev, err := cudadev.Open(0)
		if err != nil {
			refErr = err
			return
		}
		refDevOK = true
		fmt.Println("gpu:", dev.Info())
		cache := xcheck.GPUTestCache()
		b, err := kernels.New(dev, "", cache)
		if err != nil {
			refErr = err
			return
		}
		b.Log = os.Stdout
		t0 := time.Now()
		ks, _, err := b.Batch(ns, false, true)
		if err != nil {
			refErr = err
			return
		}
		var kinds []mdops.Prec
		for _, n := range ns {
			kinds = append(kinds, mdops.Prec{N: n}, mdops.Prec{N: n, Complex: true})
		}
		ls, err := b.BatchLA(kinds...)
		if err != nil {
			refErr = err
			return
		}
		fmt.Printf("nvcc: the batched kernels of %v in %.1f s\n", ns, time.Since(t0).Seconds())
		refEval, refLA = map[int]*gpu.Kernels{}, map[mdops.Prec]*gpu.BatchLAKernels{}
		for i, n := range ns {
			refEval[n] = ks[i]
		}
		for i, k := range kinds {
			refLA[k] = ls[i]
		}
	})
	if !refDevOK {
		tb.Skipf("no GPU: %v", refErr)
	}
	if refErr != nil {
		tb.Fatal(refErr)
	}
	return refEval, refLA
}

// trackedRoots returns the regular endpoints of the total-degree homotopy
// of sys (the CPU tracker at 2 doubles, every core), in double precision.
func trackedRoots(tb testing.TB, sys *poly.System) [][]complex128 {
	tb.Helper()
	h, err := track.NewTotalDegree(sys, cmplx.Rect(1, 0.7), true, 1)
	if err != nil {
		tb.Fatal(err)
	}
	run, err := track.Track(h, track.Options{Prec: 2}, 0, 0)
	if err != nil {
		tb.Fatal(err)
	}
	var roots [][]complex128
	for _, p := range run.Paths {
		if p.Status != track.Regular {
			continue
		}
		w := 2 * p.Prec
		z := make([]complex128, len(sys.Vars))
		for v := range z {
			z[v] = complex(p.X[v*w], p.X[v*w+p.Prec])
		}
		roots = append(roots, z)
	}
	return roots
}

// limbs rounds z to prec's layout (the leading limbs; real parts only for
// real data).
func limbs(z []complex128, p mdops.Prec) []float64 {
	W := p.Width()
	x := make([]float64, len(z)*W)
	for v, c := range z {
		x[v*W] = real(c)
		if p.Complex {
			x[v*W+p.N] = imag(c)
		}
	}
	return x
}

// refineTestStarts returns 37 starts: up to 25 near roots (moved by a
// relative 2^-30; for real data the real parts of the roots), random
// points, zero, huge and NaN.
func refineTestStarts(roots [][]complex128, p mdops.Prec, seed uint64) [][]float64 {
	r := rand.New(rand.NewPCG(seed, 11))
	n := len(roots[0])
	var starts [][]float64
	for _, z := range roots {
		if len(starts) == 25 {
			break
		}
		y := make([]complex128, n)
		for v, c := range z {
			y[v] = c * complex(1+math.Ldexp(2*r.Float64()-1, -30), math.Ldexp(2*r.Float64()-1, -30))
		}
		starts = append(starts, limbs(y, p))
	}
	random := func() []float64 {
		y := make([]complex128, n)
		for v := range y {
			y[v] = complex(4*r.Float64()-2, 4*r.Float64()-2)
		}
		return limbs(y, p)
	}
	zero, huge, nan := make([]float64, n*p.Width()), random(), random()
	huge[0], nan[p.Width()] = 1e300, math.NaN()
	starts = append(starts, zero, huge, nan)
	for len(starts) < 37 {
		starts = append(starts, random())
	}
	return starts
}

func TestGPURefine(t *testing.T) {
	ns := batchEnvInts("MDGEN_GPU_REFINE_NS", []int{1, 2, 4, 8})
	ek, lk := refSetup(t, ns)
	for _, spec := range []string{"cyclic5", "katsura6", "noon5"} {
		inst, err := families.System(spec, families.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sys := inst.System
		roots := trackedRoots(t, sys)
		if len(roots) == 0 {
			t.Fatalf("%s: the tracker found no regular root", spec)
		}
		for _, n := range ns {
			for _, cplx := range []bool{true, false} {
				p := mdops.Prec{N: n, Complex: cplx}
				t.Run(fmt.Sprintf("%s/%s", spec, p), func(t *testing.T) {
					starts := refineTestStarts(roots, p, uint64(n))
					// 16 paths a batch: three batches, the last one short.
					got, err := gpu.RefineBatch(sys, p, ek[n], lk[p], starts, gpu.RefineOptions{Paths: 16})
					if err != nil {
						t.Fatal(err)
					}
					checkRefinedGPU(t, sys, p, starts, got)
				})
			}
		}
	}
}

// checkRefinedGPU compares every path's Result (but its Times) with
// newton.Solver's on that start alone, floats by their bits.
func checkRefinedGPU(t *testing.T, sys *poly.System, p mdops.Prec, starts [][]float64, got []*newton.Result) {
	t.Helper()
	s, err := newton.New(sys, newton.Options{Prec: p, Degree: 0, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	kinds := map[string]int{}
	for i, x0 := range starts {
		want, err := s.SolveLimbs(x0)
		if err != nil {
			t.Fatal(err)
		}
		want.Times = newton.Times{}
		var f *newton.Failure
		if errors.As(want.Err, &f) {
			kinds[fmt.Sprint(f.Kind)]++
		} else {
			kinds["converged"]++
		}
		if !gpu.SameBits(reflect.ValueOf(got[i]), reflect.ValueOf(want)) {
			t.Errorf("%s start %d:\n got %+v (%v)\nwant %+v (%v)", p, i+1, *got[i], got[i].Err, *want, want.Err)
		}
	}
	t.Logf("%s: %d paths, by failure kind (0: converged): %v", p, len(starts), kinds)
}

// BenchmarkGPURefine refines the roots of cyclic 7-roots (the regular
// endpoints of the CPU tracker at 2 doubles: 924 when it finds them all)
// at 2, 4 and 8 doubles on the GPU (one Refiner, made outside the clock)
// and with newton.SolveEach on every core of the host, in the same run,
// and reports paths per second of each; every GPU Result must equal the
// CPU's.
func BenchmarkGPURefine(b *testing.B) {
	ns := []int{2, 4, 8}
	ek, lk := refSetup(b, ns)
	inst, err := families.System("cyclic7", families.Options{})
	if err != nil {
		b.Fatal(err)
	}
	sys := inst.System
	t0 := time.Now()
	roots := trackedRoots(b, sys)
	fmt.Printf("cyclic7: %d regular roots from the CPU tracker in %.1f s\n", len(roots), time.Since(t0).Seconds())
	rats := make([][]poly.Rational, len(roots))
	for i, z := range roots {
		rats[i] = make([]poly.Rational, len(z))
		for v, c := range z {
			rats[i][v].Re.SetFloat64(real(c))
			rats[i][v].Im.SetFloat64(imag(c))
		}
	}
	for _, n := range ns {
		p := mdops.Prec{N: n, Complex: true}
		starts := make([][]float64, len(roots))
		for i, z := range roots {
			starts[i] = limbs(z, p)
		}
		var cpuRes []*newton.Result
		b.Run(fmt.Sprintf("cpu/%dd/w=%d", n, runtime.GOMAXPROCS(0)), func(b *testing.B) {
			opt := newton.Options{Prec: p, Degree: 0, Workers: runtime.GOMAXPROCS(0)}
			for b.Loop() {
				batch, err := newton.SolveEach(sys, opt, rats, nil)
				if err != nil {
					b.Fatal(err)
				}
				cpuRes = batch.Results
			}
			b.ReportMetric(float64(len(starts))*float64(b.N)/b.Elapsed().Seconds(), "paths/s")
		})
		b.Run(fmt.Sprintf("gpu/%dd", n), func(b *testing.B) {
			rf, err := gpu.NewRefiner(sys, p, ek[n], lk[p], len(starts), gpu.RefineOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer rf.Close()
			var got []*newton.Result
			for b.Loop() {
				if got, err = rf.Refine(starts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(starts))*float64(b.N)/b.Elapsed().Seconds(), "paths/s")
			conv := 0
			for i, res := range got {
				if res.Converged {
					conv++
				}
				if cpuRes != nil {
					want := *cpuRes[i]
					want.Times = newton.Times{}
					if !gpu.SameBits(reflect.ValueOf(res), reflect.ValueOf(&want)) {
						b.Errorf("%s root %d: the GPU's Result differs from the CPU's", p, i+1)
					}
				}
			}
			fmt.Printf("cyclic7 %s: %d of %d converged on the GPU (%d paths a batch)\n", p, conv, len(got), rf.Paths())
		})
	}
}
