//go:build cuda

package gpu

import (
	"errors"
	"fmt"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
)

// The Newton kernels of an emitted solver package: its .cu carries the
// evaluation kernels (with the job tables of the emitted plan) and the
// linear algebra of gen.LAKernelsCU in one translation unit, so one fatbin
// (one module) holds everything the device-resident Newton driver
// launches.

// LoadNewtonKernelsFrom loads one fatbin that holds both the evaluation
// kernels of precision p (its kind of data) and the
// linear-algebra kernels of gpuabi.LAOps for it (an emitted package's
// fatbin), and checks that every kernel the driver launches is there. A
// fatbin without them (built from an older emitted .cu, or from
// gen.KernelsCU) is refused with an error that wraps ErrModule.
func LoadNewtonKernelsFrom(dev *cudadev.Device, fatbin []byte, p mdops.Prec) (*NewtonKernels, error) {
	if dev == nil {
		return nil, errors.New("gpu: loading the Newton kernels: no device")
	}
	mod, err := dev.LoadModule(fatbin)
	if err != nil {
		return nil, fmt.Errorf("gpu: loading the %d-double Newton kernels: %w", p.N, err)
	}
	ev, err := UseKernels(dev, mod, p.N, p.Complex)
	if err != nil {
		return nil, errors.Join(err, mod.Unload())
	}
	// la owns the module: Close unloads it once (ev borrows it).
	k := &NewtonKernels{dev: dev, eval: ev, la: mod, fns: map[string]*cudadev.Function{}, prec: p}
	for _, op := range gpuabi.LAOps {
		name := gpuabi.LAKernelName(op, p)
		f, err := mod.Function(name)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("gpu: module %s: %w: no linear-algebra kernel %s (a fatbin of evaluation kernels only): %v",
				mod.Name(), ErrModule, name, err), k.Close())
		}
		k.fns[name] = f
	}
	return k, nil
}

// NewtonOptionsWith is NewtonOptions with the options of each working
// degree's executor given by exec (nil: the defaults): an emitted solver
// runs the plan of its own degree on the job tables baked into its module
// (Options.ModuleTables), and the staged lower degrees on uploaded ones.
func NewtonOptionsWith(k *NewtonKernels, opt newton.Options, exec func(plan *stager.Plan) Options) newton.Options {
	opt = NewtonOptions(k, opt)
	if exec == nil {
		return opt
	}
	opt.NewExecutor = func(plan *stager.Plan, p mdops.Prec, workers int) (backend.Executor, error) {
		if err := k.checkPrec(p); err != nil {
			return nil, err
		}
		return NewFromKernels(plan, p.Complex, k.eval, exec(plan))
	}
	return opt
}
