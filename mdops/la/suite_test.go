package la

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/mdgen/mdgen/mdops"
)

// The test suite, in the manner of gonum's testlapack: each test function
// takes an impl (one precision, real or complex, through the precision-erased
// Kernels) and checks it against math/big.Float references at 64N+200 bits
// or more. TestSuite runs every function on every generated precision.

// testType holds one precision's conversions (types_gen_test.go).
type testType struct {
	fromBig           func(dst []float64, x *big.Float)
	toBig             func(x []float64) *big.Float
	bare, bareComplex func(b *testing.B, x, y []float64)
	// bareRun and bareRunComplex run the bare loop reps times.
	bareRun, bareRunComplex func(x, y []float64, reps int)
}

var testTypes = map[int]testType{}

var sink any

// impl is what a suite function tests.
type impl struct {
	N       int
	Complex bool
	W       int // float64s per element
	K       Kernels
	tt      testType
	prec    uint // bits of the big references
}

func impls(t testing.TB) []impl {
	var out []impl
	for _, n := range mdops.Precisions() {
		k, ok := KernelsFor(n)
		if !ok {
			t.Fatalf("no kernels for N = %d", n)
		}
		for _, c := range []bool{false, true} {
			w := n
			if c {
				w = 2 * n
			}
			out = append(out, impl{N: n, Complex: c, W: w, K: k, tt: testTypes[n], prec: uint(64*n + 200)})
		}
	}
	return out
}

func (im impl) String() string {
	if im.Complex {
		return fmt.Sprintf("C%d", im.N)
	}
	return fmt.Sprintf("F%d", im.N)
}

func (im impl) eps() float64 { return Eps(im.N) }

func (im impl) newQR(m, n int, a []float64, lda, workers int) (Factorization, error) {
	if im.Complex {
		return im.K.NewQRComplex(m, n, a, lda, workers)
	}
	return im.K.NewQR(m, n, a, lda, workers)
}

func (im impl) mulSub(m, n int, a []float64, lda int, x, b []float64, workers int) {
	if im.Complex {
		im.K.MulSubComplex(m, n, a, lda, x, b, workers)
	} else {
		im.K.MulSub(m, n, a, lda, x, b, workers)
	}
}

func (im impl) residual1(m, n int, a []float64, lda int, x, b []float64, workers int) float64 {
	if im.Complex {
		return im.K.Residual1Complex(m, n, a, lda, x, b, workers)
	}
	return im.K.Residual1(m, n, a, lda, x, b, workers)
}

// sizes returns the test sizes of n for this impl: small ones with -short,
// larger ones (up to 256 at low precision) without.
func (im impl) sizes(short bool) []int {
	if short {
		if im.N <= 4 {
			return []int{1, 2, 5, 17, 33}
		}
		return []int{1, 3, 9, 17}
	}
	big := map[int]int{1: 256, 2: 256, 3: 128, 4: 128, 5: 64, 8: 64, 10: 32, 16: 32}[im.N]
	if im.Complex {
		big /= 2
	}
	var s []int
	for _, n := range []int{1, 2, 5, 17, 33, 64, 128, 256} {
		if n <= big {
			s = append(s, n)
		}
	}
	return s
}

// ---- big-number helpers ----

// bnum is a big real (im == nil) or complex number.
type bnum struct{ re, im *big.Float }

func (im impl) nf() *big.Float { return new(big.Float).SetPrec(im.prec) }

func (im impl) zero() bnum {
	z := bnum{re: im.nf()}
	if im.Complex {
		z.im = im.nf()
	}
	return z
}

func (im impl) add(a, b bnum) bnum {
	r := bnum{re: im.nf().Add(a.re, b.re)}
	if im.Complex {
		r.im = im.nf().Add(a.im, b.im)
	}
	return r
}

func (im impl) sub(a, b bnum) bnum {
	r := bnum{re: im.nf().Sub(a.re, b.re)}
	if im.Complex {
		r.im = im.nf().Sub(a.im, b.im)
	}
	return r
}

func (im impl) mul(a, b bnum) bnum {
	if !im.Complex {
		return bnum{re: im.nf().Mul(a.re, b.re)}
	}
	re := im.nf().Mul(a.re, b.re)
	re.Sub(re, im.nf().Mul(a.im, b.im))
	i := im.nf().Mul(a.re, b.im)
	i.Add(i, im.nf().Mul(a.im, b.re))
	return bnum{re, i}
}

func (im impl) conj(a bnum) bnum {
	if !im.Complex {
		return a
	}
	return bnum{a.re, im.nf().Neg(a.im)}
}

func (im impl) quo(a, b bnum) bnum {
	if !im.Complex {
		return bnum{re: im.nf().Quo(a.re, b.re)}
	}
	d := im.nf().Mul(b.re, b.re)
	d.Add(d, im.nf().Mul(b.im, b.im))
	n := im.mul(a, im.conj(b))
	return bnum{im.nf().Quo(n.re, d), im.nf().Quo(n.im, d)}
}

func (im impl) abs(a bnum) float64 {
	f, _ := im.absBig(a).Float64()
	return f
}

func (im impl) absBig(a bnum) *big.Float {
	if !im.Complex {
		return im.nf().Abs(a.re)
	}
	s := im.nf().Mul(a.re, a.re)
	s.Add(s, im.nf().Mul(a.im, a.im))
	return s.Sqrt(s)
}

func (im impl) real(f float64) bnum {
	r := bnum{re: im.nf().SetFloat64(f)}
	if im.Complex {
		r.im = im.nf()
	}
	return r
}

// get returns element i of a flat buffer exactly.
func (im impl) get(buf []float64, i int) bnum {
	e := buf[i*im.W : (i+1)*im.W]
	r := bnum{re: im.nf().Set(im.tt.toBig(e[:im.N]))}
	if im.Complex {
		r.im = im.nf().Set(im.tt.toBig(e[im.N:]))
	}
	return r
}

// set rounds x into element i of a flat buffer.
func (im impl) set(buf []float64, i int, x bnum) {
	e := buf[i*im.W : (i+1)*im.W]
	im.tt.fromBig(e[:im.N], x.re)
	if im.Complex {
		im.tt.fromBig(e[im.N:], x.im)
	}
}

// randBig returns a random number in [-1, 1] with about 64N+100 random bits.
func (im impl) randBig(rng *rand.Rand) *big.Float {
	x := im.nf()
	for k := 0; k <= im.N+1; k++ {
		u := new(big.Float).SetFloat64(2*rng.Float64() - 1)
		x.Add(x, u.SetMantExp(u, -52*k))
	}
	return x.Quo(x, big.NewFloat(1.5))
}

// randMatrix returns a random m x n matrix (lda = m) of full-precision
// elements in [-1, 1] (real and imaginary parts), scaled by 2^scale.
func (im impl) randMatrix(rng *rand.Rand, m, n, scale int) []float64 {
	a := make([]float64, m*n*im.W)
	for i := 0; i < m*n; i++ {
		x := bnum{re: im.randBig(rng)}
		x.re.SetMantExp(x.re, scale)
		if im.Complex {
			x.im = im.randBig(rng)
			x.im.SetMantExp(x.im, scale)
		}
		im.set(a, i, x)
	}
	return a
}

// bigMatrix reads an m x n matrix (leading dimension lda) exactly.
func (im impl) bigMatrix(a []float64, m, n, lda int) []bnum {
	out := make([]bnum, m*n)
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			out[i+j*m] = im.get(a, i+j*lda)
		}
	}
	return out
}

// fro returns the Frobenius norm of a big m x n matrix as float64 (with
// the exponent kept: the result may be 0 or Inf only when the norm is).
func (im impl) fro(a []bnum) float64 {
	s := im.nf()
	for _, x := range a {
		ab := im.absBig(x)
		s.Add(s, ab.Mul(ab, ab))
	}
	f, _ := s.Sqrt(s).Float64()
	return f
}

// froRatio returns ||a||_F / ||b||_F, computed in big so that scaled
// matrices (entries near 2^±1000) do not overflow the float64 result.
func (im impl) froRatio(a, b []bnum) float64 {
	na, nb := im.nf(), im.nf()
	for _, x := range a {
		ab := im.absBig(x)
		na.Add(na, ab.Mul(ab, ab))
	}
	for _, x := range b {
		ab := im.absBig(x)
		nb.Add(nb, ab.Mul(ab, ab))
	}
	if nb.Sign() == 0 {
		return 0
	}
	r, _ := na.Quo(na, nb).Sqrt(na).Float64()
	return r
}

// factorsOf returns the flat A and Tau of a factorization.
func factorsOf(f Factorization) (a, tau []float64) {
	return f.(interface{ factors() (a, tau []float64) }).factors()
}

// qthin returns Q's first n columns (m x n) in big from the factors.
func (im impl) qthin(f Factorization) []bnum {
	m, n := f.Rows(), f.Cols()
	af, tf := factorsOf(f)
	q := make([]bnum, m*n)
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			q[i+j*m] = im.real(0)
		}
		q[j+j*m] = im.real(1)
	}
	v := make([]bnum, m)
	for k := n - 1; k >= 0; k-- {
		tau := im.get(tf, k)
		if tau.re.Sign() == 0 && (!im.Complex || tau.im.Sign() == 0) {
			continue
		}
		v[k] = im.real(1)
		for i := k + 1; i < m; i++ {
			v[i] = im.get(af, i+k*m)
		}
		// Q = H_0 ... H_(n-1) [I; 0]: apply H_k = I - tau v v^H from the left.
		for j := k; j < n; j++ {
			w := im.zero()
			for i := k; i < m; i++ {
				w = im.add(w, im.mul(im.conj(v[i]), q[i+j*m]))
			}
			tw := im.mul(tau, w)
			for i := k; i < m; i++ {
				q[i+j*m] = im.sub(q[i+j*m], im.mul(v[i], tw))
			}
		}
	}
	return q
}

// bigR returns R (n x n, column-major) in big.
func (im impl) bigR(f Factorization) []bnum {
	m, n := f.Rows(), f.Cols()
	af, _ := factorsOf(f)
	r := make([]bnum, n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			if i <= j {
				r[i+j*n] = im.get(af, i+j*m)
			} else {
				r[i+j*n] = im.real(0)
			}
		}
	}
	return r
}

// qrChecks returns ||A - QR||_F / ||A||_F and ||Q^H Q - I||_F.
func (im impl) qrChecks(a []bnum, f Factorization) (resid, orth float64) {
	m, n := f.Rows(), f.Cols()
	q := im.qthin(f)
	r := im.bigR(f)
	d := make([]bnum, m*n)
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			s := im.nf().Set(a[i+j*m].re)
			x := bnum{re: s}
			if im.Complex {
				x.im = im.nf().Set(a[i+j*m].im)
			}
			for k := 0; k <= j; k++ {
				x = im.sub(x, im.mul(q[i+k*m], r[k+j*n]))
			}
			d[i+j*m] = x
		}
	}
	resid = im.froRatio(d, a)
	e := make([]bnum, n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			s := im.zero()
			for k := 0; k < m; k++ {
				s = im.add(s, im.mul(im.conj(q[k+i*m]), q[k+j*m]))
			}
			if i == j {
				s = im.sub(s, im.real(1))
			}
			e[i+j*n] = s
		}
	}
	return resid, im.fro(e)
}

// bigSolve solves the square system a x = b (n x n, column-major) in big by
// Gaussian elimination with partial pivoting at the impl's precision plus
// extra bits.
func (im impl) bigSolve(a []bnum, b []bnum, n int, extra uint) []bnum {
	hi := im
	hi.prec += extra
	cp := func(x bnum) bnum {
		r := bnum{re: hi.nf().Set(x.re)}
		if im.Complex {
			r.im = hi.nf().Set(x.im)
		}
		return r
	}
	A := make([]bnum, n*n)
	for i := range A {
		A[i] = cp(a[i])
	}
	x := make([]bnum, n)
	for i := range x {
		x[i] = cp(b[i])
	}
	for k := 0; k < n; k++ {
		p, best := k, -1.0
		for i := k; i < n; i++ {
			ab, _ := hi.absBig(A[i+k*n]).Float64()
			if ab > best {
				p, best = i, ab
			}
		}
		for j := 0; j < n; j++ {
			A[k+j*n], A[p+j*n] = A[p+j*n], A[k+j*n]
		}
		x[k], x[p] = x[p], x[k]
		for i := k + 1; i < n; i++ {
			l := hi.quo(A[i+k*n], A[k+k*n])
			for j := k + 1; j < n; j++ {
				A[i+j*n] = hi.sub(A[i+j*n], hi.mul(l, A[k+j*n]))
			}
			x[i] = hi.sub(x[i], hi.mul(l, x[k]))
		}
	}
	for i := n - 1; i >= 0; i-- {
		s := x[i]
		for j := i + 1; j < n; j++ {
			s = hi.sub(s, hi.mul(A[i+j*n], x[j]))
		}
		x[i] = hi.quo(s, A[i+i*n])
	}
	return x
}

// relErrInf returns max_i |x_i - y_i| / max_i |y_i|, x flat, y big.
func (im impl) relErrInf(x []float64, y []bnum) float64 {
	num, den := im.nf(), im.nf()
	for i := range y {
		d := im.absBig(im.sub(im.get(x, i), y[i]))
		if d.Cmp(num) > 0 {
			num = d
		}
		if a := im.absBig(y[i]); a.Cmp(den) > 0 {
			den = a
		}
	}
	if den.Sign() == 0 {
		f, _ := num.Float64()
		return f
	}
	r, _ := num.Quo(num, den).Float64()
	return r
}

// matVec returns A x in big (A m x n column-major big, x flat).
func (im impl) matVec(a []bnum, m, n int, x []bnum) []bnum {
	y := make([]bnum, m)
	for i := 0; i < m; i++ {
		s := im.zero()
		for j := 0; j < n; j++ {
			s = im.add(s, im.mul(a[i+j*m], x[j]))
		}
		y[i] = s
	}
	return y
}

func (im impl) flatVec(v []bnum) []float64 {
	out := make([]float64, len(v)*im.W)
	for i, x := range v {
		im.set(out, i, x)
	}
	return out
}

func (im impl) bigVec(v []float64) []bnum {
	out := make([]bnum, len(v)/im.W)
	for i := range out {
		out[i] = im.get(v, i)
	}
	return out
}

// accuracy collects the worst ratios per impl for the report.
type accuracy struct{ resid, orth, solve, ls, ill float64 }

var (
	accTable = map[string]*accuracy{}
	accMu    sync.Mutex
)

func record(im impl, f func(a *accuracy)) {
	accMu.Lock()
	defer accMu.Unlock()
	a := accTable[im.String()]
	if a == nil {
		a = &accuracy{}
		accTable[im.String()] = a
	}
	f(a)
}

// ---- the suite ----

func TestSuite(t *testing.T) {
	t.Run("group", func(t *testing.T) {
		for _, im := range impls(t) {
			t.Run(im.String(), func(t *testing.T) {
				t.Parallel()
				t.Run("QR", func(t *testing.T) { testQR(t, im) })
				t.Run("Solve", func(t *testing.T) { testSolve(t, im) })
				t.Run("IllConditioned", func(t *testing.T) { testIllConditioned(t, im) })
				t.Run("LeastSquares", func(t *testing.T) { testLeastSquares(t, im) })
				t.Run("RankDeficient", func(t *testing.T) { testRankDeficient(t, im) })
				t.Run("Scaled", func(t *testing.T) { testScaled(t, im) })
				t.Run("MulSub", func(t *testing.T) { testMulSub(t, im) })
				t.Run("Workers", func(t *testing.T) { testWorkers(t, im) })
				t.Run("Teams", func(t *testing.T) { testTeams(t, im) })
				t.Run("MulSubBatch", func(t *testing.T) { testMulSubBatch(t, im) })
				t.Run("Edges", func(t *testing.T) { testEdges(t, im) })
			})
		}
	})
	t.Logf("worst errors in units of Eps(N) = 2^(-52N) (QR residual ||A-QR||_F/||A||_F / n, orthogonality ||Q^HQ-I||_F / n, solve forward error / (n cond), least squares / (n cond^2), ill-conditioned / (n cond)):")
	for _, n := range mdops.Precisions() {
		for _, c := range []string{"F", "C"} {
			name := fmt.Sprintf("%s%d", c, n)
			if a := accTable[name]; a != nil {
				t.Logf("%-4s resid %.3g  orth %.3g  solve %.3g  lsq %.3g  ill %.3g", name, a.resid, a.orth, a.solve, a.ls, a.ill)
			}
		}
	}
}

// testQR checks ||A - QR|| / ||A|| and ||Q^H Q - I|| on random matrices,
// square and tall.
func testQR(t *testing.T, im impl) {
	rng := rand.New(rand.NewPCG(1, uint64(im.N)))
	for _, n := range im.sizes(testing.Short()) {
		for _, m := range []int{n, n + 3 + n/2} {
			a := im.randMatrix(rng, m, n, 0)
			f, err := im.newQR(m, n, a, m, 1)
			if err != nil {
				t.Fatalf("%dx%d: %v", m, n, err)
			}
			resid, orth := im.qrChecks(im.bigMatrix(a, m, n, m), f)
			tol := 4 * float64(max(m, 1)) * im.eps()
			record(im, func(a *accuracy) {
				a.resid = max(a.resid, resid/im.eps()/float64(n))
				a.orth = max(a.orth, orth/im.eps()/float64(n))
			})
			if !(resid <= tol) || !(orth <= tol) {
				t.Errorf("%dx%d: ||A-QR||/||A|| = %.3g, ||Q^HQ-I|| = %.3g, tolerance %.3g", m, n, resid, orth, tol)
			}
		}
	}
}

// testSolve solves random square systems and compares with the exact
// solution of the rounded system (big Gaussian elimination).
func testSolve(t *testing.T, im impl) {
	rng := rand.New(rand.NewPCG(2, uint64(im.N)))
	for _, n := range im.sizes(testing.Short()) {
		a := im.randMatrix(rng, n, n, 0)
		xt := im.bigVec(im.randMatrix(rng, n, 1, 0))
		A := im.bigMatrix(a, n, n, n)
		b := im.flatVec(im.matVec(A, n, n, xt))
		want := im.bigSolve(A, im.bigVec(b), n, 64)
		f, err := im.newQR(n, n, a, n, 1)
		if err != nil {
			t.Fatalf("n = %d: %v", n, err)
		}
		if err := f.Solve(b, 1); err != nil {
			t.Fatal(err)
		}
		cond := f.Cond()
		e := im.relErrInf(b, want)
		record(im, func(a *accuracy) { a.solve = max(a.solve, e/im.eps()/float64(n)/cond) })
		if !(e <= 4*float64(n)*cond*im.eps()) {
			t.Errorf("n = %d: forward error %.3g, cond %.3g", n, e, cond)
		}
	}
}

// testIllConditioned solves A x = b with A = (I - 2uu^H/u^Hu) diag(s)
// (I - 2ww^H/w^Hw), s graded geometrically from 1 to 1/kappa: a dense
// matrix of known 2-norm condition kappa = Eps(N)^(-1/2) (capped at 2^300).
// It checks the forward error against kappa, and the estimate Cond()
// against kappa (the 1-norm and 2-norm conditions differ by at most n).
func testIllConditioned(t *testing.T, im impl) {
	rng := rand.New(rand.NewPCG(3, uint64(im.N)))
	for _, n := range im.sizes(testing.Short()) {
		if n < 2 {
			continue
		}
		lk := min(26*im.N, 300)
		kappa := math.Ldexp(1, lk)
		u := im.bigVec(im.randMatrix(rng, n, 1, 0))
		w := im.bigVec(im.randMatrix(rng, n, 1, 0))
		refl := func(u []bnum) []bnum {
			nu := im.nf()
			for _, x := range u {
				ab := im.absBig(x)
				nu.Add(nu, ab.Mul(ab, ab))
			}
			h := make([]bnum, n*n)
			for j := 0; j < n; j++ {
				for i := 0; i < n; i++ {
					p := im.mul(u[i], im.conj(u[j]))
					p.re.Quo(p.re, nu).Mul(p.re, big.NewFloat(2))
					if im.Complex {
						p.im.Quo(p.im, nu).Mul(p.im, big.NewFloat(2))
					}
					d := im.real(0)
					if i == j {
						d = im.real(1)
					}
					h[i+j*n] = im.sub(d, p)
				}
			}
			return h
		}
		U, V := refl(u), refl(w)
		A := make([]bnum, n*n)
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				s := im.zero()
				for k := 0; k < n; k++ {
					sk := im.nf().SetMantExp(big.NewFloat(1), -lk*k/(n-1))
					p := im.mul(U[i+k*n], V[k+j*n])
					p.re.Mul(p.re, sk)
					if im.Complex {
						p.im.Mul(p.im, sk)
					}
					s = im.add(s, p)
				}
				A[i+j*n] = s
			}
		}
		a := im.flatVec(A)
		A = im.bigMatrix(a, n, n, n)
		xt := im.bigVec(im.randMatrix(rng, n, 1, 0))
		b := im.flatVec(im.matVec(A, n, n, xt))
		want := im.bigSolve(A, im.bigVec(b), n, uint(lk)+64)
		f, err := im.newQR(n, n, a, n, 1)
		if err != nil {
			t.Fatalf("n = %d: %v", n, err)
		}
		if err := f.Solve(b, 1); err != nil {
			t.Fatal(err)
		}
		cond := f.Cond()
		if !(cond >= kappa/float64(4*n) && cond <= kappa*float64(4*n)) {
			t.Errorf("n = %d: Cond() = %.3g, 2-norm condition %.3g", n, cond, kappa)
		}
		e := im.relErrInf(b, want)
		record(im, func(a *accuracy) { a.ill = max(a.ill, e/im.eps()/float64(n)/kappa) })
		if !(e <= 4*float64(n)*kappa*im.eps()) {
			t.Errorf("n = %d: forward error %.3g, kappa %.3g", n, e, kappa)
		}
	}
}

// testLeastSquares compares the QR least-squares solution of a tall random
// system with the solution of the normal equations in big at twice the
// precision.
func testLeastSquares(t *testing.T, im impl) {
	rng := rand.New(rand.NewPCG(4, uint64(im.N)))
	for _, n := range im.sizes(testing.Short()) {
		m := n + 3 + n/2
		a := im.randMatrix(rng, m, n, 0)
		b := im.randMatrix(rng, m, 1, 0)
		A := im.bigMatrix(a, m, n, m)
		B := im.bigVec(b)
		hi := im
		hi.prec *= 2
		N := make([]bnum, n*n)
		r := make([]bnum, n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				s := hi.zero()
				for k := 0; k < m; k++ {
					s = hi.add(s, hi.mul(hi.conj(A[k+i*m]), A[k+j*m]))
				}
				N[i+j*n] = s
			}
			s := hi.zero()
			for k := 0; k < m; k++ {
				s = hi.add(s, hi.mul(hi.conj(A[k+i*m]), B[k]))
			}
			r[i] = s
		}
		want := hi.bigSolve(N, r, n, 64)
		f, err := im.newQR(m, n, a, m, 1)
		if err != nil {
			t.Fatalf("%dx%d: %v", m, n, err)
		}
		if err := f.Solve(b, 1); err != nil {
			t.Fatal(err)
		}
		cond := f.Cond()
		e := im.relErrInf(b[:n*im.W], want)
		record(im, func(a *accuracy) { a.ls = max(a.ls, e/im.eps()/float64(n)/(cond*cond)) })
		if !(e <= 4*float64(m)*cond*cond*im.eps()) {
			t.Errorf("%dx%d: forward error %.3g, cond %.3g", m, n, e, cond)
		}
	}
}

// testRankDeficient checks that a repeated column, a dependent column and a
// zero column are reported as a *RankError naming that column.
func testRankDeficient(t *testing.T, im impl) {
	rng := rand.New(rand.NewPCG(5, uint64(im.N)))
	for _, n := range []int{3, 8, 20} {
		m := n + 2
		for _, kind := range []string{"repeat", "sum", "zero"} {
			c := n/2 + 1 // 0-based column made dependent
			a := im.randMatrix(rng, m, n, 0)
			for i := 0; i < m; i++ {
				switch kind {
				case "repeat":
					copy(a[(i+c*m)*im.W:(i+c*m+1)*im.W], a[i*im.W:(i+1)*im.W])
				case "sum":
					im.set(a, i+c*m, im.add(im.get(a, i), im.get(a, i+m)))
				case "zero":
					clear(a[(i+c*m)*im.W : (i+c*m+1)*im.W])
				}
			}
			_, err := im.newQR(m, n, a, m, 1)
			var re *RankError
			if !errors.As(err, &re) {
				t.Errorf("%s column %d of %dx%d: error %v, want a *RankError", kind, c+1, m, n, err)
				continue
			}
			if re.Col != c+1 {
				t.Errorf("%s column %d of %dx%d: reported column %d (%v)", kind, c+1, m, n, re.Col, err)
			}
		}
	}
	// A zero matrix: column 1.
	_, err := im.newQR(4, 3, make([]float64, 12*im.W), 4, 1)
	var re *RankError
	if !errors.As(err, &re) || re.Col != 1 {
		t.Errorf("zero matrix: %v", err)
	}
}

// testScaled factors matrices with entries near 2^1000 (whose squares
// overflow) and near 2^-1000 (whose squares underflow, and whose limbs
// below 2^-1074 are lost), and checks that QR(2^1000 A) = 2^1000 QR(A) bit
// for bit (R scaled, v and tau unchanged).
func testScaled(t *testing.T, im impl) {
	rng := rand.New(rand.NewPCG(6, uint64(im.N)))
	n := 12
	if testing.Short() && im.N > 4 {
		n = 6
	}
	m := n + 5
	for _, sc := range []int{1000, -1000} {
		a := im.randMatrix(rng, m, n, sc)
		f, err := im.newQR(m, n, a, m, 1)
		if err != nil {
			t.Fatalf("scale 2^%d: %v", sc, err)
		}
		af, tf := factorsOf(f)
		for _, v := range append(append([]float64{}, af...), tf...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("scale 2^%d: non-finite factor %v", sc, v)
			}
		}
		resid, orth := im.qrChecks(im.bigMatrix(a, m, n, m), f)
		tol := 4 * float64(m) * im.eps()
		if sc < 0 {
			// Limbs below 2^-1074 do not exist: about 74 bits are left.
			tol = max(tol, float64(m)*0x1p-60)
		}
		if !(resid <= tol) || !(orth <= tol) {
			t.Errorf("scale 2^%d: ||A-QR||/||A|| = %.3g, ||Q^HQ-I|| = %.3g, tolerance %.3g", sc, resid, orth, tol)
		}
		if sc > 0 {
			// Power-of-two scaling commutes with the factorization.
			a0 := im.randMatrix(rand.New(rand.NewPCG(7, 7)), m, n, 0)
			a1 := make([]float64, len(a0))
			for i, v := range a0 {
				a1[i] = math.Ldexp(v, sc)
			}
			f0, _ := im.newQR(m, n, a0, m, 1)
			f1, _ := im.newQR(m, n, a1, m, 1)
			A0, T0 := factorsOf(f0)
			A1, T1 := factorsOf(f1)
			for j := 0; j < n; j++ {
				for i := 0; i < m; i++ {
					for l := 0; l < im.W; l++ {
						k := (i+j*m)*im.W + l
						want := A0[k]
						if i <= j {
							want = math.Ldexp(want, sc)
						}
						if A1[k] != want {
							t.Fatalf("QR(2^%d A) != 2^%d QR(A) at (%d, %d)", sc, sc, i, j)
						}
					}
				}
			}
			for k := range T0 {
				if T0[k] != T1[k] {
					t.Fatalf("tau differs under scaling")
				}
			}
		}
	}
}

// testMulSub checks b - A x and the 1-norm residual against big.
func testMulSub(t *testing.T, im impl) {
	rng := rand.New(rand.NewPCG(8, uint64(im.N)))
	for _, n := range im.sizes(testing.Short()) {
		m := n + 7
		a := im.randMatrix(rng, m+2, n, 0) // lda = m+2
		x := im.randMatrix(rng, n, 1, 0)
		b := im.randMatrix(rng, m, 1, 0)
		A := im.bigMatrix(a, m, n, m+2)
		want := im.matVec(A, m, n, im.bigVec(x))
		B := im.bigVec(b)
		r1 := im.nf()
		scale := 0.0
		for i := range want {
			want[i] = im.sub(B[i], want[i])
			r1.Add(r1, im.absBig(want[i]))
			s := im.abs(B[i])
			for j := 0; j < n; j++ {
				s += im.abs(A[i+j*m]) * im.abs(im.get(x, j))
			}
			scale = max(scale, s)
		}
		res := im.residual1(m, n, a, m+2, x, b, 1)
		im.mulSub(m, n, a, m+2, x, b, 1)
		for i := range want {
			if d := im.abs(im.sub(im.get(b, i), want[i])); !(d <= 4*float64(n+1)*im.eps()*scale) {
				t.Fatalf("n = %d: b - A x wrong at row %d by %.3g (scale %.3g)", n, i, d, scale)
			}
		}
		r1f, _ := r1.Float64()
		if !(math.Abs(res-r1f) <= 4*float64(m*(n+1))*im.eps()*scale) {
			t.Errorf("n = %d: Residual1 = %.17g, want %.17g", n, res, r1f)
		}
	}
}

// testWorkers checks that every parallel routine gives bit-identical results
// for any worker count.
func testWorkers(t *testing.T, im impl) {
	rng := rand.New(rand.NewPCG(9, uint64(im.N)))
	sizes := []int{17, 40}
	switch {
	case testing.Short() && im.N > 4:
		sizes = []int{13}
	case !testing.Short() && im.N <= 4:
		sizes = append(sizes, 70)
	}
	same := func(what string, x, y []float64) {
		t.Helper()
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				t.Fatalf("%s differs at %d", what, i)
			}
		}
	}
	for _, n := range sizes {
		m := n + 9
		a := im.randMatrix(rng, m, n, 0)
		f1, _ := im.newQR(m, n, a, m, 1)
		A1, T1 := factorsOf(f1)
		for _, w := range []int{2, 3, 8} {
			f, _ := im.newQR(m, n, a, m, w)
			A, T := factorsOf(f)
			same(fmt.Sprintf("QR %dx%d, %d workers: A", m, n, w), A1, A)
			same(fmt.Sprintf("QR %dx%d, %d workers: tau", m, n, w), T1, T)
		}
		const nrhs = 5
		b := im.randMatrix(rng, m, nrhs, 0)
		one := append([]float64{}, b...)
		for c := 0; c < nrhs; c++ {
			col := one[c*m*im.W : (c+1)*m*im.W]
			f1.ApplyQH(col, 1)
			if err := f1.SolveR(col, 1); err != nil {
				t.Fatal(err)
			}
		}
		x := im.randMatrix(rng, n, 1, 0)
		y1 := im.randMatrix(rng, m, 1, 0)
		y0 := append([]float64{}, y1...)
		im.mulSub(m, n, a, m, x, y1, 1)
		r1 := im.residual1(m, n, a, m, x, y0, 1)
		for _, w := range []int{2, 3, 8} {
			bb := append([]float64{}, b...)
			f1.ApplyQHMany(nrhs, bb, m, w)
			if err := f1.SolveRMany(nrhs, bb, m, w); err != nil {
				t.Fatal(err)
			}
			same(fmt.Sprintf("ApplyQHMany+SolveRMany, %d workers", w), one, bb)
			y := append([]float64{}, y0...)
			im.mulSub(m, n, a, m, x, y, w)
			same(fmt.Sprintf("MulSub %dx%d, %d workers", m, n, w), y1, y)
			if r := im.residual1(m, n, a, m, x, y0, w); math.Float64bits(r) != math.Float64bits(r1) {
				t.Fatalf("Residual1, %d workers: %v != %v", w, r, r1)
			}
		}
	}
	// Many rows: MulSub splits them over workers in chunks.
	m, n := 301, 37
	if testing.Short() && im.N > 4 {
		m, n = 97, 11
	}
	a := im.randMatrix(rng, m, n, 0)
	x := im.randMatrix(rng, n, 1, 0)
	y1 := im.randMatrix(rng, m, 1, 0)
	y0 := append([]float64{}, y1...)
	im.mulSub(m, n, a, m, x, y1, 1)
	for _, w := range []int{2, 5, 16} {
		y := append([]float64{}, y0...)
		im.mulSub(m, n, a, m, x, y, w)
		same(fmt.Sprintf("MulSub %dx%d, %d workers", m, n, w), y1, y)
	}
}

// teamMins reads and sets a factorization's team thresholds.
type teamMins interface {
	teamMins() (qhMin, trMin int)
	setTeamMins(qhMin, trMin int)
}

// zeroTauMatrix returns a random m x n matrix whose reflectors k1..k2-1 are
// the identity (tau = 0) and the others but k1-1 are not: columns j < k1 are
// random in rows 0..k1-1 only (their reflectors leave the rows from k1 on
// alone),
// columns k1 <= j < k2 are random in rows 0..j with a real diagonal
// (nothing below the diagonal to reflect), the rest are random.
func (im impl) zeroTauMatrix(rng *rand.Rand, m, n, k1, k2 int) []float64 {
	a := im.randMatrix(rng, m, n, 0)
	zero := make([]float64, im.W)
	for j := 0; j < k2; j++ {
		top := k1
		if j >= k1 {
			top = j + 1
			if im.Complex {
				clear(a[(j+j*m)*im.W+im.N : (j+j*m+1)*im.W])
			}
		}
		for i := top; i < m; i++ {
			copy(a[(i+j*m)*im.W:], zero)
		}
	}
	return a
}

// testTeams checks that ApplyQH, SolveR and Solve on one vector give the
// bits of one worker for every worker count: with the default team
// thresholds on sizes that cross them (where that is cheap), and with
// lowered ones (so that the teams run at every size: partial lane groups,
// K < Lanes, more workers than lanes, reflectors with tau = 0 inside the
// team's range, the serial tail). Solve's bits are ApplyQH's then SolveR's.
func testTeams(t *testing.T, im impl) {
	teamAlways.Add(1) // no back-off: the teams run however slow the machine
	defer teamAlways.Add(-1)
	rng := rand.New(rand.NewPCG(21, uint64(im.N)))
	type tcase struct {
		m, n, k1, k2 int // k1 < k2: reflectors k1..k2-1 are the identity
		mins         [][2]int
	}
	low := [][2]int{{1, 0}, {2, 3}, {3, 17}, {5, 1}}
	cases := []tcase{
		{1, 1, 0, 0, low}, {2, 2, 0, 0, low}, {5, 3, 0, 0, low}, {17, 17, 0, 0, low},
		{40, 33, 0, 0, low}, {70, 20, 0, 0, low}, {40, 30, 6, 11, low}, {33, 33, 0, 4, low},
	}
	if testing.Short() && im.N > 4 {
		cases = []tcase{{5, 3, 0, 0, low}, {17, 17, 0, 0, low}, {40, 21, 0, 0, low}, {30, 20, 4, 9, low}}
	}
	// The default thresholds, crossed: ApplyQH's team of two starts at
	// m = 4 qhMin, SolveR's at n = 2 trMin + 4.
	probe, _ := im.newQR(1, 1, make([]float64, im.W), 1, 1)
	qhMin, trMin := probe.(teamMins).teamMins()
	limit := 400
	if testing.Short() {
		limit = 120
	}
	if m := max(4*qhMin+3, 12); m <= 4*limit {
		cases = append(cases, tcase{m, 6, 0, 0, nil}, tcase{m, 9, 2, 5, nil})
	}
	if n := 2*trMin + 6; n <= limit {
		cases = append(cases, tcase{n, n, 0, 0, nil}, tcase{n + 5, n, 3, 7, nil})
	}
	same := func(what string, x, y []float64) {
		t.Helper()
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				t.Fatalf("%s differs at double %d", what, i)
			}
		}
	}
	for _, c := range cases {
		m, n := c.m, c.n
		var a []float64
		if c.k2 > c.k1 {
			a = im.zeroTauMatrix(rng, m, n, c.k1, c.k2)
		} else {
			a = im.randMatrix(rng, m, n, 0)
		}
		f, _ := im.newQR(m, n, a, m, 2)
		if c.k2 > c.k1 {
			_, tau := factorsOf(f)
			for k := 0; k < n; k++ {
				// (Reflector k1-1, and m-1, see one row: the identity when real.)
				if z := tau[k*im.W] == 0 && (!im.Complex || tau[k*im.W+im.N] == 0); k != c.k1-1 && k != m-1 && z != (k >= c.k1 && k < c.k2) {
					t.Fatalf("%dx%d: tau_%d zero: %v", m, n, k, z)
				}
			}
		}
		b := im.randMatrix(rng, m, 1, 0)
		q1 := append([]float64{}, b...)
		f.ApplyQH(q1, 1)
		x1 := append([]float64{}, q1...)
		if err := f.SolveR(x1, 1); err != nil {
			t.Fatal(err)
		}
		tm := f.(teamMins)
		d0, d1 := tm.teamMins()
		mins := append([][2]int{{d0, d1}}, c.mins...)
		g0 := f.(qhGroups).qhGroupOf()
		for mi, mn := range mins {
			tm.setTeamMins(mn[0], mn[1])
			// ApplyQH's lane groups: the default, and (with lowered
			// thresholds) one lane at a time, pairs and the largest.
			groups := []int{g0}
			if mi > 0 {
				groups = append(groups, 1, 2, Lanes)
			}
			for gi, w := range []int{2, 3, 8, 16, 17} {
				g := groups[gi%len(groups)]
				f.(qhGroups).setQHGroup(g)
				what := fmt.Sprintf("%dx%d (tau = 0 at %d..%d), qhMin %d, trMin %d, %d workers, group %d", m, n, c.k1, c.k2-1, mn[0], mn[1], w, g)
				q := append([]float64{}, b...)
				f.ApplyQH(q, w)
				same("ApplyQH "+what, q1, q)
				x := append([]float64{}, q1...)
				if err := f.SolveR(x, w); err != nil {
					t.Fatal(err)
				}
				same("SolveR "+what, x1, x)
				x = append(x[:0], b...)
				if err := f.Solve(x, w); err != nil {
					t.Fatal(err)
				}
				same("Solve "+what, x1, x)
				// Fewer columns than workers: the columns' own teams.
				bb := append(append([]float64{}, b...), b...)
				f.ApplyQHMany(2, bb, m, w)
				same("ApplyQHMany "+what, append(append([]float64{}, q1...), q1...), bb)
				bb = append(append(bb[:0], q1...), q1...)
				if err := f.SolveRMany(2, bb, m, w); err != nil {
					t.Fatal(err)
				}
				same("SolveRMany "+what, append(append([]float64{}, x1[:n*im.W]...), x1[:n*im.W]...), append(append([]float64{}, bb[:n*im.W]...), bb[m*im.W:(m+n)*im.W]...))
			}
		}
		tm.setTeamMins(d0, d1)
		f.(qhGroups).setQHGroup(g0)
	}
}

// qhGroups reads and sets the lane group of a factorization's ApplyQH team.
type qhGroups interface {
	qhGroupOf() int
	setQHGroup(g int)
}

// testMulSubBatch checks MulSubBatch against separate MulSubs: several
// matrices and one vector (the Newton updates), one matrix and several
// vectors (the Newton residuals), with any worker count.
func testMulSubBatch(t *testing.T, im impl) {
	rng := rand.New(rand.NewPCG(23, uint64(im.N)))
	batch := func(count, m, n int, a []float64, sa int, x []float64, sx int, b []float64, sb, w int) {
		if im.Complex {
			im.K.MulSubBatchComplex(count, m, n, a, m, sa, x, sx, b, sb, w)
		} else {
			im.K.MulSubBatch(count, m, n, a, m, sa, x, sx, b, sb, w)
		}
	}
	for _, mn := range [][2]int{{1, 1}, {7, 3}, {40, 33}, {70, 20}, {33, 0}} {
		m, n := mn[0], mn[1]
		const count = 5
		a := im.randMatrix(rng, m, n*count, 0)
		x := im.randMatrix(rng, n*count+1, 1, 0)
		b := im.randMatrix(rng, m, count, 0)
		for _, st := range [][2]int{{m * n, 0}, {0, n}, {m * n, n}} {
			want := append([]float64{}, b...)
			for c := 0; c < count; c++ {
				im.mulSub(m, n, a[c*st[0]*im.W:], m, x[c*st[1]*im.W:], want[c*m*im.W:(c+1)*m*im.W], 1)
			}
			for _, w := range []int{1, 2, 3, 8} {
				got := append([]float64{}, b...)
				batch(count, m, n, a, st[0], x, st[1], got, m, w)
				for i := range want {
					if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
						t.Fatalf("%dx%d strides %v, %d workers: differs at double %d", m, n, st, w, i)
					}
				}
			}
		}
	}
}

// testEdges covers empty and one-element problems and the errors of
// singular solves.
func testEdges(t *testing.T, im impl) {
	f, err := im.newQR(0, 0, nil, 1, 2)
	if err != nil || f.Cond() != 0 {
		t.Errorf("0x0: %v, cond %v", err, f.Cond())
	}
	f, err = im.newQR(3, 0, nil, 3, 2)
	if err != nil {
		t.Errorf("3x0: %v", err)
	}
	b := make([]float64, 3*im.W)
	f.ApplyQH(b, 2)
	a := make([]float64, im.W)
	a[0] = -3
	f, err = im.newQR(1, 1, a, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	b = make([]float64, im.W)
	b[0] = 6
	if err := f.Solve(b, 1); err != nil || b[0] != -2 {
		t.Errorf("1x1: x = %v, %v", b[0], err)
	}
	if c := f.Cond(); c != 1 {
		t.Errorf("1x1: cond %v", c)
	}
	// A singular solve leaves b unchanged.
	a = make([]float64, 4*im.W)
	a[0] = 1
	f, err = im.newQR(2, 2, a, 2, 1)
	if err == nil {
		t.Fatal("singular 2x2: no error")
	}
	b = []float64{1, 2}
	b = append(b, make([]float64, 2*im.W-2)...)
	keep := append([]float64{}, b...)
	var re *RankError
	if err := f.Solve(b, 1); !errors.As(err, &re) || re.Col != 2 {
		t.Errorf("singular solve: %v", err)
	}
	for i := range b {
		if b[i] != keep[i] {
			t.Fatalf("singular solve changed b")
		}
	}
	if c := f.Cond(); !math.IsInf(c, 1) {
		t.Errorf("singular cond %v", c)
	}
}

// TestDotuFrom checks that dotuFrom over any split of 0..K into
// consecutive ranges leaves the lanes of dotu (the resumable dot product
// of the back substitution's team), also when combined in two parts
// around any lane (combineOff, combinePath), and that hdotClass for the workers
// p of w with lane groups g (lane l is worker (l/g) mod w's), then the
// levels s < w g of the tree, give hdot.
func TestDotuFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	im := impl{N: 2, W: 2, tt: testTypes[2], prec: 328}
	x := as[mdops.F2](im.randMatrix(rng, 80, 1, 0), 2)
	y := as[mdops.F2](im.randMatrix(rng, 80, 1, 0), 2)
	imc := impl{N: 2, Complex: true, W: 4, tt: testTypes[2], prec: 328}
	xc := as[mdops.C2](imc.randMatrix(rng, 80, 1, 0), 4)
	yc := as[mdops.C2](imc.randMatrix(rng, 80, 1, 0), 4)
	for k := 0; k <= 80; k++ {
		for trial := 0; trial < 8; trial++ {
			var acc [Lanes]mdops.F2
			var accc [Lanes]mdops.C2
			for q := 0; q < k; {
				hi := min(k, q+1+rng.IntN(20))
				dotuFromF2(&acc, x, y, q, hi)
				dotuFromC2(&accc, xc, yc, q, hi)
				q = hi
			}
			if k > 0 {
				// combine in two parts, around the last term's lane (as
				// the back substitution's team), for every lane
				for last := 0; last < Lanes; last++ {
					a2, c2 := acc, accc
					combineOffF2(&a2, min(k, Lanes), last)
					combineOffC2(&c2, min(k, Lanes), last)
					if got, want := combinePathF2(&a2, min(k, Lanes), last), dotuF2(x[:k], y[:k]); got != want {
						t.Fatalf("F2 K = %d, last lane %d: combineOff, combinePath %v, dotu %v", k, last, got, want)
					}
					if got, want := combinePathC2(&c2, min(k, Lanes), last), dotuC2(xc[:k], yc[:k]); got != want {
						t.Fatalf("C2 K = %d, last lane %d: combineOff, combinePath %v, dotu %v", k, last, got, want)
					}
				}
			}
			if got, want := combineF2(&acc, min(k, Lanes)), dotuF2(x[:k], y[:k]); got != want {
				t.Fatalf("F2 K = %d: dotuFrom %v, dotu %v", k, got, want)
			}
			if got, want := combineC2(&accc, min(k, Lanes)), dotuC2(xc[:k], yc[:k]); got != want {
				t.Fatalf("C2 K = %d: dotuFrom %v, dotu %v", k, got, want)
			}
		}
		if k == 0 {
			continue
		}
		for _, w := range []int{1, 2, 4, 8, 16} {
			for g := 1; w*g <= Lanes; g *= 2 {
				var acc [Lanes]mdops.F2
				var accc [Lanes]mdops.C2
				for p := 0; p < w; p++ {
					hdotClassF2(&acc, p, w, g, y[:k], x)
					hdotClassC2(&accc, p, w, g, yc[:k], xc)
				}
				f := min(k, Lanes)
				for s := w * g / 2; s >= 1; s /= 2 {
					for l := 0; l < s && l+s < f; l++ {
						acc[l] = acc[l].Add(acc[l+s])
						accc[l] = accc[l].Add(accc[l+s])
					}
				}
				if got, want := acc[0], hdotF2(y[0], x[:k-1], y[1:k]); got != want {
					t.Fatalf("F2 K = %d, %d workers, group %d: hdotClass %v, hdot %v", k, w, g, got, want)
				}
				if got, want := accc[0], hdotC2(yc[0], xc[:k-1], yc[1:k]); got != want {
					t.Fatalf("C2 K = %d, %d workers, group %d: hdotClass %v, hdot %v", k, w, g, got, want)
				}
			}
		}
	}
}
