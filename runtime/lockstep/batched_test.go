package lockstep

import (
	"testing"

	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/track"
	"github.com/mdgen/mdgen/stager"
)

// hostEvaluator is an Evaluator on the host: a CPU executor per path, as
// runtime/gpu's Batch computes on the device (its bits, checked on the
// GPU by runtime/gpu's tests). RunFirst evaluates the paths set since
// the last run, which Batched sets before it runs them (the others'
// outputs are not read).
type hostEvaluator struct {
	execs []*cpu.Executor
	set   []bool
	runs  int
}

func newHostEvaluator(plan *stager.Plan, p mdops.Prec, paths int) (Evaluator, error) {
	h := &hostEvaluator{execs: make([]*cpu.Executor, paths), set: make([]bool, paths)}
	for i := range h.execs {
		e, err := cpu.New(plan, p, 1)
		if err != nil {
			return nil, err
		}
		h.execs[i] = e
	}
	return h, nil
}

func (h *hostEvaluator) SetPaths(paths []int, set func(i int, input func(v int, series []float64), value func(s stager.Slot, series []float64))) {
	par.Run(len(paths), func(_, i int) {
		e := h.execs[paths[i]]
		set(i, e.SetInput, e.SetValue)
		h.set[paths[i]] = true
	})
}

func (h *hostEvaluator) RunFirst(n int) error {
	h.runs++
	var errs = make([]error, len(h.execs))
	par.Run(len(h.execs), func(_, p int) {
		if h.set[p] {
			errs[p] = h.execs[p].Run()
			h.set[p] = false
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (h *hostEvaluator) Download() error { return nil }

func (h *hostEvaluator) Value(p, i int, dst []float64) []float64 {
	return append(dst[:0], h.execs[p].Value(i)...)
}

func (h *hostEvaluator) Deriv(p, poly, v int, dst []float64) []float64 {
	return append(dst[:0], h.execs[p].Deriv(poly, v)...)
}

func (h *hostEvaluator) Close() error {
	for _, e := range h.execs {
		if err := e.Close(); err != nil {
			return err
		}
	}
	return nil
}

// TestTrackBatched: track.Track through the batched executor (its
// evaluator a CPU executor per path: runtime/gpu's Batch on the host) with
// 64 workers and chunks of 16 slots (more solvers of a configuration
// than slots take more chunks), gives every path's bits of track.Track
// with 2 workers.
func TestTrackBatched(t *testing.T) {
	for _, c := range trackCases(testing.Short()) {
		t.Run(c.String(), func(t *testing.T) {
			h := homotopy(t, c.family, c.n)
			want, err := track.Track(h, c.options(2), c.first, c.count)
			if err != nil {
				t.Fatal(err)
			}
			ex := NewBatched(newHostEvaluator, 16)
			co := New(ex)
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
			st := co.Stats()
			t.Logf("%d paths (%+v, %d raised): %d calls in %d groups (%.1f per group)", len(got.Paths), got.Summary, raised(got), st.Calls, st.Groups, float64(st.Calls)/float64(st.Groups))
		})
	}
}
