package kernels

import (
	"errors"
	"slices"
	"sync"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/lockstep"
	"github.com/mdgen/mdgen/runtime/newton"
	"github.com/mdgen/mdgen/stager"
)

// Solves makes the batched Newton solves of runtime/lockstep's
// DeviceSolves on the Builder's device (gpu.BatchNewton), building and
// loading the kernel of each precision and kind of data on first use.
type Solves struct {
	// Threads is the block of each path (0: the model's).
	Threads int

	b     *Builder
	mu    sync.Mutex
	times gpu.BNTimes // every solve's (Times)
	ks    map[mdops.Prec]*gpu.BatchNewtonKernels
}

// Solves returns the batched Newton solves of b's device.
func (b *Builder) Solves() *Solves {
	return &Solves{b: b, ks: map[mdops.Prec]*gpu.BatchNewtonKernels{}}
}

// NewSolver is lockstep.SolveDevice's: a gpu.BatchNewton of the
// configuration for paths paths. A batch that does not fit the device's
// free memory is refused with a lockstep.TooLargeError that says how
// many paths fit (DeviceSolves splits its groups).
func (t *Solves) NewSolver(plans map[int]*stager.Plan, p mdops.Prec, set newton.Settings, vars []string,
	coefSlots map[int][]stager.Slot, ck, paths int, pc *backend.ParamCoefs) (lockstep.DeviceSolver, error) {
	k, err := t.kernels(p)
	if err != nil {
		return nil, err
	}
	opt := newton.Options{Prec: p, Degree: set.Degree, MaxSteps: set.MaxSteps, MaxCond: set.MaxCond,
		RefineTol: set.RefineTol, NoResidual: set.NoResidual, NoFinalResidual: set.NoFinalResidual, NoStageTimes: true}
	s, err := gpu.NewBNSetup(gpu.BNConfig{Plans: plans, Prec: p, Opt: opt}, vars, coefSlots, ck, paths)
	if err != nil {
		return nil, err
	}
	if pc != nil {
		if err := s.UseParams(pc); err != nil {
			return nil, err
		}
	}
	bn, err := gpu.NewBatchNewton(k, s, t.Threads)
	if me := (*gpu.BNMemoryError)(nil); errors.As(err, &me) && me.Fit > 0 && me.Fit < paths {
		return nil, &lockstep.TooLargeError{Paths: paths, Fit: me.Fit, Err: err}
	}
	if err != nil {
		return nil, err
	}
	return &deviceSolver{bn: bn, s: s, t: t}, nil
}

// TakesParams is lockstep.SolveDevice's: the batched solve computes the
// parametric coefficients of complex data whose polynomials have at most
// gpuabi.BNParamMaxLen coefficients (gpu.BNSetup.UseParams).
func (t *Solves) TakesParams(pc *backend.ParamCoefs) bool {
	return pc.Prec.Complex && pc.Len <= gpuabi.BNParamMaxLen
}

// Times returns where the solves of t's solvers spent their wall time so
// far (gpu.BNTimes, summed over the solves; the solves of several
// solvers overlap).
func (t *Solves) Times() gpu.BNTimes {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.times
}

// deviceSolver is a BatchNewton as a lockstep.DeviceSolver.
type deviceSolver struct {
	bn *gpu.BatchNewton
	s  *gpu.BNSetup
	t  *Solves
}

func (d *deviceSolver) Paths() int   { return d.bn.Paths() }
func (d *deviceSolver) Close() error { return d.bn.Close() }

func (d *deviceSolver) Solve(x0 [][]float64, value []func(int, stager.Slot) []float64, param []backend.ParamAt, tol []float64) ([]*newton.Result, [][]newton.StepInfo, error) {
	res, steps, err := d.bn.SolveWith(x0, param, func(p int, dst []float64) error { return d.s.PackCoef(dst, value[p]) }, tol)
	if err == nil {
		d.t.mu.Lock()
		d.t.times.Add(d.bn.Times())
		d.t.mu.Unlock()
	}
	return res, steps, err
}

func (t *Solves) kernels(p mdops.Prec) (*gpu.BatchNewtonKernels, error) {
	if err := t.Prepare(p); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ks[p], nil
}

// Prepare builds and loads the kernels of the precisions ps not loaded
// yet, in one parallel nvcc run (a tracker with the automatic precision
// needs several; nvcc takes minutes for the wider ones).
func (t *Solves) Prepare(ps ...mdops.Prec) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var want []mdops.Prec
	var srcs []nvcc.Source
	for _, p := range ps {
		if _, ok := t.ks[p]; ok || slices.Contains(want, p) {
			continue
		}
		src, err := gen.BatchNewtonCUSource(p)
		if err != nil {
			return err
		}
		want, srcs = append(want, p), append(srcs, src)
	}
	if len(srcs) == 0 {
		return nil
	}
	res, err := t.b.Compile(srcs)
	if err != nil {
		return err
	}
	for i, p := range want {
		k, err := gpu.LoadBatchNewtonKernels(t.b.dev, res[i].Fatbin, p)
		if err != nil {
			return err
		}
		t.ks[p] = k
	}
	return nil
}

// Close unloads the kernels (after the solvers are closed).
func (t *Solves) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return closeKernels(t.ks)
}
