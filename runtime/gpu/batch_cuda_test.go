//go:build cuda

package gpu_test

// gpu.Batch on a real GPU: every path of a batch bit-identical to the CPU
// executor run on that path's data alone (its inputs, its coefficient
// values), and the batched evaluation's throughput. (An external test
// package: it builds the kernels with runtime/gpu/kernels, which imports
// runtime/gpu.) Build here, run on the GPU machine from anywhere in the
// repository (nvcc compiles the kernels there, cached by content):
//
//	CGO_ENABLED=1 CGO_CFLAGS="-I$PWD/build/cudacompat -I$PWD/.cuda-sdk/include" \
//	CGO_LDFLAGS="-L$PWD/.cuda-sdk/lib" go test -c -tags cuda -o .gpu/batch.test ./runtime/gpu
//	.gpu/batch.test -test.run 'GPUBatch' -test.v
//	.gpu/batch.test -test.run '^$' -test.bench GPUBatch -test.benchtime 20x
//
// (BenchmarkGPUBatchOneLaunch: the same with one block per path running
// every layer, gpu.BatchOptions.OneLaunch.)
//
// (a path-major batch moves its inputs in one copy per row and path: slow
// to set up at thousands of paths, its kernel time is what it is for).
// MDGEN_GPU_BATCH_NS picks the precisions (default 1,2,4,8); the benchmark
// takes MDGEN_GPU_BATCH_PATHS (default 1024,2048,4096,8192) and
// MDGEN_GPU_BATCH_ORDERS (default interleaved,path-major). Without a
// device the tests skip.

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/internal/xcheck"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
)

func batchEnvInts(name string, def []int) []int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	var v []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			v = append(v, n)
		}
	}
	return v
}

var (
	batchOnce    sync.Once
	batchDev     *cudadev.Device
	batchDevErr  error
	batchErr     error
	batchKernels map[int]*gpu.Kernels
)

// batchSetup opens GPU 0 (or skips) and builds and loads the batched
// kernels of every precision of MDGEN_GPU_BATCH_NS, real and complex.
func batchSetup(tb testing.TB) (*cudadev.Device, map[int]*gpu.Kernels) {
	tb.Helper()
	batchOnce.Do(func() {
		if batchDev, batchDevErr = cudadev.Open(0); batchDevErr != nil {
			return
		}
		fmt.Println("gpu:", batchDev.Info())
		cache := xcheck.GPUTestCache()
		b, err := kernels.New(batchDev, "", cache)
		if err != nil {
			batchErr = err
			return
		}
		b.Log = os.Stdout
		ns := batchEnvInts("MDGEN_GPU_BATCH_NS", []int{1, 2, 4, 8})
		t0 := time.Now()
		ks, _, err := b.Batch(ns, false, true)
		if err != nil {
			batchErr = err
			return
		}
		fmt.Printf("nvcc: the batched kernels of %v in %.1f s\n", ns, time.Since(t0).Seconds())
		batchKernels = map[int]*gpu.Kernels{}
		for i, n := range ns {
			batchKernels[n] = ks[i]
		}
	})
	if batchDevErr != nil {
		tb.Skipf("no GPU: %v", batchDevErr)
	}
	if batchErr != nil {
		tb.Fatal(batchErr)
	}
	return batchDev, batchKernels
}

func batchPlan(tb testing.TB, family string, n, degree int) *stager.Plan {
	tb.Helper()
	inst, err := families.Build(family, families.Options{N: n})
	if err != nil {
		tb.Fatal(err)
	}
	plan, err := stager.Stage(inst.System, degree)
	if err != nil {
		tb.Fatal(err)
	}
	return plan
}

// pathData is one path's data: its inputs and the values of every other
// read-only slot (the rest keep the plan's).
type pathData struct {
	inputs [][]float64
	values map[stager.Slot][]float64
}

func batchData(plan *stager.Plan, l backend.Layout, paths int, seed uint64) []pathData {
	var ro []stager.Slot
	for s, k := range plan.Kinds {
		if (k == stager.SlotConst || k == stager.SlotCoef) && s%2 == 0 {
			ro = append(ro, stager.Slot(s))
		}
	}
	d := make([]pathData, paths)
	for p := range d {
		d[p].inputs = backend.RandomInputs(plan.NumVars, l, seed+uint64(p))
		vs := backend.RandomInputs(len(ro), l, seed+uint64(p)+1<<32)
		d[p].values = make(map[stager.Slot][]float64, len(ro))
		for i, s := range ro {
			d[p].values[s] = vs[i]
		}
	}
	return d
}

// checkBatch sets data into b, runs it, and compares every path's values
// and derivatives with the CPU executor's on that path's data.
func checkBatch(t *testing.T, b *gpu.Batch, plan *stager.Plan, prec mdops.Prec, data []pathData) {
	t.Helper()
	for p, d := range data {
		for v, in := range d.inputs {
			b.SetInput(p, v, in)
		}
		for s, v := range d.values {
			b.SetValue(p, s, v)
		}
	}
	if err := b.Run(); err != nil {
		t.Fatal(err)
	}
	if err := b.Download(); err != nil {
		t.Fatal(err)
	}
	w := prec.Width()
	var got []float64
	for p, d := range data {
		e, err := cpu.New(plan, prec, 1)
		if err != nil {
			t.Fatal(err)
		}
		for v, in := range d.inputs {
			e.SetInput(v, in)
		}
		for s, v := range d.values {
			e.SetValue(s, v)
		}
		if err := e.Run(); err != nil {
			t.Fatal(err)
		}
		cmp := func(what string, want []float64) {
			t.Helper()
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("path %d: %s: coefficient %d, double %d of %d: GPU %v, CPU %v", p, what, i/w, i%w, w, got[i], want[i])
				}
			}
		}
		for i := 0; i < plan.NumPolys; i++ {
			got = b.Value(p, i, got)
			cmp(fmt.Sprintf("p%d", i), e.Value(i))
			for v := 0; v < plan.NumVars; v++ {
				got = b.Deriv(p, i, v, got)
				cmp(fmt.Sprintf("d p%d/d x%d", i, v), e.Deriv(i, v))
			}
		}
	}
}

// TestGPUBatchMatchesCPU: katsura, cyclic and noon at every test precision,
// real and complex, a batch of 37 paths (the last block part empty), each
// with its own random inputs and coefficient values: every path's outputs
// are the CPU executor's on its data, bit for bit; then new data in the
// same batch (nothing stale), and the other order and a small block.
func TestGPUBatchMatchesCPU(t *testing.T) {
	_, ks := batchSetup(t)
	ns := make([]int, 0, len(ks))
	for n := range ks {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	type sys struct {
		family    string
		n, degree int
		opt       gpu.BatchOptions
	}
	systems := []sys{
		{"katsura", 12, 4, gpu.BatchOptions{}},
		{"cyclic", 7, 4, gpu.BatchOptions{}},
		{"noon", 8, 4, gpu.BatchOptions{}},
		{"katsura", 6, 7, gpu.BatchOptions{Order: gpuabi.PathMajor}},
		{"noon", 5, 0, gpu.BatchOptions{Block: 32, Pageable: true}},
	}
	const paths = 37
	for _, n := range ns {
		for _, complex := range []bool{false, true} {
			for _, s := range systems {
				prec := mdops.Prec{N: n, Complex: complex}
				t.Run(fmt.Sprintf("%s/%s%d_d%d_%s_block%d", prec, s.family, s.n, s.degree, s.opt.Order, s.opt.Block), func(t *testing.T) {
					plan := batchPlan(t, s.family, s.n, s.degree)
					b, err := gpu.NewBatch(plan, prec, paths, ks[n], s.opt)
					if err != nil {
						t.Fatal(err)
					}
					defer b.Close()
					l := backend.Layout{Prec: prec, Degree: plan.Degree}
					checkBatch(t, b, plan, prec, batchData(plan, l, paths, uint64(100*n+s.degree)))
					checkBatch(t, b, plan, prec, batchData(plan, l, paths, uint64(7000+100*n+s.degree)))
					km, wm, err := b.RunTimed()
					if err != nil {
						t.Fatal(err)
					}
					if km <= 0 || wm <= 0 {
						t.Errorf("RunTimed: kernel %.4f ms, wall %.4f ms", km, wm)
					}
				})
			}
		}
	}
}

// TestGPUBatchRefusals: a batch too large for the device is refused before
// anything is allocated, and the error says how many paths fit and into
// how many batches to split; fatbins without the batched kernels are
// refused when loaded.
func TestGPUBatchRefusals(t *testing.T) {
	dev, ks := batchSetup(t)
	var n int
	for n = range ks {
		break
	}
	prec := mdops.Prec{N: n, Complex: true}
	plan := batchPlan(t, "katsura", 12, 4)
	fit, err := gpu.MaxBatchPaths(dev, plan, prec, gpuabi.Interleaved)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s katsura12 at degree 4: %d paths fit (%s each)", prec, fit, stager.FormatBytes(gpuabi.BatchMemory(plan, prec, 1, gpuabi.PathMajor).DataBytes))
	before := dev.Allocated()
	huge := 4*fit + 100
	_, err = gpu.NewBatch(plan, prec, huge, ks[n], gpu.BatchOptions{})
	if !errors.Is(err, gpu.ErrMemory) || !strings.Contains(err.Error(), "split the batch") {
		t.Fatalf("%d paths: err = %v, want ErrMemory saying how to split", huge, err)
	}
	t.Log(err)
	if after := dev.Allocated(); after != before {
		t.Errorf("the refusal allocated: %d bytes before, %d after", before, after)
	}
	if _, err := gpu.NewBatch(plan, prec, 4, ks[n], gpu.BatchOptions{Block: gpuabi.BatchBlock + 1}); err == nil {
		t.Error("a block above gpuabi.BatchBlock was taken")
	}
}

// TestGPUBatchOneLaunchMatchesCPU: TestGPUBatchMatchesCPU's checks with
// BatchOptions.OneLaunch (one block per path, every layer in one launch),
// and the plans of the working degrees 0 and 1 of a Newton solver (each
// staged at its degree, as runtime/newton's executors are) beside degree 4.
func TestGPUBatchOneLaunchMatchesCPU(t *testing.T) {
	_, ks := batchSetup(t)
	ns := make([]int, 0, len(ks))
	for n := range ks {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	type sys struct {
		family    string
		n, degree int
		opt       gpu.BatchOptions
	}
	var systems []sys
	for _, d := range []int{0, 1, 4} {
		systems = append(systems,
			sys{"katsura", 12, d, gpu.BatchOptions{OneLaunch: true, Order: gpuabi.PathMajor}},
			sys{"cyclic", 7, d, gpu.BatchOptions{OneLaunch: true, Order: gpuabi.PathMajor}},
			sys{"noon", 8, d, gpu.BatchOptions{OneLaunch: true}})
	}
	systems = append(systems, sys{"katsura", 6, 7, gpu.BatchOptions{OneLaunch: true, Block: 32, Order: gpuabi.PathMajor}},
		sys{"noon", 5, 2, gpu.BatchOptions{OneLaunch: true, Block: 96, Pageable: true}})
	const paths = 37
	for _, n := range ns {
		for _, complex := range []bool{false, true} {
			for _, s := range systems {
				prec := mdops.Prec{N: n, Complex: complex}
				t.Run(fmt.Sprintf("%s/%s%d_d%d_%s_block%d", prec, s.family, s.n, s.degree, s.opt.Order, s.opt.Block), func(t *testing.T) {
					plan := batchPlan(t, s.family, s.n, s.degree)
					b, err := gpu.NewBatch(plan, prec, paths, ks[n], s.opt)
					if err != nil {
						t.Fatal(err)
					}
					defer b.Close()
					if b.Launches() != 1 {
						t.Errorf("%d launches, want 1", b.Launches())
					}
					l := backend.Layout{Prec: prec, Degree: plan.Degree}
					checkBatch(t, b, plan, prec, batchData(plan, l, paths, uint64(100*n+s.degree)))
					checkBatch(t, b, plan, prec, batchData(plan, l, paths, uint64(7000+100*n+s.degree)))
				})
			}
		}
	}
}

// BenchmarkGPUBatch times one batched evaluation (every layer, kernel time
// between CUDA events) of katsura12 and cyclic7 at degree 4 for batches of
// paths, and reports paths per second and the FP64 rate (the double
// operations backend.CountOps counts for one path, times the paths, over
// the kernel time).
func BenchmarkGPUBatch(b *testing.B) { benchBatch(b, false) }

// BenchmarkGPUBatchOneLaunch is BenchmarkGPUBatch with
// BatchOptions.OneLaunch: one block per path runs every layer.
func BenchmarkGPUBatchOneLaunch(b *testing.B) { benchBatch(b, true) }

func benchBatch(b *testing.B, oneLaunch bool) {
	_, ks := batchSetup(b)
	ns := make([]int, 0, len(ks))
	for n := range ks {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	var orders []gpuabi.BatchOrder
	for _, o := range strings.Split(envOr("MDGEN_GPU_BATCH_ORDERS", "interleaved,path-major"), ",") {
		switch strings.TrimSpace(o) {
		case "interleaved":
			orders = append(orders, gpuabi.Interleaved)
		case "path-major":
			orders = append(orders, gpuabi.PathMajor)
		}
	}
	for _, s := range []struct {
		family string
		n      int
	}{{"katsura", 12}, {"cyclic", 7}} {
		plan := batchPlan(b, s.family, s.n, 4)
		for _, n := range ns {
			for _, complex := range []bool{false, true} {
				prec := mdops.Prec{N: n, Complex: complex}
				ops := backend.CountOps(plan, prec)
				l := backend.Layout{Prec: prec, Degree: plan.Degree}
				for _, paths := range batchEnvInts("MDGEN_GPU_BATCH_PATHS", []int{1024, 2048, 4096, 8192}) {
					for _, o := range orders {
						b.Run(fmt.Sprintf("%s%d/d4/%s/P%d/%s", s.family, s.n, prec, paths, o), func(b *testing.B) {
							bt, err := gpu.NewBatch(plan, prec, paths, ks[n], gpu.BatchOptions{Order: o, OneLaunch: oneLaunch})
							if err != nil {
								b.Fatal(err)
							}
							defer bt.Close()
							for p := range paths {
								for v, in := range backend.RandomInputs(plan.NumVars, l, uint64(p)) {
									bt.SetInput(p, v, in)
								}
							}
							if err := bt.Run(); err != nil { // uploads, warms up
								b.Fatal(err)
							}
							var total float64
							b.ResetTimer()
							for range b.N {
								km, _, err := bt.RunTimed()
								if err != nil {
									b.Fatal(err)
								}
								total += km
							}
							sec := total / 1e3 / float64(b.N)
							b.ReportMetric(total/float64(b.N), "kernel-ms")
							b.ReportMetric(float64(paths)/sec, "paths/s")
							b.ReportMetric(ops.DoubleOps*float64(paths)/sec/1e9, "GFLOP/s")
						})
					}
				}
			}
		}
	}
}

func envOr(name, def string) string {
	if s := os.Getenv(name); s != "" {
		return s
	}
	return def
}
