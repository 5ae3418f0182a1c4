package main

import (
	"fmt"
	"io"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/newton"
)

// solveGPU is the GPU of `mdgen solve -gpu`: the device and the loaded
// Newton kernels of one precision and kind of data.
type solveGPU struct {
	dev *cudadev.Device
	k   *gpu.NewtonKernels
}

// openSolveGPU opens GPU 0 and builds (nvcc, cached by content under
// kernelDir) and loads the device-resident Newton driver's kernels for
// prec and complex. The error says why there is no GPU solve (this binary
// lacks the cuda tag, no device, no nvcc, a build failure); the caller
// falls back to the CPU.
//
// eqs, vars and degree are the sizes of the solve: when the device memory
// cannot hold its buffers, the error wraps gpu.ErrMemory (with the sizes),
// found before any kernel is built or launched; the caller refuses the
// solve then rather than falling back to the CPU.
func openSolveGPU(prec mdops.Prec, eqs, vars, degree int, kernelDir, nvccPath string, log io.Writer) (*solveGPU, error) {
	if err := kernels.Enabled(); err != nil {
		return nil, err
	}
	dev, err := cudadev.Open(0)
	if err != nil {
		return nil, fmt.Errorf("no GPU: %w", err)
	}
	g := &solveGPU{dev: dev}
	ok := false
	defer func() {
		if !ok {
			g.Close()
		}
	}()
	free, err := dev.FreeMemory()
	if err != nil {
		return nil, fmt.Errorf("the GPU's free memory: %w", err)
	}
	if err := gpu.NewtonFits(eqs, vars, degree, prec, free, dev.Info().Name); err != nil {
		return nil, err
	}
	b, err := kernels.New(dev, nvccPath, kernelDir)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	ks, err := b.Newton(prec)
	if err != nil {
		return nil, err
	}
	g.k = ks[0]
	fmt.Fprintf(log, "mdgen: solve on %s: kernels ready in %.1f s (cache %s)\n", dev.Info().Name, time.Since(t0).Seconds(), kernelDir)
	ok = true
	return g, nil
}

// options returns opt with the GPU's executors and back end.
func (g *solveGPU) options(opt newton.Options) newton.Options { return gpu.NewtonOptions(g.k, opt) }

func (g *solveGPU) name() string { return g.dev.Info().Name }

// Close unloads the kernels and closes the device.
func (g *solveGPU) Close() {
	if g.k != nil {
		_ = g.k.Close()
	}
	if g.dev != nil {
		_ = g.dev.Close()
	}
}
