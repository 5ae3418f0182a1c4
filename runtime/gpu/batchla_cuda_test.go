//go:build cuda

package gpu_test

// gpu.BatchLA on a real GPU: every path of a batch bit-identical to
// mdops/la on that path's data alone (NewQR's factors and *RankError,
// ApplyQH, SolveR, Cond, ApplyQHMany/SolveRMany of E = -R^-1 Q^H, MulSub,
// Residual (LeadNorm1 of b - A x), Norm1, LeadNorm1), and the throughput of Newton's QR + solve
// for thousands of paths beside la on every core of the host. Build here,
// run on the GPU machine from the repository root (nvcc compiles the
// kernels there, cached by content):
//
//	CGO_ENABLED=1 CGO_CFLAGS="-I$PWD/build/cudacompat -I$PWD/.cuda-sdk/include" \
//	CGO_LDFLAGS="-L$PWD/.cuda-sdk/lib" go test -c -tags cuda -o .gpu/runtime.test ./runtime/gpu
//	.gpu/runtime.test -test.run 'GPUBatchLA' -test.v
//	.gpu/runtime.test -test.run '^$' -test.bench GPUBatchLA -test.benchtime 10x
//
// MDGEN_GPU_BLA_NS picks the precisions (default 1,2,4,8, real and
// complex); the benchmark takes MDGEN_GPU_BLA_PATHS (default
// 1024,2048,4096,8192), MDGEN_GPU_BLA_SIZES (default 8,32) and
// MDGEN_GPU_BLA_THREADS (threads per path, default 32,64,128: one warp,
// two, four). Without a device the tests skip.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/internal/bench"
	"github.com/mdgen/mdgen/internal/xcheck"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
	"github.com/mdgen/mdgen/runtime/gpu"
	"github.com/mdgen/mdgen/runtime/gpu/cudadev"
	"github.com/mdgen/mdgen/runtime/gpu/kernels"
)

var (
	blaOnce    sync.Once
	blaDev     *cudadev.Device
	blaDevErr  error
	blaErr     error
	blaKernels map[mdops.Prec]*gpu.BatchLAKernels
)

// blaSetup opens GPU 0 (or skips) and builds and loads the batched linear
// algebra of every precision of MDGEN_GPU_BLA_NS, real and complex.
func blaSetup(tb testing.TB) map[mdops.Prec]*gpu.BatchLAKernels {
	tb.Helper()
	blaOnce.Do(func() {
		if blaDev, blaDevErr = cudadev.Open(0); blaDevErr != nil {
			return
		}
		fmt.Println("gpu:", blaDev.Info())
		cache := xcheck.GPUTestCache()
		b, err := kernels.New(blaDev, "", cache)
		if err != nil {
			blaErr = err
			return
		}
		b.Log = os.Stdout
		var kinds []mdops.Prec
		for _, n := range batchEnvInts("MDGEN_GPU_BLA_NS", []int{1, 2, 4, 8}) {
			kinds = append(kinds, mdops.Prec{N: n}, mdops.Prec{N: n, Complex: true})
		}
		t0 := time.Now()
		ks, err := b.BatchLA(kinds...)
		if err != nil {
			blaErr = err
			return
		}
		fmt.Printf("nvcc: the batched linear algebra of %v in %.1f s\n", kinds, time.Since(t0).Seconds())
		blaKernels = map[mdops.Prec]*gpu.BatchLAKernels{}
		for i, k := range kinds {
			blaKernels[k] = ks[i]
		}
	})
	if blaDevErr != nil {
		tb.Skipf("no GPU: %v", blaDevErr)
	}
	if blaErr != nil {
		tb.Fatal(blaErr)
	}
	return blaKernels
}

// blaMatrices returns paths n x n matrices (la's layout, one after the
// other): random, with a column nearly a copy of another (ill-conditioned,
// 2^-40 apart), a zero column (rank deficient, singular), upper
// triangular, scaled by 2^600 or 2^-600, graded (column j times 2^-8j:
// ill-conditioned), by path mod 7.
func blaMatrices(r *rand.Rand, p mdops.Prec, n, paths int) []float64 {
	w := p.Width()
	a := laRand(r, paths*n*n, w, p.N)
	for q := 0; q < paths; q++ {
		ap := a[q*n*n*w : (q+1)*n*n*w]
		col := func(j int) []float64 { return ap[j*n*w : (j+1)*n*w] }
		switch q % 7 {
		case 1:
			if n > 1 {
				noise := laRand(r, n, w, p.N)
				for i, x := range col(0) {
					col(n - 1)[i] = x + math.Ldexp(noise[i], -40)
				}
			}
		case 2:
			clear(col(n / 2))
		case 3:
			for j := 0; j < n; j++ {
				clear(col(j)[(j+1)*w:])
			}
		case 4, 5:
			e := 600
			if q%7 == 5 {
				e = -600
			}
			for i := range ap {
				ap[i] = math.Ldexp(ap[i], e)
			}
		case 6:
			for j := 0; j < n; j++ {
				for i := range col(j) {
					col(j)[i] = math.Ldexp(col(j)[i], -8*j)
				}
			}
		}
	}
	return a
}

// TestGPUBatchLAMatchesLA checks 37 paths of n = 5, 8, 17, 33 at every
// precision of MDGEN_GPU_BLA_NS, real and complex, with one warp and with
// four warps per path.
func TestGPUBatchLAMatchesLA(t *testing.T) {
	ks := blaSetup(t)
	const paths = 37
	for _, prec := range blaPrecs {
		k, ok := ks[prec]
		if !ok {
			continue
		}
		for _, n := range []int{5, 8, 17, 33} {
			for _, threads := range []int{32, 128} {
				t.Run(fmt.Sprintf("%s/n%d/t%d", prec, n, threads), func(t *testing.T) {
					blaCheckDevice(t, k, prec, n, paths, threads)
				})
			}
		}
	}
}

// blaPrecs is the order of the precisions of the tests (those built run).
var blaPrecs = []mdops.Prec{{N: 1}, {N: 1, Complex: true}, {N: 2}, {N: 2, Complex: true}, {N: 3}, {N: 3, Complex: true},
	{N: 4}, {N: 4, Complex: true}, {N: 5}, {N: 5, Complex: true}, {N: 8}, {N: 8, Complex: true},
	{N: 10}, {N: 10, Complex: true}, {N: 16}, {N: 16, Complex: true}}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func blaCheckDevice(t *testing.T, k *gpu.BatchLAKernels, prec mdops.Prec, n, paths, threads int) {
	r := rand.New(rand.NewPCG(uint64(n), uint64(prec.N*2+btoi(prec.Complex))))
	w, N, m := prec.Width(), prec.N, n
	a := blaMatrices(r, prec, n, paths)
	b := laRand(r, paths*m, w, N)
	x := laRand(r, paths*n, w, N)
	bl, err := gpu.NewBatchLA(k, m, n, paths, gpu.BatchLAOptions{Threads: threads, Inverse: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bl.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(bl.SetA(a))
	must(bl.SetB(b))
	must(bl.SetX(x))
	must(bl.QR())
	gotA, gotTau, err := bl.Factors()
	must(err)
	ranks, err := bl.RankErrors()
	must(err)
	conds, err := bl.Conds()
	must(err)
	lead, err := bl.LeadNorm1()
	must(err)
	norm, err := bl.Norm1()
	must(err)
	res, err := bl.Residual()
	must(err)
	e, err := bl.Inverse()
	must(err)
	must(bl.Solve())
	solved, err := bl.B()
	must(err)
	must(bl.SetB(b))
	must(bl.MulSub())
	updated, err := bl.B()
	must(err)

	lk, _ := la.KernelsFor(N)
	newQR, mulSub, norm1 := lk.NewQR, lk.MulSub, lk.Norm1
	if prec.Complex {
		newQR, mulSub, norm1 = lk.NewQRComplex, lk.MulSubComplex, lk.Norm1Complex
	}
	factors := laFactors[gpuabi.LAVariant{Prec: prec}]
	rankDeficient := 0
	for p := 0; p < paths; p++ {
		what := func(s string) string { return fmt.Sprintf("path %d: %s", p, s) }
		ap := a[p*m*n*w : (p+1)*m*n*w]
		bp := slices.Clone(b[p*m*w : (p+1)*m*w])
		xp := x[p*n*w : (p+1)*n*w]
		wantA, wantTau, qrErr := factors(m, n, ap, m, 1)
		laSameBits(t, what("QR: A"), w, gotA[p*m*n*w:(p+1)*m*n*w], wantA)
		laSameBits(t, what("QR: Tau"), w, gotTau[p*n*w:(p+1)*n*w], wantTau)
		var rank *la.RankError
		errors.As(qrErr, &rank)
		if (rank == nil) != (ranks[p] == nil) || rank != nil && *rank != *ranks[p] {
			t.Fatalf("%s: GPU %v, mdops/la %v", what("rank"), ranks[p], rank)
		}
		if rank != nil {
			rankDeficient++
		}
		f, _ := newQR(m, n, ap, m, 1)
		if c := f.Cond(); math.Float64bits(c) != math.Float64bits(conds[p]) && !(math.IsNaN(c) && math.IsNaN(conds[p])) {
			t.Fatalf("%s: GPU %v, mdops/la %v", what("Cond"), conds[p], c)
		}
		if l := la.LeadNorm1(bp, prec); math.Float64bits(l) != math.Float64bits(lead[p]) {
			t.Fatalf("%s: GPU %v, mdops/la %v", what("LeadNorm1"), lead[p], l)
		}
		if l := norm1(bp); math.Float64bits(l) != math.Float64bits(norm[p*N]) {
			t.Fatalf("%s: GPU %v, mdops/la %v", what("Norm1"), norm[p*N], l)
		}
		ub := slices.Clone(bp)
		mulSub(m, n, ap, m, xp, ub, 1)
		laSameBits(t, what("MulSub"), w, updated[p*m*w:(p+1)*m*w], ub)
		if l := la.LeadNorm1(ub, prec); math.Float64bits(l) != math.Float64bits(res[p]) {
			t.Fatalf("%s: GPU %v, mdops/la %v", what("Residual (LeadNorm1 of b - A x)"), res[p], l)
		}
		sb := slices.Clone(bp)
		f.ApplyQH(sb, 1)
		_ = f.SolveR(sb, 1) // with a zero R_kk, b stays Q^H b on both sides
		laSameBits(t, what("ApplyQH, SolveR"), w, solved[p*m*w:(p+1)*m*w], sb)
		ep := make([]float64, m*m*w)
		for i := 0; i < m; i++ {
			ep[(i+i*m)*w] = -1
		}
		f.ApplyQHMany(m, ep, m, 1)
		_ = f.SolveRMany(m, ep, m, 1)
		laSameBits(t, what("E = -R^-1 Q^H"), w, e[p*m*m*w:(p+1)*m*m*w], ep)
	}
	if rankDeficient == 0 || rankDeficient == paths {
		t.Fatalf("%d of %d paths rank deficient: the cases miss one side of the rank check", rankDeficient, paths)
	}
}

// BenchmarkGPUBatchLA times Newton's linear algebra of one step for a
// batch: the QR of every path (with the rank check) and one solve
// (ApplyQH, SolveR), on the GPU at several threads per path, and la on
// every core of the host (Refactor, ApplyQH, SolveR per path), with
// paths per second and the FP64 rate of LAWN 41's counts of the QR and
// the solve (bench.QRSolveOps).
func BenchmarkGPUBatchLA(b *testing.B) {
	ks := blaSetup(b)
	pathsList := batchEnvInts("MDGEN_GPU_BLA_PATHS", []int{1024, 2048, 4096, 8192})
	sizes := batchEnvInts("MDGEN_GPU_BLA_SIZES", []int{8, 32})
	threadsList := batchEnvInts("MDGEN_GPU_BLA_THREADS", []int{32, 64, 128})
	for _, prec := range blaPrecs {
		k, ok := ks[prec]
		if !ok {
			continue
		}
		for _, n := range sizes {
			ops := bench.QRSolveOps(n, prec)
			for _, paths := range pathsList {
				r := rand.New(rand.NewPCG(uint64(n), uint64(paths)))
				a := laRand(r, paths*n*n, prec.Width(), prec.N)
				rhs := laRand(r, paths*n, prec.Width(), prec.N)
				report := func(b *testing.B, elapsed time.Duration) {
					per := elapsed.Seconds() / float64(b.N)
					b.ReportMetric(float64(paths)/per, "paths/s")
					b.ReportMetric(ops*float64(paths)/per/1e9, "GFLOP64/s")
				}
				for _, threads := range threadsList {
					b.Run(fmt.Sprintf("%s/n%d/paths%d/gpu-t%d", prec, n, paths, threads), func(b *testing.B) {
						bl, err := gpu.NewBatchLA(k, n, n, paths, gpu.BatchLAOptions{Threads: threads})
						if err != nil {
							b.Fatal(err)
						}
						defer bl.Close()
						if err := bl.SetA(a); err != nil {
							b.Fatal(err)
						}
						if err := bl.SetB(rhs); err != nil {
							b.Fatal(err)
						}
						// The solves compound (b is solved in place): the
						// time of the arithmetic does not depend on the values.
						step := func() error {
							if err := bl.QR(); err != nil {
								return err
							}
							if err := bl.Solve(); err != nil {
								return err
							}
							return bl.Synchronize()
						}
						if err := step(); err != nil { // warm up
							b.Fatal(err)
						}
						b.ResetTimer()
						t0 := time.Now()
						for i := 0; i < b.N; i++ {
							if err := step(); err != nil {
								b.Fatal(err)
							}
						}
						report(b, time.Since(t0))
					})
				}
				b.Run(fmt.Sprintf("%s/n%d/paths%d/cpu-%dcores", prec, n, paths, runtime.NumCPU()), func(b *testing.B) {
					lk, _ := la.KernelsFor(prec.N)
					newQR := lk.NewQR
					if prec.Complex {
						newQR = lk.NewQRComplex
					}
					w := prec.Width()
					workers := runtime.NumCPU()
					fs := make([]la.Factorization, paths)
					for p := range fs {
						fs[p], _ = newQR(n, n, a[p*n*n*w:(p+1)*n*n*w], n, 1)
					}
					ys := slices.Clone(rhs)
					step := func() {
						var wg sync.WaitGroup
						for g := 0; g < workers; g++ {
							wg.Add(1)
							go func(g int) {
								defer wg.Done()
								for p := g; p < paths; p += workers {
									_ = fs[p].Refactor(a[p*n*n*w:(p+1)*n*n*w], n, 1)
									y := ys[p*n*w : (p+1)*n*w]
									copy(y, rhs[p*n*w:(p+1)*n*w])
									fs[p].ApplyQH(y, 1)
									_ = fs[p].SolveR(y, 1)
								}
							}(g)
						}
						wg.Wait()
					}
					step()
					b.ResetTimer()
					t0 := time.Now()
					for i := 0; i < b.N; i++ {
						step()
					}
					report(b, time.Since(t0))
				})
			}
		}
	}
}

// TestGPUBatchLACondMatchesLA checks BatchLA.Conds (the device's bcond)
// against la's Cond of every path, bit for bit, for n = 1, 2, 5, 8, 17,
// 33 at every precision of MDGEN_GPU_BLA_NS, real and complex, with one
// warp and with eight per path; beyond one double some paths must take the
// multiple-double estimate (la.LeadR's float64 one not final) and some
// are singular (+Inf).
func TestGPUBatchLACondMatchesLA(t *testing.T) {
	ks := blaSetup(t)
	const paths = 21
	for _, prec := range blaPrecs {
		k, ok := ks[prec]
		if !ok {
			continue
		}
		md, singular := 0, 0
		for _, n := range []int{1, 2, 5, 8, 17, 33} {
			for _, threads := range []int{32, 256} {
				t.Run(fmt.Sprintf("%s/n%d/t%d", prec, n, threads), func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(n), uint64(prec.N*2+btoi(prec.Complex))))
					w, N := prec.Width(), prec.N
					a := blaMatrices(r, prec, n, paths)
					bl, err := gpu.NewBatchLA(k, n, n, paths, gpu.BatchLAOptions{Threads: threads})
					if err != nil {
						t.Fatal(err)
					}
					defer bl.Close()
					if err := bl.SetA(a); err != nil {
						t.Fatal(err)
					}
					if err := bl.QR(); err != nil {
						t.Fatal(err)
					}
					conds, err := bl.Conds()
					if err != nil {
						t.Fatal(err)
					}
					lk, _ := la.KernelsFor(N)
					newQR := lk.NewQR
					if prec.Complex {
						newQR = lk.NewQRComplex
					}
					for p := 0; p < paths; p++ {
						ap := a[p*n*n*w : (p+1)*n*n*w]
						f, _ := newQR(n, n, ap, n, 1)
						c := f.Cond()
						if math.Float64bits(c) != math.Float64bits(conds[p]) && !(math.IsNaN(c) && math.IsNaN(conds[p])) {
							t.Fatalf("path %d: GPU Cond %v, mdops/la %v", p, conds[p], c)
						}
						if math.IsInf(c, 1) {
							singular++
							continue
						}
						fa, _, _ := laFactors[gpuabi.LAVariant{Prec: prec}](n, n, ap, n, 1)
						lead := la.NewLeadR(n, prec.Complex)
						anorm := 0.0
						for j := 0; j < n; j++ {
							anorm = max(anorm, la.LeadNorm1(fa[j*n*w:(j*n+j+1)*w], prec))
							for i := 0; i <= j; i++ {
								lead.Re[i+j*n] = fa[(i+j*n)*w]
								if prec.Complex {
									lead.Im[i+j*n] = fa[(i+j*n)*w+N]
								}
							}
						}
						if _, final := lead.Cond(anorm, N); !final {
							md++
						}
					}
				})
			}
		}
		t.Logf("%s: %d paths took the multiple-double estimate, %d singular", prec, md, singular)
		if prec.N > 1 && md == 0 {
			t.Errorf("%s: no path took the multiple-double estimate", prec)
		}
		if singular == 0 {
			t.Errorf("%s: no singular path", prec)
		}
	}
}
