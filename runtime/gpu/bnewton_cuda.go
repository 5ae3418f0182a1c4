//go:build cuda

package gpu

import (
	"errors"
	"fmt"
	"time"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/runtime/backend"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/newton"
)

// BatchNewtonKernels are the loaded fatbin of gen.BatchNewtonCUSource(p).
type BatchNewtonKernels struct {
	dev *cudadev.Device
	mod *cudadev.Module
	fn  *cudadev.Function
	// param computes the parametric coefficients (complex data only).
	param *cudadev.Function
	prec  mdops.Prec
}

// LoadBatchNewtonKernels loads a fatbin of gen.BatchNewtonCUSource(p) on
// dev and checks that it has the kernel.
func LoadBatchNewtonKernels(dev *cudadev.Device, fatbin []byte, p mdops.Prec) (*BatchNewtonKernels, error) {
	mod, err := dev.LoadModule(fatbin)
	if err != nil {
		return nil, fmt.Errorf("gpu: loading the %s batched Newton solve: %w", p, err)
	}
	k := &BatchNewtonKernels{dev: dev, mod: mod, prec: p}
	name := gpuabi.BNKernelName(p)
	if k.fn, err = mod.Function(name); err != nil {
		return nil, errors.Join(fmt.Errorf("gpu: module %s: %w: kernel %s: %v", mod.Name(), ErrModule, name, err), k.Close())
	}
	if p.Complex {
		name := gpuabi.BNParamKernelName(p)
		if k.param, err = mod.Function(name); err != nil {
			return nil, errors.Join(fmt.Errorf("gpu: module %s: %w: kernel %s: %v", mod.Name(), ErrModule, name, err), k.Close())
		}
	}
	return k, nil
}

// Prec returns the precision and kind of data of the kernels.
func (k *BatchNewtonKernels) Prec() mdops.Prec { return k.prec }

// Close unloads the kernels.
func (k *BatchNewtonKernels) Close() error {
	if k.mod == nil {
		return nil
	}
	err := k.mod.Unload()
	k.mod = nil
	return err
}

// The device buffers of a BatchNewton.
const (
	bnData = iota
	bnConv
	bnAdd
	bnTabs
	bnLv
	bnCoef
	bnX0
	bnX
	bnA
	bnQA
	bnTau
	bnRinv
	bnRRev
	bnInfo
	bnAcc
	bnB
	bnDX
	bnY
	bnE
	bnRB
	bnCW
	bnTol
	bnRec
	bnParam      // each path's parameter (tau, e)
	bnParamEnt   // BNSetup.ParamEnt
	bnParamTerms // BNSetup.ParamTerms
	bnParamPolys // BNSetup.ParamPolys
	bnBufs
)

// BatchNewton runs whole Newton solves of one configuration (a system's
// plan, a precision, the driver's options) for up to Paths paths at once:
// one launch, one block per path (gen/gpuabi/bnewton.go), each path's
// Result and steps those of newton.Solver on that path alone with the CPU
// back end, bit for bit. Each solve sets its own start, the values of the
// coefficient slots it was made with (the rest of the plan's read-only
// slots keep the plan's values) and its RefineTol. Not safe for concurrent
// use.
type BatchNewton struct {
	k       *BatchNewtonKernels
	dev     *cudadev.Device
	s       *BNSetup
	threads int
	// stream is the solver's own: the solves of several BatchNewtons
	// (runtime/lockstep's groups of one round) run at once.
	stream *cudadev.Stream
	bufs   [bnBufs]cudadev.Buffer
	// Page-locked staging of a solve's inputs and outputs.
	x0H, coefH, tolH, recH, xH, paramH []float64
	hostBufs                           [][]float64
	// last is the last solve's times (Times).
	last BNTimes
}

// Times returns the wall times of the last solve.
func (bn *BatchNewton) Times() BNTimes { return bn.last }

// NewBatchNewton prepares the solves of s (NewBNSetup) on k's device,
// blocks of threads threads (0: the model's, gpuabi.BatchLAThreads of m).
func NewBatchNewton(k *BatchNewtonKernels, s *BNSetup, threads int) (*BatchNewton, error) {
	if k == nil || k.mod == nil || s == nil {
		return nil, errors.New("gpu: NewBatchNewton: no kernels or setup")
	}
	if s.Config.Prec != k.prec {
		return nil, fmt.Errorf("gpu: NewBatchNewton: %s data with the kernels of %s", s.Config.Prec, k.prec)
	}
	if s.Params != nil && k.param == nil {
		return nil, fmt.Errorf("gpu: NewBatchNewton: parametric coefficients, and no kernel for them in the %s module", k.prec)
	}
	bn := &BatchNewton{k: k, dev: k.dev, s: s, threads: gpuabi.BatchLAThreads(s.M, threads)}
	st := s.Strides
	W, N, P := int64(s.Config.Prec.Width()), int64(s.Config.Prec.N), int64(s.Paths)
	sizes := [bnBufs]int64{
		bnData: P * s.PathDoubles, bnX0: P * st.X0 * W, bnCoef: P * st.Coef * W, bnX: P * st.X * W,
		bnA: P * st.A * W, bnQA: P * st.QA * W, bnTau: P * st.Tau * W, bnRinv: P * st.Rinv * N,
		bnRRev: P * st.RRev * W, bnInfo: P * st.Info, bnAcc: P * st.Acc * W, bnB: P * st.B * W,
		bnDX: P * st.DX * W, bnY: P * st.Y * W, bnE: P * st.E * W, bnRB: P * st.RB * W, bnCW: P * st.CW, bnTol: P,
		bnRec: P * st.Rec,
	}
	if s.Params != nil {
		sizes[bnParam] = gpuabi.BNParamAt * P
	}
	var need int64
	for _, n := range sizes {
		need += 8 * n
	}
	if free, err := k.dev.FreeMemory(); err != nil {
		return nil, fmt.Errorf("gpu: NewBatchNewton: %w", err)
	} else if need > free-memoryReserve {
		return nil, &BNMemoryError{Paths: s.Paths, Fit: int(max(0, (free-memoryReserve)/(need/P))), Need: need, Free: free - memoryReserve}
	}
	ok := false
	defer func() {
		if !ok {
			bn.release()
		}
	}()
	var err error
	if bn.stream, err = k.dev.NewStream(); err != nil {
		return nil, fmt.Errorf("gpu: NewBatchNewton: %w", err)
	}
	for i, n := range sizes {
		switch i {
		case bnConv, bnAdd, bnTabs, bnLv, bnParamEnt, bnParamTerms, bnParamPolys:
			continue
		}
		if bn.bufs[i], err = k.dev.AllocFloat64s(max(n, 1)); err != nil {
			return nil, fmt.Errorf("gpu: NewBatchNewton: %w", err)
		}
	}
	if bn.bufs[bnConv], err = uploadInt32(k.dev, s.Conv, "convolution"); err != nil {
		return nil, err
	}
	if bn.bufs[bnAdd], err = uploadInt32(k.dev, s.Add, "addition"); err != nil {
		return nil, err
	}
	type table struct {
		buf  int
		x    []int64
		what string
	}
	tables := []table{{bnTabs, s.Tabs, "table"}, {bnLv, s.Lv, "table"}}
	if s.Params != nil {
		tables = append(tables, table{bnParamEnt, s.ParamEnt, "parametric coefficients' table"},
			table{bnParamTerms, s.ParamTerms, "parametric coefficients' table"})
	}
	for _, t := range tables {
		if bn.bufs[t.buf], err = uploadInt64(k.dev, t.x, t.what); err != nil {
			return nil, fmt.Errorf("gpu: NewBatchNewton: %w", err)
		}
	}
	if s.Params != nil {
		if bn.bufs[bnParamPolys], err = k.dev.AllocFloat64s(int64(max(1, len(s.ParamPolys)))); err != nil {
			return nil, fmt.Errorf("gpu: NewBatchNewton: %w", err)
		}
		if len(s.ParamPolys) > 0 {
			if err := k.dev.CopyHtoD(bn.bufs[bnParamPolys].Float64Slice(0, int64(len(s.ParamPolys))), s.ParamPolys); err != nil {
				return nil, fmt.Errorf("gpu: NewBatchNewton: uploading the parametric coefficients: %w", err)
			}
		}
	}
	// Every path's read-only slots; the rest of the data array is written
	// before it is read.
	image, err := s.Image()
	if err != nil {
		return nil, fmt.Errorf("gpu: NewBatchNewton: %w", err)
	}
	for p := int64(0); p < P; p++ {
		if err := k.dev.CopyHtoD(bn.bufs[bnData].Float64Slice(p*s.PathDoubles, s.PathDoubles), image); err != nil {
			return nil, fmt.Errorf("gpu: NewBatchNewton: uploading the coefficients: %w", err)
		}
	}
	for _, h := range []struct {
		dst *[]float64
		n   int64
	}{{&bn.x0H, P * st.X0 * W}, {&bn.coefH, max(1, P*st.Coef*W)}, {&bn.tolH, P}, {&bn.recH, P * st.Rec}, {&bn.xH, P * st.X * W},
		{&bn.paramH, max(1, sizes[bnParam])}} {
		buf, err := k.dev.AllocHost(h.n)
		if err != nil {
			return nil, fmt.Errorf("gpu: NewBatchNewton: %w", err)
		}
		bn.hostBufs = append(bn.hostBufs, buf)
		*h.dst = buf
	}
	ok = true
	return bn, nil
}

// Paths returns the most paths of one Solve.
func (bn *BatchNewton) Paths() int { return bn.s.Paths }

// Solve runs one solve for each path p < len(x0) (at most Paths): from
// x0[p] (n values, W doubles each, newton.Solver.SolveLimbs's x0), with
// the coefficient slots set to coef[p] (Strides.Coef elements: each
// level's slots in order, CK coefficients each, W doubles a coefficient;
// nil: zero), to the RefineTol tol[p]. It returns each path's Result (X is its own slice) and the
// steps its Progress would have reported. The error is the device's.
func (bn *BatchNewton) Solve(x0, coef [][]float64, tol []float64) ([]*newton.Result, [][]newton.StepInfo, error) {
	if len(coef) != len(x0) {
		return nil, nil, fmt.Errorf("gpu: BatchNewton.Solve: %d starts, %d coefficient lists", len(x0), len(coef))
	}
	sc := int(bn.s.Strides.Coef) * bn.s.Config.Prec.Width()
	return bn.SolveWith(x0, nil, func(p int, dst []float64) error {
		switch {
		case coef[p] == nil:
			clear(dst)
		case len(coef[p]) != sc:
			return fmt.Errorf("coefficients %d have %d doubles, want %d", p, len(coef[p]), sc)
		default:
			copy(dst, coef[p])
		}
		return nil
	}, tol)
}

// SolveWith is Solve with path p's coefficients written by pack(p, dst)
// straight into the staging buffer (dst: Strides.Coef elements; e.g.
// BNSetup.PackCoef), so that a solve allocates nothing for them, and with
// path p's parametric coefficients (BNSetup.UseParams) at param[p],
// computed on the device (param nil: the setup has none).
func (bn *BatchNewton) SolveWith(x0 [][]float64, param []backend.ParamAt, pack func(p int, dst []float64) error, tol []float64) ([]*newton.Result, [][]newton.StepInfo, error) {
	P := len(x0)
	if P < 1 || P > bn.s.Paths || len(tol) != P {
		return nil, nil, fmt.Errorf("gpu: BatchNewton.Solve: %d starts, %d tolerances for at most %d paths", P, len(tol), bn.s.Paths)
	}
	if (bn.s.Params != nil) != (param != nil) || param != nil && len(param) != P {
		return nil, nil, fmt.Errorf("gpu: BatchNewton.Solve: %d parameters for %d paths (parametric coefficients: %v)", len(param), P, bn.s.Params != nil)
	}
	st := bn.s.Strides
	W := int64(bn.s.Config.Prec.Width())
	sx0, sc := st.X0*W, st.Coef*W
	t0 := time.Now()
	for p := 0; p < P; p++ {
		if int64(len(x0[p])) != sx0 {
			return nil, nil, fmt.Errorf("gpu: BatchNewton.Solve: start %d has %d doubles, want %d", p, len(x0[p]), sx0)
		}
		copy(bn.x0H[int64(p)*sx0:], x0[p])
		if err := pack(p, bn.coefH[int64(p)*sc:int64(p+1)*sc]); err != nil {
			return nil, nil, fmt.Errorf("gpu: BatchNewton.Solve: %w", err)
		}
		bn.tolH[p] = tol[p]
		if param != nil {
			PackParams(bn.paramH, p, param[p])
		}
	}
	P64 := int64(P)
	ss := bn.stream
	t1 := time.Now()
	err := bn.dev.Do(func() error {
		if err := ss.CopyHtoD(bn.bufs[bnX0].Float64Slice(0, P64*sx0), bn.x0H[:P64*sx0]); err != nil {
			return err
		}
		if sc > 0 {
			if err := ss.CopyHtoD(bn.bufs[bnCoef].Float64Slice(0, P64*sc), bn.coefH[:P64*sc]); err != nil {
				return err
			}
		}
		if err := ss.CopyHtoD(bn.bufs[bnTol].Float64Slice(0, P64), bn.tolH[:P]); err != nil {
			return err
		}
		if nent := int64(len(bn.s.ParamEnt) / gpuabi.BNParamEntry); param != nil && nent > 0 {
			if err := ss.CopyHtoD(bn.bufs[bnParam].Float64Slice(0, gpuabi.BNParamAt*P64), bn.paramH[:gpuabi.BNParamAt*P]); err != nil {
				return err
			}
			const threads = gpuabi.BNParamThreads
			blocks := (P64*nent + threads - 1) / threads
			if err := ss.Launch(bn.k.param, cudadev.Dim3{int(blocks)}, cudadev.Dim3{threads}, 0, bn.bufs[bnCoef], st.Coef, P64,
				bn.bufs[bnParam], bn.bufs[bnParamEnt], nent, bn.bufs[bnParamTerms], bn.bufs[bnParamPolys]); err != nil {
				return err
			}
		}
		args := []any{bn.bufs[bnData], bn.s.PathDoubles, bn.bufs[bnConv], bn.bufs[bnAdd], bn.bufs[bnTabs], bn.bufs[bnLv],
			int64(len(bn.s.Levels)), bn.bufs[bnCoef], st.Coef, bn.bufs[bnX0], bn.bufs[bnX], bn.bufs[bnA], bn.bufs[bnQA], bn.bufs[bnTau], bn.bufs[bnRinv], bn.bufs[bnRRev],
			bn.bufs[bnInfo], bn.bufs[bnAcc], bn.bufs[bnB], bn.bufs[bnDX], bn.bufs[bnY], bn.bufs[bnE], bn.bufs[bnRB], bn.bufs[bnCW],
			st.CW, bn.bufs[bnTol], bn.bufs[bnRec]}
		args = append(args, bn.s.Scalars()...)
		if err := ss.Launch(bn.k.fn, cudadev.Dim3{P}, cudadev.Dim3{bn.threads}, 0, args...); err != nil {
			return err
		}
		if err := ss.CopyDtoH(bn.recH[:P64*st.Rec], bn.bufs[bnRec].Float64Slice(0, P64*st.Rec)); err != nil {
			return err
		}
		return ss.CopyDtoH(bn.xH[:P64*st.X*W], bn.bufs[bnX].Float64Slice(0, P64*st.X*W))
	})
	// Await, so that the device's thread stays free for the other
	// solvers' launches meanwhile: its owner polls every waiting solve's
	// stream at once. (Each solve polling Done every 20 us, a hand-off to
	// the device's thread each time, cost katsura 15 on 4 GPUs in one
	// process 30 s of system time in a 4.8 s run; with Await, 11 to 13 s.)
	if err == nil {
		err = ss.Await()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("gpu: the batched Newton solve of %d paths on %s: %w", P, bn.dev.Info().Name, err)
	}
	t2 := time.Now()
	res := make([]*newton.Result, P)
	steps := make([][]newton.StepInfo, P)
	sx := st.X * W
	for p := int64(0); p < P64; p++ {
		x := append([]float64(nil), bn.xH[p*sx:(p+1)*sx]...)
		res[p], steps[p] = bn.s.Result(bn.recH[p*st.Rec:(p+1)*st.Rec], x)
	}
	bn.last = BNTimes{Solves: 1, Paths: P64, Pack: t1.Sub(t0), Device: t2.Sub(t1), Decode: time.Since(t2)}
	return res, steps, nil
}

// Close frees the device memory.
func (bn *BatchNewton) Close() error { return bn.release() }

func (bn *BatchNewton) release() error {
	var errs []error
	if bn.stream != nil {
		errs = append(errs, bn.stream.Close())
		bn.stream = nil
	}
	for i, b := range bn.bufs {
		if !b.IsNil() {
			errs = append(errs, bn.dev.Free(b))
			bn.bufs[i] = cudadev.Buffer{}
		}
	}
	for _, h := range bn.hostBufs {
		errs = append(errs, bn.dev.FreeHost(h))
	}
	bn.hostBufs = nil
	return errors.Join(errs...)
}
