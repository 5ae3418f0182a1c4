package lockstep

import (
	"errors"
	"fmt"
	"math/cmplx"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mdgen/mdgen/runtime/track"
	"github.com/mdgen/mdgen/stager/poly"
)

// countingSolves counts the calls of a SolveExecutor's runs: whole
// solves and other calls, and the whole solves of each path.
type countingSolves struct {
	SolveExecutor
	solves, calls atomic.Int64

	mu      sync.Mutex
	perPath map[int64]int
}

func (c *countingSolves) Run(slots []Slot, calls []*Call) {
	c.calls.Add(int64(len(calls)))
	c.SolveExecutor.Run(slots, calls)
}

func (c *countingSolves) RunSolves(slots []Slot, calls []*SolveCall) {
	c.solves.Add(int64(len(calls)))
	c.mu.Lock()
	if c.perPath == nil {
		c.perPath = map[int64]int{}
	}
	for _, call := range calls {
		c.perPath[call.Path]++
	}
	c.mu.Unlock()
	c.SolveExecutor.RunSolves(slots, calls)
}

// mostSolves returns the most whole solves of one path.
func (c *countingSolves) mostSolves() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	most := 0
	for _, n := range c.perPath {
		most = max(most, n)
	}
	return most
}

// denseHomotopy is the total-degree homotopy to a system of
// len(degrees) equations in as many unknowns, equation i with every
// monomial of degree <= degrees[i] and random complex coefficients: as
// many regular solutions as the product of the degrees.
func denseHomotopy(t testing.TB, degrees []int, seed uint64) *track.Homotopy {
	t.Helper()
	n := len(degrees)
	rng := rand.New(rand.NewPCG(seed, 7))
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", n)
	var terms func(v, left int, mono string, first *bool)
	terms = func(v, left int, mono string, first *bool) {
		if v == n {
			if !*first {
				b.WriteString(" + ")
			}
			*first = false
			fmt.Fprintf(&b, "(%.6f%+.6f*i)%s", rng.Float64()*2-1, rng.Float64()*2-1, mono)
			return
		}
		for e := 0; e <= left; e++ {
			m := mono
			if e > 0 {
				m += fmt.Sprintf("*x%d^%d", v+1, e)
			}
			terms(v+1, left-e, m, first)
		}
	}
	for _, d := range degrees {
		first := true
		terms(0, d, "", &first)
		b.WriteString(";\n")
	}
	sys, err := poly.Parse("dense", []byte(b.String()), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := track.NewTotalDegree(sys, cmplx.Rect(1, 0.7), true, 1)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// crossingHomotopy is the total-degree homotopy of x^200 + 3x - 1 with
// mdgen track's gamma of seed 1, on which two paths end at one root
// before the tracker tracks them again (cmd/mdgen's TestTrackCrossedPaths).
func crossingHomotopy(t testing.TB) *track.Homotopy {
	t.Helper()
	sys, err := poly.Parse("x200", []byte("1\nx^200 + 3*x - 1;\n"), poly.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := track.NewTotalDegree(sys, complex(-0.26663418029230684, 0.9637978075819895), true, 1)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestTrackSolves: track.Track through the coordinator with whole solves
// (NewCPUSolves) and 64 workers gives every path's bits of track.Track
// with 2 workers and no device, on katsura, noon, cyclic and random dense
// systems at 1, 2, 4 doubles and the automatic precision, one group a
// round and with Coordinator.Together: every call is a whole solve, a
// group's calls one RunSolves.
func TestTrackSolves(t *testing.T) {
	type tcase struct {
		name string
		h    func(testing.TB) *track.Homotopy
		trackCase
	}
	var cases []tcase
	for _, c := range trackCases(testing.Short()) {
		cases = append(cases, tcase{c.String(), func(t testing.TB) *track.Homotopy { return homotopy(t, c.family, c.n) }, c})
	}
	for _, p := range []int{1, 2, 4, 0} {
		for _, degs := range [][]int{{2, 3}, {2, 2, 2}} {
			c := trackCase{family: "dense", prec: p}
			cases = append(cases, tcase{fmt.Sprintf("dense%v/prec%d", degs, p), func(t testing.TB) *track.Homotopy { return denseHomotopy(t, degs, 5) }, c})
		}
	}
	// Two paths of x^200 + 3x - 1 (mdgen track's gamma of seed 1) end at
	// one regular root: the run tracks them again (track.Run.Crossed),
	// through the coordinator too.
	crossing := trackCase{family: "x^200+3x-1", prec: 0}
	cases = append(cases, tcase{"crossing/auto", func(t testing.TB) *track.Homotopy { return crossingHomotopy(t) }, crossing})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := c.h(t)
			want, err := track.Track(h, c.options(2), c.first, c.count)
			if err != nil {
				t.Fatal(err)
			}
			if c.family == crossing.family && len(want.Crossed) == 0 {
				t.Fatalf("no path was tracked again: the case no longer has a crossing")
			}
			for _, together := range []bool{false, true} {
				ex := &countingSolves{SolveExecutor: NewCPUSolves()}
				co := New(ex)
				co.Together = together
				got, err := track.Track(h, c.options(64, co), c.first, c.count)
				if err != nil {
					t.Fatal(err)
				}
				if d := samePaths(want, got); d != "" {
					t.Fatalf("together=%v: %s", together, d)
				}
				st := co.Stats()
				if ex.calls.Load() != 0 || ex.solves.Load() != st.Calls || st.Groups == 0 || st.Rounds > st.Groups {
					t.Fatalf("together=%v: %d whole solves, %d other calls; stats %+v", together, ex.solves.Load(), ex.calls.Load(), st)
				}
				t.Logf("together=%v: %d paths, %d solves in %d groups (%.1f per group), %d rounds", together, len(got.Paths),
					st.Calls, st.Groups, float64(st.Calls)/float64(st.Groups), st.Rounds)
			}
		})
	}
}

// failingSolves fails the group of whole solves number failAt (counted
// over the executor's runs) and, unless once, every later one, each call
// with a SolveBatchError: a device whose launch fails.
type failingSolves struct {
	SolveExecutor
	failAt int
	once   bool

	mu   sync.Mutex
	runs int
	// failed, when not nil, is closed at the first failure.
	failed chan struct{}
}

func (f *failingSolves) RunSolves(slots []Slot, calls []*SolveCall) {
	f.mu.Lock()
	f.runs++
	fail := f.runs == f.failAt || !f.once && f.runs > f.failAt
	if f.runs == f.failAt && f.failed != nil {
		close(f.failed)
	}
	f.mu.Unlock()
	if !fail {
		f.SolveExecutor.RunSolves(slots, calls)
		return
	}
	err := SolveBatchError("launch", calls, errFakeCUDA)
	for _, c := range calls {
		c.Err = err
	}
}

// TestSolvesError: a failed launch of whole solves fails the run (one
// device) with a BatchError that names the stage, the configuration and
// the paths; the next run on the same coordinator gives every path's
// bits of track.Track with 2 workers. With two CPU devices beside a
// device that fails for good, its paths go back to the queue and the
// run's bits are the same.
func TestSolvesError(t *testing.T) {
	c := trackCase{family: "noon", n: 3, prec: 2}
	h := homotopy(t, c.family, c.n)
	want, err := track.Track(h, c.options(2), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, together := range []bool{false, true} {
		t.Run("together="+strconv.FormatBool(together), func(t *testing.T) {
			co := New(&failingSolves{SolveExecutor: NewCPUSolves(), failAt: 10, once: true})
			co.Together = together
			_, err := track.Track(h, c.options(16, co), 0, 0)
			var be *BatchError
			if !errors.As(err, &be) || !errors.Is(err, errFakeCUDA) {
				t.Fatalf("error %v, want a BatchError of the fake CUDA error", err)
			}
			t.Log(err)
			if be.Stage != "launch" || !be.Solves || be.Prec.N < 1 || !be.Prec.Complex || len(be.Paths) == 0 {
				t.Fatalf("BatchError %+v", be)
			}
			for _, p := range be.Paths {
				if p < 0 || p >= h.Paths() {
					t.Fatalf("BatchError names path %d of %d", p, h.Paths())
				}
			}
			msg := err.Error()
			for _, part := range []string{"every device failed", "newton: lockstep: the batched Newton solves (", "failed at their launch stage, path"} {
				if !strings.Contains(msg, part) {
					t.Errorf("the error does not say %q: %s", part, msg)
				}
			}
			got, err := track.Track(h, c.options(16, co), 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if d := samePaths(want, got); d != "" {
				t.Fatal(d)
			}
		})
	}

	f := &failingSolves{SolveExecutor: NewCPUSolves(), failAt: 5, failed: make(chan struct{})}
	cpu := func() track.Device { return New(gatedExecutor{NewCPU(), f.failed}) }
	got, err := track.Track(h, c.options(3*4, cpu(), New(f), cpu()), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := samePaths(want, got); d != "" {
		t.Fatal(d)
	}
	if len(got.DeviceFailures) != 1 || got.DeviceFailures[0].Device != 1 || got.DeviceFailures[0].Requeued < 1 {
		t.Fatalf("device failures %+v, want device 1's", got.DeviceFailures)
	}
	t.Logf("device 1 failed, %d paths re-queued: %v", got.DeviceFailures[0].Requeued, got.DeviceFailures[0].Err)
}

// latencySolves models a device that runs a group of whole solves in
// one launch: each RunSolves waits lat (the launch's round trip; the
// round's launches overlap) and the host computes the solves (the work
// the device would do).
type latencySolves struct {
	SolveExecutor
	lat time.Duration
}

func (l latencySolves) RunSolves(slots []Slot, calls []*SolveCall) {
	time.Sleep(l.lat)
	l.SolveExecutor.RunSolves(slots, calls)
}

// BenchmarkTrackSolves: the lock-step tracker for katsura MDGEN_KATSURA
// (default 8) at 2 doubles, a worker per path, one group a round: every
// Backend call grouped (NewCPU), the batched evaluations on the latency
// model of a device (MDGEN_LATENCY per evaluation, default 1ms,
// overlapping, every ready group a round: what `mdgen track -gpu` does),
// whole solves on the CPU (NewCPUSolves), and whole solves on the
// latency model (MDGEN_LATENCY per group of solves).
func BenchmarkTrackSolves(b *testing.B) {
	lat, err := time.ParseDuration(envDefault("MDGEN_LATENCY", "1ms"))
	if err != nil {
		b.Fatal(err)
	}
	n, err := strconv.Atoi(envDefault("MDGEN_KATSURA", "8"))
	if err != nil {
		b.Fatal(err)
	}
	h := homotopy(b, "katsura", n)
	paths := int(h.Paths())
	for _, c := range []struct {
		name     string
		together bool
		exec     func() Executor
	}{
		{"cpu", false, func() Executor { return NewCPU() }},
		{"batched-latency/together", true, func() Executor { return NewBatched(newLatencyEvaluator(lat, false), paths) }},
		{"solves", false, func() Executor { return &countingSolves{SolveExecutor: NewCPUSolves()} }},
		{"solves/together", true, func() Executor { return &countingSolves{SolveExecutor: NewCPUSolves()} }},
		{"solves-latency", false, func() Executor { return &countingSolves{SolveExecutor: latencySolves{NewCPUSolves(), lat}} }},
		{"solves-latency/together", true, func() Executor { return &countingSolves{SolveExecutor: latencySolves{NewCPUSolves(), lat}} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var run *track.Run
			var st Stats
			most := 0
			for b.Loop() {
				ex := c.exec()
				co := New(ex)
				co.Together = c.together
				var err error
				if run, err = track.Track(h, track.Options{Prec: 2, Workers: paths, Devices: []track.Device{co}}, 0, 0); err != nil {
					b.Fatal(err)
				}
				if bx, ok := ex.(*Batched); ok {
					if err := bx.Close(); err != nil {
						b.Fatal(err)
					}
				}
				st = co.Stats()
				if cs, ok := ex.(*countingSolves); ok {
					most = cs.mostSolves()
				}
			}
			b.ReportMetric(float64(len(run.Paths))/run.Seconds, "paths/s")
			b.ReportMetric(float64(st.Rounds), "rounds")
			b.ReportMetric(float64(st.Groups), "groups")
			if most > 0 {
				b.ReportMetric(float64(st.Calls)/float64(len(run.Paths)), "solves/path")
				b.ReportMetric(float64(most), "most-solves/path")
			}
			b.ReportMetric(float64(st.Calls)/float64(st.Groups), "calls/group")
		})
	}
}

// stepLatencySolves models a latency-bound device that runs a group of
// whole solves in one launch, a block a solve: the launch lasts
// lat + perStep times the most Newton steps of its solves (the slowest
// block), however many solves it has; the host computes the solves
// meanwhile (the wait is what is left of that time).
type stepLatencySolves struct {
	SolveExecutor
	lat, perStep time.Duration
}

func (l stepLatencySolves) RunSolves(slots []Slot, calls []*SolveCall) {
	t0 := time.Now()
	l.SolveExecutor.RunSolves(slots, calls)
	most := 0
	for _, c := range calls {
		if c.Err == nil {
			most = max(most, c.Result.Steps)
		}
	}
	time.Sleep(l.lat + time.Duration(most)*l.perStep - time.Since(t0))
}

// BenchmarkTrackPipeline: whole solves on the model of a latency-bound
// device (stepLatencySolves: MDGEN_LATENCY a launch, default 200us, and
// MDGEN_STEP_LATENCY a Newton step of its slowest solve, default 1ms) for
// MDGEN_SYSTEM (default noon5) at 2 doubles, a worker per path: every
// ready group a round (Together) against pipelined groups, filled or
// Eager.
func BenchmarkTrackPipeline(b *testing.B) {
	lat, err := time.ParseDuration(envDefault("MDGEN_LATENCY", "200us"))
	if err != nil {
		b.Fatal(err)
	}
	perStep, err := time.ParseDuration(envDefault("MDGEN_STEP_LATENCY", "1ms"))
	if err != nil {
		b.Fatal(err)
	}
	spec := envDefault("MDGEN_SYSTEM", "noon5")
	family := strings.TrimRight(spec, "0123456789")
	n, err := strconv.Atoi(spec[len(family):])
	if err != nil {
		b.Fatal(err)
	}
	h := homotopy(b, family, n)
	paths := int(h.Paths())
	for _, c := range []struct {
		name     string
		pipeline int
		eager    bool
	}{{"together", 0, false}, {"pipeline4", 4, false}, {"pipeline16", 16, false}, {"eager4", 4, true}, {"eager16", 16, true}, {"eager64", 64, true}} {
		b.Run(c.name, func(b *testing.B) {
			var run *track.Run
			var st Stats
			for b.Loop() {
				co := New(stepLatencySolves{NewCPUSolves(), lat, perStep})
				co.Together, co.Pipeline, co.Eager = true, c.pipeline, c.eager
				if run, err = track.Track(h, track.Options{Prec: 2, Workers: paths, Devices: []track.Device{co}}, 0, 0); err != nil {
					b.Fatal(err)
				}
				st = co.Stats()
			}
			b.ReportMetric(float64(len(run.Paths))/run.Seconds, "paths/s")
			b.ReportMetric(float64(st.Rounds), "rounds")
			b.ReportMetric(float64(st.Calls)/float64(st.Groups), "calls/group")
		})
	}
}
