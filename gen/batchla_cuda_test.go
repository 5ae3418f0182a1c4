package gen

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mdgen/mdgen/gen/gpuabi"
	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/la"
)

// The batched linear-algebra kernels (BatchLAKernelsCU) under the host
// emulation of la_cuda_test.go, every path of a batch against mdops/la on
// that path's data, bit for bit: the QR factors, la's rank check, its
// singular test and the condition estimate's ||R||_1, Q^H b and the back
// substitution of one right-hand side (Newton's solve), the inverse
// E = -R^-1 Q^H of many right-hand sides, b - A x with its 1-norms
// (mulsub and norm1 with a path per matrix) and la.LeadNorm1, for paths of
// random, ill-conditioned, rank-deficient and triangular matrices; and the
// condition estimate (bcond) against la's Cond.

// blaCase is one batched case: paths m x n matrices (lda, the path stride sa
// = lda n + pad), threads per path.
type blaCase struct {
	m, n, lda, paths, threads int
	seed                      uint64
}

// blaMatrix returns path p's matrix: random, with a column nearly a copy
// of another (ill-conditioned), a zero column (rank deficient and
// singular), upper triangular or scaled by 2^±600, by p mod 6.
func blaMatrix(r *rand.Rand, c blaCase, p int, v gpuabi.LAVariant) []float64 {
	w := v.W()
	a := laRandom(r, c.lda*c.n, w, v.N, 0)
	col := func(j int) []float64 { return a[j*c.lda*w : (j*c.lda+c.m)*w] }
	switch p % 6 {
	case 1: // column n-1 = column 0 + 2^-40 noise
		if c.n > 1 {
			noise := laRandom(r, c.m, w, v.N, -40)
			for i, x := range col(0) {
				col(c.n - 1)[i] = x + noise[i]
			}
		}
	case 2:
		clear(col(c.n / 2))
	case 3:
		for j := 0; j < c.n; j++ {
			clear(col(j)[(j+1)*w:])
		}
	case 4:
		for i := range a {
			a[i] = math.Ldexp(a[i], 600)
		}
	case 5:
		for i := range a {
			a[i] = math.Ldexp(a[i], -600)
		}
	}
	return a
}

func blaCheck(t *testing.T, bin string, index map[string]int, v gpuabi.LAVariant, c blaCase) {
	r := rand.New(rand.NewPCG(c.seed, uint64(v.N)))
	w, N := v.W(), v.N
	m, n, lda, P := c.m, c.n, c.lda, c.paths
	sa, sb := lda*n+3, m+2
	lk, _ := la.KernelsFor(N)
	newQR, mulSub := lk.NewQR, lk.MulSub
	if v.Complex {
		newQR, mulSub = lk.NewQRComplex, lk.MulSubComplex
	}
	typed := laTypedFns[gpuabi.LAVariant{Prec: v.Prec}]

	a := make([]float64, P*sa*w)
	b := laRandom(r, P*sb, w, N, 0)
	x := laRandom(r, P*n, w, N, -2)
	e := make([]float64, P*m*m*w) // -I_m per path
	for p := 0; p < P; p++ {
		copy(a[p*sa*w:], blaMatrix(r, c, p, v))
		for i := 0; i < m; i++ {
			e[(p*m*m+i+i*m)*w] = -1
		}
	}

	em := &laEmu{index: index}
	pa := em.buffer(a)
	ptau := em.buffer(make([]float64, P*n*w))
	prinv := em.buffer(make([]float64, P*n*N))
	prrev := em.buffer(make([]float64, P*gpuabi.LARRevLen(n)*w))
	pinfo := em.buffer(make([]float64, P*gpuabi.BatchLAInfo))
	pb := em.buffer(b)
	pacc := em.buffer(make([]float64, P*gpuabi.LABackSub1Acc(n)*w))
	pe := em.buffer(e)
	plead := em.buffer(make([]float64, P))
	tol := float64(n) * la.Eps(N)
	th := c.threads
	em.launch(t, v.BatchQR(m, n, lda, sa, pa, ptau, P, th))
	em.launch(t, v.BatchPackR(m, n, lda, sa, pa, prinv, prrev, tol, pinfo, P, th))
	em.launch(t, v.LALeadNorm1(pb, m, sb, P, plead))
	em.launch(t, v.BatchApplyQH1(m, n, lda, sa, pa, ptau, pb, sb, P, th))
	em.launch(t, v.BatchBackSub1(n, prrev, prinv, pinfo, pb, sb, pacc, P, th))
	em.launch(t, v.BatchApplyQH(m, n, lda, sa, pa, ptau, m, pe, m, m*m, P, th))
	em.launch(t, v.BatchBackSub(n, prrev, prinv, pinfo, m, pe, m, m*m, P, th))
	got := em.run(t, bin)

	// b - A x on the original matrices (the factorization overwrote pa).
	em2 := &laEmu{index: index}
	qa, qx, qb := em2.buffer(a), em2.buffer(x), em2.buffer(b)
	qr, qn, ql := em2.buffer(make([]float64, P*m*w)), em2.buffer(make([]float64, P*N)), em2.buffer(make([]float64, P))
	em2.launch(t, v.LAMulSub(m, n, qa, lda, sa, qx, n, qb, sb, qr, m, P))
	em2.launch(t, v.LANorm1(qr, m, m, P, qn))
	em2.launch(t, v.LALeadNorm1(qr, m, m, P, ql))
	got2 := em2.run(t, bin)

	for p := 0; p < P; p++ {
		what := func(s string) string { return fmt.Sprintf("path %d: %s", p, s) }
		ap := a[p*sa*w : (p*sa+lda*n)*w]
		wantA, wantTau, qrErr := typed.qr(m, n, ap, lda)
		gotA := make([]float64, 0, m*n*w)
		for j := 0; j < n; j++ {
			gotA = append(gotA, got[pa.Buf][(p*sa+j*lda)*w:(p*sa+j*lda+m)*w]...)
		}
		laSame(t, what("QR: A"), w, gotA, wantA)
		laSame(t, what("QR: Tau"), w, got[ptau.Buf][p*n*w:(p+1)*n*w], wantTau)

		info := got[pinfo.Buf][p*gpuabi.BatchLAInfo : (p+1)*gpuabi.BatchLAInfo]
		var rank *la.RankError
		errors.As(qrErr, &rank)
		wantRank := []float64{0, 0}
		if rank != nil {
			wantRank = []float64{float64(rank.Col), rank.Ratio}
		}
		laSame(t, what("rank check"), 1, info[gpuabi.BatchLARankCol:gpuabi.BatchLARankRatio+1], wantRank)
		anorm := 0.0
		for j := 0; j < n; j++ {
			anorm = max(anorm, la.LeadNorm1(wantA[j*m*w:(j*m+j+1)*w], v.Prec))
		}
		laSame(t, what("||R||_1"), 1, info[gpuabi.BatchLAANorm:gpuabi.BatchLAANorm+1], []float64{anorm})

		f, _ := newQR(m, n, ap, lda, 1)
		bp := slices.Clone(b[p*sb*w : (p*sb+m)*w])
		laSame(t, what("LeadNorm1"), 1, got[plead.Buf][p:p+1], []float64{la.LeadNorm1(bp, v.Prec)})
		f.ApplyQH(bp, 1)
		singular := 0.0
		var serr *la.RankError
		if err := f.SolveR(bp, 1); errors.As(err, &serr) {
			singular = float64(serr.Col)
		} else if err != nil {
			t.Fatal(err)
		}
		laSame(t, what("singular column"), 1, info[gpuabi.BatchLASingularCol:gpuabi.BatchLASingularCol+1], []float64{singular})
		laSame(t, what("Q^H b, R^-1"), w, got[pb.Buf][p*sb*w:(p*sb+m)*w], bp)

		ep := slices.Clone(e[p*m*m*w : (p+1)*m*m*w])
		f.ApplyQHMany(m, ep, m, 1)
		_ = f.SolveRMany(m, ep, m, 1)
		laSame(t, what("E = -R^-1 Q^H"), w, got[pe.Buf][p*m*m*w:(p+1)*m*m*w], ep)

		rp := slices.Clone(b[p*sb*w : (p*sb+m)*w])
		mulSub(m, n, ap, lda, x[p*n*w:(p+1)*n*w], rp, 1)
		laSame(t, what("b - A x"), w, got2[qr.Buf][p*m*w:(p+1)*m*w], rp)
		laSame(t, what("Norm1(b - A x)"), N, got2[qn.Buf][p*N:(p+1)*N], typed.norm1(rp))
		laSame(t, what("LeadNorm1(b - A x)"), 1, got2[ql.Buf][p:p+1], []float64{la.LeadNorm1(rp, v.Prec)})
	}
}

// TestBatchLAKernelEmulation runs the batched linear algebra of 1 and 2
// doubles (MDGEN_BLA_NS: others), real and complex, under the emulation.
func TestBatchLAKernelEmulation(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles kernels with g++")
	}
	// One emulation process at a time (one core): the other emulation
	// tests run beside it.
	t.Parallel()
	ns := []int{1, 2}
	if s := os.Getenv("MDGEN_BLA_NS"); s != "" {
		ns = nil
		for _, f := range strings.Split(s, ",") {
			var n int
			if _, err := fmt.Sscan(f, &n); err != nil {
				t.Fatalf("MDGEN_BLA_NS=%q: %v", s, err)
			}
			ns = append(ns, n)
		}
	}
	bin, index := laCompileOps(t, ns, BatchLAKernelsCU, append(slices.Clone(gpuabi.LAOps), gpuabi.BatchLAOps...))
	cases := []blaCase{
		{m: 1, n: 1, lda: 1, paths: 3, threads: 32},
		{m: 5, n: 5, lda: 5, paths: 7, threads: 32},
		{m: 8, n: 8, lda: 9, paths: 6, threads: 64},
		{m: 11, n: 8, lda: 11, paths: 6, threads: 32},
		{m: 17, n: 17, lda: 17, paths: 6, threads: 96},
		{m: 33, n: 33, lda: 33, paths: 6, threads: 32},
		{m: 33, n: 33, lda: 34, paths: 3, threads: 256},
	}
	for _, n := range ns {
		for _, complex := range []bool{false, true} {
			v := gpuabi.LAVariant{Prec: mdops.Prec{N: n, Complex: complex}}
			for i, c := range cases {
				c.seed = uint64(100 + i)
				t.Run(fmt.Sprintf("%s/m%d_n%d_t%d", v.Prec, c.m, c.n, c.threads), func(t *testing.T) {
					blaCheck(t, bin, index, v, c)
				})
			}
		}
	}
}

// TestBatchLAKernelsCUSyntax compiles the batched linear algebra of every
// default precision, real and complex, as host C++ with warnings as
// errors, the device branch too (laDeviceStub), and finds every kernel.
func TestBatchLAKernelsCUSyntax(t *testing.T) {
	cxx := needCXX(t)
	src, err := BatchLAKernelsCU(DefaultNs, []bool{false, true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "bla.cu")
	shim := filepath.Join(dir, "la_host_shim.h")
	dev := filepath.Join(dir, "device_stub.h")
	for name, text := range map[string][]byte{f: src, shim: []byte(laHostShim), dev: []byte(laDeviceStub)} {
		if err := os.WriteFile(name, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, sh := range []string{shim, dev} {
		out, err := exec.Command(cxx, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Wno-unused-function",
			"-Wno-unknown-pragmas", "-include", sh, "-x", "c++", f).CombinedOutput()
		if err != nil || len(out) > 0 {
			t.Fatalf("g++ with %s: %v\n%s", sh, err, lastLines(out, 30))
		}
	}
	for _, p := range []mdops.Prec{{N: 2}, {N: 16, Complex: true}} {
		for _, op := range gpuabi.BatchLAOps {
			name := gpuabi.LAKernelName(op, p)
			if !bytes.Contains(src, []byte(name+"("+gpuabi.LASignature(op)+")")) {
				t.Errorf("%s(%s) is not in the source", name, gpuabi.LASignature(op))
			}
		}
	}
}

// blaCondMatrix returns path p's matrix of the condition estimate's test:
// blaMatrix's kinds (p mod 9 below 6), a column a copy of another but for
// 2^-60 noise (6: the float64 estimate is not final, the
// multiple-double one decides), columns graded by 2^-12j (7) and a column
// scaled by 2^-45 (8: near singular).
func blaCondMatrix(r *rand.Rand, c blaCase, p int, v gpuabi.LAVariant) []float64 {
	kind := p % 9
	if kind < 6 {
		return blaMatrix(r, c, kind, v)
	}
	w := v.W()
	a := laRandom(r, c.lda*c.n, w, v.N, 0)
	col := func(j int) []float64 { return a[j*c.lda*w : (j*c.lda+c.m)*w] }
	switch kind {
	case 6:
		if c.n > 1 {
			noise := laRandom(r, c.m, w, v.N, -60)
			for i, x := range col(0) {
				col(c.n - 1)[i] = x + noise[i]
			}
		}
	case 7:
		for j := 0; j < c.n; j++ {
			for i := range col(j) {
				col(j)[i] = math.Ldexp(col(j)[i], -12*j)
			}
		}
	case 8:
		for i := range col(c.n - 1) {
			col(c.n - 1)[i] = math.Ldexp(col(c.n - 1)[i], -45)
		}
	}
	return a
}

// blaCondCheck runs bqr, bpackr and bcond on the paths of c and compares
// every path's estimate with la's Cond of its QR, bit for bit; it returns
// how many paths took the multiple-double estimate (la.LeadR's estimate
// not final) and how many are singular (+Inf). The work buffer ends in a
// guard that bcond must leave alone (gpuabi.LABCondWork is enough).
func blaCondCheck(t *testing.T, bin string, index map[string]int, v gpuabi.LAVariant, c blaCase) (md, singular int) {
	r := rand.New(rand.NewPCG(c.seed, uint64(v.N)))
	w, N := v.W(), v.N
	m, n, lda, P := c.m, c.n, c.lda, c.paths
	sa := lda*n + 3
	sw := gpuabi.LABCondWork(v.Prec, n) + 1
	const guard = 64
	lk, _ := la.KernelsFor(N)
	newQR := lk.NewQR
	if v.Complex {
		newQR = lk.NewQRComplex
	}
	a := make([]float64, P*sa*w)
	for p := 0; p < P; p++ {
		copy(a[p*sa*w:], blaCondMatrix(r, c, p, v))
	}
	work := make([]float64, P*sw+guard)
	for i := range work {
		work[i] = math.NaN()
	}
	em := &laEmu{index: index}
	pa := em.buffer(a)
	ptau := em.buffer(make([]float64, P*n*w))
	prinv := em.buffer(make([]float64, P*n*N))
	prrev := em.buffer(make([]float64, P*gpuabi.LARRevLen(n)*w))
	pinfo := em.buffer(make([]float64, P*gpuabi.BatchLAInfo))
	pwork := em.buffer(work)
	pcond := em.buffer(make([]float64, P))
	th := c.threads
	em.launch(t, v.BatchQR(m, n, lda, sa, pa, ptau, P, th))
	em.launch(t, v.BatchPackR(m, n, lda, sa, pa, prinv, prrev, float64(n)*la.Eps(N), pinfo, P, th))
	em.launch(t, v.BatchCond(n, lda, sa, pa, prinv, prrev, pinfo, pwork, sw, pcond, P, th))
	got := em.run(t, bin)
	for i, x := range got[pwork.Buf][P*sw:] {
		if !math.IsNaN(x) {
			t.Fatalf("bcond wrote %v at %d past the %d paths' work of %d doubles", x, i, P, sw)
		}
	}
	for p := 0; p < P; p++ {
		ap := a[p*sa*w : (p*sa+lda*n)*w]
		f, err := newQR(m, n, ap, lda, 1)
		var rank *la.RankError
		if err != nil && !errors.As(err, &rank) {
			t.Fatal(err)
		}
		want, gotC := f.Cond(), got[pcond.Buf][p]
		if math.Float64bits(want) != math.Float64bits(gotC) {
			t.Fatalf("path %d (kind %d): bcond %v (%#x), la's Cond %v (%#x)", p, p%9, gotC, math.Float64bits(gotC), want,
				math.Float64bits(want))
		}
		if math.IsInf(want, 1) {
			singular++
			continue
		}
		// Did la's float64 estimate decide? (LeadR on R's leading limbs.)
		typed := laTypedFns[gpuabi.LAVariant{Prec: v.Prec}]
		fa, _, _ := typed.qr(m, n, ap, lda)
		lead := la.NewLeadR(n, v.Complex)
		anorm := 0.0
		for j := 0; j < n; j++ {
			anorm = max(anorm, la.LeadNorm1(fa[j*m*w:(j*m+j+1)*w], v.Prec))
			for i := 0; i <= j; i++ {
				lead.Re[i+j*n] = fa[(i+j*m)*w]
				if v.Complex {
					lead.Im[i+j*n] = fa[(i+j*m)*w+N]
				}
			}
		}
		if _, final := lead.Cond(anorm, N); !final {
			md++
		}
	}
	return md, singular
}

// TestBatchLACondEmulation runs bcond (la_bcond_block) of 1, 2, 3, 4 and
// 8 doubles (MDGEN_BLA_NS: others), real and complex, under the
// emulation against la's Cond; at more than one double some paths must
// take the multiple-double estimate, and some are singular everywhere.
func TestBatchLACondEmulation(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles kernels with g++")
	}
	// One emulation process at a time (one core): the other emulation
	// tests run beside it.
	t.Parallel()
	ns := []int{1, 2, 3, 4, 8}
	if s := os.Getenv("MDGEN_BLA_NS"); s != "" {
		ns = nil
		for _, f := range strings.Split(s, ",") {
			var n int
			if _, err := fmt.Sscan(f, &n); err != nil {
				t.Fatalf("MDGEN_BLA_NS=%q: %v", s, err)
			}
			ns = append(ns, n)
		}
	}
	bin, index := laCompileOps(t, ns, BatchLAKernelsCU, []gpuabi.LAOp{gpuabi.LABQR, gpuabi.LABPackR, gpuabi.LABCond})
	cases := []blaCase{
		{m: 1, n: 1, lda: 1, paths: 9, threads: 32},
		{m: 3, n: 1, lda: 4, paths: 9, threads: 32},
		{m: 2, n: 2, lda: 2, paths: 9, threads: 32},
		{m: 5, n: 5, lda: 5, paths: 9, threads: 64},
		{m: 9, n: 8, lda: 9, paths: 18, threads: 32},
		{m: 17, n: 17, lda: 18, paths: 9, threads: 96},
		{m: 40, n: 33, lda: 40, paths: 9, threads: 256},
	}
	for _, n := range ns {
		for _, complex := range []bool{false, true} {
			v := gpuabi.LAVariant{Prec: mdops.Prec{N: n, Complex: complex}}
			md, singular := 0, 0
			for i, c := range cases {
				c.seed = uint64(300 + i)
				t.Run(fmt.Sprintf("%s/m%d_n%d_t%d", v.Prec, c.m, c.n, c.threads), func(t *testing.T) {
					d, s := blaCondCheck(t, bin, index, v, c)
					md += d
					singular += s
				})
			}
			t.Logf("%s: %d paths took the multiple-double estimate, %d singular", v.Prec, md, singular)
			if n > 1 && md == 0 {
				t.Errorf("%s: no path took the multiple-double estimate", v.Prec)
			}
			if singular == 0 {
				t.Errorf("%s: no singular path", v.Prec)
			}
		}
	}
}
