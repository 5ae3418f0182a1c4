package la

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mdgen/mdgen/mdops"
)

// A second, deliberately naive implementation of the documented order of
// operations (doc.go, "Order of operations"), written from the text rather
// than from the generated code: lanes with a "received a term" flag, the
// tree, larfg's steps, ... TestSpec checks that the generated routines
// agree with it bit for bit, at N = 2, real and complex; it is also
// the shortest statement of what a GPU kernel has to reproduce.

// specSum is the lane reduction of K terms: lane i mod Lanes takes term i in
// increasing i, its first term by first(i), later ones by later(acc, i);
// then for s = Lanes/2, ..., 1, lane l < s becomes add(lane l, lane l+s)
// when lane l+s received a term. The sum is lane 0 (zero when K = 0).
func specSum[T any](K int, first func(i int) T, later func(acc T, i int) T, add func(a, b T) T) T {
	var lane [Lanes]T
	var got [Lanes]bool
	for i := 0; i < K; i++ {
		l := i % Lanes
		if !got[l] {
			lane[l], got[l] = first(i), true
		} else {
			lane[l] = later(lane[l], i)
		}
	}
	for s := Lanes / 2; s >= 1; s /= 2 {
		for l := 0; l < s; l++ {
			if got[l+s] {
				lane[l] = add(lane[l], lane[l+s])
			}
		}
	}
	return lane[0]
}

// specOps are the element operations the spec names, for one type.
type specOps[T, R any] struct {
	prod     func(x, y T) T      // first product of a lane (F: Mul; C: C{}.MulAdd)
	madd     func(acc, x, y T) T // acc.MulAdd(x, y)
	add, sub func(a, b T) T
	conj     func(x T) T
	neg      func(x T) T
	mul      func(x, y T) T
	mulReal  func(x T, r R) T // both parts times r
	isZero   func(x T) bool
	realOf   func(x T) R
	larfg    func(x []T) T
}

// specApplyH applies H^H = I - conj(tau) v v^H to c (v[0] = 1 implicit, v
// holds the tail).
func specApplyH[T, R any](o specOps[T, R], v []T, tau T, c []T) {
	if o.isZero(tau) {
		return
	}
	K := len(v) + 1
	w := specSum(K,
		func(i int) T {
			if i == 0 {
				return c[0]
			}
			return o.prod(o.conj(v[i-1]), c[i])
		},
		func(acc T, i int) T { return o.madd(acc, o.conj(v[i-1]), c[i]) },
		o.add)
	s := o.neg(o.mul(o.conj(tau), w))
	c[0] = o.add(c[0], s)
	for i := 1; i < K; i++ {
		c[i] = o.madd(c[i], v[i-1], s)
	}
}

func specQR[T, R any](o specOps[T, R], m, n int, a []T) []T {
	tau := make([]T, n)
	for k := 0; k < n; k++ {
		tau[k] = o.larfg(a[k+k*m : (k+1)*m])
		for j := k + 1; j < n; j++ {
			specApplyH(o, a[k+1+k*m:(k+1)*m], tau[k], a[k+j*m:(j+1)*m])
		}
	}
	return tau
}

// specSolveR: x_i = (b_i - sum_{j=n-1 down to i+1} R_ij x_j) * (1/R_ii).
func specSolveR[T, R any](o specOps[T, R], m, n int, a []T, b []T, one func(R) R) {
	for i := n - 1; i >= 0; i-- {
		x := b[i]
		if K := n - 1 - i; K > 0 {
			s := specSum(K,
				func(t int) T { return o.prod(a[i+(n-1-t)*m], b[n-1-t]) },
				func(acc T, t int) T { return o.madd(acc, a[i+(n-1-t)*m], b[n-1-t]) },
				o.add)
			x = o.sub(x, s)
		}
		b[i] = o.mulReal(x, one(o.realOf(a[i+i*m])))
	}
}

// specMulSub: b_i -= sum_{j=0..n-1} A_ij x_j.
func specMulSub[T, R any](o specOps[T, R], m, n int, a []T, lda int, x, b []T) {
	if n == 0 {
		return
	}
	for i := 0; i < m; i++ {
		s := specSum(n,
			func(j int) T { return o.prod(a[i+j*lda], x[j]) },
			func(acc T, j int) T { return o.madd(acc, a[i+j*lda], x[j]) },
			o.add)
		b[i] = o.sub(b[i], s)
	}
}

// specScale multiplies by 2^-e as larfg does (f1, then f2 when not 1).
func specScales(amax float64) (f1, f2, g1, g2 float64) {
	_, exp := math.Frexp(amax)
	e := exp - 1
	f1, f2, g1, g2 = math.Ldexp(1, -e), 1, math.Ldexp(1, e), 1
	if -e > 1023 {
		f1, f2 = math.Ldexp(1, 1000), math.Ldexp(1, -e-1000)
	}
	if e < -1022 {
		g1, g2 = math.Ldexp(1, -1000), math.Ldexp(1, e+1000)
	}
	return
}

// ---- F2 / C2 ----

func specLarfgF2(x []mdops.F2) mdops.F2 {
	amax := 0.0
	for _, xi := range x[1:] {
		amax = max(amax, math.Abs(xi[0]))
	}
	if len(x) == 0 || amax == 0 {
		return mdops.F2{}
	}
	f1, f2, g1, g2 := specScales(max(amax, math.Abs(x[0][0])))
	sc := func(v mdops.F2, a, b float64) mdops.F2 {
		v = v.MulFloat64(a)
		if b != 1 {
			v = v.MulFloat64(b)
		}
		return v
	}
	a := sc(x[0], f1, f2)
	ss := specSum(len(x)-1,
		func(i int) mdops.F2 { y := sc(x[i+1], f1, f2); return y.Mul(y) },
		func(acc mdops.F2, i int) mdops.F2 { y := sc(x[i+1], f1, f2); return acc.MulAdd(y, y) },
		mdops.F2.Add)
	nrm := ss.MulAdd(a, a).Sqrt()
	beta := nrm
	if a[0] >= 0 {
		beta = nrm.Neg()
	}
	d := a.Sub(beta)
	tau := d.Div(beta).Neg()
	r := mdops.F2FromFloat64(1).Div(d)
	for i := 1; i < len(x); i++ {
		x[i] = sc(x[i], f1, f2).Mul(r)
	}
	x[0] = sc(beta, g1, g2)
	return tau
}

func specLarfgC2(x []mdops.C2) mdops.C2 {
	amax := 0.0
	for _, xi := range x[1:] {
		amax = max(amax, math.Abs(xi.Re[0]), math.Abs(xi.Im[0]))
	}
	if len(x) == 0 || (amax == 0 && x[0].Im[0] == 0) {
		return mdops.C2{}
	}
	f1, f2, g1, g2 := specScales(max(amax, math.Abs(x[0].Re[0]), math.Abs(x[0].Im[0])))
	scr := func(v mdops.F2, a, b float64) mdops.F2 {
		v = v.MulFloat64(a)
		if b != 1 {
			v = v.MulFloat64(b)
		}
		return v
	}
	sc := func(v mdops.C2) mdops.C2 { return mdops.C2{Re: scr(v.Re, f1, f2), Im: scr(v.Im, f1, f2)} }
	a := sc(x[0])
	ss := specSum(len(x)-1,
		func(i int) mdops.F2 { y := sc(x[i+1]); return y.Re.Mul(y.Re).MulAdd(y.Im, y.Im) },
		func(acc mdops.F2, i int) mdops.F2 { y := sc(x[i+1]); return acc.MulAdd(y.Re, y.Re).MulAdd(y.Im, y.Im) },
		mdops.F2.Add)
	nrm := ss.MulAdd(a.Re, a.Re).MulAdd(a.Im, a.Im).Sqrt()
	beta := nrm
	if a.Re[0] >= 0 {
		beta = nrm.Neg()
	}
	d := a.Re.Sub(beta)
	tau := mdops.C2{Re: d.Div(beta).Neg(), Im: a.Im.Div(beta).Neg()}
	r := mdops.C2{Re: mdops.F2FromFloat64(1)}.Div(mdops.C2{Re: d, Im: a.Im})
	for i := 1; i < len(x); i++ {
		x[i] = sc(x[i]).Mul(r)
	}
	x[0] = mdops.C2{Re: scr(beta, g1, g2)}
	return tau
}

var specF2 = specOps[mdops.F2, mdops.F2]{
	prod:    mdops.F2.Mul,
	madd:    mdops.F2.MulAdd,
	add:     mdops.F2.Add,
	sub:     mdops.F2.Sub,
	conj:    func(x mdops.F2) mdops.F2 { return x },
	neg:     mdops.F2.Neg,
	mul:     mdops.F2.Mul,
	mulReal: mdops.F2.Mul,
	isZero:  func(x mdops.F2) bool { return x[0] == 0 },
	realOf:  func(x mdops.F2) mdops.F2 { return x },
	larfg:   specLarfgF2,
}

var specC2 = specOps[mdops.C2, mdops.F2]{
	prod:    func(x, y mdops.C2) mdops.C2 { return mdops.C2{}.MulAdd(x, y) },
	madd:    mdops.C2.MulAdd,
	add:     mdops.C2.Add,
	sub:     mdops.C2.Sub,
	conj:    func(x mdops.C2) mdops.C2 { return mdops.C2{Re: x.Re, Im: x.Im.Neg()} },
	neg:     func(x mdops.C2) mdops.C2 { return mdops.C2{Re: x.Re.Neg(), Im: x.Im.Neg()} },
	mul:     mdops.C2.Mul,
	mulReal: func(x mdops.C2, r mdops.F2) mdops.C2 { return mdops.C2{Re: x.Re.Mul(r), Im: x.Im.Mul(r)} },
	isZero:  func(x mdops.C2) bool { return x.Re[0] == 0 && x.Im[0] == 0 },
	realOf:  func(x mdops.C2) mdops.F2 { return x.Re },
	larfg:   specLarfgC2,
}

func specOne(r mdops.F2) mdops.F2 { return mdops.F2FromFloat64(1).Div(r) }

func bitsEqual(t *testing.T, what string, x, y []float64) {
	t.Helper()
	if len(x) != len(y) {
		t.Fatalf("%s: lengths %d, %d", what, len(x), len(y))
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			t.Fatalf("%s: differs from the specification at float64 %d: %v != %v", what, i, x[i], y[i])
		}
	}
}

// TestSpec compares the generated F2 and C2 routines with the naive
// implementation of the documented order, bit for bit, over sizes that
// exercise partial and full lane blocks (K < 16, = 16, > 16, = 33).
func TestSpec(t *testing.T) {
	k2, _ := KernelsFor(2)
	for _, cplx := range []bool{false, true} {
		im := impl{N: 2, Complex: cplx, W: 2, K: k2, tt: testTypes[2], prec: 328}
		if cplx {
			im.W = 4
		}
		rng := rand.New(rand.NewPCG(11, 12))
		for _, mn := range [][2]int{{1, 1}, {5, 3}, {16, 16}, {17, 17}, {40, 33}, {70, 20}} {
			m, n := mn[0], mn[1]
			a := im.randMatrix(rng, m, n, 0)
			b := im.randMatrix(rng, m, 1, 0)
			x := im.randMatrix(rng, n, 1, 0)
			f, _ := im.newQR(m, n, a, m, 3)
			af, tf := factorsOf(f)
			spa := append([]float64{}, a...)
			bq := append([]float64{}, b...)
			sb := append([]float64{}, b...)
			f.ApplyQH(bq, 1)
			if err := f.SolveR(bq, 1); err != nil {
				t.Fatal(err)
			}
			bm := append([]float64{}, b...)
			im.mulSub(m, n, a, m, x, bm, 2)
			sm := append([]float64{}, b...)
			var stau []float64
			if !cplx {
				A := as[mdops.F2](spa, 2)
				tau := specQR(specF2, m, n, A)
				stau = flat(tau, 2)
				B := as[mdops.F2](sb, 2)
				for k := 0; k < n; k++ {
					specApplyH(specF2, A[k+1+k*m:(k+1)*m], tau[k], B[k:m])
				}
				specSolveR(specF2, m, n, A, B, specOne)
				specMulSub(specF2, m, n, as[mdops.F2](a, 2), m, as[mdops.F2](x, 2), as[mdops.F2](sm, 2))
			} else {
				A := as[mdops.C2](spa, 4)
				tau := specQR(specC2, m, n, A)
				stau = flat(tau, 4)
				B := as[mdops.C2](sb, 4)
				for k := 0; k < n; k++ {
					specApplyH(specC2, A[k+1+k*m:(k+1)*m], tau[k], B[k:m])
				}
				specSolveR(specC2, m, n, A, B, specOne)
				specMulSub(specC2, m, n, as[mdops.C2](a, 4), m, as[mdops.C2](x, 4), as[mdops.C2](sm, 4))
			}
			name := im.String()
			bitsEqual(t, name+" QR factors", spa, af)
			bitsEqual(t, name+" tau", stau, tf)
			bitsEqual(t, name+" Q^H b then R^-1", sb[:n*im.W], bq[:n*im.W])
			bitsEqual(t, name+" MulSub", sm, bm)
		}
	}
}
