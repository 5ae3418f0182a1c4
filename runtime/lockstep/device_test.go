package lockstep

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/internal/par"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/runtime/track"
	"github.com/mdgen/mdgen/stager"
)

// hostSolveDevice is a SolveDevice on the host: each solve runs
// newton.Driver on a CPU back end whose executors (one per working
// degree, made from the solver's plans) get the coefficient values that
// DeviceSolves hands over. It stands for the GPU's BatchNewton, so that
// DeviceSolves' own work (the recorders, the configurations, the
// coefficient slots and their growth, the Results) is checked without a
// GPU; maxPaths small makes DeviceSolves split its groups.
type hostSolveDevice struct {
	maxPaths int
	// fit, when positive, refuses a solver of more paths with a
	// TooLargeError, as a device without the memory does.
	fit int
}

type hostSolver struct {
	plans     map[int]*stager.Plan
	prec      mdops.Prec
	set       newton.Settings
	vars      []string
	coefSlots map[int][]stager.Slot
	paths     int
	pc        *backend.ParamCoefs
}

func (h hostSolveDevice) NewSolver(plans map[int]*stager.Plan, p mdops.Prec, set newton.Settings, vars []string,
	coefSlots map[int][]stager.Slot, ck, paths int, pc *backend.ParamCoefs) (DeviceSolver, error) {
	if h.fit > 0 && paths > h.fit {
		return nil, &TooLargeError{Paths: paths, Fit: h.fit, Err: errors.New("not enough free memory (the test's)")}
	}
	if h.maxPaths > 0 {
		paths = min(paths, h.maxPaths)
	}
	return &hostSolver{plans: plans, prec: p, set: set, vars: vars, coefSlots: coefSlots, paths: paths, pc: pc}, nil
}

// TakesParams: the host device computes any (ParamCoefs.Series).
func (h hostSolveDevice) TakesParams(*backend.ParamCoefs) bool { return true }

func (s *hostSolver) Paths() int   { return s.paths }
func (s *hostSolver) Close() error { return nil }

func (s *hostSolver) Solve(x0 [][]float64, value []func(int, stager.Slot) []float64, param []backend.ParamAt, tol []float64) ([]*newton.Result, [][]newton.StepInfo, error) {
	if len(x0) > s.paths {
		return nil, nil, fmt.Errorf("%d solves for %d paths", len(x0), s.paths)
	}
	if (s.pc != nil) != (param != nil) || param != nil && len(param) != len(x0) {
		return nil, nil, fmt.Errorf("%d parameters for %d solves (parametric coefficients: %v)", len(param), len(x0), s.pc != nil)
	}
	res := make([]*newton.Result, len(x0))
	steps := make([][]newton.StepInfo, len(x0))
	errs := make([]error, len(x0))
	par.Run(len(x0), func(_, p int) {
		execs := map[int]backend.Executor{}
		for w, plan := range s.plans {
			e, err := cpu.New(plan, s.prec, 1)
			if err != nil {
				errs[p] = err
				return
			}
			isParam := map[stager.Slot]bool{}
			if s.pc != nil {
				// What a device computes from the path's parameter.
				for k, sl := range s.pc.Slots(plan) {
					if sl == stager.NoSlot {
						continue
					}
					if !slices.Contains(s.coefSlots[w], sl) {
						errs[p] = fmt.Errorf("the parametric coefficient %d's slot %d (degree %d) is not among the solver's", k, sl, w)
						return
					}
					v := make([]float64, len(s.pc.Terms[k].Poly))
					s.pc.Series(k, param[p].Tau, param[p].E, v)
					e.SetValue(sl, v)
					isParam[sl] = true
				}
			}
			for _, sl := range s.coefSlots[w] {
				if isParam[sl] {
					continue
				}
				if v := value[p](w, sl); v != nil {
					e.SetValue(sl, v)
				}
			}
			execs[w] = e
		}
		p0 := s.plans[0]
		be, err := cpu.NewNewton(backend.NewtonConfig{Prec: s.prec, Degree: s.set.Degree, Vars: p0.NumVars, Eqs: p0.NumPolys,
			Workers: 1, Exec: func(w int) (backend.Executor, error) { return execs[w], nil }})
		if err != nil {
			errs[p] = err
			return
		}
		set := s.set
		set.RefineTol = tol[p]
		ws := &newton.WholeSolve{X0: x0[p], Settings: set,
			Result: &newton.Result{N: s.prec.N, Complex: s.prec.Complex, Degree: set.Degree, Vars: s.vars}}
		var d newton.Driver
		errs[p] = d.Solve(be, ws)
		res[p], steps[p] = ws.Result, ws.Steps
	})
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return res, steps, nil
}

// TestTrackDeviceSolves: track.Track through DeviceSolves on the host
// device (64 workers; batches of at most 16, so that groups split) gives
// every path's bits of track.Track with 2 workers and no device, on
// TestTrackSolves' cases, one group a round, Together, and Pipeline (4
// groups at once of at most 16 solves, 2 of at most 32, 8 Eager).
func TestTrackDeviceSolves(t *testing.T) {
	for _, c := range trackCases(testing.Short()) {
		t.Run(c.String(), func(t *testing.T) {
			h := homotopy(t, c.family, c.n)
			want, err := track.Track(h, c.options(2), c.first, c.count)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range []struct {
				together bool
				pipeline int
				eager    bool
			}{{false, 0, false}, {true, 0, false}, {false, 4, false}, {true, 2, false}, {false, 8, true}} {
				ex := NewDeviceSolves(hostSolveDevice{maxPaths: 16}, 64)
				co := New(ex)
				co.Together, co.Pipeline, co.Eager = m.together, m.pipeline, m.eager
				got, err := track.Track(h, c.options(64, co), c.first, c.count)
				if err != nil {
					t.Fatal(err)
				}
				if d := samePaths(want, got); d != "" {
					t.Fatalf("%+v: %s", m, d)
				}
				if err := ex.Close(); err != nil {
					t.Fatal(err)
				}
				st := co.Stats()
				if m.pipeline > 0 && st.Rounds != st.Groups {
					t.Errorf("%+v: %d rounds for %d groups: a pipelined group is a round", m, st.Rounds, st.Groups)
				}
				t.Logf("%+v: %d paths, %d solves in %d groups, %d rounds", m, len(got.Paths), st.Calls, st.Groups, st.Rounds)
			}
		})
	}
}

// TestDeviceSolvesSplit: a device that fits 5 paths at once (of 64
// workers' groups) gets solvers of 5 paths; the groups run in batches of
// 5, Notify says so once per configuration, and every path's bits are
// the CPU tracker's, with rounds and pipelined.
func TestDeviceSolvesSplit(t *testing.T) {
	c := trackCase{family: "katsura", n: 4, prec: 2}
	h := homotopy(t, c.family, c.n)
	want, err := track.Track(h, c.options(2), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, pipeline := range []int{0, 4} {
		ex := NewDeviceSolves(hostSolveDevice{fit: 5}, 64)
		var notes []string
		ex.Notify = func(msg string) { notes = append(notes, msg) }
		co := New(ex)
		co.Together, co.Pipeline = true, pipeline
		got, err := track.Track(h, c.options(64, co), 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d := samePaths(want, got); d != "" {
			t.Fatalf("pipeline %d: %s", pipeline, d)
		}
		if len(notes) == 0 || len(notes) != len(ex.fits) {
			t.Errorf("pipeline %d: %d notices for %d configurations split: %q", pipeline, len(notes), len(ex.fits), notes)
		}
		for _, n := range notes {
			if !strings.Contains(n, "split into batches of 5") {
				t.Errorf("pipeline %d: notice %q", pipeline, n)
			}
		}
		for k, pool := range ex.solvers {
			for _, ds := range pool {
				if p := ds.s.Paths(); p != 5 {
					t.Errorf("pipeline %d: a solver of %v holds %d paths, want 5", pipeline, k.prec, p)
				}
			}
		}
		if err := ex.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPipelineEdges: pipelined groups with one worker, with fewer workers
// than groups at once, one group at a time, and Eager, give the CPU
// tracker's bits (and end: no worker waits for a group that never starts).
func TestPipelineEdges(t *testing.T) {
	c := trackCase{family: "noon", n: 3, prec: 2}
	h := homotopy(t, c.family, c.n)
	want, err := track.Track(h, c.options(2), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 5, 27} {
		for _, pipeline := range []int{1, 3, 100, -3} {
			ex := NewDeviceSolves(hostSolveDevice{maxPaths: 4}, workers)
			co := New(ex)
			co.Pipeline, co.Eager = max(pipeline, -pipeline), pipeline < 0 // -3: 3 at once, Eager
			got, err := track.Track(h, c.options(workers, co), 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if d := samePaths(want, got); d != "" {
				t.Fatalf("%d workers, pipeline %d: %s", workers, pipeline, d)
			}
			if err := ex.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCoefNeed: coefNeed gathers the slots the recorders set, by working
// degree, sorted and each once (a mirror's are its source's), and the
// most coefficients of any series a recorder ever set: a later shorter
// series does not shrink it (a solver for longer series serves, the rest
// zeros), a longer one in another path raises it.
func TestCoefNeed(t *testing.T) {
	p := mdops.Prec{N: 2, Complex: true}
	W := p.Width()
	rec := func() *wholeRecorder { return &wholeRecorder{prec: p, slotLen: 4 * W} }
	series := func(k int) []float64 { return make([]float64, k*W) }
	a, b, top := rec(), rec(), rec()
	a.SetValue(7, series(2))
	a.SetValue(3, series(1))
	a.SetValue(7, series(1)) // shorter later: ck stays 2
	b.SetValue(3, series(1))
	b.SetValue(9, series(3))
	top.SetValue(5, series(2))
	mirror := &wholeRecorder{prec: p, slotLen: 2 * W, mirror: top}
	mirror.SetValue(11, series(4)) // kept by top, not by the mirror
	need, ck := coefNeed([]map[int]*wholeRecorder{{0: a, 2: mirror}, {0: b, 2: mirror}})
	if ck != 3 {
		t.Errorf("ck = %d, want 3", ck)
	}
	if got := fmt.Sprint(need[0], need[2]); got != "[3 7 9] [5]" {
		t.Errorf("slots by degree: %s, want [3 7 9] [5]", got)
	}
	if _, ck := coefNeed([]map[int]*wholeRecorder{{0: a}}); ck != 2 {
		t.Errorf("path a alone: ck = %d, want 2 (its longest series, set before a shorter one)", ck)
	}
	if v := a.value(7); len(v) != W {
		t.Errorf("slot 7 of path a holds %d doubles, want its last series' %d", len(v), W)
	}
	if mirror.value(5) == nil || mirror.value(11) != nil {
		t.Errorf("the mirror reads its source's series")
	}
}
