//go:build cuda

package gpu_test

// The device-resident Newton driver (gpu.NewtonOptions) against the CPU
// Newton (runtime/newton's CPU back end), bit for bit: the series, the
// residual, the condition estimate, the last update, the steps. Build
// here, run there (scripts/gpu-bench.sh build makes .gpu/runtime.test):
//
//	cd runtime/gpu && ../../.gpu/runtime.test -test.run GPUNewton -test.v
//
// MDGEN_GPU_NEWTON_NS picks the precisions (default 2,4,8). The timing of
// PHCpack's problem -1 (monomial n = 256, d = 64, real) is
// TestGPUNewtonProblem1, which runs only with MDGEN_GPU_NEWTON_P1=1
// (MDGEN_GPU_NEWTON_P1_N and _D change n and d; _BALANCED=1 the balanced
// rates).

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/internal/xcheck"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

type ntKey struct {
	n       int
	complex bool
}

var (
	ntOnce   sync.Once
	ntDev    *cudadev.Device
	ntFat    map[ntKey][2][]byte
	ntErr    error
	ntLoaded = map[ntKey]*gpu.NewtonKernels{}
)

// ntKernels compiles the Newton kernels of every precision and kind in ns
// (in parallel, cached by content) and loads those of (n, complex).
func ntKernels(t *testing.T, ns []int, n int, complex bool) (*cudadev.Device, *gpu.NewtonKernels) {
	t.Helper()
	ntOnce.Do(func() {
		if ntDev, ntErr = cudadev.Open(0); ntErr != nil {
			return
		}
		fmt.Println("gpu:", ntDev.Info())
		if _, ntErr = nvcc.Find(""); ntErr != nil {
			return
		}
		var srcs []nvcc.Source
		var keys []ntKey
		seen := map[string]bool{}
		for _, n := range ns {
			for _, c := range []bool{false, true} {
				s, err := gen.NewtonCUSources(mdops.Prec{N: n, Complex: c})
				if err != nil {
					ntErr = err
					return
				}
				keys = append(keys, ntKey{n, c})
				for _, src := range s {
					if !seen[src.Name] {
						seen[src.Name] = true
						srcs = append(srcs, src)
					}
				}
			}
		}
		cache := xcheck.GPUTestCache()
		c := &nvcc.Compiler{Dir: cache, Archs: []string{ntDev.Info().Arch()}, Log: os.Stdout}
		t0 := time.Now()
		res, err := c.Build(srcs)
		if err != nil {
			ntErr = err
			return
		}
		fmt.Printf("nvcc: %d sources in %.1f s\n", len(srcs), time.Since(t0).Seconds())
		byName := map[string][]byte{}
		for i, r := range res {
			if r.Err != nil {
				ntErr = r.Err
				return
			}
			byName[srcs[i].Name] = r.Fatbin
		}
		ntFat = map[ntKey][2][]byte{}
		for _, k := range keys {
			s, _ := gen.NewtonCUSources(mdops.Prec{N: k.n, Complex: k.complex})
			ntFat[k] = [2][]byte{byName[s[0].Name], byName[s[1].Name]}
		}
	})
	if ntErr != nil {
		t.Fatalf("GPU Newton kernels (this cuda-tagged test needs a GPU and nvcc): %v", ntErr)
	}
	key := ntKey{n, complex}
	if k := ntLoaded[key]; k != nil {
		return ntDev, k
	}
	f, ok := ntFat[key]
	if !ok {
		t.Fatalf("no kernels compiled for %d doubles, complex %v", n, complex)
	}
	k, err := gpu.LoadNewtonKernels(ntDev, f[0], f[1], mdops.Prec{N: n, Complex: complex})
	if err != nil {
		t.Fatal(err)
	}
	ntLoaded[key] = k
	return ntDev, k
}

func ntNs() []int { return laEnvInts("MDGEN_GPU_NEWTON_NS", []int{2, 4, 8}) }

func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// TestGPUNewton: the monomial family (n = 12) and the cyclic5 and katsura4
// Newton homotopies, 2/4/8 doubles, real and complex, d = 8 and 32 (and
// d = 0, root refinement): the GPU's results are the CPU's, bit for bit.
func TestGPUNewton(t *testing.T) {
	ns := ntNs()
	for _, n := range ns {
		for _, complex := range []bool{false, true} {
			_, k := ntKernels(t, ns, n, complex)
			for _, d := range []int{0, 8, 32} {
				for _, spec := range []string{"monomial", "cyclic5:newton", "katsura4:newton"} {
					name := fmt.Sprintf("%s/%dd/complex=%v/d=%d", spec, n, complex, d)
					t.Run(name, func(t *testing.T) {
						var inst *families.Instance
						var err error
						if spec == "monomial" {
							inst, err = families.Build("monomial", families.Options{N: 12, Degree: d, Seed: 1, Complex: complex})
						} else {
							inst, err = families.System(spec, families.Options{Seed: 1, Complex: complex})
						}
						if err != nil {
							t.Fatal(err)
						}
						ntCompare(t, k, inst.System, inst.Start[0].Values, newton.Options{Prec: mdops.Prec{N: n, Complex: complex}, Degree: d})
					})
				}
			}
		}
	}
}

// TestGPUNewtonFailures: the failures and the other paths of the driver
// on the GPU as on the CPU: a singular Jacobian (its column), an
// ill-conditioned one, a diverging start, the step limit, and a least
// squares system (3 equations in 2 unknowns), 2 doubles.
func TestGPUNewtonFailures(t *testing.T) {
	if !slices.Contains(ntNs(), 2) {
		t.Skip("its cases are posed for 2 doubles, which MDGEN_GPU_NEWTON_NS leaves out")
	}
	_, k := ntKernels(t, ntNs(), 2, false)
	pt := func(vals ...float64) []poly.Rational {
		z := make([]poly.Rational, len(vals))
		for i, v := range vals {
			z[i].Re.SetFloat64(v)
		}
		return z
	}
	for _, c := range []struct {
		name, src, param string
		start            []poly.Rational
		opt              newton.Options
		want             error
	}{
		{"singular col 1", "2 3\n x^2 - t;\n y - 1 - t;\n", "t", pt(0, 1), newton.Options{Degree: 4}, newton.ErrSingular},
		{"singular col 2", "2 3\n y - 1 - t;\n x^2 - t;\n", "t", pt(1, 0), newton.Options{Degree: 4}, newton.ErrSingular},
		{"ill-conditioned", "2 2\n x + y - 2;\n x + y + 1/1208925819614629174706176*y - 2 - 1/1208925819614629174706176;\n", "",
			pt(1, 1), newton.Options{}, newton.ErrIllConditioned},
		{"diverging", "1 1\n x^2 + 1;\n", "", pt(0.5), newton.Options{}, newton.ErrDiverging},
		{"step limit", "1 1\n x^2 + 1;\n", "", pt(0.5), newton.Options{MaxSteps: 1}, newton.ErrStepLimit},
		{"least squares", "3 3\n x - 1 - t;\n y - 2 + t;\n x*y - 2 - t + t^2;\n", "t", pt(1.25, 2), newton.Options{Degree: 6}, nil},
		{"sqrt series", "1 2\n x^2 - 1 - t;\n", "t", pt(1.1), newton.Options{Degree: 20}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			sys, err := poly.Parse("test", []byte(c.src), poly.ParseOptions{Param: c.param})
			if err != nil {
				t.Fatal(err)
			}
			opt := c.opt
			opt.Prec.N = 2
			got := ntCompare(t, k, sys, c.start, opt)
			if c.want == nil && !got.Converged || c.want != nil && !errors.Is(got.Err, c.want) {
				t.Fatalf("want %v, got converged %v, %v", c.want, got.Converged, got.Err)
			}
		})
	}
}

// ntCompare solves sys from start on the CPU and on the GPU and fails
// unless the results are the same bits; it returns the GPU's.
func ntCompare(t *testing.T, k *gpu.NewtonKernels, sys *poly.System, start []poly.Rational, opt newton.Options) *newton.Result {
	t.Helper()
	return ntCompareWrapped(t, k, sys, start, opt, nil)
}

// ntCompareWrapped is ntCompare with the GPU back end wrapped by wrap
// (nil: not wrapped).
func ntCompareWrapped(t *testing.T, k *gpu.NewtonKernels, sys *poly.System, start []poly.Rational, opt newton.Options,
	wrap func(newton.Backend) newton.Backend) *newton.Result {
	t.Helper()
	d := opt.Degree
	cpu, err := newton.New(sys, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	gopt := gpu.NewtonOptions(k, opt)
	if wrap != nil {
		newBE := gopt.NewBackend
		gopt.NewBackend = func(c backend.NewtonConfig) (newton.Backend, error) {
			be, err := newBE(c)
			if err != nil {
				return nil, err
			}
			return wrap(be), nil
		}
	}
	gs, err := newton.New(sys, gopt)
	if err != nil {
		t.Fatal(err)
	}
	defer gs.Close()
	t0 := time.Now()
	want, err := cpu.Solve(start)
	if err != nil {
		t.Fatal(err)
	}
	tc := time.Since(t0)
	if err := gs.Prepare(); err != nil {
		t.Fatal(err)
	}
	t0 = time.Now()
	got, err := gs.Solve(start)
	if err != nil {
		t.Fatal(err)
	}
	tg := time.Since(t0)
	if got.Converged != want.Converged || got.Steps != want.Steps || got.RefineSteps != want.RefineSteps {
		t.Fatalf("GPU converged %v in %d steps (%d refining), CPU %v in %d (%d); GPU err %v, CPU err %v",
			got.Converged, got.Steps, got.RefineSteps, want.Converged, want.Steps, want.RefineSteps, got.Err, want.Err)
	}
	if fmt.Sprint(got.Err) != fmt.Sprint(want.Err) {
		t.Fatalf("GPU error %v, CPU error %v", got.Err, want.Err)
	}
	for _, f := range []struct {
		what string
		g, w float64
	}{{"residual", got.Residual, want.Residual}, {"cond", got.Cond, want.Cond}, {"update", got.Update, want.Update},
		{"fnorm", got.FNorm, want.FNorm}, {"start residual", got.StartResidual, want.StartResidual}} {
		if !sameFloat(f.g, f.w) {
			t.Fatalf("%s: GPU %v, CPU %v", f.what, f.g, f.w)
		}
	}
	if len(got.X) != len(want.X) {
		t.Fatalf("x: %d doubles, CPU %d", len(got.X), len(want.X))
	}
	w := want.W()
	for i := range want.X {
		if !sameFloat(got.X[i], want.X[i]) {
			v, kk := i/w/(d+1), i/w%(d+1)
			t.Fatalf("x_%d[%d], double %d: GPU %v, CPU %v", v, kk, i%w, got.X[i], want.X[i])
		}
	}
	if !want.Converged {
		t.Logf("(both not converged: %v)", want.Err)
	}
	t.Logf("bit-identical: %d steps, residual %.2e, cond %.2e; CPU %.3f s, GPU %.3f s (stages %s)",
		want.Steps, want.Residual, want.Cond, tc.Seconds(), tg.Seconds(), ntStages(got.Times))
	return got
}

// specBackend calls the GPU back end's methods in orders the driver does
// not, around Factor's speculative solve of block 0 in the root
// refinement: the driver's results must stay the CPU's bits (the
// speculation is dropped, or redone, where it must be).
type specBackend struct {
	newton.Backend
	mode    string
	factors int // Factor(false) calls seen (with a passed rank check)
}

func (b *specBackend) Factor(inverse bool) (*la.RankError, float64, float64, error) {
	rank, cond, a0, err := b.Backend.Factor(inverse)
	if err != nil || rank != nil || inverse {
		return rank, cond, a0, err
	}
	b.factors++
	switch b.mode {
	case "applyqh1": // y = Q^H b_1: the driver's ApplyQH(0) must redo its work
		err = b.Backend.ApplyQH(1)
	case "refactor": // a second QR of the same A_0 (and a second speculation)
		rank, cond, a0, err = b.Backend.Factor(false)
	case "evaluate": // b_0 and A_0 again (the same x): drops the speculation
		_, _, err = b.Backend.Evaluate(0, true)
	}
	return rank, cond, a0, err
}

func (b *specBackend) ApplyQH(k int) error {
	if err := b.Backend.ApplyQH(k); err != nil || b.mode != "twice" {
		return err
	}
	// The speculation taken (ApplyQH and SolveR), then ApplyQH again: the
	// driver's SolveR must do the back substitution itself.
	if err := b.Backend.SolveR(k); err != nil {
		return err
	}
	return b.Backend.ApplyQH(k)
}

// TestGPUNewtonSpeculation: the root refinement's speculative Q^H b_0 and
// R^-1 (Factor, with the condition estimate on its own stream) disturbed
// by calls between Factor and the driver's ApplyQH(0) and SolveR(0):
// still the CPU's bits; and the stage times of a plain run are all
// positive where the refinement does work.
func TestGPUNewtonSpeculation(t *testing.T) {
	ns := ntNs()
	prec := ns[0]
	for _, complex := range []bool{false, true} {
		_, k := ntKernels(t, ns, prec, complex)
		inst, err := families.Build("monomial", families.Options{N: 12, Degree: 8, Seed: 1, Complex: complex})
		if err != nil {
			t.Fatal(err)
		}
		// x(0) = 1 is the root at t = 0: block 0 is skipped, and Factor
		// must not speculate (||b_0||_1 = 0). The start 1001/1000 is not:
		// the refinement solves block 0 in its steps, speculatively.
		exact := inst.Start[0].Values
		off := slices.Clone(exact)
		for i := range off {
			off[i].Re.Mul(&exact[i].Re, big.NewRat(1001, 1000))
		}
		t.Run(fmt.Sprintf("%dd/complex=%v/exact", prec, complex), func(t *testing.T) {
			before := gpu.Speculations()
			ntCompareWrapped(t, k, inst.System, exact, newton.Options{Prec: mdops.Prec{N: prec, Complex: complex}, Degree: 8}, nil)
			if n := gpu.Speculations() - before; n != 0 {
				t.Fatalf("%d speculative solves from the root itself (its block 0 is skipped)", n)
			}
		})
		for _, mode := range []string{"none", "applyqh1", "refactor", "evaluate", "twice"} {
			t.Run(fmt.Sprintf("%dd/complex=%v/%s", prec, complex, mode), func(t *testing.T) {
				var sb *specBackend
				before := gpu.Speculations()
				got := ntCompareWrapped(t, k, inst.System, off, newton.Options{Prec: mdops.Prec{N: prec, Complex: complex}, Degree: 8},
					func(be newton.Backend) newton.Backend { sb = &specBackend{Backend: be, mode: mode}; return sb })
				if sb.factors == 0 {
					t.Fatal("no QR in the root refinement: nothing was tested")
				}
				if gpu.Speculations() == before {
					t.Fatal("no speculative solve: nothing was tested")
				}
				if mode == "none" {
					tm := got.Times
					for _, st := range []struct {
						name string
						d    time.Duration
					}{{"evaluate", tm.Evaluate}, {"qr", tm.QR}, {"qhb", tm.QHB}, {"backsub", tm.BackSub}, {"update", tm.Update}, {"residual", tm.Residual}} {
						if st.d <= 0 {
							t.Errorf("stage %s: %v", st.name, st.d)
						}
					}
				}
			})
		}
	}
}

func ntStages(t newton.Times) string {
	ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 }
	return fmt.Sprintf("evaluate %.1f ms, qr %.1f ms, qhb %.1f ms, backsub %.1f ms, update %.1f ms, residual %.1f ms (sum %.1f ms)",
		ms(t.Evaluate), ms(t.QR), ms(t.QHB), ms(t.BackSub), ms(t.Update), ms(t.Residual), ms(t.Total()))
}

// TestGPUNewtonProblem1 times PHCpack's problem -1 on the GPU: Newton on
// the monomial homotopy n = 256, d = 64, real, 2/4/8 doubles (PHCpack's
// random rates, seed 1): the wall clock of the whole Newton run (Solve,
// with the plans staged and the executors made before; a warm-up solve
// first) and its six stages from CUDA events. No timing assertion; no CPU
// comparison at this size unless MDGEN_GPU_NEWTON_P1_CHECK lists the
// precision (TestGPUNewton checks the bits at smaller sizes).
func TestGPUNewtonProblem1(t *testing.T) {
	if os.Getenv("MDGEN_GPU_NEWTON_P1") != "1" {
		t.Skip("set MDGEN_GPU_NEWTON_P1=1 to time problem -1 (n = 256, d = 64) on the GPU")
	}
	size := func(name string, def int) int {
		if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
			return v
		}
		return def
	}
	nv, d := size("MDGEN_GPU_NEWTON_P1_N", 256), size("MDGEN_GPU_NEWTON_P1_D", 64)
	balanced := os.Getenv("MDGEN_GPU_NEWTON_P1_BALANCED") == "1"
	ns := ntNs()
	inst, err := families.Build("monomial", families.Options{N: nv, Degree: d, Seed: 1, Balanced: balanced})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range ns {
		t.Run(fmt.Sprintf("%dd", n), func(t *testing.T) {
			_, k := ntKernels(t, ns, n, false)
			t0 := time.Now()
			s, err := newton.New(inst.System, gpu.NewtonOptions(k, newton.Options{Prec: mdops.Prec{N: n}, Degree: d}))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Prepare(); err != nil {
				t.Fatal(err)
			}
			setup := time.Since(t0)
			var res *newton.Result
			var walls []time.Duration
			for rep := 0; rep < 2; rep++ {
				t0 = time.Now()
				res, err = s.Solve(inst.Start[0].Values)
				if err != nil {
					t.Fatal(err)
				}
				walls = append(walls, time.Since(t0))
			}
			fmt.Printf("problem -1 n=%d d=%d %dd real (balanced %v) on the GPU: converged %v, %d steps (%d refining), residual %.2e, cond %.2e, update %.2e\n"+
				"  setup (staging, executors) %.2f s; Newton wall clock %.3f s (first solve %.3f s, with the back end's allocation)\n  stages: %s\n",
				nv, d, n, balanced, res.Converged, res.Steps, res.RefineSteps, res.Residual, res.Cond, res.Update,
				setup.Seconds(), walls[1].Seconds(), walls[0].Seconds(), ntStages(res.Times))
			if !res.Converged {
				t.Logf("not converged: %v", res.Err)
			}
			if slices.Contains(laEnvInts("MDGEN_GPU_NEWTON_P1_CHECK", nil), n) {
				// The CPU's bits too (all cores; minutes at 8 doubles).
				ntCompare(t, k, inst.System, inst.Start[0].Values, newton.Options{Prec: mdops.Prec{N: n}, Degree: d})
			}
		})
	}
}

// TestGPUNewtonCUDAError: a CUDA error inside a Newton run (the driver
// refuses a launch with a block of 1 x 1 x 128 threads: gpu's test hook)
// surfaces with its stage and step and wraps the driver's error; the
// device stays usable: the next Solve on the same Solver gives the CPU's
// bits. The failing launch is the first scatter (evaluate, step 1), the
// first qr (QR, step 1), the first qh1 (Q^H b, queued speculatively by
// the QR: step 1) or the third mulsub (a later stage), of the monomial
// family (n = 12, d = 8) from a start off its root.
func TestGPUNewtonCUDAError(t *testing.T) {
	prec := ntNs()[0]
	_, k := ntKernels(t, ntNs(), prec, false)
	inst, err := families.Build("monomial", families.Options{N: 12, Degree: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	start := slices.Clone(inst.Start[0].Values)
	for i := range start {
		start[i].Re.Mul(&start[i].Re, big.NewRat(1001, 1000))
	}
	opt := newton.Options{Prec: mdops.Prec{N: prec}, Degree: 8}
	cpu, err := newton.New(inst.System, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	want, err := cpu.Solve(start)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := newton.New(inst.System, gpu.NewtonOptions(k, opt))
	if err != nil {
		t.Fatal(err)
	}
	defer gs.Close()
	shape := regexp.MustCompile(`^newton: (evaluate|QR|Q\^H b|back substitution|update|residual) \(step (\d+), (degree \d+|refining x\(0\))\): `)
	for _, c := range []struct {
		op    gpuabi.LAOp
		nth   int    // the failing launch of op (1-based)
		stage string // "": any stage (checked for shape only)
	}{{gpuabi.LAScatter, 1, "evaluate"}, {gpuabi.LAQRStep, 1, "QR"}, {gpuabi.LAQH1, 1, "QR"}, {gpuabi.LAMulSub, 3, ""}} {
		t.Run(fmt.Sprintf("%s#%d", c.op, c.nth), func(t *testing.T) {
			seen := 0
			gpu.SetLaunchFault(func(op gpuabi.LAOp) bool {
				if op == c.op {
					seen++
					return seen == c.nth
				}
				return false
			})
			_, err := gs.Solve(start)
			gpu.SetLaunchFault(nil)
			if err == nil {
				t.Fatalf("no error (%d launches of %s)", seen, c.op)
			}
			var de *cudadev.DriverError
			if !errors.As(err, &de) || de.Name != "CUDA_ERROR_INVALID_VALUE" {
				t.Fatalf("%v: not the driver's CUDA_ERROR_INVALID_VALUE", err)
			}
			m := shape.FindStringSubmatch(err.Error())
			if m == nil || (c.stage != "" && (m[1] != c.stage || m[2] != "1")) {
				t.Fatalf("%v: want the stage (%q) and the step", err, c.stage)
			}
			t.Logf("%v", err)
			got, err := gs.Solve(start)
			if err != nil {
				t.Fatalf("the next Solve: %v", err)
			}
			if got.Steps != want.Steps || !sameFloat(got.Residual, want.Residual) || !sameFloat(got.Update, want.Update) || len(got.X) != len(want.X) {
				t.Fatalf("the next Solve: %d steps, residual %v, update %v; the CPU's %d, %v, %v", got.Steps, got.Residual, got.Update, want.Steps, want.Residual, want.Update)
			}
			for i := range want.X {
				if !sameFloat(got.X[i], want.X[i]) {
					t.Fatalf("the next Solve: x[%d] = %v, the CPU's %v", i, got.X[i], want.X[i])
				}
			}
		})
	}
}
