package kernels

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/lockstep"
	"github.com/mdgen/mdgen/runtime/track"
)

// DefaultTrackBatch is the most paths a Tracker tracks at once on each GPU
// unless told otherwise (fewer when the run has fewer paths). 4,096 rather
// than 8,192 since the batched solve's code was cut (session 21, H200s:
// katsura15 on one GPU 7% faster at 2 and at 4 doubles, on two GPUs 7%,
// on four 12%; docs/results.md, "Several GPUs: katsura20 whole").
const DefaultTrackBatch = 4096

// TrackPipeline is the groups of whole solves a Tracker runs at once on
// each GPU (lockstep.Coordinator.Pipeline): a group waits for its own
// slowest solve, not for a round's. On the H200 (docs/results.md, session
// 15), against every ready group a round: katsura10 at 4 doubles 174 to
// 300 paths/s, cyclic6 at 2 doubles 337 to 564; 16 groups at once were as
// fast or faster than 4 and 8 on katsura10 and cyclic6, a little slower
// on noon6 (36 rounds). With the host side unblocked (session 16, H100):
// 32 groups 1.1 times 16 on katsura12 at 2 doubles in one run, Eager
// groups no faster; 16 stays until the host's share of a step shrinks.
const TrackPipeline = 16

// Tracker is the GPUs of a path tracker (`mdgen track -gpu`, `mdgen bench
// -track -gpu`, an emitted package's Track with solver.WithTrackDevices):
// the tracker's workers run their Newton solvers in lock step
// (runtime/lockstep), each group of whole Newton solves one launch of the
// batched Newton solve on the worker's GPU (lockstep.DeviceSolves,
// runtime/gpu's BatchNewton), or, with Evaluations, each group of
// evaluations one batched evaluation with the rest of Newton on the host
// (lockstep.Batched). With several GPUs the workers split evenly among
// them and take their paths from one queue (track.Options.Devices). Every
// path has the CPU tracker's bits.
type Tracker struct {
	// Evaluations batches the evaluations only (`-gpu-mode evaluations`).
	Evaluations bool
	// Notices, when not nil, receives the executors' notices (a batch that
	// does not fit split into batches that fit, once each) and nvcc's
	// progress.
	Notices io.Writer

	devs     []*cudadev.Device
	builders []*Builder
	batches  []*Batches
	solves   []*Solves
}

// OpenTracker opens the GPUs of the ordinals (none: every visible GPU),
// their kernels built by nvcc (nvccPath, or found; cached under dir) in
// Prepare or on first use. The error says why there is no GPU (a build
// without the cuda tag: it wraps cudadev.ErrNoCUDA); the caller tracks on
// the CPU.
func OpenTracker(ordinals []int, nvccPath, dir string) (*Tracker, error) {
	if err := Enabled(); err != nil {
		return nil, err
	}
	if len(ordinals) == 0 {
		n, err := cudadev.Count()
		if err != nil {
			return nil, fmt.Errorf("no GPU: %w", err)
		}
		if n == 0 {
			return nil, errors.New("no GPU: the driver sees no device")
		}
		for i := range n {
			ordinals = append(ordinals, i)
		}
	}
	// The GPUs open at once: a context costs a fraction of a second each,
	// which a run on 4 GPUs paid four times over before it started.
	n := len(ordinals)
	devs, builders, errs := make([]*cudadev.Device, n), make([]*Builder, n), make([]error, n)
	var wg sync.WaitGroup
	for i, o := range ordinals {
		wg.Go(func() {
			dev, err := cudadev.Open(o)
			if err != nil {
				errs[i] = fmt.Errorf("no GPU %d: %w", o, err)
				return
			}
			devs[i] = dev
			builders[i], errs[i] = New(dev, nvccPath, dir)
		})
	}
	wg.Wait()
	g := &Tracker{}
	for i, dev := range devs {
		if dev == nil {
			continue
		}
		g.devs = append(g.devs, dev)
		if b := builders[i]; b != nil {
			g.builders = append(g.builders, b)
			g.batches = append(g.batches, b.Batches())
			g.solves = append(g.solves, b.Solves())
		}
	}
	for _, err := range errs {
		if err != nil {
			g.Close()
			return nil, err
		}
	}
	return g, nil
}

// GPUs is the number of GPUs.
func (g *Tracker) GPUs() int { return len(g.devs) }

// Ordinal is the driver's ordinal of GPU i (track.Run's DeviceFailures
// count from 0 in the Tracker's order).
func (g *Tracker) Ordinal(i int) int { return g.devs[i].Info().Ordinal }

// Name names the GPUs ("NVIDIA H200" or "2 x NVIDIA H200").
func (g *Tracker) Name() string {
	names := make([]string, len(g.devs))
	for i, d := range g.devs {
		names[i] = d.Info().Name
	}
	for _, n := range names[1:] {
		if n != names[0] {
			return strings.Join(names, ", ")
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	return fmt.Sprintf("%d x %s", len(names), names[0])
}

// Batch is the paths tracked at once on each GPU for a run of paths paths
// when batch is 0 or less: an even share, at most DefaultTrackBatch; else
// batch.
func (g *Tracker) Batch(paths int64, batch int) int {
	if batch > 0 {
		return batch
	}
	n := int64(max(1, len(g.devs)))
	return int(max(1, min((paths+n-1)/n, DefaultTrackBatch)))
}

// Prepare builds and loads the whole solves' kernels of every precision a
// run with opt may solve at (track.Options.Precisions), in one parallel
// nvcc run (the first GPU's; the others load them from the cache), rather
// than each on first use while the run waits (and its clock runs). The
// batched evaluations (Evaluations) build theirs on first use.
func (g *Tracker) Prepare(opt track.Options) error {
	if g.Evaluations {
		return nil
	}
	ns, err := opt.Precisions()
	if err != nil {
		return err
	}
	var ps []mdops.Prec
	for _, n := range ns {
		ps = append(ps, mdops.Prec{N: n, Complex: true})
	}
	for _, b := range g.builders {
		b.Log = g.Notices
	}
	if len(g.solves) == 0 {
		return nil
	}
	// The first GPU's nvcc run fills the cache; the others load from it at
	// once (a load takes most of a second on each).
	if err := g.solves[0].Prepare(ps...); err != nil {
		return err
	}
	errs := make([]error, len(g.solves))
	var wg sync.WaitGroup
	for i, s := range g.solves[1:] {
		wg.Go(func() { errs[i] = s.Prepare(ps...) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Use sets opt to track on the GPUs, batch paths at once on each
// (opt.Workers: batch times the GPUs; opt.Devices: a coordinator per GPU),
// and returns what closes the executors after the run: on each GPU a
// coordinator over its whole solves, TrackPipeline groups at once, or with
// Evaluations over its batched evaluations (every ready group in one
// round: on the H200 a round's batched evaluations overlap, and
// katsura10's wall time nearly halves, docs/results.md, "Where the
// lock-step tracker's time goes").
func (g *Tracker) Use(opt *track.Options, batch int) (closeAll func() error) {
	var closers []func() error
	opt.Devices = nil
	for _, b := range g.builders {
		b.Log = g.Notices
	}
	for i, dev := range g.devs {
		var notify func(string)
		if g.Notices != nil {
			ordinal := dev.Info().Ordinal
			notify = func(msg string) { fmt.Fprintf(g.Notices, "mdgen: track: GPU %d: %s\n", ordinal, msg) }
		}
		var co *lockstep.Coordinator
		if g.Evaluations {
			ex := lockstep.NewBatched(g.batches[i].NewEvaluator, batch)
			ex.Notify = notify
			closers = append(closers, ex.Close)
			co = lockstep.New(ex)
			co.Together = true
		} else {
			ex := lockstep.NewDeviceSolves(g.solves[i], (batch+TrackPipeline-1)/TrackPipeline)
			ex.Notify = notify
			closers = append(closers, ex.Close)
			co = lockstep.New(ex)
			co.Pipeline = TrackPipeline
		}
		opt.Devices = append(opt.Devices, co)
	}
	opt.Workers = batch * len(g.devs)
	return func() error {
		var errs []error
		for _, c := range closers {
			errs = append(errs, c())
		}
		return errors.Join(errs...)
	}
}

// Close unloads the kernels and closes the GPUs (after the runs' closers).
func (g *Tracker) Close() error {
	var errs []error
	for _, b := range g.batches {
		errs = append(errs, b.Close())
	}
	for _, s := range g.solves {
		errs = append(errs, s.Close())
	}
	for _, d := range g.devs {
		errs = append(errs, d.Close())
	}
	return errors.Join(errs...)
}
