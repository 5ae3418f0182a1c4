package lockstep

import (
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
)

// SolveDevice makes the batched solvers of a device that runs whole
// Newton solves of many paths at once (runtime/gpu's BatchNewton: one
// launch, a block per path): NewDeviceSolves' executor hands it each
// group of solves.
type SolveDevice interface {
	// NewSolver prepares the solves of one configuration for up to
	// paths paths: the plans of the driver's working degrees (by
	// degree), the precision, the Settings its solves share (RefineTol
	// is each solve's own), the unknowns' names, and the coefficient
	// slots of each degree's plan that a solve sets (coefSlots[w]), to
	// series of at most ck coefficients (the rest zero). pc, when not
	// nil, are coefficients that the device computes from each path's
	// parameter (backend.ParamCoefs.Series, bit for bit): their slots
	// are among coefSlots, and Solve asks no value of them.
	NewSolver(plans map[int]*stager.Plan, prec mdops.Prec, set newton.Settings, vars []string,
		coefSlots map[int][]stager.Slot, ck, paths int, pc *backend.ParamCoefs) (DeviceSolver, error)
	// TakesParams tells whether the device computes pc's coefficients
	// (backend.ParamSetter: the recorders take pc only then).
	TakesParams(pc *backend.ParamCoefs) bool
}

// DeviceSolver runs the solves of one configuration.
type DeviceSolver interface {
	// Paths is the most solves of one Solve.
	Paths() int
	// Solve runs one solve per path p: from x0[p], with the coefficient
	// slots of the plan of degree w set to value[p](w, s) (nil: the
	// plan's value), those of the solver's ParamCoefs to theirs at
	// param[p], to the RefineTol tol[p]; it returns each path's Result
	// (its header and X included) and the steps its Progress reports.
	Solve(x0 [][]float64, value []func(w int, s stager.Slot) []float64, param []backend.ParamAt, tol []float64) ([]*newton.Result, [][]newton.StepInfo, error)
	Close() error
}

// DeviceSolves is a SolveExecutor whose groups of whole solves run on a
// SolveDevice, one batched solve a group (or a few, for a group larger
// than the device's batch): each solver's executors only keep the
// coefficient values the tracker sets, and the parameter of those that
// the device computes (backend.ParamSetter; the device evaluates), and
// its back end is the coordinator's whole-solve slot. The results are the
// device's, which must be newton.Driver's on the CPU back end, bit for
// bit (runtime/gpu's BatchNewton is; TestTrackGPU checks the tracker).
// Groups may run at once (Coordinator.Pipeline, Together): each takes a
// device solver of its configuration that no other group holds, made
// when none is free.
//
// A device solver of slots paths that does not fit the device (NewSolver
// refuses it with a TooLargeError) is made for as many as fit, and the
// groups run in batches of that many, which Notify tells once per
// configuration.
type DeviceSolves struct {
	// Notify, when not nil, receives the executor's notices (how its
	// groups are split to fit the device).
	Notify func(msg string)

	dev   SolveDevice
	slots int

	mu      sync.Mutex
	solvers map[solveKey][]*deviceSolver
	fits    map[solveKey]int // the paths of a configuration's solvers, where slots do not fit
}

// solveKey is a configuration of whole solves: the solvers of one
// system, precision and degree with the same Settings (but RefineTol).
type solveKey struct {
	sys    *poly.System
	prec   mdops.Prec
	degree int
	set    newton.Settings
}

type deviceSolver struct {
	s         DeviceSolver
	coefSlots map[int][]stager.Slot
	ck        int
	pc        *backend.ParamCoefs // the coefficients it computes from each path's parameter
	busy      bool                // a group runs on it
}

// NewDeviceSolves returns the executor of dev for slots slots (the most
// solves of a group: the tracker's workers).
func NewDeviceSolves(dev SolveDevice, slots int) *DeviceSolves {
	return &DeviceSolves{dev: dev, slots: max(1, slots), solvers: map[solveKey][]*deviceSolver{}, fits: map[solveKey]int{}}
}

// wholeRecorder is a solver's executor of one working degree under
// DeviceSolves: it keeps the plan and the coefficient values the solver
// sets (SetValue, at every step of a path: a slice indexed by slot, not a
// map); it never runs (the device evaluates).
type wholeRecorder struct {
	plan    *stager.Plan
	prec    mdops.Prec
	slotLen int
	at      []int32       // at[s]: 1 + the index in set and vals of slot s; 0: never set
	set     []stager.Slot // the slots set, in the order first set
	vals    [][]float64
	// ck is the most coefficients (of the precision's width) of a series
	// set so far: coefNeed's, kept as they are set (a group read every
	// series of every path for it, half of that function's time).
	ck int
	// mirror, once not nil, is the recorder of the solver's top degree,
	// whose plan numbers the coefficients as this one's: its series,
	// truncated, are this one's, so this one keeps none (deviceSlot.
	// recorders; a solver sets every coefficient at each of its working
	// degrees, and the copies were a fifth of the GPU tracker's host time).
	mirror *wholeRecorder
	// pc and param: the coefficients the device computes from the
	// parameter, and its value (SetParam: the homotopy's at the path's
	// tau; the device computes their series, which setting them one by
	// one on the host made 45% of the GPU tracker's host time).
	pc    *backend.ParamCoefs
	param backend.ParamAt
	dev   SolveDevice
}

// TakesParams is the device's (backend.ParamSetter).
func (r *wholeRecorder) TakesParams(pc *backend.ParamCoefs) bool { return r.dev.TakesParams(pc) }

// SetParam keeps pc and at (backend.ParamSetter): the device computes the
// series of pc's slots.
func (r *wholeRecorder) SetParam(pc *backend.ParamCoefs, at backend.ParamAt) {
	if r.mirror != nil {
		return // the top degree's recorder keeps them
	}
	r.pc, r.param = pc, at
	if k := min(pc.Len, r.slotLen/r.prec.Width()); k > r.ck {
		r.ck = k
	}
}

// source is the recorder whose series are r's.
func (r *wholeRecorder) source() *wholeRecorder {
	if r.mirror != nil {
		return r.mirror
	}
	return r
}

func (r *wholeRecorder) Plan() *stager.Plan      { return r.plan }
func (r *wholeRecorder) Prec() mdops.Prec        { return r.prec }
func (r *wholeRecorder) SetInput(int, []float64) {}
func (r *wholeRecorder) Close() error            { return nil }
func (r *wholeRecorder) Value(int) []float64     { return nil }
func (r *wholeRecorder) Deriv(int, int) []float64 {
	return nil
}

func (r *wholeRecorder) Run() error {
	return errors.New("lockstep: a solver of whole solves on a device does not evaluate alone")
}

// SetValue keeps series (its first slotLen doubles; zeros after a
// shorter one, as the CPU executor's).
func (r *wholeRecorder) SetValue(s stager.Slot, series []float64) {
	if r.mirror != nil {
		return // the top degree's recorder keeps it
	}
	if int(s) >= len(r.at) {
		r.at = append(r.at, make([]int32, int(s)+1-len(r.at))...)
	}
	i := r.at[s]
	if i == 0 {
		r.set, r.vals = append(r.set, s), append(r.vals, make([]float64, 0, r.slotLen))
		i = int32(len(r.set))
		r.at[s] = i
	}
	v := append(r.vals[i-1][:0], series[:min(len(series), r.slotLen)]...)
	r.vals[i-1] = v
	if W := r.prec.Width(); (len(v)+W-1)/W > r.ck {
		r.ck = (len(v) + W - 1) / W
	}
}

// value is the series set for slot s, nil if none was (a mirror's: the
// top degree's, longer; the device reads as many coefficients as the
// level has).
func (r *wholeRecorder) value(s stager.Slot) []float64 {
	r = r.source()
	if s < 0 || int(s) >= len(r.at) || r.at[s] == 0 {
		return nil
	}
	return r.vals[r.at[s]-1]
}

// NewExecutor makes a recorder.
func (ex *DeviceSolves) NewExecutor(plan *stager.Plan, p mdops.Prec, workers int) (backend.Executor, error) {
	return &wholeRecorder{plan: plan, prec: p, slotLen: backend.Layout{Prec: p, Degree: plan.Degree}.SlotLen(), dev: ex.dev}, nil
}

// deviceSlot is one solver's slot: its configuration and, once resolved,
// its recorders by working degree.
type deviceSlot struct {
	c    backend.NewtonConfig
	recs map[int]*wholeRecorder
	top  *wholeRecorder // the recorder of the top degree (its parameter is the solver's)
}

func (s *deviceSlot) Close() error { return nil }

// recorders returns the slot's recorders of the working degrees of its
// solves.
func (s *deviceSlot) recorders() (map[int]*wholeRecorder, error) {
	if s.recs != nil {
		return s.recs, nil
	}
	recs := map[int]*wholeRecorder{}
	for _, w := range newton.Stagger(s.c.Degree) {
		e, err := s.c.Exec(w)
		if err != nil {
			return nil, err
		}
		r, ok := e.(*wholeRecorder)
		if !ok {
			return nil, fmt.Errorf("lockstep: the executor of degree %d is a %T, not the device's", w, e)
		}
		recs[w] = r
	}
	top := slices.Max(newton.Stagger(s.c.Degree))
	topSlots := recs[top].plan.CoefSlots()
	for w, r := range recs {
		if w != top && r.plan.CoefSlots().Equal(topSlots) {
			r.mirror = recs[top]
		}
	}
	s.recs, s.top = recs, recs[top]
	return recs, nil
}

// Open makes a slot.
func (ex *DeviceSolves) Open(c backend.NewtonConfig) (Slot, error) { return &deviceSlot{c: c}, nil }

// Run refuses calls that are not whole solves (a solver of this executor
// makes none).
func (ex *DeviceSolves) Run(slots []Slot, calls []*Call) {
	for _, c := range calls {
		c.Err = fmt.Errorf("lockstep: the device runs whole solves, not %v", c.Op)
	}
}

// Finish does nothing: RunSolves completes every call.
func (ex *DeviceSolves) Finish(Slot, *Call) {}

// RunAlone runs nothing alone.
func (ex *DeviceSolves) RunAlone(Slot, *Call) bool { return false }

// RunSolves runs a group of whole solves on the device's solver of their
// configuration (made on first use, and again with more coefficient slots,
// longer coefficients or other parametric coefficients when a solve sets
// them), Paths at a time.
func (ex *DeviceSolves) RunSolves(slots []Slot, calls []*SolveCall) {
	fail := func(stage string, err error) {
		be := SolveBatchError(stage, calls, err)
		for _, c := range calls {
			c.Err = be
		}
	}
	first := slots[0].(*deviceSlot)
	key := solveKey{sys: first.c.Sys, prec: first.c.Prec, degree: first.c.Degree, set: calls[0].Settings}
	key.set.RefineTol = 0
	recs := make([]map[int]*wholeRecorder, len(slots))
	for i, s := range slots {
		r, err := s.(*deviceSlot).recorders()
		if err != nil {
			fail("setup", err)
			return
		}
		recs[i] = r
	}
	pc, params, err := paramsOf(slots)
	if err != nil {
		fail("setup", err)
		return
	}
	ds, err := ex.solver(key, first, recs, pc)
	if err != nil {
		fail("setup", err)
		return
	}
	defer ex.release(ds)
	P := ds.s.Paths()
	for lo := 0; lo < len(calls); lo += P {
		hi := min(lo+P, len(calls))
		x0 := make([][]float64, hi-lo)
		values := make([]func(int, stager.Slot) []float64, hi-lo)
		tol := make([]float64, hi-lo)
		for i := lo; i < hi; i++ {
			r := recs[i]
			x0[i-lo] = calls[i].X0
			values[i-lo] = func(w int, s stager.Slot) []float64 { return r[w].value(s) }
			tol[i-lo] = calls[i].Settings.RefineTol
		}
		var ps []backend.ParamAt
		if pc != nil {
			ps = params[lo:hi]
		}
		res, steps, err := ds.s.Solve(x0, values, ps, tol)
		if err != nil {
			fail("solve", err)
			return
		}
		for i := lo; i < hi; i++ {
			r, c := res[i-lo], calls[i]
			h := c.Result
			r.N, r.Complex, r.Degree, r.Vars = h.N, h.Complex, h.Degree, h.Vars
			*c.Result = *r
			c.Steps = append(c.Steps, steps[i-lo]...)
		}
	}
}

// solver returns a free device solver of key for the recorders' slots,
// marked busy: one made before that takes every coefficient slot they set,
// at their lengths; else a new one for those of every solver of key and
// theirs (a free one that falls short is closed). What the group needs is
// worked out before the lock, and a new solver is made after it (device
// memory, pinned buffers, the plan's tables): the groups of a pipeline
// come here at once, and each would wait for the others' work.
func (ex *DeviceSolves) solver(key solveKey, first *deviceSlot, recs []map[int]*wholeRecorder, pc *backend.ParamCoefs) (*deviceSolver, error) {
	need, ck := coefNeed(recs)
	covers := func(ds *deviceSolver) bool {
		if ck > ds.ck || ds.pc != pc {
			return false
		}
		for w, ss := range need {
			for _, s := range ss {
				if _, ok := slices.BinarySearch(ds.coefSlots[w], s); !ok {
					return false
				}
			}
		}
		return true
	}
	ex.mu.Lock()
	pool := ex.solvers[key]
	for _, ds := range pool {
		if !ds.busy && covers(ds) {
			ds.busy = true
			ex.mu.Unlock()
			return ds, nil
		}
	}
	for _, ds := range pool {
		for w, ss := range ds.coefSlots {
			need[w] = append(need[w], ss...)
		}
		ck = max(ck, ds.ck)
	}
	var short []*deviceSolver // free, and short of what the group needs
	kept := pool[:0]
	for _, ds := range pool {
		if ds.busy {
			kept = append(kept, ds)
		} else {
			short = append(short, ds)
		}
	}
	ex.solvers[key] = kept
	paths := ex.slots
	if fit, ok := ex.fits[key]; ok {
		paths = fit
	}
	ex.mu.Unlock()

	if pc != nil {
		// The slots of pc's terms, which the device computes.
		for w, r := range recs[0] {
			for _, s := range pc.Slots(r.plan) {
				if s != stager.NoSlot {
					need[w] = append(need[w], s)
				}
			}
		}
	}
	for w := range need {
		slices.Sort(need[w])
		need[w] = slices.Compact(need[w])
	}
	var errs []error
	for _, ds := range short {
		errs = append(errs, ds.s.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	plans := map[int]*stager.Plan{}
	for w, r := range recs[0] {
		plans[w] = r.plan
	}
	s, err := ex.dev.NewSolver(plans, key.prec, key.set, first.c.Sys.Vars, need, ck, paths, pc)
	var tooLarge *TooLargeError
	for errors.As(err, &tooLarge) && tooLarge.Fit > 0 && tooLarge.Fit < paths {
		ex.mu.Lock()
		_, told := ex.fits[key]
		ex.fits[key] = tooLarge.Fit
		ex.mu.Unlock()
		if ex.Notify != nil && !told {
			ex.Notify(fmt.Sprintf("the batched Newton solves of %s data (degree %d): %d paths at once do not fit, split into batches of %d (%v)",
				key.prec, key.degree, paths, tooLarge.Fit, tooLarge.Err))
		}
		paths = tooLarge.Fit
		s, err = ex.dev.NewSolver(plans, key.prec, key.set, first.c.Sys.Vars, need, ck, paths, pc)
	}
	if err != nil {
		return nil, err
	}
	ds := &deviceSolver{s: s, coefSlots: need, ck: ck, pc: pc, busy: true}
	ex.mu.Lock()
	ex.solvers[key] = append(ex.solvers[key], ds)
	ex.mu.Unlock()
	return ds, nil
}

// paramsOf returns the ParamCoefs that the slots' solvers set (nil:
// none; every one the same, or an error) and each solver's parameter (its
// top degree's recorder's: every degree's is set alike).
func paramsOf(slots []Slot) (*backend.ParamCoefs, []backend.ParamAt, error) {
	var pc *backend.ParamCoefs
	at := make([]backend.ParamAt, len(slots))
	for i, s := range slots {
		rec := s.(*deviceSlot).top
		if i == 0 {
			pc = rec.pc
		} else if rec.pc != pc {
			return nil, nil, errors.New("lockstep: the solves of a group set different parametric coefficients")
		}
		at[i] = rec.param
	}
	return pc, at, nil
}

// coefNeed returns the coefficient slots the recorders set, by working
// degree (sorted, each once), and the most coefficients (of the width of
// their precision) of the series they ever set (a solver for longer ones
// is as good: the rest are zeros). Recorders that set the slots of the one before, in the
// same order (a tracker's paths do), cost a comparison each.
func coefNeed(recs []map[int]*wholeRecorder) (map[int][]stager.Slot, int) {
	need := map[int][]stager.Slot{}
	prev := map[int][]stager.Slot{}
	ck := 1
	for _, r := range recs {
		for w, rec := range r {
			rec = rec.source()
			ck = max(ck, rec.ck)
			if p, ok := prev[w]; ok && slices.Equal(p, rec.set) {
				continue
			}
			prev[w] = rec.set
			need[w] = append(need[w], rec.set...)
		}
	}
	for w := range need {
		slices.Sort(need[w])
		need[w] = slices.Compact(need[w])
	}
	return need, ck
}

// release frees ds for the next group.
func (ex *DeviceSolves) release(ds *deviceSolver) {
	ex.mu.Lock()
	ds.busy = false
	ex.mu.Unlock()
}

// Close closes the device's solvers.
func (ex *DeviceSolves) Close() error {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	var errs []error
	for k, pool := range ex.solvers {
		for _, ds := range pool {
			errs = append(errs, ds.s.Close())
		}
		delete(ex.solvers, k)
	}
	return errors.Join(errs...)
}
