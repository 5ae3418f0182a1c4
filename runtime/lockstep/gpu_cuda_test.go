//go:build cuda

package lockstep_test

// The device tests: track.Track with its workers in lock step on the GPU
// (runtime/gpu's Batch through lockstep's batched executor, or whole
// solves: runtime/gpu's BatchNewton through lockstep.DeviceSolves) against
// track.Track on the CPU, path by path, bit for bit; and the speed of the
// two on the same machine. The kernels are built with nvcc into
// $MDGEN_KERNELS (default: the repository's build/kernels), every
// precision in one parallel run on first use.

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/lockstep"
	"github.com/mdgen/mdgen/runtime/track"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
	"github.com/mdgen/mdgen/stager/poly"
)

func kernelDir() string {
	if d := os.Getenv("MDGEN_KERNELS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", kernels.DefaultDir)
}

// gpuBuilder opens GPU 0 (the test skips without one) and returns its
// kernel builder (kernelDir's cache, nvcc's progress on stderr); the
// device closes when the test ends.
func gpuBuilder(t testing.TB) *kernels.Builder {
	t.Helper()
	dev, err := cudadev.Open(0)
	if err != nil {
		t.Skipf("no GPU: %v", err)
	}
	t.Cleanup(func() { _ = dev.Close() })
	b, err := kernels.New(dev, "", kernelDir())
	if err != nil {
		t.Fatal(err)
	}
	b.Log = os.Stderr
	// MDGEN_NVCC_EXTRA: more nvcc flags for tuning runs (e.g.
	// -DMDGEN_BN_MIN_BLOCKS=3); the kernels' cache keys include them.
	b.Extra = strings.Fields(os.Getenv("MDGEN_NVCC_EXTRA"))
	return b
}

// gpuBatches opens GPU 0 (the test skips without one) and builds the
// batched kernels of 1, 2, 4 and 8 doubles, complex data.
func gpuBatches(t testing.TB) *kernels.Batches {
	t.Helper()
	b := gpuBuilder(t)
	ks, _, err := b.Batch([]int{1, 2, 4, 8}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		_ = k.Close()
	}
	bs := b.Batches()
	bs.Options.Pageable = os.Getenv("MDGEN_BATCH_PAGEABLE") != ""
	t.Cleanup(func() { _ = bs.Close() })
	return bs
}

// gpuSolves opens GPU 0 (the test skips without one) and returns its
// batched Newton solves (runtime/gpu's BatchNewton, built on first use of
// each precision).
func gpuSolves(t testing.TB) *kernels.Solves {
	t.Helper()
	sv := gpuBuilder(t).Solves()
	if th := os.Getenv("MDGEN_BN_THREADS"); th != "" {
		fmt.Sscan(th, &sv.Threads)
	}
	t.Cleanup(func() { _ = sv.Close() })
	var ps []mdops.Prec
	for _, n := range solvePrecs() {
		if n > 0 {
			ps = append(ps, mdops.Prec{N: n, Complex: true})
		}
	}
	if err := sv.Prepare(ps...); err != nil {
		t.Fatal(err)
	}
	return sv
}

// solveMode is how the coordinator of trackGPUSolves runs its groups
// (lockstep.Coordinator's Together, Pipeline and Eager).
type solveMode struct {
	together bool
	pipeline int
	eager    bool
}

// trackGPUSolves tracks every path of h on the GPU with whole solves
// (lockstep.DeviceSolves: a group of solves one launch of the batched
// Newton solve), slots workers (0: a path each), the groups run as m
// says (pipelined: each device solver holds a group, slots/pipeline
// paths).
func trackGPUSolves(t testing.TB, sv *kernels.Solves, h *track.Homotopy, prec, slots int, m solveMode) (*track.Run, lockstep.Stats) {
	t.Helper()
	if slots == 0 {
		slots = int(h.Paths())
	}
	batch := slots
	if m.pipeline > 0 {
		batch = (slots + m.pipeline - 1) / m.pipeline
	}
	ex := lockstep.NewDeviceSolves(sv, batch)
	co := lockstep.New(ex)
	co.Together, co.Pipeline, co.Eager = m.together, m.pipeline, m.eager
	run, err := track.Track(h, track.Options{Prec: prec, Workers: slots, Devices: []track.Device{co}}, 0, 0)
	if cerr := ex.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	st := co.Stats()
	t.Logf("solves, prec %d, %+v: %.3f s wall; %d groups in %d rounds, %d solves; busy %v",
		prec, m, run.Seconds, st.Groups, st.Rounds, st.Calls, st.Busy)
	return run, st
}

// solvePrecs are the tracking precisions of the tests of whole solves:
// MDGEN_BN_PRECS (default 1,2,4,8,0; 0 the automatic precision), whose
// kernels gpuSolves builds first in one nvcc run (the 8-double one takes
// nvcc minutes).
func solvePrecs() []int {
	var ps []int
	for _, f := range strings.Split(envOr("MDGEN_BN_PRECS", "1,2,4,8,0"), ",") {
		var n int
		fmt.Sscan(f, &n)
		ps = append(ps, n)
	}
	return ps
}

// TestTrackGPUSolves is TestTrackGPU with whole solves on the GPU, at
// the precisions of solvePrecs.
func TestTrackGPUSolves(t *testing.T) {
	sv := gpuSolves(t)
	checkTrackGPU(t, solvePrecs(), func(t testing.TB, h *track.Homotopy, prec int, together bool) (*track.Run, lockstep.Stats) {
		return trackGPUSolves(t, sv, h, prec, 0, solveMode{together: together})
	})
	// Pipelined groups give the same bits (4 at once, and 16: Together
	// does not apply).
	checkTrackGPU(t, solvePrecs(), func(t testing.TB, h *track.Homotopy, prec int, together bool) (*track.Run, lockstep.Stats) {
		pipeline := 4
		if together {
			pipeline = 16
		}
		return trackGPUSolves(t, sv, h, prec, 0, solveMode{pipeline: pipeline})
	})
}

// randomSystem is n quadratic equations in n unknowns, every monomial of
// degree <= 2 with a random complex coefficient: 2^n regular solutions.
func randomSystem(t testing.TB, n int, seed uint64) *poly.System {
	rng := rand.New(rand.NewPCG(seed, 11))
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", n)
	for range n {
		coef := func() string { return fmt.Sprintf("(%.6f%+.6f*i)", rng.Float64()*2-1, rng.Float64()*2-1) }
		b.WriteString(coef())
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, " + %s*x%d", coef(), i)
			for j := i; j <= n; j++ {
				fmt.Fprintf(&b, " + %s*x%d*x%d", coef(), i, j)
			}
		}
		b.WriteString(";\n")
	}
	sys, err := poly.Parse("random", []byte(b.String()), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sys
}

func homotopyOf(t testing.TB, name string, n int) *track.Homotopy {
	t.Helper()
	var sys *poly.System
	switch name {
	case "random":
		sys = randomSystem(t, n, 1)
	case "scaled":
		// Badly scaled: tracked in scaled unknowns (track.Homotopy.Scaling).
		var err error
		if sys, err = poly.Parse("scaled", []byte("2\n 1e-8*x^2 + y - 1;\n x - 1e4*y^3;\n"), poly.ParseOptions{}); err != nil {
			t.Fatal(err)
		}
	default:
		in, err := families.Build(name, families.Options{N: n})
		if err != nil {
			t.Fatal(err)
		}
		sys = in.System
	}
	h, err := track.NewTotalDegree(sys, cmplx.Rect(1, 0.7), true, 1)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// diffPaths returns the first difference of two runs (every field of
// every path but the time, the endpoints bit for bit), or "".
func diffPaths(want, got *track.Run) string {
	if len(want.Paths) != len(got.Paths) {
		return fmt.Sprintf("%d paths, want %d", len(got.Paths), len(want.Paths))
	}
	bits := func(x ...float64) []uint64 {
		out := make([]uint64, len(x))
		for i, v := range x {
			out[i] = math.Float64bits(v)
		}
		return out
	}
	for i := range want.Paths {
		w, g := want.Paths[i], got.Paths[i]
		if !slices.Equal(bits(w.X...), bits(g.X...)) || !slices.Equal(bits(w.T, w.Cond, w.Residual, w.Err), bits(g.T, g.Cond, g.Residual, g.Err)) {
			return fmt.Sprintf("path %d: %+v, want %+v", i+1, g, w)
		}
		w.X, g.X, w.Seconds, g.Seconds = nil, nil, 0, 0
		w.T, g.T, w.Cond, g.Cond, w.Residual, g.Residual, w.Err, g.Err = 0, 0, 0, 0, 0, 0, 0, 0
		if !reflect.DeepEqual(w, g) {
			return fmt.Sprintf("path %d: %+v, want %+v", i+1, g, w)
		}
	}
	if want.Summary != got.Summary {
		return fmt.Sprintf("summary %+v, want %+v", got.Summary, want.Summary)
	}
	return ""
}

// trackGPU tracks every path of h on the GPU, all at once (slots paths a
// batch; 0: all), every ready group in one round with together
// (lockstep.Coordinator.Together).
func trackGPU(t testing.TB, bs *kernels.Batches, h *track.Homotopy, prec, slots int, together bool) (*track.Run, lockstep.Stats) {
	t.Helper()
	if slots == 0 {
		slots = int(h.Paths())
	}
	ex := lockstep.NewBatched(bs.NewEvaluator, slots)
	co := lockstep.New(ex)
	co.Together = together
	run, err := track.Track(h, track.Options{Prec: prec, Workers: slots, Devices: []track.Device{co}}, 0, 0)
	if cerr := ex.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	st, bt := co.Stats(), ex.Times()
	t.Logf("prec %d, together %v: %.3f s wall; %d groups in %d rounds, %d calls; busy %v (set %v, eval %v, download %v, summed over the groups)",
		prec, together, run.Seconds, st.Groups, st.Rounds, st.Calls, st.Busy, bt.Set, bt.Eval, bt.Download)
	return run, st
}

// TestTrackGPU: every path's status, steps and endpoint bits on the GPU
// are the CPU tracker's, on katsura, cyclic, noon, a random system and a
// badly scaled one at 1, 2, 4, 8 doubles and with the automatic precision
// (the tracker's data is complex); one group a round and every ready group
// a round (lockstep.Coordinator.Together).
func TestTrackGPU(t *testing.T) {
	bs := gpuBatches(t)
	checkTrackGPU(t, []int{1, 2, 4, 8, 0}, func(t testing.TB, h *track.Homotopy, prec int, together bool) (*track.Run, lockstep.Stats) {
		return trackGPU(t, bs, h, prec, 0, together)
	})
}

// checkTrackGPU runs the device tests' cases (katsura, cyclic, noon, a
// random and a badly scaled system at the precisions precs; smaller with
// -short) through run, one group a round and Together, and compares every
// path with the CPU tracker's.
func checkTrackGPU(t *testing.T, precs []int, run func(t testing.TB, h *track.Homotopy, prec int, together bool) (*track.Run, lockstep.Stats)) {
	sizes := map[string]int{"katsura": 5, "cyclic": 5, "noon": 4, "random": 4, "scaled": 2}
	if testing.Short() {
		sizes = map[string]int{"katsura": 3, "cyclic": 4, "noon": 3, "random": 3, "scaled": 2}
	}
	for _, name := range []string{"katsura", "cyclic", "noon", "random", "scaled"} {
		for _, prec := range precs {
			t.Run(fmt.Sprintf("%s%d/prec%d", name, sizes[name], prec), func(t *testing.T) {
				h := homotopyOf(t, name, sizes[name])
				want, err := track.Track(h, track.Options{Prec: prec}, 0, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, together := range []bool{false, true} {
					got, st := run(t, h, prec, together)
					if d := diffPaths(want, got); d != "" {
						t.Fatalf("together %v: %s", together, d)
					}
					t.Logf("%d paths %+v: CPU %.3f s (%d cores), GPU %.3f s (together %v); %d calls in %d groups, %d rounds",
						len(got.Paths), got.Summary, want.Seconds, runtime.GOMAXPROCS(0), got.Seconds, together, st.Calls, st.Groups, st.Rounds)
				}
			})
		}
	}
}

// BenchmarkTrackGPU measures paths per second on the GPU (batched
// evaluations, one group a round: gpu, and every ready group a round:
// gpu-together; whole solves, every ready group a round: gpu-solves;
// whole solves pipelined, 8 groups at once: gpu-pipeline, or N:
// gpu-pipelineN for any N; Eager: gpu-eagerN for any N, e.g. 4,
// 16, 64) and
// on the CPU (every core), in the same process, each run checked against
// the other path by path. MDGEN_TRACK_BENCH lists the systems (default
// katsura8,noon6,cyclic6), MDGEN_TRACK_PRECS the precisions (default
// 2,4), MDGEN_TRACK_MODES the GPU's modes (default all three); MDGEN_BATCH_PAGEABLE=1 keeps the batches' host buffers pageable
// (gpu.BatchOptions.Pageable), to measure against.
func BenchmarkTrackGPU(b *testing.B) {
	sv := gpuSolves(b)
	modes := strings.Split(envOr("MDGEN_TRACK_MODES", "gpu,gpu-together,gpu-solves"), ",")
	// The batched evaluations' kernels only where a mode runs them (the
	// switch's default below): the whole solves' modes need none, and nvcc
	// builds the 8-double kernels for minutes.
	var bs *kernels.Batches
	if slices.ContainsFunc(modes, func(m string) bool { return m != "gpu-solves" && !pipelined(m) }) {
		bs = gpuBatches(b)
	}
	systems := strings.Split(envOr("MDGEN_TRACK_BENCH", "katsura8,noon6,cyclic6"), ",")
	precs := strings.Split(envOr("MDGEN_TRACK_PRECS", "2,4"), ",")
	for _, spec := range systems {
		name := strings.TrimRight(spec, "0123456789")
		var n int
		fmt.Sscan(spec[len(name):], &n)
		h := homotopyOf(b, name, n)
		for _, ps := range precs {
			var prec int
			fmt.Sscan(ps, &prec)
			var cpuRun *track.Run
			b.Run(fmt.Sprintf("%s/prec%d/cpu", spec, prec), func(b *testing.B) {
				for b.Loop() {
					var err error
					if cpuRun, err = track.Track(h, track.Options{Prec: prec}, 0, 0); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(cpuRun.Paths))/cpuRun.Seconds, "paths/s")
			})
			for _, name := range modes {
				b.Run(fmt.Sprintf("%s/prec%d/%s", spec, prec, name), func(b *testing.B) {
					var run *track.Run
					var st lockstep.Stats
					times0 := sv.Times()
					// Outside b.Loop: Go 1.26's compiler fails (an internal
					// compiler error) on pipelined(name) in the loop's switch.
					piped := pipelined(name)
					for b.Loop() {
						switch {
						case name == "gpu-solves":
							run, st = trackGPUSolves(b, sv, h, prec, 0, solveMode{together: true})
						case piped:
							m := solveMode{pipeline: 8, eager: strings.HasPrefix(name, "gpu-eager")}
							fmt.Sscan(strings.TrimPrefix(strings.TrimPrefix(name, "gpu-pipeline"), "gpu-eager"), &m.pipeline)
							run, st = trackGPUSolves(b, sv, h, prec, 0, m)
						default:
							run, st = trackGPU(b, bs, h, prec, 0, name == "gpu-together")
						}
					}
					if cpuRun != nil {
						if d := diffPaths(cpuRun, run); d != "" {
							b.Fatal(d)
						}
					}
					b.ReportMetric(float64(len(run.Paths))/run.Seconds, "paths/s")
					b.ReportMetric(float64(st.Calls)/float64(st.Groups), "calls/group")
					b.ReportMetric(float64(st.Rounds), "rounds")
					if t := sv.Times(); t.Solves > times0.Solves {
						// Where a group's wall time went (gpu.BNTimes), a mean
						// over the groups, and the wall time with a group on
						// the device (Stats.Busy).
						n := float64(t.Solves - times0.Solves)
						ms := func(d time.Duration) float64 { return float64(d) / 1e6 / n }
						b.ReportMetric(ms(t.Device-times0.Device), "device-ms/group")
						b.ReportMetric(ms(t.Pack-times0.Pack+t.Decode-times0.Decode), "host-ms/group")
						b.ReportMetric(st.Busy.Seconds()/run.Seconds, "busy/wall")
					}
				})
			}
		}
	}
}

// pipelined reports whether BenchmarkTrackGPU's mode m is whole solves
// in pipelined or Eager groups (gpu-pipelineN, gpu-eagerN).
func pipelined(m string) bool {
	return strings.HasPrefix(m, "gpu-pipeline") || strings.HasPrefix(m, "gpu-eager")
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// TestGPUEvaluatorTooLarge: a batch too large for the device is refused
// by the GPU's NewEvaluator with a lockstep.TooLargeError that says how
// many paths fit (runtime/gpu's MaxBatchPaths), which the batched
// executor splits into.
func TestGPUEvaluatorTooLarge(t *testing.T) {
	bs := gpuBatches(t)
	inst, err := families.Build("katsura", families.Options{N: 12})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := stager.Stage(inst.System, 4)
	if err != nil {
		t.Fatal(err)
	}
	prec := mdops.Prec{N: 8, Complex: true}
	_, err = bs.NewEvaluator(plan, prec, 1<<30)
	var tl *lockstep.TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, gpu.ErrMemory) || tl.Paths != 1<<30 || tl.Fit < 1 || tl.Fit >= tl.Paths {
		t.Fatalf("err = %v, want a TooLargeError wrapping gpu.ErrMemory", err)
	}
	t.Log(err)
	ev, err := bs.NewEvaluator(plan, prec, min(tl.Fit, 4096))
	if err != nil {
		t.Fatalf("%d paths of %d that fit: %v", min(tl.Fit, 4096), tl.Fit, err)
	}
	if err := ev.Close(); err != nil {
		t.Fatal(err)
	}
}
