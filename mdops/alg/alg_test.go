package alg

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestFlopCounts pins the operation counts that the design promises: the
// Zhang-Aiken networks for N = 2, 3, 4 and, for N = 5, 8, 10, fewer flops
// per add than CAMPARY's fast algorithm (122, 269, 397).
func TestFlopCounts(t *testing.T) {
	want := map[int][2]int{2: {20, 9}, 3: {63, 45}, 4: {124, 124}}
	for n, w := range want {
		l := Build(n)
		if got := l.Add.Count().Flops(); got != w[0] {
			t.Errorf("N=%d add: %d flops, want %d", n, got, w[0])
		}
		if got := l.Mul.Count().Flops(); got != w[1] {
			t.Errorf("N=%d mul: %d flops, want %d", n, got, w[1])
		}
	}
	campary := map[int]int{5: 122, 8: 269, 10: 397}
	for n, c := range campary {
		if got := Build(n).Add.Count().Flops(); got >= c {
			t.Errorf("N=%d add: %d flops, not fewer than CAMPARY's %d", n, got, c)
		}
	}
	// CAMPARY's mul with FMA: 326, 1196, 2256 flops.
	camparyMul := map[int]int{5: 326, 8: 1196, 10: 2256}
	for n, c := range camparyMul {
		if got := Build(n).Mul.Count().Flops(); got >= c {
			t.Errorf("N=%d mul: %d flops, not fewer than CAMPARY's %d", n, got, c)
		}
	}
	// The fused madd costs less than mul then add for N <= 4; for N >= 5
	// madd is mul then add unless FusedMulAddAbove4 is set.
	for _, n := range []int{1, 2, 3, 4, 5, 8, 10, 16} {
		l := Build(n)
		got, sep := l.MulAdd.Count().Flops(), l.Mul.Count().Flops()+l.Add.Count().Flops()
		switch {
		case n <= 4 && got >= sep:
			t.Errorf("N=%d madd: %d flops, not fewer than mul + add (%d)", n, got, sep)
		case n >= 5 && !FusedMulAddAbove4 && got != sep:
			t.Errorf("N=%d madd: %d flops, want mul + add (%d)", n, got, sep)
		}
	}
	// The fused form for N >= 5 stays available and cheaper.
	FusedMulAddAbove4 = true
	defer func() { FusedMulAddAbove4 = false }()
	for _, n := range []int{5, 8, 10, 16} {
		l := Build(n)
		if got, sep := l.MulAdd.Count().Flops(), l.Mul.Count().Flops()+l.Add.Count().Flops(); got >= sep {
			t.Errorf("N=%d fused madd: %d flops, not fewer than mul + add (%d)", n, got, sep)
		}
	}
}

// TestMulMaxLimbs checks mul and sqr on operands whose limbs are all of one
// sign and as large as normalization allows (just below half an ulp of the
// limb before), where the products of every level add up instead of
// cancelling: the worst case for mul's plainly summed last level.
func TestMulMaxLimbs(t *testing.T) {
	for _, n := range []int{3, 4, 5, 8, 10, 16} {
		l := Build(n)
		mk := func(lead, frac float64) []float64 {
			x := make([]float64, n)
			x[0] = lead
			for k := 1; k < n; k++ {
				_, e := math.Frexp(x[k-1])
				x[k] = math.Ldexp(frac, e-54)
			}
			return RoundToN(Exact(x), n)
		}
		for i, fr := range []float64{1 - 0x1p-53, 0.75, 0.999, 0.5 + 0x1p-30, 1 - 0x1p-20} {
			for j, lead := range []float64{2 - 0x1p-52, 1.5, 1 + 0x1p-52, 1.9} {
				x := mk(lead, fr)
				y := mk(2-0x1p-51, 1-0x1p-52)
				if j%2 == 1 {
					y = mk(lead, fr)
				}
				c := Case{X: x, Y: y}
				target := float64(53*n - 6)
				for _, p := range []*Program{l.Mul, l.Sqr} {
					args := [][]float64{x, y}
					if p.Op == "sqr" {
						args, c.Y = [][]float64{x}, x
					}
					got := p.Eval(args...)
					if bits := AccurateBits(got, Reference(p.Op, c, uint(64*n+200))); bits < target {
						t.Errorf("N=%d %s case %d/%d: %.1f accurate bits < %.0f", n, p.Op, i, j, bits, target)
					}
					if !IsNormalized(got) {
						t.Errorf("N=%d %s case %d/%d: not normalized: %v", n, p.Op, i, j, got)
					}
				}
			}
		}
	}
}

// TestBlocksExact checks the error-free transforms on values where the
// rounding error is known.
func TestBlocksExact(t *testing.T) {
	b, a := NewBuilder("t", 2, Param{Name: "x", Width: 2})
	s, e := b.TwoSum(a[0][0], a[0][1])
	p := b.Finish([]Value{s, e})
	got := p.Eval([]float64{1, 0x1p-60})
	if got[0] != 1 || got[1] != 0x1p-60 {
		t.Errorf("TwoSum(1, 2^-60) = %v", got)
	}
	b, a = NewBuilder("t", 2, Param{Name: "x", Width: 2})
	pr, er := b.TwoProd(a[0][0], a[0][1])
	p = b.Finish([]Value{pr, er})
	x := 1 + 0x1p-30
	got = p.Eval([]float64{x, x})
	if got[0] != 1+0x1p-29 || got[1] != 0x1p-60 {
		t.Errorf("TwoProd(1+2^-30, 1+2^-30) = %v", got)
	}
}

// TestDeadCodeRemoved checks that Finish drops unused instructions: the
// last FastTwoSum's error of a renormalization is never read.
func TestDeadCodeRemoved(t *testing.T) {
	for _, n := range []int{2, 5, 16} {
		for _, p := range Build(n).Programs() {
			used := make([]bool, len(p.Instrs))
			for _, r := range p.Results {
				used[r] = true
			}
			for i := len(p.Instrs) - 1; i >= 0; i-- {
				for _, v := range p.Instrs[i].operands() {
					used[v] = true
				}
			}
			for i, in := range p.Instrs {
				if !used[i] && in.Op != OpArg {
					t.Errorf("N=%d %s: instruction %d (%v) is dead", n, p.Op, i, in.Op)
				}
			}
		}
	}
}

// TestAccurateBits checks the accuracy measure itself.
func TestAccurateBits(t *testing.T) {
	want := Exact([]float64{1, 0x1p-60})
	if b := AccurateBits([]float64{1, 0x1p-60}, want); !math.IsInf(b, 1) {
		t.Errorf("exact result gives %v bits", b)
	}
	if b := AccurateBits([]float64{1, 0}, want); math.Abs(b-60) > 0.01 {
		t.Errorf("error 2^-60 gives %v bits, want 60", b)
	}
}

// TestUfpAndScales checks ufp (Rump's unit in the first place) against
// math.Frexp over every binade from the smallest subnormal up to 2^969, on
// the significands where its rounding argument is tightest (1, 1 + 2^-52,
// 1.5, just below 2, odd and random ones), and the promises of rootScale
// (x0 u u in [1 - 2^-52, 4) exactly, undo = 1/u, rho = 1/sqrt(x0)) and
// divisorScale (|y0| c u in (1/2, 1] up to 2^-51, exactly) for every
// non-zero finite float64 of either sign.
func TestUfpAndScales(t *testing.T) {
	b, a := NewBuilder("t", 1, Param{Name: "v", Width: 1})
	v := a[0][0]
	u, undo, rho := b.rootScale(b.Sqrt(v))
	c, ud := b.divisorScale(v)
	scale := b.Finish([]Value{b.ufp(v), u, undo, rho, c, ud})
	rng := rand.New(rand.NewPCG(3, 4))
	sig := []float64{1, 1 + 0x1p-52, 1.5, 1.5 + 0x1p-52, 2 - 0x1p-52, 2 - 0x1p-51, 1.75 - 0x1p-52}
	for e := MinSubnormalExp; e <= MaxFiniteExp; e++ {
		ms := append([]float64(nil), sig...)
		for range 8 {
			ms = append(ms, 1+float64(rng.Int64N(1<<52))*0x1p-52)
		}
		for _, m := range ms {
			v := math.Ldexp(m, e)
			if v == 0 || math.IsInf(v, 0) {
				continue
			}
			_, ev := math.Frexp(v)
			want := math.Ldexp(1, ev-1)
			got := scale.Eval([]float64{v})
			if e < 970 && got[0] != want {
				t.Errorf("ufp(%g = 2^%d * %v) = %g, want %g", v, e, m, got[0], want)
			}
			u, undo, rho := got[1], got[2], got[3]
			s := v * u * u
			if s < 1-0x1p-52 || s >= 4 || undo*u != 1 || s*undo*undo != v || rho != 1/math.Sqrt(v) {
				t.Errorf("rootScale(sqrt(%g)): u = %g, undo = %g, rho = %g, v*u*u = %v", v, u, undo, rho, s)
			}
			for _, sign := range []float64{1, -1} {
				got := scale.Eval([]float64{sign * v})
				c, ud := got[4], got[5]
				if y := math.Abs(v * c * ud); y <= 0.5-0x1p-52 || y > 1+0x1p-51 || y/ud/c != v {
					t.Errorf("divisorScale(%g): c = %g, u = %g, |y0| c u = %v", sign*v, c, ud, y)
				}
			}
		}
	}
}

// TestCorpusExponents checks that every random case of the accuracy
// corpora has its exact result (for madd: |acc| + |x*y|) in
// ResultExpRange, and that the ranges reach both of its ends.
func TestCorpusExponents(t *testing.T) {
	if ceilHalf(-174) != -87 || ceilHalf(-173) != -86 || floorHalf(1019) != 509 || floorHalf(-3) != -2 {
		t.Fatal("ceilHalf/floorHalf")
	}
	for _, n := range []int{1, 2, 4, 8, 16} {
		lo, hi := ResultExpRange(n)
		for _, op := range MeasuredOps {
			seen := [2]bool{}
			for _, c := range Corpus(op, n, 3000, 1) {
				if c.Kind != "random" {
					continue
				}
				want := Reference(op, c, uint(64*n+200))
				if s := Scale(op, c); s != nil {
					want = s
				}
				if want.Sign() == 0 {
					continue
				}
				e := want.MantExp(nil) - 1
				if e < lo || e > hi {
					t.Errorf("N=%d %s: result exponent %d outside [%d, %d]", n, op, e, lo, hi)
				}
				seen[0] = seen[0] || e < lo+60
				seen[1] = seen[1] || e > hi-60
			}
			if op != "sqrt" && (!seen[0] || !seen[1]) {
				t.Errorf("N=%d %s: results do not reach both ends of [%d, %d]: %v", n, op, lo, hi, seen)
			}
		}
	}
}

// TestComplexCorpusExponents checks that every random case of the complex
// corpora has the magnitudes its parts are measured against (see
// ComplexReference) in ResultExpRange, allowing one binade below for cdiv's
// |a|/|b|, that these reach both ends of the range, and that cdiv's
// divisors and cabs's operands reach the ends of float64's range that the
// scaling makes usable (below 2^-1000 and above 2^1000).
func TestComplexCorpusExponents(t *testing.T) {
	exp := func(v []float64) int { _, e := math.Frexp(v[0]); return e - 1 }
	for _, n := range []int{1, 2, 4, 8, 16} {
		lo, hi := ResultExpRange(n)
		for _, op := range ComplexOpsMeasured {
			seen := [2]bool{}
			operand := [2]bool{}
			for _, c := range ComplexCorpus(op, n, 3000, 1) {
				if c.Kind != "random" {
					continue
				}
				re, _, sre, sim := ComplexReference(op, c, uint(64*n+200))
				scales, slack := []*big.Float{sre, sim}, 0
				switch op {
				case "cabs":
					scales = []*big.Float{re}
				case "cdiv":
					slack = 1
				}
				for _, s := range scales {
					if s.Sign() == 0 {
						continue
					}
					e := s.MantExp(nil) - 1
					if e < lo-slack || e > hi {
						t.Errorf("N=%d %s: scale exponent %d outside [%d, %d]", n, op, e, lo-slack, hi)
					}
					seen[0] = seen[0] || e < lo+60
					seen[1] = seen[1] || e > hi-60
				}
				v := c.A
				if op == "cdiv" {
					v = c.B
				}
				e := max(exp(v[0]), exp(v[1]))
				operand[0] = operand[0] || e < -1000
				operand[1] = operand[1] || e > 1000
			}
			if !seen[0] || !seen[1] {
				t.Errorf("N=%d %s: scales do not reach both ends of [%d, %d]: %v", n, op, lo, hi, seen)
			}
			scaled := op == "cdiv" || op == "cabs"
			if scaled && (!operand[0] && (op == "cdiv" || lo < -1000) || !operand[1]) {
				t.Errorf("N=%d %s: operands do not reach below 2^-1000 and above 2^1000: %v", n, op, operand)
			}
		}
	}
}
