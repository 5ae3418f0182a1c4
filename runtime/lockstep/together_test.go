package lockstep

import (
	"os"
	"strconv"
	"sync"
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
	device  *sync.Mutex // held while waiting: one device, its round trips one after the other (nil: they overlap)
	pending []bool      // by path: evaluated by the last RunFirst, not read yet
}

// newLatencyEvaluator makes latency evaluators; with serial, their round
// trips wait for each other (a device that serves one batch at a time),
// else they overlap.
func newLatencyEvaluator(lat time.Duration, serial bool) NewEvaluator {
	var device *sync.Mutex
	if serial {
		device = new(sync.Mutex)
	}
	return func(plan *stager.Plan, p mdops.Prec, paths int) (Evaluator, error) {
		h, err := newHostEvaluator(plan, p, paths)
		if err != nil {
			return nil, err
		}
		return &latencyEvaluator{hostEvaluator: h.(*hostEvaluator), lat: lat, device: device, pending: make([]bool, paths)}, nil
	}
}

func (e *latencyEvaluator) RunFirst(n int) error {
	if e.device != nil {
		e.device.Lock()
		defer e.device.Unlock()
	}
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
				{"latency", NewBatched(newLatencyEvaluator(0, true), 16)},
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
// device (MDGEN_LATENCY per batched evaluation, default 1ms; the round
// trips of one round overlap, or one after the other: serial) for katsura
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
	for _, c := range []struct{ together, serial bool }{{false, false}, {true, false}, {true, true}} {
		b.Run("together="+strconv.FormatBool(c.together)+"/serial="+strconv.FormatBool(c.serial), func(b *testing.B) {
			together := c.together
			var run *track.Run
			var st Stats
			for b.Loop() {
				ex := NewBatched(newLatencyEvaluator(lat, c.serial), paths)
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
