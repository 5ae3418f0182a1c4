package bench

import (
	"errors"
	"fmt"
	"time"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
	"github.com/mdgen/mdgen/runtime/newton"
)

// newtonGPU is the device of `mdgen bench -newton` and the
// device-resident Newton driver's kernels, built (nvcc, cached by content
// under the kernel folder) and loaded on first use, one pair of fatbins per
// precision and kind of data.
type newtonGPU struct {
	dev     *cudadev.Device
	build   *kernels.Builder
	logf    func(format string, a ...any)
	kernels map[newtonKernelKey]*gpu.NewtonKernels
	failed  map[newtonKernelKey]error
}

type newtonKernelKey struct {
	prec    int
	complex bool
}

// openNewtonGPU opens GPU 0 and finds nvcc. The error says why there is
// no GPU run (this binary lacks the cuda tag, no device, no nvcc); the
// bench then runs on the CPU and says so.
func openNewtonGPU(nvccPath, kernelDir string, logf func(string, ...any)) (*newtonGPU, error) {
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
	return &newtonGPU{dev: dev, build: b, logf: logf,
		kernels: map[newtonKernelKey]*gpu.NewtonKernels{}, failed: map[newtonKernelKey]error{}}, nil
}

func (g *newtonGPU) name() string { return g.dev.Info().Name }

// kernelsFor builds and loads the kernels of prec and complex (once; a
// failure is remembered).
func (g *newtonGPU) kernelsFor(prec int, complex bool) (*gpu.NewtonKernels, error) {
	key := newtonKernelKey{prec, complex}
	if k, ok := g.kernels[key]; ok {
		return k, nil
	}
	if err, ok := g.failed[key]; ok {
		return nil, err
	}
	k, err := g.load(prec, complex)
	if err != nil {
		g.failed[key] = err
		return nil, err
	}
	g.kernels[key] = k
	return k, nil
}

func (g *newtonGPU) load(prec int, complex bool) (*gpu.NewtonKernels, error) {
	t0 := time.Now()
	ks, err := g.build.Newton(mdops.Prec{N: prec, Complex: complex})
	if err != nil {
		return nil, err
	}
	g.logf("kernels: %dd %s Newton kernels ready in %.1f s (cache %s)", prec, dataName(complex), time.Since(t0).Seconds(), g.build.Dir)
	return ks[0], nil
}

// options returns opt with the GPU's executors and back end.
func (g *newtonGPU) options(k *gpu.NewtonKernels, opt newton.Options) newton.Options {
	return gpu.NewtonOptions(k, opt)
}

// Close unloads the kernels and closes the device.
func (g *newtonGPU) Close() {
	for _, k := range g.kernels {
		_ = k.Close()
	}
	_ = g.dev.Close()
}

func dataName(complex bool) string { return mdops.Prec{Complex: complex}.Kind() }
