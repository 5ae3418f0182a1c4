package mdops

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/mdgen/mdgen/mdops/alg"
)

// seriesCoeffs returns count random N-double coefficients (flat, N limbs
// each) with leading exponents spread over [-spread, spread], and a few zero
// coefficients.
func seriesCoeffs(rng *rand.Rand, n, count, spread int) []float64 {
	out := make([]float64, 0, n*count)
	for k := 0; k < count; k++ {
		v := make([]float64, n)
		if rng.IntN(8) != 0 {
			m := new(big.Float).SetPrec(uint(64*n + 64)).SetFloat64(rng.Float64() + 0.5)
			for i := 0; i < n; i++ {
				m.Add(m, new(big.Float).SetFloat64(math.Ldexp(rng.Float64()-0.5, -53*(i+1))))
			}
			m.SetMantExp(m, rng.IntN(2*spread+1)-spread)
			if rng.IntN(2) == 0 {
				m.Neg(m)
			}
			v = alg.RoundToN(m, n)
		}
		out = append(out, v...)
	}
	return out
}

// convBits returns the accuracy of z, the coefficient k of the product of x
// and y (flat real series), relative to sum_i |x_i||y_{k-i}|.
func convBits(n int, z, x, y []float64, k int) float64 {
	prec := uint(8000)
	want := new(big.Float).SetPrec(prec)
	scale := new(big.Float).SetPrec(prec)
	for i := 0; i <= k; i++ {
		p := new(big.Float).SetPrec(prec).Mul(alg.Exact(x[i*n:(i+1)*n]), alg.Exact(y[(k-i)*n:(k-i+1)*n]))
		want.Add(want, p)
		scale.Add(scale, p.Abs(p))
	}
	return alg.AccurateBitsScaled(z[k*n:(k+1)*n], want, scale)
}

// gaussConv is the canonical complex convolution (stager.ConvJob), written
// with the registry's real operations: sx = xr + xi, dy = yi - yr,
// sy = yr + yi per coefficient; c1 = sx*yr, c2 = xr*dy, c3 = xi*sy in the
// real order; z = (c1 - c3) + i (c1 + c2). x, y: flat complex series.
func gaussConv(f limbFuncs, n int, x, y []float64, length int) []float64 {
	part := func(v []float64, k, p int) []float64 { return v[(2*k+p)*n : (2*k+p+1)*n] }
	sx, dy, sy := make([][]float64, length), make([][]float64, length), make([][]float64, length)
	for j := 0; j < length; j++ {
		sx[j] = f.add(part(x, j, 0), part(x, j, 1))
		dy[j] = f.sub(part(y, j, 1), part(y, j, 0))
		sy[j] = f.add(part(y, j, 0), part(y, j, 1))
	}
	z := make([]float64, 0, 2*n*length)
	for k := 0; k < length; k++ {
		c1 := f.mul(sx[0], part(y, k, 0))
		c2 := f.mul(part(x, 0, 0), dy[k])
		c3 := f.mul(part(x, 0, 1), sy[k])
		for i := 1; i <= k; i++ {
			c1 = f.madd(c1, sx[i], part(y, k-i, 0))
			c2 = f.madd(c2, part(x, i, 0), dy[k-i])
			c3 = f.madd(c3, part(x, i, 1), sy[k-i])
		}
		z = append(z, f.sub(c1, c3)...)
		z = append(z, f.add(c1, c2)...)
	}
	return z
}

// complexConvBits returns the accuracy of the real and imaginary parts of
// z, coefficient k of the product of the flat complex series x and y,
// relative to sum_i (|xr_i|+|xi_i|)(|yr_{k-i}|+|yi_{k-i}|): the bound of
// Gauss's form (whose terms are (xr+xi)yr, xr(yi-yr), xi(yr+yi)).
func complexConvBits(n int, z, x, y []float64, k int) (re, im float64) {
	prec := uint(8000)
	part := func(v []float64, k, p int) *big.Float { return alg.Exact(v[(2*k+p)*n : (2*k+p+1)*n]) }
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	wantRe, wantIm, scale := nf(), nf(), nf()
	for i := 0; i <= k; i++ {
		xr, xi, yr, yi := part(x, i, 0), part(x, i, 1), part(y, k-i, 0), part(y, k-i, 1)
		wantRe.Add(wantRe, nf().Mul(xr, yr))
		wantRe.Sub(wantRe, nf().Mul(xi, yi))
		wantIm.Add(wantIm, nf().Mul(xr, yi))
		wantIm.Add(wantIm, nf().Mul(xi, yr))
		ax := nf().Add(nf().Abs(xr), nf().Abs(xi))
		ay := nf().Add(nf().Abs(yr), nf().Abs(yi))
		scale.Add(scale, nf().Mul(ax, ay))
	}
	return alg.AccurateBitsScaled(z[2*k*n:(2*k+1)*n], wantRe, scale),
		alg.AccurateBitsScaled(z[(2*k+1)*n:(2*k+2)*n], wantIm, scale)
}

// TestSeriesKernels checks ConvolveF<N>/C<N> and AddToF<N>/C<N> through the
// SeriesKernels registry: bit-identical to a naive loop of Mul and MulAdd (the
// canonical order) and to the typed API, accurate against math/big, and
// writing in place through the []float64 views.
func TestSeriesKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range Precisions() {
		ks, ok := SeriesKernelsFor(n)
		if !ok || ks.N != n {
			t.Fatalf("SeriesKernelsFor(%d) = %+v, %v", n, ks.N, ok)
		}
		f := limbFuncsByN[n]
		for _, length := range []int{1, 2, 3, 7, 17, 32, 33, 40} {
			t.Run(fmt.Sprintf("N%d/len%d", n, length), func(t *testing.T) {
				// Real: x and y one coefficient longer than z.
				x := seriesCoeffs(rng, n, length+1, 20)
				y := seriesCoeffs(rng, n, length+2, 20)
				z := make([]float64, n*length)
				for i := range z {
					z[i] = math.NaN() // must be overwritten
				}
				ks.Conv(z, x, y)
				target := float64(53*n-6) - math.Log2(float64(length)) - 1
				for k := 0; k < length; k++ {
					acc := f.mul(x[:n], y[k*n:(k+1)*n])
					for i := 1; i <= k; i++ {
						acc = f.madd(acc, x[i*n:(i+1)*n], y[(k-i)*n:(k-i+1)*n])
					}
					for j := 0; j < n; j++ {
						if math.Float64bits(acc[j]) != math.Float64bits(z[k*n+j]) {
							t.Fatalf("coefficient %d: Conv %v differs from the Mul/MulAdd loop %v", k, z[k*n:(k+1)*n], acc)
						}
					}
					if !alg.IsNormalized(acc) {
						t.Errorf("coefficient %d: %v not normalized", k, acc)
					}
					if bits := convBits(n, z, x, y, k); bits < target {
						t.Errorf("coefficient %d: %.1f accurate bits < %.1f", k, bits, target)
					}
				}
				// AddTo: dst += src, bit-identical to Add.
				dst := append([]float64(nil), z...)
				ks.AddTo(dst, x)
				for k := 0; k < length; k++ {
					want := f.add(z[k*n:(k+1)*n], x[k*n:(k+1)*n])
					for j := 0; j < n; j++ {
						if math.Float64bits(want[j]) != math.Float64bits(dst[k*n+j]) {
							t.Fatalf("AddTo coefficient %d: %v, want %v", k, dst[k*n:(k+1)*n], want)
						}
					}
				}
				// Complex: coefficient k at [2kN, 2kN+2N), re limbs then im limbs.
				cx := seriesCoeffs(rng, n, 2*length, 20)
				cy := seriesCoeffs(rng, n, 2*length, 20)
				cz := make([]float64, 2*n*length)
				ks.ConvComplex(cz, cx, cy)
				part := func(v []float64, k, p int) []float64 { return v[(2*k+p)*n : (2*k+p+1)*n] }
				want := gaussConv(f, n, cx, cy, length)
				for k := 0; k < length; k++ {
					for j := 0; j < 2*n; j++ {
						if math.Float64bits(want[2*k*n+j]) != math.Float64bits(cz[2*k*n+j]) {
							t.Fatalf("complex coefficient %d: ConvComplex %v differs from Gauss's three Mul/MulAdd loops %v",
								k, cz[2*k*n:2*(k+1)*n], want[2*k*n:2*(k+1)*n])
						}
					}
					re, im := part(cz, k, 0), part(cz, k, 1)
					if !alg.IsNormalized(re) || !alg.IsNormalized(im) {
						t.Errorf("complex coefficient %d: not normalized", k)
					}
					rb, ib := complexConvBits(n, cz, cx, cy, k)
					if rb < target-2 || ib < target-2 {
						t.Errorf("complex coefficient %d: %.1f, %.1f accurate bits < %.1f", k, rb, ib, target-2)
					}
				}
				cdst := append([]float64(nil), cz...)
				ks.AddToComplex(cdst, cx)
				for k := 0; k < length; k++ {
					re, im := f.cadd(part(cz, k, 0), part(cz, k, 1), part(cx, k, 0), part(cx, k, 1))
					want := append(append([]float64(nil), re...), im...)
					got := append(append([]float64(nil), part(cdst, k, 0)...), part(cdst, k, 1)...)
					for j := range want {
						if math.Float64bits(want[j]) != math.Float64bits(got[j]) {
							t.Fatalf("AddToComplex coefficient %d: %v, want %v", k, got, want)
						}
					}
				}
			})
		}
	}
}

// TestConvolveTyped checks the typed API against the registry and its
// argument checks.
func TestConvolveTyped(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	flat := func(v []F8) []float64 {
		out := make([]float64, 0, 8*len(v))
		for _, c := range v {
			out = append(out, c[:]...)
		}
		return out
	}
	xs, ys := seriesCoeffs(rng, 8, 9, 5), seriesCoeffs(rng, 8, 9, 5)
	x, y := make([]F8, 9), make([]F8, 9)
	for k := range x {
		x[k], y[k] = F8(xs[8*k:8*k+8]), F8(ys[8*k:8*k+8])
	}
	z := make([]F8, 9)
	ConvolveF8(z, x, y)
	zf := make([]float64, 72)
	ks, _ := SeriesKernelsFor(8)
	ks.Conv(zf, xs, ys)
	for i, v := range flat(z) {
		if math.Float64bits(v) != math.Float64bits(zf[i]) {
			t.Fatalf("ConvolveF8 and SeriesKernels.Conv differ at limb %d", i)
		}
	}
	// Squaring with x == y is allowed.
	ConvolveF8(z, x, x)
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	mustPanic("short x", func() { ConvolveF8(z, x[:3], y) })
	mustPanic("short y", func() { ConvolveF8(z, x, y[:8]) })
	mustPanic("z aliases x", func() { ConvolveF8(x[2:5], x, y) })
	mustPanic("z aliases y", func() { ConvolveF8(y[:3], x, y) })
	mustPanic("ragged buffer", func() { ks.Conv(zf[:7], xs, ys) })
	mustPanic("short src", func() { AddToF8(z, x[:2]) })
	ConvolveF8(nil, nil, nil) // empty: nothing to do
	ConvolveF8(z[:0], x[:0], y[:0])
	if _, ok := SeriesKernelsFor(6); ok {
		t.Errorf("SeriesKernelsFor(6) reports a precision that is not generated")
	}
}

// TestConvolveComplexScratch checks that ConvolveC<N> allocates nothing,
// with its scratch on the stack (up to 32 coefficients) or from the pool,
// and that concurrent calls (the CPU executor's workers) agree with
// sequential ones.
func TestConvolveComplexScratch(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, length := range []int{1, 32, 33, 100} {
		xs, ys := seriesCoeffs(rng, 8, 2*length, 5), seriesCoeffs(rng, 8, 2*length, 5)
		z := make([]float64, 2*8*length)
		ks, _ := SeriesKernelsFor(8)
		ks.ConvComplex(z, xs, ys) // fills the pool
		if a := testing.AllocsPerRun(20, func() { ks.ConvComplex(z, xs, ys) }); a != 0 {
			t.Errorf("length %d: %v allocations per call", length, a)
		}
		x, y := limbsAs[C4](seriesCoeffs(rng, 4, 2*length, 5), 8), limbsAs[C4](seriesCoeffs(rng, 4, 2*length, 5), 8)
		zc := make([]C4, length)
		if a := testing.AllocsPerRun(20, func() { ConvolveC4(zc, x, y) }); a != 0 {
			t.Errorf("C4 length %d: %v allocations per call", length, a)
		}
	}
	// Concurrent calls on different data, against sequential results.
	const workers = 8
	var xs, ys [workers][]C8
	var want [workers][]C8
	for w := range workers {
		length := 20 + 10*w // both sides of the stack limit
		xs[w] = limbsAs[C8](seriesCoeffs(rng, 8, 2*length, 5), 16)
		ys[w] = limbsAs[C8](seriesCoeffs(rng, 8, 2*length, 5), 16)
		want[w] = make([]C8, length)
		ConvolveC8(want[w], xs[w], ys[w])
	}
	errs := make(chan string, workers)
	for w := range workers {
		go func() {
			z := make([]C8, len(want[w]))
			for range 20 {
				ConvolveC8(z, xs[w], ys[w])
				for k := range z {
					if z[k] != want[w][k] {
						errs <- fmt.Sprintf("worker %d: coefficient %d differs from the sequential result", w, k)
						return
					}
				}
			}
			errs <- ""
		}()
	}
	for range workers {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

// TestSeriesJobs: the batch kernels of a layer give the bits of Conv and
// AddTo job by job, for every precision, real and complex, at lengths that
// take each scratch of the complex convolutions (tiny, stack, pool).
func TestSeriesJobs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for _, n := range Precisions() {
		k, _ := SeriesKernelsFor(n)
		for _, cplx := range []bool{false, true} {
			w := n
			conv, add, convJobs, addJobs := k.Conv, k.AddTo, k.ConvJobs, k.AddJobs
			if cplx {
				w = 2 * n
				conv, add, convJobs, addJobs = k.ConvComplex, k.AddToComplex, k.ConvJobsComplex, k.AddJobsComplex
			}
			for _, d1 := range []int{1, 2, 3, 40} {
				const slots = 8
				slotLen := d1 * w
				data := seriesCoeffs(rng, n, slots*slotLen/n, 20)
				want := append([]float64(nil), data...)
				slot := func(v []float64, s int32) []float64 { return v[int(s)*slotLen : int(s+1)*slotLen] }
				cj := []int32{5, 0, 1, 6, 2, 2, 7, 3, 0}
				aj := []int32{0, 5, 1, 6, 4, 7}
				for j := 0; j < len(cj); j += 3 {
					conv(slot(want, cj[j]), slot(want, cj[j+1]), slot(want, cj[j+2]))
				}
				for j := 0; j < len(aj); j += 2 {
					add(slot(want, aj[j]), slot(want, aj[j+1]))
				}
				convJobs(data, slotLen, cj)
				addJobs(data, slotLen, aj)
				for i := range data {
					if math.Float64bits(data[i]) != math.Float64bits(want[i]) {
						t.Fatalf("N=%d complex=%v %d coefficients: double %d is %v, job by job %v", n, cplx, d1, i, data[i], want[i])
					}
				}
			}
		}
	}
}
