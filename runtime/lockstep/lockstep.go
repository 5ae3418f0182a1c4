package lockstep

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
	"github.com/mdgen/mdgen/stager/poly"
)

// Op is a method of newton.Backend that goes through the coordinator.
type Op int

const (
	OpReset Op = iota
	OpEvaluate
	OpFactor
	OpMaxAbsX
	OpBlockNorm
	OpSkipBlock
	OpApplyQH
	OpSolveR
	OpFormInverse
	OpSolveBlock
	OpUpdateB
	OpResidual
	OpUpdateX
	OpX
	// OpSolve is a whole solve (newton.WholeSolver): a SolveCall, never
	// a Call; its groups run through SolveExecutor.RunSolves.
	OpSolve
)

var opNames = [...]string{"Reset", "Evaluate", "Factor", "MaxAbsX", "BlockNorm", "SkipBlock", "ApplyQH", "SolveR",
	"FormInverse", "SolveBlock", "UpdateB", "Residual", "UpdateX", "X", "Solve"}

func (o Op) String() string {
	if o >= 0 && int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Call is one Backend call of one slot: the method, its arguments and its
// results. The calls of a group share Op and the arguments K, W, WPrev,
// Jac and Inverse; X0, Skipped and NB are the slot's own.
type Call struct {
	Op           Op
	Path         int64 // the tracker's index of the slot's path (-1: not known); see SolverFor
	K, W, WPrev  int
	Jac, Inverse bool
	X0           []float64 // Reset
	Skipped      []bool    // Residual, UpdateX
	NB           []float64 // Residual

	// F holds the float64 results in the order the method returns them.
	F    [3]float64
	Rank *la.RankError // Factor
	X    []float64     // X
	Err  error
}

// Apply runs c on be, one slot's back end: the one place where a Call
// becomes a Backend method (an executor that keeps a newton.Backend per
// slot routes every operation through it).
func Apply(be newton.Backend, c *Call) {
	switch c.Op {
	case OpReset:
		c.Err = be.Reset(c.X0)
	case OpEvaluate:
		c.F[0], c.F[1], c.Err = be.Evaluate(c.W, c.Jac)
	case OpFactor:
		c.Rank, c.F[0], c.F[1], c.Err = be.Factor(c.Inverse)
	case OpMaxAbsX:
		c.F[0], c.Err = be.MaxAbsX()
	case OpBlockNorm:
		c.F[0], c.Err = be.BlockNorm(c.K)
	case OpSkipBlock:
		c.Err = be.SkipBlock(c.K)
	case OpApplyQH:
		c.Err = be.ApplyQH(c.K)
	case OpSolveR:
		c.Err = be.SolveR(c.K)
	case OpFormInverse:
		c.Err = be.FormInverse()
	case OpSolveBlock:
		c.Err = be.SolveBlock(c.K)
	case OpUpdateB:
		c.Err = be.UpdateB(c.K, c.W)
	case OpResidual:
		c.F[0], c.Err = be.Residual(c.W, c.Skipped, c.NB)
	case OpUpdateX:
		c.F[0], c.F[1], c.F[2], c.Err = be.UpdateX(c.W, c.WPrev, c.Skipped)
	case OpX:
		c.X, c.Err = be.X()
	default:
		c.Err = fmt.Errorf("lockstep: unknown operation %v", c.Op)
	}
}

// Executor does the numeric work of the slots.
type Executor interface {
	// NewExecutor makes the executor of a solver's plan
	// (newton.Options.NewExecutor).
	NewExecutor(plan *stager.Plan, p mdops.Prec, workers int) (backend.Executor, error)
	// Open makes the state of one slot: one solver's back end, of
	// configuration c. It may run while a group runs.
	Open(c backend.NewtonConfig) (Slot, error)
	// Run runs one group: calls[i] for slots[i], every slot of one
	// configuration (the same system, precision and degree), every call
	// of one Op with the same arguments. It fills in each call's results,
	// or leaves the rest of a call to Finish.
	Run(slots []Slot, calls []*Call)
	// Finish completes c on s, in the caller's goroutine, after the group
	// of c ran: the work of each slot alone that Run left (the workers
	// do it at once, on every core, while the coordinator waits for them
	// to block). Nothing runs on the executor until the caller's next call
	// or Leave.
	Finish(s Slot, c *Call)
	// RunAlone runs c on s at once, in the caller's goroutine, when the
	// executor does c's operation slot by slot (nothing to batch), and
	// reports whether it did; the coordinator groups the calls it does
	// not run. It may run while a group runs.
	RunAlone(s Slot, c *Call) bool
}

// SolveExecutor is an Executor that runs whole Newton solves: its
// solvers' back ends are newton.WholeSolvers, so that a solve is one call
// through the coordinator instead of a call per item of each step (about
// 11 a step), and a group of solves is one operation of the executor (a
// GPU's: one launch that runs the driver for every slot). The calls that
// are not whole solves (none from a newton.Solver, whose solves go to
// SolveWhole) still go through Run.
type SolveExecutor interface {
	Executor
	// RunSolves runs one group of whole solves: calls[i] for slots[i],
	// every slot of one configuration (the same system, precision and
	// degree), every call with the same Settings but RefineTol. For each
	// call it fills in the Result and the Steps as newton.Driver.Solve
	// does on runtime/cpu's Newton back end of the slot (bit for bit:
	// Elapsed and Times aside), or sets Err: a device's error is a
	// BatchError that names the group's paths (SolveBatchError). It may
	// run beside Open, Close and the other groups of a round
	// (Coordinator.Together); no two groups of a round share a
	// configuration.
	RunSolves(slots []Slot, calls []*SolveCall)
}

// SolveCall is one slot's whole solve. WholeSolve holds what RunSolves
// reads, the start X0 and the Settings (RefineTol the call's own; the
// group's calls share the rest), and what it fills in, Result (made with
// its header) and Steps (empty); Path is the tracker's index of the
// slot's path (-1: not known), which a BatchError names.
type SolveCall struct {
	*newton.WholeSolve
	Path int64
	Err  error
}

// Slot is one slot's state in an Executor.
type Slot interface {
	// Close releases the slot (it may run while a group runs).
	Close() error
}

// maxWaitRounds is how many runs of other groups a group may wait.
const maxWaitRounds = 64

// config identifies the solvers whose calls can form one group.
type config struct {
	sys    *poly.System
	prec   mdops.Prec
	degree int
}

// groupKey identifies identical calls of one configuration.
type groupKey struct {
	cfg          config
	op           Op
	k, w, wPrev  int
	jac, inverse bool
	step         int // the working degree of the step (programCounter)
	// settings are a whole solve's (OpSolve), RefineTol zero: the
	// solves of one group share them.
	settings newton.Settings
}

type group struct {
	members []*slotBackend
	solves  bool  // OpSolve: each member's SolveCall
	since   int64 // the round the group was made
	pc      [4]int
}

// Coordinator batches the Backend calls of every solver whose options went
// through Solver (see the package documentation). It implements
// runtime/track's Device.
type Coordinator struct {
	// Together, set before the first call, makes a run of the executor
	// a round of every ready group at once (each in a goroutine of its
	// own, no two of one operation at one working degree of one
	// configuration: Batched's groups of one evaluator run one after the
	// other), rather than the one group earliest in the sequence of a
	// solve: one wait for every worker blocked instead of one a group,
	// for an executor whose run costs a round trip more than work. It
	// trades rounds for groups (BenchmarkTrackLatency, katsura8 at 2
	// doubles, a worker per path: 1,375 rounds and groups to 419 rounds
	// of 2,090 groups), so it pays where a round's groups overlap (a
	// modelled round trip of 1 ms per batched evaluation, overlapping:
	// 2.7 s to 1.6-1.7 s on 2 cores) and costs where each group's round
	// trip waits for the last (the same, one after the other: 2.8 s to
	// 3.1-3.5 s). On the H200 a round's evaluations overlap: katsura10
	// at 2 doubles, 204 to 374 paths/s (docs/results.md), so `mdgen
	// track -gpu` sets it. With whole solves (SolveExecutor) a round is
	// a solve of every worker: the rounds are about the solves of the
	// longest path (katsura8: 70, against 120 to 190 groups one a
	// round). It changes the time, never the bits.
	Together bool

	// Pipeline, set before the first call, runs groups of whole solves
	// (a SolveExecutor, whose groups may run at once: DeviceSolves',
	// NewCPUSolves') without rounds: up to Pipeline groups at once, of at
	// most ceil(W / Pipeline) solves each (W the most workers joined at
	// once). A group starts when a run is free and it is that full, or
	// when no worker computes on the host (none would join it). A group
	// then waits for its own slowest solve only, not for a round's, and
	// the workers of a group done first go on while the others run: the
	// device stays busy with whichever paths are ready. Larger than 0,
	// it takes the place of Together for whole solves; it changes the
	// time, never the bits.
	Pipeline int
	// Eager, with Pipeline, starts a pending group as soon as fewer than
	// Pipeline run, however few its solves (a group still takes at most
	// the chunk): a solve then waits for a free run only, never for
	// others to fill its group, which suits a device whose run costs
	// about the same for one solve as for many. It changes the time,
	// never the bits.
	Eager bool

	exec   Executor
	solves bool // exec is a SolveExecutor

	mu      sync.Mutex
	joined  int
	blocked int
	running bool
	round   int64
	pending map[groupKey]*group
	ranks   map[config]int // the configurations in the order of their first call
	stats   Stats
	// Pipeline's state: the groups running, the most workers joined at
	// once, and since when a group has been running.
	inFlight  int
	peak      int
	busySince time.Time
}

// Stats count the coordinator's work.
type Stats struct {
	Groups int64 // executor runs
	Calls  int64 // calls run in them
	// Rounds is the waits for every worker blocked: Groups, or fewer
	// with Together; with Pipeline, the groups started (no group waits
	// for another).
	Rounds int64
	// Busy is the wall time inside the executor's runs (the rest of
	// the tracker's wall time the workers compute on the host, or wait
	// for the slowest of them); with Pipeline, while a group runs.
	Busy time.Duration
}

// New returns a coordinator over exec.
func New(exec Executor) *Coordinator {
	_, solves := exec.(SolveExecutor)
	return &Coordinator{exec: exec, solves: solves, pending: map[groupKey]*group{}, ranks: map[config]int{}}
}

// Stats returns the work so far.
func (co *Coordinator) Stats() Stats {
	co.mu.Lock()
	defer co.mu.Unlock()
	return co.stats
}

// Join registers a worker: no group runs until it blocks or leaves.
func (co *Coordinator) Join() {
	co.mu.Lock()
	co.joined++
	co.peak = max(co.peak, co.joined)
	co.mu.Unlock()
}

// Leave unregisters a worker (it makes no more calls).
func (co *Coordinator) Leave() {
	co.mu.Lock()
	co.joined--
	co.next()
	co.mu.Unlock()
}

// Solver returns o with the coordinator's executors and back ends.
func (co *Coordinator) Solver(o newton.Options) newton.Options { return co.SolverFor(o, nil) }

// SolverFor is Solver for the solvers of a tracker's worker: path returns
// the index of the path the worker tracks (Call.Path, which the errors of
// a group name; runtime/track's PathNamer).
func (co *Coordinator) SolverFor(o newton.Options, path func() int64) newton.Options {
	o.NewExecutor = co.exec.NewExecutor
	o.NewBackend = func(c backend.NewtonConfig) (newton.Backend, error) {
		s, err := co.exec.Open(c)
		if err != nil {
			return nil, err
		}
		b := &slotBackend{co: co, slot: s, cfg: config{sys: c.Sys, prec: c.Prec, degree: c.Degree},
			wake: make(chan struct{}, 1), path: path}
		if _, ok := co.exec.(SolveExecutor); ok {
			return &wholeBackend{b}, nil
		}
		return b, nil
	}
	return o
}

// submit queues b's call and returns when it has run.
func (co *Coordinator) submit(b *slotBackend) {
	c := &b.call
	step := b.step
	switch c.Op {
	case OpReset, OpX: // a solve's first and last call: at no step
		step, b.step = 0, 0
	case OpEvaluate:
		step, b.step = c.W, c.W
	}
	k := groupKey{cfg: b.cfg, op: c.Op, k: c.K, w: c.W, wPrev: c.WPrev, jac: c.Jac, inverse: c.Inverse, step: step}
	co.enqueue(b, k, func(rank int) [4]int { return programCounter(rank, step, c) })
}

// submitSolve queues b's whole solve (b.solve) and returns when it has
// run.
func (co *Coordinator) submitSolve(b *slotBackend) {
	set := b.solve.Settings
	set.RefineTol = 0
	k := groupKey{cfg: b.cfg, op: OpSolve, settings: set}
	co.enqueue(b, k, func(int) [4]int { return [4]int{} }) // no sequence inside a solve: see pick
}

// enqueue adds b to the pending group of key k (made with the program
// counter pc gives for the configuration's rank) and blocks until the
// group has run.
func (co *Coordinator) enqueue(b *slotBackend, k groupKey, pc func(rank int) [4]int) {
	co.mu.Lock()
	g := co.pending[k]
	if g == nil {
		rank, ok := co.ranks[b.cfg]
		if !ok {
			rank = len(co.ranks)
			co.ranks[b.cfg] = rank
		}
		g = &group{since: co.round, pc: pc(rank), solves: k.op == OpSolve}
		co.pending[k] = g
	}
	g.members = append(g.members, b)
	co.blocked++
	co.next()
	co.mu.Unlock()
	<-b.wake
}

// next runs or starts what can run now (co.mu held): Pipeline's groups,
// else the rounds.
func (co *Coordinator) next() {
	if co.Pipeline > 0 && co.solves {
		co.dispatch()
	} else {
		co.runReady()
	}
}

// dispatch starts groups of whole solves while fewer than Pipeline run
// (co.mu held), by Pipeline's rule: a group of the chunk's size, or any
// while no worker computes on the host (any at all with Eager); the first
// by pick's order, a larger group cut to the chunk (the rest waits as a
// group of its own).
func (co *Coordinator) dispatch() {
	chunk := max(1, (co.peak+co.Pipeline-1)/co.Pipeline)
	for co.inFlight < co.Pipeline {
		var bestK groupKey
		var best *group
		for k, g := range co.pending {
			if !co.Eager && len(g.members) < chunk && co.blocked < co.joined {
				continue // a worker on the host may still join it
			}
			if best == nil || co.before(g, best) {
				bestK, best = k, g
			}
		}
		if best == nil {
			return
		}
		g := best
		if len(g.members) > chunk {
			co.pending[bestK] = &group{since: g.since, pc: g.pc, solves: g.solves, members: slices.Clone(g.members[chunk:])}
			g = &group{since: g.since, pc: g.pc, solves: g.solves, members: g.members[:chunk:chunk]}
		} else {
			delete(co.pending, bestK)
		}
		if co.inFlight == 0 {
			co.busySince = time.Now()
		}
		co.inFlight++
		co.round++
		co.stats.Rounds++
		go co.runPiped(g)
	}
}

// runPiped runs a group that dispatch started, then wakes its members and
// starts what can start.
func (co *Coordinator) runPiped(g *group) {
	co.execGroup(g)
	co.mu.Lock()
	co.finishGroup(g)
	co.inFlight--
	if co.inFlight == 0 {
		co.stats.Busy += time.Since(co.busySince)
	}
	co.dispatch()
	co.mu.Unlock()
	wake(g)
}

// runReady runs groups while every joined worker is blocked (co.mu held;
// released while a group runs).
func (co *Coordinator) runReady() {
	for !co.running && co.blocked >= co.joined && len(co.pending) > 0 {
		round := co.takeRound()
		co.running = true
		co.mu.Unlock()
		start := time.Now()
		if len(round) == 1 {
			co.runGroup(round[0])
		} else {
			var wg sync.WaitGroup
			for _, g := range round {
				wg.Go(func() { co.runGroup(g) })
			}
			wg.Wait()
		}
		busy := time.Since(start)
		co.mu.Lock()
		co.stats.Busy += busy
		co.running = false
		co.round++
		co.stats.Rounds++
	}
}

// takeRound removes from the pending groups those of the next run: the
// one pick returns, and with Together every other one whose operation,
// configuration and working degree no group of the round has (in pick's
// order).
func (co *Coordinator) takeRound() []*group {
	k, g := co.pick()
	delete(co.pending, k)
	round := []*group{g}
	if !co.Together {
		return round
	}
	type opKey struct {
		cfg config
		op  Op
		w   int
	}
	taken := map[opKey]bool{{k.cfg, k.op, k.w}: true}
	rest := make([]groupKey, 0, len(co.pending))
	for k := range co.pending {
		rest = append(rest, k)
	}
	slices.SortFunc(rest, func(a, b groupKey) int {
		switch {
		case co.before(co.pending[a], co.pending[b]):
			return -1
		case co.before(co.pending[b], co.pending[a]):
			return 1
		}
		return 0
	})
	for _, k := range rest {
		if ok := (opKey{k.cfg, k.op, k.w}); !taken[ok] {
			taken[ok] = true
			round = append(round, co.pending[k])
			delete(co.pending, k)
		}
	}
	return round
}

// runGroup runs g on the executor and wakes its members (co.mu not held):
// those of a group done first compute on the host while the round's
// other groups run (no round starts before the last is done).
func (co *Coordinator) runGroup(g *group) {
	co.execGroup(g)
	co.mu.Lock()
	co.finishGroup(g)
	co.mu.Unlock()
	wake(g)
}

// execGroup runs g on the executor (co.mu not held).
func (co *Coordinator) execGroup(g *group) {
	slots := make([]Slot, len(g.members))
	if g.solves {
		calls := make([]*SolveCall, len(g.members))
		for i, b := range g.members {
			slots[i], calls[i] = b.slot, &b.solve
		}
		co.exec.(SolveExecutor).RunSolves(slots, calls)
	} else {
		calls := make([]*Call, len(g.members))
		for i, b := range g.members {
			slots[i], calls[i] = b.slot, &b.call
		}
		co.exec.Run(slots, calls)
	}
}

// finishGroup counts g and its members as no longer blocked (co.mu
// held): they compute on the host from here, once wake has woken them.
func (co *Coordinator) finishGroup(g *group) {
	co.stats.Groups++
	co.stats.Calls += int64(len(g.members))
	co.blocked -= len(g.members)
}

// wake wakes g's members (after finishGroup, co.mu not held: a wake may
// start an idle thread of the runtime, and under the lock the wakes of a
// group of hundreds held every other worker's call; on the H100 the
// workers of katsura12 waited a fifth of their time for the lock).
func wake(g *group) {
	for _, b := range g.members {
		b.wake <- struct{}{}
	}
}

// pick returns the group to run: the oldest of those that waited more
// than maxWaitRounds runs, else the one earliest in the sequence of a
// solve (programCounter; the oldest among equals), so that the workers
// behind catch up with those waiting further on and join their groups
// (measured on katsura 6, noon 4 and cyclic 5 with a worker per path: a
// third to a half fewer groups than the largest group first). Groups of
// whole solves have no sequence inside a solve: the largest goes first
// (the oldest among equals): katsura 8 at 2 doubles, a worker per path,
// 120 to 190 groups, against 230 to 260 with the configurations in the
// order of their first call, whose group of the same members ran again
// and again while the others waited (150 to 205 oldest first). The
// choice changes the time, never the bits.
func (co *Coordinator) pick() (groupKey, *group) {
	var bestK groupKey
	var best *group
	for k, g := range co.pending {
		if best == nil || co.before(g, best) {
			bestK, best = k, g
		}
	}
	return bestK, best
}

func (co *Coordinator) before(g, h *group) bool {
	oldG, oldH := co.round-g.since > maxWaitRounds, co.round-h.since > maxWaitRounds
	switch {
	case oldG != oldH:
		return oldG
	case !oldG && g.solves && h.solves && len(g.members) != len(h.members): // pick's rule for whole solves
		return len(g.members) > len(h.members)
	case !oldG && g.pc != h.pc:
		return less4(g.pc, h.pc)
	}
	return g.since < h.since
}

// slotBackend is one solver's newton.Backend: every numeric method is a
// call through the coordinator; the stage clock (Mark, Lap, Times) is its
// own (wall time, the waits included).
type slotBackend struct {
	backend.StageClock
	step int // the working degree of the last Evaluate
	co   *Coordinator
	slot Slot
	cfg  config
	call Call
	// solve is the whole solve of a wholeBackend.
	solve SolveCall
	wake  chan struct{}
	path  func() int64 // nil: not known
}

// pathIndex returns the index of the slot's path (-1: not known).
func (b *slotBackend) pathIndex() int64 {
	if b.path == nil {
		return -1
	}
	return b.path()
}

func (b *slotBackend) do(c Call) *Call {
	c.Path = b.pathIndex()
	b.call = c
	if !b.co.exec.RunAlone(b.slot, &b.call) {
		b.co.submit(b)
		b.co.exec.Finish(b.slot, &b.call)
	}
	return &b.call
}

func (b *slotBackend) Reset(x0 []float64) error {
	b.StartClock()
	return b.do(Call{Op: OpReset, X0: x0}).Err
}

func (b *slotBackend) Evaluate(w int, jac bool) (float64, float64, error) {
	c := b.do(Call{Op: OpEvaluate, W: w, Jac: jac})
	return c.F[0], c.F[1], c.Err
}

func (b *slotBackend) Factor(inverse bool) (*la.RankError, float64, float64, error) {
	c := b.do(Call{Op: OpFactor, Inverse: inverse})
	return c.Rank, c.F[0], c.F[1], c.Err
}

func (b *slotBackend) MaxAbsX() (float64, error) {
	c := b.do(Call{Op: OpMaxAbsX})
	return c.F[0], c.Err
}

func (b *slotBackend) BlockNorm(k int) (float64, error) {
	c := b.do(Call{Op: OpBlockNorm, K: k})
	return c.F[0], c.Err
}

func (b *slotBackend) SkipBlock(k int) error { return b.do(Call{Op: OpSkipBlock, K: k}).Err }
func (b *slotBackend) ApplyQH(k int) error   { return b.do(Call{Op: OpApplyQH, K: k}).Err }
func (b *slotBackend) SolveR(k int) error    { return b.do(Call{Op: OpSolveR, K: k}).Err }
func (b *slotBackend) FormInverse() error    { return b.do(Call{Op: OpFormInverse}).Err }
func (b *slotBackend) SolveBlock(k int) error {
	return b.do(Call{Op: OpSolveBlock, K: k}).Err
}
func (b *slotBackend) UpdateB(k, w int) error { return b.do(Call{Op: OpUpdateB, K: k, W: w}).Err }

func (b *slotBackend) Residual(w int, skipped []bool, nb []float64) (float64, error) {
	c := b.do(Call{Op: OpResidual, W: w, Skipped: skipped, NB: nb})
	return c.F[0], c.Err
}

func (b *slotBackend) UpdateX(w, wPrev int, skipped []bool) (float64, float64, float64, error) {
	c := b.do(Call{Op: OpUpdateX, W: w, WPrev: wPrev, Skipped: skipped})
	return c.F[0], c.F[1], c.F[2], c.Err
}

func (b *slotBackend) X() ([]float64, error) {
	c := b.do(Call{Op: OpX})
	return c.X, c.Err
}

func (b *slotBackend) Close() error { return b.slot.Close() }

// wholeBackend is a slotBackend of a SolveExecutor: a newton.WholeSolver
// whose solves go through the coordinator whole, a group of them one
// RunSolves.
type wholeBackend struct{ *slotBackend }

func (b *wholeBackend) SolveWhole(ws *newton.WholeSolve) error {
	b.solve = SolveCall{WholeSolve: ws, Path: b.pathIndex()}
	b.co.submitSolve(b.slotBackend)
	err := b.solve.Err
	b.solve = SolveCall{} // the solver's: not kept
	return err
}

func less4(a, b [4]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// programCounter places a call in the sequence of a solve (run.go's
// order) of the configuration of rank rank: Reset first, X last; between,
// by the working degree of the step, then Evaluate, Factor, MaxAbsX, the
// blocks k = 0.. (BlockNorm; SkipBlock, ApplyQH or FormInverse; SolveR or
// SolveBlock; UpdateB), Residual, UpdateX.
func programCounter(rank, step int, c *Call) [4]int {
	const last = 1 << 30
	switch c.Op {
	case OpReset:
		return [4]int{rank, -1, 0, 0}
	case OpX:
		return [4]int{rank, last, 0, 0}
	case OpEvaluate:
		return [4]int{rank, step, 0, 0}
	case OpFactor:
		return [4]int{rank, step, 1, 0}
	case OpMaxAbsX:
		return [4]int{rank, step, 2, 0}
	case OpBlockNorm:
		return [4]int{rank, step, 3 + 4*c.K, 0}
	case OpSkipBlock, OpApplyQH, OpFormInverse:
		return [4]int{rank, step, 4 + 4*c.K, int(c.Op)}
	case OpSolveR, OpSolveBlock:
		return [4]int{rank, step, 5 + 4*c.K, int(c.Op)}
	case OpUpdateB:
		return [4]int{rank, step, 6 + 4*c.K, 0}
	case OpResidual:
		return [4]int{rank, step, last - 1, 0}
	}
	return [4]int{rank, step, last, 0} // OpUpdateX
}
