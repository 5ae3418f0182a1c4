package gen

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
)

// The batched Newton solve (BatchNewtonKernelsCU) compiled as host C++ and
// run by la_cuda_test.go's emulation (every thread a fiber, the block's
// threads resumed in a random order after every barrier), each path's
// Result, steps and series against newton.Solver with the CPU back end on
// that path alone, bit for bit: Newton homotopies of katsura, cyclic and
// noon from perturbed and from random starts (converged, diverging,
// ill-conditioned and step-limited solves), degrees 0 and d, refinement
// tolerances the solver's and 0 (the tracker's at t = 1), and coefficient
// slots set per path.

// bnEmuMain is la_cuda_test.go's interpreter for the batched Newton
// kernels names.
func bnEmuMain(names []string) string {
	var calls strings.Builder
	for _, name := range names {
		var args []string
		for i, p := range gpuabi.BNParams {
			if p.Pointer() {
				args = append(args, fmt.Sprintf("(%s)(uintptr_t)a[%d]", p.Type, i))
			} else {
				args = append(args, fmt.Sprintf("(%s)a[%d]", p.Type, i))
			}
		}
		fmt.Fprintf(&calls, "    [](const uint64_t* a) { %s(%s); },\n", name, strings.Join(args, ", "))
	}
	main := laEmuMain(nil)
	main = strings.Replace(main, `#include "la.cu"`, "unsigned mdgen_dynamic_smem() { return 0; }\ndouble mdgen_smem[1];\n#include \"bnewton.cu\"", 1)
	return strings.Replace(main, "static const la_call la_calls[] = {\n", "static const la_call la_calls[] = {\n"+calls.String(), 1)
}

// bnCompile compiles the batched Newton solve of the precisions ps, one
// binary each.
func bnCompile(t *testing.T, p mdops.Prec) string {
	t.Helper()
	cxx := needCXX(t)
	src, err := BatchNewtonKernelsCU(p)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"bnewton.cu": string(src), "la_host_shim.h": laHostShim,
		"main.cpp": bnEmuMain([]string{gpuabi.BNKernelName(p)})} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	inc, _ := filepath.Abs("../generated/cuda")
	bin := filepath.Join(dir, "main")
	args := []string{"-std=c++20", "-O1", "-ffp-contract=off", "-DMD_HD=static __attribute__((noinline))",
		"-include", filepath.Join(dir, "la_host_shim.h"), "-I", dir, "-I", inc, "-o", bin, filepath.Join(dir, "main.cpp")}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(ctx, cxx, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, lastLines(out, 40))
	}
	t.Logf("g++: the batched Newton solve of %s in %.1f s", p, time.Since(start).Seconds())
	return bin
}

// bnRecorder is a CPU executor that keeps the values that the Solver sets
// into its read-only slots (SetCoefficient), so that the batched solve
// gets the same.
type bnRecorder struct {
	*cpu.Executor
	set map[stager.Slot][]float64
}

func (r *bnRecorder) SetValue(s stager.Slot, series []float64) {
	r.set[s] = append([]float64(nil), series...)
	r.Executor.SetValue(s, series)
}

// int32Doubles packs int32s into float64s (the emulation's buffers).
func int32Doubles(x []int32) []float64 {
	f := make([]float64, (len(x)+1)/2+1)
	copy(unsafe.Slice((*int32)(unsafe.Pointer(&f[0])), 2*len(f)), x)
	return f
}

func int64Doubles(x []int64) []float64 {
	f := make([]float64, len(x)+1)
	for i, v := range x {
		f[i] = math.Float64frombits(uint64(v))
	}
	return f
}

func TestBatchNewtonEmulation(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the batched Newton solve with g++")
	}
	for _, p := range []mdops.Prec{{N: 2, Complex: true}, {N: 1, Complex: false}} {
		bin := bnCompile(t, p)
		for _, c := range []struct {
			spec    string
			degree  int
			paths   int
			threads int
		}{
			{"katsura3:newton", 4, 6, 32},
			{"cyclic4:newton", 4, 6, 64},
			{"noon3:newton", 7, 5, 32},
			{"katsura3:newton", 0, 5, 32},
		} {
			t.Run(fmt.Sprintf("%s_%s_d%d", p, c.spec, c.degree), func(t *testing.T) {
				bnCase(t, bin, p, c.spec, c.degree, c.paths, c.threads)
			})
		}
	}
}

func bnCase(t *testing.T, bin string, p mdops.Prec, spec string, d, P, threads int) {
	inst, err := families.System(spec, families.Options{Complex: p.Complex})
	if err != nil {
		t.Fatal(err)
	}
	sys := inst.System
	n, W, N := len(sys.Vars), p.Width(), p.N
	// The CPU: one Solver per path, its executors (one per working
	// degree) recording what SetCoefficient puts into their slots.
	var recs map[int]*bnRecorder
	mk := func() *newton.Solver {
		recs = map[int]*bnRecorder{}
		s, err := newton.New(sys, newton.Options{Prec: p, Degree: d, Workers: 1, NoResidual: true, NoFinalResidual: true,
			NoStageTimes: true, NewExecutor: func(plan *stager.Plan, pr mdops.Prec, workers int) (backend.Executor, error) {
				e, err := cpu.New(plan, pr, workers)
				if err != nil {
					return nil, err
				}
				r := &bnRecorder{Executor: e, set: map[stager.Slot][]float64{}}
				recs[plan.Degree] = r
				return r, nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Prepare(); err != nil {
			t.Fatal(err)
		}
		return s
	}
	r := rand.New(rand.NewPCG(uint64(d), uint64(N)))
	start := make([]float64, n*W)
	if len(inst.Start) > 0 {
		for v, z := range inst.Start[0].Values {
			re, _ := z.Re.Float64()
			im, _ := z.Im.Float64()
			start[v*W] = re
			if p.Complex {
				start[v*W+N] = im
			}
		}
	}
	type pathCase struct {
		x0  []float64
		tol float64
		res *newton.Result
		st  []newton.StepInfo
		set map[int]map[stager.Slot][]float64 // by working degree
	}
	cases := make([]pathCase, P)
	plans := map[int]*stager.Plan{}
	var opt newton.Options
	for i := range cases {
		s := mk()
		opt = s.Options()
		c := &cases[i]
		c.x0 = make([]float64, n*W)
		for v := range n {
			for q := 0; q < W; q += N {
				switch i % 4 {
				case 3: // a random start: Newton may fail
					c.x0[v*W+q] = 4 * (r.Float64() - 0.5)
				default:
					c.x0[v*W+q] = start[v*W+q] * (1 + 1e-4*float64(i+1)*(r.Float64()-0.5))
				}
			}
		}
		c.tol = opt.RefineTol
		if i%2 == 1 {
			c.tol = 0
		}
		s.SetRefineTol(c.tol)
		// A coefficient of every other path changed (the first term of
		// the first polynomial: a series of two coefficients).
		if i%2 == 0 {
			ser := make([]float64, 2*W)
			ser[0] = 1 + 1e-3*float64(i)
			ser[W] = 0.25
			if err := s.SetCoefficient(0, 0, ser); err != nil {
				t.Fatal(err)
			}
		}
		s.SetProgress(func(si newton.StepInfo) { c.st = append(c.st, si) })
		res, err := s.SolveLimbs(c.x0)
		if err != nil {
			t.Fatal(err)
		}
		c.res = res
		c.set = map[int]map[stager.Slot][]float64{}
		for w, rc := range recs {
			c.set[w] = rc.set
			plans[w] = rc.Plan()
		}
	}
	// The coefficient slots any path set, per level: each path sends all
	// of them, every coefficient (the plan's values where it set none).
	slots := map[int][]stager.Slot{}
	ck := d + 1
	for _, c := range cases {
		for w, set := range c.set {
			for sl := range set {
				if !slices.Contains(slots[w], sl) {
					slots[w] = append(slots[w], sl)
				}
			}
		}
	}
	for w := range slots {
		slices.Sort(slots[w])
	}
	setup, err := gpu.NewBNSetup(gpu.BNConfig{Plans: plans, Prec: p, Opt: opt}, sys.Vars, slots, ck, P)
	if err != nil {
		t.Fatal(err)
	}
	image, err := setup.Image()
	if err != nil {
		t.Fatal(err)
	}
	st := setup.Strides
	data := make([]float64, 0, int64(P)*setup.PathDoubles)
	for range P {
		data = append(data, image...)
	}
	x0 := make([]float64, 0, P*n*W)
	coef := make([]float64, int64(P)*st.Coef*int64(W))
	tol := make([]float64, P)
	for i, c := range cases {
		x0 = append(x0, c.x0...)
		tol[i] = c.tol
		for _, l := range setup.Levels {
			for j, sl := range l.CoefSlots {
				v, ok := c.set[l.W][sl]
				if !ok {
					// The plan's value, as rounded into the image.
					v = make([]float64, l.CK*W)
					for k := 0; k < l.CK; k++ {
						for row := 0; row < W; row++ {
							v[k*W+row] = image[l.Off+l.Geo.Index(0, row, int(sl), k)]
						}
					}
				}
				copy(coef[(int64(i)*st.Coef+int64(l.CoefOff+j*l.CK))*int64(W):], v[:min(len(v), l.CK*W)])
			}
		}
	}
	e := &laEmu{index: map[string]int{gpuabi.BNKernelName(p): 0}}
	W64, P64 := int64(W), int64(P)
	bufs := []gpuabi.LAPtr{
		e.buffer(data), e.buffer(int32Doubles(setup.Conv)), e.buffer(int32Doubles(setup.Add)), e.buffer(int64Doubles(setup.Tabs)),
		e.buffer(int64Doubles(setup.Lv)), e.buffer(coef), e.buffer(x0),
		e.buffer(make([]float64, P64*st.X*W64)), e.buffer(make([]float64, P64*st.A*W64)),
		e.buffer(make([]float64, P64*st.QA*W64)), e.buffer(make([]float64, P64*st.Tau*W64)),
		e.buffer(make([]float64, P64*st.Rinv*int64(N))), e.buffer(make([]float64, P64*st.RRev*W64+1)),
		e.buffer(make([]float64, P64*st.Info)), e.buffer(make([]float64, P64*st.Acc*W64)),
		e.buffer(make([]float64, P64*st.B*W64)), e.buffer(make([]float64, P64*st.DX*W64)),
		e.buffer(make([]float64, P64*st.Y*W64)), e.buffer(make([]float64, P64*st.E*W64)),
		e.buffer(make([]float64, P64*st.CW+1)), e.buffer(tol), e.buffer(make([]float64, P64*st.Rec)),
	}
	const iX, iRec = 7, 21
	args := []any{bufs[0], setup.PathDoubles, bufs[1], bufs[2], bufs[3], bufs[4], int64(len(setup.Levels)), bufs[5], st.Coef, bufs[6]}
	for i, b := range bufs[7:] {
		args = append(args, b)
		if i+7 == 19 { // cw
			args = append(args, st.CW)
		}
	}
	args = append(args, setup.Scalars()...)
	if len(args) != len(gpuabi.BNParams) {
		t.Fatalf("%d arguments for %d parameters", len(args), len(gpuabi.BNParams))
	}
	for _, v := range []int64{2, 0, P64, int64(threads), int64(len(args))} {
		e.w(v)
	}
	for _, a := range args {
		switch a := a.(type) {
		case gpuabi.LAPtr:
			e.w(0)
			e.w(int64(a.Buf))
			e.w(a.Off)
		case int64:
			e.w(1)
			e.w(a)
		default:
			t.Fatalf("argument of type %T", a)
		}
	}
	out := e.run(t, bin)
	xs, records := out[bufs[iX].Buf], out[bufs[iRec].Buf]
	sx := st.X * W64
	conv, failed, steps := 0, 0, 0
	for _, c := range cases {
		if c.res.Converged {
			conv++
		} else {
			failed++
		}
		steps += c.res.Steps
	}
	t.Logf("%d paths: %d converged, %d failed, %d Newton steps; %d levels, %d coefficient doubles a path", P, conv, failed, steps,
		len(setup.Levels), st.Coef*W64)
	for i, c := range cases {
		got, gotSteps := setup.Result(records[int64(i)*st.Rec:int64(i+1)*st.Rec], xs[int64(i)*sx:int64(i+1)*sx])
		bnSame(t, i, c.res, got, c.st, gotSteps)
	}
}

// bnSame compares a path's Result and steps with the CPU's, bit for bit.
func bnSame(t *testing.T, i int, want, got *newton.Result, wantSteps, gotSteps []newton.StepInfo) {
	t.Helper()
	bits := func(what string, a, b float64) {
		if math.Float64bits(a) != math.Float64bits(b) {
			t.Errorf("path %d: %s: CPU %v (%#x), batched %v (%#x)", i, what, a, math.Float64bits(a), b, math.Float64bits(b))
		}
	}
	if want.Converged != got.Converged || want.Steps != got.Steps || want.RefineSteps != got.RefineSteps || want.Work != got.Work {
		t.Errorf("path %d: CPU converged %v steps %d/%d work %+v, batched %v %d/%d %+v (CPU err %v)", i, want.Converged, want.Steps,
			want.RefineSteps, want.Work, got.Converged, got.Steps, got.RefineSteps, got.Work, want.Err)
	}
	bits("Cond", want.Cond, got.Cond)
	bits("Update", want.Update, got.Update)
	bits("PointUpdate", want.PointUpdate, got.PointUpdate)
	bits("Residual", want.Residual, got.Residual)
	bits("FNorm", want.FNorm, got.FNorm)
	bits("StartResidual", want.StartResidual, got.StartResidual)
	if fmt.Sprint(want.Err) != fmt.Sprint(got.Err) {
		t.Errorf("path %d: CPU error %v, batched %v", i, want.Err, got.Err)
	}
	if len(want.X) != len(got.X) {
		t.Fatalf("path %d: %d doubles of X, want %d", i, len(got.X), len(want.X))
	}
	for k := range want.X {
		if math.Float64bits(want.X[k]) != math.Float64bits(got.X[k]) {
			t.Errorf("path %d: X[%d]: CPU %v, batched %v", i, k, want.X[k], got.X[k])
			break
		}
	}
	if len(wantSteps) != len(gotSteps) {
		t.Errorf("path %d: %d steps reported, want %d", i, len(gotSteps), len(wantSteps))
		return
	}
	for k := range wantSteps {
		a, b := wantSteps[k], gotSteps[k]
		a.Elapsed, b.Elapsed = 0, 0
		if a.Step != b.Step || a.Refine != b.Refine || a.Degree != b.Degree || a.Blocks != b.Blocks || a.Skipped != b.Skipped ||
			math.Float64bits(a.Update) != math.Float64bits(b.Update) || math.Float64bits(a.UpdateOld) != math.Float64bits(b.UpdateOld) ||
			math.Float64bits(a.Residual) != math.Float64bits(b.Residual) {
			t.Errorf("path %d: step %d: CPU %+v, batched %+v", i, k+1, a, b)
		}
	}
}
