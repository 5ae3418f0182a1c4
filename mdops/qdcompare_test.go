package mdops

// This file is the Go half of the libqd comparison run by bench/qd/run.sh
// (make bench-qd). bench/qd/qdbench.cpp builds the very same inputs with the
// very same generator and times dd_real/qd_real with the very same ring loop,
// so the ns/op figures of the two sides can be put in one table.

import (
	"math"
	"testing"
)

const (
	// qdcmpPairs is the number of (x, y) operand pairs in the ring. It is a
	// power of two so the ring index is a mask, as in qdbench.cpp.
	qdcmpPairs = 1024
	qdcmpMask  = qdcmpPairs - 1

	// qdcmpSeed seeds a fresh splitmix64 stream for each limb count.
	qdcmpSeed = 42

	// FNV-1a fingerprints of the input limbs, as printed by qdbench
	// ("qd fingerprint dd ..."). Pinning them here proves that Go and C++
	// build bit-identical inputs; run.sh checks qdbench against these.
	qdcmpFingerprintDD = 0x100cbfefafb74743
	qdcmpFingerprintQD = 0x0023f94e04175fe9
)

// qdcmpRNG is splitmix64, bit-for-bit the generator in qdbench.cpp.
type qdcmpRNG struct{ state uint64 }

// next returns the next 64-bit splitmix64 output.
func (r *qdcmpRNG) next() uint64 {
	r.state += 0x9E3779B97F4A7C15
	z := r.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// unit returns a uniform float64 in [0, 1). Both the conversion of a 53-bit
// integer and the scaling by 2^-53 are exact, so C++ gets the same bits.
func (r *qdcmpRNG) unit() float64 {
	return float64(r.next()>>11) * 0x1p-53
}

// qdcmpOperand fills limb with a normalized expansion: limb[0] in [1, 2) and
// each further limb a random value of at most half an ulp of its
// predecessor. Only exact operations are used (Frexp, Ldexp, and u-0.5 for
// u in [0, 1)), so the result does not depend on compiler contraction or
// rounding choices. unit is drawn for every limb, even after a zero limb,
// so that the stream position never depends on the values.
func qdcmpOperand(r *qdcmpRNG, limb []float64) {
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

// qdcmpLimbs returns the n-limb operands x[i], y[i] for the qdcmpPairs pairs,
// generated in the order x0, y0, x1, y1, ... from a fresh stream seeded with
// qdcmpSeed, exactly as make_limbs in qdbench.cpp.
func qdcmpLimbs(n int) (x, y [][]float64) {
	r := qdcmpRNG{state: qdcmpSeed}
	x = make([][]float64, qdcmpPairs)
	y = make([][]float64, qdcmpPairs)
	for i := range qdcmpPairs {
		x[i] = make([]float64, n)
		y[i] = make([]float64, n)
		qdcmpOperand(&r, x[i])
		qdcmpOperand(&r, y[i])
	}
	return x, y
}

// qdcmpFingerprint is FNV-1a over the little-endian IEEE bits of all limbs
// in generation order; it matches fingerprint() in qdbench.cpp.
func qdcmpFingerprint(x, y [][]float64) uint64 {
	h := uint64(0xcbf29ce484222325)
	mix := func(d float64) {
		b := math.Float64bits(d)
		for s := 0; s < 64; s += 8 {
			h ^= (b >> s) & 0xff
			h *= 0x100000001b3
		}
	}
	for i := range x {
		for _, d := range x[i] {
			mix(d)
		}
		for _, d := range y[i] {
			mix(d)
		}
	}
	return h
}

// qdcmpInputsF2 returns the double-double inputs as fixed-size arrays, so
// that indexing with i&qdcmpMask needs no bounds check (C++ has none).
func qdcmpInputsF2() (x, y *[qdcmpPairs]F2) {
	lx, ly := qdcmpLimbs(2)
	x, y = new([qdcmpPairs]F2), new([qdcmpPairs]F2)
	for i := range qdcmpPairs {
		x[i] = F2{lx[i][0], lx[i][1]}
		y[i] = F2{ly[i][0], ly[i][1]}
	}
	return x, y
}

// qdcmpInputsF4 returns the quad-double inputs as fixed-size arrays.
func qdcmpInputsF4() (x, y *[qdcmpPairs]F4) {
	lx, ly := qdcmpLimbs(4)
	x, y = new([qdcmpPairs]F4), new([qdcmpPairs]F4)
	for i := range qdcmpPairs {
		x[i] = F4{lx[i][0], lx[i][1], lx[i][2], lx[i][3]}
		y[i] = F4{ly[i][0], ly[i][1], ly[i][2], ly[i][3]}
	}
	return x, y
}

// Results are stored into package-level arrays and one element is copied to
// a package-level sink after each loop, so the compiler cannot drop the work.
var (
	qdcmpOutF2  [qdcmpPairs]F2
	qdcmpOutF4  [qdcmpPairs]F4
	qdcmpSinkF2 F2
	qdcmpSinkF4 F4
)

// BenchmarkQDCompare times Add, Mul and Div of F2 (dd) and F4 (qd) over a
// ring of the qdcmpPairs operand pairs shared with bench/qd/qdbench.cpp;
// ns/op is the cost of one operation. Each loop is written out by hand
// rather than through a func value or a generic helper: those would turn
// the method call into an indirect call that the compiler cannot inline,
// while the C++ side inlines libqd's header functions.
func BenchmarkQDCompare(b *testing.B) {
	b.Run("dd", func(b *testing.B) {
		x, y := qdcmpInputsF2()
		out := &qdcmpOutF2
		b.Run("add", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				j := i & qdcmpMask
				out[j] = x[j].Add(y[j])
			}
			qdcmpSinkF2 = out[b.N&qdcmpMask]
		})
		b.Run("mul", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				j := i & qdcmpMask
				out[j] = x[j].Mul(y[j])
			}
			qdcmpSinkF2 = out[b.N&qdcmpMask]
		})
		b.Run("div", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				j := i & qdcmpMask
				out[j] = x[j].Div(y[j])
			}
			qdcmpSinkF2 = out[b.N&qdcmpMask]
		})
	})
	b.Run("qd", func(b *testing.B) {
		x, y := qdcmpInputsF4()
		out := &qdcmpOutF4
		b.Run("add", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				j := i & qdcmpMask
				out[j] = x[j].Add(y[j])
			}
			qdcmpSinkF4 = out[b.N&qdcmpMask]
		})
		b.Run("mul", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				j := i & qdcmpMask
				out[j] = x[j].Mul(y[j])
			}
			qdcmpSinkF4 = out[b.N&qdcmpMask]
		})
		b.Run("div", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				j := i & qdcmpMask
				out[j] = x[j].Div(y[j])
			}
			qdcmpSinkF4 = out[b.N&qdcmpMask]
		})
	})
}

// TestQDCompareInputs checks that the benchmark inputs are what both sides
// assume: normalized expansions (fl(limb_k + limb_k+1) == limb_k, leading
// limb in [1, 2)) that are bit-identical to qdbench.cpp's (fingerprints).
func TestQDCompareInputs(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want uint64
	}{{2, qdcmpFingerprintDD}, {4, qdcmpFingerprintQD}} {
		x, y := qdcmpLimbs(tc.n)
		for i := range qdcmpPairs {
			for _, v := range [][]float64{x[i], y[i]} {
				if v[0] < 1 || v[0] >= 2 {
					t.Fatalf("n=%d pair %d: leading limb %v not in [1, 2)", tc.n, i, v[0])
				}
				for k := 0; k+1 < len(v); k++ {
					if s := v[k] + v[k+1]; s != v[k] {
						t.Fatalf("n=%d pair %d: limbs %v not normalized at %d: fl(%v + %v) = %v",
							tc.n, i, v, k, v[k], v[k+1], s)
					}
				}
			}
		}
		if got := qdcmpFingerprint(x, y); got != tc.want {
			t.Errorf("n=%d: input fingerprint %#016x, want %#016x (qdbench.cpp)", tc.n, got, tc.want)
		}
	}
	// The typed inputs must carry the same limbs.
	x2, _ := qdcmpInputsF2()
	x4, _ := qdcmpInputsF4()
	l2, _ := qdcmpLimbs(2)
	l4, _ := qdcmpLimbs(4)
	if x2[7][1] != l2[7][1] || x4[7][3] != l4[7][3] {
		t.Errorf("typed inputs differ from limbs: %v vs %v, %v vs %v", x2[7], l2[7], x4[7], l4[7])
	}
}
