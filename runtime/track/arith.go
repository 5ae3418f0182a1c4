package track

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/mdgen/mdgen/mdops"
	"github.com/mdgen/mdgen/mdops/fp"
)

// The tracker's own arithmetic, beside Newton's: the shift of the
// homotopy's coefficients to the current point, the Padé approximants, and
// the prediction. Each is written once, generic over the complex
// multiple-double types mdops.C<N>, on the flat []float64 buffers of
// Newton's layout (a complex number is its N real limbs, then its N
// imaginary limbs, exactly as a C<N> lies in memory). The order of every
// operation is fixed by the loops below: it is the specification that a
// batched GPU tracker reproduces bit for bit. The work here is a few
// hundred operations per step against Newton's thousands, so a generic
// loop (no inlining through the dictionary) costs nothing that shows.

// cnum is the method set of mdops.C<N> that the tracker uses.
type cnum[T any] interface {
	Add(T) T
	Sub(T) T
	Mul(T) T
	Div(T) T
	MulAdd(x, y T) T // acc.MulAdd(x, y) = acc + x*y
}

// arith is the tracker's arithmetic at one precision, on flat buffers of
// complex numbers (W = 2N float64s each).
type arith interface {
	// shift writes the series in s of c(tau - s), for the polynomial
	// c(tau) = coef[0] + coef[1] tau + ... (len(coef)/W coefficients), to
	// dst (the same length; scratch of that length too).
	shift(dst, coef []float64, tau float64)
	// pade fills pd with the [L/M] approximants of the n series in x
	// (Newton's layout: coefficient k of variable v at (v*(d+1)+k)*W,
	// d >= L+M+1).
	pade(pd *padeSet, x []float64, n, d int)
	// predict writes the approximants of pd evaluated at s to dst (n numbers).
	predict(dst []float64, pd *padeSet, s float64)
	// div writes a/b to dst (complex numbers of W float64s).
	div(dst, a, b []float64)
}

// padeSet holds the [L/M] Padé approximants p_v(s)/q_v(s) of n series,
// q_v(0) = 1, and what the step size needs of them.
type padeSet struct {
	L, M int
	P    []float64 // n*(L+1) numbers: p_v,k at (v*(L+1)+k)*W
	Q    []float64 // n*M numbers: q_v,j (j = 1..M) at (v*M+j-1)*W
	// Taylor[v]: the approximant of v is its Taylor polynomial of degree
	// L (the M x M system of the denominator was singular: a series that
	// is a polynomial, or constant, along the step).
	Taylor []bool
	// Pole[v]: a lower bound on the distance from s = 0 to the nearest
	// zero of q_v (+Inf for none): |1/q_1| when M = 1, Fujiwara's bound
	// 1/(2 max_j |q_j|^(1/j)) for M > 1 (within a factor 2 of the
	// smallest zero).
	Pole []float64
	// Err[v]: |e_v|, the leading coefficient of the error of the
	// approximant, e_v = sum_j q_j c_(L+M+1-j) (q_0 = 1), so that the
	// predictor's error is about Err[v] s^Order[v].
	Err   []float64
	Order []int

	a, rhs []float64 // M x M system and right-hand side (scratch)
}

func newPadeSet(L, M, n, w int) *padeSet {
	return &padeSet{L: L, M: M,
		P: make([]float64, n*(L+1)*w), Q: make([]float64, n*M*w),
		Taylor: make([]bool, n), Pole: make([]float64, n), Err: make([]float64, n), Order: make([]int, n),
		a: make([]float64, M*M*w), rhs: make([]float64, M*w)}
}

// arithFor returns the tracker's arithmetic for N doubles.
func arithFor(n int) (arith, error) {
	switch n {
	case 1:
		return arithC[mdops.C1]{}, nil
	case 2:
		return arithC[mdops.C2]{}, nil
	case 3:
		return arithC[mdops.C3]{}, nil
	case 4:
		return arithC[mdops.C4]{}, nil
	case 5:
		return arithC[mdops.C5]{}, nil
	case 8:
		return arithC[mdops.C8]{}, nil
	case 10:
		return arithC[mdops.C10]{}, nil
	case 16:
		return arithC[mdops.C16]{}, nil
	}
	return nil, fmt.Errorf("track: no complex arithmetic for %d doubles", n)
}

type arithC[T cnum[T]] struct{}

// view reinterprets a flat buffer as complex numbers (no copy).
func view[T any](buf []float64) []T {
	var z T
	w := int(unsafe.Sizeof(z) / 8)
	if len(buf) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&buf[0])), len(buf)/w)
}

// limbsOf returns the float64s of one number (no copy).
func limbsOf[T any](z *T) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(z)), unsafe.Sizeof(*z)/8)
}

// fromFloat returns the number re + 0i, exactly.
func fromFloat[T any](re float64) T {
	var z T
	limbsOf(&z)[0] = re
	return z
}

// one returns 1.
func one[T any]() T { return fromFloat[T](1) }

// mag returns the modulus of z from its leading limbs, in float64: the
// magnitudes the step size is made of need no more.
func mag[T any](z *T) float64 {
	l := limbsOf(z)
	return fp.Hypot(l[0], l[len(l)/2])
}

// neg returns -z, exactly.
func neg[T any](z T) T {
	l := limbsOf(&z)
	for i := range l {
		l[i] = -l[i]
	}
	return z
}

func isZero[T any](z *T) bool {
	l := limbsOf(z)
	return l[0] == 0 && l[len(l)/2] == 0
}

// shift: Horner's Taylor shift c(tau + y) = sum_i a_i y^i (for i = 0..D-1,
// for j = D-1 down to i: a_j = a_j + tau a_(j+1)), then s = -y: a_i times
// (-1)^i.
func (arithC[T]) shift(dst, coef []float64, tau float64) {
	copy(dst, coef)
	a := view[T](dst)
	t := fromFloat[T](tau)
	deg := len(a) - 1
	for i := 0; i < deg; i++ {
		for j := deg - 1; j >= i; j-- {
			a[j] = a[j].MulAdd(t, a[j+1])
		}
	}
	for i := 1; i <= deg; i += 2 {
		a[i] = neg(a[i])
	}
}

// pade: for each variable v, with c_k its coefficient k:
//  1. the denominator q_1..q_M from sum_(j=1..M) c_(k-j) q_j = -c_k,
//     k = L+1..L+M (c_(<0) = 0), by Gaussian elimination with partial
//     pivoting (the first row of largest leading-limb modulus); a zero or
//     non-finite pivot: Taylor (q = 0);
//  2. p_k = c_k + sum_(j=1..min(k,M)) q_j c_(k-j), k = 0..L, j ascending;
//  3. e = c_(L+M+1) + sum_(j=1..M) q_j c_(L+M+1-j), j ascending (Taylor:
//     e = c_(L+1), order L+1).
func (arithC[T]) pade(pd *padeSet, x []float64, n, d int) {
	xs := view[T](x)
	L, M := pd.L, pd.M
	P, Q := view[T](pd.P), view[T](pd.Q)
	A, b := view[T](pd.a), view[T](pd.rhs)
	var zero T
	for v := 0; v < n; v++ {
		c := xs[v*(d+1) : (v+1)*(d+1)]
		coef := func(k int) T {
			if k < 0 {
				return zero
			}
			return c[k]
		}
		q := Q[v*M : (v+1)*M]
		taylor := M == 0
		if M > 0 {
			// A(r, j) = c_(L+1+r-1-j) at r + j*M; b_r = -c_(L+1+r).
			for r := 0; r < M; r++ {
				for j := 0; j < M; j++ {
					A[r+j*M] = coef(L + r - j)
				}
				b[r] = neg(c[L+1+r])
			}
			taylor = !solveSmall(A, b, M)
			if !taylor {
				copy(q, b)
			}
		}
		pd.Taylor[v] = taylor
		p := P[v*(L+1) : (v+1)*(L+1)]
		for k := 0; k <= L; k++ {
			p[k] = c[k]
			if taylor {
				continue
			}
			for j := 1; j <= min(k, M); j++ {
				p[k] = p[k].MulAdd(q[j-1], c[k-j])
			}
		}
		if taylor {
			for j := range q {
				q[j] = zero
			}
			pd.Err[v], pd.Order[v], pd.Pole[v] = mag(&c[L+1]), L+1, math.Inf(1)
			continue
		}
		e := c[L+M+1]
		for j := 1; j <= M; j++ {
			e = e.MulAdd(q[j-1], c[L+M+1-j])
		}
		pd.Err[v], pd.Order[v] = mag(&e), L+M+1
		pd.Pole[v] = poleBound(q)
	}
}

// poleBound is the lower bound of padeSet.Pole for q(s) = 1 + q_1 s + ...
func poleBound[T any](q []T) float64 {
	if len(q) == 1 {
		if m := mag(&q[0]); m > 0 {
			return 1 / m
		}
		return math.Inf(1)
	}
	most := 0.0
	for j := range q {
		if m := mag(&q[j]); m > 0 {
			most = max(most, fp.Pow(m, 1/float64(j+1)))
		}
	}
	if most == 0 {
		return math.Inf(1)
	}
	return 1 / (2 * most)
}

// solveSmall solves the m x m system A y = b (column-major, lda = m) in
// place, y in b, by Gaussian elimination with partial pivoting in a fixed
// order: for each column k, the pivot is the first row i >= k of largest
// leading-limb modulus; rows swapped; for i > k: l = A(i,k)/A(k,k), A(i,j)
// -= l A(k,j) for j = k+1..m-1 ascending, b_i -= l b_k; then back
// substitution from the last row. It reports false on a zero or
// non-finite pivot.
func solveSmall[T cnum[T]](A, b []T, m int) bool {
	for k := 0; k < m; k++ {
		piv, best := k, mag(&A[k+k*m])
		for i := k + 1; i < m; i++ {
			if g := mag(&A[i+k*m]); g > best {
				piv, best = i, g
			}
		}
		if !(best > 0) || math.IsInf(best, 0) {
			return false
		}
		if piv != k {
			for j := k; j < m; j++ {
				A[k+j*m], A[piv+j*m] = A[piv+j*m], A[k+j*m]
			}
			b[k], b[piv] = b[piv], b[k]
		}
		for i := k + 1; i < m; i++ {
			l := A[i+k*m].Div(A[k+k*m])
			for j := k + 1; j < m; j++ {
				A[i+j*m] = A[i+j*m].Sub(l.Mul(A[k+j*m]))
			}
			b[i] = b[i].Sub(l.Mul(b[k]))
		}
	}
	for k := m - 1; k >= 0; k-- {
		y := b[k]
		for j := k + 1; j < m; j++ {
			y = y.Sub(A[k+j*m].Mul(b[j]))
		}
		b[k] = y.Div(A[k+k*m])
		if g := mag(&b[k]); math.IsNaN(g) || math.IsInf(g, 0) {
			return false
		}
	}
	return true
}

// predict: Horner in s for p_v (from p_L down) and, unless Taylor, for
// q_v (from q_M down to q_0 = 1), then p_v(s) / q_v(s).
func (arithC[T]) predict(dst []float64, pd *padeSet, s float64) {
	out := view[T](dst)
	P, Q := view[T](pd.P), view[T](pd.Q)
	L, M := pd.L, pd.M
	st := fromFloat[T](s)
	for v := range out {
		p := P[v*(L+1) : (v+1)*(L+1)]
		num := p[L]
		for k := L - 1; k >= 0; k-- {
			num = p[k].MulAdd(num, st)
		}
		if pd.Taylor[v] || M == 0 {
			out[v] = num
			continue
		}
		q := Q[v*M : (v+1)*M]
		den := q[M-1]
		for j := M - 2; j >= 0; j-- {
			den = q[j].MulAdd(den, st)
		}
		den = one[T]().MulAdd(den, st)
		out[v] = num.Div(den)
	}
}

func (arithC[T]) div(dst, a, b []float64) {
	view[T](dst)[0] = view[T](a)[0].Div(view[T](b)[0])
}
