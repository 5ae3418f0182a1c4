package la

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mdgen/mdgen/mdops"
)

// The measurement behind generating the routines per precision (gen/la.go)
// instead of writing them once with Go generics over the method sets of
// F<N>: the same loops, generic and direct, at N = 2 and 4. A generic
// function is compiled once per GC shape and calls the methods through a
// dictionary, so they are not inlined and the arrays travel through memory.

type numeric[T any] interface {
	MulAdd(x, y T) T
	Mul(y T) T
	Add(y T) T
}

func genDot[T numeric[T]](x, y []T) T {
	var acc T
	y = y[:len(x)]
	for i := range x {
		acc = acc.MulAdd(x[i], y[i])
	}
	return acc
}

func genAxpy[T numeric[T]](a T, x, y []T) {
	y = y[:len(x)]
	for i := range x {
		y[i] = y[i].MulAdd(a, x[i])
	}
}

// genDotLanes is dotu<T> written with generics.
func genDotLanes[T numeric[T]](x, y []T) T {
	k := len(x)
	y = y[:k]
	var acc [Lanes]T
	f := min(k, Lanes)
	for l := 0; l < f; l++ {
		acc[l] = x[l].Mul(y[l])
	}
	i := Lanes
	for ; i+Lanes <= k; i += Lanes {
		xs := (*[Lanes]T)(x[i : i+Lanes])
		ys := (*[Lanes]T)(y[i : i+Lanes])
		for l := range Lanes {
			acc[l] = acc[l].MulAdd(xs[l], ys[l])
		}
	}
	for l := 0; i+l < k; l++ {
		acc[l] = acc[l].MulAdd(x[i+l], y[i+l])
	}
	for s := Lanes / 2; s >= 1; s /= 2 {
		for l := 0; l < s && l+s < f; l++ {
			acc[l] = acc[l].Add(acc[l+s])
		}
	}
	return acc[0]
}

func directDotF2(x, y []mdops.F2) mdops.F2 {
	var acc mdops.F2
	y = y[:len(x)]
	for i := range x {
		acc = acc.MulAdd(x[i], y[i])
	}
	return acc
}

func directAxpyF2(a mdops.F2, x, y []mdops.F2) {
	y = y[:len(x)]
	for i := range x {
		y[i] = y[i].MulAdd(a, x[i])
	}
}

func directDotF4(x, y []mdops.F4) mdops.F4 {
	var acc mdops.F4
	y = y[:len(x)]
	for i := range x {
		acc = acc.MulAdd(x[i], y[i])
	}
	return acc
}

func directAxpyF4(a mdops.F4, x, y []mdops.F4) {
	y = y[:len(x)]
	for i := range x {
		y[i] = y[i].MulAdd(a, x[i])
	}
}

func BenchmarkGeneric(b *testing.B) {
	const n = 256
	rate := func(b *testing.B) {
		b.ReportMetric(n*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mmadd/s")
	}
	for _, N := range []int{2, 4} {
		im := impl{N: N, W: N, tt: testTypes[N], prec: uint(64*N + 200)}
		rng := rand.New(rand.NewPCG(1, 2))
		xf, yf := im.randMatrix(rng, n, 1, 0), im.randMatrix(rng, n, 1, 0)
		switch N {
		case 2:
			x, y := as[mdops.F2](xf, 2), as[mdops.F2](yf, 2)
			b.Run("F2/dot/direct", func(b *testing.B) {
				for b.Loop() {
					sink = directDotF2(x, y)
				}
				rate(b)
			})
			b.Run("F2/dot/generic", func(b *testing.B) {
				for b.Loop() {
					sink = genDot(x, y)
				}
				rate(b)
			})
			b.Run("F2/lanes/direct", func(b *testing.B) {
				for b.Loop() {
					sink = dotuF2(x, y)
				}
				rate(b)
			})
			b.Run("F2/lanes/generic", func(b *testing.B) {
				for b.Loop() {
					sink = genDotLanes(x, y)
				}
				rate(b)
			})
			b.Run("F2/axpy/direct", func(b *testing.B) {
				for b.Loop() {
					directAxpyF2(x[3], x, y)
				}
				rate(b)
			})
			b.Run("F2/axpy/generic", func(b *testing.B) {
				for b.Loop() {
					genAxpy(x[3], x, y)
				}
				rate(b)
			})
		case 4:
			x, y := as[mdops.F4](xf, 4), as[mdops.F4](yf, 4)
			b.Run("F4/dot/direct", func(b *testing.B) {
				for b.Loop() {
					sink = directDotF4(x, y)
				}
				rate(b)
			})
			b.Run("F4/dot/generic", func(b *testing.B) {
				for b.Loop() {
					sink = genDot(x, y)
				}
				rate(b)
			})
			b.Run("F4/lanes/direct", func(b *testing.B) {
				for b.Loop() {
					sink = dotuF4(x, y)
				}
				rate(b)
			})
			b.Run("F4/lanes/generic", func(b *testing.B) {
				for b.Loop() {
					sink = genDotLanes(x, y)
				}
				rate(b)
			})
			b.Run("F4/axpy/direct", func(b *testing.B) {
				for b.Loop() {
					directAxpyF4(x[3], x, y)
				}
				rate(b)
			})
			b.Run("F4/axpy/generic", func(b *testing.B) {
				for b.Loop() {
					genAxpy(x[3], x, y)
				}
				rate(b)
			})
		}
	}
	_ = fmt.Sprint
}
