package la

import "math"

// Lanes is the number of lanes of every reduction (a power of two). Sixteen
// keeps the cost of combining the lanes (Lanes-1 Adds per sum) small next
// to the sums of 32 to 256 terms of the Newton solver on the CPU, gives the
// CPU independent accumulators to overlap, and is half a warp on the GPU
// (two reductions per warp, combined by shuffles at distance 8, 4, 2, 1).
const Lanes = 16

// rowChunk is the number of rows MulSub keeps partial sums for at once
// (Lanes*rowChunk elements of scratch); it does not change the results.
const rowChunk = 32

// pow2Scales returns the factors of larfg's scaling for a column whose
// largest leading limb has magnitude amax: with 2^e <= amax < 2^(e+1), the
// column is scaled by 2^-e as f1 then f2 (f2 = 1 unless 2^-e is not a
// float64: then f1 = 2^1000, f2 = 2^(-e-1000)), and beta is scaled back by
// 2^e as g1 then g2 (g2 = 1 unless 2^e is below the normal range: then
// g1 = 2^-1000, g2 = 2^(e+1000)).
func pow2Scales(amax float64) (f1, f2, g1, g2 float64) {
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
