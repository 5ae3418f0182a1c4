package lockstep

import (
	"errors"
	"fmt"
	"sync"

	"github.com/mdgen/mdgen/internal/par"
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
// Download until the next Run).
type Evaluator interface {
	// SetPaths calls set(i, input, value) for every paths[i], concurrently
	// for different i: input(v, series) sets input v of that path,
	// value(s, series) its read-only slot s (gpu.Batch's SetInput and
	// SetValue).
	SetPaths(paths []int, set func(i int, input func(v int, series []float64), value func(s stager.Slot, series []float64)))
	Run() error
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
// its own solvers at once (RunAlone), without waiting for a group. Each
// slot's bits are the CPU back end's with the CPU executor. The solvers' executors (NewExecutor) only record the
// coefficient values the solver sets, uploaded to the evaluator before
// the slot's next evaluation.
type Batched struct {
	newEval NewEvaluator
	slots   int

	mu      sync.Mutex // Open and Close beside a running group
	configs map[config][]*chunk
}

// NewBatched returns the executor of evaluators newEval makes, with
// slots paths each (a configuration with more solvers gets more chunks of
// slots).
func NewBatched(newEval NewEvaluator, slots int) *Batched {
	return &Batched{newEval: newEval, slots: max(slots, 1), configs: map[config][]*chunk{}}
}

// chunk is up to Batched.slots solvers of one configuration: slot i of
// each of its evaluators is solver idx i. A slot is never reused: a
// solver that closes leaves its index (the tracker's solvers close with
// their worker), and a chunk whose solvers have all closed is freed.
type chunk struct {
	evals map[int]Evaluator // by working degree
	next  int               // the next free index
	open  int               // the solvers not closed
}

// NewExecutor returns a recorder of the coefficient values.
func (ex *Batched) NewExecutor(plan *stager.Plan, p mdops.Prec, workers int) (backend.Executor, error) {
	return &recorder{plan: plan, prec: p, slotLen: backend.Layout{Prec: p, Degree: plan.Degree}.SlotLen(),
		values: map[stager.Slot][]float64{}}, nil
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
		chunks = append(chunks, &chunk{evals: map[int]Evaluator{}})
		ex.configs[key] = chunks
	}
	s.key, s.ch = key, chunks[len(chunks)-1]
	s.idx = s.ch.next
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

// Run runs a group of evaluations: the evaluators, then the CPU back end
// of each slot on their outputs.
func (ex *Batched) Run(slots []Slot, calls []*Call) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	ready := make([]bool, len(slots))
	ex.evaluate(slots, calls, ready)
	par.Run(len(slots), func(_, i int) {
		if ready[i] {
			Apply(slots[i].(*batchSlot).nt, calls[i])
		}
	})
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
		err := ex.evaluateChunk(ch, w, slots, idx)
		for _, i := range idx {
			if err != nil {
				calls[i].Err = err
			} else {
				ready[i] = true
			}
		}
	}
}

func (ex *Batched) evaluateChunk(ch *chunk, w int, slots []Slot, idx []int) error {
	first := slots[idx[0]].(*batchSlot)
	ev, ok := ch.evals[w]
	if !ok {
		var err error
		if ev, err = ex.newEval(first.recs[w].plan, first.c.Prec, ex.slots); err != nil {
			return fmt.Errorf("lockstep: preparing the batched evaluation at degree %d: %w", w, err)
		}
		ch.evals[w] = ev
	}
	paths := make([]int, len(idx))
	for j, i := range idx {
		paths[j] = slots[i].(*batchSlot).idx
	}
	errs := make([]error, len(idx))
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
		if r := s.recs[w]; r.dirty {
			for sl, series := range r.values {
				value(sl, series)
			}
			r.dirty = false
		}
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := ev.Run(); err != nil {
		return fmt.Errorf("lockstep: the batched evaluation of %d paths at degree %d: %w", len(idx), w, err)
	}
	if err := ev.Download(); err != nil {
		return fmt.Errorf("lockstep: the batched evaluation of %d paths at degree %d: %w", len(idx), w, err)
	}
	return nil
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
	idx  int
	nt   *cpu.Newton
	recs map[int]*recorder // the solver's executors, by working degree
	// outs are the outputs of the last evaluation: the m values, then the
	// m x n derivatives column-major, (d+1)·W doubles each.
	outs [][]float64
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
// end's x, which SetInput would give).
type recorder struct {
	plan    *stager.Plan
	prec    mdops.Prec
	slotLen int
	values  map[stager.Slot][]float64
	dirty   bool
	slot    *batchSlot // bound by Open
}

func (r *recorder) Plan() *stager.Plan      { return r.plan }
func (r *recorder) Prec() mdops.Prec        { return r.prec }
func (r *recorder) SetInput(int, []float64) {}
func (r *recorder) Close() error            { return nil }

// Run checks that the evaluator ran (Batched.Run runs it for the group).
func (r *recorder) Run() error {
	if r.slot == nil {
		return errors.New("lockstep: a batched solver's executor runs only through its batch")
	}
	return nil
}

func (r *recorder) evaluator() Evaluator { return r.slot.ch.evals[r.plan.Degree] }

func (r *recorder) Value(i int) []float64 {
	return r.evaluator().Value(r.slot.idx, i, r.slot.outs[i][:r.slotLen])
}

func (r *recorder) Deriv(i, v int) []float64 {
	m := r.slot.c.Eqs
	return r.evaluator().Deriv(r.slot.idx, i, v, r.slot.outs[m+i+v*m][:r.slotLen])
}

// SetValue keeps series (its first slotLen doubles, zeros after a shorter
// one) for slot s.
func (r *recorder) SetValue(s stager.Slot, series []float64) {
	buf, ok := r.values[s]
	if !ok {
		buf = make([]float64, r.slotLen)
		r.values[s] = buf
	}
	n := copy(buf, series)
	clear(buf[n:])
	r.dirty = true
}
