//go:build cuda

package gpu

// The GPU executor on a real GPU, with the reference kernels of
// gpuabi.ReferenceKernelsCU (compiled here with nvcc): its outputs must be
// the CPU executor's, bit for bit. Build here, run there (from anywhere in
// the repository: the test finds generated/cuda above its folder):
//
//	CGO_CFLAGS="-I$PWD/build/cudacompat -I$PWD/.cuda-sdk/include" \
//	CGO_LDFLAGS="-L$PWD/.cuda-sdk/lib" go test -c -tags cuda -o .gpu/runtime.test ./runtime/gpu
//	cd runtime && ../.gpu/runtime.test -test.run GPU -test.v
//
// MDGEN_GPU_TEST_NS picks the precisions (default 2,5; each costs an nvcc
// run of a minute or so at 8 and 10 doubles).

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/internal/xcheck"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/stager"
)

var (
	gpuOnce    sync.Once
	gpuDev     *cudadev.Device
	gpuDevErr  error
	gpuFatOnce sync.Once
	gpuFat     map[int][]byte
	gpuFatErr  error
)

func gpuTestNs() []int {
	ns := []int{2, 5}
	if s := os.Getenv("MDGEN_GPU_TEST_NS"); s != "" {
		ns = nil
		for _, f := range strings.Split(s, ",") {
			if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
				ns = append(ns, n)
			}
		}
	}
	return ns
}

func gpuDevice(t *testing.T) *cudadev.Device {
	t.Helper()
	gpuOnce.Do(func() {
		gpuDev, gpuDevErr = cudadev.Open(0)
		if gpuDevErr == nil {
			fmt.Println("gpu:", gpuDev.Info())
		}
	})
	if gpuDevErr != nil {
		t.Fatalf("opening GPU 0 (this cuda-tagged test needs a GPU): %v", gpuDevErr)
	}
	return gpuDev
}

// gpuRefFatbins compiles the reference kernels of every test precision, in parallel.
func gpuRefFatbins(t *testing.T) map[int][]byte {
	t.Helper()
	dev := gpuDevice(t)
	gpuFatOnce.Do(func() {
		if _, err := nvcc.Find(""); err != nil {
			gpuFatErr = err
			return
		}
		inc, err := headerDir()
		if err != nil {
			gpuFatErr = err
			return
		}
		var srcs []nvcc.Source
		for _, n := range gpuTestNs() {
			h := map[string][]byte{}
			for _, name := range []string{"mdbase.cuh", fmt.Sprintf("md%d.cuh", n)} {
				b, err := os.ReadFile(filepath.Join(inc, name))
				if err != nil {
					gpuFatErr = err
					return
				}
				h[name] = b
			}
			srcs = append(srcs, nvcc.Source{Name: fmt.Sprintf("ref%d", n), Source: gpuabi.ReferenceKernelsCU(n), Headers: h})
		}
		cache := xcheck.GPUTestCache()
		c := &nvcc.Compiler{Dir: cache, Archs: []string{dev.Info().Arch()}, Log: os.Stdout}
		res, err := c.Build(srcs)
		if err != nil {
			gpuFatErr = err
			return
		}
		gpuFat = map[int][]byte{}
		for i, n := range gpuTestNs() {
			gpuFat[n] = res[i].Fatbin
		}
	})
	if gpuFatErr != nil {
		t.Fatal(gpuFatErr)
	}
	return gpuFat
}

var refOpt = Options{Shape: gpuabi.ReferenceShape}

// gpuVsCPU runs plan on both executors with the same random inputs and
// compares every output bit.
func gpuVsCPU(t *testing.T, g *Executor, plan *stager.Plan, n int, complex bool, seed uint64) {
	t.Helper()
	cpu, err := cpu.New(plan, mdops.Prec{N: n, Complex: complex}, 0)
	if err != nil {
		t.Fatal(err)
	}
	l := backend.Layout{Prec: mdops.Prec{N: n, Complex: complex}, Degree: plan.Degree}
	for v, s := range backend.RandomInputs(plan.NumVars, l, seed) {
		cpu.SetInput(v, s)
		g.SetInput(v, s)
	}
	if err := cpu.Run(); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(); err != nil {
		t.Fatal(err)
	}
	if err := g.Download(); err != nil {
		t.Fatal(err)
	}
	cmp := func(what string, got, want []float64) {
		t.Helper()
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
				k := i / l.W()
				t.Fatalf("%s: coefficient %d, double %d of %d: GPU %v, CPU %v", what, k, i%l.W(), l.W(), got[i], want[i])
			}
		}
	}
	for p := 0; p < plan.NumPolys; p++ {
		cmp(fmt.Sprintf("p%d", p), g.Value(p), cpu.Value(p))
		for v := 0; v < plan.NumVars; v++ {
			cmp(fmt.Sprintf("d p%d/d x%d", p, v), g.Deriv(p, v), cpu.Deriv(p, v))
		}
	}
	if a, b := backend.Checksum(g, plan.NumPolys, plan.NumVars), backend.Checksum(cpu, plan.NumPolys, plan.NumVars); a != b {
		t.Fatalf("checksums differ: GPU %s, CPU %s", a, b)
	}
}

func TestGPUMatchesCPU(t *testing.T) {
	dev := gpuDevice(t)
	fat := gpuRefFatbins(t)
	r := rand.New(rand.NewPCG(3, 5))
	for _, n := range gpuTestNs() {
		k, err := LoadKernels(dev, fat[n], n, false, true)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("N=%d: layout version in the module %d; conv_r attrs %+v", n, k.LayoutVersion(), must(k.Attributes(gpuabi.Conv, false)))
		for _, complex := range []bool{false, true} {
			var plans []*stager.Plan
			for _, c := range []struct {
				name string
				d    int
			}{{"p1", 0}, {"p1", 1}, {"p1", 8}, {"p1", 40}, {"p3", 3}, {"p2", 2}, {"p1", 200}} {
				if c.d > 100 && n > 5 {
					c.d = 70 // the CPU side takes minutes at 8 and 10 doubles
				}
				plans = append(plans, testPlan(t, c.name, c.d, complex))
			}
			for trial := 0; trial < 4; trial++ {
				sys := randomSystem(r, 1+r.IntN(3), 1+r.IntN(5), 6, 5, 3, complex)
				plan, err := stager.Stage(sys, r.IntN(12))
				if err != nil {
					t.Fatal(err)
				}
				plans = append(plans, plan)
			}
			for i, plan := range plans {
				t.Run(fmt.Sprintf("N%d/complex=%v/%d-d%d", n, complex, i, plan.Degree), func(t *testing.T) {
					g, err := NewFromKernels(plan, complex, k, refOpt)
					if err != nil {
						t.Fatal(err)
					}
					defer g.Close()
					gpuVsCPU(t, g, plan, n, complex, uint64(10*i+1))
					// New inputs, same executor: nothing stale.
					gpuVsCPU(t, g, plan, n, complex, uint64(10*i+2))
					km, wm, err := g.RunTimed()
					if err != nil {
						t.Fatal(err)
					}
					if km <= 0 || wm <= 0 {
						t.Errorf("RunTimed: kernel %.4f ms, wall %.4f ms", km, wm)
					}
				})
			}
		}
		if err := k.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func must[T any](v T, ok bool) T { return v }

// headerDir finds generated/cuda in the working folder or above it.
func headerDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "generated", "cuda")
		if _, err := os.Stat(filepath.Join(p, "mdbase.cuh")); err == nil {
			return p, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("generated/cuda not found in the working folder or above it: run the test inside the repository")
		}
		dir = up
	}
}

// New (which loads the fatbin itself) and the refusals: too little
// memory, a fatbin of another precision, a block the kernel cannot take.
func TestGPURefusals(t *testing.T) {
	dev := gpuDevice(t)
	fat := gpuRefFatbins(t)
	n := gpuTestNs()[0]
	plan := testPlan(t, "p1", 5, false)
	g, err := NewWithOptions(plan, mdops.Prec{N: n, Complex: false}, fat[n], dev, refOpt)
	if err != nil {
		t.Fatal(err)
	}
	gpuVsCPU(t, g, plan, n, false, 99)
	before := dev.Allocated()
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if after := dev.Allocated(); after >= before {
		t.Errorf("Close freed nothing: %d bytes allocated before, %d after", before, after)
	}

	// One limb of real data fits the host (Stage checks that), 2N limbs do
	// not fit the GPU: 24,449 series × 200,001 coefficients × 8 bytes = 39 GB
	// per limb array.
	if n < 2 {
		t.Skip("the memory refusal needs N >= 2")
	}
	huge := testPlan(t, "p2", 200_000, true)
	_, err = NewWithOptions(huge, mdops.Prec{N: n, Complex: true}, fat[n], dev, refOpt)
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "free") {
		t.Fatalf("p2 at degree 200000: err = %v, want ErrMemory with the sizes", err)
	}
	t.Log(err)

	other := n + 1
	_, err = LoadKernels(dev, fat[n], other, false)
	if !errors.Is(err, ErrModule) || !strings.Contains(err.Error(), gpuabi.KernelName(gpuabi.Conv, mdops.Prec{N: other})) {
		t.Fatalf("a %d-double fatbin asked for %d doubles: err = %v", n, other, err)
	}
	t.Log(err)

	_, err = NewWithOptions(plan, mdops.Prec{N: n, Complex: false}, fat[n], dev, Options{Shape: func(gpuabi.Kind, int, bool, int) (int, int) { return 4096, 0 }})
	if err == nil || !strings.Contains(err.Error(), "4096") {
		t.Fatalf("block of 4096 threads: err = %v", err)
	}
	t.Log(err)
	if dev.Allocated() != 0 {
		t.Errorf("%d bytes still allocated after the refusals", dev.Allocated())
	}
}
