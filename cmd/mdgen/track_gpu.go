package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/lockstep"
	"github.com/mdgen/mdgen/runtime/track"
)

// defaultTrackBatch is the paths tracked at once per GPU with -gpu unless
// -batch says otherwise (fewer when the run has fewer paths).
const defaultTrackBatch = 8192

// trackGPU is the devices of `mdgen track -gpu` and `mdgen bench -track
// -gpu`: the tracker's workers run their Newton solvers in lock step
// (runtime/lockstep), each group of whole Newton solves one launch of the
// batched Newton solve on the worker's GPU (lockstep.DeviceSolves,
// runtime/gpu's BatchNewton), or, with evaluations, each group of
// evaluations one batched evaluation with the rest of Newton on the host
// (lockstep.Batched); with several GPUs the workers split evenly among
// them and take their paths from one queue (track.Options.Devices).
type trackGPU struct {
	devs     []*cudadev.Device
	builders []*kernels.Builder
	batches  []*kernels.Batches
	solves   []*kernels.Solves
	// evaluations: batch the evaluations only (-gpu-mode evaluations).
	evaluations bool
	// notices, when not nil, receives the executors' notices (a batch
	// that does not fit split into batches that fit), once each.
	notices io.Writer
}

// openTrackGPU opens the GPUs of the ordinals (none: every visible GPU),
// their batched kernels built (nvcc, cached under kernelDir) on first use
// of each precision. The error says why there is no GPU; the caller
// tracks on the CPU.
func openTrackGPU(ordinals []int, kernelDir, nvccPath string) (*trackGPU, error) {
	if err := kernels.Enabled(); err != nil {
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
	g := &trackGPU{}
	for _, o := range ordinals {
		dev, err := cudadev.Open(o)
		if err != nil {
			g.close()
			return nil, fmt.Errorf("no GPU %d: %w", o, err)
		}
		g.devs = append(g.devs, dev)
		b, err := kernels.New(dev, nvccPath, kernelDir)
		if err != nil {
			g.close()
			return nil, err
		}
		g.builders = append(g.builders, b)
		g.batches = append(g.batches, b.Batches())
		g.solves = append(g.solves, b.Solves())
	}
	return g, nil
}

// use sets opt to track on the GPUs, batch paths at once on each, and
// returns what closes the executors after the run: on each GPU a
// coordinator over its batched evaluations (every ready group in one
// round: on the H200 a round's batched evaluations overlap, and
// katsura10's wall time nearly halves, docs/results.md, "Where the
// lock-step tracker's time goes") or, with -gpu-mode solves, over its
// whole solves (solvesPipeline groups at once).
func (g *trackGPU) use(opt *track.Options, batch int) (closeAll func() error) {
	var closers []func() error
	opt.Devices = nil
	for i, dev := range g.devs {
		var notify func(string)
		if g.notices != nil {
			ordinal := dev.Info().Ordinal
			notify = func(msg string) { fmt.Fprintf(g.notices, "mdgen: track: GPU %d: %s\n", ordinal, msg) }
		}
		var co *lockstep.Coordinator
		if g.evaluations {
			ex := lockstep.NewBatched(g.batches[i].NewEvaluator, batch)
			ex.Notify = notify
			closers = append(closers, ex.Close)
			co = lockstep.New(ex)
			co.Together = true
		} else {
			ex := lockstep.NewDeviceSolves(g.solves[i], (batch+solvesPipeline-1)/solvesPipeline)
			ex.Notify = notify
			closers = append(closers, ex.Close)
			co = lockstep.New(ex)
			co.Pipeline = solvesPipeline
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

// solvesPipeline is the groups of whole solves a GPU runs at once
// (lockstep.Coordinator.Pipeline): a group waits for its own slowest
// solve, not for a round's. On the H200 (docs/results.md, session 15),
// against every ready group a round: katsura10 at 4 doubles 174 to 300
// paths/s, cyclic6 at 2 doubles 337 to 564; 16 groups at once were as
// fast or faster than 4 and 8 on katsura10 and cyclic6, a little slower
// on noon6 (36 rounds). With the host side unblocked (session 16, H100):
// 32 groups 1.1 times 16 on katsura12 at 2 doubles in one run, Eager
// groups no faster; 16 stays until the host's share of a step shrinks.
const solvesPipeline = 16

// prepare builds and loads the whole solves' kernels of every precision
// a run with opt may solve at (track.Options.Precisions), in one parallel
// nvcc run (the first GPU's; the others load them from the cache), rather
// than each on first use while the run waits (and its clock runs). The
// batched evaluations (-gpu-mode evaluations) build theirs on first use.
func (g *trackGPU) prepare(opt track.Options) error {
	if g.evaluations {
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
	for _, s := range g.solves {
		if err := s.Prepare(ps...); err != nil {
			return err
		}
	}
	return nil
}

// name names the GPUs ("NVIDIA H200" or "2 x NVIDIA H200").
func (g *trackGPU) name() string {
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

func (g *trackGPU) close() {
	for _, b := range g.batches {
		_ = b.Close()
	}
	for _, s := range g.solves {
		_ = s.Close()
	}
	for _, d := range g.devs {
		_ = d.Close()
	}
}

// useTrackGPU sets opt to track on the GPUs of ordinals (none: every
// visible one), batch paths at once on each (0: the default, at most
// count over the GPUs), with whole solves or, with evaluations, batched
// evaluations only, or says on stderr why it cannot and leaves opt for
// the CPU. It returns what releases the GPUs.
func useTrackGPU(opt *track.Options, count int64, ordinals []int, batch int, evaluations bool, kernelDir, nvccPath string, stderr io.Writer) (release func()) {
	g, err := openTrackGPU(ordinals, kernelDir, nvccPath)
	if err != nil {
		fmt.Fprintf(stderr, "mdgen: track: -gpu: %v; tracking on the CPU\n", err)
		return func() {}
	}
	if batch <= 0 {
		perGPU := (count + int64(len(g.devs)) - 1) / int64(len(g.devs))
		batch = int(min(perGPU, defaultTrackBatch))
	}
	fmt.Fprintf(stderr, "mdgen: track: on %s, %d paths at once on each (kernels cached in %s)\n", g.name(), batch, kernelDir)
	g.notices = stderr
	g.evaluations = evaluations
	for _, b := range g.builders {
		// nvcc's progress: the batched Newton solve of 8 doubles takes it
		// minutes (cached afterwards).
		b.Log = stderr
	}
	if err := g.prepare(*opt); err != nil {
		g.close()
		fmt.Fprintf(stderr, "mdgen: track: -gpu: %v; tracking on the CPU\n", err)
		return func() {}
	}
	closeAll := g.use(opt, batch)
	return func() {
		_ = closeAll()
		g.close()
	}
}

// reportDeviceFailures says on stderr which GPUs failed during the run
// (the ordinals as -devices gave them; none: every visible GPU) and how
// many of their paths were tracked again on the others.
func reportDeviceFailures(stderr io.Writer, run *track.Run, ordinals []int) {
	for _, f := range run.DeviceFailures {
		ordinal := f.Device
		if f.Device < len(ordinals) {
			ordinal = ordinals[f.Device]
		}
		fmt.Fprintf(stderr, "mdgen: track: GPU %d failed, its %d paths in flight tracked again on the other GPUs: %v\n", ordinal, f.Requeued, f.Err)
	}
}
