package lockstep

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/track"
	"github.com/mdgen/mdgen/stager"
)

// limitedEvaluators makes host evaluators (hostEvaluator) of at most
// limit paths: a larger batch is refused as runtime/gpu's Batch refuses
// one that does not fit the device memory.
// runs counts their runs.
func limitedEvaluators(limit int, c *evalCounts) NewEvaluator {
	return func(plan *stager.Plan, p mdops.Prec, paths int) (Evaluator, error) {
		if paths > limit {
			return nil, &TooLargeError{Paths: paths, Fit: limit, Err: errors.New("not enough free fake-GPU memory")}
		}
		e, err := newHostEvaluator(plan, p, paths)
		return countingEvaluator{e, c}, err
	}
}

// evalCounts counts the runs of countingEvaluators, the paths they
// evaluated and the most in one run.
type evalCounts struct {
	runs, paths, most atomic.Int64
}

type countingEvaluator struct {
	Evaluator
	c *evalCounts
}

func (e countingEvaluator) RunFirst(n int) error {
	e.c.runs.Add(1)
	e.c.paths.Add(int64(n))
	for {
		m := e.c.most.Load()
		if int64(n) <= m || e.c.most.CompareAndSwap(m, int64(n)) {
			break
		}
	}
	return e.Evaluator.RunFirst(n)
}

// failingEvaluators makes host evaluators whose runs fail from the
// failAt-th of them on (counted over every evaluator it made), only that
// one when once: a device that fails for good, or a CUDA error that
// spoils one batch.
type failingEvaluators struct {
	failAt int
	once   bool

	mu   sync.Mutex
	runs int
	// failed, when not nil, is closed at the first failure.
	failed chan struct{}
}

var errFakeCUDA = errors.New("fake CUDA error: an illegal memory access was encountered")

func (f *failingEvaluators) new(plan *stager.Plan, p mdops.Prec, paths int) (Evaluator, error) {
	e, err := newHostEvaluator(plan, p, paths)
	if err != nil {
		return nil, err
	}
	return &failingEvaluator{Evaluator: e, f: f}, nil
}

type failingEvaluator struct {
	Evaluator
	f *failingEvaluators
}

func (e *failingEvaluator) RunFirst(n int) error {
	e.f.mu.Lock()
	e.f.runs++
	fail := e.f.runs == e.f.failAt || !e.f.once && e.f.runs > e.f.failAt
	if e.f.runs == e.f.failAt && e.f.failed != nil {
		close(e.f.failed)
	}
	e.f.mu.Unlock()
	if fail {
		return errFakeCUDA
	}
	return e.Evaluator.RunFirst(n)
}

// TestBatchedSplit: with evaluators of at most 3 paths, the batched
// executor with chunks of 16 slots evaluates its groups in batches of 3,
// says so once per precision, degree and working degree, and every path's
// bits are those of track.Track with 2 workers; with Coordinator.Together
// too.
func TestBatchedSplit(t *testing.T) {
	for _, c := range trackCases(true) {
		for _, together := range []bool{false, true} {
			t.Run(c.String()+togetherName(together), func(t *testing.T) {
				h := homotopy(t, c.family, c.n)
				want, err := track.Track(h, c.options(2), c.first, c.count)
				if err != nil {
					t.Fatal(err)
				}
				var counts evalCounts
				ex := NewBatched(limitedEvaluators(3, &counts), 16)
				var notices []string
				ex.Notify = func(msg string) { notices = append(notices, msg) }
				co := New(ex)
				co.Together = together
				got, err := track.Track(h, c.options(64, co), c.first, c.count)
				if err != nil {
					t.Fatal(err)
				}
				if err := ex.Close(); err != nil {
					t.Fatal(err)
				}
				if d := samePaths(want, got); d != "" {
					t.Fatal(d)
				}
				if len(notices) == 0 {
					t.Fatal("no notice of the split")
				}
				// Every grouped evaluation ran once, in batches of at most
				// 3 paths (how many groups had more than 3 depends on the
				// scheduling; the notices say a split was needed).
				st := co.Stats()
				if counts.paths.Load() != st.Calls || counts.most.Load() > 3 || 3*counts.runs.Load() < st.Calls {
					t.Fatalf("%d paths evaluated in %d runs (at most %d at once) for %d calls in %d groups",
						counts.paths.Load(), counts.runs.Load(), counts.most.Load(), st.Calls, st.Groups)
				}
				for i, msg := range notices {
					if !strings.Contains(msg, "16 paths at once do not fit, split into batches of 3") || !strings.Contains(msg, "fake-GPU memory") {
						t.Errorf("notice %q", msg)
					}
					if slices.Contains(notices[:i], msg) {
						t.Errorf("notice %q twice", msg)
					}
				}
				t.Logf("%d notices, the first: %s", len(notices), notices[0])
			})
		}
	}
}

// together_ names a subtest's Coordinator.Together.
func togetherName(together bool) string {
	if together {
		return "/together"
	}
	return ""
}

// TestBatchedError: a CUDA error in one batched evaluation fails the run
// (one device) with an error that names the stage, the step and the
// paths; the next run on the same coordinator gives every path's bits of
// track.Track with 2 workers; with Coordinator.Together too.
func TestBatchedError(t *testing.T) {
	for _, together := range []bool{false, true} {
		t.Run("together="+strconv.FormatBool(together), func(t *testing.T) { testBatchedError(t, together) })
	}
}

func testBatchedError(t *testing.T, together bool) {
	c := trackCase{family: "noon", n: 3, prec: 2}
	h := homotopy(t, c.family, c.n)
	want, err := track.Track(h, c.options(2), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := &failingEvaluators{failAt: 10, once: true}
	ex := NewBatched(f.new, 16)
	co := New(ex)
	co.Together = together
	_, err = track.Track(h, c.options(16, co), 0, 0)
	var be *BatchError
	if !errors.As(err, &be) || !errors.Is(err, errFakeCUDA) {
		t.Fatalf("error %v, want a BatchError of the fake CUDA error", err)
	}
	t.Log(err)
	if be.Stage != "evaluate" || len(be.Paths) == 0 {
		t.Fatalf("BatchError %+v", be)
	}
	for _, p := range be.Paths {
		if p < 0 || p >= h.Paths() {
			t.Fatalf("BatchError names path %d of %d", p, h.Paths())
		}
	}
	msg := err.Error()
	for _, part := range []string{"every device failed", "newton: evaluate (step ", "the batched evaluation at working degree", "failed at its evaluate stage, path"} {
		if !strings.Contains(msg, part) {
			t.Errorf("the error does not say %q: %s", part, msg)
		}
	}
	got, err := track.Track(h, c.options(16, co), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := ex.Close(); err != nil {
		t.Fatal(err)
	}
	if d := samePaths(want, got); d != "" {
		t.Fatal(d)
	}
}

// TestDeviceFails: of three devices (two with the CPU executor, one
// batched whose device fails for good after some evaluations), the
// failed one's paths go back to the queue and the others track them:
// every path's bits are those of track.Track with 2 workers, and the run
// says which device failed and how many paths went back. When every
// device fails, the run fails.
func TestDeviceFails(t *testing.T) {
	c := trackCase{family: "noon", n: 3, prec: 0}
	h := homotopy(t, c.family, c.n)
	want, err := track.Track(h, c.options(2), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The CPU devices wait for the failure (their workers take a path
	// each first), so that the failing device gets paths.
	f := &failingEvaluators{failAt: 5, failed: make(chan struct{})}
	cpu := func() track.Device { return New(gatedExecutor{NewCPU(), f.failed}) }
	got, err := track.Track(h, c.options(3*4, cpu(), New(NewBatched(f.new, 4)), cpu()), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := samePaths(want, got); d != "" {
		t.Fatal(d)
	}
	if len(got.DeviceFailures) != 1 {
		t.Fatalf("device failures %+v, want device 1's", got.DeviceFailures)
	}
	df := got.DeviceFailures[0]
	if df.Device != 1 || df.Requeued < 1 || !errors.Is(df.Err, errFakeCUDA) {
		t.Fatalf("device failure %+v", df)
	}
	t.Logf("device %d failed, %d paths re-queued: %v", df.Device, df.Requeued, df.Err)

	var devs []track.Device
	for range 3 {
		devs = append(devs, New(NewBatched((&failingEvaluators{failAt: 3}).new, 4)))
	}
	_, err = track.Track(h, c.options(3*4, devs...), 0, 0)
	if err == nil || !strings.Contains(err.Error(), "every device failed") || !errors.Is(err, errFakeCUDA) {
		t.Fatalf("error %v, want every device failed", err)
	}
	for d := range 3 {
		if !strings.Contains(err.Error(), "device "+string(rune('0'+d))) {
			t.Errorf("the error does not name device %d: %v", d, err)
		}
	}
}

// gatedExecutor runs no group before gate is closed (or a minute went by).
type gatedExecutor struct {
	Executor
	gate chan struct{}
}

func (g gatedExecutor) Run(slots []Slot, calls []*Call) {
	select {
	case <-g.gate:
	case <-time.After(time.Minute):
	}
	g.Executor.Run(slots, calls)
}
