package lockstep

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/cpu"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
)

// Evaluator evaluates and differentiates one staged plan for many paths
// at once, each path with its own inputs and coefficient values, each
// path's outputs the CPU executor's on its data, bit for bit: runtime/gpu's
// Batch (the layouts of backend.Layout; Value and Deriv valid after
// Download until the next run).
type Evaluator interface {
	// SetPaths calls set(i, input, value) for every paths[i], concurrently
	// for different i: input(v, series) sets input v of that path,
	// value(s, series) its read-only slot s (gpu.Batch's SetInput and
	// SetValue).
	SetPaths(paths []int, set func(i int, input func(v int, series []float64), value func(s stager.Slot, series []float64)))
	// RunFirst evaluates the paths 0..n-1 (the others' outputs are not
	// read): Batched packs a group's slots at the front, so that a small
	// group moves and computes little.
	RunFirst(n int) error
	Download() error
	Value(p, i int, dst []float64) []float64
	Deriv(p, poly, v int, dst []float64) []float64
	Close() error
}

// NewEvaluator makes an Evaluator of plan at precision p for paths paths.
type NewEvaluator func(plan *stager.Plan, p mdops.Prec, paths int) (Evaluator, error)

// Batched is the executor whose evaluations are batched: every group of
// Evaluate calls is one Run of an Evaluator (one per solver
// configuration, working degree and chunk of slots, made on first use),
// and the rest of Newton's work runs on the host with runtime/cpu's Newton
// back end, which reads the evaluator's outputs: each worker runs it for
// its own solvers at once (RunAlone), without waiting for a group, and
// reads its slot's outputs of a group's evaluation itself (Finish). Each
// slot's bits are the CPU back end's with the CPU executor. The solvers' executors (NewExecutor) only record the
// coefficient values the solver sets, uploaded to the evaluator before
// the slot's next evaluation.
//
// A batch that does not fit on the device (the evaluator's error is a
// TooLargeError) is split: the executor makes the evaluator of as many
// paths as fit and runs a group in batches of that many, each slot's
// outputs kept on the host until Finish; Notify says so once per
// precision, degree and working degree. A failed evaluation gives each
// slot of the group a BatchError and drops the evaluator (the next group
// makes a new one), so the executor goes on.
type Batched struct {
	// Notify, when not nil, receives the executor's notices (how a batch
	// was split), from the goroutine of a group's run.
	Notify func(msg string)

	newEval NewEvaluator
	slots   int

	mu      sync.Mutex // Open and Close beside a running group
	configs map[config][]*chunk
	fits    map[fitKey]int     // the paths of an evaluator that fit, where fewer than slots
	noticed map[noticeKey]bool // the splits told
	times   BatchedTimes
}

// fitKey is a configuration's evaluators of one working degree.
type fitKey struct {
	cfg config
	w   int
}

// noticeKey is the solvers' precision and degree and the working degree
// of a split that Notify told (the same for every system: the homotopy's,
// the target's).
type noticeKey struct {
	prec      mdops.Prec
	degree, w int
}

// BatchedTimes split the wall time of Batched's runs.
type BatchedTimes struct {
	Set, Eval, Download time.Duration
}

// Times returns the split of the runs' wall time so far.
func (ex *Batched) Times() BatchedTimes {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	return ex.times
}

// NewBatched returns the executor of evaluators newEval makes, with
// slots paths each (a configuration with more solvers gets more chunks of
// slots).
func NewBatched(newEval NewEvaluator, slots int) *Batched {
	return &Batched{newEval: newEval, slots: max(slots, 1), configs: map[config][]*chunk{}, fits: map[fitKey]int{},
		noticed: map[noticeKey]bool{}}
}

// chunk is up to Batched.slots solvers of one configuration. The g
// solvers of a chunk in a group take the paths 0..g-1 of its evaluator of
// the working degree (RunFirst), each the path it had the last time where
// it can (its coefficient values are there already). A chunk takes no
// more solvers once it has had Batched.slots (the tracker's solvers close
// with their worker), and a chunk whose solvers have all closed is freed.
type chunk struct {
	evals map[int]*evaluator // by working degree
	next  int                // the solvers opened
	open  int                // the solvers not closed
}

// evaluator is an Evaluator and whose coefficient values its paths hold
// (a path whose owner changes gets the new owner's values, and the plan's
// for the slots that only the old owner set).
type evaluator struct {
	Evaluator
	owner    []*recorder // by path: whose values were uploaded there last
	defaults map[stager.Slot][]float64
}

// paths is the evaluator's number of paths (fewer than the chunk's
// slots where the batch was split).
func (ev *evaluator) paths() int { return len(ev.owner) }

// NewExecutor returns a recorder of the coefficient values.
func (ex *Batched) NewExecutor(plan *stager.Plan, p mdops.Prec, workers int) (backend.Executor, error) {
	return &recorder{plan: plan, prec: p, slotLen: backend.Layout{Prec: p, Degree: plan.Degree}.SlotLen(),
		values: make([][]float64, plan.NumSlots()), pos: -1}, nil
}

// Open binds the solver's recorders to a slot of a chunk and makes the
// CPU back end that reads the evaluators' outputs.
func (ex *Batched) Open(c backend.NewtonConfig) (Slot, error) {
	s := &batchSlot{ex: ex, c: c, recs: map[int]*recorder{}}
	for _, w := range newton.Stagger(c.Degree) {
		e, err := c.Exec(w)
		if err != nil {
			return nil, err
		}
		r, ok := e.(*recorder)
		if !ok {
			return nil, fmt.Errorf("lockstep: the solver's executor (%T) is not the batched executor's: newton.Options.NewExecutor must be its NewExecutor", e)
		}
		s.recs[w] = r
	}
	own := c
	own.Exec = func(w int) (backend.Executor, error) {
		if r, ok := s.recs[w]; ok {
			return r, nil
		}
		return nil, fmt.Errorf("lockstep: no executor of working degree %d", w)
	}
	nt, err := cpu.NewNewton(own)
	if err != nil {
		return nil, err
	}
	s.nt = nt
	W := c.Prec.Width()
	s.outs = make([][]float64, c.Eqs*(1+c.Vars))
	for i := range s.outs {
		s.outs[i] = make([]float64, (c.Degree+1)*W)
	}
	for _, r := range s.recs {
		r.slot = s
	}

	ex.mu.Lock()
	defer ex.mu.Unlock()
	key := config{sys: c.Sys, prec: c.Prec, degree: c.Degree}
	chunks := ex.configs[key]
	if len(chunks) == 0 || chunks[len(chunks)-1].next == ex.slots {
		chunks = append(chunks, &chunk{evals: map[int]*evaluator{}})
		ex.configs[key] = chunks
	}
	s.key, s.ch = key, chunks[len(chunks)-1]
	s.ch.next++
	s.ch.open++
	return s, nil
}

// RunAlone runs every call but Evaluate at once on the slot's CPU back
// end: only the evaluations are batched.
func (ex *Batched) RunAlone(s Slot, c *Call) bool {
	if c.Op == OpEvaluate {
		return false
	}
	Apply(s.(*batchSlot).nt, c)
	return true
}

// Run runs a group of evaluations: the evaluators; each slot's CPU back
// end reads their outputs in Finish.
// Groups of different evaluators may run at once (Coordinator.Together):
// ex.mu guards the executor's maps, not the evaluations.
func (ex *Batched) Run(slots []Slot, calls []*Call) {
	ready := make([]bool, len(slots))
	ex.evaluate(slots, calls, ready)
	for i, s := range slots {
		s.(*batchSlot).evaluated = ready[i]
	}
}

// Finish runs the slot's CPU back end on the outputs of its evaluation
// (they stay until every worker of the group has blocked again).
func (ex *Batched) Finish(s Slot, c *Call) {
	if b := s.(*batchSlot); b.evaluated {
		b.evaluated = false
		Apply(b.nt, c)
	}
}

// evaluate runs the evaluator of each chunk of the group at the slots'
// x (the CPU back end's, which Evaluate would give its executor) and
// coefficients; ready[i] tells that slot i's outputs are there (else its
// call has the error).
func (ex *Batched) evaluate(slots []Slot, calls []*Call, ready []bool) {
	w := calls[0].W
	byChunk := map[*chunk][]int{}
	var order []*chunk
	for i, sl := range slots {
		ch := sl.(*batchSlot).ch
		if _, ok := byChunk[ch]; !ok {
			order = append(order, ch)
		}
		byChunk[ch] = append(byChunk[ch], i)
	}
	for _, ch := range order {
		idx := byChunk[ch]
		err := ex.evaluateChunk(ch, w, slots, calls, idx)
		for _, i := range idx {
			if err != nil {
				calls[i].Err = err
			} else {
				ready[i] = true
			}
		}
	}
}

func (ex *Batched) evaluateChunk(ch *chunk, w int, slots []Slot, calls []*Call, idx []int) error {
	first := slots[idx[0]].(*batchSlot)
	batchErr := func(stage string, err error) error {
		paths := make([]int64, len(idx))
		for j, i := range idx {
			paths[j] = calls[i].Path
		}
		slices.Sort(paths)
		return &BatchError{Stage: stage, W: w, Degree: first.c.Degree, Prec: first.c.Prec, Paths: paths, Err: err}
	}
	ex.mu.Lock()
	ev, ok := ch.evals[w]
	if !ok {
		var err error
		if ev, err = ex.newEvaluator(first, w); err != nil {
			ex.mu.Unlock()
			return batchErr("prepare", err)
		}
		ch.evals[w] = ev
	}
	ex.mu.Unlock()
	split := len(idx) > ev.paths()
	for lo := 0; lo < len(idx); lo += ev.paths() {
		piece := idx[lo:min(lo+ev.paths(), len(idx))]
		stage, err := ex.evaluatePiece(ev, w, slots, piece)
		if err != nil {
			if stage == "" {
				return err // the host's: the CPU back end's x
			}
			// The evaluator's state is unknown: the next group makes a
			// new one.
			ex.mu.Lock()
			delete(ch.evals, w)
			ex.mu.Unlock()
			return batchErr(stage, errors.Join(err, ev.Close()))
		}
		for _, i := range piece {
			s := slots[i].(*batchSlot)
			s.kept, s.ev = split, ev
			if split {
				s.recs[w].copyOutputs(ev)
			}
		}
	}
	return nil
}

// newEvaluator makes the evaluator of s's configuration at working degree
// w: of Batched.slots paths, or as many as fit (TooLargeError), saying
// how the batch is split the first time.
func (ex *Batched) newEvaluator(s *batchSlot, w int) (*evaluator, error) {
	plan, p := s.recs[w].plan, s.c.Prec
	key := fitKey{cfg: s.key, w: w}
	paths := ex.slots
	if fit, ok := ex.fits[key]; ok {
		paths = fit
	}
	e, err := ex.newEval(plan, p, paths)
	var tooLarge *TooLargeError
	for errors.As(err, &tooLarge) && tooLarge.Fit > 0 && tooLarge.Fit < paths {
		if nk := (noticeKey{prec: p, degree: s.c.Degree, w: w}); ex.Notify != nil && !ex.noticed[nk] {
			ex.noticed[nk] = true
			ex.Notify(fmt.Sprintf("the batched evaluation of %s data at working degree %d (solvers of degree %d): %d paths at once do not fit, split into batches of %d (%v)",
				p, w, s.c.Degree, paths, tooLarge.Fit, tooLarge.Err))
		}
		paths = tooLarge.Fit
		ex.fits[key] = paths
		e, err = ex.newEval(plan, p, paths)
	}
	if err != nil {
		return nil, err
	}
	ev := &evaluator{Evaluator: e, owner: make([]*recorder, paths), defaults: map[stager.Slot][]float64{}}
	var mu sync.Mutex
	err = backend.RoundValues(plan, 0, plan.NumSlots(), backend.Layout{Prec: p, Degree: plan.Degree}, 0, func(s stager.Slot, series []float64) {
		mu.Lock()
		ev.defaults[s] = slices.Clone(series)
		mu.Unlock()
	})
	if err != nil {
		return nil, errors.Join(err, e.Close())
	}
	return ev, nil
}

// evaluatePiece evaluates the slots idx (at most the evaluator's paths)
// and returns the stage that failed ("" for an error of the host).
func (ex *Batched) evaluatePiece(ev *evaluator, w int, slots []Slot, idx []int) (string, error) {
	recs := make([]*recorder, len(idx))
	for j, i := range idx {
		recs[j] = slots[i].(*batchSlot).recs[w]
	}
	paths := ev.place(recs)
	errs := make([]error, len(idx))
	t0 := time.Now()
	ev.SetPaths(paths, func(j int, input func(int, []float64), value func(stager.Slot, []float64)) {
		s := slots[idx[j]].(*batchSlot)
		x, err := s.nt.X()
		if err != nil {
			errs[j] = err
			return
		}
		d, W := s.c.Degree, s.c.Prec.Width()
		for v := 0; v < s.c.Vars; v++ {
			off := v * (d + 1) * W
			input(v, x[off:off+(w+1)*W])
		}
		r, p := recs[j], paths[j]
		if old := ev.owner[p]; old != r || r.pos != p || r.dirty {
			if old != nil && old != r {
				for _, sl := range old.set { // values r does not set: the plan's
					if r.values[sl] == nil {
						value(sl, ev.defaults[sl])
					}
				}
			}
			for _, sl := range r.set {
				value(sl, r.values[sl])
			}
			ev.owner[p], r.pos, r.dirty = r, p, false
		}
	})
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	t1 := time.Now()
	if err := ev.RunFirst(len(idx)); err != nil {
		return "evaluate", err
	}
	t2 := time.Now()
	if err := ev.Download(); err != nil {
		return "download", err
	}
	t3 := time.Now()
	ex.mu.Lock()
	ex.times.Set += t1.Sub(t0)
	ex.times.Eval += t2.Sub(t1)
	ex.times.Download += t3.Sub(t2)
	ex.mu.Unlock()
	return "", nil
}

// place returns the paths 0..len(recs)-1 of the evaluator, one for each
// recorder: the one it had last where it can (its coefficient values are
// there), the free ones in order for the others.
func (ev *evaluator) place(recs []*recorder) []int {
	g := len(recs)
	paths := make([]int, g)
	taken := make([]bool, g)
	for j, r := range recs {
		paths[j] = -1
		if p := r.pos; p >= 0 && p < g && ev.owner[p] == r && !taken[p] {
			paths[j], taken[p] = p, true
		}
	}
	free := 0
	for j := range paths {
		if paths[j] >= 0 {
			continue
		}
		for taken[free] {
			free++
		}
		paths[j], taken[free] = free, true
	}
	return paths
}

// Close frees the evaluators.
func (ex *Batched) Close() error {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	var errs []error
	for key, chunks := range ex.configs {
		for _, ch := range chunks {
			errs = append(errs, ch.close())
		}
		delete(ex.configs, key)
	}
	return errors.Join(errs...)
}

func (ch *chunk) close() error {
	var errs []error
	for w, ev := range ch.evals {
		errs = append(errs, ev.Close())
		delete(ch.evals, w)
	}
	return errors.Join(errs...)
}

// batchSlot is one solver in a chunk.
type batchSlot struct {
	ex   *Batched
	c    backend.NewtonConfig
	key  config
	ch   *chunk
	nt   *cpu.Newton
	recs map[int]*recorder // the solver's executors, by working degree
	// outs are the outputs of the last evaluation: the m values, then the
	// m x n derivatives column-major, (d+1)·W doubles each.
	outs [][]float64
	// evaluated: the group ran the slot's evaluation; Finish reads it.
	evaluated bool
	// kept: the outputs of the last evaluation are in outs already (a
	// split batch: the evaluator went on to the next batch).
	kept bool
	// ev is the evaluator of the last evaluation (set by the group's
	// run: a round's other groups may add evaluators to the chunk's map
	// while the worker reads its outputs).
	ev *evaluator
}

func (s *batchSlot) Close() error {
	ex := s.ex
	ex.mu.Lock()
	defer ex.mu.Unlock()
	s.ch.open--
	if s.ch.open > 0 {
		return nil
	}
	chunks := ex.configs[s.key]
	for i, ch := range chunks {
		if ch == s.ch {
			ex.configs[s.key] = append(chunks[:i:i], chunks[i+1:]...)
			break
		}
	}
	if len(ex.configs[s.key]) == 0 {
		delete(ex.configs, s.key)
	}
	return s.ch.close()
}

// recorder is a solver's executor of one working degree under Batched:
// it keeps the coefficient values the solver sets (uploaded to the
// evaluator before the next evaluation), and serves the CPU back end the
// evaluator's outputs of its slot (its inputs were uploaded from the back
// end's x, which SetInput would give): Run copies them out of the
// evaluator into the slot's outputs, whose slices Value and Deriv return
// (cpu.StableOutputs: the back end looks them up once).
type recorder struct {
	plan    *stager.Plan
	prec    mdops.Prec
	slotLen int
	// values[s] is the series set for slot s (nil: none); set lists
	// those slots in the order of their first SetValue.
	values [][]float64
	set    []stager.Slot
	dirty  bool
	slot   *batchSlot // bound by Open
	pos    int        // the evaluator's path of the last evaluation (-1: none yet)
	// derivs lists the derivatives the plan has (i + v·m, the index of
	// the slot's outputs less m), worked out on the first Run.
	derivs []int
}

func (r *recorder) Plan() *stager.Plan      { return r.plan }
func (r *recorder) Prec() mdops.Prec        { return r.prec }
func (r *recorder) SetInput(int, []float64) {}
func (r *recorder) Close() error            { return nil }
func (r *recorder) StableOutputs()          {}

// Run copies the slot's outputs of its evaluation (Batched.Run ran the
// evaluator for the group) out of the evaluator, unless evaluateChunk
// did (a split batch).
func (r *recorder) Run() error {
	s := r.slot
	if s == nil {
		return errors.New("lockstep: a batched solver's executor runs only through its batch")
	}
	if !s.kept {
		r.copyOutputs(s.ev)
	}
	return nil
}

// copyOutputs copies the slot's outputs of its evaluation out of ev: the
// values, and the derivatives the plan has (the CPU back end reads no
// other).
func (r *recorder) copyOutputs(ev Evaluator) {
	s := r.slot
	m := s.c.Eqs
	if r.derivs == nil {
		r.derivs = make([]int, 0, m*s.c.Vars)
		for v := range s.c.Vars {
			for i := range m {
				if r.plan.DerivSlot(i, v) != stager.NoSlot {
					r.derivs = append(r.derivs, i+v*m)
				}
			}
		}
	}
	for i := range m {
		ev.Value(r.pos, i, s.outs[i][:r.slotLen])
	}
	for _, j := range r.derivs {
		ev.Deriv(r.pos, j%m, j/m, s.outs[m+j][:r.slotLen])
	}
}

func (r *recorder) Value(i int) []float64 { return r.slot.outs[i][:r.slotLen] }

func (r *recorder) Deriv(i, v int) []float64 {
	return r.slot.outs[r.slot.c.Eqs+i+v*r.slot.c.Eqs][:r.slotLen]
}

// SetValue keeps series (its first slotLen doubles, zeros after a shorter
// one) for slot s: as long as it is, so that the evaluator moves no more
// (a tracker's coefficients are short series).
func (r *recorder) SetValue(s stager.Slot, series []float64) {
	buf := r.values[s]
	if buf == nil {
		buf = make([]float64, 0, r.slotLen)
		r.set = append(r.set, s)
	}
	r.values[s] = append(buf[:0], series[:min(len(series), r.slotLen)]...)
	r.dirty = true
}
