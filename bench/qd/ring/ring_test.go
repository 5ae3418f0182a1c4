package ring

import (
	"math"
	"testing"
)

// Fingerprints (FNV-1a over the limbs in generation order) of the ring's
// operands: pinned, so that the inputs of bench-qd, and so its numbers, do
// not change unnoticed (they are those of the earlier measurements).
const (
	fingerprintDD = 0x100cbfefafb74743
	fingerprintQD = 0x0023f94e04175fe9
)

// fingerprint is FNV-1a over the little-endian IEEE bits of the limbs in
// generation order (x0, y0, x1, y1, ...).
func fingerprint(n int, x, y []float64) uint64 {
	h := uint64(0xcbf29ce484222325)
	mix := func(d float64) {
		b := math.Float64bits(d)
		for s := 0; s < 64; s += 8 {
			h ^= (b >> s) & 0xff
			h *= 0x100000001b3
		}
	}
	for i := range Pairs {
		for _, d := range x[i*n : (i+1)*n] {
			mix(d)
		}
		for _, d := range y[i*n : (i+1)*n] {
			mix(d)
		}
	}
	return h
}

// TestInputs checks that the operands are what both sides assume:
// normalized expansions (fl(limb_k + limb_k+1) == limb_k, leading limb in
// [1, 2)), the pinned ones, and the same in the typed arrays.
func TestInputs(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want uint64
	}{{2, fingerprintDD}, {4, fingerprintQD}} {
		x, y := Limbs(tc.n)
		for i := range Pairs {
			for _, v := range [][]float64{x[i*tc.n : (i+1)*tc.n], y[i*tc.n : (i+1)*tc.n]} {
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
		if got := fingerprint(tc.n, x, y); got != tc.want {
			t.Errorf("n=%d: input fingerprint %#016x, want %#016x", tc.n, got, tc.want)
		}
	}
	l2, _ := Limbs(2)
	l4, _ := Limbs(4)
	if xF2[7][1] != l2[7*2+1] || xF4[7][3] != l4[7*4+3] {
		t.Errorf("typed inputs differ from limbs: %v vs %v, %v vs %v", xF2[7], l2[14:16], xF4[7], l4[28:32])
	}
}

// TestLoops runs every loop once around the ring: each result is the
// operation on its pair (the loops compute what they are named after).
func TestLoops(t *testing.T) {
	for _, l := range Loops {
		l.Run(Pairs)
		for _, j := range []int{0, 1, Pairs - 1} {
			var got, want [4]float64
			switch l.Type + " " + l.Op {
			case "dd add":
				got, want = [4]float64{outF2[j][0], outF2[j][1]}, [4]float64{xF2[j].Add(yF2[j])[0], xF2[j].Add(yF2[j])[1]}
			case "dd mul":
				got, want = [4]float64{outF2[j][0], outF2[j][1]}, [4]float64{xF2[j].Mul(yF2[j])[0], xF2[j].Mul(yF2[j])[1]}
			case "dd div":
				got, want = [4]float64{outF2[j][0], outF2[j][1]}, [4]float64{xF2[j].Div(yF2[j])[0], xF2[j].Div(yF2[j])[1]}
			case "qd add":
				got, want = outF4[j], xF4[j].Add(yF4[j])
			case "qd mul":
				got, want = outF4[j], xF4[j].Mul(yF4[j])
			case "qd div":
				got, want = outF4[j], xF4[j].Div(yF4[j])
			default:
				t.Fatalf("unknown loop %s %s", l.Type, l.Op)
			}
			if got != want {
				t.Errorf("%s %s: out[%d] = %v, want %v", l.Type, l.Op, j, got, want)
			}
		}
	}
}

// BenchmarkLoops times the Go ring loops alone; ns/op is one operation.
// (bench/qd/ratio times them against libqd.)
func BenchmarkLoops(b *testing.B) {
	for _, l := range Loops {
		b.Run(l.Type+"/"+l.Op, func(b *testing.B) { l.Run(b.N) })
	}
}
