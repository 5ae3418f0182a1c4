// Package gpu is the GPU back end. Its executor runs a stager.Plan on a
// CUDA device with kernels that keep the contract of package gpuabi
// (mdgen's generated ones, from gen and templates/kernels.cu.tmpl, or the
// reference kernels of gpuabi.ReferenceKernelsCU), bit for bit the CPU
// executor's (cpu.New); it implements backend.Executor. Beside it: the
// device-resident Newton back end (a newton.Backend) and the batched
// bricks below.
//
// The real executor needs the build tag cuda (gorgonia.org/cu through
// runtime/gpu/cudadev; see `make gpu`); without it the same API compiles and
// every constructor returns an error that wraps cudadev.ErrNoCUDA, and
// Enabled is false. It imports runtime/backend (Layout, RoundSeries,
// Executor); the CPU side needs nothing of it.
//
//	k, err := gpu.LoadKernels(dev, fatbin, 8, false) // one fatbin, many executors
//	g, err := gpu.NewFromKernels(plan, false, k, gpu.Options{})
//	g.SetInput(v, series)                            // CPU layout (backend.Layout)
//	kernelMs, wallMs, err := g.RunTimed()
//	y := g.Value(0)
//
// Batch runs one plan for many paths at once (gpuabi's batched contract:
// the paths of one element side by side, one thread per job and path, one
// launch per layer; or, with BatchOptions.OneLaunch, one block per path
// running every layer in one launch), each path with its own inputs and
// coefficient values, each path's bits the CPU executor's on its data:
//
//	k, err := gpu.LoadBatchKernels(dev, fatbin, 4, true) // gen.BatchCUSource
//	b, err := gpu.NewBatch(plan, mdops.Prec{N: 4, Complex: true}, 4096, k, gpu.BatchOptions{})
//	b.SetInput(path, v, series)
//	b.SetValue(path, slot, series)                       // a coefficient slot of one path
//	err = b.Run()
//	y = b.Value(path, 0, y)
//
// Refiner refines many start points of one system at once (Newton at
// degree 0: a Batch evaluation and BatchLA's QR, solve and residual per
// step for the whole batch, each path's decisions on the host as
// runtime/newton's driver takes them), each path's Result newton.Solver's
// on that start alone:
//
//	res, err := gpu.RefineBatch(sys, prec, k, lak, starts, gpu.RefineOptions{}) // lak: LoadBatchLAKernels(prec)
//
// BatchNewton runs whole Newton solves (runtime/newton's driver, both
// phases, the CPU back end's order of operations) for many paths of one
// configuration in one launch, one block per path (gpuabi's bnewton.go:
// the one-block evaluation of each working degree's plan, the batched
// linear algebra's bodies, la's condition estimate, every decision of
// the driver made alike by the block's threads), each path's Result and
// steps newton.Solver's on that path alone with the CPU back end, bit for
// bit; BNSetup is what the host works out for it once (shared with gen's
// host emulation of the kernel):
//
//	s, err := gpu.NewBNSetup(gpu.BNConfig{Plans: plans, Prec: p, Opt: opt}, vars, coefSlots, ck, paths)
//	bn, err := gpu.NewBatchNewton(k, s, 0)               // k: LoadBatchNewtonKernels(p)
//	res, steps, err := bn.Solve(x0, coef, tol)          // coef: s.PackCoef
package gpu
