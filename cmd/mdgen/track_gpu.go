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

// trackGPU is the device of `mdgen track -gpu`: the tracker's workers run
// their Newton solvers in lock step (runtime/lockstep), each group of
// evaluations one batched evaluation on the GPU.
type trackGPU struct {
	dev     *cudadev.Device
	batches *kernels.Batches
	exec    *lockstep.Batched
	co      *lockstep.Coordinator
	slots   int
}

// openTrackGPU opens GPU 0 for batches of slots paths, the kernels built
// (nvcc, cached under kernelDir) on first use of each precision. The
// error says why there is no GPU; the caller tracks on the CPU.
func openTrackGPU(slots int, kernelDir, nvccPath string) (*trackGPU, error) {
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
	g := &trackGPU{dev: dev, batches: b.Batches(), slots: slots}
	g.exec = lockstep.NewBatched(g.batches.NewEvaluator, slots)
	g.co = lockstep.New(g.exec)
	return g, nil
}

// useTrackGPU sets opt to track on the GPU in batches of batch paths (0:
// the default, at most count), or says on stderr why it cannot and leaves
// opt for the CPU. It returns what releases the GPU.
func useTrackGPU(opt *track.Options, count int64, batch int, kernelDir, nvccPath string, stderr io.Writer) (release func()) {
	if batch <= 0 {
		batch = int(min(count, defaultTrackBatch))
	}
	g, err := openTrackGPU(batch, kernelDir, nvccPath)
	if err != nil {
		fmt.Fprintf(stderr, "mdgen: track: -gpu: %v; tracking on the CPU\n", err)
		return func() {}
	}
	fmt.Fprintf(stderr, "mdgen: track: on %s, %d paths at once (kernels cached in %s)\n", g.dev.Info().Name, batch, kernelDir)
	opt.Device, opt.Workers = g.co, batch
	return g.close
}

func (g *trackGPU) close() {
	_ = g.exec.Close()
	_ = g.batches.Close()
	_ = g.dev.Close()
}
