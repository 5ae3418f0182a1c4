//go:build cuda

package solver

import (
	"errors"
	"fmt"

	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
)

// The GPU build's Newton back end for emitted packages: the package's
// fatbin holds the linear-algebra kernels next to the evaluation kernels
// (gen/emit_newton.go), so the device-resident driver of `mdgen solve
// -gpu` (runtime/gpu: gpu.NewtonOptions) runs on it as it is: every
// working degree of the staggering on a GPU executor of the fatbin's
// evaluation kernels, the emitted degree on the job tables baked into it
// when the Solver's executor uses them, and the linear algebra on the
// device. The bits are the CPU's (runtime/gpu's TestGPUNewton; the
// emitted packages' TestGPUSolveMatchesCPU).

func init() { GPUNewton = gpuNewton }

func gpuNewton(cfg NewtonConfig, opt *newton.Options) (func() error, error) {
	if cfg.Dev == nil {
		return nil, fmt.Errorf("%w: the Solver's GPU executor was not made by solver.NewGPU (Spec.GPU), so there is no device to load the kernels on", ErrNoGPUNewton)
	}
	// The kernels are the Spec's precision; opt.Prec is the Spec's too
	// (Solver.Solve), and the back end checks it against the kernels.
	k, err := gpu.LoadNewtonKernelsFrom(cfg.Dev, cfg.Fatbin, cfg.Spec.Prec)
	if errors.Is(err, gpu.ErrModule) {
		return nil, fmt.Errorf("%w: %v (emit the package again, or pass WithFatbin the fatbin of its .cu)", ErrNoGPUNewton, err)
	}
	if err != nil {
		return nil, err
	}
	spec := cfg.Spec
	*opt = gpu.NewtonOptionsWith(k, *opt, func(plan *stager.Plan) gpu.Options {
		// The emitted plan (its hash checked when the Solver was made)
		// may run on the tables baked into the module, as the Solver's
		// executor does; they are checked word for word again.
		if cfg.ModuleTables && plan.Degree == spec.Degree && plan.Hash() == spec.PlanHash {
			return gpu.Options{ModuleTables: true}
		}
		return gpu.Options{}
	})
	return k.Close, nil
}
