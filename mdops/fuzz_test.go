package mdops

import (
	"math"
	"testing"

	"github.com/mdgen/mdgen/mdops/alg"
)

// fuzzOperands turns fuzzer floats into normalized N-doubles: a leading
// value (any finite non-zero float64) and two lower parts scaled below it,
// rounded exactly to N limbs.
func fuzzOperands(n int, a, a1, b, b1 float64) (x, y []float64, ok bool) {
	for _, v := range []float64{a, a1, b, b1} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, false
		}
	}
	mk := func(h, l float64) []float64 {
		if h == 0 {
			return nil
		}
		_, e := math.Frexp(h)
		lo := math.Ldexp(math.Mod(l, 1), e-60)
		return alg.RoundToN(alg.Exact([]float64{h, lo, math.Ldexp(lo, -70)}), n)
	}
	x, y = mk(a, a1), mk(b, b1)
	return x, y, x != nil && y != nil
}

// fuzzOp checks one operation at every N on fuzzer input: accuracy against
// math/big and normalization, the same assertions as TestAccuracyAgainstBig.
func fuzzOp(f *testing.F, op string) {
	f.Add(1.0, 0.5, -1.0, 0.25)
	f.Add(3.0, 0.1, 7.0, -0.3)
	f.Add(1e300, 0.9, 1e-300, 0.1)
	f.Add(0.1, 0.0, -0.1, 0.7)
	f.Add(0x1.3p420, 0.3, 0x1.7p-430, -0.7)  // issue 10: sqrt at 2^420; x/y near 2^850
	f.Add(0x1p-1060, 0.6, -0x1.5p-1000, 0.2) // subnormal operands, normal quotient
	f.Fuzz(func(t *testing.T, a, a1, b, b1 float64) {
		for _, n := range Precisions() {
			x, y, ok := fuzzOperands(n, a, a1, b, b1)
			if !ok {
				return
			}
			c := alg.Case{Kind: "fuzz", X: x, Y: y, F: b}
			if op == "sqrt" {
				if c.X[0] < 0 {
					for k := range c.X {
						c.X[k] = -c.X[k]
					}
				}
			}
			want := alg.Reference(op, c, uint(64*n+200))
			// Results whose limbs leave float64's normal range, or that
			// overflow, are the format's limit, not the algorithm's: check
			// the leading exponents of alg.ResultExpRange.
			lo, hi := alg.ResultExpRange(n)
			if e := want.MantExp(nil) - 1; want.IsInf() || want.Sign() != 0 && (e > hi || e < lo) {
				continue
			}
			got := apply(limbFuncsByN[n], op, c)
			if bits := alg.AccurateBits(got, want); bits < targetBits(op, n) {
				t.Fatalf("N=%d %s(%v, %v): %.1f accurate bits, want %.0f; got %v", n, op, x, y, bits, targetBits(op, n), got)
			}
			if !alg.IsNormalized(got) {
				t.Fatalf("N=%d %s(%v, %v) = %v is not normalized", n, op, x, y, got)
			}
		}
	})
}

func FuzzAdd(f *testing.F)        { fuzzOp(f, "add") }
func FuzzSub(f *testing.F)        { fuzzOp(f, "sub") }
func FuzzMul(f *testing.F)        { fuzzOp(f, "mul") }
func FuzzSqr(f *testing.F)        { fuzzOp(f, "sqr") }
func FuzzMulFloat64(f *testing.F) { fuzzOp(f, "mulf64") }
func FuzzDiv(f *testing.F)        { fuzzOp(f, "div") }
func FuzzSqrt(f *testing.F)       { fuzzOp(f, "sqrt") }
