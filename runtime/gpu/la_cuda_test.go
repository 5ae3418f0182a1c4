//go:build cuda

package gpu_test

// The linear-algebra kernels of gen.LAKernelsCU (gen/gpuabi/la.go) on a
// real GPU, against mdops/la, bit for bit: the QR factors A and Tau, Q^H b
// and the back substitution for several right-hand sides, the Toeplitz
// updates and residual norms, and the linear algebra of one Newton step
// (k = 0..w: y = Q^H b_k, R dx_k = y, b_j -= A_(j-k) dx_k for j > k, then
// the residuals), with the times of each kind of launch beside the CPU's.
// (An external test package: gen imports runtime/gpu.) nvcc compiles the
// kernels on the GPU machine (cached by content). Build here, run there
// (anywhere in the repository; make gpu-runtime-test builds the same
// binary):
//
//	CGO_CFLAGS="-I$PWD/build/cudacompat -I$PWD/.cuda-sdk/include" \
//	CGO_LDFLAGS="-L$PWD/.cuda-sdk/lib" go test -c -tags cuda -o .gpu/runtime.test ./runtime/gpu
//	cd runtime && ../.gpu/runtime.test -test.run GPULinearAlgebra -test.v
//
// MDGEN_GPU_LA_NS picks the precisions (default 2,4,8; nvcc takes a few
// minutes for 16), MDGEN_GPU_LA_SIZE the largest n of the timed Newton
// step (default 256), MDGEN_GPU_LA_NOINLINE=1 compiles the arithmetic as
// __noinline__ functions (the same bits, a quicker nvcc).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/mdgen/mdgen/gen"
	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/gen/nvcc"
	"github.com/mdgen/mdgen/internal/xcheck"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
)

func laEnvInts(name string, def []int) []int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	var v []int
	for _, f := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil {
			v = append(v, n)
		}
	}
	return v
}

// laDev runs launch sequences of gpuabi on the device.
type laDev struct {
	t    *testing.T
	dev  *cudadev.Device
	mod  *cudadev.Module
	fns  map[string]*cudadev.Function
	bufs []cudadev.Buffer
}

func (d *laDev) buffer(x []float64) gpuabi.LAPtr {
	d.t.Helper()
	b, err := d.dev.AllocFloat64s(int64(max(len(x), 1)))
	if err != nil {
		d.t.Fatal(err)
	}
	if len(x) > 0 {
		if err := d.dev.CopyHtoD(b, x); err != nil {
			d.t.Fatal(err)
		}
	}
	d.bufs = append(d.bufs, b)
	return gpuabi.LAPtr{Buf: len(d.bufs) - 1}
}

func (d *laDev) slice(p gpuabi.LAPtr, n int) cudadev.Buffer {
	return d.bufs[p.Buf].Float64Slice(p.Off, int64(n))
}

func (d *laDev) read(p gpuabi.LAPtr, n int) []float64 {
	d.t.Helper()
	x := make([]float64, n)
	if n > 0 {
		if err := d.dev.CopyDtoH(x, d.slice(p, n)); err != nil {
			d.t.Fatal(err)
		}
	}
	return x
}

// launch runs ls (inside Device.Do when called from there).
func (d *laDev) launch(ls []gpuabi.LALaunch) error {
	for _, l := range ls {
		fn := d.fns[l.Kernel]
		if fn == nil {
			var err error
			if fn, err = d.mod.Function(l.Kernel); err != nil {
				return err
			}
			d.fns[l.Kernel] = fn
		}
		args := make([]any, len(l.Args))
		for i, a := range l.Args {
			switch a := a.(type) {
			case gpuabi.LAPtr:
				b := d.bufs[a.Buf]
				args[i] = b.Float64Slice(a.Off, b.Float64s()-a.Off)
			default:
				args[i] = a
			}
		}
		if err := d.dev.Launch(fn, cudadev.Dim3{l.Grid}, cudadev.Dim3{l.Block}, 0, args...); err != nil {
			return err
		}
	}
	return nil
}

func (d *laDev) run(ls []gpuabi.LALaunch) {
	d.t.Helper()
	if err := d.launch(ls); err != nil {
		d.t.Fatal(err)
	}
	if err := d.dev.Synchronize(); err != nil {
		d.t.Fatal(err)
	}
}

// timed runs f once to warm up and returns the device time of a second run in ms.
func (d *laDev) timed(f func() error) float64 {
	d.t.Helper()
	if err := d.dev.Do(f); err != nil {
		d.t.Fatal(err)
	}
	ms, err := d.dev.Time(f)
	if err != nil {
		d.t.Fatal(err)
	}
	return ms
}

func (d *laDev) free() {
	for _, b := range d.bufs {
		_ = d.dev.Free(b)
	}
	d.bufs = nil
}

func laSameBits(t *testing.T, what string, w int, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d doubles, want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.IsNaN(got[i]) && math.IsNaN(want[i]) {
			continue // NaN payloads are not portable
		}
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: element %d, double %d of %d: GPU %v, mdops/la %v", what, i/w, i%w, w, got[i], want[i])
		}
	}
}

// laQRFactors returns la's NewQR factors A (lda = m) and Tau as flat buffers.
type laQRFactors func(m, n int, a []float64, lda, workers int) (A, tau []float64, err error)

func mkLAQRFactors[E, Q any](newQR func(int, int, []E, int, int) (*Q, error), parts func(*Q) ([]E, []E)) laQRFactors {
	var e E
	w := int(unsafe.Sizeof(e) / 8)
	return func(m, n int, a []float64, lda, workers int) ([]float64, []float64, error) {
		q, err := newQR(m, n, unsafe.Slice((*E)(unsafe.Pointer(&a[0])), len(a)/w), lda, workers)
		A, tau := parts(q)
		return slices.Clone(unsafe.Slice((*float64)(unsafe.Pointer(&A[0])), len(A)*w)),
			slices.Clone(unsafe.Slice((*float64)(unsafe.Pointer(&tau[0])), len(tau)*w)), err
	}
}

var laFactors = map[gpuabi.LAVariant]laQRFactors{
	{Prec: mdops.Prec{N: 1}}:                 mkLAQRFactors(la.NewQRF1, func(q *la.QRF1) ([]mdops.F1, []mdops.F1) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 1, Complex: true}}:  mkLAQRFactors(la.NewQRC1, func(q *la.QRC1) ([]mdops.C1, []mdops.C1) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 2}}:                 mkLAQRFactors(la.NewQRF2, func(q *la.QRF2) ([]mdops.F2, []mdops.F2) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 2, Complex: true}}:  mkLAQRFactors(la.NewQRC2, func(q *la.QRC2) ([]mdops.C2, []mdops.C2) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 3}}:                 mkLAQRFactors(la.NewQRF3, func(q *la.QRF3) ([]mdops.F3, []mdops.F3) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 3, Complex: true}}:  mkLAQRFactors(la.NewQRC3, func(q *la.QRC3) ([]mdops.C3, []mdops.C3) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 4}}:                 mkLAQRFactors(la.NewQRF4, func(q *la.QRF4) ([]mdops.F4, []mdops.F4) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 4, Complex: true}}:  mkLAQRFactors(la.NewQRC4, func(q *la.QRC4) ([]mdops.C4, []mdops.C4) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 5}}:                 mkLAQRFactors(la.NewQRF5, func(q *la.QRF5) ([]mdops.F5, []mdops.F5) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 5, Complex: true}}:  mkLAQRFactors(la.NewQRC5, func(q *la.QRC5) ([]mdops.C5, []mdops.C5) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 8}}:                 mkLAQRFactors(la.NewQRF8, func(q *la.QRF8) ([]mdops.F8, []mdops.F8) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 8, Complex: true}}:  mkLAQRFactors(la.NewQRC8, func(q *la.QRC8) ([]mdops.C8, []mdops.C8) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 10}}:                mkLAQRFactors(la.NewQRF10, func(q *la.QRF10) ([]mdops.F10, []mdops.F10) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 10, Complex: true}}: mkLAQRFactors(la.NewQRC10, func(q *la.QRC10) ([]mdops.C10, []mdops.C10) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 16}}:                mkLAQRFactors(la.NewQRF16, func(q *la.QRF16) ([]mdops.F16, []mdops.F16) { return q.A, q.Tau }),
	{Prec: mdops.Prec{N: 16, Complex: true}}: mkLAQRFactors(la.NewQRC16, func(q *la.QRC16) ([]mdops.C16, []mdops.C16) { return q.A, q.Tau }),
}

// laRand returns k random elements of w doubles, each part a normalized
// n-double number.
func laRand(r *rand.Rand, k, w, n int) []float64 {
	x := make([]float64, k*w)
	for p := 0; p < k*w; p += n {
		v := r.NormFloat64()
		for i := 0; i < n; i++ {
			x[p+i] = v
			v *= math.Ldexp(r.Float64()-0.5, -53)
		}
	}
	return x
}

func TestGPULinearAlgebra(t *testing.T) {
	dev, err := cudadev.Open(0)
	if err != nil {
		t.Fatalf("opening GPU 0 (this cuda-tagged test needs a GPU): %v", err)
	}
	defer dev.Close()
	t.Log("gpu:", dev.Info())
	ns := laEnvInts("MDGEN_GPU_LA_NS", []int{2, 4, 8})
	src, err := gen.LAKernelsCU(ns, []bool{false, true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nvcc.Find(""); err != nil {
		t.Fatal(err)
	}
	cache := xcheck.GPUTestCache()
	c := &nvcc.Compiler{Dir: cache, Archs: []string{dev.Info().Arch()}, Log: os.Stdout}
	if os.Getenv("MDGEN_GPU_LA_NOINLINE") == "1" {
		c.Extra = []string{"-DMD_HD=__host__ __device__ __noinline__"}
	}
	res, err := c.Build([]nvcc.Source{{Name: "la", Source: src}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	mod, err := dev.LoadModule(res[0].Fatbin)
	if err != nil {
		t.Fatal(err)
	}
	defer mod.Unload()
	big := laEnvInts("MDGEN_GPU_LA_SIZE", []int{256})[0]
	workers := runtime.NumCPU()
	for _, n := range ns {
		for _, complex := range []bool{false, true} {
			v := gpuabi.LAVariant{Prec: mdops.Prec{N: n, Complex: complex}}
			for _, mn := range [][2]int{{1, 1}, {5, 3}, {17, 17}, {40, 33}, {100, 64}} {
				t.Run(fmt.Sprintf("N%d_complex%v_%dx%d", n, complex, mn[0], mn[1]), func(t *testing.T) {
					d := &laDev{t: t, dev: dev, mod: mod, fns: map[string]*cudadev.Function{}}
					defer d.free()
					laFactorSolve(t, d, v, mn[0], mn[1], 4, workers)
				})
			}
			for _, size := range []int{32, big} {
				t.Run(fmt.Sprintf("N%d_complex%v_newton_n%d", n, complex, size), func(t *testing.T) {
					d := &laDev{t: t, dev: dev, mod: mod, fns: map[string]*cudadev.Function{}}
					defer d.free()
					laNewtonStep(t, d, v, size, size, 16, workers)
				})
			}
		}
	}
}

// laFactorSolve checks QR, packr, Q^H b and the back substitution for nrhs
// right-hand sides.
func laFactorSolve(t *testing.T, d *laDev, v gpuabi.LAVariant, m, n, nrhs, workers int) {
	r := rand.New(rand.NewPCG(uint64(m), uint64(n*100+v.N)))
	w := v.W()
	a := laRand(r, m*n, w, v.N)
	b := laRand(r, m*nrhs, w, v.N)
	lk, _ := la.KernelsFor(v.N)
	newQR := lk.NewQR
	if v.Complex {
		newQR = lk.NewQRComplex
	}
	wantA, wantTau, _ := laFactors[gpuabi.LAVariant{Prec: v.Prec}](m, n, a, m, workers)
	f, _ := newQR(m, n, a, m, workers)
	want := slices.Clone(b)
	f.ApplyQHMany(nrhs, want, m, workers)
	solveErr := f.SolveRMany(nrhs, want, m, workers)

	pa, ptau := d.buffer(a), d.buffer(make([]float64, n*w))
	prinv, prrev := d.buffer(make([]float64, n*v.N)), d.buffer(make([]float64, gpuabi.LARRevLen(n)*w))
	pb := d.buffer(b)
	d.run(v.LAQR(m, n, m, pa, ptau))
	d.run(v.LAPackR(m, n, m, pa, prinv, prrev))
	d.run(v.LAApplyQH(m, n, m, pa, ptau, nrhs, pb, m))
	d.run(v.LABackSub(n, prrev, prinv, nrhs, pb, m))
	laSameBits(t, "QR: A", w, d.read(pa, m*n*w), wantA)
	laSameBits(t, "QR: Tau", w, d.read(ptau, n*w), wantTau)
	if solveErr == nil {
		laSameBits(t, "Q^H b, then R^-1", w, d.read(pb, m*nrhs*w), want)
	}
}

// laNewtonStep runs the linear algebra of one Newton step at degree w on
// m x n blocks as runtime/newton does (no skipped blocks), on the GPU and
// on the CPU, compares dx and the residual norms, and logs the times.
func laNewtonStep(t *testing.T, d *laDev, v gpuabi.LAVariant, m, n, deg, workers int) {
	r := rand.New(rand.NewPCG(uint64(m), uint64(deg*100+v.N)))
	wd := v.W()
	nb := deg + 1
	A := laRand(r, nb*m*n, wd, v.N)
	b := laRand(r, nb*m, wd, v.N)
	lk, _ := la.KernelsFor(v.N)
	newQR, mulSub := lk.NewQR, lk.MulSub
	if v.Complex {
		newQR, mulSub = lk.NewQRComplex, lk.MulSubComplex
	}
	prec := mdops.Prec{N: v.N, Complex: v.Complex}

	// CPU.
	cpuTimes := map[string]time.Duration{}
	tick := time.Now()
	lap := func(what string) {
		now := time.Now()
		cpuTimes[what] += now.Sub(tick)
		tick = now
	}
	f, err := newQR(m, n, A[:m*n*wd], m, workers)
	if err != nil {
		t.Skipf("A_0 is singular: %v", err)
	}
	lap("qr")
	wantB := slices.Clone(b)
	dx := make([]float64, nb*n*wd)
	y := make([]float64, m*wd)
	for k := 0; k < nb; k++ {
		copy(y, wantB[k*m*wd:(k+1)*m*wd])
		f.ApplyQHMany(1, y, m, workers) // ApplyQH(y), with the signature of every version of la
		lap("qh")
		if err := f.SolveRMany(1, y, m, workers); err != nil {
			t.Fatal(err)
		}
		copy(dx[k*n*wd:(k+1)*n*wd], y[:n*wd])
		lap("backsub")
		for j := k + 1; j < nb; j++ {
			mulSub(m, n, A[(j-k)*m*n*wd:(j-k+1)*m*n*wd], m, dx[k*n*wd:(k+1)*n*wd], wantB[j*m*wd:(j+1)*m*wd], workers)
		}
		lap("update")
	}
	rk := make([]float64, m*wd)
	var wantNorms []float64
	for k := 0; k < nb; k++ {
		copy(rk, wantB[k*m*wd:(k+1)*m*wd])
		mulSub(m, n, A[:m*n*wd], m, dx[k*n*wd:(k+1)*n*wd], rk, workers)
		wantNorms = append(wantNorms, la.LeadNorm1(rk, prec))
	}
	lap("residual")

	// GPU: the same sequence of launches; y is the work vector of Q^H b_k.
	pA, pb, pb0 := d.buffer(A), d.buffer(b), d.buffer(b)
	ptau, prinv := d.buffer(make([]float64, n*wd)), d.buffer(make([]float64, n*v.N))
	prrev := d.buffer(make([]float64, gpuabi.LARRevLen(n)*wd))
	pa0 := d.buffer(A[:m*n*wd]) // the QR works in place
	py, pdx := d.buffer(make([]float64, m*wd)), d.buffer(make([]float64, nb*n*wd))
	pr, pout := d.buffer(make([]float64, nb*m*wd)), d.buffer(make([]float64, nb))
	qr := append(v.LAQR(m, n, m, pa0, ptau), v.LAPackR(m, n, m, pa0, prinv, prrev)...)
	gpuTimes := map[string]float64{}
	gpuTimes["qr"] = d.timed(func() error {
		if err := d.dev.CopyDtoD(d.slice(pa0, m*n*wd), d.slice(pA, m*n*wd)); err != nil {
			return err
		}
		return d.launch(qr)
	})
	solve := func(k int, stage string) error {
		switch stage {
		case "qh":
			if err := d.dev.CopyDtoD(d.slice(py, m*wd), d.slice(pb.At(k*m, wd), m*wd)); err != nil {
				return err
			}
			return d.launch(v.LAApplyQH(m, n, m, pa0, ptau, 1, py, m))
		case "backsub":
			if err := d.launch(v.LABackSub(n, prrev, prinv, 1, py, m)); err != nil {
				return err
			}
			return d.dev.CopyDtoD(d.slice(pdx.At(k*n, wd), n*wd), d.slice(py, n*wd))
		}
		return d.launch(v.LAToeplitzUpdate(m, n, pA, pb, pdx, k, deg))
	}
	// The whole step, checked; then each stage timed alone. The updates
	// change b: the step restores it first (a copy on the device, timed
	// with it; so is the copy of A_0 that the QR factors in place).
	reset := func() error { return d.dev.CopyDtoD(d.slice(pb, nb*m*wd), d.slice(pb0, nb*m*wd)) }
	step := func() error {
		if err := reset(); err != nil {
			return err
		}
		for k := 0; k < nb; k++ {
			for _, s := range []string{"qh", "backsub", "update"} {
				if err := solve(k, s); err != nil {
					return err
				}
			}
		}
		return d.launch(v.LAResiduals(m, n, pA, pb, pdx, deg, pr, pout))
	}
	gpuTimes["step"] = d.timed(step)
	laSameBits(t, "dx", wd, d.read(pdx, nb*n*wd), dx)
	laSameBits(t, "b after the updates", wd, d.read(pb, nb*m*wd), wantB)
	gotNorms := d.read(pout, nb)
	for k := range nb {
		if math.Float64bits(gotNorms[k]) != math.Float64bits(wantNorms[k]) {
			t.Fatalf("residual %d: GPU %v, CPU %v", k, gotNorms[k], wantNorms[k])
		}
	}
	for _, stage := range []string{"qh", "backsub", "update"} {
		gpuTimes[stage] = d.timed(func() error {
			for k := 0; k < nb; k++ {
				if err := solve(k, stage); err != nil {
					return err
				}
			}
			return nil
		})
	}
	gpuTimes["residual"] = d.timed(func() error { return d.launch(v.LAResiduals(m, n, pA, pb, pdx, deg, pr, pout)) })
	var line strings.Builder
	for _, s := range []string{"qr", "qh", "backsub", "update", "residual"} {
		fmt.Fprintf(&line, " %s %.3f ms (CPU %d workers %.3f ms);", s, gpuTimes[s], workers, float64(cpuTimes[s].Microseconds())/1000)
	}
	t.Logf("N=%d complex=%v %dx%d, degree %d: step %.3f ms;%s", v.N, v.Complex, m, n, deg, gpuTimes["step"], line.String())
}
