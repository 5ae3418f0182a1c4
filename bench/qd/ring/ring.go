// Package ring is the Go half of the libqd comparison of `make bench-qd`
// (bench/qd/run.sh): the 1024 operand pairs that both sides compute on, and
// the Go ring loops over them. Command bench/qd/ratio times these loops and
// libqd's (bench/qd/qdbench.cpp, handed the same limbs) in one process,
// interleaved, so that a ratio of the two divides times taken moments
// apart under the same load.
package ring

import (
	"math"

	"github.com/mdgen/mdgen/mdops"
)

const (
	// Pairs is the number of (x, y) operand pairs in the ring: a power of
	// two, so that the ring index is a mask on both sides.
	Pairs = 1024
	mask  = Pairs - 1

	// seed seeds a fresh splitmix64 stream for each limb count.
	seed = 42
)

// splitMix64 is the splitmix64 generator.
type splitMix64 struct{ state uint64 }

// next returns the next 64-bit output.
func (r *splitMix64) next() uint64 {
	r.state += 0x9E3779B97F4A7C15
	z := r.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// unit returns a uniform float64 in [0, 1) (exact: a 53-bit integer
// scaled by 2^-53).
func (r *splitMix64) unit() float64 {
	return float64(r.next()>>11) * 0x1p-53
}

// operand fills limb with a normalized expansion: limb[0] in [1, 2) and
// each further limb a random value of at most half an ulp of its
// predecessor. Only exact operations are used (Frexp, Ldexp, and u-0.5 for
// u in [0, 1)). unit is drawn for every limb, even after a zero limb, so
// that the stream position never depends on the values.
func operand(r *splitMix64, limb []float64) {
	limb[0] = 1 + r.unit()
	for k := 1; k < len(limb); k++ {
		_, e := math.Frexp(limb[k-1]) // ulp(limb[k-1]) = 2^(e-53)
		v := math.Ldexp(r.unit()-0.5, e-53)
		if limb[k-1] == 0 {
			v = 0
		}
		limb[k] = v
	}
}

// Limbs returns the n-limb operands of the ring, flat: x[i*n : (i+1)*n]
// and y[i*n : (i+1)*n] are pair i, generated in the order x0, y0, x1, y1,
// ... from a fresh stream. The C++ side is handed these very limbs.
func Limbs(n int) (x, y []float64) {
	r := splitMix64{state: seed}
	x = make([]float64, Pairs*n)
	y = make([]float64, Pairs*n)
	for i := range Pairs {
		operand(&r, x[i*n:(i+1)*n])
		operand(&r, y[i*n:(i+1)*n])
	}
	return x, y
}

// The operands as the generated types, and the results, in package-level
// arrays (as the C++ side's static arrays): a ring loop indexes them with
// i&mask, without bounds checks or indirection. One result is copied to a
// sink after each loop, so that the compiler cannot drop the work.
var (
	xF2, yF2, outF2 [Pairs]mdops.F2
	xF4, yF4, outF4 [Pairs]mdops.F4
	sinkF2          mdops.F2
	sinkF4          mdops.F4
)

func init() {
	x, y := Limbs(2)
	for i := range Pairs {
		xF2[i] = mdops.F2{x[2*i], x[2*i+1]}
		yF2[i] = mdops.F2{y[2*i], y[2*i+1]}
	}
	x, y = Limbs(4)
	for i := range Pairs {
		xF4[i] = mdops.F4{x[4*i], x[4*i+1], x[4*i+2], x[4*i+3]}
		yF4[i] = mdops.F4{y[4*i], y[4*i+1], y[4*i+2], y[4*i+3]}
	}
}

// Loop is one Go ring loop: Run(iters) computes out[j] = op(x[j], y[j])
// for j = i & (Pairs-1), i < iters.
type Loop struct {
	Type string // "dd" (mdops.F2) or "qd" (mdops.F4)
	Op   string // "add", "mul" or "div"
	Run  func(iters int)
}

// Loops are the Go ring loops, dd then qd, add, mul, div. Each is written
// out by hand rather than through a func value or a generic helper: those
// would turn the method into an indirect call that the compiler cannot
// inline, while the C++ side inlines libqd's header functions.
var Loops = []Loop{
	{"dd", "add", func(iters int) {
		for i := 0; i < iters; i++ {
			j := i & mask
			outF2[j] = xF2[j].Add(yF2[j])
		}
		sinkF2 = outF2[iters&mask]
	}},
	{"dd", "mul", func(iters int) {
		for i := 0; i < iters; i++ {
			j := i & mask
			outF2[j] = xF2[j].Mul(yF2[j])
		}
		sinkF2 = outF2[iters&mask]
	}},
	{"dd", "div", func(iters int) {
		for i := 0; i < iters; i++ {
			j := i & mask
			outF2[j] = xF2[j].Div(yF2[j])
		}
		sinkF2 = outF2[iters&mask]
	}},
	{"qd", "add", func(iters int) {
		for i := 0; i < iters; i++ {
			j := i & mask
			outF4[j] = xF4[j].Add(yF4[j])
		}
		sinkF4 = outF4[iters&mask]
	}},
	{"qd", "mul", func(iters int) {
		for i := 0; i < iters; i++ {
			j := i & mask
			outF4[j] = xF4[j].Mul(yF4[j])
		}
		sinkF4 = outF4[iters&mask]
	}},
	{"qd", "div", func(iters int) {
		for i := 0; i < iters; i++ {
			j := i & mask
			outF4[j] = xF4[j].Div(yF4[j])
		}
		sinkF4 = outF4[iters&mask]
	}},
}
