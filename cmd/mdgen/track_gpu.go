package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/lockstep"
	"github.com/mdgen/mdgen/runtime/track"
)

// defaultTrackBatch is the paths tracked at once with -gpu unless -batch
// says otherwise (fewer when the run has fewer paths).
const defaultTrackBatch = 8192

// trackGPU is the device of `mdgen track -gpu` and `mdgen bench -track
// -gpu`: the tracker's workers run their Newton solvers in lock step
// (runtime/lockstep), each group of evaluations one batched evaluation on
// the GPU.
type trackGPU struct {
	dev     *cudadev.Device
	batches *kernels.Batches
}

// openTrackGPU opens GPU 0, its batched kernels built (nvcc, cached under
// kernelDir) on first use of each precision. The error says why there is
// no GPU; the caller tracks on the CPU.
func openTrackGPU(kernelDir, nvccPath string) (*trackGPU, error) {
	if err := kernels.Enabled(); err != nil {
		return nil, err
	}
	dev, err := cudadev.Open(0)
	if err != nil {
		return nil, fmt.Errorf("no GPU: %w", err)
	}
	b, err := kernels.New(dev, nvccPath, kernelDir)
	if err != nil {
		return nil, errors.Join(err, dev.Close())
	}
	return &trackGPU{dev: dev, batches: b.Batches()}, nil
}

// use sets opt to track on the GPU in batches of batch paths, and returns
// the executor to close after the run.
func (g *trackGPU) use(opt *track.Options, batch int) *lockstep.Batched {
	ex := lockstep.NewBatched(g.batches.NewEvaluator, batch)
	opt.Device, opt.Workers = lockstep.New(ex), batch
	return ex
}

func (g *trackGPU) name() string { return g.dev.Info().Name }

func (g *trackGPU) close() {
	_ = g.batches.Close()
	_ = g.dev.Close()
}

// useTrackGPU sets opt to track on the GPU in batches of batch paths (0:
// the default, at most count), or says on stderr why it cannot and leaves
// opt for the CPU. It returns what releases the GPU.
func useTrackGPU(opt *track.Options, count int64, batch int, kernelDir, nvccPath string, stderr io.Writer) (release func()) {
	if batch <= 0 {
		batch = int(min(count, defaultTrackBatch))
	}
	g, err := openTrackGPU(kernelDir, nvccPath)
	if err != nil {
		fmt.Fprintf(stderr, "mdgen: track: -gpu: %v; tracking on the CPU\n", err)
		return func() {}
	}
	fmt.Fprintf(stderr, "mdgen: track: on %s, %d paths at once (kernels cached in %s)\n", g.name(), batch, kernelDir)
	ex := g.use(opt, batch)
	return func() {
		_ = ex.Close()
		g.close()
	}
}
