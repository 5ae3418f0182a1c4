package gpuabi

import "testing"

// LaunchShape stays within the kernels' __launch_bounds__ (which gen
// emits from ConvMaxThreads and AddMaxThreads), asks for the staging the
// contract describes, and its convolution block has the fewest warp-steps
// in the schedule's model (the split schedule's, from an occupancy model,
// only in its range).
func TestLaunchShapeWithinBounds(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 8, 10, 16} {
		for _, c := range []bool{false, true} {
			for d := 0; d <= 1100; d++ {
				th, sh := LaunchShape(Conv, n, c, d)
				bound := ConvMaxThreads(n, c)
				if th < 32 || th > bound || th%32 != 0 {
					t.Fatalf("conv n=%d complex=%v d=%d: %d threads, bound %d", n, c, d, th, bound)
				}
				// Staging: 2 real series (a, b) real, else 7, 4 or 1 (Gauss), the most that fits.
				set := 8 * n * (d + 1)
				if set != SetBytes(n, d) {
					t.Fatalf("SetBytes(%d, %d) = %d", n, d, SetBytes(n, d))
				}
				want, wantSets := 0, 0
				for _, sets := range map[bool][]int{false: {2}, true: {7, 4, 1}}[c] {
					if sets*set <= StageLimit {
						want, wantSets = sets*set, sets
						break
					}
				}
				if sh != want {
					t.Fatalf("conv n=%d complex=%v d=%d: %d bytes of shared memory, want %d", n, c, d, sh, want)
				}
				// The kernel splits the three chains of a complex coefficient
				// over three threads at n >= 5 when the derived series are
				// staged; without the split such a block holds at most 128.
				split := c && n >= 5 && wantSets >= 4
				if got := ConvSplit(n, c, d); got != split {
					t.Fatalf("conv n=%d complex=%v d=%d: split %v, want %v", n, c, d, got, split)
				}
				if split {
					if lo := min(128, (3*(d/2+1)+31)/32*32); th < lo {
						t.Fatalf("conv n=%d complex=%v d=%d: split block of %d threads, want >= %d", n, c, d, th, lo)
					}
				} else {
					checkFewestWarpSteps(t, n, c, d, th)
				}
				th, sh = LaunchShape(Add, n, c, d)
				if th < 32 || th > AddMaxThreads || sh != 0 {
					t.Fatalf("add n=%d d=%d: shape (%d, %d)", n, d, th, sh)
				}
			}
		}
	}
	if th, sh := LaunchShape("mul", 2, false, 3); th != 0 || sh != 0 {
		t.Errorf("unknown kind: (%d, %d)", th, sh)
	}
}

// checkFewestWarpSteps checks that th, LaunchShape's convolution block
// (without the split), has the fewest warp-steps in the schedule model.
func checkFewestWarpSteps(t *testing.T, n int, c bool, d, th int) {
	t.Helper()
	w := n * Parts(c)
	limit := ConvMaxThreads(n, c)
	if c && n >= 5 {
		limit = 128 // three accumulators per thread
	}
	best := int64(-1)
	first := 32 // one pair per thread when the bound allows (LaunchShape)
	if u := (d/2 + 1 + 31) / 32 * 32; u <= limit && pairsOnly(n, c) {
		first = u
	}
	cost := func(T int) int64 {
		steps, _ := Schedule(d, T, Complement(w), false)
		return int64(T/32) * int64(steps+(d+T)/T)
	}
	for T := first; T <= limit; T += 32 {
		if c := cost(T); best < 0 || c < best {
			best = c
		}
	}
	if got := cost(th); got != best {
		t.Fatalf("conv n=%d complex=%v d=%d: %d threads cost %d warp-steps, the best from %d threads up %d", n, c, d, th, got, first, best)
	}
}
