//go:build cuda

package gpu

import (
	"errors"
	"fmt"
	"math"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/stager"
)

// BatchLAKernels are the loaded fatbin of gen.BatchLACUSource(p): the
// batched linear algebra of one precision and kind of data, with the
// single-path kernels it shares (mulsub, norm1, leadnorm1).
type BatchLAKernels struct {
	dev  *cudadev.Device
	mod  *cudadev.Module
	fns  map[string]*cudadev.Function
	prec mdops.Prec
}

// LoadBatchLAKernels loads a fatbin of gen.BatchLACUSource(p) on dev and
// checks that it has every kernel BatchLA launches.
func LoadBatchLAKernels(dev *cudadev.Device, fatbin []byte, p mdops.Prec) (*BatchLAKernels, error) {
	mod, err := dev.LoadModule(fatbin)
	if err != nil {
		return nil, fmt.Errorf("gpu: loading the %s batched linear-algebra kernels: %w", p, err)
	}
	k := &BatchLAKernels{dev: dev, mod: mod, fns: map[string]*cudadev.Function{}, prec: p}
	for _, op := range append([]gpuabi.LAOp{gpuabi.LAMulSub, gpuabi.LANorm1, gpuabi.LALeadNorm1}, gpuabi.BatchLAOps...) {
		name := gpuabi.LAKernelName(op, p)
		f, err := mod.Function(name)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("gpu: module %s: %w: kernel %s: %v", mod.Name(), ErrModule, name, err), k.Close())
		}
		k.fns[name] = f
	}
	return k, nil
}

// Prec returns the precision and kind of data of the kernels.
func (k *BatchLAKernels) Prec() mdops.Prec { return k.prec }

// Close unloads the kernels.
func (k *BatchLAKernels) Close() error {
	if k.mod == nil {
		return nil
	}
	err := k.mod.Unload()
	k.mod = nil
	return err
}

// MaxBatchLAPaths returns the most paths of m x n systems at k's
// precision that one BatchLA on k's device can hold now (its free memory,
// less the reserve).
func MaxBatchLAPaths(k *BatchLAKernels, m, n int, inverse bool) (int, error) {
	free, err := k.dev.FreeMemory()
	if err != nil {
		return 0, err
	}
	return batchLAMaxPaths(k.prec, m, n, inverse, free-memoryReserve), nil
}

// The buffers of a BatchLA (LAPtr.Buf).
const (
	blaA    = iota // the matrices as set (path p at p·m·n, lda = m)
	blaF           // their factors (la's A)
	blaTau         // n per path
	blaRinv        // n N-double reals per path
	blaRRev        // LARRevLen(n) per path
	blaInfo        // gpuabi.BatchLAInfo doubles per path
	blaB           // m per path
	blaX           // n per path
	blaR           // m per path: b - A x
	blaNorm        // an N-double real per path
	blaAcc         // LABackSub1Acc(n) per path
	blaLead        // a double per path
	blaEst         // the condition estimate's work: gpuabi.LABCondWork(p, n) per path
	blaCond        // a double per path
	blaE           // m x m per path (Options.Inverse)
	blaBufs
)

// BatchLA is the linear algebra of Newton's method for a batch of small
// systems on a CUDA device: paths m x n matrices A_p (m >= n) and vectors
// b_p, x_p, each path's results those of mdops/la on its data, bit for
// bit (la's NewQR, RankCheck, ApplyQH, SolveR, ApplyQHMany, SolveRMany,
// MulSub, Norm1, LeadNorm1 and LeadNorm1 of b - A x; Cond). One launch
// per operation serves the whole batch, one block of threads per path
// (gen/gpuabi/batchla.go). The flat buffers of the methods hold the paths
// one after the other in la's layout: A_p column-major (lda = m) at
// p·m·n elements, b_p at p·m, x_p at p·n (W = p.Width() doubles each).
// Not safe for concurrent use.
type BatchLA struct {
	k           *BatchLAKernels
	dev         *cudadev.Device
	v           gpuabi.LAVariant
	m, n, paths int
	threads     int
	bufs        []cudadev.Buffer
	factored    bool
	inverse     bool
	infoHost    []float64
	infoValid   bool
}

// NewBatchLA prepares the linear algebra of paths m x n systems with
// kernels k. The device memory is checked before anything is allocated:
// a batch that does not fit is refused with an error wrapping ErrMemory
// that says how many paths fit (MaxBatchLAPaths).
func NewBatchLA(k *BatchLAKernels, m, n, paths int, opt BatchLAOptions) (*BatchLA, error) {
	if k == nil || k.mod == nil {
		return nil, errors.New("gpu: NewBatchLA: no kernels")
	}
	p := k.prec
	what := fmt.Sprintf("the linear algebra of %d paths of %d x %d %s systems", paths, m, n, p)
	if m < n || n < 1 || paths < 1 || paths > math.MaxInt32 {
		return nil, fmt.Errorf("gpu: preparing %s: want m >= n >= 1 and 1..%d paths", what, math.MaxInt32)
	}
	if err := opt.check(); err != nil {
		return nil, fmt.Errorf("gpu: preparing %s: %w", what, err)
	}
	free, err := k.dev.FreeMemory()
	if err != nil {
		return nil, fmt.Errorf("gpu: preparing %s: %w", what, err)
	}
	if need := BatchLAMemory(p, m, n, paths, opt.Inverse); need > free-memoryReserve {
		fit := batchLAMaxPaths(p, m, n, opt.Inverse, free-memoryReserve)
		split := "not even one path fits"
		if fit > 0 {
			split = fmt.Sprintf("at most %d paths fit: split the batch into %d batches", fit, (paths+fit-1)/fit)
		}
		return nil, fmt.Errorf("gpu: %w: %s need %s, but %s of %s is free on %s (%s kept in reserve): %s",
			ErrMemory, what, stager.FormatBytes(need), stager.FormatBytes(free), stager.FormatBytes(k.dev.Info().TotalMemory),
			k.dev.Info().Name, stager.FormatBytes(memoryReserve), split)
	}
	W, N, P := int64(p.Width()), int64(p.N), int64(paths)
	m64, n64 := int64(m), int64(n)
	sizes := [blaBufs]int64{
		blaA: P * m64 * n64 * W, blaF: P * m64 * n64 * W, blaTau: P * n64 * W, blaRinv: P * n64 * N,
		blaRRev: P * int64(gpuabi.LARRevLen(n)) * W, blaInfo: P * gpuabi.BatchLAInfo, blaB: P * m64 * W, blaX: P * n64 * W,
		blaR: P * m64 * W, blaNorm: P * N, blaAcc: P * int64(gpuabi.LABackSub1Acc(n)) * W, blaLead: P,
		blaEst: P * int64(gpuabi.LABCondWork(p, n)), blaCond: P,
	}
	if opt.Inverse {
		sizes[blaE] = P * m64 * m64 * W
	}
	b := &BatchLA{k: k, dev: k.dev, v: gpuabi.LAVariant{Prec: p}, m: m, n: n, paths: paths,
		threads: gpuabi.BatchLAThreads(m, opt.Threads), inverse: opt.Inverse}
	ok := false
	defer func() {
		if !ok {
			b.release()
		}
	}()
	for i, s := range sizes {
		buf, err := b.dev.AllocFloat64s(max(s, 1))
		if err != nil {
			return nil, fmt.Errorf("gpu: allocating %s: %w", what, err)
		}
		b.bufs = append(b.bufs, buf)
		if i == blaA || i == blaB || i == blaX {
			if err := b.dev.Memset(buf, 0); err != nil {
				return nil, fmt.Errorf("gpu: zeroing %s: %w", what, err)
			}
		}
	}
	ok = true
	return b, nil
}

// Paths, Rows, Cols and Threads return the shape of the batch and the
// threads of each path's block.
func (b *BatchLA) Paths() int   { return b.paths }
func (b *BatchLA) Rows() int    { return b.m }
func (b *BatchLA) Cols() int    { return b.n }
func (b *BatchLA) Threads() int { return b.threads }

func (b *BatchLA) w() int { return b.v.W() }

func blaPtr(buf int) gpuabi.LAPtr { return gpuabi.LAPtr{Buf: buf} }

func (b *BatchLA) set(buf int, x []float64, per int, what string) error {
	if want := b.paths * per * b.w(); len(x) != want {
		return fmt.Errorf("gpu: BatchLA: %d doubles of %s, want %d (%d paths)", len(x), what, want, b.paths)
	}
	return b.dev.CopyHtoD(b.bufs[buf], x)
}

func (b *BatchLA) get(buf int, n int64) ([]float64, error) {
	x := make([]float64, n)
	if err := b.dev.CopyDtoH(x, b.bufs[buf].Float64Slice(0, n)); err != nil {
		return nil, err
	}
	return x, nil
}

// SetA uploads the matrices A_p (paths·m·n elements).
func (b *BatchLA) SetA(a []float64) error {
	b.factored = false
	return b.set(blaA, a, b.m*b.n, "the matrices")
}

// SetB uploads the vectors b_p (paths·m elements).
func (b *BatchLA) SetB(x []float64) error { return b.set(blaB, x, b.m, "the right-hand sides") }

// SetX uploads the vectors x_p (paths·n elements).
func (b *BatchLA) SetX(x []float64) error { return b.set(blaX, x, b.n, "the vectors x") }

// B downloads the vectors b_p.
func (b *BatchLA) B() ([]float64, error) { return b.get(blaB, int64(b.paths*b.m*b.w())) }

// launch queues ls and reports the first error, naming the operation.
func (b *BatchLA) launch(what string, ls ...[]gpuabi.LALaunch) error {
	err := b.dev.Do(func() error {
		for _, seq := range ls {
			for _, l := range seq {
				fn := b.k.fns[l.Kernel]
				if fn == nil {
					return fmt.Errorf("no kernel %s", l.Kernel)
				}
				args := make([]any, len(l.Args))
				for i, a := range l.Args {
					if p, ok := a.(gpuabi.LAPtr); ok {
						buf := b.bufs[p.Buf]
						args[i] = buf.Float64Slice(p.Off, buf.Float64s()-p.Off)
					} else {
						args[i] = a
					}
				}
				if err := b.dev.Launch(fn, cudadev.Dim3{l.Grid}, cudadev.Dim3{l.Block}, 0, args...); err != nil {
					return fmt.Errorf("%s: %w", l.Kernel, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("gpu: BatchLA %s of %d paths: %w", what, b.paths, err)
	}
	return nil
}

// QR factors every A_p (la NewQR; the matrices stay as set, for MulSub
// and Residual) and checks its rank (Info, RankErrors).
func (b *BatchLA) QR() error {
	m, n, P := b.m, b.n, b.paths
	if err := b.dev.CopyDtoD(b.bufs[blaF], b.bufs[blaA]); err != nil {
		return fmt.Errorf("gpu: BatchLA QR: %w", err)
	}
	b.infoValid = false
	tol := float64(n) * la.Eps(b.v.N)
	if err := b.launch("QR",
		b.v.BatchQR(m, n, m, m*n, blaPtr(blaF), blaPtr(blaTau), P, b.threads),
		b.v.BatchPackR(m, n, m, m*n, blaPtr(blaF), blaPtr(blaRinv), blaPtr(blaRRev), tol, blaPtr(blaInfo), P, b.threads)); err != nil {
		return err
	}
	b.factored = true
	return nil
}

func (b *BatchLA) needQR(what string) error {
	if !b.factored {
		return fmt.Errorf("gpu: BatchLA %s: no factorization (QR after SetA)", what)
	}
	return nil
}

// ApplyQH sets b_p = Q_p^H b_p (la ApplyQH).
func (b *BatchLA) ApplyQH() error {
	if err := b.needQR("ApplyQH"); err != nil {
		return err
	}
	return b.launch("ApplyQH", b.v.BatchApplyQH1(b.m, b.n, b.m, b.m*b.n, blaPtr(blaF), blaPtr(blaTau), blaPtr(blaB), b.m, b.paths, b.threads))
}

// SolveR sets b_p[:n] = R_p^-1 b_p[:n] (la SolveR); a path whose R has a
// zero R_kk keeps b_p (RankErrors says which).
func (b *BatchLA) SolveR() error {
	if err := b.needQR("SolveR"); err != nil {
		return err
	}
	return b.launch("SolveR", b.v.BatchBackSub1(b.n, blaPtr(blaRRev), blaPtr(blaRinv), blaPtr(blaInfo), blaPtr(blaB), b.m,
		blaPtr(blaAcc), b.paths, b.threads))
}

// Solve is ApplyQH then SolveR: Newton's solve of every path in two
// launches (x_p in b_p[:n]).
func (b *BatchLA) Solve() error {
	if err := b.ApplyQH(); err != nil {
		return err
	}
	return b.SolveR()
}

// MulSub sets b_p = b_p - A_p x_p (la MulSub, with the matrices as set).
func (b *BatchLA) MulSub() error {
	m, n := b.m, b.n
	return b.launch("MulSub", b.v.LAMulSub(m, n, blaPtr(blaA), m, m*n, blaPtr(blaX), n, blaPtr(blaB), m, blaPtr(blaB), m, b.paths))
}

// Residual returns ||b_p - A_p x_p||_1 of every path as Newton's driver
// takes it (la.LeadNorm1 of b_p - A_p x_p computed by la's MulSub: a
// double per path); b is unchanged.
func (b *BatchLA) Residual() ([]float64, error) {
	m, n := b.m, b.n
	if err := b.launch("Residual",
		b.v.LAMulSub(m, n, blaPtr(blaA), m, m*n, blaPtr(blaX), n, blaPtr(blaB), m, blaPtr(blaR), m, b.paths),
		b.v.LALeadNorm1(blaPtr(blaR), m, m, b.paths, blaPtr(blaLead))); err != nil {
		return nil, err
	}
	return b.get(blaLead, int64(b.paths))
}

// Norm1 returns la's Norm1 of every b_p (N doubles per path).
func (b *BatchLA) Norm1() ([]float64, error) {
	if err := b.launch("Norm1", b.v.LANorm1(blaPtr(blaB), b.m, b.m, b.paths, blaPtr(blaNorm))); err != nil {
		return nil, err
	}
	return b.get(blaNorm, int64(b.paths*b.v.N))
}

// LeadNorm1 returns la.LeadNorm1 of every b_p.
func (b *BatchLA) LeadNorm1() ([]float64, error) {
	if err := b.launch("LeadNorm1", b.v.LALeadNorm1(blaPtr(blaB), b.m, b.m, b.paths, blaPtr(blaLead))); err != nil {
		return nil, err
	}
	return b.get(blaLead, int64(b.paths))
}

// Inverse forms E_p = -R_p^-1 Q_p^H of every path in its m x m matrix (la
// ApplyQHMany on -I_m, then SolveRMany on the first n rows: runtime/cpu's
// FormInverse) and returns them (paths·m·m elements; a path whose R has a
// zero R_kk keeps Q^H (-I)). It needs BatchLAOptions.Inverse.
func (b *BatchLA) Inverse() ([]float64, error) {
	if err := b.needQR("Inverse"); err != nil {
		return nil, err
	}
	if !b.inverse {
		return nil, errors.New("gpu: BatchLA Inverse: made without BatchLAOptions.Inverse")
	}
	m, n, W := b.m, b.n, b.w()
	e := make([]float64, b.paths*m*m*W)
	for p := 0; p < b.paths; p++ {
		for i := 0; i < m; i++ {
			e[(p*m*m+i+i*m)*W] = -1
		}
	}
	if err := b.dev.CopyHtoD(b.bufs[blaE], e); err != nil {
		return nil, err
	}
	if err := b.launch("Inverse",
		b.v.BatchApplyQH(m, n, m, m*n, blaPtr(blaF), blaPtr(blaTau), m, blaPtr(blaE), m, m*m, b.paths, b.threads),
		b.v.BatchBackSub(n, blaPtr(blaRRev), blaPtr(blaRinv), blaPtr(blaInfo), m, blaPtr(blaE), m, m*m, b.paths, b.threads)); err != nil {
		return nil, err
	}
	return b.get(blaE, int64(len(e)))
}

// Info downloads the info of every path after QR (gpuabi.BatchLAInfo
// doubles each: la's rank check, its singular test, ||R||_1).
func (b *BatchLA) Info() ([]float64, error) {
	if err := b.needQR("Info"); err != nil {
		return nil, err
	}
	if !b.infoValid {
		x, err := b.get(blaInfo, int64(b.paths*gpuabi.BatchLAInfo))
		if err != nil {
			return nil, err
		}
		b.infoHost, b.infoValid = x, true
	}
	return b.infoHost, nil
}

// RankErrors returns la's *RankError of every path's QR (nil where R
// passes the rank check), as NewQR returns it.
func (b *BatchLA) RankErrors() ([]*la.RankError, error) {
	info, err := b.Info()
	if err != nil {
		return nil, err
	}
	tol := float64(b.n) * la.Eps(b.v.N)
	errs := make([]*la.RankError, b.paths)
	for p := range errs {
		in := info[p*gpuabi.BatchLAInfo:]
		if c := in[gpuabi.BatchLARankCol]; c != 0 {
			errs[p] = &la.RankError{Col: int(c), Ratio: in[gpuabi.BatchLARankRatio], Tol: tol}
		}
	}
	return errs, nil
}

// Factors downloads the factors of every path: la's A (paths·m·n
// elements) and Tau (paths·n).
func (b *BatchLA) Factors() (a, tau []float64, err error) {
	if err := b.needQR("Factors"); err != nil {
		return nil, nil, err
	}
	W := b.w()
	if a, err = b.get(blaF, int64(b.paths*b.m*b.n*W)); err != nil {
		return nil, nil, err
	}
	if tau, err = b.get(blaTau, int64(b.paths*b.n*W)); err != nil {
		return nil, nil, err
	}
	return a, tau, nil
}

// Conds returns la's condition estimate Cond of every path's R (its bits:
// +Inf where R has a zero R_kk), computed on the device from the factors
// of QR (gpuabi's bcond, the estimate of la_bcond_block).
func (b *BatchLA) Conds() ([]float64, error) {
	if err := b.needQR("Conds"); err != nil {
		return nil, err
	}
	m, n := b.m, b.n
	if err := b.launch("Conds", b.v.BatchCond(n, m, m*n, blaPtr(blaF), blaPtr(blaRinv), blaPtr(blaRRev), blaPtr(blaInfo),
		blaPtr(blaEst), gpuabi.LABCondWork(b.v.Prec, n), blaPtr(blaCond), b.paths, b.threads)); err != nil {
		return nil, err
	}
	return b.get(blaCond, int64(b.paths))
}

// Synchronize waits for the queued work.
func (b *BatchLA) Synchronize() error { return b.dev.Synchronize() }

func (b *BatchLA) release() error {
	var errs []error
	for _, buf := range b.bufs {
		errs = append(errs, b.dev.Free(buf))
	}
	b.bufs = nil
	return errors.Join(errs...)
}

// Close frees the device memory (the kernels stay loaded).
func (b *BatchLA) Close() error { return b.release() }
