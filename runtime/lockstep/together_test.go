package lockstep

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/track"
	"github.com/mdgen/mdgen/stager"
)

// latencyEvaluator models a device for the coordinator's timing: each
// RunFirst waits lat (the round trip of a batch to the device and back,
// where the work is not the host's), and each path's evaluation runs on
// the host when its worker reads its outputs (the host's cores do what
// the CPU tracker does). Its bits are hostEvaluator's.
type latencyEvaluator struct {
	*hostEvaluator
	lat     time.Duration
	pending []bool // by path: evaluated by the last RunFirst, not read yet
}

func newLatencyEvaluator(lat time.Duration) NewEvaluator {
	return func(plan *stager.Plan, p mdops.Prec, paths int) (Evaluator, error) {
		h, err := newHostEvaluator(plan, p, paths)
		if err != nil {
			return nil, err
		}
		return &latencyEvaluator{hostEvaluator: h.(*hostEvaluator), lat: lat, pending: make([]bool, paths)}, nil
	}
}

func (e *latencyEvaluator) RunFirst(n int) error {
	time.Sleep(e.lat)
	e.runs++
	for p, set := range e.set {
		if set {
			e.pending[p], e.set[p] = true, false
		}
	}
	return nil
}

// evaluate runs path p's evaluation if its worker has not read it yet
// (each path is read by one worker: no two goroutines touch one path).
func (e *latencyEvaluator) evaluate(p int) {
	if e.pending[p] {
		e.pending[p] = false
		if err := e.execs[p].Run(); err != nil {
			panic(err)
		}
	}
}

func (e *latencyEvaluator) Value(p, i int, dst []float64) []float64 {
	e.evaluate(p)
	return e.hostEvaluator.Value(p, i, dst)
}

func (e *latencyEvaluator) Deriv(p, poly, v int, dst []float64) []float64 {
	e.evaluate(p)
	return e.hostEvaluator.Deriv(p, poly, v, dst)
}

// TestTrackTogether: with Coordinator.Together (every ready group in one
// round, at once) track.Track through the CPU executor, the batched one
// on a host evaluator and on the latency model, each with 64 workers
// (chunks of 16 slots for the batched ones), gives every path's bits of
// track.Track with 2 workers, in fewer rounds than groups.
func TestTrackTogether(t *testing.T) {
	for _, c := range trackCases(true) {
		t.Run(c.String(), func(t *testing.T) {
			h := homotopy(t, c.family, c.n)
			want, err := track.Track(h, c.options(2), c.first, c.count)
			if err != nil {
				t.Fatal(err)
			}
			for _, ex := range []struct {
				name string
				exec Executor
			}{
				{"cpu", NewCPU()},
				{"batched", NewBatched(newHostEvaluator, 16)},
				{"latency", NewBatched(newLatencyEvaluator(0), 16)},
			} {
				co := New(ex.exec)
				co.Together = true
				got, err := track.Track(h, c.options(64, co), c.first, c.count)
				if b, ok := ex.exec.(*Batched); ok {
					if cerr := b.Close(); err == nil {
						err = cerr
					}
				}
				if err != nil {
					t.Fatalf("%s: %v", ex.name, err)
				}
				if d := samePaths(want, got); d != "" {
					t.Fatalf("%s: %s", ex.name, d)
				}
				st := co.Stats()
				if st.Rounds == 0 || st.Rounds > st.Groups {
					t.Fatalf("%s: stats %+v", ex.name, st)
				}
				t.Logf("%s: %d calls in %d groups, %d rounds", ex.name, st.Calls, st.Groups, st.Rounds)
			}
		})
	}
}

// BenchmarkTrackLatency: the lock-step tracker on the latency model of a
// device (MDGEN_LATENCY per batched evaluation, default 1ms) for katsura
// MDGEN_KATSURA (default 8) at 2 doubles, a worker per path, one group a
// round against every ready group a round (Together).
func BenchmarkTrackLatency(b *testing.B) {
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
	for _, together := range []bool{false, true} {
		b.Run("together="+strconv.FormatBool(together), func(b *testing.B) {
			var run *track.Run
			var st Stats
			for b.Loop() {
				ex := NewBatched(newLatencyEvaluator(lat), paths)
				co := New(ex)
				co.Together = together
				var err error
				if run, err = track.Track(h, track.Options{Prec: 2, Workers: paths, Devices: []track.Device{co}}, 0, 0); err != nil {
					b.Fatal(err)
				}
				if err := ex.Close(); err != nil {
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

func envDefault(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
