package gpuabi

// The schedule of the convolution kernel: which output coefficients
// (chains) each thread of a block computes. The kernel's mdgen_schedule
// (templates/kernels.cu.tmpl) computes the same from (d, blockDim.x, t);
// gen's tests run it compiled as host C++ for many degrees and block sizes
// and compare it with ThreadChains, thread by thread. This file is the
// specification; change both together.

// Schedule returns the steps L (multiply-adds per thread) of the
// convolution kernel's schedule for degree d and t threads, and whether it
// uses complement bins (when complement allows them). Strict accepts
// complement bins only when they save a quarter of the steps (the split
// schedule of complex data, see LaunchShape).
func Schedule(d, t int, complement, strict bool) (steps int, comp bool) {
	if d <= 0 {
		return 0, false
	}
	units := d/2 + 1 // pairs (d-u, u), u = 0..d/2 (u = d/2 alone when d is even)
	q := (units + t - 1) / t
	lm := q * d
	if complement && q >= 2 {
		m := d * (d + 1) / 2
		l := max(d, (m+t-1)/t)
		for it := 0; it < 64 && l < lm && l < 2*d && (!strict || 4*l <= 3*lm); it, l = it+1, l+1 {
			if compBins(d, l) <= t {
				return l, true
			}
		}
	}
	return lm, false
}

// compBins counts the bins of capacity l (d <= l < 2d) of the complement
// packing of the chains 1..d: bins (d-t, l-(d-t)) for t < d - l/2, the
// middle chain l/2 when l is even, then the chains l-d-1, ..., 1 greedily.
func compBins(d, l int) int {
	h := l / 2
	b := d - h
	mid := 0
	if l%2 == 0 {
		mid = h
	}
	nb, load := 0, 0
	if mid > 0 {
		nb, load = 1, mid
	}
	for x := l - d - 1; x >= 1; x-- {
		if nb == 0 || load+x > l {
			nb++
			load = x
		} else {
			load += x
		}
	}
	return b + nb
}

// ThreadChains returns the chains (output coefficients k in 1..d, in the
// order the thread runs them) of thread t of a block of T threads at
// degree d, as Schedule(d, T, complement, strict) lays them out: every k
// in 1..d goes to exactly one thread, and no thread's chains sum to more
// than the steps.
//
//   - Complement bins (capacity L = steps): thread t < d - L/2 runs the
//     pair d-t, L-(d-t) (the second when it is >= 1); the others take the
//     leftover bins in order: the middle chain L/2 first when L is even
//     (it opens the first bin), then the chains L-d-1 down to 1, packed
//     greedily (a chain that does not fit opens the next bin).
//   - Otherwise q = steps/d consecutive pairs (d-u, u) per thread, units
//     u0 = t·q .. u0+q-1: the big chains d-u descending, then the small
//     ones u (1 <= u < d-u) ascending.
func ThreadChains(d, T, t int, complement, strict bool) []int {
	steps, comp := Schedule(d, T, complement, strict)
	if steps == 0 {
		return nil
	}
	var ks []int
	if comp {
		l := steps
		h := l / 2
		b := d - h
		if t < b {
			big := d - t
			ks = append(ks, big)
			if small := l - big; small >= 1 {
				ks = append(ks, small)
			}
			return ks
		}
		bin, load, hi, lo := -1, 0, 0, 1
		mid := false
		if l%2 == 0 {
			bin, load, mid = 0, h, t == b
		}
		for x := l - d - 1; x >= 1; x-- {
			if bin < 0 || load+x > l {
				bin++
				load = x
			} else {
				load += x
			}
			if bin == t-b {
				if hi == 0 {
					hi = x
				}
				lo = x
			}
			if bin > t-b {
				break
			}
		}
		if mid {
			ks = append(ks, h)
		}
		for k := hi; hi > 0 && k >= lo; k-- {
			ks = append(ks, k)
		}
		return ks
	}
	units := d/2 + 1
	q := steps / d
	u0 := t * q
	u1 := min(u0+q, units)
	for u := u0; u < u1; u++ {
		ks = append(ks, d-u)
	}
	for u := max(u0, 1); u <= min(u1-1, (d-1)/2); u++ {
		ks = append(ks, u)
	}
	return ks
}
