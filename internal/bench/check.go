package bench

import (
	"fmt"
	"math"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/stager"
)

type checkJob struct {
	idx     int
	plan    *stager.Plan
	n       int
	complex bool
	seed    uint64
	sum     string
	out     []float64 // the GPU's outputs, outputs' order
}

// startChecker runs the CPU comparisons, one case at a time, each on
// -check-workers goroutines.
func (s *session) startChecker() {
	s.checkWG.Add(1)
	go func() {
		defer s.checkWG.Done()
		done := 0
		for c := range s.checks {
			if s.pastDeadline() {
				continue // reported as unfinished
			}
			t0 := time.Now()
			verdict, sum := s.cpuCheck(c)
			done++
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				return
			}
			r := &s.results[c.idx]
			r.Check, r.CPUChecksum = verdict, sum
			line := fmt.Sprintf("check %d: %s %dd %s d=%d: %s (CPU %.1f s)", done, r.System, r.Prec, r.dataName(), r.Degree, verdict, time.Since(t0).Seconds())
			s.mu.Unlock()
			s.logf("%s", line)
		}
	}()
}

func (s *session) cpuCheck(c checkJob) (verdict, sum string) {
	e, err := cpu.New(c.plan, mdops.Prec{N: c.n, Complex: c.complex}, s.cfg.CheckWorkers)
	if err != nil {
		return "error: " + err.Error(), ""
	}
	l := backend.Layout{Prec: mdops.Prec{N: c.n, Complex: c.complex}, Degree: c.plan.Degree}
	for v, in := range backend.RandomInputs(c.plan.NumVars, l, c.seed) {
		e.SetInput(v, in)
	}
	if err := e.Run(); err != nil {
		return "error: " + err.Error(), ""
	}
	sum = backend.Checksum(e, c.plan.NumPolys, c.plan.NumVars)
	if sum == c.sum {
		return "identical", sum
	}
	if c.out != nil {
		s.logf("check: %dd d=%d: the GPU differs in %s", c.n, c.plan.Degree, describeDiff(c.out, outputs(e, c.plan), c.plan, l))
	}
	return "DIFFERS", sum
}

// outputs copies every output series, values then the Jacobian row
// by row (Checksum's order).
func outputs(o backend.Outputs, plan *stager.Plan) []float64 {
	var out []float64
	for p := 0; p < plan.NumPolys; p++ {
		out = append(out, o.Value(p)...)
	}
	for p := 0; p < plan.NumPolys; p++ {
		for v := 0; v < plan.NumVars; v++ {
			out = append(out, o.Deriv(p, v)...)
		}
	}
	return out
}

// describeDiff says how the GPU's outputs differ from the CPU's: how many
// doubles, where the first is, and the largest difference relative to the
// magnitude of its coefficient.
func describeDiff(got, want []float64, plan *stager.Plan, l backend.Layout) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d doubles, CPU %d", len(got), len(want))
	}
	slot := l.SlotLen()
	name := func(i int) string {
		s, off := i/slot, i%slot
		k, rest := off/l.W(), off%l.W()
		part := "re"
		if rest >= l.Prec.N {
			part, rest = "im", rest-l.Prec.N
		}
		what := ""
		if s < plan.NumPolys {
			what = fmt.Sprintf("p%d", s)
		} else {
			s -= plan.NumPolys
			what = fmt.Sprintf("d p%d/d x%d", s/plan.NumVars, s%plan.NumVars+1)
		}
		return fmt.Sprintf("%s t^%d %s limb %d", what, k, part, rest)
	}
	n, first, worst := 0, -1, 0.0
	for i := range got {
		if math.Float64bits(got[i]) == math.Float64bits(want[i]) {
			continue
		}
		n++
		if first < 0 {
			first = i
		}
		lead := want[i-(i%slot)%l.Prec.N] // the leading limb of this number
		rel := math.Abs(got[i]-want[i]) / math.Max(math.Abs(lead), math.SmallestNonzeroFloat64)
		if rel > worst || math.IsNaN(rel) {
			worst = rel
		}
	}
	return fmt.Sprintf("%d of %d doubles, first at %s (GPU %g, CPU %g), largest difference %.2g of its number",
		n, len(got), name(first), got[first], want[first], worst)
}
