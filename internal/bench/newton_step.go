package bench

import (
	"fmt"
	"io"
	"math"
	"time"
	"unsafe"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/alg"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/families"
)

// The rate of one Newton step of root refinement on a small system (issue
// 20): the counted double operations of the step over its time, against
// the bare multiply-add loop of the same precision on one core.

// StepBench runs one Newton step at degree 0 on a prepared solver, again
// and again from the same start: the Newton homotopy's root z with its
// leading limbs moved by 2^-20 (so that the step solves and updates, and
// stops at its step limit of one). The stage clock is off, as in the path
// tracker (newton.Options.NoStageTimes): the step is timed as a whole.
type StepBench struct {
	Spec string
	Prec mdops.Prec
	Ops  float64 // counted double operations of one step (StepOps)

	solver *newton.Solver
	x0     []float64
}

// NewStepBench prepares the step of a family's Newton homotopy (spec:
// "cyclic7:newton", ...) at precision p with the given workers.
func NewStepBench(spec string, p mdops.Prec, workers int) (*StepBench, error) {
	inst, err := families.System(spec, families.Options{Seed: 1, Complex: p.Complex})
	if err != nil {
		return nil, err
	}
	if len(inst.Start) == 0 {
		return nil, fmt.Errorf("%s has no start solution", spec)
	}
	sys := inst.System
	s, err := newton.New(sys, newton.Options{Prec: p, Degree: 0, MaxSteps: 1, Workers: workers, NoStageTimes: true})
	if err != nil {
		return nil, err
	}
	if err := s.Prepare(); err != nil {
		s.Close()
		return nil, err
	}
	plan, err := stager.Stage(sys, 0)
	if err != nil {
		s.Close()
		return nil, err
	}
	w := p.Width()
	x0 := make([]float64, len(sys.Vars)*w)
	for v := range sys.Vars {
		e := x0[v*w : (v+1)*w]
		z := &inst.Start[0].Values[v]
		backend.RoundRat(e[:p.N], &z.Re)
		if p.Complex {
			backend.RoundRat(e[p.N:], &z.Im)
		}
		for lead := 0; lead < w; lead += p.N {
			e[lead] *= 1 + 0x1p-20
			clear(e[lead+1 : lead+p.N])
		}
	}
	return &StepBench{Spec: spec, Prec: p, Ops: StepOps(plan, len(sys.Polys), len(sys.Vars), p), solver: s, x0: x0}, nil
}

// Step runs one Newton step (a Solve that stops at its step limit).
func (st *StepBench) Step() error {
	res, err := st.solver.SolveLimbs(st.x0)
	if err != nil {
		return err
	}
	f, _ := res.Err.(*newton.Failure)
	if res.Steps != 1 || f == nil || f.Kind != newton.StepLimit {
		return fmt.Errorf("%s: not one step to the step limit: %d steps, %v", st.Spec, res.Steps, res.Err)
	}
	return nil
}

// Close releases the solver.
func (st *StepBench) Close() error { return st.solver.Close() }

// StepOps counts the double operations of one Newton step of root
// refinement on an m x n system: the evaluation with its Jacobian from the
// IR's op counts (backend.CountOps, FMA = 1); the linear algebra by LAWN
// 41's formulas (lawn41.go: the QR xGEQRF, Q^H b xUNMQR, the back
// substitution xTRSV, the residual b - A dx as xGEMV, the update x + dx n
// additions), converted at the element type's cost; and the 1-norms the
// driver decides on (||b||_1, ||A_0||_1 over the n columns, the residual's:
// m(n+2) terms of la.LeadNorm1, each one float64 addition to its sum, and
// one more, |Re_0| + |Im_0|, for complex data). Not counted: the condition
// estimate (float64 work on the leading limbs, as LAPACK's xGECON is not
// part of xGEQRF's count).
func StepOps(plan *stager.Plan, m, n int, p mdops.Prec) float64 {
	la := geqrfCount(m, n).plus(unmqrCount(m, 1, n)).plus(trsvCount(n)).plus(gemvCount(m, n)).plus(laCount{adds: float64(n)})
	norms := float64(m * (n + 2))
	if p.Complex {
		norms *= 2
	}
	return backend.CountOps(plan, p).DoubleOps + la.doubleOps(p.N, p.Complex) + norms
}

// progOps returns the double operations of alg's real program op at N
// doubles.
func progOps(n int, op string) float64 { return float64(alg.Build(n).Program(op).Count().Flops()) }

// BareMulAddRate returns the double operations per second of the bare
// loop acc = acc.MulAdd(x_i, y_i) over 64 values of p's element type on
// one core (maddOps per multiply-add), timed for about dur.
func BareMulAddRate(p mdops.Prec, dur time.Duration) float64 {
	const size = 64
	in := backend.RandomInputs(2, backend.Layout{Prec: p, Degree: size - 1}, 5)
	loop := bareLoop(p, in[0], in[1])
	if loop == nil {
		return math.NaN()
	}
	reps := 16
	for {
		t0 := time.Now()
		loop(reps)
		el := time.Since(t0)
		if el >= dur {
			return float64(reps*size) * maddOps(p.N, p.Complex) / el.Seconds()
		}
		reps *= 2
	}
}

var bareSink float64

// bareLoop returns the bare loop of p's element type over x and y (64
// values each, in p's layout), reps times; nil for a precision without
// one here. Written out per type: a generic loop would call MulAdd through
// a dictionary.
func bareLoop(p mdops.Prec, x, y []float64) func(reps int) {
	switch {
	case p.N == 1 && p.Complex == false:
		xs, ys := asElems[mdops.F1](x, 1), asElems[mdops.F1](y, 1)
		return func(reps int) {
			var acc mdops.F1
			for range reps {
				for i := range xs {
					acc = acc.MulAdd(xs[i], ys[i])
				}
			}
			bareSink = *(*float64)(unsafe.Pointer(&acc))
		}
	case p.N == 2 && p.Complex == false:
		xs, ys := asElems[mdops.F2](x, 2), asElems[mdops.F2](y, 2)
		return func(reps int) {
			var acc mdops.F2
			for range reps {
				for i := range xs {
					acc = acc.MulAdd(xs[i], ys[i])
				}
			}
			bareSink = *(*float64)(unsafe.Pointer(&acc))
		}
	case p.N == 4 && p.Complex == false:
		xs, ys := asElems[mdops.F4](x, 4), asElems[mdops.F4](y, 4)
		return func(reps int) {
			var acc mdops.F4
			for range reps {
				for i := range xs {
					acc = acc.MulAdd(xs[i], ys[i])
				}
			}
			bareSink = *(*float64)(unsafe.Pointer(&acc))
		}
	case p.N == 8 && p.Complex == false:
		xs, ys := asElems[mdops.F8](x, 8), asElems[mdops.F8](y, 8)
		return func(reps int) {
			var acc mdops.F8
			for range reps {
				for i := range xs {
					acc = acc.MulAdd(xs[i], ys[i])
				}
			}
			bareSink = *(*float64)(unsafe.Pointer(&acc))
		}
	case p.N == 1 && p.Complex == true:
		xs, ys := asElems[mdops.C1](x, 2), asElems[mdops.C1](y, 2)
		return func(reps int) {
			var acc mdops.C1
			for range reps {
				for i := range xs {
					acc = acc.MulAdd(xs[i], ys[i])
				}
			}
			bareSink = *(*float64)(unsafe.Pointer(&acc))
		}
	case p.N == 2 && p.Complex == true:
		xs, ys := asElems[mdops.C2](x, 4), asElems[mdops.C2](y, 4)
		return func(reps int) {
			var acc mdops.C2
			for range reps {
				for i := range xs {
					acc = acc.MulAdd(xs[i], ys[i])
				}
			}
			bareSink = *(*float64)(unsafe.Pointer(&acc))
		}
	case p.N == 4 && p.Complex == true:
		xs, ys := asElems[mdops.C4](x, 8), asElems[mdops.C4](y, 8)
		return func(reps int) {
			var acc mdops.C4
			for range reps {
				for i := range xs {
					acc = acc.MulAdd(xs[i], ys[i])
				}
			}
			bareSink = *(*float64)(unsafe.Pointer(&acc))
		}
	case p.N == 8 && p.Complex == true:
		xs, ys := asElems[mdops.C8](x, 16), asElems[mdops.C8](y, 16)
		return func(reps int) {
			var acc mdops.C8
			for range reps {
				for i := range xs {
					acc = acc.MulAdd(xs[i], ys[i])
				}
			}
			bareSink = *(*float64)(unsafe.Pointer(&acc))
		}
	}
	return nil
}

// asElems reinterprets v (w float64s per element) as a []T.
func asElems[T any](v []float64, w int) []T {
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(v))), len(v)/w)
}

// NewtonStepRow is one line of the Newton step table.
type NewtonStepRow struct {
	System  string
	Prec    mdops.Prec
	Seconds float64 // one step
	Ops     float64 // counted double operations of the step
	Rate    float64 // Ops / Seconds
	Bare    float64 // the bare loop's double operations per second
}

// NewtonSteps measures one Newton step of each system (family names:
// cyclic7, katsura6, noon5) at each precision, complex data, one worker,
// for about dur each: rounds of a few milliseconds of steps alternate with
// rounds of the bare loop, and the fastest round of each counts (on a
// shared machine the other tenants only ever slow a round down).
func NewtonSteps(systems []string, precs []int, dur time.Duration) ([]NewtonStepRow, error) {
	const round = 5 * time.Millisecond
	var rows []NewtonStepRow
	for _, sys := range systems {
		for _, n := range precs {
			p := mdops.Prec{N: n, Complex: true}
			st, err := NewStepBench(sys+":newton", p, 1)
			if err != nil {
				return nil, err
			}
			if err := st.Step(); err != nil { // warm up
				st.Close()
				return nil, err
			}
			best, bare := math.Inf(1), 0.0
			for t0 := time.Now(); time.Since(t0) < dur || math.IsInf(best, 1); {
				reps := 0
				r0 := time.Now()
				for reps < 1 || time.Since(r0) < round {
					if err := st.Step(); err != nil {
						st.Close()
						return nil, err
					}
					reps++
				}
				best = min(best, time.Since(r0).Seconds()/float64(reps))
				bare = max(bare, BareMulAddRate(p, round))
			}
			st.Close()
			rows = append(rows, NewtonStepRow{System: sys, Prec: p, Seconds: best, Ops: st.Ops, Rate: st.Ops / best, Bare: bare})
		}
	}
	return rows, nil
}

// WriteNewtonSteps writes the table: one step's time, its counted double
// operations, their rate and its percentage of the bare loop's rate.
func WriteNewtonSteps(w io.Writer, rows []NewtonStepRow) {
	fmt.Fprintf(w, "%-10s %-12s %10s %10s %10s %10s %7s\n", "system", "precision", "ms/step", "ops/step", "Gflop/s", "bare", "%bare")
	for _, r := range rows {
		fmt.Fprintf(w, "%-10s %-12s %10.4f %10.3g %10.3g %10.3g %6.1f%%\n", r.System, r.Prec, r.Seconds*1e3, r.Ops, r.Rate/1e9, r.Bare/1e9, 100*r.Rate/r.Bare)
	}
}
